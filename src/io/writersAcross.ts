import * as nodePath from 'node:path';
import { milder, emptyRuleConfig, type RuleConfig } from '../core/config/ruleConfig';
import { resolveAgainst } from '../core/classify/paths';
import { attributeChange, type RecordedWrite } from '../core/engine/attributeAcross';
import { blindWrites, WritesByPath, type TimedAccess, type TimedTranscript } from '../core/engine/blindAcross';
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
async function readLog(file: string, adapters: readonly FormatAdapter[], lines?: ReadonlySet<number>): Promise<AccessLog> {
  const log = new AccessLog(lines);
  try {
    await checkFile(file, { adapters, rules: [], observe: log.observe });
  } catch {
    // Read once already; if it cannot be read again (gone, moved), it shows nothing.
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

/** blindWrites of each subject against the transcripts of its working folder in `read` (the subjects among them). */
function judgeAcross(
  subjects: readonly { file: string; cwd?: string | undefined }[],
  read: ReadonlyMap<string, TimedTranscript>,
  cwdOf: ReadonlyMap<string, string | undefined>,
  level: Severity,
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
    const subject = read.get(t.file);
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
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private disposed = false;
  private readonly subscriptions: Disposable[];
  private readonly logger: Logger;

  constructor(private readonly opts: WriterNamerOptions) {
    this.logger = opts.logger ?? nullLogger;
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
    if (this.timer !== undefined || this.disposed) {
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.running || this.opts.busy()) {
        this.schedule();
        return;
      }
      this.running = this.run().finally(() => {
        this.running = undefined;
      });
    }, this.opts.delayMs ?? 500);
    this.timer.unref?.();
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
  async idle(): Promise<void> {
    while (this.running || this.timer !== undefined) {
      await (this.running ?? new Promise((r) => setTimeout(r, 20)));
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
    }
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
   * When the host began watching (ms since the epoch): only writes done before it are judged.
   * The working-tree watcher sees every write after it as it happens, and judges it then.
   */
  until: number;
  /** While true (transcripts still being read), the lookup waits: their folders are not known yet. */
  busy: () => boolean;
  /** Fires when a transcript appears or grows (its file), or when one goes (undefined). */
  onDidChangeTranscripts: Event<{ file: string } | undefined>;
  logger?: Logger;
  delayMs?: number;
}

/**
 * The live hosts' (`watch`, the extension) side of `findBlindWrites`, for what happened before
 * they started watching. A Codex rollout records no file content, so a Codex session's write
 * over another session's write it never saw shows only beside the other transcript; `check`
 * sets them side by side (fifty-fourth set: two Codex sessions patching one EXECPLAN.md at the
 * same time), and the working-tree watcher sees such a write only when it happens while it
 * watches. So the sessions read at start-up (or found later) are set side by side here, once
 * they are read, with `check`'s findings and ids.
 *
 * History does not change: each transcript is read for its accesses once (a Codex session's of
 * the files it wrote, another's writes), up to `until`, and kept, so a session that appears
 * later costs one read of its own, not the workspace's again. The findings are kept in the
 * store beside the transcript's own (`owns`: its re-read does not report them); the transcript
 * gone, they go with it.
 */
export class BlindWriteFinder implements Disposable {
  /** Each transcript's accesses before `until`, once read: a Codex one's of the files it wrote, another's writes. */
  private readonly history = new Map<string, TimedTranscript>();
  /** The findings this added, by id, with their file. */
  private readonly mine = new Map<string, string>();
  /** The transcripts of the last lookup whose working folder was known then. */
  private lookedAt = new Set<string>();
  /** The accesses of Codex transcripts in their first read, collected from the monitor's own read (`observe`). */
  private readonly collecting = new Map<string, AccessLog>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private disposed = false;
  private readonly subscriptions: Disposable[];
  private readonly logger: Logger;

  constructor(private readonly opts: BlindWriteFinderOptions) {
    this.logger = opts.logger ?? nullLogger;
    this.subscriptions = [
      opts.onDidChangeTranscripts((t) => {
        // A transcript that grows adds nothing before `until`; one that appears or goes may,
        // and so may one whose folder its first read made known.
        if (t === undefined || !this.lookedAt.has(t.file)) {
          this.schedule();
        }
      }),
    ];
    this.schedule();
  }

  /**
   * An event of a Codex transcript's first read by the host: its accesses are collected there, as
   * `check` collects them on its own read, so that the lookup does not read every rollout again.
   */
  observe(file: string, e: NormalizedEvent): void {
    if (this.history.has(file)) {
      return;
    }
    let log = this.collecting.get(file);
    if (log === undefined) {
      log = new AccessLog();
      this.collecting.set(file, log);
    }
    log.observe(e);
  }

  /** The host's first read of `file` caught up: what `observe` collected is its history. */
  firstReadDone(file: string, session: string): void {
    const log = this.collecting.get(file);
    if (log !== undefined) {
      this.collecting.delete(file);
      this.history.set(file, this.historyOf({ file, session }, log, (l) => l.ofWrittenFiles()));
    }
  }

  /** Whether a finding is one of this lookup's (a re-read of its transcript does not report it). */
  owns(id: string): boolean {
    return this.mine.has(id);
  }

  private schedule(): void {
    if (this.timer !== undefined || this.disposed) {
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.running || this.opts.busy()) {
        this.schedule();
        return;
      }
      this.running = this.run()
        .catch((err: unknown) => this.logger.warn(`looking for Codex writes over other sessions' writes failed: ${String(err)}`))
        .finally(() => {
          this.running = undefined;
        });
    }, this.opts.delayMs ?? 500);
    this.timer.unref?.();
  }

  private async run(): Promise<void> {
    const level = this.opts.config?.levels['stale-write'] ?? 'error';
    const known = this.opts.transcripts();
    const files = new Set(known.map((t) => t.file));
    this.lookedAt = new Set(known.flatMap((t) => (t.cwd !== undefined ? [t.file] : [])));
    this.lookedAt = new Set(known.flatMap((t) => (t.cwd !== undefined ? [t.file] : [])));
    for (const m of [this.history, this.collecting]) {
      for (const file of m.keys()) {
        if (!files.has(file)) {
          m.delete(file);
        }
      }
    }
    const subjects = known.filter((t) => t.agent === 'codex' && t.cwd !== undefined);
    let found: Finding[] = [];
    if (level !== 'off' && subjects.length > 0 && known.length > 1) {
      for (const t of subjects) {
        await this.learn(t, (log) => log.ofWrittenFiles());
      }
      const paths = writtenAfterSeen(subjects.flatMap((t) => this.history.get(t.file) ?? []));
      if (paths.size > 0) {
        const folders = new Set(subjects.map((t) => folderKey(t.cwd!)));
        const read = new Map<string, TimedTranscript>();
        for (const t of known) {
          if (t.cwd === undefined || !folders.has(folderKey(t.cwd))) {
            continue;
          }
          const codex = t.agent === 'codex';
          const h = await this.learn(t, (log) => (codex ? log.ofWrittenFiles() : log.accesses.filter((a) => writeOps.has(a.op))));
          if (h) {
            read.set(t.file, codex ? h : { ...h, accesses: h.accesses.filter((a) => paths.has(a.path)) });
          }
        }
        found = judgeAcross(subjects, read, new Map(known.map((t) => [t.file, t.cwd])), level);
      }
    }
    if (this.disposed) {
      return;
    }
    const now = new Set(found.map((f) => f.id));
    for (const [id, file] of [...this.mine]) {
      if (!now.has(id)) {
        this.mine.delete(id);
        if (this.opts.store.get(file, id)) {
          this.opts.store.retract(id);
        }
      }
    }
    for (const f of found) {
      // A transcript gone meanwhile keeps none (its findings went with it).
      if (this.opts.transcripts().some((t) => t.file === f.file)) {
        this.mine.set(f.id, f.file);
        this.opts.store.add(f);
      }
    }
    if (found.length > 0) {
      this.logger.debug(`${found.length} Codex write(s) over another session's write found in the sessions' history`);
    }
  }

  /** A transcript's accesses before `until` (`keep` of them), read once. */
  private async learn(t: { file: string; session: string }, keep: (log: AccessLog) => TimedAccess[]): Promise<TimedTranscript | undefined> {
    let h = this.history.get(t.file);
    if (h === undefined) {
      // Not collected on the host's first read (another agent's transcript, needed only now).
      h = this.historyOf(t, await readLog(t.file, this.opts.adapters), keep);
      this.history.set(t.file, h);
    }
    return h;
  }

  private historyOf(t: { file: string; session: string }, log: AccessLog, keep: (log: AccessLog) => TimedAccess[]): TimedTranscript {
    return { file: t.file, session: t.session, parentSession: log.parentSession, accesses: keep(log).filter((a) => a.resultTime < this.opts.until) };
  }

  /** Resolves when nothing waits to be looked up (tests; `watch` before its summary). */
  async idle(): Promise<void> {
    while (this.running || this.timer !== undefined) {
      await (this.running ?? new Promise((r) => setTimeout(r, 20)));
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
    }
    for (const d of this.subscriptions) {
      d.dispose();
    }
  }
}
