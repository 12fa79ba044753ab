import type { CallRecord } from '../engine/conversation';
import { defineRule } from '../engine/rule';
import { docsUrl } from './support/docs';

const defaultMinutes = 10;

export const stalledCall = defineRule({
  meta: {
    id: 'stalled-call',
    type: 'suggestion',
    defaultSeverity: 'info',
    scope: 'live',
    docs: {
      description: 'A tool call still without a result after a while (10 minutes by default): it pins everything after it. Live only; it goes away when the result lands.',
      url: docsUrl('stalled-call'),
    },
    messages: {
      stalled: 'Tool call {{id}} ({{tool}}) has had no result for {{waited}}{{idle}}. A call that never returns pins the session: a second execution started meanwhile, or a repair step, is how sessions become unresumable.',
    },
  },
  create(ctx) {
    if (ctx.mode !== 'live') {
      return {};
    }
    const raw = ctx.options['minutes'];
    const limitMs = (typeof raw === 'number' && raw > 0 ? raw : defaultMinutes) * 60_000;
    /** Open calls with when they started: the transcript's own time, else when we saw them. */
    const open = new Map<CallRecord, number>();
    let lastActivity = ctx.now();
    return {
      onCall(rec) {
        const stamped = rec.call.timestamp ? Date.parse(rec.call.timestamp) : NaN;
        open.set(rec, Number.isFinite(stamped) ? Math.min(stamped, ctx.now()) : ctx.now());
        lastActivity = ctx.now();
      },
      onResult(rec) {
        lastActivity = ctx.now();
        if (rec.call && open.delete(rec.call)) {
          ctx.retract(`stalled:${rec.call.call.callId}@${rec.call.call.at.line}`);
        }
      },
      onText() {
        lastActivity = ctx.now();
      },
      onMessage(msg) {
        if (msg.role !== 'assistant') {
          return;
        }
        // The model's next turn came without the result: the session went on, nothing is pinned,
        // and missing-result reports the call (an error) — the same call was listed twice, an
        // info under the error, once it had waited long enough.
        for (const rec of open.keys()) {
          if (rec.message !== msg && !(msg.key !== undefined && rec.message.key === msg.key)) {
            open.delete(rec);
            ctx.retract(`stalled:${rec.call.callId}@${rec.call.at.line}`);
          }
        }
      },
      onTurnEnd() {
        // The agent closed the turn (Codex's task_complete, or turn_aborted when the user stopped
        // it): its calls without a result never get one, and nothing waits for them. An aborted
        // call was called stalled ten minutes on, where check, reading the same file, saw none.
        for (const rec of open.keys()) {
          ctx.retract(`stalled:${rec.call.callId}@${rec.call.at.line}`);
        }
        open.clear();
      },
      onReset() {
        for (const c of open.keys()) {
          ctx.retract(`stalled:${c.call.callId}@${c.call.at.line}`);
        }
        open.clear();
      },
      onTick(now) {
        for (const [rec, since] of open) {
          if (rec.results.length > 0) {
            open.delete(rec);
            continue;
          }
          if (now - since >= limitMs) {
            const idleMin = Math.floor((now - lastActivity) / 60_000);
            ctx.report({
              messageId: 'stalled',
              at: rec.call.at,
              key: `stalled:${rec.call.callId}@${rec.call.at.line}`,
              callId: rec.call.callId,
              data: {
                id: rec.call.callId,
                tool: rec.call.tool,
                waited: duration(Math.floor((now - since) / 60_000)),
                idle: idleMin >= 1 ? ` and the session has been idle for ${duration(idleMin)}` : ' while the session goes on',
              },
            });
          }
        }
      },
    };
  },
});

/**
 * "10 minutes", "1 minute"; from two hours on in hours, from two days on in days: a session
 * opened days later said "has had no result for 421349 minutes".
 */
function duration(minutes: number): string {
  if (minutes < 120) {
    return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  }
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} hours` : `${Math.floor(hours / 24)} days`;
}
