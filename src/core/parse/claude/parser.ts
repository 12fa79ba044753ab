import * as nodePath from 'node:path';
import { isAbsolutePath, isWindowsPath, resolveAgainst } from '../../classify/paths';
import { type Classification, classifyToolCall, isRecord } from '../../classify/tools';
import { inputHash } from '../../lib/hash';
import { countLines, quotedLines } from '../../lib/diff';
import type { FileAccess, ResetEvent, Span, TextEvent, ToolResult, WriteSnapshot } from '../../model/events';
import type { AdapterContext, FormatAdapter, FormatParser } from '../adapter';
import type { RawLine } from '../lineSplitter';
import { lineSpan, preview, valueSpan } from '../span';
import { isPlaceholderContent, resultText } from '../placeholder';
import { VmMounts } from './mounts';
import {
  assistantLineSchema,
  readResultSchema,
  shellResultSchema,
  systemLineSchema,
  textBlockSchema,
  titleLineSchema,
  toolResultBlockSchema,
  toolUseBlockSchema,
  userLineSchema,
  worktreeStateSchema,
  writeResultSchema,
} from './schema';
import { guardOf } from '../guard';

// The compiled guards, once: a line costs the checks alone (no lookup, no result object).
// Each is exactly its schema's safeParse(...).success (test/unit/core/guard.test.ts).
const isAssistantLine = guardOf(assistantLineSchema);
const isUserLine = guardOf(userLineSchema);
const isSystemLine = guardOf(systemLineSchema);
const isTitleLine = guardOf(titleLineSchema);
const isWorktreeState = guardOf(worktreeStateSchema);
const isToolUseBlock = guardOf(toolUseBlockSchema);
const isToolResultBlock = guardOf(toolResultBlockSchema);
const isTextBlock = guardOf(textBlockSchema);
const isReadResult = guardOf(readResultSchema);
const isWriteResult = guardOf(writeResultSchema);
const isShellResult = guardOf(shellResultSchema);

/** Record types that are never part of the API-visible conversation (FORMATS.md §1.2). */
const chainTypes = new Set(['user', 'assistant', 'system']);
const knownTypes = new Set([
  'user',
  'assistant',
  'system',
  'progress',
  'attachment',
  'file-history-snapshot',
  'queue-operation',
  'summary',
  'ai-title',
  'custom-title',
  'last-prompt',
  'content-replacement',
  'agent-setting',
  'pr-link',
]);

/** User text Claude Code writes itself, as opposed to a prompt a person typed. */
const nonPromptText = /^(<local-command-|<command-name>|<command-message>|<command-args>|\[Request interrupted by user|Caveat: |<system-reminder>|<bash-(input|stdout|stderr)>)/;

export const claudeAdapter: FormatAdapter = {
  agent: 'claude-code',
  sniff(v) {
    return (
      typeof v['type'] === 'string' &&
      knownTypes.has(v['type']) &&
      ('uuid' in v || 'sessionId' in v || 'messageId' in v || 'leafUuid' in v || 'parentUuid' in v)
    );
  },
  claimsPath(p) {
    return /[\\/]\.claude[\\/]projects[\\/]/.test(p) || /[\\/]subagents[\\/]agent-[^\\/]+\.jsonl$/.test(p);
  },
  create(ctx) {
    return new ClaudeParser(ctx);
  },
};

/** The chain fields every event of a line carries. */
interface Stamp {
  timestamp: string | undefined;
  uuid: string | undefined;
  parentUuid: string | null | undefined;
}

interface CallNote {
  tool: string;
  path?: string;
  /** MultiEdit's edits, to rebuild the written content. */
  edits?: { old_string: string; new_string: string; replace_all?: boolean }[];
  /** The script a `Workflow` call passed, which Claude Code saves to the file its result names. */
  script?: string;
  /** A `Grep` call: the file or folder it searched (its output's paths are relative to the cwd). */
  grepPath?: string;
  /** A Bash call that prints a `git diff` of the working tree. */
  workingTreeDiff?: boolean;
  /** A shell call that runs a scaffolding script, whose output names the files it made (see classify/scaffolds). */
  scaffold?: Classification['scaffold'];
}

/**
 * How many lines a result written ahead of its call's record is held for that record. Claude
 * Code writes it at most a few lines later; past this, the call is not coming.
 */
const maxEarlyResultLines = 64;

/** A call with no result yet, and its latest progress lines. */
interface RunningCall {
  messageKey: string | undefined;
  progress: string[];
  /** A user or assistant record hung from its progress output. */
  hungFrom?: boolean;
}

/** Chain-only lines remembered (the newest ones; see `chainLinks`). */
const maxChainLinks = 256;
/** Linked folders remembered to say each once (see historyDelta); past it one is said again, which is harmless. */
const maxLinkedFolders = 256;

/** Progress lines remembered per running call (the newest ones). */
const maxProgressKept = 8;

/**
 * The first file line a Read's content holds, from its recorded `startLine`. A Read with
 * `offset: 0` is recorded with `startLine: 0`, its content still from line 1. One with a negative
 * offset (`offset: -50`, Claude Code 2.0.x) reads the file's last lines and is recorded with that
 * `startLine` (-50), its lines numbered -50 to -1: they are the lines from `totalLines - 50` on, not
 * the file's first.
 */
function readStart(startLine: number, totalLines: number): number {
  return startLine < 0 ? Math.max(1, totalLines + startLine) : Math.max(1, startLine);
}

/** A user record carrying a tool's result (which Claude Code may write before its call's record). */
function holdsResult(value: Record<string, unknown>): boolean {
  const content = (value['message'] as { content?: unknown } | undefined)?.content;
  return Array.isArray(content) && content.some((b) => (b as { type?: unknown } | null)?.type === 'tool_result');
}

/**
 * A compact key for a record's uuid: its first 48 bits as a number (a random UUID's are as good
 * as the whole for telling a file's lines apart), or the text itself when it is no UUID. Two
 * uuids sharing a key only hide a lost record, never invent one.
 */
function uuidKey(uuid: string): number | string {
  // `^([0-9a-f]{8})-([0-9a-f]{4})-`i read by hand: a match and two slices per line were a share
  // of a Claude Code line's reading.
  if (uuid.length < 14 || uuid.charCodeAt(8) !== 0x2d || uuid.charCodeAt(13) !== 0x2d) {
    return uuid;
  }
  let key = 0;
  for (let i = 0; i < 13; i++) {
    if (i === 8) {
      continue;
    }
    const digit = hexDigit(uuid.charCodeAt(i));
    if (digit === -1) {
      return uuid;
    }
    key = key * 16 + digit;
  }
  return key;
}

/** The value of a hexadecimal digit (either case), or -1. */
function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) {
    return c - 0x30;
  }
  const lower = c | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

/** A result record held until the record it answers (named by its parent uuid) is read. */
interface EarlyResult {
  value: Record<string, unknown>;
  raw: RawLine;
}

class ClaudeParser implements FormatParser {
  private readonly seenUuids = new Set<string>();
  /**
   * Result records that came before the record of their call, by the uuid of that record.
   * Claude Code 2.1.91–2.1.172 sometimes writes a tool's result a line or two before the
   * `tool_use` block it answers (one API message is several records); its `parentUuid` chain
   * still puts the call first, and Claude Code rebuilds the conversation by that chain.
   */
  private readonly early = new Map<string, EarlyResult[]>();
  /** Line of the oldest held result (Infinity when none is held). */
  private earliestHeld = Infinity;
  /** A sub-agent file is all sidechain; in a main file, sidechain lines are another conversation. */
  private sidechainFile: boolean | undefined;
  private sessionId: string | undefined;
  private cwd: string | undefined;
  private readonly calls = new Map<string, CallNote>();
  /**
   * Calls with no result yet, with the uuids of their latest `progress` lines: a record that
   * hangs from one of those lines was written while the call ran (see `CallRunningEvent`).
   * A call leaves when its result is read, so this holds only what is running now.
   */
  private readonly running = new Map<string, RunningCall>();
  /**
   * Lines that are links of the `parentUuid` chain but emit no event (progress, attachments,
   * system notes), by uuid → the nearest line above them that does. A record hanging from one
   * is given that line as its parent, so the conversation tree sees where it really forks
   * (two runs of a session hanging from one hook attachment). The newest ones only: a record
   * hangs from a line written just before it.
   */
  private readonly chainLinks = new Map<string, string | null>();
  /**
   * `chainLinks`' keys oldest first, a ring of `maxChainLinks` slots from `linkHead`: the oldest
   * is found here, not by `keys().next()`, which walks past every entry deleted from the front
   * of the Map since its last rehash (up to its capacity) on each eviction.
   */
  private readonly linkOrder: string[] = [];
  private linkHead = 0;
  /** Every chain-only line's uuid (see uuidKey), kept past `chainLinks`' limit: what a record may hang from. */
  private readonly linkKeys = new Set<number | string>();
  /**
   * Parents no line of the file has held yet, by uuid → the first line hung from each. Claude
   * Code writes a record a line or two before the one it hangs from at times (see `early`), so
   * a parent is given up for lost only when it has not come within `maxEarlyResultLines`.
   */
  private readonly orphans = new Map<string, Span>();
  /** Parents already said to be lost (see noteParent), so that a second line hung from one is not news. */
  private readonly lostParents = new Set<string>();
  /** Progress line uuid → the running call it reports on. */
  private readonly progressOf = new Map<string, { callId: string; at: Span }>();
  /** The file of Claude Code's compaction helper, by its name or its records' `agentId` (see `record`). */
  private compactHelper: boolean;
  /** An assistant record was read: a root line after it starts the history again. */
  private answered = false;
  /** A message record was read (see `record`: a first one hung from outside the file). */
  private started = false;
  /** The API message of the last assistant record read (see noteParent). */
  private lastMessageKey: string | undefined;
  /** The last assistant record read: its request, the message it was taken as, its uuid (see answerKey). */
  private lastAnswer: { requestId: string; key: string; uuid: string } | undefined;
  /** Message ids taken as an earlier message's: a second answer to one request, written below the first (see answerKey). */
  private readonly sameAnswer = new Map<string, string>();
  /** The first message hung from outside the file, until the model speaks or a root comes first. */
  private partwayAt: Span | undefined;
  /** A Claude Desktop local-agent session's VM mounts (see VmMounts); undefined in any other session. */
  private mounts: VmMounts | undefined;
  /** Folders the file history showed reached through a link, and their real folders (see historyDelta): each said once. */
  private readonly linkedFolders = new Map<string, string>();
  /** The `version` last asked about by resultsFirstOf, and the answer: one build writes most files whole. */
  private versionAsked: unknown;
  private versionResultsFirst = false;

  constructor(private readonly ctx: AdapterContext) {
    this.compactHelper = /[\\/]agent-acompact-[^\\/]*\.jsonl$/.test(ctx.file);
  }

  line(value: Record<string, unknown>, raw: RawLine): void {
    if (raw.lineNo - this.earliestHeld > maxEarlyResultLines) {
      this.releaseOld(raw.lineNo);
    }
    if (this.orphans.size > 0) {
      if (typeof value['uuid'] === 'string') {
        this.orphans.delete(value['uuid']);
      }
      this.loseOrphans(raw.lineNo - maxEarlyResultLines);
    }
    if (value['parentUuid'] === null && !this.answered) {
      // A root before the model has spoken: the conversation starts here, whatever came before.
      this.partwayAt = undefined;
      if (this.early.size > 0) {
        this.dropForeignResults();
      }
    }
    this.record(value, raw);
    if (this.early.size > 0 && typeof value['uuid'] === 'string') {
      const waiting = this.early.get(value['uuid']);
      if (waiting) {
        this.early.delete(value['uuid']);
        for (const h of waiting) {
          this.user(h.value, h.raw, true);
        }
        this.earliestHeld = this.oldestHeld();
      }
    }
  }

  /** End of the file: results still held never met their call; they are read as they are. */
  end(): void {
    this.releaseOld(Infinity);
    this.loseOrphans(Infinity);
  }

  /**
   * A line hung from a record the file does not hold (see HistoryGapEvent), noted once per
   * missing parent. Not the file's first records (a file that starts partway is `partway`'s),
   * nor a compaction helper's (its leading records hang from the main session by design). Only
   * a tool's result and the lines about a running call (progress, a hook's attachment) may come
   * before the record they hang from (see `early`): those wait; any other line says it at once,
   * so that a write judged right after it knows.
   */
  private noteParent(value: Record<string, unknown>, raw: RawLine): void {
    const parent = value['parentUuid'];
    const type = value['type'];
    // The blocks of one message with parallel calls are written out of order too (2.1.119–2.1.122:
    // a call hung from the result of the call before it, written the line after): a block of the
    // message before waits as a result does; a new message says it at once.
    let sameMessage = false;
    if (type === 'assistant') {
      const message = value['message'];
      const key = isRecord(message) && typeof message['id'] === 'string' ? message['id'] : undefined;
      sameMessage = key !== undefined && key === this.lastMessageKey;
      this.lastMessageKey = key;
    }
    if (
      typeof parent !== 'string' ||
      !this.started ||
      this.compactHelper ||
      this.seenUuids.has(parent) ||
      this.orphans.has(parent) ||
      this.lostParents.has(parent) ||
      this.linkKeys.has(uuidKey(parent))
    ) {
      return;
    }
    if ((type === 'assistant' && !sameMessage) || type === 'system' || (type === 'user' && !holdsResult(value))) {
      this.lostParents.add(parent);
      this.ctx.emit({ kind: 'history-gap', at: lineSpan(raw) });
      return;
    }
    this.orphans.set(parent, lineSpan(raw));
  }

  /** Parents waited for since before line `before` (all, at the end) are lost: said in line order. */
  private loseOrphans(before: number): void {
    const lost: Span[] = [];
    for (const [parent, at] of this.orphans) {
      if (at.line < before) {
        this.orphans.delete(parent);
        this.lostParents.add(parent);
        lost.push(at);
      }
    }
    lost.sort((a, b) => a.line - b.line);
    for (const at of lost) {
      this.ctx.emit({ kind: 'history-gap', at });
    }
  }

  /** A quiet file: its call would have come within the same write (see `maxEarlyResultLines`). */
  settle(): void {
    if (this.early.size > 0) {
      this.releaseOld(Infinity);
    }
    if (this.orphans.size > 0) {
      // Nor would a missing parent come later: what hangs from it was written in the same burst.
      this.loseOrphans(Infinity);
    }
  }

  /** Reads, in line order, the held results older than the limit (all of them at the end). */
  private releaseOld(now: number): void {
    const due: EarlyResult[] = [];
    for (const [key, list] of this.early) {
      const keep = list.filter((h) => now - h.raw.lineNo <= maxEarlyResultLines);
      if (keep.length < list.length) {
        due.push(...list.filter((h) => now - h.raw.lineNo > maxEarlyResultLines));
        if (keep.length === 0) {
          this.early.delete(key);
        } else {
          this.early.set(key, keep);
        }
      }
    }
    due.sort((a, b) => a.raw.lineNo - b.raw.lineNo);
    this.earliestHeld = this.oldestHeld();
    for (const h of due) {
      this.user(h.value, h.raw, true);
    }
  }

  /**
   * A new root before the model has spoken, while results wait for a record this file never
   * held: those results are another session's. Claude Code's plan mode, when the person accepts a
   * plan with "clear context", starts the new session's file with the old session's pending
   * `ExitPlanMode` result (hung from the old file's call), then begins the conversation from a
   * root; nothing descends from that result, and the API never sees it.
   */
  private dropForeignResults(): void {
    for (const [key, list] of [...this.early]) {
      if (!this.seenUuids.has(key) && !this.chainLinks.has(key)) {
        this.early.delete(key);
        // Said, for `check` to pair with the call in the old session's file.
        for (const h of list) {
          for (const callId of resultIds(h.value)) {
            this.ctx.emit({ kind: 'foreign-result', at: lineSpan(h.raw), callId });
          }
        }
      }
    }
    this.earliestHeld = this.oldestHeld();
  }

  private oldestHeld(): number {
    let min = Infinity;
    for (const list of this.early.values()) {
      for (const h of list) {
        min = Math.min(min, h.raw.lineNo);
      }
    }
    return min;
  }

  private record(value: Record<string, unknown>, raw: RawLine): void {
    const type = value['type'];
    if (type === 'summary' || type === 'ai-title' || type === 'custom-title') {
      const title = isTitleLine(value) ? (value.customTitle ?? value.title ?? value.aiTitle ?? value.summary) : undefined;
      if (title) {
        this.ctx.emit({ kind: 'session', at: lineSpan(raw), agent: 'claude-code', title: preview(title, 120) });
      }
      return;
    }
    if (type === 'worktree-state') {
      if (isWorktreeState(value) && value.worktreeSession) {
        const { originalCwd, worktreePath } = value.worktreeSession;
        this.ctx.emit({ kind: 'worktree-entered', at: lineSpan(raw), from: originalCwd, to: worktreePath });
      }
      return;
    }
    if (type === 'progress') {
      this.link(value, raw);
      this.progress(value, raw);
      return;
    }
    if (type === 'attachment') {
      this.link(value, raw);
      // Of this file's conversation only: in a main file, sidechain lines are another one; in a
      // sub-agent file every line is a sidechain line.
      const sidechain = value['isSidechain'] === true;
      this.sidechainFile ??= sidechain;
      if (sidechain === this.sidechainFile) {
        this.attachment(value['attachment'], raw);
      }
      return;
    }
    if (type === 'file-history-delta') {
      this.historyDelta(value, raw);
      return;
    }
    if (typeof type !== 'string' || !chainTypes.has(type)) {
      // progress, attachment, file-history-snapshot, queue-operation and unknown kinds
      // are not messages: tolerated, skipped.
      this.link(value, raw);
      return;
    }
    const uuid = typeof value['uuid'] === 'string' ? value['uuid'] : undefined;
    if (uuid !== undefined) {
      // Older builds replay the prefix of a resumed session with the same uuids. (One hash
      // lookup: the set grows only when the uuid is new.)
      const seen = this.seenUuids.size;
      if (this.seenUuids.add(uuid).size === seen) {
        return;
      }
    }
    const sidechain = value['isSidechain'] === true;
    this.sidechainFile ??= sidechain;
    if (sidechain !== this.sidechainFile) {
      return;
    }
    const parent = value['parentUuid'];
    this.compactHelper ||= typeof value['agentId'] === 'string' && value['agentId'].startsWith('acompact-');
    // (Through the records skipped so: a leading call's result hangs from the call.)
    const from = this.compactHelper && typeof parent === 'string' ? this.parentOf(parent) : undefined;
    if (typeof from === 'string' && !this.seenUuids.has(from) && !this.chainLinks.has(from)) {
      // A compaction helper's file (`agent-acompact-*`) starts with the main conversation's last
      // records, hung from that conversation: its context, not this file's (it is never resumed).
      this.link(value, raw);
      return;
    }
    this.noteSession(value, raw);
    this.noteParent(value, raw);
    if (!this.started && type !== 'system') {
      // The first message hangs from a record this file does not hold: the file starts partway
      // through the session (a copy cut short, a session continued from another file), and what
      // the session read before is not here (Claude Code 2.0.1 accepted edits of files read there).
      // Said when the model first speaks: a root before that starts the conversation after all.
      this.started = true;
      const up = typeof parent === 'string' ? this.parentOf(parent) : parent;
      if (typeof up === 'string' && !this.seenUuids.has(up) && !this.chainLinks.has(up) && !this.compactHelper) {
        this.partwayAt = lineSpan(raw);
      }
    }
    if (type === 'assistant' && this.partwayAt !== undefined) {
      this.ctx.emit({ kind: 'reset', at: this.partwayAt, reason: 'partway', elsewhere: true });
      this.partwayAt = undefined;
    }
    if (type !== 'system' && parent === null && this.answered) {
      // A new root after the model has spoken: the history written again from its start (Claude
      // Code 2.0.x replays it under new uuids when a session resumes after its process died).
      // What hangs from the new root is the conversation from here on; the old chain's calls
      // are no longer sent, as after a compaction.
      this.ctx.emit({ kind: 'reset', at: lineSpan(raw), reason: 'restart' });
    }
    this.answered ||= type === 'assistant';
    if (this.progressOf.size > 0) {
      const from = this.progressOf.get(value['parentUuid'] as string);
      if (from) {
        this.hangsFromProgress(from, type, value, raw);
      }
    }
    switch (type) {
      case 'assistant':
        return this.assistant(value, raw);
      case 'user':
        return this.user(value, raw);
      case 'system':
        return this.system(value, raw);
    }
  }

  /**
   * Claude Code 2.1.2xx backs up a file before the session first changes it (`file-history-delta`),
   * naming it as the tool call did (`trackingPath`) and its folder as it is on disk, symbolic
   * links resolved (`backup.realParentDir`). They differ when the session reached the file
   * through a link (`/home/u/WORK` to `/home/u/sda2/home/u/WORK`, a real session of 2.1.223 whose
   * cwd was the real folder): a `cat` through one spelling and an Edit through the other are of
   * one file. Only an absolute `trackingPath`: a relative one is relative to a folder the record
   * does not name.
   */
  private historyDelta(value: Record<string, unknown>, raw: RawLine): void {
    const tracking = value['trackingPath'];
    const backup = value['backup'];
    const real = isRecord(backup) ? backup['realParentDir'] : undefined;
    if (typeof tracking !== 'string' || typeof real !== 'string' || !isAbsolutePath(tracking) || !isAbsolutePath(real)) {
      return;
    }
    const file = resolveAgainst(tracking, undefined);
    const to = resolveAgainst(real, undefined);
    if (file === undefined || to === undefined) {
      return;
    }
    const path = isWindowsPath(file) ? nodePath.win32 : nodePath.posix;
    const from = path.dirname(file);
    // (Never a root: `/` linked elsewhere would move every path the session knows.)
    if (from === to || path.dirname(from) === from || this.linkedFolders.get(from) === to) {
      return;
    }
    if (this.linkedFolders.size < maxLinkedFolders) {
      this.linkedFolders.set(from, to);
    }
    this.ctx.emit({ kind: 'paths-aliased', at: lineSpan(raw), from, to });
  }

  /** A chain line that emits no event: records hanging from it hang from its nearest eventful ancestor. */
  private link(value: Record<string, unknown>, raw: RawLine): void {
    const uuid = value['uuid'];
    const parent = value['parentUuid'];
    if (typeof uuid !== 'string' || (typeof parent !== 'string' && parent !== null)) {
      return;
    }
    if (this.chainLinks.size >= maxChainLinks) {
      this.chainLinks.delete(this.linkOrder[this.linkHead]!);
      this.linkHead = (this.linkHead + 1) % maxChainLinks;
    }
    if ((value['isSidechain'] === true) === (this.sidechainFile ?? false)) {
      this.noteParent(value, raw);
    }
    const size = this.chainLinks.size;
    this.chainLinks.set(uuid, this.parentOf(parent) ?? null);
    if (this.chainLinks.size > size) {
      // A new key (a uuid linked again keeps its place, as in the Map).
      this.linkOrder[(this.linkHead + size) % maxChainLinks] = uuid;
    }
    this.linkKeys.add(uuidKey(uuid));
  }

  /** The line a record hanging from `parent` hangs from in the conversation: past chain-only lines. */
  private parentOf(parent: string | null | undefined): string | null | undefined {
    if (typeof parent === 'string' && this.chainLinks.size > 0) {
      const linked = this.chainLinks.get(parent);
      if (linked !== undefined) {
        return linked;
      }
    }
    return parent;
  }

  /** A `progress` line of a call still running: remembered, for the records hung from it. */
  private progress(value: Record<string, unknown>, raw: RawLine, callId: unknown = value['parentToolUseID']): void {
    const uuid = value['uuid'];
    if (typeof callId !== 'string' || typeof uuid !== 'string' || (value['isSidechain'] === true) !== (this.sidechainFile ?? false)) {
      return;
    }
    const call = this.running.get(callId);
    if (!call) {
      return;
    }
    const at = lineSpan(raw);
    this.keepProgress(call, uuid, { callId, at });
    if (call.hungFrom) {
      // Still running after a record was hung from it: what tells a call that ran on from one
      // that died.
      this.ctx.emit({ kind: 'call-running', at, callId, by: 'progress', progressAt: at });
    }
  }

  /**
   * Remembers a line written while `call` ran, for the records hung from it. The next record hangs
   * from the last line written; a few more are kept for two writers interleaving their lines.
   */
  private keepProgress(call: RunningCall, uuid: string, from: { callId: string; at: Span }): void {
    if (call.progress.length === maxProgressKept) {
      this.progressOf.delete(call.progress.shift()!);
    }
    call.progress.push(uuid);
    this.progressOf.set(uuid, from);
  }

  /**
   * A user or assistant record whose parent is progress output of a call with no result yet.
   * A prompt typed meanwhile waits for the call (Claude Code sends the results first); an
   * assistant turn of another message means the model answered while the call still ran.
   * The call's own message (its next block, written between progress lines) is neither.
   */
  private hangsFromProgress(from: { callId: string; at: Span }, type: unknown, value: Record<string, unknown>, raw: RawLine): void {
    const call = this.running.get(from.callId);
    if (!call) {
      return;
    }
    const message = value['message'];
    let by: 'user' | 'assistant';
    if (type === 'assistant') {
      if (!isRecord(message) || message['id'] === call.messageKey) {
        return;
      }
      by = 'assistant';
    } else if (type === 'user' && isRecord(message) && value['isVisibleInTranscriptOnly'] !== true) {
      if (holdsResult(value)) {
        // Results of other calls finishing meanwhile: the usual order of a parallel batch. Still
        // written while the call ran: what hangs from them did too (a second query of the
        // session going on from its own call's result, hung from the first one's hook note).
        const uuid = value['uuid'];
        if (typeof uuid === 'string' && !this.progressOf.has(uuid)) {
          this.keepProgress(call, uuid, from);
        }
        return;
      }
      by = 'user';
    } else {
      return;
    }
    call.hungFrom = true;
    this.ctx.emit({ kind: 'call-running', at: lineSpan(raw), callId: from.callId, by, progressAt: from.at });
  }

  private noteSession(value: Record<string, unknown>, raw: RawLine): void {
    const sessionId = typeof value['sessionId'] === 'string' ? value['sessionId'] : undefined;
    const cwd = typeof value['cwd'] === 'string' ? value['cwd'] : undefined;
    const agentId = typeof value['agentId'] === 'string' ? value['agentId'] : undefined;
    if ((sessionId && sessionId !== this.sessionId) || (cwd && cwd !== this.cwd)) {
      this.sessionId = sessionId ?? this.sessionId;
      this.cwd = cwd ?? this.cwd;
      const id = this.sidechainFile && agentId ? `${this.sessionId}/agent-${agentId}` : this.sessionId;
      this.ctx.emit({
        kind: 'session',
        at: lineSpan(raw),
        agent: 'claude-code',
        ...(id !== undefined ? { sessionId: id } : {}),
        ...(this.cwd !== undefined ? { cwd: this.cwd } : {}),
        ...(typeof value['timestamp'] === 'string' ? { startedAt: value['timestamp'] } : {}),
        ...(this.sidechainFile && this.sessionId ? { parentSessionId: this.sessionId } : {}),
      });
    }
  }

  /**
   * The message an assistant record belongs to: its `message.id`, unless it is a second answer to
   * the request of the record above it, hung right below that record (same `requestId`, another
   * `message.id`). Claude Code 2.1.37 wrote a streamed answer cut short (a text, a `Bash` call)
   * and then, 28 s later, a whole answer to the same request below it (a text and two calls),
   * and ran every call of both; the next request carried the two as consecutive assistant
   * messages, which the API takes as one turn, with all three results after them, and the model
   * answered it. So they are one message here: the second is no next turn before the first's
   * results. An answer hung beside the first (from the same parent) replaces it instead, and
   * stays a message of its own.
   */
  private answerKey(value: Record<string, unknown>, id: string | undefined): string | undefined {
    const requestId = value['requestId'];
    const uuid = value['uuid'];
    let key = id === undefined ? undefined : (this.sameAnswer.get(id) ?? id);
    const last = this.lastAnswer;
    if (id !== undefined && key === id && last !== undefined && requestId === last.requestId && id !== last.key && value['parentUuid'] === last.uuid) {
      this.sameAnswer.set(id, last.key);
      key = last.key;
    }
    this.lastAnswer = key !== undefined && typeof requestId === 'string' && typeof uuid === 'string' ? { requestId, key, uuid } : undefined;
    return key;
  }

  private assistant(value: Record<string, unknown>, raw: RawLine): void {
    if (!isAssistantLine(value)) {
      this.invalid(raw, 'an assistant record without message.content');
      return;
    }
    const line = value;
    // Fields are set even when undefined: one object shape per event kind keeps V8 on its
    // fast paths, and spreading optional fields was a measurable share of the parse time.
    const messageKey = this.answerKey(value, line.message.id);
    const { timestamp, uuid } = line;
    const parentUuid = this.parentOf(line.parentUuid);
    const content = line.message.content;
    const model = (line.message as Record<string, unknown>)['model'];
    const synthetic = model === '<synthetic>';
    for (let b = 0; b < content.length; b++) {
      const block = content[b]!;
      if (block.type === 'tool_use') {
        if (!isToolUseBlock(block)) {
          this.invalid(raw, 'a tool_use block without id or name');
          continue;
        }
        const { id, name, input } = block;
        const cls = classifyToolCall('claude-code', name, input, this.cwd);
        const accesses: FileAccess[] = cls.accesses;
        for (let i = 0; i < accesses.length; i++) {
          const a = accesses[i]!;
          a.span = pathSpan(raw, input, a.path);
        }
        if (this.mounts !== undefined || (entrypointOf(value) === 'local-agent' && (this.mounts = new VmMounts()))) {
          this.placeMounted(accesses, raw);
        }
        const note: CallNote = { tool: name };
        if (accesses[0]) {
          note.path = accesses[0].path;
        }
        if (name === 'MultiEdit' && isRecord(input) && Array.isArray(input['edits'])) {
          note.edits = input['edits'].filter(isEdit);
        }
        if (name === 'Workflow' && isRecord(input) && typeof input['script'] === 'string') {
          note.script = input['script'];
        }
        if (name === 'Bash' && isRecord(input) && typeof input['command'] === 'string' && diffsWorkingTree(input['command'])) {
          note.workingTreeDiff = true;
        }
        if (cls.scaffold) {
          note.scaffold = cls.scaffold;
        }
        if (name === 'Grep' && isRecord(input)) {
          const where = typeof input['path'] === 'string' ? resolveAgainst(input['path'], this.cwd) : this.cwd;
          if (where !== undefined) {
            note.grepPath = where;
          }
        }
        this.calls.set(id, note);
        this.running.set(id, { messageKey, progress: [] });
        this.ctx.emit({
          kind: 'call',
          at: valueSpan(raw, id, 'id'),
          callId: id,
          tool: name,
          category: cls.category,
          ...(cls.rewrites ? { rewrites: cls.rewrites } : {}),
          accesses,
          inputHash: this.ctx.hashInputs ? inputHash(input) : undefined,
          messageKey,
          timestamp,
          uuid,
          parentUuid,
          ...(typeof model === 'string' ? { model } : {}),
        });
      } else if (block.type === 'text' || block.type === 'thinking' || block.type === 'redacted_thinking') {
        const e: TextEvent = { kind: 'text', at: lineSpan(raw), role: 'assistant', prompt: false, messageKey, timestamp, uuid, parentUuid };
        if (typeof model === 'string' && !synthetic) {
          e.model = model;
        }
        if (synthetic) {
          e.synthetic = true;
          if (isTextBlock(block) && block.text === 'No response requested.') {
            e.unsent = true;
          }
        }
        this.ctx.emit(e);
      }
    }
  }

  /**
   * A local-agent session's paths in the VM, as the host paths its file tools use (the span stays
   * on the path as written); a host path that places a mount first carries what the session knew
   * under it over.
   */
  private placeMounted(accesses: FileAccess[], raw: RawLine): void {
    for (const a of accesses) {
      const placed = this.mounts!.place(a.path, a.glob === true);
      a.path = placed.path;
      for (const alias of placed.learned ?? []) {
        this.ctx.emit({ kind: 'paths-aliased', at: lineSpan(raw), from: alias.from, to: alias.to });
      }
    }
  }

  private user(value: Record<string, unknown>, raw: RawLine, released = false): void {
    const sourceToolUseId = value['sourceToolUseID'];
    if (!isUserLine(value)) {
      this.invalid(raw, 'a user record without message.content');
      return;
    }
    const line = value;
    if (!released && this.answersUnreadRecord(line.message.content, value)) {
      const key = heldKey(value)!;
      const list = this.early.get(key);
      if (list) {
        list.push({ value, raw });
      } else {
        this.early.set(key, [{ value, raw }]);
      }
      this.earliestHeld = Math.min(this.earliestHeld, raw.lineNo);
      return;
    }
    if (line.isVisibleInTranscriptOnly && !line.isCompactSummary) {
      this.link(value, raw);
      return;
    }
    // Early builds (1.0.17 in the twentieth set) marked no summary with `isCompactSummary`: there its
    // fixed opening says what it is. (Only there: a person may paste such a text as a prompt.)
    const summary = line.isCompactSummary === true || (line.parentUuid === null && line.isCompactSummary === undefined && unmarkedSummaries((value as Record<string, unknown>)['version']) && continuesSession(line.message.content));
    if (summary && line.parentUuid === null && !this.answered) {
      // Claude Code 1.0.x wrote no compact_boundary: a file whose conversation starts with the
      // summary, as a root, continues a session whose history is in another file.
      this.ctx.emit({ kind: 'reset', at: lineSpan(raw), reason: 'compaction', elsewhere: true });
    }
    const common: Stamp = { timestamp: line.timestamp, uuid: line.uuid, parentUuid: this.parentOf(line.parentUuid) };
    const content = line.message.content;
    // Text Claude Code writes for a tool, naming the call in `sourceToolUseID` (a Skill's
    // instructions, meta; a slash command's `<command-message>` line, not meta, in 2.0.x), goes
    // to the model with the results, like text typed while tools ran: a sibling call's result
    // after it is still in place. No person's prompt names a call.
    const forTool = typeof sourceToolUseId === 'string';
    if (typeof content === 'string') {
      this.userText(content, line.isMeta === true || summary, raw, common, this.resultsFirstOf(value), forTool, line.isMeta === true);
      return;
    }
    let resultBlocks = 0;
    for (let b = 0; b < content.length; b++) {
      if (content[b]!.type === 'tool_result') {
        resultBlocks++;
      }
    }
    for (let b = 0; b < content.length; b++) {
      const block = content[b]!;
      if (block.type === 'tool_result') {
        if (!isToolResultBlock(block)) {
          this.invalid(raw, 'a tool_result block without tool_use_id');
          continue;
        }
        // toolUseResult describes the line's single result; with several it is ambiguous.
        const meta = resultBlocks === 1 ? line.toolUseResult : undefined;
        const result = this.result(block, meta, raw, common);
        this.ctx.emit(result);
        const called = result.isError ? undefined : this.calls.get(block.tool_use_id);
        if (called?.grepPath !== undefined) {
          this.grepOutput(called.grepPath, isRecord(meta) && meta['mode'] === 'content' ? meta['content'] : block.content, raw);
        } else if (called?.workingTreeDiff) {
          this.diffOutput(isRecord(meta) && typeof meta['stdout'] === 'string' ? meta['stdout'] : block.content, raw);
        } else if (this.calls.get(block.tool_use_id)?.tool === 'Bash') {
          // A linter's findings are shown to the model whatever its exit code (ruff exits 1).
          this.snippetOutput(isRecord(meta) && typeof meta['stdout'] === 'string' ? meta['stdout'] : resultText(block.content), raw);
        }
        if (called?.scaffold) {
          const output = isRecord(meta) && typeof meta['stdout'] === 'string' ? meta['stdout'] : resultText(block.content);
          for (const path of output === undefined ? [] : called.scaffold.of.files(output, called.scaffold.cwd)) {
            this.ctx.emit({ kind: 'file-created', at: lineSpan(raw), path });
          }
        }
      } else if (block.type === 'text') {
        // Text in a record of results is what the person typed while the tools ran: Claude
        // Code hands it to the model with the results (real sessions go on normally after
        // it, even with another call of the batch still to answer).
        // A compaction summary written as blocks is Claude Code's, as it is written as a string.
        this.userText(isTextBlock(block) ? block.text : '', line.isMeta === true || summary, raw, common, this.resultsFirstOf(value), resultBlocks > 0 || forTool, line.isMeta === true);
      }
    }
  }

  /** Does the build that wrote this user record send its text after the results (see putsResultsFirst)? */
  private resultsFirstOf(value: Record<string, unknown>): boolean {
    const version = value['version'];
    if (version !== this.versionAsked) {
      this.versionAsked = version;
      this.versionResultsFirst = putsResultsFirst(version);
    }
    return this.versionResultsFirst;
  }

  /**
   * A result record written ahead of its call's record: its first result names a call not
   * read yet, and the record it hangs from (`sourceToolAssistantUUID`, else `parentUuid`) has
   * not been read either.
   */
  private answersUnreadRecord(content: unknown, value: Record<string, unknown>): boolean {
    if (!Array.isArray(content)) {
      return false;
    }
    const first: unknown = content.find((b) => isRecord(b) && b['type'] === 'tool_result');
    const id = isRecord(first) ? first['tool_use_id'] : undefined;
    if (typeof id !== 'string' || this.calls.has(id)) {
      return false;
    }
    const parent = heldKey(value);
    return parent !== undefined && !this.seenUuids.has(parent);
  }

  /**
   * `expanded`: meta text Claude Code wrote from a command or skill file (a custom slash command's
   * content, a Skill's instructions): it reads the files such text names with `@` into the
   * context, as it does a prompt's (a model quoted such a file word for word with no read in the
   * transcript).
   */
  private userText(text: string, meta: boolean, raw: RawLine, common: Stamp, resultsFirst: boolean, attached = false, expanded = false): void {
    const prompt = !attached && !meta && !nonPromptText.test(text.trimStart());
    const mentions = (prompt || expanded) && text.includes('@') ? mentionedFiles(text, this.cwd) : undefined;
    this.ctx.emit({
      kind: 'text',
      at: lineSpan(raw),
      role: 'user',
      prompt,
      preview: prompt ? preview(text) : undefined,
      timestamp: common.timestamp,
      uuid: common.uuid,
      parentUuid: common.parentUuid,
      attached,
      ...(resultsFirst ? { resultsFirst: true as const } : {}),
      ...(mentions && mentions.length > 0 ? { mentions } : {}),
    });
  }

  private result(
    block: { tool_use_id: string; content?: unknown; is_error?: boolean | null | undefined },
    meta: unknown,
    raw: RawLine,
    common: Stamp,
  ): ToolResult {
    const id = block.tool_use_id;
    const note = this.calls.get(id);
    const running = this.running.get(id);
    if (running) {
      for (const u of running.progress) {
        this.progressOf.delete(u);
      }
      this.running.delete(id);
    }
    const isError = block.is_error === true;
    const result: ToolResult = {
      kind: 'result',
      at: valueSpan(raw, id, 'tool_use_id'),
      callId: id,
      isError,
      placeholder: isPlaceholderContent(block.content),
      timestamp: common.timestamp,
      uuid: common.uuid,
      parentUuid: common.parentUuid,
    };
    if (isError && refusedBeforeRunning.test(resultText(block.content) ?? '')) {
      result.refused = true;
    }
    // An error result's metadata is its message (a string); anything but an object here is a
    // shape no version writes, and says nothing about files.
    if (typeof meta !== 'object' || meta === null || isError) {
      return result;
    }
    // Tell the shapes apart by their keys before validating: a failed zod parse builds a full
    // error report, far too costly to use as a type test on every result.
    const m = meta as Record<string, unknown>;
    if ('file' in m) {
      if (isReadResult(meta)) {
        const f = meta.file;
        result.shape = 'read';
        result.filePath = f.filePath;
        // A side-question agent's copy of the session (2.1.92's `agent-aside_question-*`) keeps
        // each Read's line counts but empties its `content`: lines read, their text not kept. Not
        // an empty file (that is one line, or none), so the read says nothing of what the file held.
        const emptied = f.content === '' && f.numLines !== undefined && f.numLines > 1;
        if (meta.type === 'text' && typeof f.content === 'string' && !emptied && !utf16ReadAsUtf8(f.content) && f.startLine !== undefined && f.numLines !== undefined && f.totalLines !== undefined) {
          result.read = { path: f.filePath, content: withoutBom(f.content), startLine: readStart(f.startLine, f.totalLines), numLines: f.numLines, totalLines: f.totalLines };
        }
        return result;
      }
    } else if ('filePath' in m) {
      if (isWriteResult(meta)) {
        const w = meta;
        result.filePath = w.filePath;
        result.shape = w.type !== undefined ? 'write' : 'edit';
        const snap = writeSnapshot(w, note);
        if (snap) {
          result.write = snap;
        }
        return result;
      }
    } else if ('stdout' in m && isShellResult(meta)) {
      result.shape = 'shell';
      return result;
    } else if (note?.script !== undefined && typeof m['scriptPath'] === 'string') {
      // The session wrote this script itself: the file it lands in is its own, content known.
      result.saved = { path: m['scriptPath'], content: note.script };
    }
    result.shape = 'other';
    return result;
  }

  /**
   * An attachment is not a message, but some kinds show the model a file: `edited_text_file`,
   * written when a file the session knows changed under it (a formatter run by a hook, the
   * user), with numbered lines of it (`N\ttext`, runs separated by `...`); a file attached after
   * a compaction; a nested CLAUDE.md (`nested_memory`).
   */
  private attachment(a: unknown, raw: RawLine): void {
    if (isRecord(a) && (a['type'] === 'file' || a['type'] === 'compact_file_reference') && typeof a['filename'] === 'string') {
      this.attachedFile(a, a['filename'], raw);
      return;
    }
    if (isRecord(a) && a['type'] === 'nested_memory' && typeof a['path'] === 'string') {
      // A CLAUDE.md of a folder the session worked in, put before the model whole (Claude Code
      // 2.1.x). Seen, its content not taken as the file's: Claude Code may have processed it
      // (`contentDiffersFromDisk`).
      const path = resolveAgainst(a['path'], this.cwd);
      if (path !== undefined) {
        this.ctx.emit({ kind: 'file-attached', at: lineSpan(raw), path });
      }
      return;
    }
    if (isRecord(a) && a['type'] === 'hook_additional_context') {
      this.hookNote(a, raw);
      return;
    }
    if (!isRecord(a) || a['type'] !== 'edited_text_file' || typeof a['filename'] !== 'string' || typeof a['snippet'] !== 'string') {
      return;
    }
    const path = resolveAgainst(a['filename'], this.cwd);
    const views = numberedRuns(a['snippet']);
    if (path !== undefined && views.length > 0) {
      this.ctx.emit({ kind: 'file-shown', at: lineSpan(raw), path, views });
    }
  }

  /**
   * Claude Code's own note (`isOwnText`) that a `PostToolUse` hook changed the file the call
   * wrote (2.1.332: a formatter run by the project's hooks). A hook's own words (`isOwnText`
   * false) are not taken: anything may be written there.
   */
  private hookNote(a: Record<string, unknown>, raw: RawLine): void {
    const content = a['content'];
    const hook = a['hookName'];
    if (a['isOwnText'] !== true || a['hookEvent'] !== 'PostToolUse' || typeof hook !== 'string' || !Array.isArray(content)) {
      return;
    }
    for (const text of content) {
      const m = typeof text === 'string' ? hookModified.exec(text) : null;
      const path = m ? resolveAgainst(m[1]!, this.cwd) : undefined;
      if (path !== undefined) {
        this.ctx.emit({ kind: 'file-changed-by-hook', at: lineSpan(raw), path, hook });
      }
    }
  }

  /**
   * A file Claude Code attached after a compaction: `file` shows its content (`content.file`,
   * the shape of a Read result), `compact_file_reference` names a file read before the
   * compaction without showing it again.
   */
  private attachedFile(a: Record<string, unknown>, filename: string, raw: RawLine): void {
    const path = resolveAgainst(filename, this.cwd);
    if (path === undefined) {
      return;
    }
    const content = a['content'];
    const file = a['type'] === 'file' && isRecord(content) && content['type'] === 'text' ? content['file'] : undefined;
    if (
      isRecord(file) &&
      typeof file['content'] === 'string' &&
      !utf16ReadAsUtf8(file['content']) &&
      typeof file['startLine'] === 'number' &&
      typeof file['numLines'] === 'number' &&
      typeof file['totalLines'] === 'number'
    ) {
      const read = { path, content: withoutBom(file['content']), startLine: readStart(file['startLine'], file['totalLines']), numLines: file['numLines'], totalLines: file['totalLines'] };
      this.ctx.emit({ kind: 'file-attached', at: lineSpan(raw), path, read });
    } else {
      // Seen, content unknown (a reference, or a shape this does not read).
      this.ctx.emit({ kind: 'file-attached', at: lineSpan(raw), path });
    }
  }

  /**
   * Lines of files a Grep printed with their line numbers (`N:text`, or `path:N:text` for
   * several files): the session saw those lines as they were then. A glimpse, not a read; of
   * one file searched alone, a look at it (see FileShownEvent.searched).
   */
  private grepOutput(searched: string, output: unknown, raw: RawLine): void {
    if (typeof output !== 'string' || output.length === 0) {
      return;
    }
    const byFile = new Map<string, { start: number; lines: string[] }[]>();
    const add = (path: string, n: number, text: string): void => {
      let views = byFile.get(path);
      if (!views) {
        views = [];
        byFile.set(path, views);
      }
      addLine(views, n, text);
    };
    const lines = output.split('\n');
    // One file searched: no path before the numbers, and context lines as `N-text`.
    const oneFile = lines.every((l) => l === '' || l === '--' || /^\d+[:-]/.test(l));
    for (const l of lines) {
      const m = oneFile ? /^(\d+)[:-]/.exec(l) : /^(.+?):(\d+):/.exec(l);
      if (!m) {
        continue;
      }
      const n = Number(oneFile ? m[1] : m[2]);
      const path = oneFile ? searched : resolveAgainst(m[1]!, this.cwd);
      if (n >= 1 && path !== undefined) {
        add(path, n, l.slice(m[0].length));
      }
    }
    for (const [path, views] of byFile) {
      this.ctx.emit({ kind: 'file-shown', at: lineSpan(raw), path, views, glimpse: true, ...(oneFile ? { searched: true as const } : {}) });
    }
  }

  /**
   * A `git diff` of the working tree printed the new side of each hunk (context and added
   * lines, from `+c` of `@@ -a,b +c,d @@`): lines of the files as they are. A glimpse.
   */
  private diffOutput(output: unknown, raw: RawLine): void {
    if (typeof output !== 'string' || !output.includes('@@')) {
      return;
    }
    this.glimpses(diffViews(output), raw);
  }

  /** Lines of files some output printed, by file as it names them (relative to the session's folder): glimpses. */
  private glimpses(byFile: Map<string, { start: number; lines: string[] }[]>, raw: RawLine): void {
    for (const [file, views] of byFile) {
      const path = resolveAgainst(file, this.cwd);
      if (path !== undefined) {
        this.ctx.emit({ kind: 'file-shown', at: lineSpan(raw), path, views, glimpse: true });
      }
    }
  }

  /**
   * Source lines a compiler or linter printed with their numbers around a diagnostic (see
   * snippetViews): the session saw those lines as they were then. A glimpse.
   */
  private snippetOutput(output: unknown, raw: RawLine): void {
    if (typeof output !== 'string' || !output.includes('--> ')) {
      return;
    }
    this.glimpses(snippetViews(output), raw);
  }

  private system(value: Record<string, unknown>, raw: RawLine): void {
    const logicalParent = value['logicalParentUuid'];
    if (isSystemLine(value) && value.subtype === 'compact_boundary') {
      const reset: ResetEvent = { kind: 'reset', at: lineSpan(raw), reason: 'compaction' };
      // The compaction helper's copy of a session, and any other sub-agent file that begins at a
      // compaction (2.1.88's side-question agents, `agent-aside_question-*`, copy the session
      // from its last one): the history before it is in the session's own file. (A main file
      // that starts so is judged on what it holds: see write-before-read's tests.)
      if ((this.compactHelper || (!this.started && this.sidechainFile === true)) && !this.answered) {
        reset.elsewhere = true;
      }
      // Past chain-only lines (a hook's attachment, a system note), as a record's parent is.
      const continues = typeof logicalParent === 'string' ? this.parentOf(logicalParent) : undefined;
      if (typeof continues === 'string') {
        reset.continues = continues;
      }
      this.ctx.emit(reset);
    }
    if (isSystemLine(value) && value.subtype === 'api_error' && typeof value.parentUuid === 'string') {
      // The request failed and is sent again: its history ends where this record hangs (past
      // chain-only lines; the next attempt's record hangs from this one).
      const parent = this.parentOf(value.parentUuid);
      if (typeof parent === 'string') {
        this.ctx.emit({ kind: 'request-retried', at: lineSpan(raw), parentUuid: parent });
      }
    }
    if (typeof value['toolUseID'] === 'string' && this.running.size > 0) {
      // A hook's note on a call (Claude Code 2.0.x: "PreToolUse:Bash [...] completed
      // successfully", naming the call by `toolUseID`) is written as the call starts: while it
      // has no result, a record hung from the note was written while it ran, as one hung from
      // its progress output is (a second query of the session, 2.0.1–2.0.5, going on from it).
      this.progress(value, raw, value['toolUseID']);
    }
    this.link(value, raw);
  }

  private invalid(raw: RawLine, what: string): void {
    this.ctx.emit({ kind: 'malformed', at: lineSpan(raw), reason: 'invalid-shape', detail: `${what} (Claude Code)` });
  }
}

/**
 * `@path` and `@"path with spaces"` in a prompt: the files Claude Code reads into the context
 * for the model (and then lets it edit without a Read). Only after whitespace or at the start,
 * so an e-mail address is not one; trailing punctuation is the sentence's, not the path's.
 * A word that is not a path (`@types/node`, a decorator) only marks a file that is never written.
 */
function mentionedFiles(text: string, cwd: string | undefined): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|\s)@(?:"([^"\n]+)"|([^\s"'`]+))/g)) {
    const raw = m[1] ?? m[2]!.replace(/[.,;:!?)\]}>]+$/, '');
    const path = raw ? resolveAgainst(raw, cwd) : undefined;
    if (path !== undefined) {
      out.push(path);
    }
  }
  return out;
}

/** `12\tline` runs of a numbered snippet, each from its first line number; anything else ends a run. */
function numberedRuns(snippet: string): { start: number; lines: string[] }[] {
  const runs: { start: number; lines: string[] }[] = [];
  for (const line of snippet.split('\n')) {
    const m = /^(\d+)\t/.exec(line);
    if (m && Number(m[1]) >= 1) {
      addLine(runs, Number(m[1]), line.slice(m[0].length));
    }
  }
  return runs;
}

/** Line `n` of a file, added to the run it continues, else as a new run. */
function addLine(runs: { start: number; lines: string[] }[], n: number, text: string): void {
  const last = runs[runs.length - 1];
  if (last && n === last.start + last.lines.length) {
    last.lines.push(text);
  } else {
    runs.push({ start: n, lines: [text] });
  }
}

/**
 * Does this command print a `git diff` whose new side is the working tree? Not with
 * `--cached`/`--staged`, a range (`a..b`), `--no-index`, or piped into something that changes
 * its lines; `git -C` and a second revision are not told apart from paths, which only makes a
 * glimpse of lines that do not match (and so clear nothing).
 */
export function diffsWorkingTree(command: string): boolean {
  // Any one `git diff` of the command line will do (`git diff --stat && git diff a.css`). Asked of
  // every Bash call: one without the word is answered before the pattern is tried at each position.
  if (!command.includes('git')) {
    return false;
  }
  for (const m of command.matchAll(/(?:^|&&|;|\|\|)\s*git\s+diff\b([^|;&]*)(\|\s*(?:head|tail|cat|less)\b[^|;&]*)?\s*(?=$|&&|;|\|\|)/g)) {
    if (!/(?:^|\s)--(?:cached|staged|no-index|stat|name-only|name-status|shortstat|numstat|color(?:=always)?|word-diff\S*)\b|\.\./.test(m[1]!)) {
      return true;
    }
  }
  return false;
}

/** The new side of each hunk of a unified diff, per file (as the diff names it, `b/` dropped). */
export function diffViews(output: string): Map<string, { start: number; lines: string[] }[]> {
  const out = new Map<string, { start: number; lines: string[] }[]>();
  let file: string | undefined;
  let view: { start: number; lines: string[] } | undefined;
  let remaining = 0;
  for (const line of output.split('\n')) {
    if (remaining > 0 && view && file !== undefined) {
      const tag = line[0];
      if (tag === ' ' || tag === '+') {
        view.lines.push(line.slice(1));
        remaining--;
        continue;
      }
      if (tag === '-' || tag === '\\') {
        continue;
      }
      remaining = 0;
    }
    if (line.startsWith('+++ ')) {
      const name = line.slice(4);
      file = name.startsWith('b/') ? name.slice(2) : undefined;
      continue;
    }
    const h = file !== undefined ? /^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@/.exec(line) : null;
    if (h) {
      remaining = h[2] === undefined ? 1 : Number(h[2]);
      view = { start: Number(h[1]), lines: [] };
      if (remaining > 0 && view.start >= 1) {
        let views = out.get(file!);
        if (!views) {
          views = [];
          out.set(file!, views);
        }
        views.push(view);
      }
    }
  }
  return out;
}

/**
 * The numbered source lines of compiler and linter diagnostics, per file as each names it: ruff,
 * rustc and clippy (and others using the same layout) print `--> path:LINE:COL`, then the lines
 * around it as `NNN | text` (an empty source line as `NNN |`), with unnumbered `|` lines for the
 * markers. A block ends at the first line of another shape.
 */
export function snippetViews(output: string): Map<string, { start: number; lines: string[] }[]> {
  const out = new Map<string, { start: number; lines: string[] }[]>();
  let views: { start: number; lines: string[] }[] | undefined;
  for (const line of output.split('\n')) {
    const head = /^\s*--> (.+?):(\d+):\d+\s*$/.exec(line);
    if (head) {
      const file = head[1]!;
      views = out.get(file);
      if (!views) {
        views = [];
        out.set(file, views);
      }
      continue;
    }
    if (!views) {
      continue;
    }
    const row = /^\s*(\d+) \|(?: (.*))?$/.exec(line);
    if (row) {
      addLine(views, Number(row[1]), row[2] ?? '');
    } else if (!/^\s*(?:\||\.\.\.)/.test(line)) {
      views = undefined;
    }
  }
  for (const [file, v] of out) {
    if (v.length === 0) {
      out.delete(file);
    }
  }
  return out;
}

/** The call ids a user record's tool_result blocks answer. */
function resultIds(value: Record<string, unknown>): string[] {
  const message = value['message'];
  const content = isRecord(message) ? message['content'] : undefined;
  if (!Array.isArray(content)) {
    return [];
  }
  return content.flatMap((b: unknown) => (isRecord(b) && b['type'] === 'tool_result' && typeof b['tool_use_id'] === 'string' ? [b['tool_use_id']] : []));
}

/** The record a result hangs from: Claude Code names it twice, the explicit name first. */
function heldKey(value: Record<string, unknown>): string | undefined {
  const source = value['sourceToolAssistantUUID'];
  if (typeof source === 'string') {
    return source;
  }
  const parent = value['parentUuid'];
  return typeof parent === 'string' ? parent : undefined;
}

function isEdit(v: unknown): v is { old_string: string; new_string: string; replace_all?: boolean } {
  return isRecord(v) && typeof v['old_string'] === 'string' && typeof v['new_string'] === 'string';
}

function pathSpan(raw: RawLine, input: unknown, absolute: string): Span {
  if (isRecord(input)) {
    for (const key of ['file_path', 'notebook_path', 'filePath', 'path']) {
      const v = input[key];
      if (typeof v === 'string') {
        return valueSpan(raw, v, key);
      }
    }
  }
  return valueSpan(raw, absolute);
}

type WriteMeta = ReturnType<typeof writeResultSchema.parse>;

/**
 * A UTF-16 file shown as if it were UTF-8: its byte-order mark (FF FE, or FE FF), not UTF-8, came
 * out as two U+FFFD, and each character of its text as that character and a NUL. Claude Code
 * 2.1.17's Read showed a UTF-16LE file so on Windows while the Write that followed decoded it
 * (`originalFile` with U+FEFF and the text): the same bytes, two texts. What the session saw
 * cannot be compared line for line with the file, so such a read shows the file without telling
 * what it held (as a `cat` does). A NUL anywhere after the two U+FFFD (text files hold none; in
 * UTF-16 every ASCII character, line breaks included, brings one) tells it from a file in another
 * encoding that merely begins with bytes UTF-8 rejects (GBK, CP1252), which both records show alike.
 */
function utf16ReadAsUtf8(text: string): boolean {
  return text.charCodeAt(0) === 0xfffd && text.charCodeAt(1) === 0xfffd && text.indexOf('\u0000', 2) !== -1;
}

/** A file's text without a leading UTF-8 byte-order mark, which some versions show and some do not. */
function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * How much rebuilding a MultiEdit may cost: its edits times its file's length in characters
 * (a real one has a few dozen edits: 32 of a 1 MB file).
 */
const maxEditWork = 32_000_000;

/** Rebuilds what an Edit/MultiEdit/Write replaced and produced, from Claude Code's own record. */
function writeSnapshot(w: WriteMeta, note: CallNote | undefined): WriteSnapshot | undefined {
  // Claude Code's Read shows a file without its UTF-8 byte-order mark, while originalFile keeps it
  // (Windows files, 2.1.143–2.1.145): without the mark, line 1 is what the session read. (1.0.x
  // kept it in both: both are read without it.)
  const original = w.originalFile ?? w.originalFileContents ?? null;
  const before = original !== null ? withoutBom(original) : null;
  if (w.originalFile === undefined && w.originalFileContents === undefined && w.type !== 'create') {
    return undefined;
  }
  const type: 'create' | 'update' = w.type ?? (before === null ? 'create' : 'update');
  const replaced = (w.structuredPatch ?? []).map(changedLines);
  let after: string | undefined;
  if (w.type !== undefined) {
    after = w.content;
    if (type === 'update' && before !== null) {
      replaced.length = 0;
      replaced.push({ start: 1, count: countLines(before) });
      if (after !== undefined) {
        return { path: w.filePath, type, before, after, replaced, whole: true };
      }
    }
  } else if (before !== null) {
    const edits = w.oldString !== undefined && w.newString !== undefined
      ? [{ old_string: w.oldString, new_string: w.newString, replace_all: w.replaceAll ?? false }]
      : (w.edits ?? note?.edits ?? []);
    if (before === '' && edits.some((e) => e.old_string !== '')) {
      // An edit found its old_string, so the file was not empty: its `originalFile` was emptied
      // (2.1.92's side-question agent, `agent-aside_question-*`, keeps no file text in its copy
      // of the session). What the file held, and became, is unknown.
      return undefined;
    }
    if (edits.length * before.length > maxEditWork) {
      // Each edit is looked for in the whole file, as the edits before it left it: thousands of
      // edits of a large file made one record cost seconds to minutes (5,000 of a 20,000-line
      // file: 19 s). Neither what the file became nor which lines the edits quoted is worked out:
      // the write is one whose content is unknown, which claims nothing (no edit is judged
      // without the lines it quoted, which only ever clear a change).
      return undefined;
    }
    // A memory file's edit also changed its `modified:` stamp, which only the patch shows:
    // the file is what the patch made of it, not what the edit's strings make of it.
    after = (w.memdirStamped === true && w.structuredPatch ? applyHunks(before, w.structuredPatch) : undefined) ?? applyEdits(before, edits);
    const quoted = quotedLines(before, edits);
    if (quoted.length > 0) {
      // An edit replaces what its old_string matched, nothing else: where every old_string was
      // found, that is the replaced region (the patch's diff may align the same change as removals
      // beyond it). A memory file's stamp is Claude Code's own rewrite on top: its patch is kept.
      const located = quoted.length === edits.length && w.memdirStamped !== true;
      return { path: w.filePath, type, before, ...(after !== undefined ? { after } : {}), replaced: located ? quoted : replaced, quoted };
    }
  }
  return { path: w.filePath, type, before, ...(after !== undefined ? { after } : {}), replaced };
}

/**
 * Applies a structuredPatch to the text it was made against. Undefined when a hunk's context
 * or removed lines do not match, or the patch has a shape this does not follow (an insertion
 * with no old lines, a "no newline at end of file" marker): the caller then falls back.
 */
export function applyHunks(text: string, hunks: readonly { oldStart: number; oldLines: number; lines?: string[] | undefined }[]): string | undefined {
  const finalNewline = text.endsWith('\n');
  const old = text.split('\n');
  if (finalNewline) {
    old.pop();
  }
  const out: string[] = [];
  let i = 0;
  for (const h of hunks) {
    const start = h.oldStart - 1;
    if (!h.lines || h.oldLines === 0 || start < i || start > old.length) {
      return undefined;
    }
    while (i < start) {
      out.push(old[i++]!);
    }
    for (const l of h.lines) {
      const body = l.slice(1);
      switch (l[0]) {
        case ' ':
        case '-':
          if (old[i] !== body) {
            return undefined;
          }
          i++;
          if (l[0] === ' ') {
            out.push(body);
          }
          break;
        case '+':
          out.push(body);
          break;
        default:
          return undefined;
      }
    }
  }
  while (i < old.length) {
    out.push(old[i++]!);
  }
  return out.join('\n') + (finalNewline ? '\n' : '');
}

/**
 * The old lines a hunk removed or replaced. Claude Code's hunks carry up to three lines of
 * context on each side, unchanged by the write: counting them as replaced made a change the
 * session never saw, next to an edit but outside it (a formatter's, say), look like one the
 * edit overwrote. A hunk that only adds lines replaced none: its region is the insertion point.
 */
function changedLines(h: { oldStart: number; oldLines: number; lines?: string[] | undefined }): { start: number; count: number } {
  const lines = h.lines;
  if (!lines || lines.length === 0) {
    return { start: h.oldStart, count: h.oldLines };
  }
  let lead = 0;
  while (lead < lines.length && lines[lead]!.startsWith(' ')) {
    lead++;
  }
  if (lead === lines.length) {
    // Context only: nothing to trim against.
    return { start: h.oldStart, count: h.oldLines };
  }
  // From the end: context lines, passing over "\ No newline at end of file" markers (no line of their own).
  let trail = 0;
  for (let i = lines.length - 1; i > lead; i--) {
    const l = lines[i]!;
    if (l.startsWith(' ')) {
      trail++;
    } else if (!l.startsWith('\\')) {
      break;
    }
  }
  return { start: h.oldStart + lead, count: Math.max(0, h.oldLines - lead - trail) };
}

/** Applies Edit-style replacements; undefined when one does not apply (the result is then unknown). */
function applyEdits(text: string, edits: readonly { old_string: string; new_string: string; replace_all?: boolean | undefined }[]): string | undefined {
  let out = text;
  for (const e of edits) {
    if (e.old_string === '') {
      // An empty old_string means "create/replace the whole file" in Claude Code.
      out = e.new_string;
      continue;
    }
    if (!out.includes(e.old_string)) {
      return undefined;
    }
    // As Claude Code applies it: deleting lines (an empty new_string) takes the line break after
    // them too, so no blank line is left where they were (its structuredPatch shows the same).
    const old = e.new_string === '' && !e.old_string.endsWith('\n') && out.includes(e.old_string + '\n') ? e.old_string + '\n' : e.old_string;
    out = e.replace_all ? out.split(old).join(e.new_string) : out.replace(old, () => e.new_string);
  }
  return out;
}

/** The program that wrote the record (`cli`, `sdk-ts`, `local-agent`, …), read loosely: no schema needs it. */
function entrypointOf(value: object): unknown {
  return (value as Record<string, unknown>)['entrypoint'];
}

/** The opening of the summary Claude Code starts a continued session with (its wording since 1.0). */
const continuedOpening = 'This session is being continued from a previous conversation that ran out of context. The conversation is summarized below';

/** Did this Claude Code build write a summary without `isCompactSummary`? 1.0.x did, or may have. */
function unmarkedSummaries(version: unknown): boolean {
  return typeof version !== 'string' || version.startsWith('1.0.');
}

/**
 * Does this Claude Code build put the tool results first when it merges user text and results
 * into one message? From 2.0.19 on, the function that builds each request from the messages
 * (normalizeMessagesForAPI, read in the builds published on npm) merges consecutive user
 * messages and moves their `tool_result` blocks to the front; 2.0.15 and before joined them in
 * order, text first, which the API refuses after calls ("Did not find 1 tool_result block(s) at
 * the beginning of this message"). A record naming no version is judged as the older builds.
 */
function putsResultsFirst(version: unknown): boolean {
  const m = typeof version === 'string' ? /^(\d+)\.(\d+)\.(\d+)/.exec(version) : null;
  if (!m) {
    return false;
  }
  const [major, minor, patch] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return major > 2 || (major === 2 && (minor > 0 || patch >= 19));
}

/** Is this user content the summary a continued session starts with? */
function continuesSession(content: unknown): boolean {
  const first = typeof content === 'string' ? content : Array.isArray(content) ? (content as { type?: unknown; text?: unknown }[]).find((b) => b?.type === 'text')?.text : undefined;
  return typeof first === 'string' && first.trimStart().startsWith(continuedOpening);
}

/** Claude Code's note after a `PostToolUse` hook changed the file a call wrote (2.1.332). */
const hookModified = /^PostToolUse hook modified (.+?) after your edit \(likely a formatter\)/;

/**
 * What Claude Code answers for a call that never ran: the person refused it at the permission
 * prompt, a PreToolUse hook blocked it, permission was denied (or, where nobody could be asked, not
 * granted: `-p` and the SDK), or the tool rejected its input.
 */
const refusedBeforeRunning =
  /^(?:The user doesn\u2019t want to|The user doesn't want to|<tool_use_error>|Permission to use \S+ has been denied|Claude requested permissions to .*, but you haven't granted it yet|PreToolUse:\S+ hook (?:error|blocked)|Hook PreToolUse:\S+ denied)/;
