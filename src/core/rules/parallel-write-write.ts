import { defineRule } from '../engine/rule';
import { docsUrl, shortPath } from './support/docs';
import { batchSiblings, isWrite } from './support/batch';

export const parallelWriteWrite = defineRule({
  meta: {
    id: 'parallel-write-write',
    type: 'problem',
    defaultSeverity: 'error',
    scope: 'stream',
    docs: {
      description: 'Two writes of one path in the same parallel batch: one may silently undo the other.',
      url: docsUrl('parallel-write-write'),
    },
    messages: {
      race: '{{tool}} writes {{path}} in the same parallel batch as the {{otherTool}} call on line {{otherLine}} that also writes it: whichever lands last wins, and the other change can be lost.',
    },
  },
  create(ctx) {
    return {
      onCall(rec) {
        for (const a of rec.call.accesses) {
          if (!isWrite(a)) {
            continue;
          }
          const first = batchSiblings(rec, a.path, isWrite)[0];
          if (!first) {
            continue;
          }
          ctx.report({
            messageId: 'race',
            at: a.span ?? rec.call.at,
            key: `${rec.call.callId}:${a.path}`,
            callId: rec.call.callId,
            data: {
              tool: rec.call.tool,
              path: shortPath(ctx, a.path),
              otherTool: first.sibling.call.tool,
              otherLine: first.sibling.call.at.line,
            },
            related: [{ at: first.access.span ?? first.sibling.call.at, message: `the ${first.sibling.call.tool} call in the same batch` }],
            subject: { path: a.path },
          });
        }
      },
    };
  },
});
