/** What a session's row in the sessions view says, computed without `vscode` (unit-tested under node:test). */
import type { Severity } from '../core/model/finding';

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
