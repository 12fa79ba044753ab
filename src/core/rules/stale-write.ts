import { defineRule } from '../engine/rule';
import { docsUrl, formatRanges, shortPath } from './support/docs';

export const staleWrite = defineRule({
  meta: {
    id: 'stale-write',
    type: 'problem',
    defaultSeverity: 'error',
    scope: 'stream',
    docs: {
      description: 'A write or edit applied to content other than what the session last read or wrote: a change it never saw.',
      url: docsUrl('stale-write'),
    },
    messages: {
      overlap:
        '{{tool}} replaced lines of {{path}} that had changed since this session last {{seenBy}} it (line {{seenLine}}): {{unseen}} changed without the session seeing it, and the edit overwrote that region. A lost update is likely.',
      aside:
        '{{tool}} was applied to {{path}} on top of a change this session never saw ({{unseen}} changed after it last {{seenBy}} the file on line {{seenLine}}, e.g. a formatter or another writer); the edit did not touch those lines.',
      live: '{{tool}} wrote {{path}}, which {{who}} changed {{when}} after this session last {{seenBy}} it (line {{seenLine}}): {{consequence}}',
    },
  },
  create(ctx) {
    return {
      onResult(rec) {
        const call = rec.call;
        const w = rec.result.write;
        if (!call || rec.result.isError || !w || w.type !== 'update' || call.results[0] !== rec) {
          return;
        }
        const verdict = ctx.knowledge.judge(w);
        if (!verdict) {
          return;
        }
        const access = call.call.accesses.find((a) => a.path === w.path);
        const unseen = formatRanges(verdict.unseen);
        ctx.report({
          messageId: verdict.overlaps ? 'overlap' : 'aside',
          severity: verdict.overlaps ? 'error' : 'warning',
          at: access?.span ?? call.call.at,
          key: `${call.call.callId}:${w.path}`,
          callId: call.call.callId,
          data: {
            tool: call.call.tool,
            path: shortPath(ctx, w.path),
            seenBy: verdict.seenBy === 'read' ? 'read' : 'wrote',
            seenLine: verdict.seenAt.line,
            unseen,
          },
          related: [
            { at: verdict.seenAt, message: verdict.seenBy === 'read' ? 'the session last read the file here' : 'the session last wrote the file here' },
            { at: rec.result.at, message: 'the result recording what the file held before this write' },
          ],
          subject: { path: w.path, lines: verdict.unseen.map((u) => ({ start: u.start, count: Math.max(u.count, 1) })) },
        });
      },
    };
  },
});
