import type { Finding } from '../../core/model/finding';
import { findingToJson, type FindingJson } from '../../core/model/findingJson';

export { findingToJson, type FindingJson } from '../../core/model/findingJson';

export interface CheckSummary {
  files: { file: string; agent: string | null; session: string; findings: number }[];
  errors: number;
  warnings: number;
  infos: number;
  problems: { path: string; message: string }[];
  /** Folders not searched: more than maxFolderDepth levels below a folder named. */
  notSearched: string[];
}

export function renderJson(findings: readonly Finding[], summary: CheckSummary): string {
  return JSON.stringify({ findings: findings.map(findingToJson), ...summary }, null, 2) + '\n';
}

/**
 * One line of `watch --format jsonl`: a finding as `check --format json` gives it, with its
 * `id` (stable while the transcript says the same thing, and reused when it says it again).
 */
export type WatchFindingJson = { id: string } & FindingJson;

/**
 * A finding printed before that is no longer reported (its cause went, or its transcript was
 * deleted or cut back). Without it a consumer could not tell a finding found again after a
 * re-creation from a second one: `id` is the finding's line's `id`; the other fields say what it
 * was, for a reader who only logs.
 */
export interface WatchGoneJson {
  gone: true;
  id: string;
  rule: string;
  file: string;
  line: number;
  column: number;
  session: string;
}

export function watchFindingToJson(f: Finding): WatchFindingJson {
  return { id: f.id, ...findingToJson(f) };
}

export function watchGoneToJson(f: Finding): WatchGoneJson {
  return { gone: true, id: f.id, rule: f.rule, file: f.file, line: f.line, column: f.column, session: f.session };
}
