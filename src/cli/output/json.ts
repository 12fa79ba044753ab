import type { Finding } from '../../core/model/finding';
import { findingToJson } from '../../core/model/findingJson';

export { findingToJson, type FindingJson } from '../../core/model/findingJson';

export interface CheckSummary {
  files: { file: string; agent: string | null; session: string; findings: number }[];
  errors: number;
  warnings: number;
  infos: number;
  problems: { path: string; message: string }[];
}

export function renderJson(findings: readonly Finding[], summary: CheckSummary): string {
  return JSON.stringify({ findings: findings.map(findingToJson), ...summary }, null, 2) + '\n';
}
