import type { AgentKind } from './agent';

export const severities = ['error', 'warning', 'info'] as const;
export type Severity = (typeof severities)[number];

export interface RelatedLocation {
  file: string;
  /** 1-based */
  line: number;
  /** 1-based, UTF-16 code units; absent when the whole line is meant. */
  column?: number;
  endColumn?: number;
  message: string;
}

/** A workspace file a finding concerns, with the lines the transcript says were touched. */
export interface FindingSubject {
  path: string;
  /** 1-based line ranges in the file as it was written (the first 1,000, where there are more). */
  lines?: { start: number; count: number }[];
}

/**
 * One problem, at a transcript position. Lines are 1-based; columns are 1-based UTF-16
 * code units and `endColumn` is exclusive, matching `check --format json`.
 */
export interface Finding {
  /** Stable across re-reads of the same file: rule + file + the rule's own key. */
  id: string;
  rule: string;
  severity: Severity;
  file: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  message: string;
  agent: AgentKind | 'unknown';
  session: string;
  related: RelatedLocation[];
  subject?: FindingSubject;
  /** The tool call the finding is about, when there is one. */
  callId?: string;
  /** Which of the rule's messages this is (stable; tests and filters use it, not the text). */
  messageId?: string;
  /**
   * The subject file changed behind the session's back between these two transcript lines
   * (the session's last view of it, and the result of the write on top), by a writer the
   * transcript does not name. `check` looks for that writer among the other transcripts it
   * reads (see attributeAcross.ts). Not part of the public JSON.
   */
  changedBetween?: { seenLine: number; writeLine: number };
}
