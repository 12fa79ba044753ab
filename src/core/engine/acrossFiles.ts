import type { Finding } from '../model/finding';

/** What `check` learned of one transcript that a check of another file may need. */
export interface FileOutcome {
  file: string;
  /** The folder that holds the file (one project's sessions, for Claude Code). */
  folder: string;
  findings: Finding[];
  /** Another session's calls answered at the start of the file (at most `maxCarriedIn`; see ForeignResultEvent). */
  carriedIn: readonly string[];
}

/**
 * Findings that one file's check cannot settle, settled across the files checked together.
 *
 * Claude Code's plan mode: when the person approves the plan and chooses to clear the context,
 * the session's file ends with the `ExitPlanMode` call open, and Claude Code writes the call's
 * (refused) result as the first record of the new session's file, in the same project folder,
 * before "Implement the following plan:". Each file alone shows an open call (`planAtEnd`, an
 * info) and a result whose call is elsewhere; together they are one call answered. Tool-use ids
 * are unique (`toolu_` and 24 random characters), so the same id in the same folder is that call.
 *
 * Returns the findings of each file, in the same order, without those settled.
 */
export function settleAcrossFiles(files: readonly FileOutcome[]): Finding[][] {
  const carried = new Map<string, Map<string, string>>();
  for (const f of files) {
    for (const id of f.carriedIn) {
      let byId = carried.get(f.folder);
      if (byId === undefined) {
        byId = new Map();
        carried.set(f.folder, byId);
      }
      byId.set(id, f.file);
    }
  }
  return files.map((f) => {
    const byId = carried.get(f.folder);
    if (byId === undefined) {
      return f.findings;
    }
    return f.findings.filter((x) => !(isPlanLeftOpen(x) && byId.has(x.callId!) && byId.get(x.callId!) !== f.file));
  });
}

function isPlanLeftOpen(f: Finding): boolean {
  return f.rule === 'missing-result' && f.messageId === 'planAtEnd' && f.callId !== undefined;
}

/** Results carried in are noted up to this many per file: a new session starts with one. */
export const maxCarriedIn = 16;
