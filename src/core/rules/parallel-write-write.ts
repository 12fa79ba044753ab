import { defineRule } from '../engine/rule';
import { docsUrl, shortPath } from './support/docs';
import { firstBatchSibling, isWrite, writesInOrder } from './support/batch';

const agentNames: Record<string, string> = { codex: 'Codex', 'claude-code': 'Claude Code', gemini: 'Gemini CLI', amplifier: 'Amplifier' };

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
      overwrite:
        '{{tool}} replaces {{path}} after the {{otherTool}} call on line {{otherLine}} of the same batch changed it: {{agent}} runs them in order, but this call was written before that change was made, so it undoes the change unless it repeats it.',
    },
  },
  create(ctx) {
    return {
      onCall(rec) {
        // Where writes run one at a time in order, an edit replaces text in the file as the
        // earlier write left it, or fails where that text changed: nothing is lost silently, and
        // an edit applied to content the session never saw is stale-write's finding. A shell
        // append (`>>`) adds to what the earlier write left, and a formatter or fixer
        // (`prettier --write`, `ruff check --fix`) reads the file when it runs and rewrites what
        // it finds there: it reformats the earlier change rather than putting older content
        // back. So does a package manager saving a dependency: Claude Code 2.0.53 ran `pnpm add
        // tinify` then `pnpm add -D @types/tinify` from one message, and the second added its
        // entry to package.json as the first had left it (forty-seventh set). A whole-file write
        // or a delete still undoes the earlier change. Where the calls run side by side (Codex),
        // two package managers read the file at once and the later write drops the other's entry.
        const serial = writesInOrder(ctx.agent, rec);
        for (const a of rec.call.accesses) {
          if (!isWrite(a) || (serial && (a.op === 'edit' || a.append === true || a.fixer === true || a.amend === true))) {
            continue;
          }
          const first = firstBatchSibling(rec, a.path, isWrite);
          if (!first) {
            continue;
          }
          ctx.report({
            messageId: serial ? 'overwrite' : 'race',
            at: a.span ?? rec.call.at,
            key: `${rec.call.callId}:${a.path}`,
            callId: rec.call.callId,
            data: {
              tool: rec.call.tool,
              path: shortPath(ctx, a.path),
              otherTool: first.sibling.call.tool,
              otherLine: first.sibling.call.at.line,
              agent: agentNames[ctx.agent] ?? ctx.agent,
            },
            related: [{ at: first.access.span ?? first.sibling.call.at, message: `the ${first.sibling.call.tool} call in the same batch` }],
            subject: { path: a.path },
          });
        }
      },
    };
  },
});
