/**
 * The Amplifier "9 h delegate" incident, live: the overlapping execution is reported from
 * events.jsonl before the transcript it corrupts is rewritten.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, test } from 'node:test';
import { amplifierSlug } from '../../../src/core/discovery/locations';
import type { Finding } from '../../../src/core/model/finding';
import { LiveEnv } from '../support/liveEnv';
import { waitFor } from '../support/wait';

let env: LiveEnv;
afterEach(async () => {
  await env?.dispose();
});

void test('overlapping executions surface from events.jsonl before the transcript is corrupted', async () => {
  env = new LiveEnv();
  await env.start({ watchTree: false });
  const dir = path.join(env.root, '.amplifier', 'projects', amplifierSlug(env.workspace), 'sessions', 'sess-9h');
  mkdirSync(dir, { recursive: true });
  const events = path.join(dir, 'events.jsonl');
  const transcript = path.join(dir, 'transcript.jsonl');
  let t = Date.parse('2026-03-01T09:00:00.000Z');
  const event = (name: string, data: Record<string, unknown> = {}): void => {
    appendFileSync(events, JSON.stringify({ ts: new Date((t += 1000)).toISOString(), lvl: 'INFO', schema: { name: 'amplifier.log', ver: '1.0.0' }, event: name, session_id: 'sess-9h', data }) + '\n');
  };
  /** Amplifier rewrites the whole transcript through a temp file and a rename. */
  const rewrite = (messages: object[]): void => {
    writeFileSync(path.join(dir, 'transcript.jsonl.tmp'), messages.map((m) => JSON.stringify(m) + '\n').join(''));
    renameSync(path.join(dir, 'transcript.jsonl.tmp'), transcript);
  };
  const order: Finding[] = [];
  env.monitor!.findings.onDidChange((c) => order.push(...c.added));

  const user = { role: 'user', content: 'Ask the reviewer agent to check the migration' };
  const call = { role: 'assistant', content: [{ type: 'text', text: 'Delegating.' }], tool_calls: [{ id: 'toolu_D', tool: 'delegate', arguments: { agent: 'reviewer' } }] };
  event('session:start');
  event('prompt:submit');
  event('execution:start');
  event('llm:request');
  event('tool:pre', { tool_name: 'delegate', tool_call_id: 'toolu_D' });
  rewrite([user, call]);
  await waitFor(() => env.monitor!.session(transcript) && env.monitor!.session(events), 10_000, 'both files followed');
  assert.equal(order.length, 0, 'a parked delegate is not a problem yet');

  // Hours later a second prompt starts a second execution on the same session.
  event('prompt:submit');
  event('execution:start');
  await waitFor(() => order.some((f) => f.rule === 'overlapping-executions'), 10_000, 'the overlapping-executions finding');
  const overlap = order.find((f) => f.rule === 'overlapping-executions')!;
  assert.equal(overlap.file, events);
  assert.equal(overlap.line, 6, 'the second prompt:submit');
  assert.deepEqual(overlap.related.map((r) => r.line), [2, 5], 'the first execution and its parked call');

  // The pre-turn repair writes a placeholder, the new turn runs, then the real result lands.
  event('llm:request');
  rewrite([
    user,
    call,
    { role: 'tool', tool_call_id: 'toolu_D', name: 'delegate', content: '{"error": "unknown_error", "message": "Tool execution was interrupted and no result was captured."}' },
    { role: 'user', content: 'Any news from the reviewer?' },
    { role: 'assistant', content: [{ type: 'text', text: 'Still waiting.' }] },
  ]);
  event('tool:post', { tool_name: 'delegate', tool_call_id: 'toolu_D' });
  rewrite([
    user,
    call,
    { role: 'tool', tool_call_id: 'toolu_D', name: 'delegate', content: '{"error": "unknown_error", "message": "Tool execution was interrupted and no result was captured."}' },
    { role: 'user', content: 'Any news from the reviewer?' },
    { role: 'assistant', content: [{ type: 'text', text: 'Still waiting.' }] },
    { role: 'tool', tool_call_id: 'toolu_D', name: 'delegate', content: 'The migration looks fine.' },
  ]);
  await waitFor(() => order.some((f) => f.rule === 'duplicate-result'), 10_000, 'the damage in the transcript');
  const first = (rule: string): number => order.findIndex((f) => f.rule === rule);
  assert.ok(first('overlapping-executions') < first('duplicate-result'), order.map((f) => f.rule).join(', '));
  assert.ok(first('overlapping-executions') < first('misplaced-result'), order.map((f) => f.rule).join(', '));
});
