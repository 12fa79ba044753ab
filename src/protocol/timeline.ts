/**
 * Messages between the session timeline webview and the extension host. Both sides validate
 * what they receive with these schemas (the webview is an untrusted client, and everything
 * it shows came from a transcript). Imports zod only: the webview bundle includes this file.
 */
// zod/mini: the same schemas as zod's classic API, tree-shakeable, so the webview bundle stays small.
import * as z from 'zod/mini';

/** Bounds: a message is transcript-derived; nothing in it may be unbounded. */
const text = (max: number) => z.string().check(z.maxLength(max));
const bounded = (min: number, max: number) => z.int().check(z.minimum(min), z.maximum(max));
const lineNo = bounded(1, 1e9);
const index = bounded(0, 1e9);
const list = <T extends z.ZodMiniType>(item: T, max: number) => z.array(item).check(z.maxLength(max));
/** The most rows one message carries: a host with more to send sends several. */
export const maxRowsPerMessage = 200_000;
/** The most rows the webview asks for at once. */
const maxRowsPerRequest = 2_000;

const laneStatusSchema = z.enum(['ok', 'error', 'pending', 'missing', 'late', 'duplicate', 'orphan']);
export type LaneStatus = z.infer<typeof laneStatusSchema>;

const laneSchema = z.object({
  kind: z.enum(['call', 'result']),
  callId: text(400),
  tool: text(400),
  category: z.optional(z.enum(['read', 'write', 'edit', 'exec', 'other'])),
  path: z.optional(text(2_000)),
  more: z.optional(bounded(0, 1e6)),
  status: laneStatusSchema,
  line: lineNo,
  results: list(lineNo, 10_000),
  /** Results of the call beyond those `results` lists. */
  moreResults: z.optional(bounded(0, 1e9)),
  callLine: z.optional(lineNo),
});
export type Lane = z.infer<typeof laneSchema>;

const rowBase = { line: lineNo, turn: index, message: index };

export const rowSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('prompt'), ...rowBase, text: text(2_000) }),
  z.object({ kind: z.literal('text'), ...rowBase, role: z.enum(['user', 'assistant']), count: bounded(1, 1e9) }),
  z.object({ kind: z.literal('batch'), ...rowBase, lanes: list(laneSchema, 10_000) }),
  z.object({ kind: z.literal('results'), ...rowBase, lanes: list(laneSchema, 10_000) }),
  z.object({ kind: z.literal('reset'), ...rowBase, reason: z.enum(['compaction', 'rewind', 'replace', 'restart', 'partway']) }),
  z.object({ kind: z.literal('note'), ...rowBase, tone: z.enum(['error', 'info']), text: text(2_000) }),
]);
export type Row = z.infer<typeof rowSchema>;

const refSchema = z.object({ row: index, lane: z.optional(index) });
export type Ref = z.infer<typeof refSchema>;

const edgeSchema = z.object({ kind: z.enum(['hb', 'late', 'duplicate']), from: refSchema, to: refSchema });
export type Edge = z.infer<typeof edgeSchema>;

const findingSchema = z.object({
  id: text(4_000),
  rule: text(200),
  severity: z.enum(['error', 'warning', 'info']),
  message: text(8_000),
  line: lineNo,
  row: z.optional(index),
  lane: z.optional(index),
});
export type TimelineFindingMessage = z.infer<typeof findingSchema>;

const headerSchema = z.object({
  agent: text(100),
  sessionId: z.optional(text(400)),
  title: z.optional(text(400)),
  cwd: z.optional(text(4_000)),
  /** The transcript's file name (not its path). */
  file: text(1_000),
  /** The host follows the session as it grows. */
  live: z.boolean(),
  /**
   * Why the session is not checked now (its agent is turned off in the settings): its findings
   * are not known, which an empty list of findings must not pass for "none".
   */
  unchecked: z.optional(text(400)),
  stats: z.object({ events: index, turns: index, messages: index, calls: index, lines: index }),
  /** Arrows the host left out: the session has more than a message carries. */
  edgesLeftOut: z.optional(index),
});
export type Header = z.infer<typeof headerSchema>;

const rowsSchema = list(rowSchema, maxRowsPerMessage);

/** Host → webview. */
export const hostMessageSchema = z.discriminatedUnion('type', [
  /** The whole state: header, row count, the rows [from, from + rows.length), every edge and finding. */
  z.object({
    type: z.literal('init'),
    /** The transcript's path, for the webview to keep in its state (see webviewStateSchema). */
    path: text(4_096),
    header: headerSchema,
    total: index,
    from: index,
    rows: rowsSchema,
    edges: list(edgeSchema, 1_000_000),
    findings: list(findingSchema, 100_000),
    /** Findings the host left out: the session has more than a message carries. */
    findingsLeftOut: z.optional(index),
  }),
  /** The session grew: new and changed rows by index, new edges. */
  z.object({
    type: z.literal('append'),
    header: headerSchema,
    total: index,
    rows: list(z.object({ index, row: rowSchema }), maxRowsPerMessage),
    edges: list(edgeSchema, 1_000_000),
  }),
  /** The answer to requestRows. */
  z.object({ type: z.literal('rows'), from: index, rows: rowsSchema }),
  /** The findings now (replaces the previous list). */
  z.object({ type: z.literal('findings'), findings: list(findingSchema, 100_000), findingsLeftOut: z.optional(index) }),
  /** Scroll to and focus an element (a finding's quick fix). */
  z.object({ type: z.literal('reveal'), ref: refSchema }),
]);
export type HostMessage = z.infer<typeof hostMessageSchema>;

/** Webview → host. */
export const webviewMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  /** Open the transcript at this 1-based line. */
  z.object({ type: z.literal('open'), line: lineNo }),
  /** Rows [from, to) are about to be visible. */
  z.object({ type: z.literal('requestRows'), from: index, to: index }).check(
    z.refine((m) => m.to >= m.from && m.to - m.from <= maxRowsPerRequest, `requestRows wants from <= to and at most ${maxRowsPerRequest} rows`),
  ),
]);
export type WebviewMessage = z.infer<typeof webviewMessageSchema>;

/**
 * What the webview keeps in its state (`setState`): where it was scrolled, so a panel that was
 * hidden comes back there, and its transcript's path, so that when VS Code restores the panel
 * (the window reloaded or opened again) the host knows what to show in it.
 * The host reads it back from the webview, so it validates it like a message.
 */
export const webviewStateSchema = z.object({
  scrollTop: z.number().check(z.minimum(0), z.maximum(1e9)),
  path: z.optional(text(4_096)),
});
export type WebviewState = z.infer<typeof webviewStateSchema>;
