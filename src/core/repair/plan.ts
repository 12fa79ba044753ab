import type { Finding } from '../model/finding';

/** The rules whose findings `repair` answers: the tool call ↔ result pairing rules. */
export const pairingRuleIds = ['orphan-result', 'duplicate-result', 'misplaced-result', 'missing-result', 'duplicate-call-id'] as const;
export type PairingRuleId = (typeof pairingRuleIds)[number];

export type RepairAgent = 'claude-code' | 'amplifier';

/** What every edit says about itself: the rule it answers, the call it is about, and why, in words. */
interface EditBase {
  rule: PairingRuleId;
  callId: string;
  /** A sentence a person can check against the file, starting with the verb ("drop the …"). */
  reason: string;
}

/** Remove line `line`. */
export interface DropEdit extends EditBase {
  kind: 'drop';
  line: number;
}

/**
 * Take line `line` out of its place and put it directly after line `after` (0 = the start of
 * the file). `after` is an original line number and may itself be a moved line: it is
 * wherever that line ends up.
 */
export interface MoveEdit extends EditBase {
  kind: 'move';
  line: number;
  after: number;
}

/** Add a new line directly after line `after` (an original line number; 0 = the start). */
export interface InsertEdit extends EditBase {
  kind: 'insert';
  after: number;
  /** The new line, without terminator. */
  text: string;
}

/**
 * Replace the content of line `line` (wherever it ends up), keeping its terminator. Used to
 * re-link a Claude Code entry's `parentUuid`, and to take one result out of a line that holds
 * other content too.
 */
export interface RewriteEdit extends EditBase {
  kind: 'rewrite';
  line: number;
  /** The new content, without terminator. */
  text: string;
  /** A re-link: the entry's parentUuid before and after. */
  parentUuid?: { from: string | null; to: string | null };
}

/**
 * One change to the transcript. Application order matters only among moves and inserts that
 * name the same `after` line: they land in the order the plan lists them.
 */
export type RepairEdit = DropEdit | MoveEdit | InsertEdit | RewriteEdit;

/** A problem the plan does not fix, and why. */
export interface LeftProblem {
  line: number;
  rule: PairingRuleId;
  callId?: string;
  reason: string;
  /**
   * Left on purpose (a call still open at the end of the file, without `closeOpenCalls`):
   * such a finding may remain after the repair and the plan is still complete.
   */
  deliberate: boolean;
}

/**
 * What `repair` would do to one transcript. Pure data: `applyRepairPlan` turns it into the
 * repaired bytes, and the plan was verified by running the pairing rules on those bytes.
 */
export interface RepairPlan {
  file: string;
  agent: RepairAgent;
  /** The session id as the engine names it (Claude Code's sessionId, else the file's name). */
  session: string;
  /** The session's working folder, as the transcript records it: where its guard service is found. */
  cwd?: string;
  /** The pairing findings of the transcript as read: what the plan answers. */
  findings: Finding[];
  /** In application order (see RepairEdit). */
  edits: RepairEdit[];
  left: LeftProblem[];
  /** Pairing findings the pairing rules still report on the repaired transcript. */
  remaining: Finding[];
  /**
   * Every remaining finding was left on purpose and nothing was left by necessity: the plan
   * may be written. An incomplete plan must never be written (no half repairs).
   */
  complete: boolean;
}

/** The line an edit is about, for listing edits in file order. */
export function editLine(e: RepairEdit): number {
  return e.kind === 'insert' ? e.after : e.line;
}

/**
 * How many of the transcript's pairing problems the plan repairs: those the repaired
 * transcript no longer has. A problem left (for a person, or on purpose) is not one of them.
 */
export function repairedProblems(plan: Pick<RepairPlan, 'findings' | 'remaining'>): number {
  return Math.max(0, plan.findings.length - plan.remaining.length);
}

function count(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/**
 * "3 changes for 2 of the 3 pairing problems": what the changes answer, each count with its
 * own plural; both `agent-guard repair` and the extension's dialog say it so.
 */
export function changesFor(plan: Pick<RepairPlan, 'edits' | 'findings' | 'remaining'>): string {
  const total = plan.findings.length;
  const repaired = repairedProblems(plan);
  return `${count(plan.edits.length, 'change')} for ${repaired === total ? count(total, 'pairing problem') : `${repaired} of the ${count(total, 'pairing problem')}`}`;
}

/** How many lines each kind of change touches. */
export interface RepairSummary {
  dropped: number;
  moved: number;
  added: number;
  relinked: number;
  rewritten: number;
}

export function summarize(edits: readonly RepairEdit[]): RepairSummary {
  const s: RepairSummary = { dropped: 0, moved: 0, added: 0, relinked: 0, rewritten: 0 };
  for (const e of edits) {
    switch (e.kind) {
      case 'drop':
        s.dropped++;
        break;
      case 'move':
        s.moved++;
        break;
      case 'insert':
        s.added++;
        break;
      case 'rewrite':
        if (e.parentUuid) {
          s.relinked++;
        } else {
          s.rewritten++;
        }
        break;
    }
  }
  return s;
}
