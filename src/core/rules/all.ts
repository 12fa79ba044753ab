import type { RuleModule } from '../engine/rule';
import { concurrentWrite } from './concurrent-write';
import { streamRules } from './registry';

/** Rules that need the live monitor's view of the working tree (they stay silent in `check`). */
export const liveRules: readonly RuleModule[] = [concurrentWrite];

/** Every rule the product runs: the stream rules plus the live and integrity rules. */
export const allRules: readonly RuleModule[] = [...streamRules, ...liveRules];
