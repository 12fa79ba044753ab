import * as nodePath from 'node:path';
import { milder, emptyRuleConfig, type RuleConfig } from '../core/config/ruleConfig';
import { resolveAgainst } from '../core/classify/paths';
import { attributeChange, type RecordedWrite } from '../core/engine/attributeAcross';
import { blindWrites, WritesByPath, type TimedTranscript } from '../core/engine/blindAcross';
import type { Disposable } from '../core/lib/disposable';
import type { Event } from '../core/lib/event';
import { groupBy } from '../core/lib/group';
import { nullLogger, type Logger } from '../core/lib/logger';
import type { AgentKind } from '../core/model/agent';
import { writeOps, type NormalizedEvent } from '../core/model/events';
import type { Finding, Severity } from '../core/model/finding';
import type { FormatAdapter } from '../core/parse/adapter';
import { AccessLog } from './accessLog';
import { checkFile, type TranscriptLog } from './checkFile';
import type { FindingStore } from './findingStore';


/** A transcript read with others: its session, its folder, and its findings that may name a writer. */
export interface TranscriptAmongOthers {
  file: string;
  session: string;
  /** The session's working folder, where known. */
  cwd?: string | undefined;
  findings: readonly Finding[];
}

/**
 * The stale writes among `transcripts`' findings whose transcript does not name the writer
 * (Finding.changedBetween), each with the writer another of the transcripts records, where one
 * wrote that file in between (see core/engine/attributeAcross.ts), by finding id.
 *
 * It reads transcripts again, without rules, and only when there is such a finding: the
 * finding's own file (for the times of its two lines) and those of the other transcripts whose
 * working folder holds one of the files concerned (or names none): a project's sessions, not
 * every session of a large check, unless a file concerned is outside its session's folder.
 * What it keeps is the writes of those files, nothing else.
 */
export async function nameWriters(transcripts: readonly TranscriptAmongOthers[], adapters: readonly FormatAdapter[]): Promise<Map<string, Finding>> {
  const named = new Map<string, Finding>();
  const open = transcripts.flatMap((t) => t.findings.filter((f) => f.changedBetween !== undefined && f.subject !== undefined));
  if (open.length === 0 || transcripts.length < 2) {
    return named;
  }
  const paths = new Set(open.map((f) => f.subject!.path));
  const owners = new Set(open.map((f) => f.file));
  // A file outside its own session's folder (`~/.claude/CLAUDE.md`, a shared notes file) is
  // as likely written by a session of another project: then every transcript is read.
  const cwdOf = new Map(transcripts.map((t) => [t.file, t.cwd]));
  const stray = open.some((f) => {
    const cwd = cwdOf.get(f.file);
    return cwd === undefined || !isInside(f.subject!.path, cwd);
  });
  const linesOf = new Map<string, Set<number>>();
  for (const f of open) {
    const lines = linesOf.get(f.file) ?? new Set<number>();
    lines.add(f.changedBetween!.seenLine).add(f.changedBetween!.writeLine);
    linesOf.set(f.file, lines);
  }
  const writes: RecordedWrite[] = [];
  const times = new Map<string, Map<number, number>>();
  for (const t of transcripts) {
    const concerned = stray || t.cwd === undefined || [...paths].some((p) => isInside(p, t.cwd!));
    if (!concerned && !owners.has(t.file)) {
      continue;
    }
    const found = await readWrites(t, paths, linesOf.get(t.file) ?? new Set(), adapters);
    writes.push(...found.writes);
    times.set(t.file, found.times);
  }
  for (const f of open) {
    const at = times.get(f.file);
    const seenTime = at?.get(f.changedBetween!.seenLine);
    const writeTime = at?.get(f.changedBetween!.writeLine);
    if (seenTime === undefined || writeTime === undefined) {
      continue;
    }
    const g = attributeChange({ finding: f, seenTime, writeTime }, writes);
    if (g) {
      named.set(f.id, g);
    }
  }
  return named;
}

function isInside(path: string, folder: string): boolean {
  const rel = nodePath.relative(folder, path);
  return rel !== '' && !rel.startsWith('..') && !nodePath.isAbsolute(rel);
}

/** One transcript's successful writes of `paths`, and the times of its events on `lines`. */
async function readWrites(
  t: TranscriptAmongOthers,
  paths: ReadonlySet<string>,
  lines: ReadonlySet<number>,
  adapters: readonly FormatAdapter[],
): Promise<{ writes: RecordedWrite[]; times: Map<number, number> }> {
  const log = await readLog(t.file, adapters, lines);
  const writes = log.accesses
    .filter((a) => writeOps.has(a.op) && paths.has(a.path))
    .map((a) => ({ file: t.file, session: t.session, path: a.path, line: a.line, tool: a.tool, callId: a.callId, time: a.resultTime }));
  return { writes, times: log.lineTimes };
}

/** A transcript read again, without rules, for its AccessLog; one that cannot be read shows nothing. */
async function readLog(file: string, adapters: readonly FormatAdapter[], lines?: ReadonlySet<number>, failed?: () => void): Promise<AccessLog> {
  const log = new AccessLog(lines);
  try {
    await checkFile(file, { adapters, rules: [], observe: log.observe });
  } catch {
    // Read once already; if it cannot be read again (gone, moved), it shows nothing.
    failed?.();
  }
  return log;
}

/**
 * Stale writes of Codex sessions that only another transcript shows (see
 * core/engine/blindAcross.ts): a Codex rollout records no file content, so `stale-write` cannot
 * judge its writes alone. Reads the Codex transcripts again, without rules, for their accesses;
 * when one wrote a file it had seen, the other transcripts of the same working folder are read
 * for their writes. `config` gives the rule's level (off: nothing).
 */
export async function findBlindWrites(
  transcripts: readonly (TranscriptAmongOthers & { agent?: AgentKind | undefined; log?: TranscriptLog | undefined })[],
  adapters: readonly FormatAdapter[],
  config: RuleConfig = emptyRuleConfig,
): Promise<Finding[]> {
  const level = config.levels['stale-write'] ?? 'error';
  // A file named twice (on its own and within its folder) is in `transcripts` twice, and check
  // gives each copy the findings of its file: judged once, each copy has each finding once.
  const subjects = [...new Map(transcripts.filter((t) => t.agent === 'codex').map((t) => [t.file, t])).values()];
  if (level === 'off' || subjects.length === 0 || transcripts.length < 2) {
    return [];
  }
  const read = new Map<string, TimedTranscript>();
  for (const t of subjects) {
    // Collected by check's own read when it asked for it (CheckFileOptions.accessLog).
    const log = t.log ?? (await readLog(t.file, adapters));
    read.set(t.file, { file: t.file, session: t.session, parentSession: log.parentSession, accesses: log.accesses });
  }
  // The files Codex sessions wrote after seeing them: only their writes elsewhere matter.
  const paths = writtenAfterSeen(read.values());
  if (paths.size === 0) {
    return [];
  }
  const cwdOf = new Map(transcripts.map((t) => [t.file, t.cwd]));
  const folders = new Set(subjects.flatMap((t) => (t.cwd !== undefined ? [folderKey(t.cwd)] : [])));
  for (const t of transcripts) {
    if (read.has(t.file)) {
      continue;
    }
    const cwd = cwdOf.get(t.file);
    if (cwd !== undefined && folders.has(folderKey(cwd))) {
      const log = await readLog(t.file, adapters);
      read.set(t.file, { file: t.file, session: t.session, parentSession: log.parentSession, accesses: log.accesses.filter((a) => paths.has(a.path)) });
    }
  }
  return judgeAcross(subjects, read, cwdOf, level);
}

/** The paths that one of `transcripts` wrote after it had seen them (read or written) itself. */
function writtenAfterSeen(transcripts: Iterable<TimedTranscript>): Set<string> {
  const paths = new Set<string>();
  for (const t of transcripts) {
    const seen = new Set<string>();
    for (const a of [...t.accesses].sort((x, y) => x.resultTime - y.resultTime)) {
      if (writeOps.has(a.op) && seen.has(a.path)) {
        paths.add(a.path);
      }
      seen.add(a.path);
    }
  }
  return paths;
}

/**
 * blindWrites of each subject against the transcripts of its working folder in `read` (the
 * subjects among them); a subject is judged as `own` has it where that holds it (all of its
 * accesses, where `read` holds those that count as another's).
 */
function judgeAcross(
  subjects: readonly { file: string; cwd?: string | undefined }[],
  read: ReadonlyMap<string, TimedTranscript>,
  cwdOf: ReadonlyMap<string, string | undefined>,
  level: Severity,
  own?: ReadonlyMap<string, TimedTranscript>,
): Finding[] {
  const severity = (whole: boolean): Severity => (whole ? level : milder(level, 'warning'));
  // Only sessions of the same working folder: a check of many machines' sessions at once (a
  // folder of collected homes) holds the same absolute paths in unrelated sessions, whose times
  // may interleave by chance; most of those are of other projects, in other folders. Not all:
  // sessions of two machines that both work in /app are taken for one machine's (no transcript
  // names its host), and only their times keep them apart. A sub-agent works in its session's
  // folder. Each folder's writes are indexed once, for all its sessions.
  const inFolders = [...read.values()].filter((o) => cwdOf.get(o.file) !== undefined);
  const byFolder = groupBy(inFolders, (o) => folderKey(cwdOf.get(o.file)!));
  const indexes = new Map([...byFolder].map(([folder, list]) => [folder, new WritesByPath(list)]));
  return subjects.flatMap((t) => {
    const index = t.cwd !== undefined ? indexes.get(folderKey(t.cwd)) : undefined;
    const subject = own?.get(t.file) ?? read.get(t.file);
    return index && subject ? blindWrites(subject, index, t.cwd, severity) : [];
  });
}

/**
 * A working folder as one key however its session wrote it, as the paths in it are written
 * (resolveAgainst): VS Code's Claude Code names `c:\proj` the folder Codex names `C:\proj`, and
 * a folder may end in a separator. A Windows folder read on Linux is not resolved against the
 * current directory.
 */
function folderKey(cwd: string): string {
  const p = resolveAgainst(cwd, undefined) ?? nodePath.resolve(cwd);
  const end = p.charCodeAt(p.length - 1);
  const root = p.length === 1 || (p.length === 3 && p[1] === ':');
  return !root && (end === 0x2f || end === 0x5c) ? p.slice(0, -1) : p;
}

/**
 * A lookup run in the background: asked for any number of times, it runs once, `delayMs`
 * later, and not while the host still reads transcripts (`busy`) or a run is under way (then
 * once that is done). The live hosts' lookups across transcripts (WriterNamer,
 * BlindWriteFinder) each own one.
 */
class DeferredRun implements Disposable {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private disposed = false;

  constructor(
    private readonly run: () => Promise<void>,
    private readonly busy: () => boolean,
    private readonly delayMs: number,
  ) {}

  schedule(): void {
    if (this.timer !== undefined || this.disposed) {
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.running || this.busy()) {
        this.schedule();
        return;
      }
      this.running = this.run().finally(() => {
        this.running = undefined;
      });
    }, this.delayMs);
    this.timer.unref?.();
  }

  /** Resolves when nothing waits to run (tests; `watch` before its summary). */
  async idle(): Promise<void> {
    while (this.running || this.timer !== undefined) {
      await (this.running ?? new Promise((r) => setTimeout(r, 20)));
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      // Else `idle()` waited for a run that never comes, for ever, polling (LiveMonitor.start
      // of a monitor closed during its start-up never ended, and kept it all in memory).
      this.timer = undefined;
    }
  }
}

export interface WriterNamerOptions {
  store: FindingStore;
  /** Every transcript the host knows now (read or not yet). */
  transcripts: () => readonly { file: string; session: string; cwd?: string | undefined }[];
  adapters: readonly FormatAdapter[];
  /** While true (transcripts still being read), naming waits: what they hold is not in yet. */
  busy: () => boolean;
  /**
   * Fires when a transcript appears or grows (its file), or when one goes (undefined): a
   * transcript none of the stale writes left unnamed was looked up in may name their writer.
   */
  onDidChangeTranscripts: Event<{ file: string } | undefined>;
  logger?: Logger;
  delayMs?: number;
}

/**
 * How many stale writes left unnamed are kept to look up again when a transcript appears. Each
 * is a finding held in memory, and a workspace whose formatter changes files behind every
 * session has many that no transcript will ever name; the newest are kept, as a transcript that
 * appears now is most likely that of a session running now.
 */
const maxUnnamed = 256;

/**
 * The live hosts' (`watch`, the extension) side of `nameWriters`. The working-tree watcher
 * names whoever changes a file while it runs; a stale write found in a session read at
 * start-up, or one whose change came before the watcher, names no one. Once the transcripts
 * are read, this names the writer another of the workspace's transcripts records, replacing the
 * finding in the store (same id: an update). A transcript read again reports the finding
 * unnamed again: the named one is kept for it, so it is not looked up twice.
 *
 * One left unnamed is looked up again when a transcript it was not looked up in appears (found
 * after the start-up reads, in a folder that appeared, or a new session), as `check` over the
 * same files would name it. Not when a transcript it was looked up in grows: agents record a
 * write's result as it comes back, so what those hold of the time before the write on top was
 * on disk when it was looked up, and looking again at each append would read the workspace's
 * transcripts again each time.
 */
export class WriterNamer implements Disposable {
  private readonly waiting = new Map<string, Finding>();
  /** Named findings, by id, with the message of the finding they replace. */
  private readonly done = new Map<string, { from: string; named: Finding }>();
  /** Looked up and left unnamed, by id, oldest first: each was looked up in every transcript of `lookedIn`. */
  private readonly unnamed = new Map<string, Finding>();
  /** The transcripts of the last lookup. */
  private lookedIn = new Set<string>();
  private readonly lookup: DeferredRun;
  private disposed = false;
  private readonly subscriptions: Disposable[];
  private readonly logger: Logger;

  constructor(private readonly opts: WriterNamerOptions) {
    this.logger = opts.logger ?? nullLogger;
    this.lookup = new DeferredRun(() => this.run(), opts.busy, opts.delayMs ?? 500);
    this.subscriptions = [
      opts.store.onDidChange((c) => {
        for (const f of c.removed) {
          this.waiting.delete(f.id);
          this.done.delete(f.id);
          this.unnamed.delete(f.id);
        }
        for (const f of [...c.added, ...c.updated]) {
          this.offer(f);
        }
      }),
      opts.onDidChangeTranscripts((t) => this.transcriptsChanged(t?.file)),
    ];
  }

  private offer(f: Finding): void {
    // Changed (or named by the working tree): what was looked up for it no longer holds.
    this.unnamed.delete(f.id);
    if (f.changedBetween === undefined || f.subject === undefined) {
      return;
    }
    const done = this.done.get(f.id);
    if (done && done.from === f.message) {
      // Reported again as it was (a re-read): the writer is the one named before.
      this.opts.store.add(done.named);
      return;
    }
    this.waiting.set(f.id, f);
    this.schedule();
  }

  private schedule(): void {
    this.lookup.schedule();
  }

  /**
   * A transcript appeared or grew (`file`), or went (undefined): one that the unnamed were not
   * looked up in sends them to be looked up again. Only a transcript new to them does, so a
   * finding no transcript names is looked up once per transcript that appears, never in a loop.
   */
  private transcriptsChanged(file: string | undefined): void {
    if (this.unnamed.size === 0 || this.disposed) {
      return;
    }
    const appeared = file !== undefined ? !this.lookedIn.has(file) : this.opts.transcripts().some((t) => !this.lookedIn.has(t.file));
    if (appeared) {
      this.retry();
    }
  }

  private retry(): void {
    this.requeueUnnamed();
    this.schedule();
  }

  private requeueUnnamed(): void {
    for (const f of this.unnamed.values()) {
      this.waiting.set(f.id, f);
    }
    this.unnamed.clear();
  }

  private async run(): Promise<void> {
    const known = this.opts.transcripts();
    const files = new Set(known.map((t) => t.file));
    // A transcript that came to be known with no change reported yet (its read not done): the
    // unnamed are looked up in it now, since `lookedIn` will hold it from here on.
    if (known.some((t) => !this.lookedIn.has(t.file))) {
      this.requeueUnnamed();
    }
    this.lookedIn = files;
    const batch = [...this.waiting.values()];
    this.waiting.clear();
    const byFile = new Map<string, Finding[]>();
    for (const f of batch) {
      const list = byFile.get(f.file) ?? [];
      list.push(f);
      byFile.set(f.file, list);
    }
    const transcripts = known.map((t) => ({ ...t, findings: byFile.get(t.file) ?? [] }));
    this.logger.debug(`looking up the writers of ${batch.length} stale write(s) in ${transcripts.length} transcript(s)`);
    let named = new Map<string, Finding>();
    try {
      named = await nameWriters(transcripts, this.opts.adapters);
    } catch (err) {
      this.logger.warn(`naming the writers of stale writes failed: ${String(err)}`);
    }
    if (this.disposed) {
      return;
    }
    for (const f of batch) {
      // Changed or gone meanwhile: the store's change offered it again or forgot it.
      if (this.opts.store.get(f.file, f.id)?.message !== f.message || this.waiting.has(f.id)) {
        continue;
      }
      const g = named.get(f.id);
      if (g) {
        this.done.set(f.id, { from: f.message, named: g });
        this.opts.store.add(g);
      } else {
        this.keepUnnamed(f);
      }
    }
    // A transcript that appeared while this lookup ran was reported against `lookedIn` before
    // this batch was among the unnamed.
    this.transcriptsChanged(undefined);
  }

  private keepUnnamed(f: Finding): void {
    this.unnamed.delete(f.id);
    this.unnamed.set(f.id, f);
    if (this.unnamed.size > maxUnnamed) {
      this.unnamed.delete(this.unnamed.keys().next().value!);
    }
  }

  /** Resolves when nothing waits to be named (tests). */
  idle(): Promise<void> {
    return this.lookup.idle();
  }

  dispose(): void {
    this.disposed = true;
    this.lookup.dispose();
    for (const d of this.subscriptions) {
      d.dispose();
    }
  }
}

export interface BlindWriteFinderOptions {
  store: FindingStore;
  /** Every transcript the host knows now (read or not yet), with its agent and working folder once read. */
  transcripts: () => readonly { file: string; session: string; agent: AgentKind; cwd?: string | undefined }[];
  adapters: readonly FormatAdapter[];
  /** stale-write's level (off: nothing). */
  config?: RuleConfig;
  /**
   * From when (ms since the epoch) the working-tree watcher sees the changes of the files the
   * host's transcripts touched: the host's start-up reads caught up. Another transcript's write
   * done since is a change the working tree saw and judges the writes over it by; only those
   * before it are looked up here. Read at each lookup; the first runs once it is fixed (`busy`).
   */
  until: () => number;
  /** While true (transcripts still being read), the lookup waits: their folders are not known yet. */
  busy: () => boolean;
  /** Fires when a transcript appears or grows (its file, and its working folder once known), or when one goes (undefined). */
  onDidChangeTranscripts: Event<{ file: string; cwd?: string | undefined } | undefined>;
  logger?: Logger;
  delayMs?: number;
}

/**
 * The live hosts' (`watch`, the extension) side of `findBlindWrites`. A Codex rollout records no
 * file content, so a Codex session's write over another session's write it never saw shows only
 * beside the other transcript; `check` sets them side by side (fifty-fourth set: two Codex
 * sessions patching one EXECPLAN.md at the same time). The working-tree watcher judges a write
 * over a change it saw, made while it watches; a change made before (another session's write in
 * the history read at start-up) it cannot know. So the Codex sessions' writes, those of their
 * history and those they make while watched, are set beside the other transcripts' writes made
 * before the host's start-up reads caught up (see `until`), as `check` sets them, with `check`'s
 * findings and ids.
 *
 * A Codex transcript's accesses are collected from the host's own reads of it (`begin`,
 * `observe`), as `check` collects them on its read, and compacted to what a write can still be
 * judged by (AccessLog.compact); another transcript of a Codex session's folder is read once,
 * for its writes before the watching began, only when a Codex session wrote a file it had seen.
 * The lookup runs once the start-up reads are done, when a transcript appears or goes, and when
 * a Codex session records a write. The findings are kept in the store beside the transcript's
 * own (`owns`: a re-read of it does not report them); the transcript gone, they go with it. One
 * the working tree gives for the same write (it saw another change in between) is not repeated.
 */
export class BlindWriteFinder implements Disposable {
  /** Each Codex transcript's accesses, from the host's reads of it. */
  private readonly logs = new Map<string, AccessLog>();
  /** Its size when it was last compacted: compacted again once it has doubled. */
  private readonly compactedAt = new Map<string, number>();
  /** Other transcripts' writes done before `until`, read once. */
  private readonly history = new Map<string, TimedTranscript>();
  /** The findings this added, by id, with their file. */
  private readonly mine = new Map<string, string>();
  /** The transcripts of the last lookup whose working folder was known then. */
  private lookedAt = new Set<string>();
  /** Every transcript of the last lookup (a folder or not). */
  private knownAt = new Set<string>();
  private readonly lookup: DeferredRun;
  private disposed = false;
  private readonly subscriptions: Disposable[];
  private readonly logger: Logger;

  constructor(private readonly opts: BlindWriteFinderOptions) {
    this.logger = opts.logger ?? nullLogger;
    this.lookup = new DeferredRun(
      () => this.run().catch((err: unknown) => this.logger.warn(`looking for Codex writes over other sessions' writes failed: ${String(err)}`)),
      opts.busy,
      opts.delayMs ?? 500,
    );
    this.subscriptions = [
      opts.onDidChangeTranscripts((t) => {
        // One that appears or goes may change what is found, and so may one whose folder its
        // first read made known; one that grows, only by a Codex write (`observe`). One that
        // still names no folder is set beside none: each of its appends is no reason to look again.
        if (t === undefined || !this.knownAt.has(t.file) || (!this.lookedAt.has(t.file) && t.cwd !== undefined)) {
          this.schedule();
        }
      }),
      opts.store.onDidChange((c) => {
        // The working tree judged one of these writes itself (it saw a change in between): one
        // write, one finding.
        for (const f of c.added) {
          if (!this.mine.has(f.id) && f.rule === 'stale-write') {
            for (const [id, file] of this.mine) {
              if (file === f.file && this.opts.store.get(file, id)?.callId === f.callId && f.callId !== undefined) {
                this.mine.delete(id);
                this.opts.store.retract(id);
              }
            }
          }
        }
      }),
    ];
    this.schedule();
  }

  private get off(): boolean {
    return this.opts.config?.levels['stale-write'] === 'off';
  }

  /**
   * The host reads a Codex transcript from its start (its first read, a re-check, a rewrite):
   * what was collected of an earlier read goes, and its events are collected from here.
   */
  begin(file: string): void {
    this.logs.delete(file);
    this.compactedAt.delete(file);
    if (!this.off) {
      this.logs.set(file, new AccessLog());
    }
  }

  /** An event the host read from a Codex transcript (not one replayed to rebuild a sleeping session's state). */
  observe(file: string, e: NormalizedEvent): void {
    const log = this.logs.get(file);
    if (log === undefined) {
      return;
    }
    const before = log.accesses.length;
    log.observe(e);
    const after = log.accesses.length;
    if (after === before) {
      return;
    }
    if (after >= 2 * (this.compactedAt.get(file) ?? 256)) {
      log.compact();
      this.compactedAt.set(file, log.accesses.length);
    }
    // A write recorded once the start-up reads are done: judged now (while they run, the
    // lookup after them judges it).
    if (!this.opts.busy() && log.accesses.slice(before).some((a) => writeOps.has(a.op))) {
      this.schedule();
    }
  }

  /**
   * The host's read of `file` from its start caught up with its end: what it holds of reads it no
   * longer needs goes; nothing is kept of a transcript that is not a Codex rollout.
   */
  caughtUp(file: string, agent: AgentKind): void {
    const log = this.logs.get(file);
    if (agent !== 'codex') {
      this.logs.delete(file);
    } else if (log !== undefined) {
      log.compact();
      this.compactedAt.set(file, log.accesses.length);
    }
  }

  /** Whether a finding is one of this lookup's (a re-read of its transcript does not report it). */
  owns(id: string): boolean {
    return this.mine.has(id);
  }

  private schedule(): void {
    this.lookup.schedule();
  }

  private async run(): Promise<void> {
    const level = this.opts.config?.levels['stale-write'] ?? 'error';
    const known = this.opts.transcripts();
    const files = new Set(known.map((t) => t.file));
    this.knownAt = files;
    this.lookedAt = new Set(known.flatMap((t) => (t.cwd !== undefined ? [t.file] : [])));
    for (const m of [this.history, this.logs, this.compactedAt]) {
      for (const file of m.keys()) {
        if (!files.has(file)) {
          m.delete(file);
        }
      }
    }
    const subjects = known.filter((t) => t.agent === 'codex' && t.cwd !== undefined);
    let found: Finding[] = [];
    if (level !== 'off' && subjects.length > 0 && known.length > 1) {
      const read = new Map<string, TimedTranscript>();
      for (const t of subjects) {
        // A rollout the host has no log of (not read from its start yet): read for it now.
        const log = this.logs.get(t.file) ?? (await this.readWhole(t.file));
        if (this.disposed) {
          return;
        }
        read.set(t.file, { file: t.file, session: t.session, parentSession: log.parentSession, accesses: log.ofWrittenFiles() });
      }
      const paths = writtenAfterSeen(read.values());
      if (paths.size > 0) {
        const folders = new Set(subjects.map((t) => folderKey(t.cwd!)));
        for (const t of known) {
          if (t.cwd === undefined || !folders.has(folderKey(t.cwd)) || read.has(t.file)) {
            continue;
          }
          const h = await this.writesBefore(t);
          if (this.disposed) {
            // Closed (a settings change restarts the monitor): nobody would use the rest.
            return;
          }
          read.set(t.file, { ...h, accesses: h.accesses.filter((a) => paths.has(a.path)) });
        }
        // As another's, a Codex session's writes count only up to `until` (see the option); as
        // its own, they are judged whenever they were made.
        const until = this.opts.until();
        const others = new Map([...read].map(([file, t]) => [file, this.history.has(file) ? t : { ...t, accesses: t.accesses.filter((a) => a.resultTime < until || !writeOps.has(a.op)) }]));
        found = judgeAcross(subjects, others, new Map(known.map((t) => [t.file, t.cwd])), level, read);
      }
    }
    if (this.disposed) {
      return;
    }
    this.settle(found);
  }

  /** The findings of this lookup in the store, those no longer found out of it. */
  private settle(found: readonly Finding[]): void {
    const now = new Set(found.map((f) => f.id));
    for (const [id, file] of [...this.mine]) {
      if (!now.has(id)) {
        this.mine.delete(id);
        if (this.opts.store.get(file, id)) {
          this.opts.store.retract(id);
        }
      }
    }
    const files = new Set(this.opts.transcripts().map((t) => t.file));
    let added = 0;
    for (const f of found) {
      // A transcript gone meanwhile keeps none (its findings went with it); a write the working
      // tree judged itself keeps its finding.
      const judged = this.opts.store.forFile(f.file).some((g) => g.rule === 'stale-write' && g.callId === f.callId && g.id !== f.id && !this.mine.has(g.id));
      if (files.has(f.file) && !judged) {
        this.mine.set(f.id, f.file);
        this.opts.store.add(f);
        added++;
      }
    }
    if (added > 0) {
      this.logger.debug(`${added} Codex write(s) over another session's write found`);
    }
  }

  /** A rollout read whole, for its accesses (its log, from here on). */
  private async readWhole(file: string): Promise<AccessLog> {
    const log = await readLog(file, this.opts.adapters);
    log.compact();
    return log;
  }

  /** Another transcript's writes done before `until`, read once. */
  private async writesBefore(t: { file: string; session: string }): Promise<TimedTranscript> {
    let h = this.history.get(t.file);
    if (h === undefined) {
      let failed = false;
      const log = await readLog(t.file, this.opts.adapters, undefined, () => (failed = true));
      h = { file: t.file, session: t.session, parentSession: log.parentSession, accesses: log.accesses.filter((a) => writeOps.has(a.op) && a.resultTime < this.opts.until()) };
      if (!failed) {
        // (One that could not be read now, being replaced, is read again at the next lookup.)
        this.history.set(t.file, h);
      }
    }
    return h;
  }

  /** Resolves when nothing waits to be looked up (tests; `watch` before its summary). */
  idle(): Promise<void> {
    return this.lookup.idle();
  }

  dispose(): void {
    this.disposed = true;
    this.lookup.dispose();
    for (const d of this.subscriptions) {
      d.dispose();
    }
  }
}
