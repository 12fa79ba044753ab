import type { ExecutionEvent } from '../../model/events';
import { valueSpan, type LineRef } from '../span';
import { amplifierEventLineSchema } from './schema';
import { parseWith } from '../guard';

/**
 * Lifecycle markers of one execution in Amplifier's `events.jsonl` (FORMATS.md §4). There is
 * no execution id: two executions of one session overlap when a second start arrives before
 * the first one's end, and interleaved `llm:request` lines are the visible symptom. One
 * execution writes several of the start and end markers; pairing them is the rule's job.
 */
const phases: ReadonlyMap<string, ExecutionEvent['phase']> = new Map([
  ['prompt:submit', 'start'],
  ['execution:start', 'start'],
  ['llm:request', 'llm-request'],
  ['orchestrator:complete', 'end'],
  ['orchestrator:error', 'end'],
  ['execution:complete', 'end'],
  ['prompt:complete', 'end'],
]);

/**
 * One decoded `events.jsonl` line → an execution event, or undefined for the many other
 * events (`tool:pre`, `provider:response`, …) and for lines without a session id. Pure: the
 * caller reads the file and injects the events into the transcript's stream.
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
  return {
    kind: 'execution',
    at: valueSpan(raw, e.event, 'event'),
    phase,
    sessionId: e.session_id,
    ...(e.ts !== undefined ? { timestamp: e.ts } : {}),
  };
}
