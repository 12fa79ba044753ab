import type { RuleModule } from '../engine/rule';
import { duplicateCallId } from './duplicate-call-id';
import { duplicateResult } from './duplicate-result';
import { mismatchedResult } from './mismatched-result';
import { misplacedResult } from './misplaced-result';
import { missingResult } from './missing-result';
import { orphanResult } from './orphan-result';
import { parallelReadWrite } from './parallel-read-write';
import { parallelWriteWrite } from './parallel-write-write';
import { staleWrite } from './stale-write';
import { unparseableLine } from './unparseable-line';
import { writeBeforeRead } from './write-before-read';

/** Every rule, by id. Explicit, so the set is reviewable and tree-shaken builds keep it. */
export const streamRules: readonly RuleModule[] = [
  orphanResult,
  duplicateResult,
  misplacedResult,
  missingResult,
  duplicateCallId,
  mismatchedResult,
  writeBeforeRead,
  parallelReadWrite,
  parallelWriteWrite,
  staleWrite,
  unparseableLine,
];

export function ruleById(id: string, rules: readonly RuleModule[] = streamRules): RuleModule | undefined {
  return rules.find((r) => r.meta.id === id);
}
