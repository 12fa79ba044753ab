import type { RuleModule } from '../engine/rule';
import { concurrentWrite } from './concurrent-write';
import { forkedSession } from './forked-session';
import { overlappingExecutions } from './overlapping-executions';
import { stalledCall } from './stalled-call';
import { unapprovedCall } from './unapproved-call';
import { unboundResult } from './unbound-result';
import { guardRule } from './guard';
import { streamRules } from './registry';

/** Rules that need the live monitor's view of the working tree (they stay silent in `check`). */
const liveRules: readonly RuleModule[] = [concurrentWrite, guardRule];

/** Session integrity: the causes one level above broken pairing. */
const integrityRules: readonly RuleModule[] = [overlappingExecutions, forkedSession, stalledCall, unapprovedCall, unboundResult];

/** Every rule the product runs: the stream rules plus the live and integrity rules. */
export const allRules: readonly RuleModule[] = [...streamRules, ...liveRules, ...integrityRules];
