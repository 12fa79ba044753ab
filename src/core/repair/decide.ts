import type { CallRecord, MessageRecord, ResultRecord } from '../engine/conversation';
import { groupBy } from '../lib/group';
import type { Finding } from '../model/finding';
import type { Analysis } from './analyze';
import type { LeftProblem, PairingRuleId } from './plan';

/**
 * What to do about each pairing finding, at the level of results and calls (lines come
 * later). Every decision starts from a finding the pairing rules reported; nothing else in
 * the transcript is touched.
 */
export interface Decisions {
  /** Results to remove, with the rule and the reason. */
  drops: Map<ResultRecord, Why>;
  /** Kept results that must move, and error results to add, in the order the findings came. */
  placements: Placement[];
  left: LeftProblem[];
  /** Results the misplaced-result rule reported (a dropped one in place can be a slot). */
  misplaced: Set<ResultRecord>;
}

export interface Why {
  rule: PairingRuleId;
  reason: string;
}

export type Placement =
  | (Why & { kind: 'move'; call: CallRecord; result: ResultRecord; /** A dropped result of the same call, in place: the moved one takes its place. */ slot?: ResultRecord })
  | (Why & { kind: 'add'; call: CallRecord });

export interface DecideOptions {
  closeOpenCalls: boolean;
  /**
   * The line through which a line's history leaves the file, if it does (see historyLeavesFile):
   * a result with no call in the file may answer a call made there.
   */
  historyLeavesFile?: (line: number) => number | undefined;
}

export function decide(a: Analysis, opts: DecideOptions): Decisions {
  const resultAt = index(a.results, (r) => r.result.at.line, (r) => r.result.callId);
  const callAt = index(a.calls, (c) => c.call.at.line, (c) => c.call.callId);
  const drops = new Map<ResultRecord, Why>();
  const left: LeftProblem[] = [];
  const byRule = (rule: PairingRuleId): Finding[] => a.findings.filter((f) => f.rule === rule);
  const leave = (f: Finding, reason: string, deliberate = false): void => {
    left.push({ line: f.line, rule: f.rule as PairingRuleId, ...(f.callId !== undefined ? { callId: f.callId } : {}), reason, deliberate });
  };

  // The unbound results by line and id, once: looked up per finding, a walk over every result
  // for each made a file of many orphans quadratic.
  const unbound = groupBy(
    a.results.filter((r) => !r.call),
    (r) => `${r.result.at.line}|${r.result.callId}`,
  );
  for (const f of byRule('orphan-result')) {
    const from = opts.historyLeavesFile?.(f.line);
    if (from !== undefined) {
      // Dropped, a result of a call in the file before was lost for good: the session, taken up
      // again across both files, has the call with no answer.
      leave(
        f,
        `the result for ${f.callId ?? '?'} answers no tool call in this file, but line ${from} hangs from a record this file does not hold (the session goes on from another file, as after a resume or a compaction): its call may be there; this needs a person`,
      );
      continue;
    }
    // Every unbound result with this id on the line: the rule reports a line once.
    for (const rec of (f.callId !== undefined && unbound.get(`${f.line}|${f.callId}`)) || []) {
      drops.set(rec, { rule: 'orphan-result', reason: `drop the result for ${rec.result.callId}: it answers no tool call in this session` });
    }
  }

  const settled = new Set<CallRecord>();
  /**
   * Real results that keep their call's answer while a placeholder before them goes, with user
   * text between the two: text its agent sends after the results (see TextEvent.resultsFirst), so
   * no rule calls the real result misplaced. It still takes the placeholder's place, so that what
   * hung from the placeholder (that text, and the turns after it) hangs from the answer.
   */
  const intoSlot: { call: CallRecord; result: ResultRecord; slot: ResultRecord }[] = [];
  for (const f of byRule('duplicate-result')) {
    const call = resultAt(f)?.call;
    if (!call || settled.has(call)) {
      continue;
    }
    settled.add(call);
    // The real result wins over a placeholder; between equals, the first one.
    const keeper = call.results.find((r) => !r.result.placeholder) ?? call.results[0]!;
    const at = keeper.result.at.line;
    for (const r of call.results) {
      if (r === keeper) {
        continue;
      }
      const id = r.result.callId;
      const reason = r.result.placeholder && !keeper.result.placeholder
        ? `drop the placeholder result for ${id}: the real result on line ${at} replaces it`
        : r.result.placeholder
          ? `drop the repeated placeholder result for ${id} (the first one is on line ${at})`
          : `drop the duplicate result for ${id} (the call's result is on line ${at})`;
      drops.set(r, { rule: 'duplicate-result', reason });
    }
    const slot = call.results.find((r) => r !== keeper && r.result.at.line < at);
    const textAt = keeper.message.textAt?.line;
    if (slot && keeper.message.textResultsFirst && textAt !== undefined && textAt > slot.result.at.line && textAt < at) {
      intoSlot.push({ call, result: keeper, slot });
    }
  }

  const misplaced = new Set<ResultRecord>();
  const misplacedFindings = new Map<ResultRecord, Finding>();
  for (const f of byRule('misplaced-result')) {
    const rec = resultAt(f);
    if (rec?.call) {
      misplaced.add(rec);
      misplacedFindings.set(rec, f);
    }
  }
  const placements: Placement[] = [];
  for (const [rec, f] of misplacedFindings) {
    if (drops.has(rec)) {
      continue;
    }
    const call = rec.call!;
    const slot = call.results.find((r) => r !== rec && drops.has(r) && !misplaced.has(r));
    const id = rec.result.callId;
    const callLine = call.call.at.line;
    const where = f.messageId === 'afterText'
      ? `it came after the user text on line ${rec.message.textAt?.line ?? rec.message.at.line}`
      : f.messageId === 'acrossReset'
        ? 'it came after the history was reset'
        : `it came after ${describeMessage(a.previous.get(rec.message))}`;
    const reason = slot
      ? `move the real result for ${id} to where the placeholder on line ${slot.result.at.line} was; ${where}`
      : `move the result for ${id} back to directly after its call's message (call on line ${callLine}); ${where}`;
    placements.push({ kind: 'move', call, result: rec, rule: 'misplaced-result', reason, ...(slot ? { slot } : {}) });
  }
  for (const { call, result, slot } of intoSlot) {
    if (!misplacedFindings.has(result)) {
      const reason = `move the real result for ${result.result.callId} to where the placeholder on line ${slot.result.at.line} was; user text on line ${result.message.textAt!.line} came between them`;
      placements.push({ kind: 'move', call, result, rule: 'duplicate-result', reason, slot });
    }
  }

  for (const f of byRule('missing-result')) {
    const call = callAt(f);
    if (!call || call.results.some((r) => !drops.has(r))) {
      // Answered later: the move above puts the answer in place.
      continue;
    }
    const id = call.call.callId;
    const what = `${id} (${call.call.tool}, line ${call.call.at.line})`;
    const atEnd = isOpenAtEnd(f);
    if (atEnd && !opts.closeOpenCalls) {
      const why = f.messageId === 'planAtEnd' ? 'the session may be waiting for the person to approve the plan' : 'the session may still be running it';
      leave(f, `the call ${what} has no result at the end of the file; ${why} (use --close-open-calls to close it with an error result)`, true);
      continue;
    }
    if (f.messageId === 'unreadable' || f.messageId === 'gap') {
      // The result may be in the file after all, in a line that cannot be read, or lost with
      // records the file does not hold: "no result was recorded" would be a claim the file does
      // not support, and an added result beside a recovered one would answer the call twice.
      const where = f.related.find((r) => /cannot be read/.test(r.message))?.line;
      leave(
        f,
        f.messageId === 'unreadable'
          ? `the call ${what} may have its result in line ${where ?? '?'}, which cannot be read; mend or remove that line first, then repair again`
          : `the call ${what} may have had its result in records this file does not hold (the next line hangs from one of them); this needs a person`,
      );
      continue;
    }
    const next = f.related[0];
    const when = atEnd ? 'by the end of the file' : next ? `before line ${next.line} (${next.message})` : 'in time';
    placements.push({ kind: 'add', call, rule: 'missing-result', reason: `add an error result for ${what}: no result was recorded ${when}` });
  }

  for (const f of byRule('duplicate-call-id')) {
    const first = f.related[0]?.line;
    leave(f, `the tool call id ${f.callId ?? ''} is used again here${first !== undefined ? ` (first on line ${first})` : ''}; which call a result answers cannot be told apart, so this needs a person`);
  }
  return { drops, placements, left, misplaced };
}

/**
 * A missing-result finding about a call still open at the end of the file: its result may yet
 * come (a running tool, or Claude Code's plan approval waiting for the person), so it is only
 * closed when asked.
 */
export function isOpenAtEnd(f: { rule: string; messageId?: string }): boolean {
  return f.rule === 'missing-result' && (f.messageId === 'atEnd' || f.messageId === 'planAtEnd');
}

function describeMessage(m: MessageRecord | undefined): string {
  if (!m) {
    return 'the conversation moved on';
  }
  return m.role === 'assistant' ? `the assistant turn on line ${m.at.line}` : m.promptAt ? `the user prompt on line ${m.promptAt.line}` : `the message on line ${m.at.line}`;
}

/** Finds the record a finding is about, by its line and call id. */
function index<T>(list: readonly T[], line: (t: T) => number, id: (t: T) => string): (f: Finding) => T | undefined {
  const map = new Map<string, T>();
  for (const t of list) {
    const key = `${line(t)}|${id(t)}`;
    if (!map.has(key)) {
      map.set(key, t);
    }
  }
  return (f) => (f.callId === undefined ? undefined : map.get(`${f.line}|${f.callId}`));
}
