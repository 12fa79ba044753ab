import * as nodePath from 'node:path';
import { attributeChange, type RecordedWrite } from '../core/engine/attributeAcross';
import type { Disposable } from '../core/lib/disposable';
import { nullLogger, type Logger } from '../core/lib/logger';
import type { NormalizedEvent } from '../core/model/events';
import type { Finding } from '../core/model/finding';
import type { FormatAdapter } from '../core/parse/adapter';
import { checkFile } from './checkFile';
import type { FindingStore } from './findingStore';

const writeOps = new Set(['write', 'edit', 'create', 'delete']);

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
  const pending = new Map<string, { path: string; line: number; tool: string }[]>();
  const writes: RecordedWrite[] = [];
  const times = new Map<number, number>();
  const observe = (e: NormalizedEvent): void => {
    if (e.kind === 'call') {
      const mine = e.accesses.filter((a) => writeOps.has(a.op) && paths.has(a.path));
      if (mine.length > 0) {
        pending.set(
          e.callId,
          mine.map((a) => ({ path: a.path, line: a.span?.line ?? e.at.line, tool: e.tool })),
        );
      }
    }
    const time = 'timestamp' in e && e.timestamp !== undefined ? Date.parse(e.timestamp) : NaN;
    if (lines.has(e.at.line) && !times.has(e.at.line) && Number.isFinite(time)) {
      times.set(e.at.line, time);
    }
    if (e.kind === 'result') {
      const calls = pending.get(e.callId);
      if (calls !== undefined && !e.isError && Number.isFinite(time)) {
        pending.delete(e.callId);
        for (const c of calls) {
          writes.push({ file: t.file, session: t.session, path: c.path, line: c.line, tool: c.tool, callId: e.callId, time });
        }
      }
    }
  };
  try {
    await checkFile(t.file, { adapters, rules: [], observe });
  } catch {
    // Read once already; if it cannot be read again (gone, moved), it names nobody.
  }
  return { writes, times };
}

export interface WriterNamerOptions {
  store: FindingStore;
  /** Every transcript the host knows now (read or not yet). */
  transcripts: () => readonly { file: string; session: string; cwd?: string | undefined }[];
  adapters: readonly FormatAdapter[];
  /** While true (transcripts still being read), naming waits: what they hold is not in yet. */
  busy: () => boolean;
  logger?: Logger;
  delayMs?: number;
}

/**
 * The live hosts' (`watch`, the extension) side of `nameWriters`. The working-tree watcher
 * names whoever changes a file while it runs; a stale write found in a session read at
 * start-up, or one whose change came before the watcher, names no one. Once the transcripts
 * are read, this names the writer another of the workspace's transcripts records, replacing the
 * finding in the store (same id: an update). A transcript read again reports the finding
 * unnamed again: the named one is kept for it, so it is not looked up twice.
 */
export class WriterNamer implements Disposable {
  private readonly waiting = new Map<string, Finding>();
  /** Named findings, by id, with the message of the finding they replace. */
  private readonly done = new Map<string, { from: string; named: Finding }>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private disposed = false;
  private readonly subscription: Disposable;
  private readonly logger: Logger;

  constructor(private readonly opts: WriterNamerOptions) {
    this.logger = opts.logger ?? nullLogger;
    this.subscription = opts.store.onDidChange((c) => {
      for (const f of c.removed) {
        this.waiting.delete(f.id);
        this.done.delete(f.id);
      }
      for (const f of [...c.added, ...c.updated]) {
        this.offer(f);
      }
    });
  }

  private offer(f: Finding): void {
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

  private async run(): Promise<void> {
    const batch = [...this.waiting.values()];
    this.waiting.clear();
    const byFile = new Map<string, Finding[]>();
    for (const f of batch) {
      const list = byFile.get(f.file) ?? [];
      list.push(f);
      byFile.set(f.file, list);
    }
    const transcripts = this.opts.transcripts().map((t) => ({ ...t, findings: byFile.get(t.file) ?? [] }));
    try {
      const named = await nameWriters(transcripts, this.opts.adapters);
      for (const f of batch) {
        const g = named.get(f.id);
        if (g && !this.disposed && this.opts.store.get(f.file, f.id)?.message === f.message) {
          this.done.set(f.id, { from: f.message, named: g });
          this.opts.store.add(g);
        }
      }
    } catch (err) {
      this.logger.warn(`naming the writers of stale writes failed: ${String(err)}`);
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
    this.subscription.dispose();
  }
}
