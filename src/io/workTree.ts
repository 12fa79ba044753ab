import { watch, type FSWatcher } from 'chokidar';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import * as nodePath from 'node:path';
import { isUnder } from '../core/engine/knowledge';
import type { ChangeAuthor, ForeignChangeVerdict, WorkTreeView } from '../core/engine/rule';
import { Emitter } from '../core/lib/event';
import { errnoCode } from '../core/lib/errors';
import { globMatcher } from '../core/lib/glob';
import { describeError, nullLogger, type Logger } from '../core/lib/logger';
import { realPathOf, workspaceSpellings } from './discovery';

/** One observed content change of a tracked file. */
export interface TreeChange {
  path: string;
  at: number;
  /** sha256 of the new content; null when the file was deleted. */
  hash: string | null;
  previous: string | null | undefined;
  by: ChangeAuthor;
}

interface TrackedFile {
  hash: string | null | undefined;
  /** Recent changes, oldest first (bounded). */
  history: TreeChange[];
  hashing: Promise<void> | undefined;
  again: boolean;
}

interface Seen {
  at: number;
  /** Content the session last saw; undefined until known. */
  hash: string | null | undefined;
  how: 'read' | 'write';
  /**
   * Who told us: a guard hook reports the moment itself (with the hash it computed then);
   * a transcript line arrives later, sometimes much later (agents write them asynchronously).
   */
  source: 'hook' | 'transcript';
  callId: string | undefined;
  /**
   * A write's view: what the session saw before it. Its transcript may show later that the write
   * went on top of a change the session never saw (its hook reports it first): then that earlier
   * view is what the session knows again (see sessionWrote).
   */
  prior?: Seen;
  /** A write's view: the write replaced the whole file, so the session knows all of it however it was before. */
  whole?: boolean;
  /**
   * A write found to have gone on top of a change the session never saw since this view: reported
   * again (its hook after its transcript line), it still does not make the file seen.
   */
  overlooked?: WriteReport;
}

/** What identifies one write reported twice, by its hook and by its transcript line. */
interface WriteReport {
  callId: string | undefined;
  /** The content it left. */
  hash: string | null | undefined;
}

/**
 * Are these two reports of one write? By call id where both have one; Gemini CLI's hooks carry
 * none, so there by the content the write left, which its hook hashed and its transcript's result
 * holds (a later write of the session would have left other content, or been reported between).
 */
function sameWrite(a: WriteReport, b: WriteReport): boolean {
  if (a.callId !== undefined && b.callId !== undefined) {
    return a.callId === b.callId;
  }
  return typeof a.hash === 'string' && a.hash === b.hash;
}

/** How a session came to see a file's content (see `sessionSaw`, `sessionWrote`). */
export interface SessionObservation {
  /** The call that read or wrote it. */
  callId?: string;
  /** The content as the observer hashed it (hooks); default: the tree's current hash. */
  hash?: string | null;
  source?: 'hook' | 'transcript';
  /** Wall-clock ms the observation happened (a transcript event's own timestamp). */
  eventAt?: number;
  /** A write that replaced the whole file (Write, write_file): see Seen.whole. */
  whole?: boolean;
  /** A write's: sha256 of the content it replaced, as its transcript records it (Claude Code's `originalFile`, Gemini CLI's `originalContent`); null: none. */
  beforeHash?: string | null;
}

/** A write that started (its call was allowed by the guard or is in a transcript) and has not ended. */
export interface OpenWrite {
  session: string;
  sessionId: string | undefined;
  callId: string;
  start: number;
}

/** Call ids the guard gives writes whose hook names no call id (Gemini). */
export const hookCallPrefix = 'hook:';

interface Inflight {
  session: string;
  /** The session's own id (for messages) and the transcript line of the write call. */
  sessionId: string | undefined;
  line: number | undefined;
  callId: string;
  start: number;
  end: number | undefined;
  afterHash: string | undefined;
  /** `afterHash` was hashed from the disk right after the write (a guard hook), not derived from a transcript. */
  exact?: boolean;
  /** The write replaces the whole file (its transcript's call says so; a hook's window does not know). */
  whole?: boolean;
}

/** A call that may rewrite any file under `dir`, which ones unknown (`git checkout main`). */
interface Sweep extends Pick<Inflight, 'session' | 'sessionId' | 'line' | 'callId' | 'start' | 'end'> {
  dir: string;
}

/** Sweeps kept: a few sessions each running a git command at once, and the ones just ended. */
const maxSweeps = 64;

export interface WorkTreeOptions {
  root: string;
  /** Globs (VS Code style) of paths never watched, relative to the root. */
  ignore?: readonly string[];
  logger?: Logger;
  clock?: () => number;
  /** The host knows when the user saved a file from an editor, and what it wrote (the extension does): is this change, after which the file hashes to `hash` (null: gone), such a save? */
  isUserSave?: (path: string, at: number, hash: string | null) => boolean;
  /**
   * A save of `path` whose content the host learns later (a notebook's, read back after the
   * editor wrote it): a change of the file is attributed once it settles. Undefined when none
   * is under way; the host bounds how long it can take (a few seconds).
   */
  userSavePending?: (path: string) => Promise<void> | undefined;
  /**
   * Ms around a write call in which an unexplained change is taken to be that call's own:
   * the agent may record its call line a little after the file changed, and both reach us
   * through file watchers. Large enough for that lag, small next to how fast people type.
   */
  attributionGraceMs?: number;
  /** Use polling (network file systems); off by default. */
  usePolling?: boolean;
}

/** Hard limits that keep memory flat on large trees and long sessions. */
const maxHistory = 32;
const maxTracked = 20_000;
const maxInflightAge = 10 * 60_000;

/** A call made this long before now (by its transcript's time) can no longer explain a change the watcher sees. */
export function tooOldToExplain(timestamp: string | undefined, now: number): boolean {
  if (timestamp === undefined) {
    return false;
  }
  const t = Date.parse(timestamp);
  return Number.isFinite(t) && now - t > maxInflightAge;
}

/**
 * How often files that could not be read for their permissions are looked at again (ms): as
 * often as the session watcher looks at the session folders it could not enter.
 */
const deniedLookMs = 1_000;

/** A file its folder's (or its own) permissions keep from being read: neither gone nor known. */
const denied = Symbol('denied');

/** Windows kept per file: enough for every session that can plausibly be writing it at once. */
const maxWindowsPerPath = 64;
const alwaysIgnored = ['**/.git/**', '**/node_modules/**', '**/.hg/**', '**/.svn/**'];

/**
 * The working tree next to the transcripts: which tracked file changed when, and who did it.
 * Only files that sessions read or write (or the caller asks about) are hashed — never the
 * whole tree. Every change is attributed to the session write that explains it (its content,
 * or its call in flight for that path), to the user (an editor save), or to "someone else".
 */
export class WorkTree implements WorkTreeView {
  private readonly tracked = new Map<string, TrackedFile>();
  private readonly seen = new Map<string, Map<string, Seen>>();
  /**
   * What each session had seen before its transcript was read again from the start (see
   * `forgetSession`): a call it reports again gives back the view it gave the first time.
   */
  private readonly former = new Map<string, Map<string, Seen>>();
  private readonly inflight = new Map<string, Inflight[]>();
  private sweeps: Sweep[] = [];
  private watcher: FSWatcher | undefined;
  /** Tracked files with a watch on them. */
  private readonly watched = new Set<string>();
  /**
   * Tracked files that could not be read for their permissions (a folder `chmod 000`, a file of
   * another user's): not deleted, and of unknown content. chokidar drops a file it cannot stat,
   * and nothing watched it again once it could be read: every change made there afterwards
   * went unseen (a lost update over it was no stale write). Looked at every `deniedLookMs`
   * while any is denied, and watched again once readable.
   */
  private readonly denied = new Set<string>();
  private deniedTimer: ReturnType<typeof setInterval> | undefined;
  private readonly logger: Logger;
  private readonly clock: () => number;
  private readonly grace: number;
  private readonly ignored: (rel: string) => boolean;
  /** The root as given and, where it goes through a symbolic link, its real path (see watchable). */
  private readonly roots: readonly string[];
  /** Paths as given → the file's real path (see key). */
  private readonly reals = new Map<string, string>();
  /** Files outside the root reached through a link under it: real path → the path under the root (see key, spelled). */
  private readonly linkedFrom = new Map<string, string>();
  private readonly changed = new Emitter<TreeChange>();
  /** Fires for every observed change of a tracked file, after attribution. */
  readonly onDidChange = this.changed.event;
  private ready: Promise<void> = Promise.resolve();

  constructor(private readonly opts: WorkTreeOptions) {
    this.logger = opts.logger ?? nullLogger;
    this.clock = opts.clock ?? Date.now;
    this.grace = opts.attributionGraceMs ?? 300;
    this.ignored = globMatcher([...alwaysIgnored, ...(opts.ignore ?? [])]);
    this.roots = workspaceSpellings(opts.root);
  }

  get root(): string {
    return this.opts.root;
  }

  /**
   * Starts watching. Only tracked files are watched — one watch per file sessions touched or
   * the caller asked about — never the whole tree: a recursive watch of a 100k-file
   * repository costs chokidar a watch handle, a stats object and closures per file (about
   * 800 MB for 100k files, and half of the user's inotify watches), all to report changes
   * to files nobody asked about.
   */
  start(): Promise<void> {
    if (this.watcher) {
      return this.ready;
    }
    this.watcher = watch([], {
      ignoreInitial: true,
      persistent: true,
      usePolling: this.opts.usePolling ?? false,
      // Editors and agents that write a temp file and rename it over the original.
      atomic: true,
    });
    this.watcher.on('add', (p) => this.onFsEvent(p));
    this.watcher.on('change', (p) => this.onFsEvent(p));
    this.watcher.on('unlink', (p) => this.onFsEvent(p));
    this.watcher.on('error', (e) => this.logger.warn(`[tree] watcher error: ${describeError(e)}`));
    // Nothing to scan: a watcher started without paths is ready at once (it never says so).
    this.ready = Promise.resolve();
    return this.ready;
  }

  /**
   * Is the path inside the root and not ignored (.git, node_modules, the user's globs)? Inside
   * the root as given or as its real path: a workspace opened through a symbolic link has the
   * editor's files under the one and the agents' (which record real paths) under the other.
   */
  private watchable(path: string): boolean {
    return this.roots.some((root) => {
      const rel = nodePath.relative(root, path).split(nodePath.sep).join('/');
      return rel !== '' && !rel.startsWith('..') && !nodePath.isAbsolute(rel) && !this.ignored(rel);
    });
  }

  /**
   * The file a path names, as the tree keys it: its real path, its symbolic links resolved (a
   * file that does not exist yet, through its folder). A session may read a file by one spelling
   * and write it by another (through a linked folder, or the workspace as opened and as agents
   * record it): one file, one history, one view per session. Cached: asked on every access; a
   * spelling that resolves nothing (its folder is not there either) is asked again next time.
   */
  private key(given: string): string {
    const known = this.reals.get(given);
    if (known !== undefined) {
      return known;
    }
    const real = realPathOf(given);
    if (real === undefined) {
      return given;
    }
    if (this.reals.size >= maxTracked * 2) {
      this.reals.clear();
    }
    this.reals.set(given, real);
    this.reals.set(real, real);
    if (real !== given && this.linkedFrom.size < maxTracked && !this.watchable(real) && this.watchable(given)) {
      this.linkedFrom.set(real, given);
    }
    return real;
  }

  /**
   * A change's path as the editor names it: under the root as given (the workspace as opened)
   * where the file is under its real path, or through the link under the root that reached it.
   */
  private spelled(path: string): string {
    const linked = this.linkedFrom.get(path);
    if (linked !== undefined) {
      return linked;
    }
    const [asGiven, real] = this.roots;
    if (real === undefined || asGiven === undefined) {
      return path;
    }
    const rel = nodePath.relative(real, path);
    return rel === '' || rel.startsWith('..') || nodePath.isAbsolute(rel) ? path : nodePath.join(asGiven, rel);
  }

  /** Watches a tracked file that exists (a file that does not exist yet is watched once it does). */
  private watchFile(path: string, exists: boolean): void {
    if (!this.watcher) {
      return;
    }
    if (exists && !this.watched.has(path) && (this.watchable(path) || this.linkedFrom.has(path))) {
      this.watched.add(path);
      this.watcher.add(path);
      // chokidar sets the watch up asynchronously: a change in that gap has no event, so
      // look once more when the watch is surely in place.
      setTimeout(() => {
        if (this.tracked.has(path)) {
          void this.refresh(path);
        }
      }, 250).unref?.();
    } else if (!exists && this.watched.delete(path)) {
      this.watcher.unwatch(path);
    }
  }

  /** Start hashing a file (a session touched it, or the caller wants to know about it). */
  track(given: string): Promise<void> {
    const path = this.key(given);
    let t = this.tracked.get(path);
    if (!t) {
      if (this.tracked.size >= maxTracked) {
        this.evictOldest();
      }
      t = { hash: undefined, history: [], hashing: undefined, again: false };
      this.tracked.set(path, t);
      return this.rehash(path, t, false);
    }
    return t.hashing ?? Promise.resolve();
  }

  isTracked(given: string): boolean {
    const path = this.key(given);
    return this.tracked.has(path);
  }

  currentHash(given: string): string | null | undefined {
    const path = this.key(given);
    return this.tracked.get(path)?.hash;
  }

  history(given: string): readonly TreeChange[] {
    const path = this.key(given);
    return this.tracked.get(path)?.history ?? [];
  }

  /** Waits until every pending hash is computed (tests, and the guard before it answers). */
  async settle(path?: string): Promise<void> {
    const list = path ? [this.tracked.get(this.key(path))] : [...this.tracked.values()];
    await Promise.all(list.map((t) => t?.hashing ?? Promise.resolve()));
  }

  // --- what sessions do (fed by the live monitor before the rules see each event) ---

  /** The session read the file (or otherwise saw its whole content) now. */
  sessionSaw(session: string, given: string, o: SessionObservation = {}): void {
    const path = this.key(given);
    void this.track(path);
    this.observe(session, path, 'read', o.hash !== undefined ? o.hash : this.tracked.get(path)?.hash, o);
  }

  writeStarted(session: string, given: string, callId: string, meta: { sessionId?: string; line?: number; whole?: boolean } = {}): void {
    const path = this.key(given);
    void this.track(path);
    const list = this.inflight.get(path) ?? [];
    const now = this.clock();
    // Forget windows long closed: they can no longer explain a change.
    let fresh = list.filter((w) => (w.end === undefined ? now - w.start < maxInflightAge : now - w.end < this.grace * 4));
    const known = fresh.find((w) => w.session === session && w.callId === callId);
    if (known) {
      // The guard hook opened this window; the transcript's call line is the same write.
      known.line ??= meta.line;
      known.sessionId ??= meta.sessionId;
      known.whole ??= meta.whole;
    } else {
      // A session's new write of the path ends its earlier ones that never got a result (a
      // call abandoned by an interrupt, or a history read at start-up): left open, they would
      // pile up — thousands per file when many old sessions are read at once.
      for (const w of fresh) {
        if (w.session === session && w.end === undefined && !w.callId.startsWith(hookCallPrefix)) {
          w.end = now;
        }
      }
      fresh.push({ session, sessionId: meta.sessionId, line: meta.line, callId, start: now, end: undefined, afterHash: undefined, ...(meta.whole !== undefined ? { whole: meta.whole } : {}) });
    }
    if (fresh.length > maxWindowsPerPath) {
      // Still too many (many sessions writing one file within minutes): the oldest ended ones
      // go first, then the oldest open ones (the list is in start order).
      const ended = fresh.filter((w) => w.end !== undefined);
      const drop = new Set(ended.slice(0, fresh.length - maxWindowsPerPath));
      fresh = fresh.filter((w) => !drop.has(w));
      fresh = fresh.slice(Math.max(0, fresh.length - maxWindowsPerPath));
    }
    this.inflight.set(path, fresh);
  }

  /**
   * A session's call that may rewrite any file under `dir` started (`git checkout main`, `git
   * pull`, `git stash`): a change there while it runs is that session's, not someone else's.
   */
  rewriteStarted(session: string, given: string, callId: string, meta: { sessionId?: string; line?: number } = {}): void {
    const dir = this.key(given);
    const now = this.clock();
    this.sweeps = this.sweeps.filter((w) => (w.end === undefined ? now - w.start < maxInflightAge : now - w.end < this.grace * 4)).slice(-(maxSweeps - 1));
    this.sweeps.push({ session, sessionId: meta.sessionId, line: meta.line, callId, dir, start: now, end: undefined });
  }

  /**
   * A write (or a rewrite of folders) of a session's history, read at start-up, that ended long
   * ago: its window, opened as the history was read, goes. Ended now, it would take a change of
   * the seconds after for that old session's (a formatter's, another session's write).
   */
  forgetWrite(session: string, callId: string, paths: readonly string[], rewrites: boolean): void {
    for (const path of paths.map((p) => this.key(p))) {
      const list = this.inflight.get(path);
      const kept = list?.filter((w) => !(w.session === session && w.callId === callId));
      if (list && kept && kept.length !== list.length) {
        this.inflight.set(path, kept);
      }
    }
    if (rewrites) {
      this.sweeps = this.sweeps.filter((w) => !(w.session === session && w.callId === callId));
    }
  }

  rewriteEnded(session: string, callId: string): void {
    for (const w of this.sweeps) {
      if (w.session === session && w.callId === callId && w.end === undefined) {
        w.end = this.clock();
      }
    }
  }

  /**
   * The write's result arrived; `afterHash` is the content it wrote, when known. Without a
   * call id (a hook that names none) the session's oldest open write of the path ends.
   */
  writeEnded(session: string, given: string, callId: string | undefined, afterHash: string | undefined, o: { exact?: boolean } = {}): void {
    const path = this.key(given);
    // A file the write created has no watch yet: look at it now, and watch it from here on.
    if (this.tracked.has(path) && !this.watched.has(path)) {
      void this.refresh(path);
    }
    const list = this.inflight.get(path) ?? [];
    const w =
      callId !== undefined
        ? list.find((x) => x.session === session && x.callId === callId)
        : list.find((x) => x.session === session && x.end === undefined);
    const now = this.clock();
    if (w) {
      w.end = now;
      w.afterHash = afterHash ?? w.afterHash;
      w.exact ||= o.exact === true && afterHash !== undefined;
    }
    // A window the guard opened for a hook without call ids is this same write when the
    // transcript reports the session's write of the path.
    for (const x of list) {
      if (x !== w && x.session === session && x.end === undefined && x.callId.startsWith(hookCallPrefix) && x.start <= (w?.start ?? now)) {
        x.end = now;
      }
    }
    // A change seen before the result arrived may now be recognisable as this write's.
    const t = this.tracked.get(path);
    if (t && afterHash) {
      for (const c of t.history) {
        if (c.hash === afterHash && c.by.kind !== 'session') {
          c.by = authorOf(w ?? { session, sessionId: undefined, line: undefined });
        }
      }
    }
  }

  /**
   * After the rules judged the write: the session now knows the content it wrote, unless the
   * write was an edit applied on top of a change the session never saw (see wroteOverUnseen):
   * then it knows what it saw before and its own edit, not the file, and its view stays the
   * earlier one (the guard judges its next write against that).
   */
  sessionWrote(session: string, given: string, afterHash: string | undefined, o: SessionObservation = {}): void {
    const path = this.key(given);
    const t = this.tracked.get(path);
    const mine = t?.history.filter((c) => c.by.kind === 'session' && c.by.session === session).pop();
    const hash = afterHash ?? mine?.hash ?? undefined;
    const prev = this.seen.get(session)?.get(path);
    const report: WriteReport = { callId: o.callId, hash };
    // This same write, reported before (its hook, then its transcript line): the view before it.
    const before = prev?.how === 'write' && sameWrite(prev, report) ? prev.prior : prev;
    const w = o.callId !== undefined ? this.inflight.get(path)?.find((x) => x.session === session && x.callId === o.callId) : undefined;
    const whole = o.whole === true || w?.whole === true;
    if (before && !whole && ((before.overlooked && sameWrite(before.overlooked, report)) || (t && this.wroteOverUnseen(session, path, t, before, o.beforeHash)))) {
      this.logger.debug(`[tree] ${path}: the session's write went on top of a change it never saw; its view stays the one before`);
      this.setSeen(session, path, { ...before, overlooked: report });
      return;
    }
    // One view back at most: a long session's writes of a file do not chain.
    this.observe(session, path, 'write', hash, o, whole ? { whole: true } : before ? { prior: { ...before, prior: undefined } } : {});
  }

  /** What the session last saw of the file (read or wrote), if anything. */
  lastSeen(session: string, given: string): Readonly<Seen> | undefined {
    const path = this.key(given);
    return this.seen.get(session)?.get(path);
  }

  /** Writes of the file that started less than `maxAgeMs` ago and have not ended, oldest first. */
  openWrites(given: string, maxAgeMs: number): OpenWrite[] {
    const path = this.key(given);
    const now = this.clock();
    return (this.inflight.get(path) ?? [])
      .filter((w) => w.end === undefined && now - w.start < maxAgeMs)
      .map((w) => ({ session: w.session, sessionId: w.sessionId, callId: w.callId, start: w.start }));
  }

  /** The session's writes that started less than `maxAgeMs` ago and have not ended, oldest first, with their files. */
  openWritesOf(session: string, maxAgeMs: number): (OpenWrite & { path: string })[] {
    const out: (OpenWrite & { path: string })[] = [];
    for (const path of this.inflight.keys()) {
      out.push(...this.openWrites(path, maxAgeMs).filter((w) => w.session === session).map((w) => ({ ...w, path })));
    }
    return out.sort((a, b) => a.start - b.start);
  }

  /**
   * Hashes the file now, as if the watcher had reported a change: the guard must judge the
   * content on disk at this moment, not what the watcher has caught up with.
   */
  async refresh(given: string): Promise<void> {
    // Resolved again, not from the cache: the guard refreshes each file before it judges a
    // write of it, and a path that became, or stopped being, a symbolic link since it was
    // cached names another file now. Judged on the old one's history, a write over a file the
    // session never read passed as a write of the one it had read.
    this.reals.delete(given);
    const path = this.key(given);
    const t = this.tracked.get(path);
    if (!t) {
      await this.track(path);
      return;
    }
    await this.rehash(path, t, true);
  }

  /**
   * A transcript line never overrides what a hook reported about the same call, or about a
   * moment after the line's own event: the hook saw it as it happened, the line is late news
   * (a read recorded late would otherwise stamp the file's newer content as "seen").
   */
  private observe(session: string, path: string, how: Seen['how'], hash: string | null | undefined, o: SessionObservation, extra: Pick<Seen, 'prior' | 'whole'> = {}): void {
    const source = o.source ?? 'transcript';
    const was = this.former.get(session)?.get(path);
    if (was && o.callId !== undefined && was.callId === o.callId && source === 'transcript') {
      // The same call read again: the session saw the file when the call was new, as it was then.
      this.setSeen(session, path, was);
      return;
    }
    const prev = this.seen.get(session)?.get(path);
    if (prev?.source === 'hook' && source === 'transcript') {
      if ((o.callId !== undefined && prev.callId === o.callId) || (o.eventAt !== undefined && o.eventAt <= prev.at)) {
        return;
      }
    }
    this.setSeen(session, path, { at: this.clock(), hash, how, source, callId: o.callId, ...extra });
  }

  /**
   * Did the session's edit go on top of a change it never saw after `view`? Its transcript says
   * what the edit replaced (`beforeHash`: Claude Code's `originalFile`, Gemini CLI's
   * `originalContent`): not what the session saw, and the tree saw the file take that content
   * after the session saw it (both, so that a transcript's text that hashes other than the
   * file's bytes, a byte order mark, says nothing).
   * That change was taken for the write when its window was open (the user's save while the
   * write waited on its permission prompt): it is someone else's. A formatter run after the
   * edit changes nothing here: the edit replaced what the session saw.
   */
  private wroteOverUnseen(session: string, path: string, t: TrackedFile, view: Seen, beforeHash: string | null | undefined): boolean {
    if (!beforeHash || view.hash === undefined || beforeHash === view.hash) {
      return false;
    }
    const unseen = t.history.filter((c) => c.at > view.at && c.hash === beforeHash);
    for (const c of unseen) {
      if (c.by.kind === 'session' && c.by.session === session) {
        // Not this session's: its edit replaced that content. So none of its write windows made
        // it, not even the hook's window of this same edit, which (Gemini CLI's hooks carry no
        // call id) is another window than the transcript's, still open when the transcript
        // reports the edit before its hook does.
        c.by = this.attribute(path, c.hash, c.at, session);
      }
    }
    return unseen.length > 0;
  }

  /**
   * Did anyone but `session` change `path` after the session last saw it and before this
   * write started? (WorkTreeView, used by the stale-write and concurrent-write rules.)
   */
  judgeWrite(session: string, given: string, callId: string): ForeignChangeVerdict | undefined {
    const path = this.key(given);
    const seen = this.seen.get(session)?.get(path);
    const t = this.tracked.get(path);
    if (!seen || !t) {
      return undefined;
    }
    const w = this.inflight.get(path)?.find((x) => x.session === session && x.callId === callId);
    const start = w?.start ?? this.clock();
    const before = t.history.filter((c) => c.at > seen.at && c.at < start);
    const foreign = before.filter((c) => !(c.by.kind === 'session' && c.by.session === session) && !this.explainedBy(path, c, session, callId, start));
    if (foreign.length === 0) {
      return undefined;
    }
    // Changed and changed back: the session's view is right after all.
    const last = before[before.length - 1]!;
    if (seen.hash !== undefined && last.hash === seen.hash) {
      return undefined;
    }
    const latest = foreign[foreign.length - 1]!;
    const bySession = new Map<string, { by: Extract<ChangeAuthor, { kind: 'session' }>; at: number }>();
    for (const c of foreign) {
      if (c.by.kind === 'session') {
        bySession.set(c.by.session, { by: c.by, at: c.at });
      }
    }
    return { by: latest.by, at: latest.at, seenAt: seen.at, changes: foreign.length, sessions: [...bySession.values()] };
  }

  /**
   * A change just before the write's call was seen, by no one known, when the write's own
   * content is unknown (shell writes, Codex patches): probably the write itself, observed
   * before its transcript line. Writes whose content the transcript records are matched by
   * content instead, so a foreign change right before them is still caught.
   */
  private explainedBy(path: string, c: TreeChange, session: string, callId: string, start: number): boolean {
    return (
      c.by.kind === 'unknown' &&
      start - c.at < this.grace &&
      this.inflightFor(path, c.at).some((w) => w.session === session && w.callId === callId && w.afterHash === undefined)
    );
  }

  private inflightFor(path: string, at: number): Inflight[] {
    return (this.inflight.get(path) ?? []).filter((w) => at >= w.start - this.grace && (w.end === undefined || at <= w.end + this.grace));
  }

  private setSeen(session: string, path: string, s: Seen): void {
    let m = this.seen.get(session);
    if (!m) {
      m = new Map();
      this.seen.set(session, m);
    }
    m.set(path, s);
  }

  /**
   * A session's transcript went away, or is read again from its start (`readAgain`): forget what
   * it saw and had in flight. Read again, each call it still holds gives back the view it gave
   * when it was new: told again as new, a read made before a change the session never saw counted
   * as made after it, and the session's next write over that change was no stale write.
   */
  forgetSession(session: string, readAgain = false): void {
    const views = this.seen.get(session);
    if (readAgain && views) {
      this.former.set(session, views);
    } else if (!readAgain) {
      this.former.delete(session);
    }
    this.seen.delete(session);
    this.sweeps = this.sweeps.filter((w) => w.session !== session);
    for (const [p, list] of this.inflight) {
      const rest = list.filter((w) => w.session !== session);
      if (rest.length === 0) {
        this.inflight.delete(p);
      } else {
        this.inflight.set(p, rest);
      }
    }
  }

  private onFsEvent(path: string): void {
    const t = this.tracked.get(path);
    if (t) {
      void this.rehash(path, t, true);
    }
  }

  /** Serialised per file: a burst of events gives one more hash after the running one. */
  private rehash(path: string, t: TrackedFile, isChange: boolean): Promise<void> {
    if (t.hashing) {
      t.again = true;
      return t.hashing;
    }
    const at = this.clock();
    let change = isChange;
    t.hashing = (async () => {
      let observedAt = at;
      do {
        t.again = false;
        const hash = await hashFile(path, this.logger);
        if (hash === denied) {
          this.deny(path);
          continue;
        }
        if (this.denied.delete(path)) {
          this.logger.info(`[tree] ${path} can be read now; watching it`);
          if (t.hash === undefined) {
            // Never read before: what it holds now is where its history starts, not a change.
            change = false;
          }
        }
        this.watchFile(path, hash !== null);
        if (hash !== t.hash) {
          const previous = t.hash;
          t.hash = hash;
          // The editor's save of this notebook is being read back: only then is it known
          // whether this content is what the user saved (bounded by the host; see userSavePending).
          const saving = change || previous !== undefined ? this.opts.userSavePending?.(path) : undefined;
          if (saving) {
            await saving;
          }
          if (change || previous !== undefined) {
            this.record(path, t, { path: this.spelled(path), at: observedAt, hash, previous, by: this.attribute(path, hash, observedAt) });
          }
        }
        observedAt = this.clock();
      } while (t.again);
    })().finally(() => {
      t.hashing = undefined;
    });
    return t.hashing;
  }

  /** See `denied`. The file's watch goes: chokidar has dropped it, or will at its next event. */
  private deny(path: string): void {
    if (!this.denied.has(path)) {
      this.denied.add(path);
      this.logger.warn(`[tree] cannot read ${path} (permission denied); looking again every ${deniedLookMs / 1000} s`);
    }
    if (this.watched.delete(path)) {
      this.watcher?.unwatch(path);
    }
    if (!this.deniedTimer && this.watcher) {
      this.deniedTimer = setInterval(() => this.retryDenied(), deniedLookMs);
      this.deniedTimer.unref?.();
    }
  }

  private retryDenied(): void {
    for (const path of this.denied) {
      const t = this.tracked.get(path);
      if (t) {
        // A change, if it was known before: what happened meanwhile is looked for.
        void this.rehash(path, t, true);
      } else {
        this.denied.delete(path);
      }
    }
    if (this.denied.size === 0 && this.deniedTimer) {
      clearInterval(this.deniedTimer);
      this.deniedTimer = undefined;
    }
  }

  /** Who made a change; `notBy`: a session known not to have made it (see wroteOverUnseen). */
  private attribute(path: string, hash: string | null, at: number, notBy?: string): ChangeAuthor {
    const windows = (this.inflight.get(path) ?? []).filter((w) => w.session !== notBy);
    const byContent = windows.find((w) => hash !== null && w.afterHash === hash);
    if (byContent) {
      return authorOf(byContent);
    }
    // A write whose result was hashed on disk explains that content only, even within the grace.
    const open = this.inflightFor(path, at).filter((w) => w.session !== notBy && !(w.exact && w.afterHash !== hash));
    if (open.length === 1) {
      return authorOf(open[0]!);
    }
    if (this.opts.isUserSave?.(path, at, hash)) {
      return { kind: 'user' };
    }
    const sweep = this.sweeps.filter((w) => isUnder(path, w.dir) && at >= w.start - this.grace && (w.end === undefined || at <= w.end + this.grace)).pop();
    if (sweep) {
      return authorOf(sweep);
    }
    return { kind: 'unknown' };
  }

  private record(path: string, t: TrackedFile, c: TreeChange): void {
    t.history.push(c);
    if (t.history.length > maxHistory) {
      t.history.splice(0, t.history.length - maxHistory);
    }
    // A session whose own write this was now knows the new content (its write's view, reported
    // just before the tree saw the write land; not a read's, whose content the read itself gave).
    const by = c.by;
    if (by.kind === 'session') {
      const s = this.seen.get(by.session)?.get(path);
      if (s?.how === 'write' && s.at >= c.at - this.grace) {
        s.hash = c.hash;
      }
    }
    this.changed.fire(c);
  }

  private evictOldest(): void {
    const first = this.tracked.keys().next();
    if (!first.done) {
      this.tracked.delete(first.value);
      this.watchFile(first.value, false);
    }
  }

  async dispose(): Promise<void> {
    clearInterval(this.deniedTimer);
    this.deniedTimer = undefined;
    this.changed.dispose();
    const w = this.watcher;
    this.watcher = undefined;
    await w?.close();
  }
}

function authorOf(w: Pick<Inflight, 'session' | 'sessionId' | 'line'>): ChangeAuthor {
  return {
    kind: 'session',
    session: w.session,
    ...(w.sessionId !== undefined ? { sessionId: w.sessionId } : {}),
    ...(w.line !== undefined ? { line: w.line } : {}),
  };
}

/** sha256 of a file's bytes, streamed; null when it does not exist; `denied` when its permissions keep it from being read. */
async function hashFile(path: string, logger: Logger = nullLogger): Promise<string | null | typeof denied> {
  try {
    const info = await stat(path);
    if (!info.isFile()) {
      return null;
    }
    const h = createHash('sha256');
    for await (const chunk of createReadStream(path)) {
      h.update(chunk as Buffer);
    }
    return h.digest('hex');
  } catch (e) {
    const code = errnoCode(e);
    if (code === 'EACCES' || code === 'EPERM') {
      return denied;
    }
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      logger.warn(`[tree] cannot hash ${path}: ${describeError(e)}`);
    }
    return null;
  }
}

export function hashText(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
