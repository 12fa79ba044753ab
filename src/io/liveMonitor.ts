import { stat } from 'node:fs/promises';
import * as nodePath from 'node:path';
import type { RuleConfig } from '../core/config/ruleConfig';
import { agentForPath, type Environment } from '../core/discovery/locations';
import type { HookLedgerView, RuleModule, RuleServices } from '../core/engine/rule';
import { TranscriptStream } from '../core/engine/stream';
import type { Disposable } from '../core/lib/disposable';
import { Emitter } from '../core/lib/event';
import { describeError, nullLogger, scoped, type Logger } from '../core/lib/logger';
import type { AgentKind } from '../core/model/agent';
import type { NormalizedEvent, Span } from '../core/model/events';
import { adapters } from '../core/parse/registry';
import { allRules } from '../core/rules/all';
import { FindingStore } from './findingStore';
import { SessionWatcher, type SessionFileEvent, type WatchedRoot } from './sessionWatcher';
import { FileTail } from './tail';
import { hashText, WorkTree } from './workTree';

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
  isUserSave?: (path: string, at: number) => boolean;
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
}

/** A live follow of one session's events (see LiveMonitor.followSession). */
export interface SessionFollow extends Disposable {
  /** Bytes of the transcript read before the first event the listener sees. */
  readonly consumedBytes: number;
  /** The format the monitor reads the file as when its folder says so; else it is recognised from the content. */
  readonly forcedAgent: AgentKind | undefined;
}

interface LiveSession {
  summary: SessionSummary;
  stream: TranscriptStream;
  tail: FileTail;
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
  private readonly sessionsChanged = new Emitter<SessionSummary | undefined>();
  /** Fires when a session appears, grows, or goes (undefined: several changed). */
  readonly onDidChangeSessions = this.sessionsChanged.event;
  private tickTimer: ReturnType<typeof setInterval> | undefined;
  private sweepTimer: ReturnType<typeof setInterval> | undefined;
  private readonly subscriptions: Disposable[] = [];
  private readonly reading = new Set<Promise<void>>();
  /** Line of the last event read from each transcript (the guard reports there until a call's own line arrives). */
  private readonly lastLines = new Map<string, number>();
  /** Who follows a session's events (an open timeline), by transcript. */
  private readonly followers = new Map<string, Set<(e: NormalizedEvent) => void>>();
  private disposed = false;

  constructor(private readonly opts: LiveMonitorOptions) {
    this.logger = opts.logger ?? nullLogger;
    this.clock = opts.clock ?? Date.now;
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
        ...(opts.attributionGraceMs !== undefined ? { attributionGraceMs: opts.attributionGraceMs } : {}),
        ...(opts.usePolling !== undefined ? { usePolling: opts.usePolling } : {}),
      });
    }
    this.subscriptions.push(this.watcher.onDidChange((e) => this.onFileEvent(e)));
  }

  get watchedRoots(): readonly WatchedRoot[] {
    return this.watcher.watchedRoots;
  }

  /** Starts everything; resolves when existing sessions have been read once. */
  async start(): Promise<void> {
    await Promise.all([this.watcher.start(), this.tree?.start()]);
    await this.idle();
    this.tickTimer = setInterval(() => this.tick(), this.opts.tickMs ?? 15_000);
    this.tickTimer.unref?.();
    this.sweepTimer = setInterval(() => this.sweep(), this.opts.sweepMs ?? 2_000);
    this.sweepTimer.unref?.();
  }

  /** Resolves when every pending read has caught up (tests; `watch` before printing its summary). */
  async idle(): Promise<void> {
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

  /** Where a tool call sits in its transcript (to open it). */
  callLocation(file: string, callId: string): Span | undefined {
    return this.sessions.get(file)?.stream.engine.conversation.call(callId)?.call.at;
  }

  /** Where the session last read (or else wrote) a file: the transcript line holding what it saw. */
  lastSeen(file: string, path: string): { at: Span; how: 'read' | 'write' } | undefined {
    const k = this.sessions.get(file)?.stream.engine.knowledge.get(path);
    if (k?.lastRead) {
      return { at: k.lastRead, how: 'read' };
    }
    return k?.lastWrite ? { at: k.lastWrite, how: 'write' } : undefined;
  }

  /** Reads every session again from the start (re-check all); unchanged findings are not re-announced. */
  async recheck(): Promise<void> {
    for (const s of this.sessions.values()) {
      this.findings.beginGeneration(s.summary.file);
      s.stream = this.newStream(s.summary.file, s.summary.agent);
      s.tail.dispose();
      s.tail = this.newTail(s.summary.file);
      this.read(s);
    }
    await this.idle();
  }

  /**
   * A safety net under the file watchers: look at recently active sessions again. Watchers
   * coalesce and drop events under load; the tail reads only if the file really changed.
   */
  private sweep(): void {
    const now = this.clock();
    for (const s of this.sessions.values()) {
      if (now - s.summary.lastActivity < 10 * 60_000) {
        this.read(s);
      }
    }
  }

  /** Time passes: stalled-call and other time-based rules look again. */
  tick(now = this.clock()): void {
    for (const s of this.sessions.values()) {
      try {
        s.stream.tick(now);
      } catch (e) {
        this.logger.error(`[monitor] tick failed for ${s.summary.file}: ${describeError(e)}`);
      }
    }
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
        const s: LiveSession = {
          summary: {
            file: e.file,
            agent: e.agent,
            sessionId: sessionIdFromFile(e.file, e.agent),
            title: undefined,
            firstPrompt: undefined,
            startedAt: undefined,
            lastActivity: this.clock(),
            cwd: undefined,
            parentSessionId: undefined,
            bytes: 0,
          },
          stream: this.newStream(e.file, e.agent),
          tail: this.newTail(e.file),
        };
        this.sessions.set(e.file, s);
        void stat(e.file).then(
          (info) => {
            // An existing file's age, not the time we found it, says whether it is live.
            s.summary.lastActivity = Math.min(s.summary.lastActivity, info.mtimeMs);
          },
          () => undefined,
        );
        this.read(s);
        return;
      }
      case 'unlink': {
        const s = this.sessions.get(e.file);
        if (s) {
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
    const p = s.tail.poke();
    this.reading.add(p);
    void p.finally(() => this.reading.delete(p));
    return p;
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

  /** Line of the last event read from a transcript so far. */
  lastLine(file: string): number | undefined {
    return this.lastLines.get(file);
  }

  /**
   * Follows one session's normalized events from now on (the timeline). No event is kept for
   * this: what came before is the transcript's first `consumedBytes` bytes, which the follower
   * reads from the file itself. After a re-read (truncation, re-check) events start over at line 1.
   */
  followSession(file: string, listener: (e: NormalizedEvent) => void): SessionFollow | undefined {
    const s = this.sessions.get(file);
    if (!s) {
      return undefined;
    }
    let set = this.followers.get(file);
    if (!set) {
      set = new Set();
      this.followers.set(file, set);
    }
    set.add(listener);
    return {
      consumedBytes: s.stream.consumedBytes,
      forcedAgent: agentForPath(file) === s.summary.agent ? s.summary.agent : undefined,
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
    if (this.findings.inGeneration(file)) {
      this.findings.endGeneration(file);
    }
    if (s.tail.bytesRead !== s.summary.bytes) {
      s.summary.bytes = s.tail.bytesRead;
      s.summary.lastActivity = Math.max(s.summary.lastActivity, this.clock());
      this.sessionsChanged.fire(s.summary);
    }
  }

  private newTail(file: string): FileTail {
    return new FileTail(
      file,
      {
        push: (bytes) => this.sessions.get(file)?.stream.push(bytes),
        reset: (reason) => {
          const s = this.sessions.get(file);
          if (!s) {
            return;
          }
          this.logger.info(`[monitor] ${file} was ${reason}; reading it again`);
          this.findings.beginGeneration(file);
          this.tree?.forgetSession(file);
          s.stream = this.newStream(file, s.summary.agent);
          s.summary.bytes = 0;
        },
        gone: () => {
          this.logger.info(`[monitor] ${file} was deleted`);
          const s = this.sessions.get(file);
          this.sessions.delete(file);
          s?.tail.dispose();
          this.findings.clearFile(file);
          this.tree?.forgetSession(file);
          this.lastLines.delete(file);
          this.sessionsChanged.fire(undefined);
        },
      },
      {
        onError: (e) => this.logger.warn(`[monitor] cannot read ${file}: ${describeError(e)}`),
        onCaughtUp: () => this.caughtUp(file),
      },
    );
  }

  private newStream(file: string, agent: AgentKind): TranscriptStream {
    const services: RuleServices = {
      ...(this.tree ? { workTree: this.tree } : {}),
      ...(this.opts.hookLedger ? { hookLedger: this.opts.hookLedger } : {}),
    };
    const stream: TranscriptStream = new TranscriptStream({
      file,
      adapters,
      rules: this.opts.rules ?? allRules,
      ...(this.opts.config ? { config: this.opts.config } : {}),
      mode: 'live',
      sink: this.findings,
      // Trust the folder only where it is the agent's own layout; extra folders are sniffed.
      ...(agentForPath(file) === agent ? { agent } : {}),
      clock: this.clock,
      services,
      logger: this.logger,
      fallbackSessionId: sessionIdFromFile(file, agent),
      before: (e) => this.before(file, stream, e),
      observe: (e) => this.after(file, stream, e),
    });
    return stream;
  }

  /** Before the rules: the working tree learns when a session's write starts and ends. */
  private before(file: string, stream: TranscriptStream, e: NormalizedEvent): void {
    this.lastLines.set(file, e.at.line);
    const tree = this.tree;
    if (!tree) {
      return;
    }
    if (e.kind === 'call') {
      for (const a of e.accesses) {
        if (a.op !== 'read') {
          tree.writeStarted(file, a.path, e.callId, { sessionId: stream.engine.sessionId, line: e.at.line });
        }
      }
    } else if (e.kind === 'result') {
      const call = stream.engine.conversation.call(e.callId);
      for (const a of call?.call.accesses ?? []) {
        if (a.op !== 'read') {
          const after = e.write?.path === a.path && e.write.after !== undefined ? hashText(e.write.after) : undefined;
          tree.writeEnded(file, a.path, e.callId, after);
        }
      }
    }
  }

  /** After the rules: what the session now knows, and what the sessions view shows. */
  private after(file: string, stream: TranscriptStream, e: NormalizedEvent): void {
    const s = this.sessions.get(file);
    if (s && s.stream === stream) {
      this.notifyFollowers(file, e);
      const sum = s.summary;
      sum.agent = stream.agent ?? sum.agent;
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
    if (!tree || e.kind !== 'result' || e.isError) {
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
        tree.sessionSaw(file, a.path, o);
      } else if (a.op !== 'delete') {
        const after = e.write?.path === a.path && e.write.after !== undefined ? hashText(e.write.after) : undefined;
        tree.sessionWrote(file, a.path, after, o);
      }
    }
  }

  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    if (this.tickTimer) {
      clearInterval(this.tickTimer);
    }
    if (this.sweepTimer) {
      clearInterval(this.sweepTimer);
    }
    for (const d of this.subscriptions) {
      d.dispose();
    }
    for (const s of this.sessions.values()) {
      s.tail.dispose();
    }
    this.watcher.dispose();
    void this.tree?.dispose();
    this.sessionsChanged.dispose();
    this.findings.dispose();
  }

  /** Disposes and waits for file watchers to close (clean exits, tests). */
  async close(): Promise<void> {
    const tree = this.tree;
    const watcher = this.watcher;
    this.disposed = true;
    if (this.tickTimer) {
      clearInterval(this.tickTimer);
    }
    if (this.sweepTimer) {
      clearInterval(this.sweepTimer);
    }
    for (const d of this.subscriptions) {
      d.dispose();
    }
    for (const s of this.sessions.values()) {
      s.tail.dispose();
    }
    await Promise.all([watcher.close(), tree?.dispose()]);
    this.sessionsChanged.dispose();
    this.findings.dispose();
  }
}

/** Until a transcript names its session, its file name does (Claude: `<uuid>.jsonl`; Amplifier: the folder). */
export function sessionIdFromFile(file: string, agent: AgentKind): string {
  if (agent === 'amplifier') {
    return nodePath.basename(nodePath.dirname(file));
  }
  return nodePath.basename(file).replace(/\.jsonl$/, '');
}
