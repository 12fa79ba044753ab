import { defineRule } from '../engine/rule';
import { docsUrl, providerError } from './support/docs';

export const orphanResult = defineRule({
  meta: {
    id: 'orphan-result',
    type: 'problem',
    defaultSeverity: 'error',
    scope: 'stream',
    docs: {
      description: 'A tool result whose id matches no tool call in the session.',
      url: docsUrl('orphan-result'),
    },
    messages: {
      unknown: 'Tool result for {{id}} answers no tool call in this session; {{provider}}, and the session cannot be resumed as is.',
    },
  },
  create(ctx) {
    return {
      onResult(rec) {
        if (rec.call) {
          return;
        }
        ctx.report({
          messageId: 'unknown',
          at: rec.result.at,
          key: `${rec.result.callId}@${rec.result.at.line}`,
          callId: rec.result.callId,
          data: { id: rec.result.callId, provider: providerError(ctx.agent, 'unexpected-result') },
        });
      },
    };
  },
});
