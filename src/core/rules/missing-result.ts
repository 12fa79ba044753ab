import type { CallRecord } from '../engine/conversation';
import { defineRule } from '../engine/rule';
import type { Span } from '../model/events';
import { docsUrl, providerError } from './support/docs';

export const missingResult = defineRule({
  meta: {
    id: 'missing-result',
    type: 'problem',
    defaultSeverity: 'error',
    scope: 'stream',
    docs: {
      description: 'A tool call with no result in the message right after it.',
      url: docsUrl('missing-result'),
    },
    messages: {
      beforeNext: 'Tool call {{id}} ({{tool}}) got no result before the {{next}} on line {{nextLine}}; {{provider}}.',
      aborted: 'Tool call {{id}} ({{tool}}) got no result: the turn was aborted on line {{nextLine}}; {{provider}} on the next request.',
      atEnd: 'Tool call {{id}} ({{tool}}) has no result at the end of the file; if the session is not still running, {{provider}} when it resumes.',
    },
  },
  create(ctx) {
    /** Calls whose missing result was forgiven by a history reset (they are no longer sent). */
    const forgiven = new Set<CallRecord>();
    const report = (call: CallRecord, messageId: string, next: string, nextAt: Span | undefined, demote = false): void => {
      ctx.report({
        messageId,
        at: call.call.at,
        key: call.call.callId + '@' + call.call.at.line,
        callId: call.call.callId,
        demote,
        data: {
          id: call.call.callId,
          tool: call.call.tool,
          next,
          nextLine: nextAt?.line ?? 0,
          provider: providerError(ctx.agent, 'missing-result'),
        },
        related: nextAt ? [{ at: nextAt, message: next }] : [],
      });
    };
    const unanswered = (): CallRecord[] => ctx.conversation.pendingCalls().filter((c) => !forgiven.has(c) && c.message.epoch === ctx.conversation.epoch);
    return {
      onMessage(msg) {
        if (msg.role !== 'assistant') {
          return;
        }
        for (const call of unanswered()) {
          if (call.message !== msg) {
            report(call, 'beforeNext', 'next assistant turn', msg.at);
          }
        }
      },
      onText(e, msg) {
        if (e.role !== 'user') {
          return;
        }
        for (const call of unanswered()) {
          if (call.message.index === msg.index - 1) {
            report(call, 'beforeNext', e.prompt ? 'user prompt' : 'user message', e.at);
          }
        }
      },
      onTurnEnd(at, aborted) {
        for (const call of unanswered()) {
          report(call, aborted ? 'aborted' : 'beforeNext', aborted ? 'aborted turn' : 'end of the turn', at);
        }
      },
      onReset() {
        for (const call of ctx.conversation.pendingCalls()) {
          forgiven.add(call);
        }
      },
      onEnd() {
        for (const call of unanswered()) {
          report(call, 'atEnd', 'end of file', undefined, true);
        }
      },
    };
  },
});
