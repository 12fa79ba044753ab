import { milder } from '../config/ruleConfig';
import { findingId } from '../engine/engine';
import { defineRule, type GuardDecisionRecord } from '../engine/rule';
import type { AgentKind } from '../model/agent';
import type { Finding, Severity } from '../model/finding';
import { docsUrl, shortPath } from './support/docs';

const messages: Record<string, string> = {
  'stale-write':
    'The guard {{verdict}} {{tool}} of {{path}}: the file had changed on disk since the session last saw it. The agent was told: {{reason}}',
  'dirty-buffer': 'The guard {{verdict}} {{tool}} of {{path}}: the file had unsaved changes in an editor. The agent was told: {{reason}}',
  'unread-write': 'The guard {{verdict}} {{tool}} of {{path}}: the session had never read the existing file. The agent was told: {{reason}}',
  'concurrent-write':
    'The guard {{verdict}} {{tool}} of {{path}}: another session was writing the file at that moment. The agent was told: {{reason}}',
};

/**
 * The guard's decisions as findings. The guard service reports each deny or warn the moment
 * it decides, on the call's transcript line if the transcript already has it, else on the
 * last line read so far (transcripts are written asynchronously and lag the hook). When the
 * call's line arrives later, this rule reports the same finding (same key, hence same id) on
 * that line: the finding moves there instead of appearing twice.
 */
export const guardRule = defineRule({
  meta: {
    id: 'guard',
    type: 'problem',
    defaultSeverity: 'error',
    scope: 'live',
    docs: {
      description: 'A write the guard hook denied (or warned about) before it happened: stale content, unsaved editor changes, a file never read, or another session writing it.',
      url: docsUrl('guard'),
    },
    messages,
  },
  create(ctx) {
    return {
      onCall(rec) {
        const ledger = ctx.services.hookLedger;
        if (!ledger?.decisionsFor) {
          return;
        }
        const call = rec.call;
        const found = ledger.decisionsFor(
          { sessionId: ctx.sessionId, transcript: ctx.file },
          { callId: call.callId, tool: call.tool, ...(call.inputHash !== undefined ? { inputHash: call.inputHash } : {}) },
        );
        for (const d of found) {
          const access = call.accesses.find((a) => a.path === d.path);
          ctx.report({
            messageId: d.decision,
            at: access?.span ?? call.at,
            key: d.key,
            callId: call.callId,
            severity: decisionSeverity(d),
            data: guardMessageData(d, shortPath(ctx, d.path)),
            related: [{ at: { line: 1, start: 0, end: 0 }, file: d.path, message: 'the file the guard protected' }],
            subject: { path: d.path },
          });
        }
      },
    };
  },
});

function decisionSeverity(d: GuardDecisionRecord): Severity {
  return d.action === 'deny' ? 'error' : 'warning';
}

function guardMessageData(d: GuardDecisionRecord, path: string): Record<string, string> {
  return { verdict: d.action === 'deny' ? 'denied' : 'warned about', tool: d.tool, path, reason: d.reason };
}

/**
 * The finding the guard service reports at decision time, identical (id, message, severity)
 * to what the rule reports once the call's line is read — so a later report only moves it.
 * `level` is the rule's configured severity, which caps the decision's own as the engine
 * caps a report's (the caller leaves out decisions whose rule is off).
 */
export function guardFinding(
  d: GuardDecisionRecord,
  where: { file: string; line: number; agent: AgentKind | 'unknown'; session: string; callId?: string; displayPath: string },
  level: Severity,
): Finding {
  const template = messages[d.decision] ?? messages['stale-write']!;
  const data = guardMessageData(d, where.displayPath);
  return {
    id: findingId(guardRule.meta.id, where.file, d.key),
    rule: guardRule.meta.id,
    severity: milder(level, decisionSeverity(d)),
    file: where.file,
    line: where.line,
    column: 1,
    endLine: where.line,
    endColumn: 1,
    message: template.replace(/\{\{(\w+)\}\}/g, (m, k: string) => data[k] ?? m),
    agent: where.agent,
    session: where.session,
    related: [{ file: d.path, line: 1, message: 'the file the guard protected' }],
    subject: { path: d.path },
    ...(where.callId !== undefined ? { callId: where.callId } : {}),
    messageId: d.decision,
  };
}
