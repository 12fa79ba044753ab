import type { CallRecord } from '../engine/conversation';
import { defineRule, type RelatedSpan } from '../engine/rule';
import type { Span, ToolResult } from '../model/events';
import { resolveAgainst } from '../classify/paths';
import { docsUrl, shortPath } from './support/docs';

/** The result shapes each tool can produce (Claude Code's `toolUseResult`). Tools not listed accept any. */
const expectedShapes: Record<string, readonly NonNullable<ToolResult['shape']>[]> = {
  Read: ['read'],
  Edit: ['edit'],
  MultiEdit: ['edit'],
  Write: ['write'],
  Bash: ['shell'],
};

export const mismatchedResult = defineRule({
  meta: {
    id: 'mismatched-result',
    type: 'problem',
    defaultSeverity: 'error',
    scope: 'stream',
    docs: {
      description: "A result whose own metadata names a different file or tool than its call (a swapped completion).",
      url: docsUrl('mismatched-result'),
    },
    messages: {
      file: 'Result for tool call {{id}} is about {{resultPath}}, but the {{tool}} call asked for {{callPath}}: the result of another call was bound to this one.',
      tool: 'Result for tool call {{id}} looks like the output of {{resultTool}}, but the call was {{tool}}: the result of another call was bound to this one.',
    },
  },
  create(ctx) {
    return {
      onResult(rec) {
        const call = rec.call;
        const r = rec.result;
        if (!call || r.isError) {
          return;
        }
        if (r.tool !== undefined && r.tool !== call.call.tool) {
          ctx.report({ ...reportBase(r, call), messageId: 'tool', data: { id: r.callId, tool: call.call.tool, resultTool: r.tool } });
          return;
        }
        const shapes = expectedShapes[call.call.tool];
        if (shapes && r.shape !== undefined && r.shape !== 'other' && !shapes.includes(r.shape)) {
          ctx.report({ ...reportBase(r, call), messageId: 'tool', data: { id: r.callId, tool: call.call.tool, resultTool: describeShape(r.shape) } });
          return;
        }
        const callPath = call.call.accesses[0]?.path;
        if (r.filePath !== undefined && callPath !== undefined) {
          const resultPath = resolveAgainst(r.filePath, ctx.session?.cwd) ?? r.filePath;
          if (resultPath !== callPath) {
            ctx.report({
              ...reportBase(r, call),
              messageId: 'file',
              data: { id: r.callId, tool: call.call.tool, callPath: shortPath(ctx, callPath), resultPath: shortPath(ctx, resultPath) },
            });
          }
        }
      },
    };
  },
});

/**
 * What every report of the rule says of the result: built only for a report (most results match
 * their call), by a function of the module rather than a closure made for every result.
 */
function reportBase(r: ToolResult, call: CallRecord): { at: Span; key: string; callId: string; related: RelatedSpan[] } {
  return {
    at: r.at,
    key: `${r.callId}@${r.at.line}`,
    callId: r.callId,
    related: [{ at: call.call.at, message: `the ${call.call.tool} call` }],
  };
}

function describeShape(shape: NonNullable<ToolResult['shape']>): string {
  switch (shape) {
    case 'read':
      return 'a file read';
    case 'edit':
      return 'a file edit';
    case 'write':
      return 'a file write';
    case 'shell':
      return 'a shell command';
    case 'other':
      return 'another tool';
  }
}
