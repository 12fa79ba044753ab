import type { Finding } from './finding';

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
