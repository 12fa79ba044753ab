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
     * Claude Code's own "No response requested." turns: written when a session is resumed, before
     * any request (see TextEvent.unsent). Bounded: only the newest are asked about.
     */
    const resumedAt = new Set<MessageRecord>();
    return {
      onRetry(e) {
        branches.addRetry(e);
      },
      onReset(e) {
        resets.set(ctx.conversation.epoch, e);
        branches.reset();
      },
      onCall(rec) {
        branches.addCall(rec);
      },
      onText(e, msg) {
        branches.addText(e);
        if (e.unsent === true) {
          if (resumedAt.size >= maxResumesKept) {
            resumedAt.delete(resumedAt.values().next().value!);
          }
          resumedAt.add(msg);
        }
      },
      onResult(rec) {
        branches.addResult(rec);
        const call = rec.call;
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
          ctx.report({
            ...common,
            messageId: 'late',
            data: {
              ...data,
              between: between?.role === 'assistant' ? 'assistant turn' : between?.promptAt ? 'user prompt' : 'message',
              betweenLine,
            },
            related: [...common.related, ...(between ? [{ at: between.at, message: 'the message in between' }] : [])],
          });
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
