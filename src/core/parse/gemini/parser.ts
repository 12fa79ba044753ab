import { resolveAgainst } from '../../classify/paths';
import { classifyToolCall, isRecord } from '../../classify/tools';
import { countLines, diffLines, quotedLines, splitLines } from '../../lib/diff';
import { inputHash, sha256 } from '../../lib/hash';
import type { FileAccess, ReadSnapshot, Span, ToolResult, WriteSnapshot } from '../../model/events';
import type { AdapterContext, FormatAdapter, FormatParser } from '../adapter';
import type { RawLine } from '../lineSplitter';
import { isPlaceholderText, resultText } from '../placeholder';
import { lineSpan, preview, valueSpan } from '../span';
import {
  functionCallPartSchema,
  functionResponsePartSchema,
  geminiMessageSchema,
  geminiMessageTypes,
  geminiMetadataSchema,
  geminiRewindSchema,
  geminiSetSchema,
  geminiToolCallSchema,
  terminalStatuses,
  type FunctionResponse,
  type GeminiMessage,
  type GeminiToolCall,
} from './schema';
import { parseWith } from '../guard';
import { StringPairs } from './pairs';

/**
 * How the user messages Gemini CLI writes itself begin (no prompt: see where user records are
 * read): the context it opens a session with, and the summary it compresses a history into.
 */
const ownMessage = /^\s*<(?:session_context|state_snapshot)>/;

const messageTypes: ReadonlySet<unknown> = new Set(geminiMessageTypes);

/** What was already emitted for one message id; the record is re-appended whole on every change. */
interface RecordState {
  text: boolean;
  /**
   * Tool calls emitted, as `id#n` (the n-th call with that id in the record's toolCalls) or `id#part`
   * (a functionCall part of its content): the id is what comes before the last `#`.
   */
  calls: Set<string>;
  /** Call ids a result was emitted for, from this record. */
  answered: Set<string>;
  /** Indexes of toolCalls already reported as malformed (each copy repeats them). */
  badCalls: Set<number>;
  /** Call ids this user record of a checkpoint sends back as functionResponse parts (see GeminiParser.sentIds). */
  sent: Set<string>;
}

/** Where a record sits in its line: a `$set.messages` line holds many records. */
interface Place {
  from: number;
  /** Where the next record starts (the line's end for the last): what is searched for this one stops there. */
  to: number;
  inSet: boolean;
  /** Where the record's own id is, when it was found (in a set of records, a text's place). */
  idAt?: Span;
}

interface ValidCall {
  tc: GeminiToolCall;
  key: string;
  at: Span;
}

/** A message record read from a line, and where its id is, before what is new in it is emitted. */
interface PlacedRecord {
  value: Record<string, unknown>;
  rec?: GeminiMessage;
  idAt?: Span;
  start: number;
}

/** The arguments that name a call's file, in the order they are looked at. */
const pathKeys = ['file_path', 'absolute_path', 'dir_path', 'path'];
/** The keys whose string values are placed in a line: ids, a call's status, its path. */
const placedKeys: ReadonlySet<string> = new Set(['id', 'status', ...pathKeys]);

export const geminiAdapter: FormatAdapter = {
  agent: 'gemini',
  sniff(v) {
    if (typeof v['$rewindTo'] === 'string' || isRecord(v['$set'])) {
      return true;
    }
    if (typeof v['sessionId'] === 'string' && typeof v['projectHash'] === 'string' && typeof v['startTime'] === 'string') {
      return true;
    }
    // Claude Code lines also say type:'user' (with a sessionId), but always carry a uuid.
    return typeof v['id'] === 'string' && messageTypes.has(v['type']) && !('uuid' in v) && !('payload' in v);
  },
  claimsPath(p) {
    // `.json`: a legacy session, one JSON document (FORMATS.md §3.1).
    return /[\\/]\.gemini[\\/]tmp[\\/][^\\/]+[\\/]chats[\\/](?:[^\\/]+[\\/])?[^\\/]+\.jsonl?$/.test(p);
  },
  create(ctx) {
    return new GeminiParser(ctx);
  },
};

/**
 * When Gemini CLI ran a batch one call at a time: from its sequential scheduler (approval and
 * execution in line, google-gemini/gemini-cli#11593, October 2025; released builds a few weeks
 * later) until the parallel scheduler of #21933 (10 March 2026), which runs a batch in parallel
 * waves. The file does not record the CLI's version: the call's date stands in for it, with the
 * window kept inside what released builds did (later builds only report more).
 */
const sequentialFrom = '2025-11-15';
const sequentialUntil = '2026-03-10';

/**
 * Since google-gemini/gemini-cli#27854 (15 June 2026, in 0.48.0-preview.0; 0.49.0 on 25 June the
 * first stable build with it) the scheduler never runs `write_file` or `replace` beside another
 * call (`_isParallelizable`: EDIT_TOOL_NAMES): each waits for the calls before it in the batch,
 * and the calls after it wait for it (0.61.0 run here: a `read_file` and a `write_file` of one
 * file in one response ran one after the other, in the response's order). Dated from the stable
 * build, as sequentialFrom is.
 */
const editsAloneFrom = '2026-06-25';
const editTools: ReadonlySet<string> = new Set(['write_file', 'replace']);

/** Did Gemini CLI run this call by itself (see ToolCall.alone)? */
function ranAlone(tc: GeminiToolCall): boolean {
  return editTools.has(tc.name) && tc.timestamp !== undefined && tc.timestamp >= editsAloneFrom;
}

/** Did Gemini CLI run this call after the calls before it in its batch (see ToolCall.inOrder)? */
function ranInOrder(tc: GeminiToolCall, args: unknown): boolean {
  // The parallel scheduler's barrier: the model asks the call to wait for the ones before it.
  if (isRecord(args) && args['wait_for_previous'] === true) {
    return true;
  }
  return tc.timestamp !== undefined && tc.timestamp >= sequentialFrom && tc.timestamp < sequentialUntil;
}

/** Folders tried against a legacy session's project hash, at most (each costs a SHA-256). */
const maxRootCandidates = 4096;
/** An absolute path in JSON text: POSIX, or a Windows drive (its backslashes JSON-escaped). */
const absolutePathText = /(?<![\w.~-])(\/[\w.@+-]+(?:\/[\w.@+-]+)*|[A-Za-z]:(?:\\\\[\w.@+ -]+)+)/g;

/**
 * The project folder of a legacy session: Gemini CLI names a project's folder by the SHA-256 of
 * its path (`projectHash`), so of the folders the session's text names (the paths it read and
 * wrote, the `Directory listing for …` of its listings), the one whose hash matches.
 */
function rootOfHash(projectHash: string, text: string): string | undefined {
  const tried = new Set<string>();
  for (const m of text.matchAll(absolutePathText)) {
    const windows = m[1]!.includes(':');
    let p = windows ? m[1]!.replace(/\\\\/g, '\\') : m[1]!;
    const sep = windows ? '\\' : '/';
    while (p.length > 1) {
      if (tried.has(p)) {
        break;
      }
      if (tried.size >= maxRootCandidates) {
        return undefined;
      }
      tried.add(p);
      if (sha256(p) === projectHash) {
        return p;
      }
      const up = p.lastIndexOf(sep);
      if (up <= 0 || (windows && up <= 2)) {
        break;
      }
      p = p.slice(0, up);
    }
  }
  return undefined;
}

/**
 * A call id as Gemini CLI makes them: `<tool>_<epoch ms>_<index in the model's response>`, and in
 * a sub-agent's file `<agent id>#<turn>-<index>`.
 */
const callIdIndex = /(?:_\d{10,}_|#\d+-)(\d+)$/;

/**
 * An older call id, `<tool>-<epoch ms>-<random hex>`: made as the model's response streamed in,
 * before any call of that response ran (the scheduler takes the calls once the stream ends).
 */
const legacyCallId = /-(\d{13})-[0-9a-f]+$/;

/**
 * The model turns among a record's calls. Gemini CLI appends the calls of a tool-only turn to
 * the last `gemini` record (ChatRecordingService.recordToolCalls, when no thoughts are queued),
 * so one record can hold turns minutes apart, each run after the results of the one before. The
 * index at the end of a call id counts within one response: a call numbered 0 after others
 * starts the next turn. An older id has no index but the time it was made; and a legacy session
 * (one JSON document, rewritten as calls finish) holds a finished call's `timestamp` as when it
 * finished (a shell command's is minutes after its id's, the time its approval took). A call made
 * after one of the turn had finished was made by a later response, one that had that call's
 * result (a `replace` refused outside the workspace, then a `cp` of the file into it, 3 s later:
 * December 2025). Only there: a JSONL record may keep a call's start time after it finished.
 */
function turnsOf(calls: ValidCall[], finishTimes: boolean): ValidCall[][] {
  const turns: ValidCall[][] = [];
  /** When the first call of the current turn to finish did. */
  let firstDone = Infinity;
  for (const c of calls) {
    const made = Number(legacyCallId.exec(c.tc.id)?.[1]);
    if (turns.length === 0 || callIdIndex.exec(c.tc.id)?.[1] === '0' || made > firstDone) {
      turns.push([]);
      firstDone = Infinity;
    }
    turns[turns.length - 1]!.push(c);
    if (finishTimes && c.tc.timestamp !== undefined && c.tc.status !== undefined && terminalStatuses.has(c.tc.status)) {
      const done = Date.parse(c.tc.timestamp);
      if (done < firstDone) {
        firstDone = done;
      }
    }
  }
  return turns;
}

class GeminiParser implements FormatParser {
  private cwd: string | undefined;
  private sessionId: string | undefined;
  /** The metadata's SHA-256 of the project folder: how a main session's folder is found (see set). */
  private projectHash: string | undefined;
  /** Known message ids in order of first appearance: the order `$rewindTo` cuts by (the loader's Map order). */
  private readonly records = new Map<string, RecordState>();
  /**
   * The ids of `records`, in the same order: a rewind drops the last ones, one by one. (Copying
   * all of them to find the target, each of 40,000 rewinds took 190 s.)
   */
  private readonly order: string[] = [];
  /**
   * How many of `records` answered each call id. (Asked by looking through every record, each of
   * 40,000 lines of answers took two minutes.)
   */
  private readonly answeredIds = new Map<string, number>();
  /** How many of `records` made a call with each id (as answeredIds, for the calls). */
  private readonly calledIds = new Map<string, number>();
  /**
   * How many user records of the current checkpoint (`$set.messages`) send each call id's
   * response (as answeredIds): two that send one are sent both (see user).
   */
  private readonly sentIds = new Map<string, number>();
  /** The pairs of the line being read, found once (see StringPairs). */
  private placed: { raw: RawLine; pairs: StringPairs } | undefined;
  /** The session is a legacy one: one JSON document, its calls' times when they finished (see turnsOf). */
  private wholeDocument = false;
  /**
   * The file each `write_file` call writes, by call id, until its result says whether the file
   * was there before (see overwritten): the call itself does not say.
   */
  private readonly writeTargets = new Map<string, string>();
  /**
   * The file of each whole-file `read_file` and each `replace`, by call id, until its result says
   * what the file held: the read's output is the file, and the edit's resultDisplay the file
   * before and after it (what stale-write judges by, as Claude Code's Read and Edit records are).
   */
  private readonly fileTargets = new Map<string, FileTarget>();
  /** What the session's reads returned, oldest first, at most maxShownChars in all (see shownWhole). */
  private readonly shown: string[] = [];
  private shownChars = 0;
  /** Characters of `shown` looked through so far (see maxShownScan). */
  private shownScanned = 0;

  constructor(private readonly ctx: AdapterContext) {}

  line(value: Record<string, unknown>, raw: RawLine): void {
    if ('$rewindTo' in value) {
      return this.rewind(value, raw);
    }
    if ('$set' in value) {
      return this.set(value, raw);
    }
    if ('id' in value && messageTypes.has(value['type'])) {
      const placed = this.place(value, raw, 0);
      this.message(placed, raw, { from: placed.start, to: raw.text.length, inSet: false });
      return;
    }
    if (typeof value['sessionId'] === 'string' && typeof value['projectHash'] === 'string') {
      if (Array.isArray(value['messages']) && !Array.isArray(value['directories'])) {
        // A legacy session names no folder, but the whole document is here: its root is the
        // folder whose hash it records.
        this.cwd ??= rootOfHash(value['projectHash'], raw.text);
      }
      this.metadata(value, raw);
      // A legacy session (`session-*.json`) is the metadata with every message in it.
      const messages = value['messages'];
      if (Array.isArray(messages)) {
        this.wholeDocument = true;
        this.messagesOf(messages, raw);
      }
      return;
    }
    // Unknown shapes (future record kinds) are tolerated, as Gemini's own loader does.
  }

  private metadata(value: Record<string, unknown>, raw: RawLine): void {
    const parsed = parseWith(geminiMetadataSchema, value);
    if (!parsed.success) {
      this.invalid(raw, 'a session metadata line with malformed fields');
      return;
    }
    const m = parsed.data;
    this.sessionId = m.sessionId;
    this.projectHash = m.projectHash;
    this.cwd = m.directories?.[0] ?? this.cwd;
    // Sub-agent sessions live in chats/<parentSessionId>/<sessionId>.jsonl (FORMATS.md §3.1).
    const parent = m.kind === 'subagent' ? /[\\/]chats[\\/]([^\\/]+)[\\/][^\\/]+\.jsonl?$/.exec(this.ctx.file)?.[1] : undefined;
    this.ctx.emit({
      kind: 'session',
      at: lineSpan(raw),
      agent: 'gemini',
      sessionId: m.sessionId,
      ...(this.cwd !== undefined ? { cwd: this.cwd } : {}),
      ...(m.startTime !== undefined ? { startedAt: m.startTime } : {}),
      ...(m.summary ? { title: preview(m.summary, 120) } : {}),
      ...(parent ? { parentSessionId: parent } : {}),
    });
  }

  private set(value: Record<string, unknown>, raw: RawLine): void {
    const parsed = parseWith(geminiSetSchema, value);
    if (!parsed.success) {
      this.invalid(raw, 'a $set update whose fields have the wrong types');
      return;
    }
    const s = parsed.data.$set;
    const sessionId = s.sessionId !== undefined && s.sessionId !== this.sessionId ? s.sessionId : undefined;
    // Main sessions only record directories through `/dir add`; the first one is the project root.
    // Without it, a checkpoint names the folder: Gemini CLI 0.61 starts a session with one holding
    // its `<session_context>` ("Workspace Directories: - /path"), and the folder is the one whose
    // hash the metadata records. (A shell command's relative paths need it: `cat src/util.ts`.)
    const cwd =
      this.cwd === undefined
        ? (s.directories?.[0] ?? (s.messages !== undefined && this.projectHash !== undefined ? rootOfHash(this.projectHash, raw.text) : undefined))
        : undefined;
    if (sessionId !== undefined || cwd !== undefined || s.summary) {
      this.sessionId = sessionId ?? this.sessionId;
      this.cwd = cwd ?? this.cwd;
      this.ctx.emit({
        kind: 'session',
        at: lineSpan(raw),
        agent: 'gemini',
        ...(sessionId !== undefined ? { sessionId } : {}),
        ...(cwd !== undefined ? { cwd } : {}),
        ...(s.summary ? { title: preview(s.summary, 120) } : {}),
      });
    }
    if (s.messages === undefined) {
      return;
    }
    // A checkpoint replaces the whole history: what the provider sees from now on is exactly
    // this list, so it is validated afresh, with positions on the `$set` line.
    this.ctx.emit({ kind: 'reset', at: lineSpan(raw), reason: 'replace' });
    this.records.clear();
    this.order.length = 0;
    this.answeredIds.clear();
    this.calledIds.clear();
    this.sentIds.clear();
    this.writeTargets.clear();
    this.fileTargets.clear();
    this.messagesOf(s.messages, raw);
  }

  /**
   * The message records listed in one line (a checkpoint, a legacy session), each placed after
   * the one before. All are placed first: what is searched for a record ends where the next begins.
   */
  private messagesOf(messages: readonly unknown[], raw: RawLine): void {
    const placed: PlacedRecord[] = [];
    let from = 0;
    for (const m of messages) {
      if (isRecord(m) && 'id' in m && messageTypes.has(m['type'])) {
        const p = this.place(m, raw, from);
        placed.push(p);
        from = p.start;
      }
    }
    // Starts never decrease (each is searched for from the one before); a record not found shares the start before it.
    const ends: number[] = new Array<number>(placed.length);
    for (let i = placed.length - 1; i >= 0; i--) {
      const next = placed[i + 1];
      ends[i] = next === undefined ? raw.text.length : next.start > placed[i]!.start ? next.start : ends[i + 1]!;
    }
    placed.forEach((p, i) => this.message(p, raw, { from: p.start, to: ends[i]!, inSet: true }));
  }

  /**
   * `$rewindTo` drops that message and everything after it. The surviving messages are not
   * emitted again: they were validated when they were written, and the rules judge only
   * what comes after the reset. A later re-append of a dropped id counts as a new message.
   */
  private rewind(value: Record<string, unknown>, raw: RawLine): void {
    const parsed = parseWith(geminiRewindSchema, value);
    if (!parsed.success) {
      this.invalid(raw, 'a $rewindTo whose target is not a message id');
      return;
    }
    // An unknown id empties the history, as Gemini's loader does (`messagesMap.clear()`).
    const known = this.records.has(parsed.data.$rewindTo);
    for (let id = this.order.pop(); id !== undefined; id = this.order.pop()) {
      const state = this.records.get(id)!;
      for (const answered of state.answered) {
        forget(this.answeredIds, answered);
      }
      for (const key of state.calls) {
        forget(this.calledIds, key.slice(0, key.lastIndexOf('#')));
      }
      for (const sent of state.sent) {
        forget(this.sentIds, sent);
      }
      this.records.delete(id);
      if (known && id === parsed.data.$rewindTo) {
        break;
      }
    }
    this.ctx.emit({ kind: 'reset', at: valueSpan(raw, parsed.data.$rewindTo, '$rewindTo'), reason: 'rewind' });
  }

  /** Reads a record and finds its id, at `from` or after; a record found nowhere starts at `from`. */
  private place(value: Record<string, unknown>, raw: RawLine, from: number): PlacedRecord {
    const parsed = parseWith(geminiMessageSchema, value);
    if (!parsed.success) {
      return { value, start: from };
    }
    const idAt = this.locate(raw, 'id', parsed.data.id, from);
    return { value, rec: parsed.data, ...(idAt ? { idAt } : {}), start: idAt?.start ?? from };
  }

  /** Emits what is new in this copy of a record. */
  private message(placed: PlacedRecord, raw: RawLine, place: Place): void {
    const { rec, idAt } = placed;
    if (!rec) {
      this.invalid(raw, 'a message record without a valid id, type or toolCalls list');
      return;
    }
    let state = this.records.get(rec.id);
    if (!state) {
      state = { text: false, calls: new Set(), answered: new Set(), badCalls: new Set(), sent: new Set() };
      this.records.set(rec.id, state);
      this.order.push(rec.id);
    }
    if (rec.type === 'gemini') {
      this.gemini(rec, state, raw, { ...place, ...(idAt ? { idAt } : {}) });
    } else if (rec.type === 'user') {
      this.user(rec, state, raw, { ...place, ...(idAt ? { idAt } : {}) });
    }
    // info / error / warning records are UI notes, never sent to the model.
  }

  private user(rec: GeminiMessage, state: RecordState, raw: RawLine, place: Place): void {
    const responses = functionResponses(rec.content);
    if (responses.length > 0 && partsText(rec.content) === '') {
      // A user turn that only carries tool responses (a checkpoint can synthesise one): answers,
      // not a prompt. Responses already recorded inside a tool call are not counted twice: that is
      // one response, recorded in both places; and so are the copies of the history Gemini CLI
      // 0.4x appends under new ids before it checkpoints it (see partCalls). But a checkpoint is
      // the history the API is sent: a response two of its user turns hold is sent twice. Gemini
      // CLI 0.61 resuming a session rebuilds each call's response from its toolCalls (`<message
      // id>_response`) and keeps the user turn that held it as well.
      for (const fr of responses) {
        const id = fr.id;
        if (id === undefined || state.sent.has(id)) {
          continue;
        }
        const twice = place.inSet && this.sentIds.has(id);
        if (place.inSet) {
          state.sent.add(id);
          this.sentIds.set(id, (this.sentIds.get(id) ?? 0) + 1);
        }
        if (!this.answeredIds.has(id) || twice) {
          this.answer(state, id);
          const result = responseResult(fr, id, undefined, this.locate(raw, 'id', id, place.from) ?? this.anywhere(raw, 'id', id));
          this.ctx.emit(this.withWrite(result, fr, undefined));
          this.noteShown(result, fr);
        }
      }
      return;
    }
    if (state.text) {
      return;
    }
    state.text = true;
    const sent = partsText(rec.content);
    const text = rec.displayContent === undefined || rec.displayContent === null ? sent : partsText(rec.displayContent);
    const at = this.textPlace(rec, raw, place);
    // Gemini CLI opens a session (and one it compresses or resumes) with a message of its own,
    // its `<session_context>` (date, OS, folders), and a compressed history is its
    // `<state_snapshot>`: no person's prompt. Taken for one, the context named every session
    // without a summary ("<session_context> This is the Gemini CLI…"), and each made a turn.
    const own = ownMessage.test(sent);
    this.ctx.emit({ kind: 'text', ...at, role: 'user', prompt: !own, ...(own ? {} : { preview: preview(text) }) });
    // (From what the model was sent: the display text shows the prompt as typed.)
    for (const name of contextFiles(sent)) {
      const path = resolveAgainst(name, this.cwd);
      if (path !== undefined) {
        // Shown whole in the prompt, but Gemini CLI may trim it: seen, not a read of known content.
        this.ctx.emit({ kind: 'file-attached', at: at.at, path });
      }
    }
  }

  private gemini(rec: GeminiMessage, state: RecordState, raw: RawLine, place: Place): void {
    const key = rec.id;
    if (!state.text) {
      state.text = true;
      this.ctx.emit({ kind: 'text', ...this.textPlace(rec, raw, place), role: 'assistant', prompt: false, messageKey: key });
    }
    const calls = this.validCalls(rec, state, raw, place.from);
    const parts = this.partCalls(rec, state, raw, place.from, new Set(calls.map((c) => c.tc.id)));
    const ends = callEnds([...calls, ...parts], place.to);
    // One record can hold several model turns (see turnsOf): each is a message, a batch of its own.
    turnsOf(calls, this.wholeDocument).forEach((turn, t) => {
      const turnKey = t === 0 ? key : `${key}~${t + 1}`;
      for (const c of turn) {
        if (state.calls.has(c.key)) {
          continue;
        }
        this.called(state, c.key, c.tc.id);
        this.call(c, turnKey, raw, ends.get(c) ?? place.to);
      }
      // Results follow the calls of the same copy, so a batch stays call…call, result…result.
      for (const c of turn) {
        this.results(c, calls, state, raw);
      }
    });
    // The parts of one API response: one turn. Their results are the next user turn's functionResponse parts.
    for (const c of parts) {
      this.called(state, c.key, c.tc.id);
      this.call(c, key, raw, ends.get(c) ?? place.to);
    }
  }

  /**
   * The calls a record holds only as functionCall parts of its content. Gemini CLI 0.4x rebuilds
   * the record from the history it sends when it syncs that history (ChatRecordingService
   * `updateMessagesFromHistory`: each turn appended again under a new id, then a `$set.messages`
   * checkpoint of them): a model turn is then the API's parts, its calls `functionCall` parts with
   * no `toolCalls`, answered by the next user turn's `functionResponse` parts, and that is what the
   * provider is sent. A part whose id is a call of this history already (a copy written before the
   * checkpoint, a call also in `toolCalls`) is that call again, not a second one.
   */
  private partCalls(rec: GeminiMessage, state: RecordState, raw: RawLine, from: number, recorded: ReadonlySet<string>): ValidCall[] {
    const out: ValidCall[] = [];
    if (rec.type !== 'gemini' || !Array.isArray(rec.content)) {
      return out;
    }
    let cursor = from;
    for (const part of rec.content) {
      const p = parseWith(functionCallPartSchema, part);
      if (!p.success) {
        continue;
      }
      const { id, name, args } = p.data.functionCall;
      const key = `${id}#part`;
      if (recorded.has(id) || state.calls.has(key) || this.calledIds.has(id)) {
        continue;
      }
      const at = this.locate(raw, 'id', id, cursor) ?? this.anywhere(raw, 'id', id);
      cursor = Math.max(cursor, at.start);
      out.push({ tc: { id, name, ...(args !== undefined ? { args } : {}) }, key, at });
    }
    return out;
  }

  private called(state: RecordState, key: string, id: string): void {
    state.calls.add(key);
    this.calledIds.set(id, (this.calledIds.get(id) ?? 0) + 1);
  }

  private validCalls(rec: GeminiMessage, state: RecordState, raw: RawLine, from: number): ValidCall[] {
    const out: ValidCall[] = [];
    const seen = new Map<string, number>();
    let cursor = from;
    (rec.toolCalls ?? []).forEach((value, index) => {
      const p = parseWith(geminiToolCallSchema, value);
      if (!p.success) {
        if (!state.badCalls.has(index)) {
          state.badCalls.add(index);
          this.invalid(raw, 'a tool call without id or name');
        }
        return;
      }
      const n = (seen.get(p.data.id) ?? 0) + 1;
      seen.set(p.data.id, n);
      const at = this.locate(raw, 'id', p.data.id, cursor) ?? this.anywhere(raw, 'id', p.data.id);
      cursor = Math.max(cursor, at.start);
      out.push({ tc: p.data, key: `${p.data.id}#${n}`, at });
    });
    return out;
  }

  /** Emits a call; `to` is where the next call (or record) starts. */
  private call(c: ValidCall, messageKey: string, raw: RawLine, to: number): void {
    const { tc } = c;
    const args = tc.args ?? {};
    const cls = classifyToolCall('gemini', tc.name, args, this.cwd);
    const accesses: FileAccess[] = cls.accesses.map((a) => {
      const span = this.pathSpan(raw, args, a.path, c.at.start, to);
      return span ? { ...a, span } : a;
    });
    const target = tc.name === 'write_file' ? accesses.find((a) => a.op === 'write')?.path : undefined;
    if (target !== undefined) {
      this.writeTargets.set(tc.id, target);
    }
    const file = fileTarget(tc.name, args, accesses);
    if (file !== undefined) {
      this.fileTargets.set(tc.id, file);
    }
    this.ctx.emit({
      kind: 'call',
      at: c.at,
      callId: tc.id,
      tool: tc.name,
      category: cls.category,
      ...(cls.rewrites ? { rewrites: cls.rewrites } : {}),
      ...(ranInOrder(tc, args) ? { inOrder: true } : {}),
      ...(ranAlone(tc) ? { alone: true } : {}),
      accesses,
      messageKey,
      ...(this.ctx.hashInputs ? { inputHash: inputHash(args) } : {}),
      ...(tc.timestamp !== undefined ? { timestamp: tc.timestamp } : {}),
    });
  }

  /**
   * One result per functionResponse, named by the response's own id and name (so a swapped
   * id or name shows up), or — for a finished call that recorded no response — by its status.
   */
  private results(c: ValidCall, calls: readonly ValidCall[], state: RecordState, raw: RawLine): void {
    const { tc } = c;
    const responses = functionResponses(tc.result);
    if (responses.length === 0) {
      if (tc.status !== undefined && terminalStatuses.has(tc.status) && !state.answered.has(tc.id)) {
        this.answer(state, tc.id);
        this.ctx.emit({
          kind: 'result',
          at: this.locate(raw, 'status', tc.status, c.at.start) ?? c.at,
          callId: tc.id,
          isError: tc.status !== 'success',
          placeholder: false,
        });
      }
      return;
    }
    let cursor = c.at.start;
    for (const fr of responses) {
      const id = fr.id ?? tc.id;
      const frAt = this.pairsOf(raw).markAfter(cursor);
      cursor = frAt === -1 ? cursor : frAt + 1;
      // A checkpoint copies the whole user turn into each call's result, siblings included.
      if (state.answered.has(id)) {
        continue;
      }
      this.answer(state, id);
      const status = (calls.find((x) => x.tc.id === id) ?? c).tc.status;
      const at = fr.id !== undefined && frAt !== -1 ? (this.locate(raw, 'id', fr.id, frAt) ?? c.at) : c.at;
      const result = responseResult(fr, id, status, at);
      this.ctx.emit(this.withWrite(result, fr, id === tc.id ? tc.resultDisplay : undefined));
      this.noteShown(result, fr);
    }
  }

  /**
   * A `write_file` result with what it replaced, when it says it overwrote a file (see
   * overwritten): a write of an existing file, as Claude Code's Write of `type: "update"` is.
   */
  private withWrite(result: ToolResult, fr: FunctionResponse, display: unknown): ToolResult {
    const file = this.fileTargets.get(result.callId);
    if (file !== undefined) {
      this.fileTargets.delete(result.callId);
      return result.isError ? result : withFile(result, file, fr, display);
    }
    const path = this.writeTargets.get(result.callId);
    if (path === undefined) {
      return result;
    }
    this.writeTargets.delete(result.callId);
    const before = result.isError ? undefined : overwritten(fr.response, display);
    if (before === undefined) {
      return result;
    }
    const write = replacedWhole(path, before);
    return { ...result, write: before !== null && this.shownWhole(before) ? { ...write, shown: true } : write };
  }

  /** Keeps what a successful read returned, for shownWhole; the oldest go first past maxShownChars. */
  private noteShown(result: ToolResult, fr: FunctionResponse): void {
    const text = result.isError || (fr.name !== 'read_file' && fr.name !== 'read_many_files') ? undefined : responseText(fr.response);
    if (text === undefined || text.length > maxShownChars) {
      return;
    }
    this.shown.push(text);
    this.shownChars += text.length;
    while (this.shownChars > maxShownChars) {
      this.shownChars -= this.shown.shift()!.length;
    }
  }

  /**
   * Had the session been shown all of `before`, verbatim, by an earlier read? The harness session
   * of the thirty-sixth set overwrote `src/App.tsx`, which it never read, but which its own run of
   * a `scaffold.py` had made from a template that script holds, and it had read the script.
   */
  private shownWhole(before: string): boolean {
    if (!recognisable(before)) {
      return false;
    }
    // Newest first: a file made from what the session just read. Each look is paid from one
    // budget for the whole session: thousands of overwrites, each looked for in megabytes of
    // reads, would make the check of a hostile file quadratic. Past it, a write is judged as
    // if nothing had shown its content (the warning, as before this narrowing).
    for (let i = this.shown.length - 1; i >= 0; i--) {
      const text = this.shown[i]!;
      if (this.shownScanned + text.length > maxShownScan) {
        return false;
      }
      this.shownScanned += text.length;
      if (text.includes(before)) {
        return true;
      }
    }
    return false;
  }

  private answer(state: RecordState, id: string): void {
    if (!state.answered.has(id)) {
      state.answered.add(id);
      this.answeredIds.set(id, (this.answeredIds.get(id) ?? 0) + 1);
    }
  }

  private invalid(raw: RawLine, what: string): void {
    this.ctx.emit({ kind: 'malformed', at: lineSpan(raw), reason: 'invalid-shape', detail: `${what} (Gemini CLI)` });
  }

  private pairsOf(raw: RawLine): StringPairs {
    if (this.placed?.raw !== raw) {
      this.placed = { raw, pairs: new StringPairs(raw.text, placedKeys, 'functionResponse') };
    }
    return this.placed.pairs;
  }

  /** `"key":"value"` (or `"key": "value"`, or spelled with escapes) at or after `from`; the span is inside the quotes. */
  private locate(raw: RawLine, key: string, value: string, from: number): Span | undefined {
    const p = this.pairsOf(raw).after(key, value, from);
    return p && { line: raw.lineNo, start: p.start, end: p.end };
  }

  /** The pair anywhere in the line, as valueSpan prefers them; the first `"value"`, else the line, when it is no pair. */
  private anywhere(raw: RawLine, key: string, value: string): Span {
    const p = this.pairsOf(raw).first(key, value);
    return p ? { line: raw.lineNo, start: p.start, end: p.end } : valueSpan(raw, value, key);
  }

  /** A text event sits on its record's line, or on the record's id inside a `$set.messages` line. */
  private textPlace(rec: GeminiMessage, raw: RawLine, place: Place): { at: Span; timestamp?: string } {
    return {
      at: place.inSet ? (place.idAt ?? this.anywhere(raw, 'id', rec.id)) : lineSpan(raw),
      ...(rec.timestamp !== undefined ? { timestamp: rec.timestamp } : {}),
    };
  }

  /** The path as the call spelled it, searched from the call's own position in the line up to `to`. */
  private pathSpan(raw: RawLine, args: unknown, absolute: string, from: number, to: number): Span | undefined {
    if (isRecord(args)) {
      for (const key of pathKeys) {
        const v = args[key];
        if (typeof v === 'string') {
          return this.locate(raw, key, v, from) ?? this.anywhere(raw, key, v);
        }
      }
    }
    // Paths found inside a shell command: only when they appear literally, and in the call's own
    // text (searched to the line's end, a path not there cost a pass over the rest of a legacy
    // session for every call).
    const at = from < to ? raw.text.slice(from, to).indexOf(absolute) : -1;
    return at === -1 ? undefined : { line: raw.lineNo, start: from + at, end: from + at + absolute.length };
  }
}

/**
 * Where each call's own text ends: where the next call in the line starts, and the last where
 * `to` (the next record) is.
 */
function callEnds(calls: readonly ValidCall[], to: number): Map<ValidCall, number> {
  const starts = [...new Set(calls.map((c) => c.at.start))].sort((a, b) => a - b);
  const ends = new Map<ValidCall, number>();
  for (const c of calls) {
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (starts[mid]! <= c.at.start) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    ends.set(c, Math.min(starts[lo] ?? to, to));
  }
  return ends;
}

/** One fewer record holds `id`. */
function forget(counts: Map<string, number>, id: string): void {
  const n = counts.get(id) ?? 0;
  if (n > 1) {
    counts.set(id, n - 1);
  } else {
    counts.delete(id);
  }
}

/** The functionResponse parts of a PartListUnion (an array of parts, one part, or a string). */
function functionResponses(parts: unknown): FunctionResponse[] {
  const list = Array.isArray(parts) ? parts : parts === undefined || parts === null ? [] : [parts];
  const out: FunctionResponse[] = [];
  for (const p of list) {
    const fr = parseWith(functionResponsePartSchema, p);
    if (fr.success) {
      out.push(fr.data.functionResponse);
    }
  }
  return out;
}

/**
 * Files Gemini CLI put into a prompt with their content: its memory files (`--- Context from:
 * PATH ---` … `--- End of Context from: PATH ---`, GEMINI.md and the like, in a sub-agent's first
 * message) and the files a prompt names with `@` (`Content from @PATH:` then the text).
 */
const contextFileHeader = /^(?:--- Context from: (.+?) ---|Content from @(.+?):)$/gm;

function contextFiles(text: string): string[] {
  return [...new Set([...text.matchAll(contextFileHeader)].map((m) => (m[1] ?? m[2])!))];
}

/** The text of a PartListUnion: strings and `{text}` parts. */
function partsText(parts: unknown): string {
  if (typeof parts === 'string') {
    return parts;
  }
  const list = Array.isArray(parts) ? parts : [parts];
  const texts: string[] = [];
  for (const p of list) {
    if (typeof p === 'string') {
      texts.push(p);
    } else if (isRecord(p) && typeof p['text'] === 'string') {
      texts.push(p['text']);
    }
  }
  return texts.join('\n');
}

function responseResult(fr: FunctionResponse, id: string, status: string | undefined, at: Span): ToolResult {
  return {
    kind: 'result',
    at,
    callId: id,
    isError: hasError(fr.response) || status === 'error' || status === 'cancelled',
    placeholder: isPlaceholderText(responseText(fr.response)),
    ...(fr.name !== undefined ? { tool: fr.name } : {}),
  };
}

/** A call whose result shows its file (see GeminiParser.fileTargets). */
type FileTarget =
  | { tool: 'read'; path: string }
  | { tool: 'edit'; path: string; oldString: string | undefined; allowMultiple: boolean };

/**
 * Does a `read_file` ask for its file from the first line (`start_line` 1, or `offset` 0 in older
 * builds, or no start at all)? Such a read shows the whole file unless it says it was cut: Gemini
 * CLI (0.61's `processSingleFileContent`) marks a text read truncated when it starts past line 1,
 * ends before the last line or cuts a long line, and then puts its notice first (see wholeFile).
 * Later builds send `start_line: 1` and an `end_line` with every read, past the file's end or not
 * (the fiftieth set): taking only reads with no range for whole ones found no stale write there.
 */
function readsFromStart(args: Record<string, unknown>): boolean {
  const absent = (k: string): boolean => args[k] === undefined || args[k] === null;
  return (absent('start_line') || args['start_line'] === 1) && (absent('offset') || args['offset'] === 0);
}

function fileTarget(tool: string, args: unknown, accesses: readonly FileAccess[]): FileTarget | undefined {
  if (!isRecord(args)) {
    return undefined;
  }
  if (tool === 'read_file') {
    const read = accesses.find((a) => a.op === 'read');
    return read !== undefined && readsFromStart(args) ? { tool: 'read', path: read.path } : undefined;
  }
  if (tool === 'replace') {
    const edit = accesses.find((a) => a.op === 'edit');
    const oldString = args['old_string'];
    return edit === undefined
      ? undefined
      : { tool: 'edit', path: edit.path, oldString: typeof oldString === 'string' ? oldString : undefined, allowMultiple: args['allow_multiple'] === true };
  }
  return undefined;
}

/** A successful read's or edit's result with what it shows of its file, when it shows it whole. */
function withFile(result: ToolResult, file: FileTarget, fr: FunctionResponse, display: unknown): ToolResult {
  if (file.tool === 'read') {
    const content = wholeFile(fr.response);
    if (content === undefined) {
      return result;
    }
    const lines = countLines(content);
    const read: ReadSnapshot = { path: file.path, content, startLine: 1, numLines: lines, totalLines: lines };
    return { ...result, read };
  }
  const write = editSnapshot(file, display);
  return write === undefined ? result : { ...result, write };
}

/**
 * The file a `read_file` from its first line returned, verbatim, or undefined when its output may
 * be anything else. Gemini CLI 0.61 (read-file.ts) returns a text file as its lines joined by "\n"
 * (a CRLF file's line ends are not kept, as the stale-write comparison ignores them too); a file
 * longer than 2,000 lines, or with a line longer than 2,000 characters, after an "IMPORTANT: The
 * file content has been truncated." notice, its long lines cut with "... [truncated]"; a
 * GEMINI.md found beside it appended after "--- Newly Discovered Project Context ---"; an image
 * or PDF as inlineData, not text. Older builds worded their notices otherwise: an output that says
 * "truncated" near its start is not taken for the file, nor is one wrapped in
 * `<untrusted_context>` (other tools' output in 0.61).
 */
function wholeFile(response: unknown): string | undefined {
  const output = isRecord(response) ? response['output'] : undefined;
  if (typeof output !== 'string') {
    return undefined;
  }
  const head = output.slice(0, 400).toLowerCase();
  if (head.includes('truncated') || output.startsWith('<untrusted_context>') || output.includes('... [truncated]') || output.includes('--- Newly Discovered Project Context ---')) {
    return undefined;
  }
  return output;
}

/**
 * What a `replace` changed, from its resultDisplay: `originalContent` (null for a file it made)
 * and `newContent`, the whole file before and after (Gemini CLI since July 2025; 0.61 as well).
 * The replaced lines are those its old_string matched (it matched exactly, once, unless
 * allow_multiple) or else, when Gemini CLI's fuzzy matching found the text another way, the lines
 * a diff of the two shows changed.
 */
function editSnapshot(file: Extract<FileTarget, { tool: 'edit' }>, display: unknown): WriteSnapshot | undefined {
  if (!isRecord(display)) {
    return undefined;
  }
  const before = display['originalContent'];
  const after = display['newContent'];
  if (typeof after !== 'string' || (typeof before !== 'string' && before !== null)) {
    return undefined;
  }
  if (before === null || display['isNewFile'] === true) {
    return { path: file.path, type: 'create', before: null, after, replaced: [] };
  }
  const quoted = file.oldString === undefined ? [] : quotedLines(before, [{ old_string: file.oldString, replace_all: file.allowMultiple }]);
  const replaced =
    quoted.length > 0 ? quoted : diffLines(splitLines(before), splitLines(after)).map((h) => ({ start: h.aStart + 1, count: h.aCount }));
  return { path: file.path, type: 'update', before, after, replaced, ...(quoted.length > 0 ? { quoted } : {}) };
}

/**
 * What the file a `write_file` overwrote held, null when the record does not keep it; undefined
 * when the write made a new file or does not say. The call does not tell whether its file
 * existed; the result does, in the words of Gemini CLI's write-file.ts since April 2025:
 * "Successfully overwrote file: PATH" or "Successfully created and wrote to new file: PATH" (a
 * final "." and the updated code after it came later). Builds from July 2025 keep the file as it
 * was in `resultDisplay.originalContent` ('' for a new file), from January 2026 with `isNewFile`.
 */
function overwritten(response: unknown, display: unknown): string | null | undefined {
  const said = /^Successfully (overwrote file|created and wrote to new file): /.exec(responseText(response) ?? '');
  const shown = isRecord(display) ? display : undefined;
  const existed = said ? said[1] === 'overwrote file' : shown?.['isNewFile'] === false;
  if (!existed) {
    return undefined;
  }
  const original = shown?.['originalContent'];
  return typeof original === 'string' ? original : null;
}

/**
 * How much of what reads returned is kept to look for a file's former content in: a read returns
 * at most 50 KB (MAX_TOOL_OUTPUT_SIZE, FORMATS.md §3.2), so the latest eighty reads or more. (Kept
 * for as long as the session is watched: a few megabytes, not tens.)
 */
const maxShownChars = 4 * 1024 * 1024;

/** Characters looked through in all by shownWhole in one session: a quarter of a second or so. */
const maxShownScan = 256 * 1024 * 1024;

/**
 * A text long enough that finding it whole inside another file's content says the session saw
 * it, not a coincidence: three lines with text. (`{}` or `node_modules/` is in many files.)
 */
function recognisable(text: string): boolean {
  let lines = 0;
  for (const line of text.split('\n')) {
    if (line.trim() !== '' && ++lines >= 3) {
      return true;
    }
  }
  return false;
}

/** A write of a whole file that was there: every line of it replaced, as far as it is known. */
function replacedWhole(path: string, before: string | null): WriteSnapshot {
  return { path, type: 'update', before, replaced: before === null ? [] : [{ start: 1, count: countLines(before) }] };
}

function hasError(response: unknown): boolean {
  return isRecord(response) && response['error'] !== undefined && response['error'] !== null;
}

function responseText(response: unknown): string | undefined {
  if (isRecord(response)) {
    for (const key of ['output', 'error']) {
      const v = response[key];
      if (typeof v === 'string') {
        return v;
      }
    }
  }
  return resultText(response);
}
