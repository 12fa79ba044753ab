import { Conversation, type CallRecord, type MessageRecord, type ResultRecord } from '../engine/conversation';
import { defineRule } from '../engine/rule';
import type { ResetEvent } from '../model/events';
import { callNodeOf, followsCall, hangsBeforeCall, sharedBranchTracker } from './support/branches';
import { docsUrl, providerError } from './support/docs';

/** Every epoch after the first begins with a reset the rule saw; this stands in should one not. */
const unknownReset: ResetEvent = { kind: 'reset', at: { line: 0, start: 0, end: 0 }, reason: 'compaction' };

/**
 * How many resets after a call are looked at for one that cut its branch. Each result was
 * compared with every reset since its call: 4,000 calls answered after 4,000 compactions of
 * another branch took 11 s, growing as the square. Past this many resets, each on another
 * branch, the result is not reported (the rule says less, never more).
 */
const maxResetsPassed = 256;

/** Resumed turns remembered (the newest): a late result comes within a few turns of its call. */
const maxResumesKept = 64;

/** Late results hung from their calls with nothing after them yet, remembered (the newest). */
const maxLeavesKept = 64;

export const misplacedResult = defineRule({
  meta: {
    id: 'misplaced-result',
    type: 'problem',
    defaultSeverity: 'error',
    scope: 'stream',
    docs: {
      description: "A result for an earlier call that is not in the message right after its call's message.",
      url: docsUrl('misplaced-result'),
    },
    messages: {
      late: 'Result for tool call {{id}} ({{tool}}, line {{callLine}}) lands after a later {{between}} (line {{betweenLine}}), not in the message right after its call; {{provider}}.',
      afterText:
        'Result for tool call {{id}} ({{tool}}) comes after user text on line {{betweenLine}} in the same message; tool results must come first, so {{provider}}.',
      acrossReset:
        'Result for tool call {{id}} ({{tool}}, line {{callLine}}) arrives after the history was reset on line {{betweenLine}} ({{reason}}); its call is no longer in the conversation the provider sees.',
    },
  },
  create(ctx) {
    // Claude Code's parentUuid tree, shared with the branch rules: a message on another branch
    // (a second run of the session) did not come between a call and its result.
    const branches = sharedBranchTracker(ctx.conversation);
    /** The resets so far, by the epoch each began (the conversation's epoch after it). */
    const resets = new Map<number, ResetEvent>();
    /**
     * The first reset between a call's epoch and its result's that cut the call's branch. A
     * compaction on another branch of Claude Code's tree (a second execution of the session,
     * compacting its own history) is none of the call's business: the result still hangs from
     * the call, and the compaction continues from a line that does not descend from it.
     */
    const cutBetween = (call: CallRecord, rec: ResultRecord): ResetEvent | undefined => {
      const node = callNodeOf(branches, call.call);
      const resultFollows = node !== undefined && branches.descends(rec.result.parentUuid, node) === true;
      const last = Math.min(rec.message.epoch, call.message.epoch + maxResetsPassed);
      for (let epoch = call.message.epoch + 1; epoch <= last; epoch++) {
        const r = resets.get(epoch) ?? unknownReset;
        // (Only a line the tree placed: a record the file does not hold tells nothing.)
        const elsewhere = resultFollows && r.continues !== undefined && branches.nodeOfLine(r.continues) !== undefined && branches.descends(r.continues, node) === false;
        if (!elsewhere) {
          return r;
        }
      }
      return undefined;
    };
    /**
     * Claude Code's own turns, which it never sends: "No response requested." when a session is
     * resumed (see TextEvent.unsent), an API error it reports. Bounded: only the newest are asked about.
     */
    const resumedAt = new Set<MessageRecord>();
    /**
     * Late results Claude Code hung from their own calls, by their uuids, with their findings. A
     * result so hung is a branch of its own, and whether a request carries it after the later
     * turns depends on what comes next (Claude Code 2.1.19, a Task's result written five minutes
     * late, run here against a scripted API): the process that wrote it appends it to its own
     * list, and sends that list with the next prompt the person types, the result after the
     * later turns (the finding); the tool loop it runs meanwhile sends its own list, without it;
     * on resume Claude Code sends the branch of the newest record, with the result after its call
     * or without it. So each is reported at the next prompt typed, or at the end of the file if
     * nothing went on from elsewhere after it (the next request, continued or resumed, then goes
     * on from it); a reset in between drops it. The call's missing result, sent meanwhile, is
     * missing-result's.
     */
    const leaves = new Map<string, { finding: Parameters<typeof ctx.report>[0]; passed: boolean }>();
    /** The leaves' uuids and those of the records hung from them (Claude Code's interrupt note). */
    const leafBranch = new Set<string>();
    // Live, a watched file has no end: each is reported while nothing went on from elsewhere
    // after it, withdrawn when something does, and reported again at the next prompt typed.
    const live = ctx.mode === 'live';
    const dropLeaves = (): void => {
      leaves.clear();
      leafBranch.clear();
    };
    /** A record (`uuid`, hung from `parentUuid`; `prompt`: typed by the person) came after the late results held. */
    const next = (uuid: string | undefined, parentUuid: string | null | undefined, prompt: boolean): void => {
      if (leaves.size === 0) {
        return;
      }
      if (prompt) {
        for (const l of leaves.values()) {
          ctx.report(l.finding);
        }
        dropLeaves();
        return;
      }
      if (uuid === undefined) {
        return;
      }
      if (typeof parentUuid === 'string' && leafBranch.has(parentUuid)) {
        leafBranch.add(uuid);
        return;
      }
      for (const l of leaves.values()) {
        if (!l.passed && live) {
          ctx.retract(l.finding.key!);
        }
        l.passed = true;
      }
    };
    return {
      onRetry(e) {
        branches.addRetry(e);
      },
      onEnd() {
        // Nothing went on from elsewhere after them: the next request, continued or resumed, goes on from them.
        if (!live) {
          for (const l of leaves.values()) {
            if (!l.passed) {
              ctx.report(l.finding);
            }
          }
        }
        dropLeaves();
      },
      onReset(e) {
        dropLeaves();
        resets.set(ctx.conversation.epoch, e);
        branches.reset();
      },
      onCall(rec) {
        branches.addCall(rec);
        next(rec.call.uuid, rec.call.parentUuid, false);
      },
      onText(e, msg) {
        branches.addText(e);
        next(e.uuid, e.parentUuid, e.role === 'user' && e.prompt);
        // Claude Code's own turns (model `<synthetic>`): "No response requested." when a session
        // is resumed, "API Error: 400 …" after a request failed. It sends neither: such a turn
        // does not come between a call and its result in any request (2.1.19, run here: the next
        // request put the result right after its call).
        if (e.unsent === true || e.synthetic === true) {
          if (resumedAt.size >= maxResumesKept) {
            resumedAt.delete(resumedAt.values().next().value!);
          }
          resumedAt.add(msg);
        }
      },
      onResult(rec) {
        branches.addResult(rec);
        const call = rec.call;
        const hungFromCall = call !== undefined && call.call.uuid !== undefined && rec.result.uuid !== undefined && rec.result.parentUuid === call.call.uuid;
        if (!hungFromCall || Conversation.answeredInPlace(call, rec)) {
          next(rec.result.uuid, rec.result.parentUuid, false);
        }
        if (!call) {
          return;
        }
        const sameEpoch = rec.message.epoch === call.message.epoch;
        if (sameEpoch && Conversation.answeredInPlace(call, rec)) {
          const textAt = rec.message.textAt;
          // (Text the agent sends after the results, wherever the file has it, is not in their way.)
          if (!textAt || textAt.line >= rec.result.at.line || rec.message.textResultsFirst) {
            // In place and before any user text: the common case, nothing to build.
            return;
          }
        }
        // Records written while the call still ran (`runningAt` and after) explain its result
        // coming after them: a prompt typed meanwhile, or a second execution, which
        // overlapping-executions reports.
        const runningFrom = call.runningAt?.line ?? Infinity;
        const data = {
          id: rec.result.callId,
          tool: call.call.tool,
          callLine: call.call.at.line,
          provider: providerError(ctx.agent, 'unexpected-result'),
        };
        const common = {
          at: rec.result.at,
          key: `${rec.result.callId}@${rec.result.at.line}`,
          callId: rec.result.callId,
          related: [{ at: call.call.at, message: `the ${call.call.tool} call` }],
        };
        if (!sameEpoch) {
          const cut = cutBetween(call, rec);
          if (cut) {
            ctx.report({ ...common, messageId: 'acrossReset', data: { ...data, betweenLine: cut.at.line, reason: cut.reason } });
          }
          return;
        }
        if (!Conversation.answeredInPlace(call, rec)) {
          // The message that came between: the next assistant turn when it directly follows
          // the call, else the first message after the slot where the result belonged (the
          // slot itself may hold sibling results or a placeholder, which is not "in between").
          const slot = ctx.conversation.messages[call.message.index + 1];
          // Claude Code's own turn (never sent) between the slot and the result's message: the
          // two user messages go as one, results first (2.1.19, run here: an "API Error: 400"
          // turn, then the late result, which the next request put right after its call).
          const unsentBetween = ctx.conversation.messages[call.message.index + 2];
          if (slot?.role === 'user' && rec.message.index === call.message.index + 3 && unsentBetween !== undefined && resumedAt.has(unsentBetween)) {
            return;
          }
          const between = slot?.role === 'assistant' ? slot : (slot?.promptAt ? slot : ctx.conversation.messages[call.message.index + 2]);
          const betweenLine = (between?.role === 'user' ? between.promptAt?.line : undefined) ?? between?.at.line ?? 0;
          // A message on another branch, or hung from a block of the call's message written
          // before the call (the session resumed from there, without it), did not come between
          // the call and its result.
          const cameBetween = between === undefined || (followsCall(branches, between.parentUuid, call.call) && !hangsBeforeCall(branches, between.parentUuid, call.call));
          // The turn in between is the resume of the session in another process: a result of a
          // call made before it, written after it, is the first process's, which was still
          // running the call (Claude Code 2.1.23, a `git` command answered sixteen minutes later
          // and the first process went on from it: fifty-fourth set). Its own conversation had
          // nothing in between; the resumed one went on without the result (missing-result),
          // and the two at once are overlapping-executions'.
          if (betweenLine >= runningFrom || !cameBetween || (between !== undefined && resumedAt.has(between))) {
            return;
          }
          const finding = {
            ...common,
            messageId: 'late',
            data: {
              ...data,
              between: between?.role === 'assistant' ? 'assistant turn' : between?.promptAt ? 'user prompt' : 'message',
              betweenLine,
            },
            related: [...common.related, ...(between ? [{ at: between.at, message: 'the message in between' }] : [])],
          };
          if (hungFromCall) {
            if (leaves.size >= maxLeavesKept) {
              leaves.delete(leaves.keys().next().value!);
            }
            leaves.set(rec.result.uuid!, { finding, passed: false });
            leafBranch.add(rec.result.uuid!);
            if (live) {
              ctx.report(finding);
            }
            return;
          }
          ctx.report(finding);
          return;
        }
        const textAt = rec.message.textAt;
        // Text the tree hangs on another branch (a second execution's prompt, hung from its own
        // turn's end) was never in the request that carried this result.
        if (textAt && textAt.line < rec.result.at.line && textAt.line < runningFrom && followsCall(branches, rec.message.textParentUuid, call.call)) {
          ctx.report({ ...common, messageId: 'afterText', data: { ...data, betweenLine: textAt.line } });
        }
      },
    };
  },
});
