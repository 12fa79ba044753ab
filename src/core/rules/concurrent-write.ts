import { writeOps } from '../model/events';
import { defineRule } from '../engine/rule';
import { clockTime } from './support/author';
import { docsUrl, shortPath } from './support/docs';

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
          // Another session's write counts even if someone (the user, a formatter) changed the
          // file again after it.
          const other = live?.sessions?.filter((x) => x.by.session !== ctx.file).pop() ?? (live?.by.kind === 'session' && live.by.session !== ctx.file ? { by: live.by, at: live.at } : undefined);
          if (!other) {
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
              other: other.by.sessionId ?? other.by.session,
              when: clockTime(other.at),
            },
            related: [
              { at: { line: other.by.line ?? 1, start: 0, end: 0 }, file: other.by.session, message: 'the other session’s write' },
              { at: { line: 1, start: 0, end: 0 }, file: access.path, message: 'the file both sessions wrote' },
            ],
            subject: { path: access.path },
          });
        }
      },
    };
  },
});
