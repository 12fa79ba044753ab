import type { HookLedgerView, RuleContext } from '../../engine/rule';

/**
 * The session id the guard hook reports calls under. Hooks fire with the main session's id,
 * also inside a Claude Code sub-agent (whose transcript our engine names `<id>/agent-<agent>`).
 */
function hookSessionId(ctx: RuleContext): string {
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

/**
 * How long after an agent writes a call's line its pre-tool hook has surely run: the hook runs
 * as the call starts, before any permission prompt.
 */
const hookDelayMs = 60_000;

/**
 * Could the hook have recorded a call made at `timestamp` (`of: 'call'`), or the call of a result
 * written then (`of: 'result'`)? Only if a guard service answered the hooks from the call until
 * its hook surely ran: while none does, the hook records nothing, and a call missing from the
 * ledger is no sign that it went around the hook. A result's call came before it, so there the
 * service must have answered in the minute before. What has no time is judged (as everything was
 * before services marked when they served).
 */
export function hookCouldRecord(ledger: HookLedgerView, timestamp: string | undefined, of: 'call' | 'result'): boolean {
  const t = timestamp === undefined ? NaN : Date.parse(timestamp);
  if (!Number.isFinite(t) || !ledger.servedThrough) {
    return true;
  }
  return of === 'call' ? ledger.servedThrough(t, t + hookDelayMs) : ledger.servedThrough(t - hookDelayMs, t);
}
