import { defineRule } from '../engine/rule';
import { docsUrl, shortPath } from './support/docs';
import type { CallRecord } from '../engine/conversation';
import type { FileAccess } from '../model/events';
import { firstBatchSibling, isWrite, readsAndWritesInOrder, runsAfterEarlier, runsAlone } from './support/batch';

export const parallelReadWrite = defineRule({
  meta: {
    id: 'parallel-read-write',
    type: 'problem',
    defaultSeverity: 'warning',
    scope: 'stream',
    docs: {
      description: 'A read and a write of one path in the same parallel batch: nothing orders them.',
      url: docsUrl('parallel-read-write'),
    },
    messages: {
      race: '{{tool}} {{verb}} {{path}} in the same parallel batch as the {{otherTool}} call on line {{otherLine}} that {{otherVerb}} it: nothing orders the two, so the read may see the file before or after the write.',
    },
  },
  create(ctx) {
    /** A call of the batch still running that does not run alone (see `onCall`). */
    const unanswered = (sibling: CallRecord): boolean => sibling.results.length === 0 && !runsAlone(ctx.agent, sibling);
    return {
      onCall(rec) {
        // A call of the batch whose result was already written when this call was has run
        // before it: Claude Code runs the blocks of one message as they stream in, and then
        // records a result before the message's next tool_use. Those two are ordered.
        // And a call that runs alone (Codex's apply_patch) is ordered with the rest of its batch,
        // as is one that ran after the calls before it (see ToolCall.inOrder), and every read
        // and write of an agent that never runs a write beside another call (Claude Code).
        if (readsAndWritesInOrder(ctx.agent) || runsAfterEarlier(ctx.agent, rec)) {
          return;
        }
        for (const a of rec.call.accesses) {
          const mine = isWrite(a) ? 'write' : a.op === 'read' ? 'read' : undefined;
          if (!mine) {
            continue;
          }
          const first = firstBatchSibling(rec, a.path, mine === 'write' ? isRead : isWrite, unanswered);
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
              verb: mine === 'write' ? 'writes' : 'reads',
              path: shortPath(ctx, a.path),
              otherTool: first.sibling.call.tool,
              otherLine: first.sibling.call.at.line,
              otherVerb: mine === 'write' ? 'reads' : 'writes',
            },
            related: [{ at: first.access.span ?? first.sibling.call.at, message: `the ${first.sibling.call.tool} call in the same batch` }],
            subject: { path: a.path },
          });
        }
      },
    };
  },
});

function isRead(a: FileAccess): boolean {
  return a.op === 'read';
}
