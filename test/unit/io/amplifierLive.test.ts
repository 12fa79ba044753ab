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
import { readEvents } from '../../../src/vscode/timeline/source';
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

void test('live, a relative path names a file of the folder the session config names; without one, none', async () => {
  env = new LiveEnv();
  await env.start({ watchTree: false });
  const sessions = path.join(env.root, '.amplifier', 'projects', amplifierSlug(env.workspace), 'sessions');
  const ok = '{"error": null, "output": {}, "success": true}';
  /** A session that edits `src/a.py` without reading it, its events.jsonl naming `cwd` (if any). */
  const session = (id: string, cwd: string | undefined): string => {
    const dir = path.join(sessions, id);
    mkdirSync(dir, { recursive: true });
    const line = (event: string, data: Record<string, unknown>): string =>
      JSON.stringify({ ts: '2026-07-08T15:50:50+00:00', lvl: 'INFO', schema: { name: 'amplifier.log', ver: '1.0.0' }, event, session_id: id, data }) + '\n';
    writeFileSync(
      path.join(dir, 'events.jsonl'),
      line('session:start', { parent_id: null }) + (cwd !== undefined ? line('session:config', { parent_id: null, raw: { project_dir: cwd, working_dir: cwd } }) : ''),
    );
    const transcript = path.join(dir, 'transcript.jsonl');
    writeFileSync(
      transcript,
      [
        { role: 'user', content: 'fix it' },
        { role: 'assistant', content: [], tool_calls: [{ id: 'toolu_1', tool: 'edit_file', arguments: { file_path: 'src/a.py', old_string: 'x', new_string: 'y' } }] },
        { role: 'tool', tool_call_id: 'toolu_1', name: 'edit_file', content: ok },
      ]
        .map((m) => JSON.stringify(m) + '\n')
        .join(''),
    );
    return transcript;
  };
  const bare = session('sess-bare', undefined);
  const known = session('sess-known', env.workspace);
  await waitFor(() => env.announced.some((f) => f.rule === 'write-before-read'), 10_000, 'the blind edit');
  await waitFor(() => env.monitor!.session(bare) !== undefined, 10_000, 'the session without a folder followed');
  await env.monitor!.idle();
  assert.deepEqual(
    env.announced.filter((f) => f.rule === 'write-before-read').map((f) => `${f.file === known ? 'known' : f.file} ${f.line}`),
    ['known 2'],
  );
  assert.equal(env.monitor!.session(known)?.cwd, env.workspace);
  assert.equal(env.monitor!.session(bare)?.cwd, undefined);

  // The timeline reads what came before it follows with the folder the monitor reads with.
  const accesses = async (file: string): Promise<string[]> => {
    const follow = env.monitor!.followSession(file, () => undefined);
    assert.ok(follow);
    const out: string[] = [];
    await readEvents(file, { upTo: follow.consumedBytes, agent: follow.forcedAgent, end: false, cwd: follow.cwd }, (e) => {
      if (e.kind === 'call') {
        out.push(...e.accesses.map((a) => `${a.op} ${path.relative(env.root, a.path)}`));
      }
    });
    follow.dispose();
    return out;
  };
  assert.deepEqual(await accesses(known), ['edit ws/src/a.py']);
  assert.deepEqual(await accesses(bare), []);
});
