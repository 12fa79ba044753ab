import { displayPath } from '../classify/paths';
import { groupBy } from '../lib/group';
import { writeOps, type AccessOp, type Span } from '../model/events';
import type { Finding, Severity } from '../model/finding';
import { baseName, isoSecond } from './attributeAcross';
import { findingId } from './engine';

/**
 * Stale writes that only several transcripts together show, in `check`.
 *
 * `stale-write` judges one transcript by the content it records: Claude Code's `originalFile`,
 * Gemini CLI's `originalContent`. A Codex rollout records no file content, so a Codex session
 * that writes a file from a read older than another session's write of it (its own sub-agent's,
 * as Codex CLI 0.171 ran here: test/fixtures/generated/codex-0.171/subagent-lost-update-*) gives
 * no finding on its own. Live, the working-tree watcher sees the change; after the fact, the other
 * transcript holds the write, and the times put the three calls in order: the other write started
 * after this session last saw the file and was done before this session's write started.
 *
 * Pure: the transcripts are read by the caller (src/io/writersAcross.ts, findBlindWrites).
 */

/** A call's access of one file, as its transcript records it, with the call's two times. */
export interface TimedAccess {
  path: string;
  op: AccessOp;
  callId: string;
  tool: string;
  /** The call's line, and where the path sits in it when it appears there literally. */
  line: number;
  span?: Span;
  /**
   * ms since the epoch: the call's record (NaN when it has no time: such a call is never put in
   * order), and its result's (the access was done by then).
   */
  callTime: number;
  resultTime: number;
  /** Recognised from a shell command rather than a file tool (less certain). */
  viaShell: boolean;
  /** Replaced what the file held (a whole-file write), rather than editing or appending to it. */
  whole: boolean;
}

/** A transcript's accesses of files by calls that succeeded. */
export interface TimedTranscript {
  file: string;
  session: string;
  /** The session it is a sub-agent of, where it names one. */
  parentSession?: string | undefined;
  accesses: readonly TimedAccess[];
}


/** A write another transcript records, with the transcript. */
interface OtherWrite {
  t: TimedTranscript;
  a: TimedAccess;
  /** Its place among the transcripts' accesses as given: of two writes done at once, the first is named. */
  n: number;
}

/**
 * The writes of a set of transcripts that may count against another's: by path, each list in
 * order of calls. Built once for a folder's transcripts, so that judging each write of each of
 * them looks at the writes of its file in its window, not at every access of every transcript
 * (200 rollouts of 2,000 accesses were 80 billion comparisons).
 */
export class WritesByPath {
  private readonly byPath = new Map<string, OtherWrite[]>();
  /** Each session's parent, where its transcript names one: how two writers are related. */
  readonly parents = new Map<string, string>();

  constructor(transcripts: readonly TimedTranscript[]) {
    let n = 0;
    for (const t of transcripts) {
      if (t.parentSession !== undefined && t.parentSession !== t.session) {
        this.parents.set(t.session, t.parentSession);
      }
      for (const a of t.accesses) {
        n++;
        // A write recognised only from a shell command may have written nothing there; one
        // whose result is timed before its call (or not at all) cannot be put in order. Only a
        // write surely between two moments counts.
        if (!writeOps.has(a.op) || a.viaShell || !(a.callTime <= a.resultTime)) {
          continue;
        }
        const list = this.byPath.get(a.path);
        if (list) {
          list.push({ t, a, n });
        } else {
          this.byPath.set(a.path, [{ t, a, n }]);
        }
      }
    }
    for (const list of this.byPath.values()) {
      list.sort((x, y) => x.a.callTime - y.a.callTime);
    }
  }

  /**
   * The writes of `path` in order of calls, and the first of them whose call started after
   * `after`: those from there whose result came before a time are the writes between the two.
   */
  after(path: string, after: number): { list: readonly OtherWrite[]; from: number } {
    const list = this.byPath.get(path) ?? [];
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (list[mid]!.a.callTime > after) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return { list, from: lo };
  }
}

/**
 * The writes of `subject` made on top of another transcript's write that came after the session
 * last saw the file, each as a `stale-write` finding: at `severity(true)` when the write replaced
 * the whole file (what the other write put there is most likely lost), `severity(false)` for an
 * edit or an append (applied on top of it); none where that gives undefined (the rule is off).
 * `others` may hold `subject` (it is skipped); a WritesByPath of them is built once for many subjects.
 */
export function blindWrites(subject: TimedTranscript, others: readonly TimedTranscript[] | WritesByPath, cwd: string | undefined, severity: (whole: boolean) => Severity | undefined): Finding[] {
  const index = others instanceof WritesByPath ? others : new WritesByPath(others);
  const own = new Set(subject.accesses.map((a) => a.callId));
  // The session's own accesses of each file, in order of results.
  const views = groupBy(subject.accesses, (a) => a.path);
  for (const list of views.values()) {
    list.sort((x, y) => x.resultTime - y.resultTime);
  }
  const out: Finding[] = [];
  for (const w of subject.accesses) {
    if (!writeOps.has(w.op)) {
      continue;
    }
    // When the session last saw the file: the latest of its own reads and writes done before
    // this write started. A write with no such view is write-before-read's.
    const seen = lastBefore(views.get(w.path)!, w);
    if (seen === undefined) {
      continue;
    }
    let last: OtherWrite | undefined;
    const calls = new Set<string>();
    const { list, from } = index.after(w.path, seen.resultTime);
    // A call is timed no later than its result: past this write's call, no result is before it.
    for (let i = from; i < list.length && list[i]!.a.callTime < w.callTime; i++) {
      const x = list[i]!;
      // A copy of this session's own call (a fork, a resumed run's new file) is not another
      // writer. A write several transcripts hold (a fork's copy of the other session's records,
      // under the same call id) is one write, counted once, as attributeAcross counts them.
      if (x.a.resultTime >= w.callTime || x.t.file === subject.file || own.has(x.a.callId)) {
        continue;
      }
      calls.add(x.a.callId);
      if (last === undefined || x.a.resultTime > last.a.resultTime || (x.a.resultTime === last.a.resultTime && x.n < last.n)) {
        last = x;
      }
    }
    const level = last && severity(w.whole);
    if (!last || !level) {
      continue;
    }
    const name = displayPath(w.path, cwd);
    const more = calls.size > 1 ? ` (and ${calls.size - 1} more write${calls.size > 2 ? 's' : ''} there)` : '';
    const writer = last.t.session === subject.session ? 'another transcript of this session' : kin(subject, last.t.session, index.parents);
    const who = `${writer} wrote it in between: its ${last.a.tool} at ${isoSecond(last.a.resultTime)} (line ${last.a.line} of ${baseName(last.t.file)})${more}`;
    const seenHow = writeOps.has(seen.op) ? 'wrote' : 'read';
    const after = `${who}, after the session last ${seenHow} the file (transcript line ${seen.line})`;
    const message =
      w.op === 'delete'
        ? `${w.tool} deleted ${name} on top of a change this session never saw: ${after}. What that write put there is most likely lost.`
        : w.whole
          ? `${w.tool} replaced ${name} whole on top of a change this session never saw: ${after}. What that write put there is most likely lost.`
          : `${w.tool} was applied to ${name} on top of a change this session never saw: ${after}.`;
    out.push({
      id: findingId('stale-write', subject.file, `across:${w.callId}:${w.path}`),
      rule: 'stale-write',
      messageId: 'across',
      severity: level,
      file: subject.file,
      line: w.line,
      column: w.span ? w.span.start + 1 : 1,
      endLine: w.line,
      endColumn: w.span ? w.span.end + 1 : 1,
      message,
      agent: 'codex',
      session: subject.session,
      callId: w.callId,
      subject: { path: w.path },
      related: [
        { file: subject.file, line: seen.line, message: `the session last ${seenHow} the file here` },
        { file: last.t.file, line: last.a.line, message: `the other transcript's ${last.a.tool} of this file` },
      ],
    });
  }
  return out;
}

/**
 * The latest of `views` (in order of results) done before `w` started, other than `w`; of
 * several done at once, the first.
 */
function lastBefore(views: readonly TimedAccess[], w: TimedAccess): TimedAccess | undefined {
  let lo = 0;
  let hi = views.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (views[mid]!.resultTime < w.callTime) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  let seen: TimedAccess | undefined;
  for (let i = lo - 1; i >= 0 && (seen === undefined || views[i]!.resultTime === seen.resultTime); i--) {
    if (views[i] !== w) {
      seen = views[i];
    }
  }
  return seen;
}

/**
 * How the session `other` is related to `subject`, as the finding names it. Codex sub-agents
 * spawn sub-agents of their own, and a fan-out's sub-agents share a parent: "session X" for a
 * sibling or a grandchild left the reader to work out that it was one of the session's own.
 */
function kin(subject: TimedTranscript, other: string, parents: ReadonlyMap<string, string>): string {
  const parentOf = (s: string): string | undefined => (s === subject.session ? subject.parentSession : parents.get(s));
  /** `s`'s ancestors, nearest first (a cycle, which only a broken transcript makes, ends it). */
  const ancestors = (s: string): string[] => {
    const out: string[] = [];
    for (let p = parentOf(s); p !== undefined && p !== s && !out.includes(p) && out.length < 32; p = parentOf(p)) {
      out.push(p);
    }
    return out;
  };
  const above = ancestors(other);
  const depth = above.indexOf(subject.session);
  if (depth === 0) {
    return `its sub-agent ${other}`;
  }
  if (depth > 0) {
    // The session's own child that `other` descends from.
    return `${other}, a sub-agent under its sub-agent ${above[depth - 1]!}`;
  }
  const own = ancestors(subject.session);
  const up = own.indexOf(other);
  if (up === 0) {
    return `its parent session ${other}`;
  }
  if (up > 0) {
    return `session ${other}, above its parent session ${own[0]!}`;
  }
  if (own.length > 0 && above[0] === own[0]) {
    return `${other}, another sub-agent of its parent session ${own[0]}`;
  }
  return `session ${other}`;
}
