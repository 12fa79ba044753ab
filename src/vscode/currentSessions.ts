/**
 * Which sessions are "current", computed without `vscode` (so it is unit-tested under
 * node:test). The status bar counts only their findings, and with
 * `agentGuard.problems.sessions` = `current` only their findings are diagnostics: one notion,
 * so the two never disagree about which session needs attention.
 */

export interface SessionActivity {
  /** The transcript. */
  file: string;
  /** Wall-clock ms of its last append (for a session found on disk, its file's mtime). */
  lastActivity: number;
}

export function isLive(s: SessionActivity, now: number, liveMs: number): boolean {
  return now - s.lastActivity < liveMs;
}

/**
 * Live, or written since the window started watching (`since`). A session written since then
 * needs attention even once it is idle; the findings of older ones are history: a workspace
 * used with an agent for months has errors in old sessions that nobody will act on.
 */
export function isCurrent(s: SessionActivity, now: number, liveMs: number, since: number): boolean {
  return isLive(s, now, liveMs) || s.lastActivity >= since;
}

/** The transcripts of the sessions that are not current. */
export function pastSessions(sessions: Iterable<SessionActivity>, now: number, liveMs: number, since: number): Set<string> {
  const out = new Set<string>();
  for (const s of sessions) {
    if (!isCurrent(s, now, liveMs, since)) {
      out.add(s.file);
    }
  }
  return out;
}
