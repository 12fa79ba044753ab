import { loadedByClaudeCode } from '../engine/knowledge';
import { defineRule } from '../engine/rule';
import { docsUrl, shortPath } from './support/docs';

export const writeBeforeRead = defineRule({
  meta: {
    id: 'write-before-read',
    type: 'problem',
    defaultSeverity: 'warning',
    scope: 'stream',
    docs: {
      description: 'A write or edit of an existing file that the session has not read (creating a new file is fine).',
      url: docsUrl('write-before-read'),
    },
    messages: {
      unread: '{{tool}} changed {{path}}, an existing file this session never read: it wrote without knowing what was there.',
    },
  },
  create(ctx) {
    /**
     * The history before a reset is in another file (the compaction helper's copy of a session
     * from its last compaction on): what the session read there is not here, so no write can be
     * called blind.
     */
    let continued = false;
    return {
      onReset(e) {
        continued ||= e.elsewhere === true;
      },
      onResult(rec) {
        const call = rec.call;
        const r = rec.result;
        // After records were lost (a line hangs from one the file does not hold), the read may
        // have been among them.
        if (!call || r.isError || call.results[0] !== rec || continued || ctx.knowledge.gapAfter(0)) {
          return;
        }
        for (const a of call.call.accesses) {
          if (a.op !== 'edit' && a.op !== 'write' && a.op !== 'delete') {
            continue;
          }
          // A file Claude Code records as empty before the write held nothing to lose (a MultiEdit
          // whose first old_string is empty records its new file's original as "").
          const snapshot = r.write?.path === a.path ? r.write : undefined;
          const existed = snapshot?.before === '' ? false : a.existed === true || snapshot?.type === 'update';
          // A file whose whole content the session had been shown elsewhere was no blind write.
          if (!existed || snapshot?.shown === true || ctx.knowledge.hasTried(a.path) || (ctx.agent === 'claude-code' && loadedByClaudeCode(a.path, ctx.session?.cwd))) {
            continue;
          }
          // A read in the same batch is parallel-read-write's finding, not this one.
          const sameBatchRead = call.message.calls.some((c) => c !== call && c.call.accesses.some((x) => x.path === a.path && x.op === 'read'));
          if (sameBatchRead) {
            continue;
          }
          ctx.report({
            messageId: 'unread',
            at: a.span ?? call.call.at,
            key: `${call.call.callId}:${a.path}`,
            callId: call.call.callId,
            data: { tool: call.call.tool, path: shortPath(ctx, a.path) },
            related: [{ at: r.at, message: 'its result' }],
            subject: { path: a.path, ...(r.write?.replaced.length ? { lines: r.write.replaced } : {}) },
          });
        }
      },
    };
  },
});
