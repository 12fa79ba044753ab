import type { AgentKind } from '../model/agent';
import type { Severity } from '../model/finding';

/**
 * The session timeline's model: what the timeline webview draws for one transcript, computed
 * from its normalized events by TimelineBuilder. Rows are append-only and addressed by index;
 * a row may still change after it was appended (a lane's result arrives, a batch gains a
 * call), which the builder reports as a delta. Everything here that came from the transcript
 * (tool names, paths, prompt previews) is untrusted text.
 */

/**
 * What became of a call, or what an out-of-place result is:
 * ok / error      the result arrived in the message right after the call (error: is_error)
 * pending         no result yet, and nothing has happened that says one is missing
 * missing         the conversation moved on (next assistant message, user text, turn end, reset) without it
 * late            its first result arrived somewhere else (after the next turn, after user text, after a reset)
 * duplicate       a second result for the call, or a call reusing an earlier call's id
 * orphan          (result lanes only) a result naming no known call
 */
export const laneStatuses = ['ok', 'error', 'pending', 'missing', 'late', 'duplicate', 'orphan'] as const;
export type LaneStatus = (typeof laneStatuses)[number];

export const toolCategories = ['read', 'write', 'edit', 'exec', 'other'] as const;

/** One column of a batch row (a call) or of a results row (a result that landed out of place). */
export interface TimelineLane {
  kind: 'call' | 'result';
  callId: string;
  /** The call's tool (for a result lane: its call's tool, else the tool the result names, else 'unknown tool'). */
  tool: string;
  category?: (typeof toolCategories)[number];
  /** The first file the call touches, relative to the session's cwd when inside it. */
  path?: string;
  /** How many more files the call touches. */
  more?: number;
  status: LaneStatus;
  /** 1-based transcript line of the call (call lanes) or of the result (result lanes). */
  line: number;
  /** Lines of the call's results, in arrival order (call lanes); the first `maxResultsListed`. */
  results: number[];
  /** How many more results the call got than `results` lists. */
  moreResults?: number;
  /** Line of the call a result lane answers. */
  callLine?: number;
}

interface RowBase {
  /** 1-based transcript line the row opens at. */
  line: number;
  /** 0 before the first prompt; +1 at every prompt and every history reset. */
  turn: number;
  /** Ordinal of the API message the row belongs to (0 before the first), across resets. */
  message: number;
}

export interface PromptRow extends RowBase {
  kind: 'prompt';
  /** The first characters of the prompt (the adapters never keep more). */
  text: string;
}

export interface TextRow extends RowBase {
  kind: 'text';
  role: 'user' | 'assistant';
  /** Consecutive text blocks of one message share a row. */
  count: number;
}

/** The calls of one assistant message: a parallel batch when it has more than one lane. */
export interface BatchRow extends RowBase {
  kind: 'batch';
  lanes: TimelineLane[];
}

/** Results that landed out of place (late, duplicate, orphan), where they landed. */
export interface ResultsRow extends RowBase {
  kind: 'results';
  lanes: TimelineLane[];
}

export interface ResetRow extends RowBase {
  kind: 'reset';
  reason: 'compaction' | 'rewind' | 'replace' | 'restart' | 'partway';
}

export interface NoteRow extends RowBase {
  kind: 'note';
  tone: 'error' | 'info';
  text: string;
}

export type TimelineRow = PromptRow | TextRow | BatchRow | ResultsRow | ResetRow | NoteRow;

/** An element of the timeline: a row, or one lane of it. */
export interface TimelineRef {
  row: number;
  lane?: number;
}

/**
 * hb         happens-before: a read whose result arrived before a later write call of the same path
 * late       a late result back to its call
 * duplicate  a duplicate result back to its call
 */
export type EdgeKind = 'hb' | 'late' | 'duplicate';

export interface TimelineEdge {
  kind: EdgeKind;
  from: TimelineRef;
  to: TimelineRef;
}

export interface TimelineHeader {
  agent: AgentKind | 'unknown';
  sessionId?: string;
  title?: string;
  /** The preview of the user's first prompt (what names a session without a title). */
  firstPrompt?: string;
  cwd?: string;
  /** Counts so far. */
  stats: { events: number; turns: number; messages: number; calls: number; lines: number };
  /** Arrows not drawn: the session has more than `maxEdges`. */
  edgesLeftOut?: number;
}

/**
 * What the timeline carries is bounded (its messages to the webview are validated against the
 * protocol's bounds, and one over them is dropped whole: the timeline stayed blank). A hostile or
 * runaway session goes over them; what is over is left out, and said to be.
 *
 * A row's lanes: a message with more calls (or a results row with more results) goes on in
 * further rows, so no lane is left out. Far below the protocol's 10,000: a row is as wide as its
 * lanes (208 px each), and every lane and arrow of a row in view is in the DOM, so a call answered
 * 10,000 times in one message (one row two million pixels wide, with 10,000 arrows) left the
 * whole window unresponsive: its clicks and screenshots timed out. A hundred is far beyond any
 * real parallel batch.
 */
export const maxLanesPerRow = 100;
/**
 * Result lines a lane lists (its tooltip, its first three as links): more is a call answered a
 * thousand times, which the lane's status and its findings already say.
 */
export const maxResultsListed = 1_000;
/** Arrows the timeline keeps; the protocol carries a million. */
export const maxEdges = 1_000_000;
/** Findings the timeline shows; the protocol carries 100,000. The most severe are kept. */
export const maxFindingsShown = 100_000;
/** The protocol's bound on the files a lane says a call touches beyond its first. */
export const maxMoreFiles = 1_000_000;

/** A finding placed on the element of its line. */
export interface TimelineFinding {
  id: string;
  rule: string;
  severity: Severity;
  message: string;
  line: number;
  /** Absent while the builder has not seen the finding's line yet. */
  row?: number;
  lane?: number;
}

/** What changed since the last delta (or snapshot). */
export interface TimelineDelta {
  total: number;
  /** New rows and rows that changed, by index, ascending. */
  rows: { index: number; row: TimelineRow }[];
  /** New edges (edges never change). */
  edges: TimelineEdge[];
  header: TimelineHeader;
}
