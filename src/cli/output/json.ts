import type { Finding } from '../../core/model/finding';

/** The public JSON shape of a finding (`check --format json`, `watch --format jsonl`). */
export interface FindingJson {
  rule: string;
  severity: string;
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  message: string;
  agent: string;
  session: string;
  related: { file: string; line: number; message: string }[];
  subject?: { path: string; lines?: { start: number; count: number }[] };
  callId?: string;
}

export function findingToJson(f: Finding): FindingJson {
  return {
    rule: f.rule,
    severity: f.severity,
    file: f.file,
    line: f.line,
    column: f.column,
    endLine: f.endLine,
    endColumn: f.endColumn,
    message: f.message,
    agent: f.agent,
    session: f.session,
    related: f.related.map((r) => ({ file: r.file, line: r.line, message: r.message })),
    ...(f.subject ? { subject: f.subject } : {}),
    ...(f.callId !== undefined ? { callId: f.callId } : {}),
  };
}

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
