import type { ExecutionEvent } from '../../model/events';
import type { AdapterContext, FormatAdapter, FormatParser } from '../adapter';
import { lineSpan, valueSpan, type LineRef } from '../span';
import { amplifierEventLineSchema } from './schema';
import { parseWith } from '../guard';

/**
 * Lifecycle markers of one execution in Amplifier's `events.jsonl` (FORMATS.md §4). There is
 * no execution id: two executions of one session overlap when a second start arrives before
 * the first one's end, and interleaved `llm:request` lines are the visible symptom. One
 * execution writes several of the start and end markers; pairing them is the rule's job.
 */
const phases: ReadonlyMap<string, ExecutionEvent['phase']> = new Map([
  ['session:start', 'process'],
  ['session:resume', 'process'],
  ['prompt:submit', 'start'],
  ['execution:start', 'start'],
  ['llm:request', 'llm-request'],
  // The provider writes it only after its request (`status` ok, error, rate_limited); a request
  // that fails otherwise may have none.
  ['llm:response', 'llm-response'],
  ['tool:pre', 'tool-start'],
  ['tool:post', 'tool-end'],
  ['orchestrator:complete', 'end'],
  ['orchestrator:error', 'end'],
  ['execution:complete', 'end'],
  // What real logs write (amplifier 2026.07, core 1.6.0), where the format notes said `execution:complete`.
  ['execution:end', 'end'],
  ['prompt:complete', 'end'],
]);

/**
 * One decoded `events.jsonl` line → an execution event, or undefined for the many other
 * events (`provider:response`, …) and for lines without a session id.
 */
export function parseAmplifierEventLine(value: Record<string, unknown>, raw: LineRef): ExecutionEvent | undefined {
  // Lines can carry whole request payloads: decide on the event name before validating.
  const name = value['event'];
  const phase = typeof name === 'string' ? phases.get(name) : undefined;
  if (phase === undefined) {
    return undefined;
  }
  const parsed = parseWith(amplifierEventLineSchema, value);
  if (!parsed.success) {
    return undefined;
  }
  const e = parsed.data;
  const data = typeof value['data'] === 'object' && value['data'] !== null ? (value['data'] as Record<string, unknown>) : {};
  // The call id's field name is not documented; these are the spellings Amplifier's modules use.
  const callId = [data['tool_call_id'], data['tool_use_id'], data['call_id'], data['id']].find((v): v is string => typeof v === 'string');
  const tool = [data['tool_name'], data['tool'], data['name']].find((v): v is string => typeof v === 'string');
  return {
    kind: 'execution',
    at: valueSpan(raw, e.event, 'event'),
    phase,
    sessionId: e.session_id,
    ...(e.ts !== undefined ? { timestamp: e.ts } : {}),
    ...(callId !== undefined ? { callId } : {}),
    ...(tool !== undefined ? { tool } : {}),
  };
}

/**
 * Amplifier's `events.jsonl` as a stream of its own: the execution lifecycle of its sessions,
 * which is where overlapping executions show — before the transcript they corrupt is
 * rewritten.
 */
export const amplifierEventsAdapter: FormatAdapter = {
  agent: 'amplifier',
  sniff(v) {
    const schema = v['schema'];
    return (
      typeof v['event'] === 'string' &&
      typeof v['session_id'] === 'string' &&
      (typeof schema !== 'object' || schema === null || (schema as { name?: unknown }).name === 'amplifier.log')
    );
  },
  claimsPath(p) {
    return /[\\/]sessions[\\/][^\\/]+[\\/]events\.jsonl$/.test(p);
  },
  create(ctx: AdapterContext): FormatParser {
    let session: string | undefined;
    return {
      line(value, raw) {
        const e = parseAmplifierEventLine(value, raw);
        if (!e) {
          return;
        }
        if (e.sessionId !== session) {
          session = e.sessionId;
          ctx.emit({ kind: 'session', at: lineSpan(raw), agent: 'amplifier', sessionId: session, ...(e.timestamp ? { startedAt: e.timestamp } : {}) });
        }
        ctx.emit(e);
      },
    };
  },
};
