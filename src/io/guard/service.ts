import * as nodePath from 'node:path';
import { displayPath } from '../../core/classify/paths';
import { decide } from '../../core/guard/decide';
import type { GuardWireRequest, GuardWireResponse, InflightWrite, PostRequest, PreRequest, ServiceInfo } from '../../core/guard/protocol';
import { defaultGuardPolicy, type GuardFileState, type GuardPolicy, type HookAgent, type Verdict } from '../../core/guard/types';
import type { Disposable } from '../../core/lib/disposable';
import { AgentGuardError } from '../../core/lib/errors';
import { describeError, nullLogger, type Logger } from '../../core/lib/logger';
import type { AgentKind } from '../../core/model/agent';
import { writeOps } from '../../core/model/events';
import type { Finding } from '../../core/model/finding';
import { guardFinding, guardRule } from '../../core/rules/guard';
import type { LiveMonitor } from '../liveMonitor';
import { hookCallPrefix, type WorkTree } from '../workTree';
import { ServedLedgerView, servingHeartbeatMs, type HookLedger, type LedgerEntry } from './ledger';
import { runningGeminiSubAgent } from './geminiSubAgent';
import { GuardServer, serviceAnswers } from './server';
import { guardDir, realWorkspace, socketPathFor } from './socketPath';

/** The host's editors: does a file have unsaved changes? (The extension provides it; the CLI has none.) */
export interface DirtyBuffers {
  isDirty(path: string): boolean;
}

export interface GuardServiceOptions {
  workspace: string;
  /** Feeds the guard: the working tree, and what each session read and wrote per its transcript. */
  monitor: LiveMonitor;
  /** The ledger the monitor's rules read (through `servedLedgerView`, LiveMonitorOptions.hookLedger). */
  ledger: HookLedger;
  dirtyBuffers?: DirtyBuffers;
  policy?: Partial<GuardPolicy>;
  logger?: Logger;
  /** The per-user socket directory (default: guardDir()). */
  dir?: string;
  clock?: () => number;
  /**
   * An allowed write with no post-tool report and no transcript result counts as in flight
   * this long: a write can wait on the user's permission prompt, but a rejected one never
   * reports back.
   */
  inflightExpiryMs?: number;
  /** How long to let a transcript catch up before judging a call (it lags the hook). */
  catchUpMs?: number;
  version?: string;
}

/** Guard findings reported on a stand-in line, waiting for their call's line. */
interface Unplaced {
  file: string;
  callId: string;
  findings: Finding[];
}

/** How long an unanswered write counts as in flight for `repair` (the work tree keeps them 10 minutes at most). */
const repairInflightMs = 10 * 60_000;


/**
 * The guard service of one workspace: answers the hooks' "may session S write P now?" on the
 * workspace's socket, from the working tree (content hashes now), what S last read or wrote
 * (hook reports, and transcripts as the live monitor reads them), the editor's dirty buffers
 * and other sessions' writes in flight. Every objection is logged, recorded in the hook
 * ledger and reported as a `guard` finding.
 */
export class GuardService implements Disposable {
  private policy: GuardPolicy;
  private dirty: DirtyBuffers | undefined;
  private readonly logger: Logger;
  private readonly clock: () => number;
  private readonly tree: WorkTree;
  private lock: Promise<unknown> = Promise.resolve();
  /**
   * The session id each transcript's hooks gave. A Codex sub-agent's give its root thread's id
   * beside its own rollout, so this is how a change by it is known as the main session's sub-agent's.
   */
  private readonly hookSessionIds = new Map<string, string>();
  private server: GuardServer | undefined;
  /** Repeats the ledger's serving mark while this service listens (see HookLedger.markServing). */
  private heartbeat: ReturnType<typeof setInterval> | undefined;
  private closed = false;
  readonly info: ServiceInfo;

  private constructor(private readonly opts: GuardServiceOptions) {
    if (!opts.monitor.tree) {
      throw new AgentGuardError('usage', 'the guard needs the working tree: start the monitor with watchTree on');
    }
    this.tree = opts.monitor.tree;
    this.policy = { ...defaultGuardPolicy, ...opts.policy };
    this.dirty = opts.dirtyBuffers;
    this.logger = opts.logger ?? nullLogger;
    this.clock = opts.clock ?? Date.now;
    this.info = { pid: process.pid, workspace: realWorkspace(opts.workspace), version: opts.version ?? '0', startedAt: this.clock() };
  }

  /** Creates the service and starts listening on the workspace's socket. */
  static async start(opts: GuardServiceOptions): Promise<GuardService> {
    const service = new GuardService(opts);
    const dir = opts.dir ?? guardDir();
    service.server = await GuardServer.listen({
      socketPath: socketPathFor(opts.workspace, dir),
      dir,
      handle: (r) => service.handle(r),
      ...(opts.logger ? { logger: opts.logger } : {}),
    });
    // Before the first question is read (this runs on, synchronously, from the bind).
    service.recallHookReports();
    // From now on a call the hook does not report went around it (unapproved-call).
    opts.ledger.markServing(service.clock());
    service.heartbeat = setInterval(() => opts.ledger.markServing(service.clock()), servingHeartbeatMs);
    service.heartbeat.unref?.();
    return service;
  }

  /** A service that does not listen: `handle` is called directly (in-process tests). */
  static detached(opts: GuardServiceOptions): GuardService {
    return new GuardService(opts);
  }

  get socketPath(): string | undefined {
    return this.server?.socketPath;
  }

  setPolicy(policy: Partial<GuardPolicy>): void {
    this.policy = { ...defaultGuardPolicy, ...policy };
  }

  setDirtyBuffers(dirty: DirtyBuffers | undefined): void {
    this.dirty = dirty;
  }

  async handle(request: GuardWireRequest): Promise<GuardWireResponse> {
    switch (request.type) {
      case 'ping':
        return { v: 1, ok: true, type: 'pong', service: this.info };
      case 'pre':
        return { v: 1, ok: true, type: 'verdict', verdict: await this.pre(request) };
      case 'post':
        await this.post(request);
        return { v: 1, ok: true, type: 'recorded' };
      case 'inflight':
        return { v: 1, ok: true, type: 'inflight', writes: await this.inflightOf(request.transcriptPath) };
    }
  }

  /**
   * The session's writes still running, as far as this service knows. Over a longer window
   * than the guard's own judgement: a write can wait on the user's permission for minutes, and
   * rewriting the transcript under it is what the question is asked to avoid.
   */
  private async inflightOf(transcriptPath: string): Promise<InflightWrite[]> {
    const key = nodePath.resolve(transcriptPath);
    // What the transcript already answered is not in flight: read it up to now first.
    await this.catchUp(key);
    return this.tree.openWritesOf(key, repairInflightMs).map((w) => ({
      path: w.path,
      // A stand-in id of ours (the hook named no call) means nothing to the asker.
      ...(w.callId.startsWith(hookCallPrefix) ? {} : { callId: w.callId }),
      since: w.start,
    }));
  }

  /**
   * What the hooks reported each session read and wrote, as the ledger holds it (as far back as
   * it keeps entries): a new service (the host restarted, or took the service over) knew only
   * what the transcripts say, a read they hold hashed as the file is now, so a change made while
   * no guard ran passed as read, and a read they do not hold yet counted as none. Per session
   * and file the last report goes to the working tree with the hash the hook computed then,
   * unless the session's transcript saw the file after it (a read made while no guard answered).
   */
  private recallHookReports(): void {
    const last = new Map<string, { key: string; entry: LedgerEntry; path: LedgerEntry['paths'][number] }>();
    /** When the hook reported each call it saw, per session. */
    const reportedAt = new Map<string, number>();
    // (Looked up once per session: a hook without a transcript is matched among all sessions.)
    const keys = new Map<string, string>();
    for (const entry of this.opts.ledger.all()) {
      const named = `${entry.agent}\0${entry.sessionId}\0${entry.transcriptPath ?? ''}`;
      const key = keys.get(named) ?? this.sessionKey(entry);
      keys.set(named, key);
      this.hookSessionIds.set(key, entry.sessionId);
      if (entry.toolUseId !== undefined) {
        reportedAt.set(`${key}\0${entry.toolUseId}`, entry.at);
      }
      if (entry.kind !== 'post' || entry.failed) {
        continue;
      }
      for (const p of entry.paths) {
        // (A read without the hook's hash would be taken as the file is now: nothing learned.)
        if (p.op !== 'delete' && !(p.op === 'read' && p.hash === undefined)) {
          last.set(`${key}\0${p.path}`, { key, entry, path: p });
        }
      }
    }
    for (const { key, entry, path: p } of last.values()) {
      const seen = this.tree.lastSeen(key, p.path);
      if (seen?.source === 'hook') {
        // Reported to this process's working tree already (a service before this one in it).
        continue;
      }
      if (seen && !(seen.callId !== undefined && seen.callId === entry.toolUseId)) {
        // The transcript's own last sight of the file: newer unless known to be older.
        const then = seen.callId !== undefined ? (reportedAt.get(`${key}\0${seen.callId}`) ?? this.opts.monitor.knownCallTime(key, seen.callId)) : undefined;
        if (then === undefined || then >= entry.at) {
          continue;
        }
      }
      const o = { source: 'hook' as const, ...(entry.toolUseId !== undefined ? { callId: entry.toolUseId } : {}) };
      if (p.op === 'read') {
        this.tree.sessionSaw(key, p.path, { ...o, hash: p.hash });
      } else {
        this.tree.sessionWrote(key, p.path, p.hash ?? undefined, o);
      }
    }
  }

  /**
   * Sessions are keyed by transcript file, as the live monitor keys them; a hook without a
   * transcript path (Codex may send null) is matched to a transcript by session id.
   */
  private sessionKey(r: Pick<PreRequest, 'transcriptPath' | 'sessionId' | 'agent'>): string {
    if (r.transcriptPath) {
      return nodePath.resolve(r.transcriptPath);
    }
    const s = this.opts.monitor.sessionList().find((x) => x.sessionId === r.sessionId);
    return s ? s.file : `session:${r.agent}:${r.sessionId}`;
  }

  /**
   * The session's id as the monitor names its transcript: a sub-agent's own, though its hooks
   * give the main session's (`<session>/agent-<id>` for Claude Code, its own id for Gemini CLI,
   * its thread id for Codex, the end of its rollout's name: before the monitor has read a Codex
   * sub-agent's rollout, its write in flight was named by the root thread's id, the main
   * session's own).
   */
  private sessionName(key: string, r: PreRequest | PostRequest): string {
    const known = this.opts.monitor.session(key)?.sessionId;
    if (known !== undefined) {
      return known;
    }
    const claude = /[\\/]subagents[\\/]agent-([^\\/]+)\.jsonl$/.exec(key);
    if (claude) {
      return `${r.sessionId}/agent-${claude[1]}`;
    }
    const codex = r.agent === 'codex' ? /[\\/]rollout-[^\\/]*-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(key) : null;
    if (codex) {
      return codex[1]!;
    }
    return nodePath.basename(nodePath.dirname(key)) === r.sessionId ? nodePath.basename(key, '.jsonl') : r.sessionId;
  }

  /**
   * Is `transcript` a sub-agent's of the session whose transcript is `main`? Claude Code keeps a
   * sub-agent's at `<session>/subagents/agent-<id>.jsonl` beside the main one, Gemini CLI at
   * `chats/<main session id>/<its id>.jsonl` (`mainId`: the id the hook gave). Codex CLI 0.171
   * keeps it in a rollout of its own, `rollout-<time>-<thread id>.jsonl` like any session's, and
   * its hooks give the root thread's id (the main session's, which is in the main rollout's
   * name): without this, the model was told its sub-agent's change was another session's.
   */
  private isSubAgentOf(transcript: string, main: string, mainId: string): boolean {
    const dir = nodePath.dirname(transcript);
    return (
      (nodePath.basename(dir) === 'subagents' && nodePath.dirname(dir) === main.replace(/\.jsonl$/, '')) ||
      dir === nodePath.join(nodePath.dirname(main), mainId) ||
      (transcript !== main && this.hookSessionIds.get(transcript) === mainId && nodePath.basename(main).endsWith(`-${mainId}.jsonl`))
    );
  }

  /** Decisions and reports run one at a time: two sessions asking at once must see each other's write. */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.lock.then(fn, fn);
    this.lock = run.catch(() => undefined);
    return run;
  }

  private async catchUp(key: string): Promise<void> {
    const monitor = this.opts.monitor;
    if (!monitor.session(key)) {
      return;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      monitor.catchUp(key),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.opts.catchUpMs ?? 150);
      }),
    ]);
    clearTimeout(timer);
  }

  /**
   * The session a hook is really from. Gemini CLI sends a sub-agent's hooks under its main
   * session's id and transcript: while a sub-agent of that session runs, they are taken as its
   * own (see runningGeminiSubAgent), so neither session is credited with the other's reads and
   * writes.
   */
  private async attribute<R extends PreRequest | PostRequest>(r: R): Promise<R> {
    if (r.agent !== 'gemini' || !r.transcriptPath) {
      return r;
    }
    const sub = await runningGeminiSubAgent(nodePath.resolve(r.transcriptPath), r.sessionId);
    if (!sub) {
      return r;
    }
    this.logger.debug(`[guard] ${r.tool} named Gemini CLI session ${r.sessionId}, whose sub-agent ${sub.sessionId} is running: taken as the sub-agent's`);
    // The session id stays the hook's: the ledger files the sub-agent's calls under it, as the
    // rules that read the ledger look them up (see rules/support/hookSession.ts).
    return { ...r, transcriptPath: sub.file };
  }

  private async pre(asked: PreRequest): Promise<Verdict> {
    const r = await this.attribute(asked);
    const key = this.sessionKey(r);
    this.hookSessionIds.set(key, r.sessionId);
    await this.catchUp(key);
    const { verdict, unplaced } = await this.exclusive(() => this.judge(r, key));
    if (unplaced) {
      // After the verdict: the hook gives up (and lets the write through) long before a
      // sleeping session's transcript is read again.
      void this.place(unplaced);
    }
    return verdict;
  }

  /**
   * Decides one call and reports it. Runs in the exclusive section, so it only looks at what
   * is in memory; findings whose call line is not known yet come back to be placed later.
   */
  private async judge(r: PreRequest, key: string): Promise<{ verdict: Verdict; unplaced: Unplaced | undefined }> {
    const targets = unique(r.paths.filter((p) => writeOps.has(p.op)).map((p) => p.path));
    const files: GuardFileState[] = [];
    for (const path of targets) {
      await this.tree.refresh(path);
      files.push(this.fileState(key, r.sessionId, path));
    }
    const verdict = decide(r, { files }, this.policy);
    const at = this.clock();
    const seq = this.opts.ledger.nextSeq();
    if (verdict.action !== 'deny') {
      const callId = r.toolUseId ?? hookCallPrefix + seq;
      for (const path of targets) {
        this.tree.writeStarted(key, path, callId, { sessionId: this.sessionName(key, r) });
      }
    }
    const records = this.opts.ledger.record({
      kind: 'pre',
      at,
      ...ledgerCall(r, key),
      seq,
      verdict: { action: verdict.action, hits: verdict.hits },
    });
    const monitor = this.opts.monitor;
    const file = r.transcriptPath ? key : undefined;
    const callLine = file && r.toolUseId !== undefined ? monitor.knownCallLocation(file, r.toolUseId)?.line : undefined;
    const reported: Finding[] = [];
    const level = monitor.ruleLevel(guardRule.meta);
    // Recorded in the ledger either way: turning the rule on again brings them back.
    if (level !== 'off') {
      for (const rec of records) {
        const finding = guardFinding(rec, {
          // With no transcript to point into, the finding sits on the file it protected.
          file: file ?? rec.path,
          line: file ? (callLine ?? monitor.lastLine(file) ?? 1) : 1,
          agent: agentKind(r.agent),
          session: this.sessionName(key, r),
          ...(r.toolUseId !== undefined ? { callId: r.toolUseId } : {}),
          displayPath: displayPath(rec.path, r.cwd),
        }, level);
        monitor.findings.add(finding);
        reported.push(finding);
      }
    }
    const what = `${r.tool} of ${targets.map((p) => displayPath(p, r.cwd)).join(', ') || '(no file)'} by ${r.agent} session ${this.sessionName(key, r)}`;
    if (verdict.action === 'allow') {
      this.logger.info(`[guard] allow ${what}`);
    } else {
      this.logger.info(`[guard] ${verdict.action} ${what}: ${verdict.hits.map((h) => h.decision).join(', ')}: ${verdict.reason}`);
    }
    const unplaced =
      file && r.toolUseId !== undefined && callLine === undefined && reported.length > 0 ? { file, callId: r.toolUseId, findings: reported } : undefined;
    return { verdict, unplaced };
  }

  /**
   * Moves findings reported on the transcript's last line to their call's line, waking the
   * session if it sleeps (its state is rebuilt from the whole transcript). For a session that
   * is awake and has not recorded the call yet this finds nothing: the guard rule moves the
   * finding when the call's line is read.
   */
  private async place(u: Unplaced): Promise<void> {
    try {
      const at = await this.opts.monitor.callLocation(u.file, u.callId);
      if (!at || this.closed) {
        return;
      }
      const store = this.opts.monitor.findings;
      // Only moved, never brought back: Clear Findings may have dropped it meanwhile.
      const present = new Set(store.forFile(u.file).map((f) => f.id));
      for (const f of u.findings.filter((x) => present.has(x.id))) {
        store.add({ ...f, line: at.line, endLine: at.line });
      }
    } catch (e) {
      this.logger.warn(`[guard] cannot find call ${u.callId} in ${u.file}: ${describeError(e)}`);
    }
  }

  private fileState(key: string, sessionId: string, path: string): GuardFileState {
    const tree = this.tree;
    const seen = tree.lastSeen(key, path);
    const changes = seen
      ? tree
          .history(path)
          .filter((c) => c.at > seen.at)
          .map((c) => ({
            at: c.at,
            by: c.by,
            hash: c.hash,
            mine: c.by.kind === 'session' && c.by.session === key,
            ...(c.by.kind === 'session' && this.isSubAgentOf(c.by.session, key, sessionId) ? { bySubAgent: true } : {}),
          }))
      : [];
    const inflight = tree
      .openWrites(path, this.opts.inflightExpiryMs ?? 60_000)
      .filter((w) => w.session !== key)
      .map((w) => ({
        label: w.sessionId ?? transcriptName(w.session),
        since: w.start,
        // A background sub-agent's write waiting on the user is its main session's own work in flight.
        ...(this.isSubAgentOf(w.session, key, sessionId) ? { bySubAgent: true } : {}),
      }));
    return {
      path,
      current: tree.currentHash(path) ?? null,
      ...(seen ? { seen: { at: seen.at, hash: seen.hash, how: seen.how } } : {}),
      changes,
      dirty: this.dirty?.isDirty(path) ?? false,
      inflight,
    };
  }

  private async post(reported: PostRequest): Promise<void> {
    const r = await this.attribute(reported);
    const key = this.sessionKey(r);
    this.hookSessionIds.set(key, r.sessionId);
    await this.exclusive(() => {
      const o = { source: 'hook' as const, ...(r.toolUseId !== undefined ? { callId: r.toolUseId } : {}) };
      for (const p of r.paths) {
        if (p.op === 'read') {
          if (!r.failed) {
            this.tree.sessionSaw(key, p.path, { ...o, hash: p.hash });
          }
          continue;
        }
        this.tree.writeEnded(key, p.path, r.toolUseId, r.failed ? undefined : (p.hash ?? undefined), { exact: !r.failed });
        if (!r.failed && p.op !== 'delete') {
          this.tree.sessionWrote(key, p.path, p.hash ?? undefined, o);
        }
      }
      this.opts.ledger.record({
        kind: 'post',
        at: this.clock(),
        ...ledgerCall(r, key),
        seq: this.opts.ledger.nextSeq(),
        ...(r.failed ? { failed: true } : {}),
      });
      this.logger.debug(`[guard] ${r.failed ? 'failed' : 'done'}: ${r.tool} of ${r.paths.map((p) => displayPath(p.path, r.cwd)).join(', ')} by ${r.agent} session ${this.sessionName(key, r)}`);
      return Promise.resolve();
    });
  }

  dispose(): void {
    void this.close();
  }

  /** Stops listening (removes the socket) and waits for the ledger to be written. */
  async close(): Promise<void> {
    this.closed = true;
    const server = this.server;
    this.server = undefined;
    clearInterval(this.heartbeat);
    // First, and at once: `dispose()` does not wait for this, and the host may be exiting.
    if (server) {
      this.opts.ledger.markStopped(this.clock());
    }
    await server?.close();
    await this.opts.ledger.flush();
  }
}

/**
 * The ledger as a host's rules should see it, before the host's own guard service starts
 * (the service needs the monitor, and the monitor's rules need the ledger from the first
 * read): withdrawn at once when another host already answers this workspace's hooks. A host
 * whose service then fails to start withdraws it too (`ServedLedgerView.withdraw`).
 */
export async function servedLedgerView(ledger: HookLedger, workspace: string, dir: string = guardDir()): Promise<ServedLedgerView> {
  const view = new ServedLedgerView(ledger);
  if (await serviceAnswers(socketPathFor(workspace, dir))) {
    view.withdraw();
  }
  return view;
}

function agentKind(a: HookAgent): AgentKind | 'unknown' {
  switch (a) {
    case 'claude':
      return 'claude-code';
    case 'gemini':
      return 'gemini';
    case 'codex':
      return 'codex';
    case 'copilot':
      return 'unknown';
  }
}

function transcriptName(session: string): string {
  return nodePath.basename(session).replace(/\.jsonl$/, '');
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}

/** What the ledger records of a call, before and after it alike (`key`: the transcript, resolved). */
function ledgerCall(r: PreRequest | PostRequest, key: string) {
  return {
    agent: r.agent,
    sessionId: r.sessionId,
    ...(r.transcriptPath ? { transcriptPath: key } : {}),
    tool: r.tool,
    ...(r.toolUseId !== undefined ? { toolUseId: r.toolUseId } : {}),
    ...(r.inputHash !== undefined ? { inputHash: r.inputHash } : {}),
    paths: r.paths,
  };
}
