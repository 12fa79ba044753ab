import { defineRule } from '../engine/rule';
import { docsUrl } from './support/docs';
import { coveringLedger, hookCouldRecord } from './support/hookSession';

export const unboundResult = defineRule({
  meta: {
    id: 'unbound-result',
    type: 'problem',
    defaultSeverity: 'error',
    scope: 'live',
    docs: {
      description: 'A result for a call id that neither the transcript nor the guard hook ever saw: a completion bound to no approved call.',
      url: docsUrl('unbound-result'),
    },
    messages: {
      unbound:
        'Result for {{id}} names a call that the guard hook never approved and that is not in this transcript: a swapped or replayed completion was consumed as if it belonged to this session.',
    },
  },
  create(ctx) {
    return {
      onResult(rec) {
        // A result whose call is in the transcript is unapproved-call's to judge.
        if (rec.call || ctx.agent === 'gemini') {
          return;
        }
        const cover = coveringLedger(ctx);
        // (The call came before its result: if no service answered the hooks when the result
        // was written, none may have when the call was made.)
        if (!cover || cover.ledger.lookup(cover.sid, rec.result.callId) || !hookCouldRecord(cover.ledger, rec.result.timestamp, 'result')) {
          return;
        }
        ctx.report({
          messageId: 'unbound',
          at: rec.result.at,
          key: `${rec.result.callId}@${rec.result.at.line}`,
          callId: rec.result.callId,
          data: { id: rec.result.callId },
        });
      },
    };
  },
});
