import type { TimedAccess } from '../core/engine/blindAcross';
import { writeOps, type NormalizedEvent, type ToolCall } from '../core/model/events';

/**
 * What `check` needs of a transcript to set it beside others (see core/engine/blindAcross.ts and
 * attributeAcross.ts): the file accesses of its calls that succeeded, with the times of call and
 * result, the session it is a sub-agent of, and the times of some of its lines. Fed the events of
 * one read of the transcript (`observe`), so that the read `check` makes anyway can collect it.
 */
export class AccessLog {
  readonly accesses: TimedAccess[] = [];
  parentSession: string | undefined;
  /** The time of the first timed event on each line asked for. */
  readonly lineTimes = new Map<number, number>();
  private readonly calls = new Map<string, { e: ToolCall; time: number }>();
  /** Each path kept, as a copy of its own (see `kept`). */
  private readonly paths = new Map<string, string>();

  constructor(private readonly lines: ReadonlySet<number> = new Set()) {}

  /**
   * The accesses of the files the transcript wrote: all that setting it beside others needs (a
   * write is judged by the session's own views of its file; another transcript's counts only by
   * its writes). `check` keeps this for every Codex transcript until its end, and the reads of
   * files it never wrote are most of the rest.
   */
  ofWrittenFiles(): TimedAccess[] {
    const written = new Set(this.accesses.flatMap((a) => (writeOps.has(a.op) ? [a.path] : [])));
    return this.accesses.filter((a) => written.has(a.path));
  }

  /**
   * Keeps what judging the transcript's writes can still need: every access of a file it wrote
   * (a write is judged by the session's views of its file before it), and of each other file
   * only the latest view, which a write of it to come would be judged by. A live host keeps a
   * Codex session's log for as long as it watches: without this, every read it ever made.
   */
  compact(): void {
    const written = new Set(this.accesses.flatMap((a) => (writeOps.has(a.op) ? [a.path] : [])));
    const latest = new Map<string, TimedAccess>();
    for (const a of this.accesses) {
      const l = latest.get(a.path);
      if (!written.has(a.path) && (l === undefined || a.resultTime >= l.resultTime)) {
        latest.set(a.path, a);
      }
    }
    let n = 0;
    for (const a of this.accesses) {
      if (written.has(a.path) || latest.get(a.path) === a) {
        this.accesses[n++] = a;
      }
    }
    this.accesses.length = n;
  }

  // Runs on every event of `check`'s read: times are parsed only where they are kept.
  readonly observe = (e: NormalizedEvent): void => {
    if (this.lines.size > 0 && this.lines.has(e.at.line) && !this.lineTimes.has(e.at.line)) {
      const time = timeOf(e);
      if (Number.isFinite(time)) {
        this.lineTimes.set(e.at.line, time);
      }
    }
    if (e.kind === 'session') {
      this.parentSession ??= e.parentSessionId;
    } else if (e.kind === 'call') {
      // A call with no time of its own still has its result's (the writer naming needs no more).
      if (e.accesses.length > 0 && e.accesses.some((a) => !a.glob)) {
        this.calls.set(e.callId, { e, time: timeOf(e) });
      }
    } else if (e.kind === 'result') {
      const c = this.calls.get(e.callId);
      if (c === undefined || e.isError || e.refused) {
        return;
      }
      const time = timeOf(e);
      if (!Number.isFinite(time)) {
        return;
      }
      // The first result that succeeded is the call's (a second one is another rule's business).
      this.calls.delete(e.callId);
      for (const a of c.e.accesses) {
        if (a.glob) {
          continue;
        }
        this.accesses.push({
          path: this.kept(a.path),
          op: a.op,
          callId: e.callId,
          tool: c.e.tool,
          line: a.span?.line ?? c.e.at.line,
          ...(a.span ? { span: a.span } : {}),
          callTime: c.time,
          resultTime: time,
          viaShell: a.viaShell === true,
          whole: (a.op === 'write' || a.op === 'create' || a.op === 'delete') && !a.append && !a.amend,
        });
      }
    }
  };

  /**
   * A path as a string of its own. One cut out of a record (an apply_patch input, a command) is a
   * slice of that text and holds all of it alive, and the log is kept for every Codex transcript
   * to the end of the check: 200 patches of 32 KB held 200 MB. Copied once per file named.
   */
  private kept(path: string): string {
    let own = this.paths.get(path);
    if (own === undefined) {
      own = Buffer.from(path, 'utf8').toString('utf8');
      this.paths.set(own, own);
    }
    return own;
  }
}

function timeOf(e: NormalizedEvent): number {
  return 'timestamp' in e && e.timestamp !== undefined ? Date.parse(e.timestamp) : NaN;
}
