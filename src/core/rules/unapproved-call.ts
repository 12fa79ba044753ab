import { defineRule } from '../engine/rule';
import { docsUrl } from './support/docs';
import { coveringLedger, hookCouldRecord } from './support/hookSession';

export const unapprovedCall = defineRule({
  meta: {
    id: 'unapproved-call',
    type: 'problem',
    defaultSeverity: 'error',
    scope: 'live',
    docs: {
      description: 'A tool call that ran although the guard hook never approved it, or approved it with other input.',
      url: docsUrl('unapproved-call'),
    },
    messages: {
      unseen: '{{tool}} call {{id}} ran, but the guard hook never saw it, although the hook checks {{tool}} calls in this session: it went around the hook (a retry, a replay, or a hook that failed to run).',
      changed: '{{tool}} call {{id}} ran with other input than the call the guard hook approved: the transcript\u2019s input does not hash the same as what the hook saw. The call that ran is not the call that was checked.',
      tool: 'Call {{id}} ran as {{tool}}, but the guard hook approved it as {{approved}}: the call that ran is not the call that was checked.',
    },
  },
  create(ctx) {
    return {
      // Judged when the call's result arrives: by then its pre-tool hook has run for sure
      // (transcripts record the call line before or after the hook, in no fixed order).
      onResult(rec) {
        const call = rec.call;
        if (!call || call.results[0] !== rec) {
          return;
        }
        if (rec.result.refused) {
          // The call never ran, so nothing went around the hook: Claude Code checks a call's
          // input (an `Edit` whose old string is absent, a `Write` of a file changed since the
          // read) before its PreToolUse hooks run, and answers `<tool_use_error>` without them.
          return;
        }
        const cover = coveringLedger(ctx);
        if (!cover) {
          return;
        }
        const { ledger, sid } = cover;
        const tool = call.call.tool;
        if (ledger.sawTool && !ledger.sawTool(sid, tool)) {
          // The hook is not installed for this tool (Bash, Glob…): nothing to compare with.
          return;
        }
        const base = { at: call.call.at, key: `${call.call.callId}@${call.call.at.line}`, callId: call.call.callId, related: [{ at: rec.result.at, message: 'its result' }] };
        if (ctx.agent === 'gemini') {
          // Gemini's hook names no call id: the input is the only binding.
          if (call.call.inputHash !== undefined && ledger.sawInput && !ledger.sawInput(sid, call.call.inputHash) && hookCouldRecord(ledger, call.call.timestamp, 'call')) {
            ctx.report({ ...base, messageId: 'changed', data: { tool, id: call.call.callId } });
          }
          return;
        }
        const approved = ledger.lookup(sid, call.call.callId);
        if (!approved) {
          if (hookCouldRecord(ledger, call.call.timestamp, 'call')) {
            ctx.report({ ...base, messageId: 'unseen', data: { tool, id: call.call.callId } });
          }
        } else if (approved.tool !== tool && !sameTool(approved.tool, tool)) {
          ctx.report({ ...base, messageId: 'tool', data: { tool, id: call.call.callId, approved: approved.tool } });
        } else if (call.call.inputHash !== undefined && approved.inputHash !== '' && approved.inputHash !== call.call.inputHash) {
          ctx.report({ ...base, messageId: 'changed', data: { tool, id: call.call.callId } });
        }
      },
    };
  },
});

/** Codex's hook names apply_patch as it is; its matcher aliases (Edit, Write) are the same tool. */
function sameTool(hookTool: string, transcriptTool: string): boolean {
  return transcriptTool === 'apply_patch' && (hookTool === 'Edit' || hookTool === 'Write');
}
