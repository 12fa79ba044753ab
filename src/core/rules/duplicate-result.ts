import { defineRule } from '../engine/rule';
import { docsUrl } from './support/docs';

export const duplicateResult = defineRule({
  meta: {
    id: 'duplicate-result',
    type: 'problem',
    defaultSeverity: 'error',
    scope: 'stream',
    docs: {
      description: 'A second result for one tool call (a retry, a replay, or a placeholder followed by the real result).',
      url: docsUrl('duplicate-result'),
    },
    messages: {
      duplicate: 'Second result for tool call {{id}} ({{tool}}); the first one is on line {{first}}. The provider accepts one result per call.',
      afterPlaceholder:
        'The real result of tool call {{id}} ({{tool}}) arrived after a placeholder result was already recorded on line {{first}}; the session now holds two results for one call.',
    },
  },
  create(ctx) {
    return {
      onResult(rec) {
        const call = rec.call;
        if (!call || call.results.length < 2) {
          return;
        }
        const first = call.results[0]!;
        if (first === rec) {
          return;
        }
        ctx.report({
          messageId: first.result.placeholder && !rec.result.placeholder ? 'afterPlaceholder' : 'duplicate',
          at: rec.result.at,
          key: `${rec.result.callId}@${rec.result.at.line}`,
          callId: rec.result.callId,
          data: { id: rec.result.callId, tool: call.call.tool, first: first.result.at.line },
          related: [
            { at: first.result.at, message: first.result.placeholder ? 'placeholder result' : 'first result' },
            { at: call.call.at, message: `the ${call.call.tool} call` },
          ],
        });
      },
    };
  },
});
