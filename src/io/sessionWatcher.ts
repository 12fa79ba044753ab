import { watch, type FSWatcher } from 'chokidar';
import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import * as nodePath from 'node:path';
import {
  agentForPath,
  amplifierSessionsDir,
  claudeProjectMatches,
  claudeProjectsDirs,
  codexSessionsDir,
  geminiTmpDir,
  isTranscriptName,
  isWithin,
  type Environment,
} from '../core/discovery/locations';
import type { Disposable } from '../core/lib/disposable';
import { errnoCode } from '../core/lib/errors';
import { Emitter } from '../core/lib/event';
import { describeError, nullLogger, type Logger } from '../core/lib/logger';
import type { AgentKind } from '../core/model/agent';
import { codexCwd, geminiProjectsOf, maxFolderDepth, realPathOf, skippedDirs, workspaceSpellings } from './discovery';

/**
 * How often (about once a second) a file that cannot be judged yet is asked about again;
 * after that only a change of the file makes it be asked again.
 */
const maxUndecidedTries = 60;

/** A folder watched for one agent's sessions. */
export interface WatchedRoot {
  agent: AgentKind;
  path: string;
  /**
   * Which files below `path` can be transcripts at all, by name (JSON lines unless said
   * otherwise): the others are not watched.
   */
  names?: (file: string) => boolean;
  /** Decides which files below `path` are this workspace's transcripts. */
  /** 'later': cannot tell yet (a rollout whose first record is not written yet); asked again. */
  accepts: (file: string) => boolean | 'later' | Promise<boolean | 'later'>;
  depth: number;
  exists: boolean;
  /** Folders below `path` by these names are not entered (neither watched nor searched). */
  skips?: ReadonlySet<string>;
}

/** A transcript (or Amplifier's execution log, which is followed like one) appeared, grew, or went. */
export type SessionFileEvent =
  | { type: 'add'; file: string; agent: AgentKind }
  | { type: 'change'; file: string; agent: AgentKind }
  | { type: 'unlink'; file: string; agent: AgentKind };

export interface SessionWatcherOptions {
  workspace: string;
  environment: Environment;
  agents?: Partial<Record<AgentKind, boolean>>;
  extraFolders?: readonly string[];
  logger?: Logger;
  /** How often a root that does not exist yet is looked for. */
  pendingPollMs?: number;
  usePolling?: boolean;
  /** With `usePolling`: chokidar's interval (tests make it long, to see what does not rely on it). */
  pollIntervalMs?: number;
}

/**
 * Finds and follows the transcripts of one workspace in the agents' own folders: Claude Code
 * (`projects/<encoded cwd>/`, sub-agents included), Codex (`sessions/**`, matched by the
 * rollout's cwd), Gemini CLI (`tmp/<project>/chats/`, its legacy one-document `.json` sessions
 * included), Amplifier
 * (`projects/<slug>/sessions/<id>/transcript.jsonl`) and extra folders. Folders that do not
 * exist yet are polled for and watched once they appear; a folder deleted under the watcher
 * goes back to being polled for.
 */
export class SessionWatcher implements Disposable {
  private readonly roots: WatchedRoot[];
  private readonly watchers = new Map<WatchedRoot, FSWatcher>();
  private readonly known = new Map<string, AgentKind>();
  /**
   * One transcript reached by more than one path (a linked project folder, a link to a session
   * beside it, an extra folder that is a link into an agent's): it is a session once, under the
   * path it was first reported by; its other paths are aliases of that one, and an event on
   * an alias is the session's. Reported twice, each of its findings was shown twice.
   */
  private readonly aliases = new Map<string, string>();
  /** The real path of each file in `known`, and the reported path of each real path. */
  private readonly realOf = new Map<string, string>();
  private readonly reportedAs = new Map<string, string>();
  /** Codex rollouts of other workspaces: not read again on every change. */
  private readonly rejected = new Set<string>();
  /** Files `accepts` could not judge yet, with how often it was asked. */
  private readonly undecided = new Map<string, { root: WatchedRoot; tries: number }>();
  /**
   * Files still undecided after `maxUndecidedTries` (a legacy Codex rollout has no
   * session_meta, ever): no longer polled, only looked at again when they change. Not
   * `rejected`, which a change does not undo.
   */
  private readonly shelved = new Set<string>();
  private readonly events = new Emitter<SessionFileEvent>();
  readonly onDidChange = this.events.event;
  private pollTimer: ReturnType<typeof setInterval> | undefined;
  /** File events still being inspected (a Codex rollout's first line is read before it is admitted). */
  private readonly inspecting = new Set<Promise<void>>();
  private readonly rootInodes = new Map<WatchedRoot, number>();
  private readonly logger: Logger;
  private disposed = false;
  /** Set once the first scan is done: folders that appear after it are looked through again. */
  private started = false;
  /**
   * Folders the watcher could not enter for their permissions (a session folder left by
   * `sudo claude`, a `chmod`), by path: chokidar gives up on them for good, so every poll looks
   * whether they can be read now, and then hands them to it again. Without this, the sessions
   * in such a folder, and any written there later, were never read, with no word after the first.
   */
  private readonly denied = new Map<string, WatchedRoot>();

  constructor(private readonly opts: SessionWatcherOptions) {
    this.logger = opts.logger ?? nullLogger;
    this.roots = this.computeRoots();
  }

  get watchedRoots(): readonly WatchedRoot[] {
    return this.roots;
  }

  get files(): ReadonlyMap<string, AgentKind> {
    return this.known;
  }

  /** Starts watching; resolves once every existing root has been scanned. */
  async start(): Promise<void> {
    await Promise.all(this.roots.map((r) => this.tryWatch(r)));
    await this.idle();
    if (this.disposed) {
      // Disposed while starting: a poll set now would never be cleared.
      return;
    }
    this.started = true;
    this.pollTimer = setInterval(() => {
      this.retryUndecided();
      if (this.denied.size > 0) {
        this.track(this.retryDenied());
      }
      for (const r of this.roots) {
        if (!this.watchers.has(r)) {
          void this.tryWatch(r);
        } else {
          void this.checkStillThere(r);
        }
      }
    }, this.opts.pendingPollMs ?? 1000);
    this.pollTimer.unref?.();
  }

  private computeRoots(): WatchedRoot[] {
    // As given and with its links resolved: agents record the latter (see workspaceSpellings).
    const spellings = workspaceSpellings(this.opts.workspace);
    const e = this.opts.environment;
    const on = (a: AgentKind): boolean => this.opts.agents?.[a] !== false;
    const roots: WatchedRoot[] = [];
    if (on('claude-code')) {
      for (const projects of claudeProjectsDirs(e)) {
        roots.push({
          agent: 'claude-code',
          path: projects,
          depth: 6,
          exists: false,
          accepts: (f) => {
            const first = nodePath.relative(projects, f).split(nodePath.sep)[0] ?? '';
            return f.endsWith('.jsonl') && spellings.some((ws) => claudeProjectMatches(first, ws));
          },
        });
      }
    }
    if (on('codex')) {
      const sessions = codexSessionsDir(e);
      roots.push({
        agent: 'codex',
        path: sessions,
        depth: 5,
        exists: false,
        accepts: async (f) => {
          if (!/[\\/]rollout-[^\\/]*\.jsonl$/.test(f) || this.rejected.has(f)) {
            return false;
          }
          const cwd = await codexCwd(f);
          if (cwd === undefined) {
            // session_meta not written yet (or unreadable): ask again.
            return 'later';
          }
          if (!spellings.some((ws) => isWithin(cwd, ws))) {
            this.rejected.add(f);
            return false;
          }
          return true;
        },
      });
    }
    if (on('gemini')) {
      const tmp = geminiTmpDir(e);
      const owns = geminiProjectsOf(spellings, e);
      roots.push({
        agent: 'gemini',
        path: tmp,
        depth: 4,
        exists: false,
        // Legacy sessions are one JSON document: `chats/session-*.json`, and a sub-agent's
        // `chats/<parent session>/<id>.json` (isTranscriptName). No other `.json` of Gemini's.
        names: isTranscriptName,
        accepts: async (f) => {
          const parts = nodePath.relative(tmp, f).split(nodePath.sep);
          const project = parts[0] ?? '';
          if (parts[1] !== 'chats' || !isTranscriptName(f)) {
            return false;
          }
          return owns(project);
        },
      });
    }
    if (on('amplifier')) {
      for (const ws of spellings) {
        const sessions = amplifierSessionsDir(e, ws);
        roots.push({
          agent: 'amplifier',
          path: sessions,
          depth: 2,
          exists: false,
          accepts: (f) => nodePath.basename(f) === 'transcript.jsonl' || nodePath.basename(f) === 'events.jsonl',
        });
      }
    }
    for (const extra of this.opts.extraFolders ?? []) {
      // The files `check` reads in a folder (findTranscripts): a folder of copied sessions
      // holding a Gemini CLI legacy `chats/session-*.json` was checked but not watched.
      // And the folders it searches: a folder named by hand may be a project, whose
      // node_modules alone would take thousands of the user's inotify watches.
      roots.push({
        agent: 'claude-code',
        path: nodePath.resolve(extra),
        depth: maxFolderDepth,
        exists: false,
        names: isTranscriptName,
        accepts: isTranscriptName,
        skips: skippedDirs,
      });
    }
    return roots;
  }

  private async tryWatch(root: WatchedRoot): Promise<void> {
    if (this.disposed || this.watchers.has(root)) {
      return;
    }
    try {
      const info = await stat(root.path);
      if (!info.isDirectory()) {
        return;
      }
      this.rootInodes.set(root, info.ino);
    } catch {
      root.exists = false;
      return;
    }
    if (this.disposed || this.watchers.has(root)) {
      return;
    }
    root.exists = true;
    const w = watch(root.path, {
      ignoreInitial: false,
      persistent: true,
      depth: root.depth,
      usePolling: this.opts.usePolling ?? false,
      ...(this.opts.pollIntervalMs !== undefined ? { interval: this.opts.pollIntervalMs, binaryInterval: this.opts.pollIntervalMs } : {}),
      // Renames over a file (temp-and-rename rewrites) arrive as a change, not unlink + add.
      atomic: true,
      // By name alone for a skipped folder: asked before the stats are known, it is not entered
      // at all (a file by that name is no transcript either).
      ignored: (p: string, stats?: { isFile(): boolean }) =>
        (stats?.isFile() === true && !namedLikeTranscript(root, p)) || (root.skips?.has(nodePath.basename(p)) === true && p !== root.path),
    });
    this.watchers.set(root, w);
    w.on('add', (p) => this.track(this.onFile(root, p, 'add')));
    w.on('change', (p) => this.track(this.onFile(root, p, 'change')));
    w.on('unlink', (p) => this.onUnlink(root, p));
    w.on('unlinkDir', (p) => {
      if (p === root.path) {
        this.lostRoot(root);
      } else {
        for (const f of [...this.known.keys(), ...this.aliases.keys()]) {
          if (f.startsWith(p + nodePath.sep)) {
            this.onUnlink(root, f);
          }
        }
      }
    });
    w.on('error', (e) => {
      this.logger.warn(`watcher error under ${root.path}: ${describeError(e)}`);
      const code = errnoCode(e);
      const where = (e as { path?: unknown }).path;
      if ((code === 'EACCES' || code === 'EPERM') && typeof where === 'string' && (where === root.path || where.startsWith(root.path + nodePath.sep))) {
        this.denied.set(where, root);
      }
    });
    await new Promise<void>((resolve) => w.once('ready', () => resolve()));
    this.logger.info(`watching ${root.path} for ${root.agent} sessions`);
    w.on('addDir', (p) => this.rescanSoon(root, p));
    if (this.started) {
      // The folder appeared while we watched for it, likely with its first session on its heels.
      this.rescanSoon(root, root.path);
    }
  }

  /**
   * A folder that appeared while watched is looked through again a few times. chokidar reads a
   * new folder, then watches it: a file created in between is reported only when it is written
   * again (Codex makes each day's folder and that day's first rollout at once; a test that
   * appends once and waits would wait forever).
   */
  private rescanSoon(root: WatchedRoot, dir: string): void {
    const below = dir === root.path ? 0 : nodePath.relative(root.path, dir).split(nodePath.sep).length;
    for (const ms of [250, 1000, 3000]) {
      setTimeout(() => {
        if (!this.disposed && this.watchers.has(root)) {
          this.track(this.rescan(root, dir, root.depth - below));
        }
      }, ms).unref?.();
    }
  }

  /** The transcripts below `dir` (to `depth` more levels) that no event has brought yet. */
  private async rescan(root: WatchedRoot, dir: string, depth: number): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = nodePath.join(dir, e.name);
      if (e.isDirectory() && depth > 0) {
        if (!root.skips?.has(e.name)) {
          await this.rescan(root, p, depth - 1);
        }
      } else if (e.isFile() && namedLikeTranscript(root, p) && !this.known.has(p) && !this.aliases.has(p) && !this.undecided.has(p) && !this.rejected.has(p) && !this.shelved.has(p)) {
        await this.onFile(root, p, 'add');
      }
    }
  }

  /** See `denied`. A file denied needs nothing: its folder's watcher still reports it, and its tail tries again. */
  private async retryDenied(): Promise<void> {
    for (const [dir, root] of [...this.denied]) {
      const w = this.watchers.get(root);
      if (!w || this.disposed) {
        // The root was lost (and is watched whole again when it comes back), or we stop.
        this.denied.delete(dir);
        continue;
      }
      try {
        if (!(await stat(dir)).isDirectory()) {
          this.denied.delete(dir);
          continue;
        }
        await readdir(dir);
      } catch (e) {
        if (errnoCode(e) === 'ENOENT' || errnoCode(e) === 'ENOTDIR') {
          this.denied.delete(dir);
        }
        continue;
      }
      if (this.denied.get(dir) !== root || this.watchers.get(root) !== w) {
        continue;
      }
      this.denied.delete(dir);
      this.logger.info(`${dir} can be read now; watching it`);
      w.add(dir);
      this.rescanSoon(root, dir);
    }
  }

  /**
   * chokidar does not always report the deletion of the watched folder itself (and a folder
   * deleted and re-created quickly is a new inode it never sees): check it is still the same one.
   */
  private async checkStillThere(root: WatchedRoot): Promise<void> {
    const ino = this.rootInodes.get(root);
    try {
      const info = await stat(root.path);
      if (ino !== undefined && info.ino !== ino) {
        this.lostRoot(root);
      }
    } catch {
      if (this.watchers.has(root)) {
        this.lostRoot(root);
      }
    }
  }

  private track(p: Promise<void>): void {
    this.inspecting.add(p);
    void p.finally(() => this.inspecting.delete(p));
  }

  /** Resolves when no file event is being inspected. */
  async idle(): Promise<void> {
    while (this.inspecting.size > 0) {
      await Promise.all([...this.inspecting]);
    }
  }

  /** The watched folder itself was deleted: drop its sessions and look for it again. */
  private lostRoot(root: WatchedRoot): void {
    const w = this.watchers.get(root);
    if (!w) {
      return;
    }
    this.watchers.delete(root);
    root.exists = false;
    for (const f of [...this.known.keys(), ...this.aliases.keys()]) {
      if (f.startsWith(root.path + nodePath.sep)) {
        this.onUnlink(root, f);
      }
    }
    this.logger.info(`${root.path} was removed; waiting for it to come back`);
    // Closing inside chokidar's own event handler can leak a handle: defer it.
    setTimeout(() => void w?.close(), 300).unref?.();
  }

  private async onFile(root: WatchedRoot, file: string, _kind: 'add' | 'change'): Promise<void> {
    if (this.disposed) {
      return;
    }
    const agent = this.known.get(file);
    if (agent !== undefined) {
      this.events.fire({ type: 'change', file, agent });
      return;
    }
    const reported = this.aliases.get(file);
    if (reported !== undefined) {
      const of = this.known.get(reported);
      if (of !== undefined) {
        this.events.fire({ type: 'change', file: reported, agent: of });
      }
      return;
    }
    let ok: boolean | 'later';
    try {
      ok = await root.accepts(file);
    } catch (e) {
      this.logger.warn(`cannot inspect ${file}: ${describeError(e)}`);
      return;
    }
    if (ok === 'later') {
      if (this.shelved.has(file) || this.disposed) {
        return;
      }
      // Asked again shortly, not only on its next change: chokidar reports a file created
      // and written at once as an empty "add", and may miss the write that followed if it
      // landed before its watch of the file was in place.
      const tries = this.undecided.get(file)?.tries ?? 0;
      if (tries >= maxUndecidedTries) {
        this.undecided.delete(file);
        this.shelved.add(file);
        this.logger.debug(`cannot tell whose session ${file} is; looking again only when it changes`);
      } else {
        this.undecided.set(file, { root, tries: tries + 1 });
        if (tries === 0) {
          // The first look again is soon: the writer is usually a few milliseconds behind.
          setTimeout(() => {
            if (this.undecided.has(file)) {
              void this.onFile(root, file, 'change');
            }
          }, 100).unref?.();
        }
      }
      return;
    }
    this.undecided.delete(file);
    this.shelved.delete(file);
    if (!ok || this.known.has(file) || this.disposed) {
      return;
    }
    const real = realPathOf(file) ?? file;
    const first = this.reportedAs.get(real);
    if (first !== undefined && first !== file && this.known.has(first)) {
      this.aliases.set(file, first);
      this.logger.debug(`${file} is the session ${first} by another path (both are ${real}): not followed twice`);
      return;
    }
    const detected = root.agent === 'claude-code' && this.opts.extraFolders?.some((x) => file.startsWith(nodePath.resolve(x))) ? (agentForPath(file) ?? 'claude-code') : root.agent;
    this.known.set(file, detected);
    this.realOf.set(file, real);
    this.reportedAs.set(real, file);
    this.events.fire({ type: 'add', file, agent: detected });
  }

  /** Files that could not be judged yet: each poll (and soon after being put off) asks again. */
  private retryUndecided(): void {
    for (const [file, u] of this.undecided) {
      void this.onFile(u.root, file, 'change');
    }
  }

  private onUnlink(root: WatchedRoot, file: string): void {
    const agent = this.known.get(file);
    this.rejected.delete(file);
    this.undecided.delete(file);
    this.shelved.delete(file);
    this.aliases.delete(file);
    if (agent === undefined) {
      return;
    }
    this.known.delete(file);
    const real = this.realOf.get(file);
    this.realOf.delete(file);
    if (real !== undefined && this.reportedAs.get(real) === file) {
      this.reportedAs.delete(real);
    }
    this.events.fire({ type: 'unlink', file, agent });
    // The path it was reported by is gone, not necessarily the file: one of its other paths
    // that is still there is the session now (looked at as a new file: the first one taken).
    for (const [alias, of] of [...this.aliases]) {
      if (of === file) {
        this.aliases.delete(alias);
        if (existsSync(alias)) {
          this.track(this.onFile(root, alias, 'add'));
        }
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.pollTimer) {
      clearInterval(this.pollTimer);
    }
    const closing = [...this.watchers.values()];
    this.watchers.clear();
    for (const w of closing) {
      void w.close();
    }
    this.events.dispose();
  }

  /** Closes the watchers and waits for them (tests, clean CLI exit). */
  async close(): Promise<void> {
    const closing = [...this.watchers.values()];
    this.dispose();
    await Promise.all(closing.map((w) => w.close()));
  }
}

function namedLikeTranscript(root: WatchedRoot, file: string): boolean {
  return root.names ? root.names(file) : file.endsWith('.jsonl');
}
