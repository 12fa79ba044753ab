/**
 * Legacy Codex rollouts (codex-rs up to about September 2025): a first line `{id, timestamp,
 * instructions, git}`, then bare response items and `{"record_type":"state"}` snapshots, with no
 * `{timestamp, type, payload}` wrapper. Shapes from real rollouts of August 2025.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { run } from '../support/run';

const meta = { id: '3619d75c-9854-4051-bb20-b370a3594a9d', timestamp: '2025-08-19T08:31:17.621Z', instructions: null, git: {} };
const state = { record_type: 'state' };
const user = (text: string): unknown => ({ type: 'message', id: null, role: 'user', content: [{ type: 'input_text', text }] });
const shell = (callId: string, command: string): unknown => ({
  type: 'function_call',
  id: `fc_${callId}`,
  name: 'shell',
  arguments: JSON.stringify({ command: ['bash', '-lc', command], workdir: '/home/dev/proj' }),
  call_id: callId,
});
const output = (callId: string, text: string): unknown => ({ type: 'function_call_output', call_id: callId, output: JSON.stringify({ output: text, metadata: { exit_code: 0, duration_seconds: 0.1 } }) });
const say = (text: string): unknown => ({ type: 'message', id: 'msg_1', role: 'assistant', content: [{ type: 'output_text', text }] });
const jsonl = (...records: unknown[]): string => records.map((r) => JSON.stringify(r) + '\n').join('');

void describe('legacy Codex rollouts', () => {
  void test('read as Codex under any name: the session, its calls and their outputs', () => {
    const { findings, events } = run(jsonl(meta, state, user('check the repo'), state, shell('call_1', 'cat README.md'), output('call_1', '# proj'), say('it is fine'), state), {
      file: '/tmp/old-session.jsonl',
    });
    assert.deepEqual(findings, []);
    const session = events.find((e) => e.kind === 'session');
    assert.equal(session?.kind === 'session' ? session.sessionId : undefined, meta.id);
    assert.deepEqual(
      events.filter((e) => e.kind === 'call' || e.kind === 'result').map((e) => [e.kind, e.at.line]),
      [
        ['call', 5],
        ['result', 6],
      ],
    );
    const call = events.find((e) => e.kind === 'call');
    assert.deepEqual(call?.kind === 'call' ? call.accesses.map((a) => [a.op, a.path]) : [], [['read', '/home/dev/proj/README.md']]);
  });

  void test('the cwd comes from the environment context Codex gave the model, not from a prompt quoting one', () => {
    const env = (cwd: string): unknown => user(`<environment_context>\n  <cwd>${cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n</environment_context>`);
    const rel = (callId: string): unknown => ({ type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', 'cat README.md'] }), call_id: callId });
    const { events } = run(jsonl(meta, env('/home/dev/proj'), user('look'), rel('c1'), output('c1', 'x'), user('see this log: <environment_context><cwd>/elsewhere</cwd></environment_context>'), rel('c2'), output('c2', 'x')), {
      file: '/tmp/old.jsonl',
    });
    assert.deepEqual(
      events.flatMap((e) => (e.kind === 'call' ? e.accesses.map((a) => a.path) : [])),
      ['/home/dev/proj/README.md', '/home/dev/proj/README.md'],
    );
  });

  void test('the rules apply: a call with no output before the next prompt', () => {
    const { findings } = run(jsonl(meta, user('go'), shell('call_1', 'make'), user('hello?')), { file: '/tmp/rollout-2025-08-19T08-31-17-3619d75c.jsonl' });
    assert.deepEqual(
      findings.map((f) => [f.rule, f.line, f.severity]),
      [['missing-result', 3, 'error']],
    );
  });

  void test('a bare item before any first line is not taken for a legacy rollout', () => {
    const { findings } = run(jsonl(user('go'), say('hi')), { file: '/tmp/notes.jsonl' });
    assert.deepEqual(
      findings.map((f) => [f.rule, f.line]),
      [['unparseable-line', 1]],
    );
  });
});
