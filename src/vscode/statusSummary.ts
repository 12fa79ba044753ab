/** What the status bar says, computed without `vscode` (so it is unit-tested under node:test). */
import type { Severity } from '../core/model/finding';

export interface StatusCounts {
  sessions: number;
  live: number;
  errors: number;
  warnings: number;
}

/** One pass over the sessions and one over the findings. */
export function countStatus(
  sessions: readonly { lastActivity: number }[],
  findings: Iterable<{ severity: Severity }>,
  now: number,
  liveMs: number,
): StatusCounts {
  let live = 0;
  for (const s of sessions) {
    if (now - s.lastActivity < liveMs) {
      live++;
    }
  }
  let errors = 0;
  let warnings = 0;
  for (const f of findings) {
    if (f.severity === 'error') {
      errors++;
    } else if (f.severity === 'warning') {
      warnings++;
    }
  }
  return { sessions: sessions.length, live, errors, warnings };
}

export function statusText(c: StatusCounts): { text: string; tooltip: string } {
  const counts = c.errors + c.warnings > 0 ? ` $(error) ${c.errors} $(warning) ${c.warnings}` : '';
  return {
    text: `$(shield) ${c.live} live${counts}`,
    tooltip: `Agent Session Guard: ${c.sessions} session${plural(c.sessions)} (${c.live} live), ${c.errors} error${plural(c.errors)}, ${c.warnings} warning${plural(c.warnings)} — click to show the sessions`,
  };
}

function plural(n: number): string {
  return n === 1 ? '' : 's';
}
