import { defineRule } from '../engine/rule';
import { clockTime } from './support/author';
import { docsUrl, shortPath } from './support/docs';

const writeOps = new Set(['write', 'edit', 'create', 'delete']);

export const concurrentWrite = defineRule({
  meta: {
    id: 'concurrent-write',
    type: 'problem',
    defaultSeverity: 'error',
    scope: 'live',
    docs: {
      description: "Two sessions writing one file with no read of the other's write in between.",
      url: docsUrl('concurrent-write'),
    },
    messages: {
      interleaved:
        '{{tool}} wrote {{path}} without reading the write session {{other}} made to it at {{when}}: two sessions are editing this file blind to each other, and one of the changes may be lost.',
    },
  },
  create(ctx) {
    return {
      onResult(rec) {
        const call = rec.call;
        const tree = ctx.services.workTree;
        if (!call || !tree || rec.result.isError || call.results[0] !== rec) {
          return;
        }
        for (const access of call.call.accesses) {
          if (!writeOps.has(access.op)) {
            continue;
          }
          const live = tree.judgeWrite(ctx.file, access.path, call.call.callId);
          if (!live || live.by.kind !== 'session' || live.by.session === ctx.file) {
            continue;
          }
          ctx.report({
            messageId: 'interleaved',
            at: access.span ?? call.call.at,
            key: `${call.call.callId}:${access.path}`,
            callId: call.call.callId,
            data: {
              tool: call.call.tool,
              path: shortPath(ctx, access.path),
              other: live.by.sessionId ?? live.by.session,
              when: clockTime(live.at),
            },
            related: [
              { at: { line: live.by.line ?? 1, start: 0, end: 0 }, file: live.by.session, message: 'the other session’s write' },
              { at: { line: 1, start: 0, end: 0 }, file: access.path, message: 'the file both sessions wrote' },
            ],
            subject: { path: access.path },
          });
        }
      },
    };
  },
});
