import type { HookLedgerView, RuleContext } from '../../engine/rule';

/**
 * The session id the guard hook reports calls under. Hooks fire with the main session's id,
 * also inside a Claude Code sub-agent (whose transcript our engine names `<id>/agent-<agent>`).
 */
export function hookSessionId(ctx: RuleContext): string {
  return ctx.session?.parentSessionId ?? ctx.sessionId.split('/')[0] ?? ctx.sessionId;
}

/** The ledger, when the hook covers this session; rules bound to approvals judge nothing otherwise. */
export function coveringLedger(ctx: RuleContext): { ledger: HookLedgerView; sid: string } | undefined {
  const ledger = ctx.services.hookLedger;
  if (!ledger) {
    return undefined;
  }
  const sid = hookSessionId(ctx);
  return ledger.covers(sid) ? { ledger, sid } : undefined;
}
