import { writeOps, type NormalizedEvent, type Role, type SessionInfo, type TextEvent, type ToolCall, type ToolResult } from '../model/events';
import type { AgentKind } from '../model/agent';
import type { Finding } from '../model/finding';
import { messageToJoin } from '../engine/conversation';
import {
  maxEdges,
  maxFindingsShown,
  maxLanesPerRow,
  maxMoreFiles,
  maxResultsListed,
  type BatchRow,
  type LaneStatus,
  type ResultsRow,
  type TimelineDelta,
  type TimelineEdge,
  type TimelineFinding,
  type TimelineHeader,
  type TimelineLane,
  type TimelineRef,
  type TimelineRow,
} from './model';

/** Transcript text is unbounded; what the timeline shows of it is not. */
const maxToolChars = 120;
const maxPathChars = 400;
const maxNoteChars = 300;
/** A call id is only shown (a lane's tooltip); a hostile transcript's may be any length. */
const maxCallIdChars = 200;
/**
 * A finding's message quotes the transcript (ids, paths), and its id holds the call's: over the
 * protocol's bounds, the whole message carrying them was refused by the webview.
 */
const maxFindingMessageChars = 4_000;
const maxFindingIdChars = 2_000;


/** One API message as the engine groups them (see RuleEngine.messageFor, which this mirrors). */
interface Msg {
  /** Position in the current history (epoch). */
  index: number;
  epoch: number;
  role: Role;
  key?: string;
  /** Line of the first text (a prompt, a note, assistant text) in this message. */
  textLine?: number;
  /** Its agent sends that text after the message's results (see TextEvent.resultsFirst). */
  textResultsFirst?: true;
  /** Global ordinal, across resets. */
  no: number;
  /** The batch row of its calls (assistant messages). */
  batchRow?: number;
  /** The results row for its out-of-place results (user messages), while it is the last row. */
  strayRow?: number;
}

/** What the statuses and edges need of a call (not the event: a model must not keep every event). */
interface CallState {
  ref: Required<TimelineRef>;
  msg: Msg;
  results: number;
  /** Reusing an earlier call's id: the lane stays 'duplicate' whatever its result. */
  duplicateId: boolean;
  /** Paths it reads and writes (absolute), when it does. */
  reads?: string[];
  writes?: string[];
  /** First line of a later record written while the call ran (CallRunningEvent). */
  runningLine?: number;
}

/** What an event line holds, to place findings. */
interface LineEntry {
  ref: TimelineRef;
  callId?: string;
}

/**
 * Builds the timeline model of one session from its normalized events, in order, and
 * places its findings. Append-only: `takeDelta()` says what changed since it was last called,
 * so a view can be kept up to date with small messages. Pure; holds only the compact model
 * (rows, lanes, edges) and the little state the statuses need — no event is kept.
 */
export class TimelineBuilder {
  private readonly rowList: TimelineRow[] = [];
  private readonly edgeList: TimelineEdge[] = [];
  private readonly head: TimelineHeader = { agent: 'unknown', stats: { events: 0, turns: 0, messages: 0, calls: 0, lines: 0 } };
  private epoch = 0;
  private turn = 0;
  private messages = 0;
  private cur: Msg | undefined;
  /** The message before `cur` in the same history. */
  private prev: Msg | undefined;
  private readonly calls = new Map<string, CallState[]>();
  /** Calls without a result that may still be judged missing. */
  private open: CallState[] = [];
  /** Per path, the read lane whose (successful) result the session last got. */
  private readonly lastRead = new Map<string, Required<TimelineRef>>();
  /** Most lines hold one element; the array only where they hold several. */
  private readonly lines = new Map<number, LineEntry | LineEntry[]>();
  private readonly dirty = new Set<number>();
  private sentRows = 0;
  private sentEdges = 0;
  private cwd: string | undefined;

  constructor(opts: { cwd?: string } = {}) {
    this.cwd = opts.cwd;
  }

  get header(): TimelineHeader {
    return this.head;
  }

  /**
   * What the caller knows of the session that its transcript may not say: the format it was
   * read as, and the id its monitor names it by. An Amplifier transcript has no envelope (its
   * id is its folder's name, its working folder is in the files beside it, when they name one),
   * and its timeline said 'unknown' where the agent goes. The transcript's own session records
   * win.
   */
  noteSession(agent: AgentKind | undefined, sessionId: string | undefined): void {
    if (this.head.agent === 'unknown' && agent !== undefined) {
      this.head.agent = agent;
    }
    this.head.sessionId ??= sessionId;
  }

  get total(): number {
    return this.rowList.length;
  }

  /** Highest transcript line seen. */
  get lastLine(): number {
    return this.head.stats.lines;
  }

  row(index: number): TimelineRow | undefined {
    return this.rowList[index];
  }

  /** Rows [from, to), clamped. */
  rows(from = 0, to = this.rowList.length): TimelineRow[] {
    return this.rowList.slice(Math.max(0, from), Math.max(0, to));
  }

  get edges(): readonly TimelineEdge[] {
    return this.edgeList;
  }

  add(e: NormalizedEvent): void {
    const stats = this.head.stats;
    stats.events++;
    if (e.at.line > stats.lines) {
      stats.lines = e.at.line;
    }
    switch (e.kind) {
      case 'session':
        return this.onSession(e);
      case 'text':
        return this.onText(e);
      case 'call':
        return this.onCall(e);
      case 'result':
        return this.onResult(e);
      case 'reset':
        this.sweep(() => true);
        this.epoch++;
        this.cur = undefined;
        this.prev = undefined;
        if (e.reason === 'replace' && this.rowList.length === 0) {
          // A history set before anything was said (Gemini CLI writes a session's first messages
          // as a checkpoint) resets nothing: it read as a reset and a turn above every session.
          return;
        }
        this.newTurn();
        this.index(e.at.line, { ref: { row: this.push({ kind: 'reset', line: e.at.line, turn: this.turn, message: this.messages, reason: e.reason }) } });
        return;
      case 'turn-end':
        this.sweep(() => true);
        if (e.aborted) {
          this.index(e.at.line, { ref: { row: this.note(e.at.line, 'info', 'Turn aborted') } });
        }
        return;
      case 'malformed':
        this.index(e.at.line, { ref: { row: this.note(e.at.line, 'error', clip(`Unreadable line (${e.reason}): ${e.detail}`, maxNoteChars)) } });
        return;
      case 'call-running': {
        const call = this.resolve(e.callId);
        if (call && call.results === 0 && e.by !== 'progress') {
          call.runningLine ??= e.at.line;
        }
        return;
      }
      case 'execution':
      case 'file-shown':
      case 'file-attached':
      case 'file-changed-by-hook':
      case 'file-created':
      case 'worktree-entered':
      case 'paths-aliased':
      case 'history-gap':
      case 'request-retried':
      case 'foreign-result':
        return;
    }
  }

  /**
   * Everything so far counts as sent (a view was just given the whole model): the next
   * delta holds only what changes from now on.
   */
  markSent(): void {
    this.dirty.clear();
    this.sentRows = this.rowList.length;
    this.sentEdges = this.edgeList.length;
  }

  /** What changed since the last delta or markSent(); undefined when nothing did. */
  takeDelta(): TimelineDelta | undefined {
    if (this.dirty.size === 0 && this.sentRows === this.rowList.length && this.sentEdges === this.edgeList.length) {
      return undefined;
    }
    const indices = new Set(this.dirty);
    for (let i = this.sentRows; i < this.rowList.length; i++) {
      indices.add(i);
    }
    const rows = [...indices].sort((a, b) => a - b).map((index) => ({ index, row: this.rowList[index]! }));
    const edges = this.edgeList.slice(this.sentEdges);
    this.markSent();
    return { total: this.rowList.length, rows, edges, header: this.head };
  }

  /** The element a transcript line shows as (the lane of `callId` when the line holds several). */
  locate(line: number, callId?: string): TimelineRef | undefined {
    const found = this.lines.get(line);
    if (found) {
      const entries = Array.isArray(found) ? found : [found];
      return ((callId !== undefined ? entries.find((x) => x.callId === callId) : undefined) ?? entries[0]!).ref;
    }
    // A line that produced no element of its own (metadata, a hook record): the row before it.
    let lo = 0;
    let hi = this.rowList.length - 1;
    let best: number | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.rowList[mid]!.line <= line) {
        best = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return best === undefined ? undefined : { row: best };
  }

  /**
   * Places findings on the elements of their lines, in timeline order: at most
   * `maxFindingsShown`, the most severe kept; `leftOut` says how many were not.
   */
  attachBounded(findings: readonly Finding[]): { findings: TimelineFinding[]; leftOut: number } {
    if (findings.length <= maxFindingsShown) {
      return { findings: this.attach(findings), leftOut: 0 };
    }
    const rank = { error: 0, warning: 1, info: 2 } as const;
    const kept = [...findings].sort((a, b) => rank[a.severity] - rank[b.severity] || a.line - b.line).slice(0, maxFindingsShown);
    return { findings: this.attach(kept), leftOut: findings.length - kept.length };
  }

  /** Places findings on the elements of their lines, in timeline order. */
  attach(findings: readonly Finding[]): TimelineFinding[] {
    const out: TimelineFinding[] = [];
    for (const f of findings) {
      // A line the builder has not read yet: the finding is placed once it has.
      const ref = f.line <= this.head.stats.lines ? this.locate(f.line, f.callId) : undefined;
      out.push({
        id: clip(f.id, maxFindingIdChars),
        rule: f.rule,
        severity: f.severity,
        message: clip(f.message, maxFindingMessageChars),
        line: f.line,
        ...(ref ? { row: ref.row, ...(ref.lane !== undefined ? { lane: ref.lane } : {}) } : {}),
      });
    }
    return out.sort((a, b) => (a.row ?? Infinity) - (b.row ?? Infinity) || (a.lane ?? -1) - (b.lane ?? -1) || a.line - b.line || a.id.localeCompare(b.id));
  }

  private onSession(e: SessionInfo): void {
    const h = this.head;
    h.agent = e.agent;
    h.sessionId = e.sessionId ?? h.sessionId;
    h.title = e.title ?? h.title;
    h.cwd = e.cwd ?? h.cwd;
  }

  private onText(e: TextEvent): void {
    if (e.prompt && e.preview && this.head.firstPrompt === undefined) {
      this.head.firstPrompt = e.preview;
    }
    const msg = this.messageFor(e.role, e.messageKey);
    if (!e.attached && msg.textLine === undefined) {
      msg.textLine = e.at.line;
      if (e.resultsFirst) {
        msg.textResultsFirst = true;
      }
    }
    if (e.role === 'user' && !e.attached && !e.resultsFirst) {
      // Mirrors missing-result: user text after a message with unanswered calls (but for
      // calls it was typed while they ran, and text its agent sends after the results, whose
      // results go first).
      this.sweep((c) => c.msg.epoch === msg.epoch && c.msg.index === msg.index - 1 && c.runningLine === undefined);
    }
    if (e.role === 'user' && e.prompt) {
      this.newTurn();
      const row = this.push({ kind: 'prompt', line: e.at.line, turn: this.turn, message: msg.no, text: e.preview ?? '' });
      this.index(e.at.line, { ref: { row } });
      return;
    }
    const last = this.rowList.length - 1;
    const lastRow = this.rowList[last];
    if (lastRow?.kind === 'text' && lastRow.message === msg.no) {
      lastRow.count++;
      this.touch(last);
      this.index(e.at.line, { ref: { row: last } });
      return;
    }
    const row = this.push({ kind: 'text', line: e.at.line, turn: this.turn, message: msg.no, role: e.role, count: 1 });
    this.index(e.at.line, { ref: { row } });
  }

  private onCall(e: ToolCall): void {
    const msg = this.messageFor('assistant', e.messageKey);
    let rowIndex = msg.batchRow;
    if (rowIndex === undefined || (this.rowList[rowIndex] as BatchRow).lanes.length >= maxLanesPerRow) {
      rowIndex = this.push({ kind: 'batch', line: e.at.line, turn: this.turn, message: msg.no, lanes: [] });
      msg.batchRow = rowIndex;
    } else {
      this.touch(rowIndex);
    }
    const row = this.rowList[rowIndex] as BatchRow;
    const earlier = this.calls.get(e.callId);
    const first = e.accesses[0];
    const lane: TimelineLane = {
      kind: 'call',
      callId: clip(e.callId, maxCallIdChars),
      tool: clip(e.tool, maxToolChars),
      category: e.category,
      ...(first ? { path: clip(this.relative(first.path), maxPathChars) } : {}),
      ...(e.accesses.length > 1 ? { more: Math.min(e.accesses.length - 1, maxMoreFiles) } : {}),
      status: earlier ? 'duplicate' : 'pending',
      line: e.at.line,
      results: [],
    };
    const ref = { row: rowIndex, lane: row.lanes.length };
    row.lanes.push(lane);
    const state: CallState = { ref, msg, results: 0, duplicateId: earlier !== undefined };
    for (const a of e.accesses) {
      if (a.op === 'read') {
        (state.reads ??= []).push(a.path);
      } else if (writeOps.has(a.op)) {
        (state.writes ??= []).push(a.path);
      }
    }
    if (earlier) {
      earlier.push(state);
    } else {
      this.calls.set(e.callId, [state]);
    }
    this.open.push(state);
    this.head.stats.calls++;
    this.index(e.at.line, { ref, callId: e.callId });
    // Happens-before: the read whose result the session had when it made this write.
    for (const path of state.writes ? new Set(state.writes) : []) {
      const read = this.lastRead.get(path);
      if (read && (read.row !== ref.row || read.lane !== ref.lane)) {
        this.edge({ kind: 'hb', from: read, to: ref });
      }
    }
  }

  private onResult(e: ToolResult): void {
    const msg = this.messageFor('user', undefined);
    const call = this.resolve(e.callId);
    if (!call) {
      const ref = this.stray(msg, e, 'orphan', undefined);
      this.index(e.at.line, { ref, callId: e.callId });
      return;
    }
    call.results++;
    const lane = this.laneOf(call.ref);
    if (lane.results.length < maxResultsListed) {
      lane.results.push(e.at.line);
    } else {
      lane.moreResults = (lane.moreResults ?? 0) + 1;
    }
    this.touch(call.ref.row);
    if (call.results > 1) {
      lane.status = 'duplicate';
      const ref = this.stray(msg, e, 'duplicate', call);
      this.edge({ kind: 'duplicate', from: ref, to: call.ref });
      this.index(e.at.line, { ref, callId: e.callId });
      return;
    }
    this.open = this.open.filter((c) => c !== call);
    // Mirrors misplaced-result: the message right after the call's, before any user text in it.
    const textFirst = msg.textLine !== undefined && !msg.textResultsFirst && msg.textLine < e.at.line && msg.textLine < (call.runningLine ?? Infinity);
    const inPlace = msg.epoch === call.msg.epoch && msg.index === call.msg.index + 1 && !textFirst;
    if (inPlace) {
      if (!call.duplicateId) {
        lane.status = e.isError ? 'error' : 'ok';
      }
      this.index(e.at.line, { ref: call.ref, callId: e.callId });
    } else {
      lane.status = call.duplicateId ? 'duplicate' : 'late';
      const ref = this.stray(msg, e, 'late', call);
      this.edge({ kind: 'late', from: ref, to: call.ref });
      this.index(e.at.line, { ref, callId: e.callId });
    }
    if (!e.isError) {
      for (const path of call.reads ?? []) {
        this.lastRead.set(path, call.ref);
      }
      // Its own write is what the session knows of the file now, not the read.
      for (const path of call.writes ?? []) {
        this.lastRead.delete(path);
      }
    }
  }

  /** A result lane where an out-of-place result landed: the message's results row, if it is still the last row. */
  private stray(msg: Msg, e: ToolResult, status: LaneStatus, call: CallState | undefined): Required<TimelineRef> {
    let rowIndex = msg.strayRow;
    if (rowIndex === undefined || rowIndex !== this.rowList.length - 1 || (this.rowList[rowIndex] as ResultsRow).lanes.length >= maxLanesPerRow) {
      rowIndex = this.push({ kind: 'results', line: e.at.line, turn: this.turn, message: msg.no, lanes: [] });
      msg.strayRow = rowIndex;
    } else {
      this.touch(rowIndex);
    }
    const row = this.rowList[rowIndex] as ResultsRow;
    const source = call ? this.laneOf(call.ref) : undefined;
    const path = source ? source.path : e.filePath !== undefined ? clip(this.relative(e.filePath), maxPathChars) : undefined;
    const lane: TimelineLane = {
      kind: 'result',
      callId: clip(e.callId, maxCallIdChars),
      tool: source?.tool ?? clip(e.tool ?? 'unknown tool', maxToolChars),
      ...(source?.category ? { category: source.category } : {}),
      ...(path !== undefined ? { path } : {}),
      status,
      line: e.at.line,
      results: [],
      ...(source ? { callLine: source.line } : {}),
    };
    row.lanes.push(lane);
    return { row: rowIndex, lane: row.lanes.length - 1 };
  }

  /** An arrow, while there are fewer than `maxEdges`; then only counted. */
  private edge(e: TimelineEdge): void {
    if (this.edgeList.length < maxEdges) {
      this.edgeList.push(e);
    } else {
      this.head.edgesLeftOut = (this.head.edgesLeftOut ?? 0) + 1;
    }
  }

  /** A result binds to the oldest call with its id that has no result yet, else the newest (as Conversation.resolve). */
  private resolve(id: string): CallState | undefined {
    const list = this.calls.get(id);
    if (!list) {
      return undefined;
    }
    return list.find((c) => c.results === 0) ?? list[list.length - 1];
  }

  /** Which API message an event belongs to: the engine's rule (`messageToJoin`). */
  private messageFor(role: Role, key: string | undefined): Msg {
    const cur = this.cur;
    const joined = messageToJoin(cur, this.prev, role, key, cur?.textLine !== undefined);
    if (joined) {
      return joined;
    }
    const msg: Msg = { index: cur ? cur.index + 1 : 0, epoch: this.epoch, role, no: ++this.messages, ...(key !== undefined ? { key } : {}) };
    this.prev = cur;
    this.cur = msg;
    this.head.stats.messages = this.messages;
    if (role === 'assistant') {
      // Mirrors missing-result: a new assistant message while calls of another are unanswered.
      this.sweep((c) => c.msg !== msg);
    }
    return msg;
  }

  /** Calls that `pick` selects and that still have no result are missing now. */
  private sweep(pick: (c: CallState) => boolean): void {
    if (this.open.length === 0) {
      return;
    }
    const still: CallState[] = [];
    for (const c of this.open) {
      if (c.results > 0) {
        continue;
      }
      if (pick(c)) {
        const lane = this.laneOf(c.ref);
        if (lane.status === 'pending') {
          lane.status = 'missing';
          this.touch(c.ref.row);
        }
      } else {
        still.push(c);
      }
    }
    this.open = still;
  }

  private newTurn(): void {
    this.turn++;
    this.head.stats.turns = this.turn;
  }

  private note(line: number, tone: 'error' | 'info', text: string): number {
    return this.push({ kind: 'note', line, turn: this.turn, message: this.messages, tone, text });
  }

  private push(row: TimelineRow): number {
    this.rowList.push(row);
    return this.rowList.length - 1;
  }

  /** A row that was already sent changed. */
  private touch(index: number): void {
    if (index < this.sentRows) {
      this.dirty.add(index);
    }
  }

  private laneOf(ref: Required<TimelineRef>): TimelineLane {
    return (this.rowList[ref.row] as BatchRow | ResultsRow).lanes[ref.lane]!;
  }

  private index(line: number, entry: LineEntry): void {
    const have = this.lines.get(line);
    if (have === undefined) {
      this.lines.set(line, entry);
    } else if (Array.isArray(have)) {
      have.push(entry);
    } else {
      this.lines.set(line, [have, entry]);
    }
  }

  private relative(path: string): string {
    const cwd = this.cwd ?? this.head.cwd;
    return cwd ? relativeTo(path, cwd) : path;
  }
}

/** `path` relative to `dir` when it is inside it (either separator), else unchanged. */
export function relativeTo(path: string, dir: string): string {
  const base = dir.replace(/[\\/]+$/, '');
  if (base === '' || !path.startsWith(base)) {
    return path;
  }
  const rest = path.slice(base.length);
  if (rest === '') {
    return '.';
  }
  return rest[0] === '/' || rest[0] === '\\' ? rest.slice(1) : path;
}

function clip(text: string, max: number): string {
  return text.length > max ? text.slice(0, max - 1) + '…' : text;
}
