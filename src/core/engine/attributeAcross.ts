import type { Finding } from '../model/finding';

/**
 * Naming, in `check`, the writer of a change a session never saw.
 *
 * `stale-write` reads one transcript: when a file changed between the session's last view of it
 * and its write on top, the transcript shows the change but not who made it ("e.g. a formatter
 * or another writer"). Live, the working-tree watcher names the writer; after the fact, `check`
 * has only transcripts. When it reads several at once (a project's sessions, a session with its
 * sub-agents), another of them may record a write of that file in between: two sessions, or a
 * sub-agent and its parent, editing one file blind to each other. That is the writer to name.
 *
 * Pure: the times and the other transcripts' writes are read by the caller (src/io).
 */

/** A write of a file that a transcript records, as its result came back. */
export interface RecordedWrite {
  /** The transcript. */
  file: string;
  /** The session it names (a Claude Code sub-agent's file names its parent's). */
  session: string;
  /** Absolute path written. */
  path: string;
  /** The call's line. */
  line: number;
  callId: string;
  tool: string;
  /** ms since the epoch: when the result was recorded (the write was done by then). */
  time: number;
}

/** A finding with `changedBetween`, and the times its transcript gives those two lines. */
export interface OpenChange {
  finding: Finding;
  /** When the session last saw the file (ms). */
  seenTime: number;
  /** When its write's result came back (ms). */
  writeTime: number;
}

/**
 * The finding with the writer named, when another transcript records a write of the file after
 * the session last saw it and before its own write's result: the latest such write (and
 * how many others there were), without `changedBetween`. Timestamps are the only link, so the
 * message gives them for a person to check. Undefined when no other transcript wrote it then.
 */
export function attributeChange(open: OpenChange, writes: readonly RecordedWrite[]): Finding | undefined {
  const f = open.finding;
  let last: RecordedWrite | undefined;
  // Writes by call: a compaction helper or a resumed session's file copies its session's records,
  // call ids and times with them, so one write may be held by several transcripts.
  const calls = new Set<string>();
  for (const w of writes) {
    // A transcript that copies this one's records (Claude Code's compaction helper, a resumed
    // session's new file, an older Codex fork) holds this very write again, at the same time:
    // not another writer. Nor is a write whose result came back at the same instant as this one.
    if (w.file === f.file || w.callId === f.callId || w.path !== f.subject?.path || !(w.time > open.seenTime && w.time < open.writeTime)) {
      continue;
    }
    calls.add(w.callId);
    if (last === undefined || w.time > last.time || (w.time === last.time && w.line > last.line)) {
      last = w;
    }
  }
  if (last === undefined) {
    return undefined;
  }
  const count = calls.size;
  const others = count > 1 ? ` (and ${count - 1} more write${count > 2 ? 's' : ''} there)` : '';
  // Named: no longer open (a live host does not name it twice).
  const { changedBetween: _settled, ...named } = f;
  const who = last.session === f.session ? 'another transcript of this session (a sub-agent or another run of it)' : `session ${last.session}`;
  return {
    ...named,
    message: `${f.message} Another transcript checked with this one records a write of that file in between: ${who}, its ${last.tool} at ${isoSecond(last.time)} (line ${last.line} of ${baseName(last.file)})${others}.`,
    related: [...f.related, { file: last.file, line: last.line, message: `the other transcript's ${last.tool} of this file` }],
  };
}

/** A time as HH:MM:SS UTC, for a person to find in the other transcript. */
export function isoSecond(ms: number): string {
  return new Date(ms).toISOString().slice(11, 19) + ' UTC';
}

export function baseName(file: string): string {
  const i = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  return file.slice(i + 1);
}
