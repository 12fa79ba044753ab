import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { appendFile, readFile, rename } from 'node:fs/promises';
import type { FiledGuardDecision, GuardDecisionRecord, HookLedgerView } from '../../core/engine/rule';
import type { GuardHit, HookAgent, Verdict } from '../../core/guard/types';
import { errnoCode } from '../../core/lib/errors';
import { describeError, nullLogger, type Logger } from '../../core/lib/logger';
import type { AccessOp } from '../../core/model/events';

/** One call the guard hook reported (a JSONL line of the ledger file, with `"v":1`). */
export interface LedgerEntry {
  kind: 'pre' | 'post';
  at: number;
  agent: HookAgent;
  sessionId: string;
  transcriptPath?: string;
  tool: string;
  toolUseId?: string;
  inputHash?: string;
  /** Names the call where the hook gives no id (Gemini): unique per ledger. */
  seq: string;
  paths: { path: string; op: AccessOp; hash?: string | null }[];
  /** pre: what the guard answered. */
  verdict?: { action: Verdict['action']; hits: GuardHit[] };
  failed?: boolean;
}

interface DecisionEntry {
  record: GuardDecisionRecord;
  seq: string;
  toolUseId: string | undefined;
  inputHash: string | undefined;
  /** The transcript the call was made in (a sub-agent's calls are filed under its main session's id). */
  transcript: string | undefined;
  /** The transcript call an id-less decision was matched to (each decision goes to one call). */
  matchedCallId: string | undefined;
}

/**
 * A line of the ledger file that says when a guard service answered the hooks: `serving` when
 * it started and again every `servingHeartbeatMs` while it runs, `stopped` when it closed. A
 * call the hook never saw is only a sign of a call that went around the hook while a service
 * was there to see it (the hook records nothing when none answers).
 */
interface ServingMark {
  kind: 'serving' | 'stopped';
  run: string;
  at: number;
}

/** How often a running service writes its serving mark again (a line a minute: about 90 KB a day). */
export const servingHeartbeatMs = 60_000;
/**
 * A run with no `stopped` mark (its host crashed or was killed) served until its last mark
 * and at most this long after it.
 */
const servingGraceMs = servingHeartbeatMs + 30_000;
/**
 * Stretches of service this close together are one: a host hands the service to its successor
 * (a settings change, a takeover after the serving host stopped) within a few seconds, and the
 * hook looks for a service again before it answers alone.
 */
const handOverMs = 10_000;

/** Entries kept in memory (oldest dropped first). */
const maxEntries = 50_000;
/** The file is rotated (to `<file>.1`) past this size. */
const maxFileBytes = 8 * 1024 * 1024;
/** The previous part of a rotated ledger (one is kept: it is read back with the current one). */
const rotatedSuffix = '.1';

/**
 * Per session, the calls the guard hook saw (tool, input hash, when) and the guard's
 * objections to them: the HookLedgerView the rules read, kept in memory and appended to a
 * JSONL file (mode 0600, in the per-user guard directory) so `check` can read it too.
 */
export class HookLedger implements HookLedgerView {
  private readonly entries: LedgerEntry[] = [];
  private readonly calls = new Map<string, Map<string, { tool: string; inputHash: string; at: number }>>();
  private readonly decisions = new Map<string, DecisionEntry[]>();
  /** The same decisions, by the transcript the hook named (see decisionsIn). */
  private readonly decisionsByTranscript = new Map<string, DecisionEntry[]>();
  private readonly byTranscript = new Map<string, string>();
  /** Per session, the tools and input hashes the hook saw before a call ran. */
  private readonly tools = new Map<string, Set<string>>();
  private readonly inputs = new Map<string, Set<string>>();
  private writes: Promise<void> = Promise.resolve();
  private bytes = 0;
  private n = 0;
  /** This ledger's run: a process serving the hooks (random too: two hosts may start in one millisecond). */
  private readonly run = `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
  /**
   * When guard services answered the hooks with this ledger: per run, the stretch with no stop
   * yet (this process's own is open-ended while it serves), and every stretch that ended.
   */
  private readonly serving = new Map<string, { from: number; to: number }>();
  private readonly served: { from: number; to: number }[] = [];

  private constructor(
    private readonly file: string | undefined,
    private readonly logger: Logger,
  ) {}

  /** An in-memory ledger (tests; hosts that do not persist). */
  static memory(): HookLedger {
    return new HookLedger(undefined, nullLogger);
  }

  /** Opens (creating on first write) the ledger file and loads what it and its rotated part hold. */
  static async open(file: string, logger: Logger = nullLogger): Promise<HookLedger> {
    const ledger = new HookLedger(file, logger);
    await ledger.loadAll(file);
    return ledger;
  }

  /** A read-only view of a ledger file and its rotated part (`check`); a missing file is an empty ledger. */
  static async load(file: string): Promise<HookLedger> {
    const ledger = new HookLedger(undefined, nullLogger);
    await ledger.loadAll(file);
    return ledger;
  }

  /**
   * Rotation splits a session's records between `<file>.1` and `<file>`: read the older part
   * first. Read alone, the newer part says the hook covers the session while forgetting the
   * calls it approved before the rotation, and each of those would look unapproved.
   */
  private async loadAll(file: string): Promise<void> {
    const marks: ServingMark[] = [];
    await this.loadFrom(file + rotatedSuffix, marks);
    this.bytes = await this.loadFrom(file, marks);
    // In the order they happened, not as they were written: a stop mark is written at once,
    // ahead of serving marks still queued (see markStopped).
    marks.sort((a, b) => a.at - b.at || (a.kind === b.kind ? 0 : a.kind === 'serving' ? -1 : 1));
    for (const m of marks) {
      this.noteMark(m, false);
    }
  }

  /** Loads one file's records, and its serving marks into `marks`; returns its size (0 when missing). */
  private async loadFrom(file: string, marks: ServingMark[]): Promise<number> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (e) {
      if (errnoCode(e) !== 'ENOENT') {
        this.logger.warn(`[guard] cannot read the hook ledger ${file}: ${describeError(e)}`);
      }
      return 0;
    }
    for (const line of text.split('\n')) {
      if (line.trim() === '') {
        continue;
      }
      try {
        const parsed: unknown = JSON.parse(line);
        const v = parsed as { v?: unknown } & LedgerEntry;
        if (v.v === 1 && typeof v.sessionId === 'string' && typeof v.tool === 'string' && Array.isArray(v.paths)) {
          this.remember(v);
        } else if (isServingMark(parsed)) {
          marks.push({ kind: parsed.kind, run: parsed.run, at: parsed.at });
        }
      } catch {
        // A torn last line of a crashed run: the rest is still good.
      }
    }
    return Buffer.byteLength(text);
  }

  /** A sequence id for a call the hook names no id for. */
  nextSeq(): string {
    return `${this.run}-${++this.n}`;
  }

  /** Records one hook call; returns the guard's objections to it as decision records. */
  record(entry: LedgerEntry): GuardDecisionRecord[] {
    const recs = this.remember(entry);
    this.append({ v: 1, ...entry });
    return recs;
  }

  /** A guard service answers the hooks with this ledger from `at` on (and still does: repeat it). */
  markServing(at: number): void {
    const mark: ServingMark = { kind: 'serving', run: this.run, at };
    this.noteMark(mark, true);
    this.append({ v: 1, ...mark });
  }

  /**
   * The guard service of this ledger stops answering the hooks at `at`. Written at once, not
   * queued: a host that is shutting down (VS Code closing) may not live to write a queued line,
   * and without it the run would count as serving a while longer.
   */
  markStopped(at: number): void {
    const mark: ServingMark = { kind: 'stopped', run: this.run, at };
    this.noteMark(mark, true);
    if (this.file) {
      const line = JSON.stringify({ v: 1, ...mark }) + '\n';
      try {
        appendFileSync(this.file, line, { mode: 0o600 });
        this.bytes += Buffer.byteLength(line);
      } catch (e) {
        this.logger.warn(`[guard] cannot append to the hook ledger ${this.file}: ${describeError(e)}`);
      }
    }
  }

  private noteMark(m: ServingMark, own: boolean): void {
    const current = this.serving.get(m.run);
    if (m.kind === 'stopped') {
      // (A stop whose start was rotated away with the older records tells nothing.)
      if (current) {
        current.to = m.at;
        this.serving.delete(m.run);
        this.served.push(current);
      }
      return;
    }
    // A run read from the file with no stop (its host gone without one) served a little past
    // its last mark; this process's own run serves until it stops.
    const to = own ? Infinity : m.at + servingGraceMs;
    if (current) {
      current.to = Math.max(current.to, to);
    } else {
      this.serving.set(m.run, { from: m.at, to });
    }
  }

  /**
   * Did a guard service answer the hooks over all of [from, to] (ms)? A ledger with no serving
   * mark at all was written before they existed: there, as then, every call is judged.
   */
  servedThrough(from: number, to: number): boolean {
    if (this.serving.size === 0 && this.served.length === 0) {
      return true;
    }
    const stretches = [...this.served, ...this.serving.values()].sort((a, b) => a.from - b.from);
    let start = -Infinity;
    let end = -Infinity;
    for (const s of stretches) {
      if (s.from > end + handOverMs) {
        if (start <= from && to <= end) {
          return true;
        }
        start = s.from;
      }
      end = Math.max(end, s.to);
    }
    return start <= from && to <= end;
  }

  private append(value: object): void {
    if (this.file) {
      const line = JSON.stringify(value) + '\n';
      const file = this.file;
      this.writes = this.writes.then(async () => {
        try {
          if (this.bytes + line.length > maxFileBytes) {
            await rename(file, file + rotatedSuffix).catch(() => undefined);
            this.bytes = 0;
          }
          await appendFile(file, line, { mode: 0o600 });
          this.bytes += Buffer.byteLength(line);
        } catch (e) {
          this.logger.warn(`[guard] cannot append to the hook ledger ${file}: ${describeError(e)}`);
        }
      });
    }
  }

  /** Resolves when every recorded entry is on disk. */
  flush(): Promise<void> {
    return this.writes;
  }

  private remember(e: LedgerEntry): GuardDecisionRecord[] {
    this.entries.push(e);
    if (this.entries.length > maxEntries) {
      this.entries.splice(0, this.entries.length - maxEntries);
    }
    if (e.transcriptPath) {
      this.byTranscript.set(e.transcriptPath, e.sessionId);
    }
    let calls = this.calls.get(e.sessionId);
    if (!calls) {
      calls = new Map();
      this.calls.set(e.sessionId, calls);
    }
    if (e.kind === 'pre' && e.toolUseId !== undefined) {
      calls.set(e.toolUseId, { tool: e.tool, inputHash: e.inputHash ?? '', at: e.at });
    }
    if (e.kind === 'pre') {
      addTo(this.tools, e.sessionId, e.tool);
      if (e.inputHash !== undefined) {
        addTo(this.inputs, e.sessionId, e.inputHash);
      }
    }
    const recs: GuardDecisionRecord[] = [];
    for (const h of e.verdict?.hits ?? []) {
      const record: GuardDecisionRecord = {
        key: `${e.toolUseId ?? 'hook-' + e.seq}:${h.path}:${h.decision}`,
        decision: h.decision,
        action: h.action,
        tool: e.tool,
        path: h.path,
        reason: h.reason,
        at: e.at,
      };
      recs.push(record);
      let list = this.decisions.get(e.sessionId);
      if (!list) {
        list = [];
        this.decisions.set(e.sessionId, list);
      }
      const entry: DecisionEntry = { record, seq: e.seq, toolUseId: e.toolUseId, inputHash: e.inputHash, transcript: e.transcriptPath, matchedCallId: undefined };
      list.push(entry);
      if (e.transcriptPath !== undefined) {
        let filed = this.decisionsByTranscript.get(e.transcriptPath);
        if (!filed) {
          filed = [];
          this.decisionsByTranscript.set(e.transcriptPath, filed);
        }
        filed.push(entry);
      }
    }
    return recs;
  }

  /** Every entry in memory, oldest first. */
  all(): readonly LedgerEntry[] {
    return this.entries;
  }

  covers(sessionId: string): boolean {
    return this.calls.has(sessionId);
  }

  lookup(sessionId: string, callId: string): { tool: string; inputHash: string; at: number } | undefined {
    return this.calls.get(sessionId)?.get(callId);
  }

  sawTool(sessionId: string, tool: string): boolean {
    return this.tools.get(sessionId)?.has(tool) ?? false;
  }

  sawInput(sessionId: string, inputHash: string): boolean {
    return this.inputs.get(sessionId)?.has(inputHash) ?? false;
  }

  decisionsFor(session: { sessionId: string; transcript: string }, call: { callId: string; tool: string; inputHash?: string }): readonly GuardDecisionRecord[] {
    const sid = this.decisions.has(session.sessionId) ? session.sessionId : this.byTranscript.get(session.transcript);
    const list = sid !== undefined ? this.decisions.get(sid) : undefined;
    if (!list) {
      return [];
    }
    const mine = list.filter((d) => d.toolUseId === call.callId || d.matchedCallId === call.callId);
    if (mine.length > 0) {
      return mine.map((d) => d.record);
    }
    // Hooks that name no call id: the first unmatched decision on a call with the same input, made
    // in this transcript. A Gemini CLI sub-agent's hooks give its main session's id, so the list
    // holds both transcripts' decisions: matched on input alone, the main session's denial went to
    // its sub-agent's identical call (or the reverse), and the call it was about got none. When the
    // ledger never saw this transcript's path (a hook without one), input alone decides, as before.
    const here = this.byTranscript.has(session.transcript) ? session.transcript : undefined;
    const first =
      call.inputHash !== undefined
        ? list.find(
            (d) =>
              d.toolUseId === undefined &&
              d.matchedCallId === undefined &&
              d.inputHash === call.inputHash &&
              (here === undefined || d.transcript === undefined || d.transcript === here),
          )
        : undefined;
    if (!first) {
      return [];
    }
    const group = list.filter((d) => d.seq === first.seq);
    for (const d of group) {
      d.matchedCallId = call.callId;
    }
    return group.map((d) => d.record);
  }

  decisionsIn(transcript: string): readonly FiledGuardDecision[] {
    return (this.decisionsByTranscript.get(transcript) ?? []).map((d) => ({ record: d.record, callId: d.toolUseId ?? d.matchedCallId }));
  }
}

/**
 * The ledger as one host's rules see it: the ledger while this host's guard service answers
 * the hooks, nothing once it is known not to. Only the host that serves a workspace records
 * what its hooks ask; any other host's copy is a snapshot of the file that falls further
 * behind with every call, and rules bound to approvals would call each later call
 * unapproved. Without a ledger those rules judge nothing, which is what they do where no
 * guard runs; a host that takes the service over when the serving one stops sees one again.
 */
export class ServedLedgerView implements HookLedgerView {
  private ledger: HookLedgerView | undefined;

  constructor(ledger: HookLedgerView) {
    this.ledger = ledger;
  }

  /** This host does not (or no longer) serve the workspace: its rules see no approvals from now on. */
  withdraw(): void {
    this.ledger = undefined;
  }

  /**
   * This host took the guard service over (GuardStandby): its rules see the ledger it now
   * records to, read afresh when it took over.
   */
  serve(ledger: HookLedgerView): void {
    this.ledger = ledger;
  }

  get withdrawn(): boolean {
    return this.ledger === undefined;
  }

  covers(sessionId: string): boolean {
    return this.ledger?.covers(sessionId) ?? false;
  }

  lookup(sessionId: string, callId: string): { tool: string; inputHash: string; at: number } | undefined {
    return this.ledger?.lookup(sessionId, callId);
  }

  sawTool(sessionId: string, tool: string): boolean {
    return this.ledger?.sawTool?.(sessionId, tool) ?? false;
  }

  sawInput(sessionId: string, inputHash: string): boolean {
    return this.ledger?.sawInput?.(sessionId, inputHash) ?? false;
  }

  servedThrough(from: number, to: number): boolean {
    return this.ledger?.servedThrough?.(from, to) ?? false;
  }

  decisionsFor(session: { sessionId: string; transcript: string }, call: { callId: string; tool: string; inputHash?: string }): readonly GuardDecisionRecord[] {
    return this.ledger?.decisionsFor?.(session, call) ?? [];
  }

  decisionsIn(transcript: string): readonly FiledGuardDecision[] {
    return this.ledger?.decisionsIn?.(transcript) ?? [];
  }
}

function isServingMark(v: unknown): v is ServingMark {
  const m = v as Partial<ServingMark>;
  return (m.kind === 'serving' || m.kind === 'stopped') && typeof m.run === 'string' && typeof m.at === 'number' && Number.isFinite(m.at);
}

function addTo(m: Map<string, Set<string>>, key: string, value: string): void {
  let set = m.get(key);
  if (!set) {
    set = new Set();
    m.set(key, set);
  }
  set.add(value);
}
