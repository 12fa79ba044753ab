import { constants as fsConstants, existsSync } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { emptyRuleConfig, ruleLevel, type RuleConfig, type RuleLevel } from '../core/config/ruleConfig';
import { displayPath } from '../core/classify/paths';
import { agentForPath, type Environment } from '../core/discovery/locations';
import { findingId, type FindingSink } from '../core/engine/engine';
import type { HookLedgerView, RuleModule, RuleServices, WorkTreeView } from '../core/engine/rule';
import { TranscriptStream } from '../core/engine/stream';
import type { Disposable } from '../core/lib/disposable';
import { Emitter } from '../core/lib/event';
import { AgentGuardError, errnoCode } from '../core/lib/errors';
import { describeError, nullLogger, scoped, type Logger } from '../core/lib/logger';
import type { AgentKind } from '../core/model/agent';
import { sessionIdFromPath } from '../core/model/sessionId';
import type { AccessOp, NormalizedEvent, Span } from '../core/model/events';
import type { Severity } from '../core/model/finding';
import { adapters } from '../core/parse/registry';
import { isDocumentTranscript } from '../core/parse/transcript';
import { allRules } from '../core/rules/all';
import { guardFinding, guardRule } from '../core/rules/guard';
import { DocumentHistory, WriteVerdicts } from './documentHistory';
import { DocumentTail, type DocumentLook } from './documentTail';
import { amplifierWorkingFolder } from './amplifierFolder';
import { FindingStore } from './findingStore';
import { acquireReadBuffer, releaseReadBuffer } from './readBuffers';
import { SessionWatcher, type SessionFileEvent, type WatchedRoot } from './sessionWatcher';
import { FileTail } from './tail';
import { BlindWriteFinder, WriterNamer } from './writersAcross';
import { hashText, tooOldToExplain, WorkTree } from './workTree';

/** What the sessions view and the status bar show about one transcript. */
export interface SessionSummary {
  file: string;
  agent: AgentKind;
  sessionId: string;
  title: string | undefined;
  firstPrompt: string | undefined;
  startedAt: string | undefined;
  /** Wall-clock ms of the last append seen. */
  lastActivity: number;
  cwd: string | undefined;
  parentSessionId: string | undefined;
  bytes: number;
}

export interface LiveMonitorOptions {
  workspace: string;
  environment: Environment;
  agents?: Partial<Record<AgentKind, boolean>>;
  extraFolders?: readonly string[];
  config?: RuleConfig;
  rules?: readonly RuleModule[];
  logger?: Logger;
  clock?: () => number;
  /** Watch the working tree for stale writes (default on). */
  watchTree?: boolean;
  treeIgnore?: readonly string[];
  isUserSave?: (path: string, at: number, hash: string | null) => boolean;
  /** See WorkTreeOptions.userSavePending. */
  userSavePending?: (path: string) => Promise<void> | undefined;
  /** See WorkTreeOptions.attributionGraceMs. */
  attributionGraceMs?: number;
  hookLedger?: HookLedgerView;
  /** How often time-based rules (stalled calls) are asked to look again. */
  tickMs?: number;
  /** How often recently active sessions are looked at regardless of watcher events. */
  sweepMs?: number;
  pendingPollMs?: number;
  usePolling?: boolean;
  /** Sees every normalized event of every session (the timeline). */
  observe?: (file: string, e: NormalizedEvent) => void;
  /**
   * A session idle this long drops its in-memory state (see `LiveSession.stream`); default
   * 15 minutes, and never before the stalled-call rule has had its say.
   */
  hibernateAfterMs?: number;
  /** How many transcripts are read from the start at once (startup, re-check, waking). */
  readConcurrency?: number;
  /** How long new stale writes gather before their writers are looked up in the other transcripts (ms). */
  namingDelayMs?: number;
  /**
   * How long a transcript must have been quiet before what its parser holds for lines to come
   * is read as it is (default `settleAfterMs`). Tests that check what is held before then set it
   * longer, so that a slow machine cannot settle the session under them.
   */
  settleAfterMs?: number;
}

/** A live follow of one session's events (see LiveMonitor.followSession). */
export interface SessionFollow extends Disposable {
  /** Bytes of the transcript read before the first event the listener sees. */
  readonly consumedBytes: number;
  /** The format the monitor reads the file as when its folder says so; else it is recognised from the content. */
  readonly forcedAgent: AgentKind | undefined;
  /** The working folder the monitor reads the file with, where the files beside it name one (see LiveSession.cwd). */
  readonly cwd: string | undefined;
}

/**
 * How long a transcript must have been quiet before what its parser holds for lines to come is
 * read as it is: an agent writes a call and the result it answers within one burst.
 */
const settleAfterMs = 2_000;

/** The least wait before a settle is tried again (a read still running, the clock set back). */
const minSettleRetryMs = 100;

/** When a deleted transcript is looked at again (ms after the last look): soon, then less often, for about a minute. */
const returnLookDelaysMs = [100, 300, 600, 1_000, 2_000, 4_000, 8_000, 15_000, 30_000];

/** Mutes a stream while it re-reads what was already reported (a hibernated session waking). */
interface Gate {
  muted: boolean;
  /**
   * A version of a transcript rewritten whole: says of each event whether an earlier version
   * fed it to the working tree already (see DocumentHistory), which it then is not again.
   */
  fedBefore?: (e: NormalizedEvent) => boolean;
  /**
   * A re-check reads the transcript again from its start: the working tree was told of what it
   * holds up to this byte already. Told again, the session's old reads counted as made now: a
   * change someone made since went unseen, and the session's next write over it was no stale write.
   */
  heardTo?: number;
  /** What `fedBefore` (or `heardTo`) said of the event being handled. */
  fed?: boolean;
}

interface LiveSession {
  summary: SessionSummary;
  /**
   * Undefined while the session hibernates: a session idle for a while keeps only its summary,
   * its tail's position and its findings; the working tree keeps what it saw. Most sessions on
   * a machine are idle, and a session's full state is hundreds of KB. Undefined too while it
   * waits for its turn to be read from the start (see `readFromStart`).
   */
  stream: TranscriptStream | undefined;
  gate: Gate;
  /** A transcript rewritten whole (one JSON document) has a DocumentTail, read version by version. */
  tail: FileTail | DocumentTail;
  /** A transcript rewritten whole: what its earlier versions did to the working tree. */
  history: DocumentHistory | undefined;
  /** The first read has not finished: what it reads is history, not activity. */
  fresh: boolean;
  waking: Promise<void> | undefined;
  /**
   * Why the last wake could not read the transcript, while it still cannot: every change of
   * the file tries again, and a person reading the log needs the first failure, not one per
   * append.
   */
  unreadable: string | undefined;
  /** The stream's consumedBytes when it was dropped. */
  sleptAt: number;
  /**
   * The working folder the files beside the transcript name, for a format whose lines do not
   * (Amplifier's, see amplifierWorkingFolder): looked up once, before the session's first stream
   * is built, and kept: events.jsonl grows with every model request, too much to read again at
   * each rewrite of the transcript. (`check` reads it whole each time.)
   */
  cwd: string | undefined;
  folder: Promise<void> | undefined;
  /**
   * Settles the session once it has been quiet for `settleAfterMs` after a read that found
   * something new (see `settleSoon`).
   */
  settleTimer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Watches one workspace's agent sessions and working tree together and validates every
 * event as it arrives. The CLI's `watch` and the extension are both views of this object.
 */
export class LiveMonitor implements Disposable {
  readonly findings = new FindingStore();
  readonly tree: WorkTree | undefined;
  private readonly watcher: SessionWatcher;
  private readonly sessions = new Map<string, LiveSession>();
  private readonly logger: Logger;
  private readonly clock: () => number;
  /** When this monitor was made: a transcript last written before is history when first read. */
  private readonly startedAt: number;
  /** start() was called; and when its first reads of the transcripts had caught up. */
  private starting = false;
  private caughtUpAt: number | undefined;
  private readonly sessionsChanged = new Emitter<SessionSummary | undefined>();
  /** Fires when a session appears, grows, or goes (undefined: several changed). */
  readonly onDidChangeSessions = this.sessionsChanged.event;
  private readonly firstReadDone = new Emitter<string>();
  /** Fires with a transcript's path when its first read caught up (see `isFirstRead`). */
  readonly onDidFinishFirstRead = this.firstReadDone.event;
  private tickTimer: ReturnType<typeof setInterval> | undefined;
  private sweepTimer: ReturnType<typeof setInterval> | undefined;
  private readonly subscriptions: Disposable[] = [];
  private readonly reading = new Set<Promise<void>>();
  /** Line of the last event read from each transcript (the guard reports there until a call's own line arrives). */
  private readonly lastLines = new Map<string, number>();
  /** Who follows a session's events (an open timeline), by transcript. */
  private readonly followers = new Map<string, Set<(e: NormalizedEvent) => void>>();
  private disposed = false;
  private closing: Promise<void> | undefined;
  private readonly hibernateAfterMs: number;
  private readonly settleAfterMs: number;
  private freeSlots: number;
  /** Reads waiting for a slot, served in order; but a session that changed or is asked about comes first. */
  private readonly slotQueue: (() => void)[] = [];
  private readonly urgentQueue: (() => void)[] = [];
  /** Deleted transcripts being looked for again, with the timer of the next look. */
  private readonly returning = new Map<string, ReturnType<typeof setTimeout>>();
  /** Names the writer of a stale write that another of the workspace's transcripts records. */
  private readonly namer: WriterNamer;
  /** Finds a Codex session's write, before the watching began, over another session's write it never saw. */
  private readonly blind: BlindWriteFinder;
  /**
   * The changes the working tree found under each transcript's writes when they were new, by
   * transcript, then call and path. A transcript read again from its start (a re-check, the file
   * rewritten or replaced, deleted and written again) asks again about writes made long ago, and
   * the tree, told of the reads again as if made now, answers that nothing came between: a lost
   * update found live was taken back. Only the changes found are kept, a few per transcript;
   * kept while the transcript may come back (see lookForReturn).
   */
  private readonly verdicts = new Map<string, WriteVerdicts>();

  constructor(private readonly opts: LiveMonitorOptions) {
    this.logger = opts.logger ?? nullLogger;
    this.clock = opts.clock ?? Date.now;
    this.startedAt = this.clock();
    this.freeSlots = Math.max(1, opts.readConcurrency ?? 4);
    // A stalled call is reported by a tick before its session may sleep.
    const stalled = opts.config?.options['stalled-call']?.['minutes'];
    const stalledMs = (typeof stalled === 'number' && stalled > 0 ? stalled : 10) * 60_000;
    this.settleAfterMs = opts.settleAfterMs ?? settleAfterMs;
    this.hibernateAfterMs = opts.hibernateAfterMs ?? Math.max(15 * 60_000, stalledMs + 2 * (opts.tickMs ?? 15_000));
    this.watcher = new SessionWatcher({
      workspace: opts.workspace,
      environment: opts.environment,
      logger: scoped(this.logger, 'sessions'),
      ...(opts.agents ? { agents: opts.agents } : {}),
      ...(opts.extraFolders ? { extraFolders: opts.extraFolders } : {}),
      ...(opts.pendingPollMs !== undefined ? { pendingPollMs: opts.pendingPollMs } : {}),
      ...(opts.usePolling !== undefined ? { usePolling: opts.usePolling } : {}),
    });
    if (opts.watchTree !== false) {
      this.tree = new WorkTree({
        root: opts.workspace,
        logger: this.logger,
        clock: this.clock,
        ...(opts.treeIgnore ? { ignore: opts.treeIgnore } : {}),
        ...(opts.isUserSave ? { isUserSave: opts.isUserSave } : {}),
        ...(opts.userSavePending ? { userSavePending: opts.userSavePending } : {}),
        ...(opts.attributionGraceMs !== undefined ? { attributionGraceMs: opts.attributionGraceMs } : {}),
        ...(opts.usePolling !== undefined ? { usePolling: opts.usePolling } : {}),
      });
    }
    this.subscriptions.push(this.watcher.onDidChange((e) => this.onFileEvent(e)));
    this.namer = new WriterNamer({
      store: this.findings,
      adapters,
      transcripts: () => this.sessionList().map((x) => ({ file: x.file, session: x.sessionId, cwd: x.cwd })),
      busy: () => this.reading.size > 0,
      onDidChangeTranscripts: this.onDidChangeSessions,
      logger: scoped(this.logger, 'writers'),
      ...(opts.namingDelayMs !== undefined ? { delayMs: opts.namingDelayMs } : {}),
    });
    this.subscriptions.push(this.namer);
    this.blind = new BlindWriteFinder({
      store: this.findings,
      adapters,
      transcripts: () => this.sessionList().map((x) => ({ file: x.file, session: x.sessionId, agent: x.agent, cwd: x.cwd })),
      ...(opts.config ? { config: opts.config } : {}),
      // The working tree tracks a file from the first access of it this monitor reads, so it
      // saw no change made before (in the history) or while the start-up reads ran: another
      // transcript's write until those reads caught up is only in that transcript.
      until: () => this.caughtUpAt ?? this.clock(),
      busy: () => this.reading.size > 0 || (this.starting && this.caughtUpAt === undefined),
      onDidChangeTranscripts: this.onDidChangeSessions,
      logger: scoped(this.logger, 'writers'),
      ...(opts.namingDelayMs !== undefined ? { delayMs: opts.namingDelayMs } : {}),
    });
    this.subscriptions.push(this.blind);
  }

  get watchedRoots(): readonly WatchedRoot[] {
    return this.watcher.watchedRoots;
  }

  /** Starts everything; resolves when existing sessions have been read once. */
  async start(): Promise<void> {
    this.starting = true;
    await Promise.all([this.watcher.start(), this.tree?.start()]);
    await this.readsDone();
    this.caughtUpAt = this.clock();
    await this.idle();
    if (this.disposed) {
      // Closed while starting (the extension rebuilds its monitors when the settings change):
      // timers set now would keep the closed monitor alive and reading, and nothing would clear them.
      return;
    }
    this.tickTimer = setInterval(() => this.tick(), this.opts.tickMs ?? 15_000);
    this.tickTimer.unref?.();
    this.sweepTimer = setInterval(() => this.sweep(), this.opts.sweepMs ?? 2_000);
    this.sweepTimer.unref?.();
  }

  /** Resolves when every pending read has caught up (tests; `watch` before printing its summary). */
  async idle(): Promise<void> {
    await this.readsDone();
    await this.namer.idle();
    await this.blind.idle();
  }

  /** Resolves when every transcript read started has caught up. */
  private async readsDone(): Promise<void> {
    await this.watcher.idle();
    while (this.reading.size > 0) {
      await Promise.all([...this.reading]);
      await this.watcher.idle();
    }
  }

  sessionList(): SessionSummary[] {
    return [...this.sessions.values()].map((s) => s.summary);
  }

  session(file: string): SessionSummary | undefined {
    return this.sessions.get(file)?.summary;
  }

  /** Where a tool call sits in its transcript (to open it); wakes a hibernated session. */
  async callLocation(file: string, callId: string): Promise<Span | undefined> {
    return (await this.awake(file))?.engine.conversation.call(callId)?.call.at;
  }

  /**
   * Where a tool call sits, from what is in memory now: never wakes a hibernated session
   * (undefined then, as for a call the transcript does not have yet). Rebuilding a sleeping
   * session re-reads its whole transcript, which a hook waiting on a verdict cannot afford.
   */
  knownCallLocation(file: string, callId: string): Span | undefined {
    return this.sessions.get(file)?.stream?.engine.conversation.call(callId)?.call.at;
  }

  /** When a tool call was made, by its transcript's time, from what is in memory now (see knownCallLocation). */
  knownCallTime(file: string, callId: string): number | undefined {
    const timestamp = this.sessions.get(file)?.stream?.engine.conversation.call(callId)?.call.timestamp;
    const t = timestamp !== undefined ? Date.parse(timestamp) : NaN;
    return Number.isNaN(t) ? undefined : t;
  }

  /** Where the session last read (or else wrote) a file: the transcript line holding what it saw. */
  async lastSeen(file: string, path: string): Promise<{ at: Span; how: 'read' | 'write' } | undefined> {
    const k = (await this.awake(file))?.engine.knowledge.get(path);
    if (k?.lastRead) {
      return { at: k.lastRead, how: 'read' };
    }
    return k?.lastWrite ? { at: k.lastWrite, how: 'write' } : undefined;
  }

  /**
   * Is the transcript being read for the first time (its history, not yet what is new)? Findings
   * reported meanwhile may still be revised by lines further on in the same read.
   */
  isFirstRead(file: string): boolean {
    return this.sessions.get(file)?.fresh === true;
  }

  /** Is the session's state dropped until it changes again, or not built yet (tests, the benchmark)? */
  isHibernating(file: string): boolean {
    const s = this.sessions.get(file);
    return s !== undefined && s.stream === undefined;
  }

  private async awake(file: string): Promise<TranscriptStream | undefined> {
    const s = this.sessions.get(file);
    if (s && (!s.stream || s.waking)) {
      await this.wake(s);
    }
    return s?.stream;
  }

  /** Reads every session again from the start (re-check all); unchanged findings are not re-announced. */
  async recheck(): Promise<void> {
    for (const s of this.sessions.values()) {
      const file = s.summary.file;
      this.findings.beginGeneration(file);
      s.gate = { muted: false, ...(s.history ? {} : { heardTo: s.tail.bytesRead }) };
      s.stream?.release();
      s.stream = undefined;
      // The files beside the transcript are read again too.
      s.folder = undefined;
      s.tail.dispose();
      s.tail = this.newTail(file);
      void this.readFromStart(s);
    }
    await this.idle();
  }

  /**
   * Reads a session from byte 0 when its turn comes (start-up, re-check), building its state
   * only then. Built up front, the state of every session waiting in the queue was alive at once
   * (37 KB each before a single byte is read: the rules' contexts and maps): with a thousand
   * sessions found at start-up, tens of MB that V8's heap then grew to a multiple of.
   *
   * A change meanwhile wakes the session as if it had slept at byte 0 (see `readNow`), ahead of
   * the queue, and that reads it; this turn then only looks for more. A session still waking
   * is read once it is awake, as `readNow` does: read now, the bytes would go to the stream
   * while it is muted for its replay. A session woken, read and put to sleep again before its
   * turn (its tail suspended) is left asleep.
   */
  private readFromStart(s: LiveSession, first?: () => Promise<void>): Promise<void> {
    return this.track(
      this.limited(async () => {
        await first?.();
        // (Before the checks below: the folder is awaited, and the session may go meanwhile.)
        await this.lookUpFolder(s);
        if (this.sessions.get(s.summary.file) !== s || this.disposed || s.tail.isSuspended) {
          return false;
        }
        if (s.waking) {
          return true;
        }
        if (!s.history && !s.stream) {
          // A document's versions each build a stream of their own (takeVersion).
          s.stream = this.newStream(s.summary.file, s.summary.agent, s.gate, s.cwd);
          this.blind.begin(s.summary.file);
        }
        await s.tail.poke();
        return false;
      }).then((waking) => (waking ? this.readNow(s) : undefined)),
    );
  }

  /**
   * A safety net under the file watchers: look at recently active sessions again. Watchers
   * coalesce and drop events under load; the tail reads only if the file really changed.
   * Sessions idle for long enough go to sleep.
   */
  private sweep(): void {
    const now = this.clock();
    for (const s of this.sessions.values()) {
      if (s.summary.lastActivity > now) {
        // The clock was set back (NTP, a machine resumed): the last activity, in its future,
        // is now. Kept as it was, the session counted as active until the clock caught up:
        // no result held for its call was read, nor the session put to sleep, for that long.
        s.summary.lastActivity = now;
      }
      if (this.mayHibernate(s, now)) {
        this.hibernate(s, now);
      } else if (s.stream && now - s.summary.lastActivity < 10 * 60_000) {
        this.read(s);
      }
    }
  }

  private mayHibernate(s: LiveSession, now: number): boolean {
    return (
      s.stream !== undefined &&
      !s.fresh &&
      s.waking === undefined &&
      !s.tail.busy &&
      !this.followers.has(s.summary.file) &&
      !this.findings.inGeneration(s.summary.file) &&
      now - s.summary.lastActivity >= this.hibernateAfterMs
    );
  }

  private hibernate(s: LiveSession, now: number): void {
    const stream = s.stream!;
    // Time-based rules have their last say (a call that never got its result is reported).
    this.tickOne(s, now);
    s.tail.suspend();
    s.sleptAt = stream.consumedBytes;
    s.stream = undefined;
    // Emptied, not only dropped: see RuleEngine.release.
    stream.release();
    this.logger.debug(`[monitor] ${s.summary.file} is idle; its state is dropped until it changes`);
  }

  /**
   * Rebuilds a hibernated session's state from its transcript, up to where it went to sleep,
   * with nothing reported, fed to the working tree or to followers: all of that happened
   * before. Then the tail reads what is new as usual. A file replaced or truncated meanwhile
   * is caught by that read (the tail kept its inode, offset and prefix hash) and read again.
   */
  private wake(s: LiveSession): Promise<void> {
    // Ahead of the start-up backlog: an append to a session read (and put to sleep) early in
    // the catch-up would otherwise wait for every other session to be read first.
    s.waking ??= this.limited(() => this.replay(s), true).finally(() => {
      s.waking = undefined;
    });
    return s.waking;
  }

  private async replay(s: LiveSession): Promise<void> {
    const file = s.summary.file;
    await this.lookUpFolder(s);
    if (s.stream || this.sessions.get(file) !== s) {
      return;
    }
    if (s.tail instanceof DocumentTail) {
      // A document is read whole anyway: its current version, as a new one (nothing reported
      // again that stands, nothing fed to the working tree twice).
      s.tail.resume();
      await s.tail.reread();
      return;
    }
    // (What a re-check queued to read again is read by this wake: it heard what the re-check heard.)
    const gate: Gate = { muted: true, ...(s.gate.heardTo !== undefined ? { heardTo: s.gate.heardTo } : {}) };
    const stream = this.newStream(file, s.summary.agent, gate, s.cwd);
    s.gate = gate;
    s.stream = stream;
    this.logger.debug(`[monitor] ${file} changed; reading it again up to byte ${s.tail.bytesRead}`);
    let unreadable = false;
    let failed = false;
    try {
      await readRange(file, s.tail.bytesRead, (bytes) => {
        if (s.stream === stream) {
          stream.push(bytes);
        }
      });
    } catch (e) {
      failed = true;
      // Told apart as the tails tell their failures apart: by the error's code, not its stack.
      const what = errnoCode(e) ?? String(e);
      if (s.unreadable !== what) {
        this.logger.warn(`[monitor] cannot read ${file} again: ${describeError(e)}`);
      } else {
        this.logger.debug(`[monitor] still cannot read ${file}: ${what}`);
      }
      s.unreadable = what;
      // Gone: the tail's next read says so, and starts over when the file comes back. There
      // but unreadable: the session stays asleep, its findings standing, and the next change
      // tries again. Woken with part of its history (none, for a file that could not be
      // opened), the tail would feed what comes next to a session that never saw its calls:
      // every result a false orphan, every edit a write before any read.
      unreadable = errnoCode(e) !== 'ENOENT' && s.stream === stream;
    } finally {
      if (unreadable) {
        s.stream = undefined;
        stream.release();
      } else if (s.stream === stream) {
        // Time-based findings (a stalled call) were reported by ticks before the sleep: a muted
        // tick now lets the rebuilt rules know they stand, so a result landing next retracts them.
        this.tickOne(s, this.clock());
      }
      gate.muted = false;
      if (!unreadable) {
        s.tail.resume();
      }
    }
    if (unreadable) {
      return;
    }
    if (!failed && s.unreadable !== undefined) {
      this.logger.info(`[monitor] ${file} can be read again`);
      s.unreadable = undefined;
    }
    if (!s.stream && !this.disposed) {
      // A re-check dropped the stream being rebuilt, and the tail it was rebuilt for: rebuilt
      // again for the new tail. Otherwise the tail's first read, which waits for this wake, fed
      // the transcript to no stream, and the re-check's end took all its findings back.
      await this.replay(s);
    }
  }

  /**
   * At most `readConcurrency` whole-transcript reads at once: each holds a session's full state
   * while it runs. `urgent` ones wait only for a slot, not behind those queued before them.
   */
  private async limited<T>(fn: () => Promise<T>, urgent = false): Promise<T> {
    if (this.freeSlots > 0) {
      this.freeSlots--;
    } else {
      await new Promise<void>((resolve) => (urgent ? this.urgentQueue : this.slotQueue).push(resolve));
    }
    try {
      return await fn();
    } finally {
      const next = this.urgentQueue.shift() ?? this.slotQueue.shift();
      if (next) {
        next();
      } else {
        this.freeSlots++;
      }
    }
  }

  /** Time passes: stalled-call and other time-based rules look again. */
  tick(now = this.clock()): void {
    for (const s of this.sessions.values()) {
      this.tickOne(s, now);
    }
  }

  private tickOne(s: LiveSession, now: number): void {
    try {
      // Before the time-based rules: a result held for its call is then a result.
      this.settleOne(s, now);
      s.stream?.tick(now);
    } catch (e) {
      this.logger.error(`[monitor] tick failed for ${s.summary.file}: ${describeError(e)}`);
    }
  }

  /**
   * A session quiet for `settleAfterMs`: what its parser held for lines that may still come (a
   * Claude Code result written before its call, a last line without its newline) is read as it
   * is, and a document last seen half-written is taken as it stands. False: not quiet yet.
   */
  private settleOne(s: LiveSession, now: number): boolean {
    if (s.tail.busy || s.waking || now - s.summary.lastActivity < this.settleAfterMs) {
      return false;
    }
    s.stream?.settle();
    if (s.tail instanceof DocumentTail && s.tail.isUnsettled) {
      // A document last seen half-written that stayed so: what the file holds is read.
      void this.track(s.tail.settle());
    }
    return true;
  }

  /**
   * Settles the session once it has been quiet for `settleAfterMs`, after a read that found
   * something new. Left to the tick (15 s apart), what a parser held waited up to 17 s where
   * the wait it needs is 2 s: a stray Claude Code result hung from a record the file does not
   * hold took 11 s to be reported, where a stray result read at once takes milliseconds.
   */
  private settleSoon(s: LiveSession): void {
    clearTimeout(s.settleTimer);
    if (this.disposed) {
      return;
    }
    const wait = Math.min(this.settleAfterMs, Math.max(minSettleRetryMs, s.summary.lastActivity + this.settleAfterMs - this.clock()));
    s.settleTimer = setTimeout(() => {
      s.settleTimer = undefined;
      if (this.disposed || this.sessions.get(s.summary.file) !== s) {
        return;
      }
      try {
        if (!this.settleOne(s, this.clock())) {
          this.settleSoon(s);
        }
      } catch (e) {
        this.logger.error(`[monitor] settling ${s.summary.file} failed: ${describeError(e)}`);
      }
    }, wait);
    s.settleTimer.unref?.();
  }

  private onFileEvent(e: SessionFileEvent): void {
    if (this.disposed) {
      return;
    }
    switch (e.type) {
      case 'add':
      case 'change': {
        // A change of a file with no session is a re-creation: chokidar reports a file deleted
        // and written again within 100 ms as a change (its `atomic` option), and the tail may
        // have seen the deletion first.
        if (this.sessions.has(e.file)) {
          this.read(this.sessions.get(e.file)!);
          return;
        }
        const gate: Gate = { muted: false };
        const s: LiveSession = {
          summary: {
            file: e.file,
            agent: e.agent,
            sessionId: sessionIdFromPath(e.file, e.agent),
            title: undefined,
            firstPrompt: undefined,
            startedAt: undefined,
            lastActivity: this.clock(),
            cwd: undefined,
            parentSessionId: undefined,
            bytes: 0,
          },
          stream: undefined,
          gate,
          tail: this.newTail(e.file),
          history: isDocumentTranscript(e.file) ? new DocumentHistory() : undefined,
          fresh: true,
          waking: undefined,
          unreadable: undefined,
          sleptAt: 0,
          cwd: undefined,
          folder: undefined,
          settleTimer: undefined,
        };
        this.sessions.set(e.file, s);
        void this.readFromStart(s, async () => {
          try {
            // An existing file's age, not the time we found it, says whether it is live.
            s.summary.lastActivity = Math.min(s.summary.lastActivity, (await stat(e.file)).mtimeMs);
          } catch {
            // Gone already: the read says so.
          }
        });
        return;
      }
      case 'unlink': {
        const s = this.sessions.get(e.file);
        if (!s) {
          return;
        }
        // chokidar reports a deletion 100 ms late (its `atomic` option) and may not take it
        // back when the file is written again meanwhile: a file that is there was re-created,
        // and the tail's read sees it as a replacement.
        if (existsSync(e.file)) {
          this.read(s);
        } else {
          s.tail.unlinked();
        }
        return;
      }
    }
  }

  private read(s: LiveSession): void {
    void this.readNow(s);
  }

  private readNow(s: LiveSession): Promise<void> {
    if (!s.stream || s.waking) {
      return this.track(this.wake(s).then(() => s.tail.poke()));
    }
    return this.track(s.tail.poke());
  }

  /** `idle()` waits for it. */
  private track(p: Promise<void>): Promise<void> {
    const q = p.catch((e: unknown) => this.logger.error(`[monitor] read failed: ${describeError(e)}`));
    this.reading.add(q);
    void q.finally(() => this.reading.delete(q));
    return q;
  }

  /**
   * Reads what is new in one transcript now, without waiting for its watcher: the guard does
   * this before judging a call, so a read the agent has already recorded counts.
   */
  async catchUp(file: string): Promise<void> {
    const s = this.sessions.get(file);
    if (s) {
      await this.readNow(s);
    }
  }

  /** The verdicts given on a JSONL transcript's writes (see `verdicts`). */
  private verdictsOf(file: string): WriteVerdicts {
    let v = this.verdicts.get(file);
    if (!v) {
      v = new WriteVerdicts(false);
      this.verdicts.set(file, v);
    }
    return v;
  }

  /** The level of a rule's findings in this monitor: its configured severity, or 'off'. */
  ruleLevel(rule: { readonly id: string; readonly defaultSeverity: Severity }): RuleLevel {
    return ruleLevel(this.opts.config ?? emptyRuleConfig, rule);
  }

  /** Line of the last event read from a transcript so far. */
  lastLine(file: string): number | undefined {
    return this.lastLines.get(file);
  }

  /**
   * Follows one session's normalized events from now on (the timeline). No event is kept for
   * this: what came before is the transcript's first `consumedBytes` bytes, which the follower
   * reads from the file itself. After a re-read (truncation, re-check) events start over at line 1.
   * A transcript rewritten whole is not followed (undefined): each version is read whole, and
   * its reader reads the file again when the session changes.
   */
  followSession(file: string, listener: (e: NormalizedEvent) => void): SessionFollow | undefined {
    const s = this.sessions.get(file);
    if (!s || s.history) {
      return undefined;
    }
    // A sleeping session wakes (and stays awake while followed); its replay is not followed.
    const consumedBytes = s.stream && !s.waking ? s.stream.consumedBytes : s.sleptAt;
    if (!s.stream) {
      void this.wake(s);
    }
    let set = this.followers.get(file);
    if (!set) {
      set = new Set();
      this.followers.set(file, set);
    }
    set.add(listener);
    return {
      consumedBytes,
      forcedAgent: agentForPath(file) === s.summary.agent ? s.summary.agent : undefined,
      cwd: s.cwd,
      dispose: () => {
        const now = this.followers.get(file);
        now?.delete(listener);
        if (now?.size === 0) {
          this.followers.delete(file);
        }
      },
    };
  }

  private notifyFollowers(file: string, e: NormalizedEvent): void {
    for (const listener of this.followers.get(file) ?? []) {
      try {
        listener(e);
      } catch (err) {
        this.logger.error(`[monitor] a follower of ${file} failed: ${describeError(err)}`);
      }
    }
  }

  /** The tail read everything there was (after a watcher event or its own follow-up look). */
  private caughtUp(file: string): void {
    const s = this.sessions.get(file);
    if (!s) {
      return;
    }
    if (s.tail.failing) {
      // Nothing was read (the file cannot be, for now): a re-read begun stays open, and every
      // finding stands until a read succeeds. Ended here, it took back every finding a re-check
      // could not read again, as if the transcript no longer held them.
      return;
    }
    if (s.fresh || this.findings.inGeneration(file)) {
      this.reportUnplacedDecisions(s);
    }
    if (this.findings.inGeneration(file)) {
      // What only other transcripts show (BlindWriteFinder) is not reported by a re-read.
      this.findings.endGeneration(file, (f) => this.blind.owns(f.id));
    }
    const now = this.clock();
    const grew = s.tail.bytesRead !== s.summary.bytes;
    if (grew) {
      s.summary.bytes = s.tail.bytesRead;
      if (!s.fresh) {
        s.summary.lastActivity = Math.max(s.summary.lastActivity, now);
      }
      this.sessionsChanged.fire(s.summary);
    }
    if (grew || (s.tail instanceof DocumentTail && s.tail.isUnsettled)) {
      this.settleSoon(s);
    }
    this.blind.caughtUp(file, s.summary.agent);
    const wasFirst = s.fresh;
    s.fresh = false;
    if (wasFirst) {
      this.firstReadDone.fire(file);
    }
    if (this.mayHibernate(s, now)) {
      this.hibernate(s, now);
    }
  }

  /**
   * After a read of a transcript from its start (the first, a re-check, the file truncated or
   * replaced, a repair): the guard's decisions on calls of this transcript that it does not
   * hold, from the hook ledger. The guard service reported each when it decided, on the last
   * line read then, and the guard rule moves it onto its call once the call's line is read; but
   * a call can never reach the transcript (a denied call the agent did not record, a hook run by
   * hand), or be cut from it. No rule can report such a decision from the transcript's lines,
   * so the generation the re-read ran in took it back for good (and a new monitor, after a
   * settings change, never had it). It stays where it was while its line is still there, else
   * goes on the last line, as the service places it.
   */
  private reportUnplacedDecisions(s: LiveSession): void {
    const conversation = s.stream?.engine.conversation;
    const filed = this.opts.hookLedger?.decisionsIn?.(s.summary.file) ?? [];
    // (No stream: nothing was read, so nothing tells which calls the transcript holds.)
    const level = this.ruleLevel(guardRule.meta);
    if (!conversation || filed.length === 0 || level === 'off') {
      return;
    }
    const file = s.summary.file;
    const last = this.lastLines.get(file) ?? 1;
    for (const { record, callId } of filed) {
      if (callId !== undefined && conversation.call(callId)) {
        // Reported on its call by the guard rule, during this very read.
        continue;
      }
      const had = this.findings.get(file, findingId(guardRule.meta.id, file, record.key));
      this.findings.add(
        had && had.line <= last
          ? had
          : guardFinding(record, {
              file,
              line: last,
              agent: s.summary.agent,
              session: s.summary.sessionId,
              ...(callId !== undefined ? { callId } : {}),
              displayPath: displayPath(record.path, s.summary.cwd),
            }, level),
      );
    }
  }

  private newTail(file: string): FileTail | DocumentTail {
    const onError = (e: unknown): void => this.logger.warn(`[monitor] cannot read ${file}: ${describeError(e)}`);
    if (isDocumentTranscript(file)) {
      return new DocumentTail(
        file,
        { version: (look) => this.takeVersion(file, look), gone: () => this.sessionGone(file) },
        { onError, onCaughtUp: () => this.caughtUp(file), settleMs: this.settleAfterMs },
      );
    }
    return new FileTail(
      file,
      {
        push: (bytes) => this.sessions.get(file)?.stream?.push(bytes),
        reset: (reason) => {
          const s = this.sessions.get(file);
          if (!s) {
            return;
          }
          this.logger.info(`[monitor] ${file} was ${reason}; reading it again`);
          this.findings.beginGeneration(file);
          // Lines count from the new start (the guard places a decision on the last one read).
          this.lastLines.delete(file);
          this.tree?.forgetSession(file, true);
          s.gate = { muted: false };
          s.stream = this.newStream(file, s.summary.agent, s.gate, s.cwd);
          this.blind.begin(file);
          s.summary.bytes = 0;
        },
        gone: () => this.sessionGone(file),
      },
      { onError, onCaughtUp: () => this.caughtUp(file), directWatch: true },
    );
  }

  private sessionGone(file: string): void {
    this.logger.info(`[monitor] ${file} was deleted`);
    const s = this.sessions.get(file);
    this.sessions.delete(file);
    clearTimeout(s?.settleTimer);
    s?.tail.dispose();
    s?.stream?.release();
    this.findings.clearFile(file);
    this.tree?.forgetSession(file);
    this.lastLines.delete(file);
    this.sessionsChanged.fire(undefined);
    if (s) {
      this.lookForReturn(file, s.summary.agent);
    }
  }

  /**
   * One version of a transcript rewritten whole (see DocumentTail), read from its start by a
   * stream of its own in a generation of the file's findings: they become the version's. Those
   * it reports again are no news, those it does not are retracted, new ones are added. Not
   * taken (false) while it is no whole document and not settled: the last version's findings
   * and state stand. Only the working tree is not told again what earlier versions told it.
   */
  private takeVersion(file: string, look: DocumentLook): boolean {
    const s = this.sessions.get(file);
    if (!s || this.disposed) {
      return true;
    }
    const now = this.clock();
    if (!s.fresh) {
      s.summary.lastActivity = Math.max(s.summary.lastActivity, now);
    }
    const before = { stream: s.stream, gate: s.gate };
    const gate: Gate = { muted: false, ...(s.history ? { fedBefore: s.history.version() } : {}) };
    const stream = this.newStream(file, s.summary.agent, gate, s.cwd, s.history);
    if (look.bytes) {
      stream.push(look.bytes);
    }
    // The events update the summary of the session's current stream.
    s.stream = stream;
    s.gate = gate;
    this.findings.beginGeneration(file);
    if (!stream.readDocument(look.settled, look.bytes ? 0 : look.size)) {
      this.findings.cancelGeneration(file);
      s.stream = before.stream;
      s.gate = before.gate;
      this.logger.debug(`[monitor] ${file} is not a whole document (being rewritten?); waiting for the next version`);
      return false;
    }
    before.stream?.release();
    // Time-based findings of the last version (a stalled call) stand: not retracted, then announced again.
    stream.tick(now);
    // A guard decision is reported by the guard service when it is made, before Gemini CLI has
    // the call in the document: the rewrites in between (the model's text, token counts) must
    // not take it back. The guard rule reports it again, on the call, once a version has it.
    this.findings.endGeneration(file, (f) => f.rule === guardRule.meta.id || this.blind.owns(f.id));
    s.summary.bytes = look.size;
    this.sessionsChanged.fire(s.summary);
    return true;
  }

  /**
   * A deleted transcript may come straight back (a rewrite by delete and create), and the
   * watcher can miss that creation under load: the file is looked at again a few times over the
   * next minute, and taken up if it is back with no session.
   */
  private lookForReturn(file: string, agent: AgentKind, attempt = 0): void {
    clearTimeout(this.returning.get(file));
    const delay = returnLookDelaysMs[attempt];
    if (this.disposed || delay === undefined) {
      this.returning.delete(file);
      this.verdicts.delete(file);
      return;
    }
    const timer = setTimeout(() => {
      this.returning.delete(file);
      if (this.disposed || this.sessions.has(file)) {
        return;
      }
      if (existsSync(file)) {
        this.logger.info(`[monitor] ${file} is back`);
        this.onFileEvent({ type: 'add', file, agent });
      } else {
        this.lookForReturn(file, agent, attempt + 1);
      }
    }, delay);
    timer.unref?.();
    this.returning.set(file, timer);
  }

  /** See LiveSession.cwd. */
  private lookUpFolder(s: LiveSession): Promise<void> {
    s.folder ??= amplifierWorkingFolder(s.summary.file).then((dir) => {
      s.cwd = dir;
    });
    return s.folder;
  }

  private newStream(file: string, agent: AgentKind, gate: Gate, cwd: string | undefined, history?: DocumentHistory): TranscriptStream {
    const tree = this.tree;
    // A replayed write is not judged against the tree of today; one an earlier version of a
    // document had keeps the verdict it had then.
    const judgeWrite: WorkTreeView['judgeWrite'] = (session, path, callId) => {
      if (!tree || gate.muted) {
        return undefined;
      }
      return (history ?? this.verdictsOf(file)).verdict(callId, path, () => tree.judgeWrite(session, path, callId));
    };
    const services: RuleServices = {
      ...(tree ? { workTree: { judgeWrite } } : {}),
      ...(this.opts.hookLedger ? { hookLedger: this.opts.hookLedger } : {}),
    };
    const findings = this.findings;
    const sink: FindingSink = {
      add: (f) => {
        if (!gate.muted) {
          findings.add(f);
        }
      },
      retract: (id) => {
        if (!gate.muted) {
          findings.retract(id);
        }
      },
    };
    const stream: TranscriptStream = new TranscriptStream({
      file,
      adapters,
      rules: this.opts.rules ?? allRules,
      ...(this.opts.config ? { config: this.opts.config } : {}),
      mode: 'live',
      sink,
      // Trust the folder only where it is the agent's own layout; extra folders are sniffed.
      ...(agentForPath(file) === agent ? { agent } : {}),
      clock: this.clock,
      services,
      // The engine's lines (a rule that threw) carry no tag of their own.
      logger: scoped(this.logger, 'monitor'),
      fallbackSessionId: sessionIdFromPath(file, agent),
      ...(cwd !== undefined ? { cwd } : {}),
      before: (e) => this.before(file, stream, gate, e),
      observe: (e) => this.after(file, stream, gate, e),
    });
    return stream;
  }

  /**
   * Is a call of this time part of a history read at start-up (the first read of a transcript
   * last written before the monitor began), made too long ago to explain a change seen now?
   * (Not by its time alone: what is read live is judged live, whatever time its transcript gives.)
   */
  private oldHistory(file: string, timestamp: string | undefined): boolean {
    const s = this.sessions.get(file);
    return s !== undefined && s.fresh && s.summary.lastActivity < this.startedAt && tooOldToExplain(timestamp, this.clock());
  }

  /** Before the rules: the working tree learns when a session's write starts and ends. */
  private before(file: string, stream: TranscriptStream, gate: Gate, e: NormalizedEvent): void {
    this.lastLines.set(file, e.at.line);
    // (By bytes, not lines: an event a parser held past its line is told once it comes.)
    gate.fed = gate.fedBefore?.(e) ?? (gate.heardTo !== undefined && stream.consumedBytes <= gate.heardTo ? true : undefined);
    const tree = this.tree;
    if (!tree || gate.muted || gate.fed === true) {
      return;
    }
    if (e.kind === 'call') {
      for (const a of e.accesses) {
        if (a.op !== 'read') {
          tree.writeStarted(file, a.path, e.callId, { sessionId: stream.engine.sessionId, line: e.at.line, whole: replacesWhole(a.op) });
        }
      }
      for (const dir of e.rewrites ?? []) {
        tree.rewriteStarted(file, dir, e.callId, { sessionId: stream.engine.sessionId, line: e.at.line });
      }
    } else if (e.kind === 'worktree-entered') {
      // Before the engine takes the copies in as seen: then they would no longer count as new.
      for (const path of stream.engine.knowledge.copiesInto(e.from, e.to)) {
        tree.sessionSaw(file, path);
      }
    } else if (e.kind === 'result') {
      const call = stream.engine.conversation.call(e.callId);
      if (call && this.oldHistory(file, call.call.timestamp)) {
        // Done long ago: its window goes rather than ending now. (A call of that history with
        // no result keeps its window: it may still be running, a long build, at start-up.)
        tree.forgetWrite(
          file,
          e.callId,
          call.call.accesses.flatMap((a) => (a.op !== 'read' ? [a.path] : [])),
          call.call.rewrites !== undefined,
        );
        return;
      }
      if (call?.call.rewrites) {
        tree.rewriteEnded(file, e.callId);
      }
      for (const a of call?.call.accesses ?? []) {
        if (a.op !== 'read') {
          const after = e.write?.path === a.path && e.write.after !== undefined ? hashText(e.write.after) : undefined;
          tree.writeEnded(file, a.path, e.callId, after);
        }
      }
    }
  }

  /** After the rules: what the session now knows, and what the sessions view shows. */
  private after(file: string, stream: TranscriptStream, gate: Gate, e: NormalizedEvent): void {
    const s = this.sessions.get(file);
    if (s && s.stream === stream) {
      if (!gate.muted) {
        this.notifyFollowers(file, e);
      }
      const sum = s.summary;
      sum.agent = stream.agent ?? sum.agent;
      if (sum.agent === 'codex' && !gate.muted) {
        // For the writes only other transcripts show (BlindWriteFinder); not replayed ones.
        this.blind.observe(file, e);
      }
      if (e.kind === 'session') {
        sum.sessionId = stream.engine.sessionId;
        sum.title = e.title ?? sum.title;
        sum.startedAt ??= e.startedAt;
        sum.cwd = e.cwd ?? sum.cwd;
        sum.parentSessionId = e.parentSessionId ?? sum.parentSessionId;
      } else if (e.kind === 'text' && e.prompt && sum.firstPrompt === undefined && e.preview) {
        sum.firstPrompt = e.preview;
        sum.startedAt ??= e.timestamp;
      } else if (sum.startedAt === undefined && 'timestamp' in e && e.timestamp) {
        sum.startedAt = e.timestamp;
      }
    }
    const tree = this.tree;
    if (!tree || gate.muted || gate.fed === true) {
      return;
    }
    // Files the session came to know without a call: what it saw as it was then, or wrote.
    if (e.kind === 'file-attached') {
      tree.sessionSaw(file, e.path, e.read && e.read.startLine <= 1 && e.read.numLines >= e.read.totalLines ? { hash: hashText(e.read.content) } : {});
      return;
    }
    if (e.kind === 'file-created') {
      tree.sessionWrote(file, e.path, e.content === undefined ? undefined : hashText(e.content));
      return;
    }
    if (e.kind === 'text' && e.mentions) {
      for (const path of e.mentions) {
        tree.sessionSaw(file, path);
      }
      return;
    }
    if (e.kind !== 'result' || e.isError) {
      return;
    }
    const call = stream.engine.conversation.call(e.callId);
    if (!call || call.results.length !== 1) {
      return;
    }
    // The event's own time: a guard hook may already have reported this call, or a later one.
    const eventAt = e.timestamp !== undefined ? Date.parse(e.timestamp) : NaN;
    const o = { callId: e.callId, ...(Number.isNaN(eventAt) ? {} : { eventAt }) };
    for (const a of call.call.accesses) {
      if (a.op === 'read') {
        // A pattern's files are not known here (the session's own knowledge matches them as
        // they come up); the tree follows real paths only.
        if (!a.glob) {
          tree.sessionSaw(file, a.path, o);
        }
      } else if (a.op !== 'delete') {
        const after = e.write?.path === a.path && e.write.after !== undefined ? hashText(e.write.after) : undefined;
        const before = e.write?.path === a.path && e.write.type === 'update' && e.write.before !== null ? hashText(e.write.before) : undefined;
        tree.sessionWrote(file, a.path, after, { ...o, whole: replacesWhole(a.op), ...(before !== undefined ? { beforeHash: before } : {}) });
        if (a.from !== undefined) {
          // A folder moved (`mv specs/001-a specs/001-b`): the files the session knew in it are
          // there now, as the session's knowledge has them (the engine moved them first).
          for (const path of stream.engine.knowledge.seenUnder(a.path)) {
            tree.sessionSaw(file, path, o);
          }
        }
      }
    }
  }

  dispose(): void {
    void this.close();
  }

  /** Disposes and waits for file watchers to close (clean exits, tests). */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    this.disposed = true;
    clearInterval(this.tickTimer);
    clearInterval(this.sweepTimer);
    for (const t of this.returning.values()) {
      clearTimeout(t);
    }
    this.returning.clear();
    for (const d of this.subscriptions) {
      d.dispose();
    }
    for (const s of this.sessions.values()) {
      clearTimeout(s.settleTimer);
      s.tail.dispose();
    }
    const closing = Promise.all([this.watcher.close(), this.tree?.dispose()]);
    this.sessionsChanged.dispose();
    this.firstReadDone.dispose();
    this.findings.dispose();
    await closing;
  }
}

/** `O_NONBLOCK` where there is one (not on Windows, which has no FIFOs in the file system). */
const nonBlocking = fsConstants.O_NONBLOCK ?? 0;

/** Reads bytes [0, end) of a file in chunks. */
async function readRange(file: string, end: number, push: (bytes: Uint8Array) => void): Promise<void> {
  // Without blocking: a FIFO put in a transcript's place would hold the open until a writer came,
  // and with it one of the few read slots every wake and re-read waits for.
  const handle = await open(file, fsConstants.O_RDONLY | nonBlocking);
  const buf = acquireReadBuffer();
  try {
    if (!(await handle.stat()).isFile()) {
      throw new AgentGuardError('io', `${file} is not a regular file`);
    }
    let pos = 0;
    while (pos < end) {
      const { bytesRead } = await handle.read(buf, 0, Math.min(buf.length, end - pos), pos);
      if (bytesRead === 0) {
        return;
      }
      push(buf.subarray(0, bytesRead));
      pos += bytesRead;
    }
  } finally {
    releaseReadBuffer(buf);
    await handle.close();
  }
}

/** A write that puts the whole file there (Write, write_file, `>`): the session knows all of it after, whatever it held before. */
function replacesWhole(op: AccessOp): boolean {
  return op === 'write' || op === 'create';
}
