/** What a session's row in the sessions view says, computed without `vscode` (unit-tested under node:test). */
import type { Finding, Severity } from '../core/model/finding';

export interface SessionRowText {
  /** After the title: live or idle, and when it started. Short, since a long title pushes it out of view. */
  description: string;
  /**
   * The number of findings, as a badge at the row's right edge: VS Code cuts the title and the
   * description off to fit the sidebar, but never the badge. Badges hold at most two
   * characters; more than 9 reads `9+`, as VS Code's own problem badges do.
   */
  badge: string | undefined;
  /** The exact counts, for the badge's tooltip. */
  counts: string;
  worst: Severity | undefined;
}

export function sessionRowText(
  s: { lastActivity: number; startedAt?: string | undefined },
  findings: readonly { severity: Severity }[],
  now: number,
  liveMs: number,
  when: (ms: number) => string,
): SessionRowText {
  const live = now - s.lastActivity < liveMs;
  const by: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const f of findings) {
    by[f.severity]++;
  }
  const n = findings.length;
  const parts = [
    by.error > 0 ? `${by.error} error${by.error === 1 ? '' : 's'}` : undefined,
    by.warning > 0 ? `${by.warning} warning${by.warning === 1 ? '' : 's'}` : undefined,
    by.info > 0 ? `${by.info} info` : undefined,
  ].filter((p): p is string => p !== undefined);
  return {
    description: [live ? 'live' : 'idle', s.startedAt ? when(Date.parse(s.startedAt)) : undefined].filter(Boolean).join(' · '),
    badge: n === 0 ? undefined : n < 10 ? String(n) : '9+',
    counts: n === 0 ? 'no findings' : `${n} finding${n === 1 ? '' : 's'}: ${parts.join(', ')}`,
    worst: by.error > 0 ? 'error' : by.warning > 0 ? 'warning' : by.info > 0 ? 'info' : undefined,
  };
}

/**
 * A finding's row under its session. The label used to be the whole message, which the sidebar
 * cuts off within its first words: five stale writes of one session all read "Edit was applied
 * to lib/spotter…", and the rule and line after them never showed. The label now says what and
 * where (the rule, then the file or the call it is about), the description the line; the
 * message is the tooltip.
 */
export function findingRowText(f: Pick<Finding, 'rule' | 'line' | 'message' | 'subject' | 'callId'>): { label: string; description: string } {
  const about = f.subject ? baseName(f.subject.path) : f.callId !== undefined ? shortId(f.callId) : undefined;
  return { label: `${f.rule} · ${about ?? f.message}`, description: `line ${f.line}` };
}

function baseName(p: string): string {
  const parts = p.split(/[\\/]/);
  return parts[parts.length - 1] || p;
}

/**
 * Claude Code's ids are 30 characters (`toolu_01` and 22 more) of which the first few after the
 * prefix tell them apart in a session; a longer cut pushed the line number out of the row.
 */
function shortId(id: string): string {
  return id.length > 14 ? `${id.slice(0, 12)}…` : id;
}

/**
 * `text` as a Markdown code span, for a tooltip: nothing in it is Markdown. The session id is
 * the transcript's own (a Claude line's `sessionId`); with a blank line in it the id left its
 * span, and what followed was rendered: links, and images fetched from anywhere on hover.
 */
export function markdownCode(text: string): string {
  // No backtick can close the span early, and no line break end it (a blank line ends the paragraph).
  return '`' + text.replace(/`/g, '').replace(/[\r\n]+/g, ' ') + '`';
}

/**
 * What the sessions view keeps about its session rows for their badges (a file decoration VS
 * Code asks for by the row's URI): each row's transcript, by the row's URI, and what each row's
 * badge showed when last asked, by transcript. Only the rows of the sessions there are now
 * (`sync`), where they had stayed for as long as the window, one more for each session any
 * restart of the monitors had shown.
 *
 * VS Code keeps each URI's decoration, the answer "none" included, until told it changed: a row
 * whose session went and came back (a restart of the monitors reads every session again) would
 * show what it was last given, or nothing. So `sync` names the sessions that came or went since
 * the last one, to be told as changed with those whose badge did.
 */
export class SessionRows {
  /** Keyed by the row URI's string: the URI VS Code asks a badge for names the file by `fsPath`, which on Windows lower-cases the drive letter the monitors' paths have. */
  private files = new Map<string, string>();
  private readonly shown = new Map<string, string>();
  private current = new Set<string>();

  /** The row of `file` was made, with this URI (before the next `sync` may have seen its session). */
  row(uri: string, file: string): void {
    this.files.set(uri, file);
  }

  fileOf(uri: string): string | undefined {
    return this.files.get(uri);
  }

  /** The badge of `file`'s row was asked for, and showed what `key` says. */
  showed(file: string, key: string): void {
    this.shown.set(file, key);
  }

  /**
   * The sessions there are now, each with its row's URI: every other row is forgotten. Returns
   * the sessions that came or went since the last call.
   */
  sync(sessions: readonly { file: string; uri: string }[]): string[] {
    const now = new Set(sessions.map((s) => s.file));
    const moved = [...[...now].filter((f) => !this.current.has(f)), ...[...this.current].filter((f) => !now.has(f))];
    this.current = now;
    this.files = new Map(sessions.map((s) => [s.uri, s.file]));
    for (const file of this.shown.keys()) {
      if (!now.has(file)) {
        this.shown.delete(file);
      }
    }
    return moved;
  }

  /** The sessions whose badge is no longer what it showed (by `keyOf`); forgotten until asked for again. */
  changed(keyOf: (file: string) => string): string[] {
    const changed = [...this.shown].filter(([f, key]) => keyOf(f) !== key).map(([f]) => f);
    for (const f of changed) {
      this.shown.delete(f);
    }
    return changed;
  }
}
