import { defineRule } from '../engine/rule';
import { docsUrl } from './support/docs';

export const unparseableLine = defineRule({
  meta: {
    id: 'unparseable-line',
    type: 'problem',
    defaultSeverity: 'error',
    scope: 'stream',
    docs: {
      description: 'A line that is not valid JSON, not valid UTF-8, or a known record kind without the fields it must have. Unknown record kinds are skipped, not reported. The rest of the file is still checked.',
      url: docsUrl('unparseable-line'),
    },
    messages: {
      malformed: 'Line {{line}} cannot be read: {{detail}}. The rest of the file was still checked.',
      concatenated: 'Line {{line}} holds {{detail}}.',
      encoding: 'Line {{line}} {{detail}}.',
      truncated: 'Line {{line}}: {{detail}}.',
      session: 'This transcript is malformed: {{detail}}.',
      document: 'The file is not one valid JSON document ({{detail}}; line {{line}}), so nothing in it could be checked. A writer cut off while rewriting it leaves it so.',
    },
  },
  create(ctx) {
    return {
      onMalformed(e) {
        if (e.provisional === 'withdraw') {
          ctx.retract(`${e.at.line}:${e.reason}`);
          return;
        }
        const messageId = e.document
          ? 'document'
          : e.reason === 'truncated'
            ? 'truncated'
            : e.reason === 'invalid-utf8'
              ? 'encoding'
              : e.reason === 'no-session-meta' || e.reason === 'unknown-format'
                ? 'session'
                : e.reason === 'concatenated'
                  ? 'concatenated'
                  : 'malformed';
        ctx.report({
          messageId,
          at: e.at,
          key: `${e.at.line}:${e.reason}`,
          demote: e.atEnd === true,
          data: { line: e.at.line, detail: e.detail },
        });
      },
    };
  },
});
