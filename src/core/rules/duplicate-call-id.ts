import type { CallRecord } from '../engine/conversation';
import { defineRule } from '../engine/rule';
import { followsCall, sharedBranchTracker } from './support/branches';
import { docsUrl, isAnthropicModel } from './support/docs';

/**
 * Earlier calls with a call's id examined for one it follows. Claude Code 2.0.x writes a crashed
 * session's history again as a sibling branch, with the same ids: a few such branches at most. A
 * file with thousands of calls of one id on thousands of branches would otherwise cost the square
 * of that; past this many, a duplicate is not claimed.
 */
const maxOtherBranchCalls = 64;

export const duplicateCallId = defineRule({
  meta: {
    id: 'duplicate-call-id',
    type: 'problem',
    defaultSeverity: 'error',
    scope: 'stream',
    docs: {
      description: 'Two tool calls with one id.',
      url: docsUrl('duplicate-call-id'),
    },
    messages: {
      duplicate: 'Tool call id {{id}} was already used on line {{first}} ({{firstTool}}); the results of the two calls can no longer be told apart{{provider}}.',
    },
  },
  create(ctx) {
    // Claude Code's parentUuid tree, shared with the pairing and branch rules: a call on another
    // branch is never in the same request (Claude Code 2.0.x writes a crashed session's history
    // again as a sibling branch, with the same ids; from a new root, it is a reset).
    const branches = sharedBranchTracker(ctx.conversation);
    return {
      onRetry(e) {
        branches.addRetry(e);
      },
      onReset() {
        branches.reset();
      },
      onText(e) {
        branches.addText(e);
      },
      onResult(rec) {
        branches.addResult(rec);
      },
      onCall(rec) {
        branches.addCall(rec);
        // After a reset (compaction, a Gemini checkpoint or rewind) earlier calls are no longer sent.
        const withId = ctx.conversation.callsWithId(rec.call.callId);
        if (withId.length < 2) {
          return;
        }
        // The first earlier call of this history on this call's branch. Epochs only grow along
        // the list, so the calls of older histories are skipped by halving; on this history,
        // calls on other branches are looked past only so far (see maxOtherBranchCalls).
        const epoch = rec.message.epoch;
        let lo = 0;
        let hi = withId.length - 1;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (withId[mid]!.message.epoch < epoch) {
            lo = mid + 1;
          } else {
            hi = mid;
          }
        }
        let first: CallRecord | undefined;
        for (let i = lo, end = Math.min(withId.length, lo + maxOtherBranchCalls); i < end && withId[i] !== rec; i++) {
          const c = withId[i]!;
          if (c.message.epoch === epoch && followsCall(branches, rec.call.parentUuid, c.call)) {
            first = c;
            break;
          }
        }
        if (!first) {
          return;
        }
        // Claude Code can run other providers' models (through OpenRouter, say), whose ids are
        // their own: Kimi numbers its calls `functions.Read:0`, `:1`, … and started again at 0 in
        // a later response, and the provider took that history. Anthropic's rejection is no claim
        // to make there, and an id reused in a later response, after the first call's result, is
        // told apart by its place: a note, not an error.
        const anthropic = isAnthropicModel(rec.call.model);
        const answeredBefore = first.message !== rec.message && first.results.some((r) => r.result.at.line < rec.call.at.line);
        ctx.report({
          messageId: 'duplicate',
          ...(!anthropic && answeredBefore ? { severity: 'info' as const } : {}),
          at: rec.call.at,
          key: `${rec.call.callId}@${rec.call.at.line}`,
          callId: rec.call.callId,
          data: {
            id: rec.call.callId,
            first: first.call.at.line,
            firstTool: first.call.tool,
            // Only Anthropic's rejection is documented (anthropics/claude-code#20901, #21317).
            provider: (ctx.agent === 'claude-code' || ctx.agent === 'amplifier') && anthropic ? ', and the API rejects the request ("`tool_use` ids must be unique")' : '',
          },
          related: [{ at: first.call.at, message: 'first call with this id' }],
        });
      },
    };
  },
});
