import { displayPath } from '../classify/paths';
import type { AccessOp, Span } from '../model/events';
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

const writeOps: ReadonlySet<AccessOp> = new Set(['write', 'edit', 'create', 'delete']);

/**
 * The writes of `subject` made on top of another transcript's write that came after the session
 * last saw the file, each as a `stale-write` finding: at `severity(true)` when the write replaced
 * the whole file (what the other write put there is most likely lost), `severity(false)` for an
 * edit or an append (applied on top of it); none where that gives undefined (the rule is off).
 */
export function blindWrites(subject: TimedTranscript, others: readonly TimedTranscript[], cwd: string | undefined, severity: (whole: boolean) => Severity | undefined): Finding[] {
  const own = new Set(subject.accesses.map((a) => a.callId));
  const out: Finding[] = [];
  for (const w of subject.accesses) {
    if (!writeOps.has(w.op)) {
      continue;
    }
    // When the session last saw the file: the latest of its own reads and writes done before
    // this write started. A write with no such view is write-before-read's.
    let seen: TimedAccess | undefined;
    for (const a of subject.accesses) {
      if (a.path === w.path && a !== w && a.resultTime < w.callTime && (seen === undefined || a.resultTime > seen.resultTime)) {
        seen = a;
      }
    }
    if (seen === undefined) {
      continue;
    }
    let last: { t: TimedTranscript; a: TimedAccess } | undefined;
    const calls = new Set<string>();
    for (const t of others) {
      if (t.file === subject.file) {
        continue;
      }
      for (const x of t.accesses) {
        // A copy of this session's own call (a fork, a resumed run's new file) is not another
        // writer; nor is a write recognised only from a shell command, which may have written
        // nothing there. Only a write surely between the two counts.
        if (x.path !== w.path || !writeOps.has(x.op) || x.viaShell || own.has(x.callId) || !(x.callTime > seen.resultTime && x.resultTime < w.callTime)) {
          continue;
        }
        calls.add(`${t.file}\n${x.callId}`);
        if (last === undefined || x.resultTime > last.a.resultTime) {
          last = { t, a: x };
        }
      }
    }
    const level = last && severity(w.whole);
    if (!last || !level) {
      continue;
    }
    const name = displayPath(w.path, cwd);
    const more = calls.size > 1 ? ` (and ${calls.size - 1} more write${calls.size > 2 ? 's' : ''} there)` : '';
    const writer =
      last.t.session === subject.session
        ? 'another transcript of this session'
        : last.t.parentSession === subject.session
          ? `its sub-agent ${last.t.session}`
          : `session ${last.t.session}`;
    const who = `${writer} wrote it in between: its ${last.a.tool} at ${isoSecond(last.a.resultTime)} (line ${last.a.line} of ${baseName(last.t.file)})${more}`;
    const seenHow = writeOps.has(seen.op) ? 'wrote' : 'read';
    const message = w.whole
      ? `${w.tool} replaced ${name} whole on top of a change this session never saw: ${who}, after the session last ${seenHow} the file (transcript line ${seen.line}). What that write put there is most likely lost.`
      : `${w.tool} was applied to ${name} on top of a change this session never saw: ${who}, after the session last ${seenHow} the file (transcript line ${seen.line}).`;
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
