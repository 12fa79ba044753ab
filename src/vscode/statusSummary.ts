/** What the status bar says, computed without `vscode` (so it is unit-tested under node:test). */
import type { Severity } from '../core/model/finding';
import { isCurrent, isLive, type SessionActivity } from './currentSessions';
import { productName } from './ids';

export interface StatusCounts {
  sessions: number;
  live: number;
  /** Errors and warnings of the sessions that need attention now (see `countStatus`). */
  errors: number;
  warnings: number;
  /** Errors and warnings of every session, as the sessions view lists them. */
  allErrors: number;
  allWarnings: number;
}

/**
 * One pass over the sessions and one over the findings.
 *
 * The numbers shown (and the colour) are for the sessions that need attention now, the current
 * ones (see `isCurrent`): counting the errors of old sessions kept the item red in every window
 * forever, so it stopped meaning anything. They are still counted in `all*`.
 */
export function countStatus(
  sessions: readonly SessionActivity[],
  findings: Iterable<{ file: string; severity: Severity }>,
  now: number,
  liveMs: number,
  since: number,
): StatusCounts {
  let live = 0;
  const current = new Set<string>();
  for (const s of sessions) {
    if (isLive(s, now, liveMs)) {
      live++;
    }
    if (isCurrent(s, now, liveMs, since)) {
      current.add(s.file);
    }
  }
  const c: StatusCounts = { sessions: sessions.length, live, errors: 0, warnings: 0, allErrors: 0, allWarnings: 0 };
  for (const f of findings) {
    if (f.severity === 'error') {
      c.allErrors++;
      if (current.has(f.file)) {
        c.errors++;
      }
    } else if (f.severity === 'warning') {
      c.allWarnings++;
      if (current.has(f.file)) {
        c.warnings++;
      }
    }
  }
  return c;
}

export interface StatusView {
  text: string;
  tooltip: string;
  /** What a screen reader says: the codicons in `text` are read as their names, or not at all. */
  ariaLabel: string;
  /** Colour the item: only errors in the sessions that need attention do. */
  alert: boolean;
}

export function statusText(c: StatusCounts): StatusView {
  // Only counts that are not zero: "⚠ 0" next to an error count is noise.
  const counts = `${c.errors > 0 ? ` $(error) ${c.errors}` : ''}${c.warnings > 0 ? ` $(warning) ${c.warnings}` : ''}`;
  const now = c.errors + c.warnings > 0 ? `${problems(c.errors, c.warnings)} in live sessions or sessions written since this window opened` : 'nothing new in live sessions or sessions written since this window opened';
  const all = `All ${count(c.sessions, 'session')}: ${c.allErrors + c.allWarnings > 0 ? problems(c.allErrors, c.allWarnings) : 'no errors or warnings'} (the Sessions view lists them).`;
  return {
    // "0 live" beside red counts read as a contradiction (the errors are in sessions written since
    // this window opened, not running now): with nothing live, the counts stand alone.
    text: c.live > 0 || counts === '' ? `$(shield) ${c.live} live${counts}` : `$(shield)${counts}`,
    tooltip: [`${productName}: ${c.live} live session${plural(c.live)}`, `${capital(now)}.`, all, 'Click to show the sessions.'].join('\n'),
    ariaLabel: `${productName}: ${c.live} live session${plural(c.live)}, ${now}. ${all}`,
    alert: c.errors > 0,
  };
}

function problems(errors: number, warnings: number): string {
  return [errors > 0 ? count(errors, 'error') : '', warnings > 0 ? count(warnings, 'warning') : ''].filter(Boolean).join(' and ');
}

function count(n: number, what: string): string {
  return `${n} ${what}${plural(n)}`;
}

function plural(n: number): string {
  return n === 1 ? '' : 's';
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
