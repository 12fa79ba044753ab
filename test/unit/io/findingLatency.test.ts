/**
 * How long after an append its finding is reported, with real folders, real chokidar and real
 * appends. The tick (time-based rules) is put out of reach: what an append shows must not wait
 * for it. The bounds are loose for a loaded machine; what they catch is a finding that waits
 * for the next tick, 15 s apart by default.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, test } from 'node:test';
import { amplifierSlug, geminiProjectHash } from '../../../src/core/discovery/locations';
import { ClaudeTranscript } from '../support/claude';
import { LiveEnv } from '../support/liveEnv';
import { repoRoot } from '../support/repo';
import { waitFor } from '../support/wait';

/** No tick within any test's time. */
const noTick = { watchTree: false, tickMs: 60 * 60_000 };

/**
 * What a prompt report may take under load. Held lines are read after 2 s of quiet (the
 * monitor's settleAfterMs); an append read at once takes milliseconds.
 */
const promptMs = 8_000;

let env: LiveEnv;
afterEach(async () => {
  await env?.dispose();
});

/** Appends `text` and resolves with how long `rule`'s finding on `file` then took to come. */
async function latency(file: string, text: string, rule: string): Promise<number> {
  const start = Date.now();
  appendFileSync(file, text);
  await waitFor(() => env.announced.some((f) => f.file === file && f.rule === rule), 20_000, `${rule} in ${path.basename(file)}`);
  return Date.now() - start;
}

void test('Claude Code: a result held for a call that may still come is read once the file has been quiet for 2 s, not at the next tick', async () => {
  env = new LiveEnv();
  await env.start(noTick);
  mkdirSync(env.projectDir, { recursive: true });
  const id = 'aaaaaaaa-2222-4000-8000-000000000001';
  const file = path.join(env.projectDir, `${id}.jsonl`);
  const t = new ClaudeTranscript(id, env.workspace).user('go').call('m1', 'toolu_A', 'Bash', { command: 'ls' }).result('toolu_A', 'a').result('toolu_LOST', 'x');
  const lines = t.text().trimEnd().split('\n');
  writeFileSync(file, lines.slice(0, -1).join('\n') + '\n');
  await waitFor(() => env.monitor!.session(file)?.bytes !== undefined && env.monitor!.session(file)!.bytes > 0, 10_000, 'the session read');
  await env.monitor!.idle();
  // Hung from a record the file does not hold: Claude Code writes a result a line before its
  // call at times, so the parser waits for that record while the file is being written.
  const lost = 'ffffffff-0000-4000-8000-000000000099';
  const stray = JSON.stringify({ ...(JSON.parse(lines.at(-1)!) as object), parentUuid: lost, sourceToolAssistantUUID: lost }) + '\n';
  const ms = await latency(file, stray, 'orphan-result');
  assert.ok(ms < promptMs, `the stray result came ${ms} ms after its append`);
});

void test('Amplifier: a stray result and a missing result are reported within moments of the append, as Claude Code\u2019s are', async () => {
  env = new LiveEnv();
  await env.start(noTick);
  const dir = path.join(env.root, '.amplifier', 'projects', amplifierSlug(env.workspace), 'sessions', 'sess-latency');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'transcript.jsonl');
  const line = (m: object): string => JSON.stringify(m) + '\n';
  const prompt = line({ role: 'user', content: 'go' });
  writeFileSync(file, prompt);
  await waitFor(() => env.monitor!.session(file)?.bytes === Buffer.byteLength(prompt), 10_000, 'the session read');
  await env.monitor!.idle();
  // Amplifier's parser holds nothing back: each of these is judged as its line is read.
  const stray = await latency(file, line({ role: 'tool', tool_call_id: 'toolu_X', name: 'bash', content: 'stray' }), 'orphan-result');
  appendFileSync(file, line({ role: 'assistant', content: [], tool_calls: [{ id: 'toolu_B', tool: 'bash', arguments: { command: 'ls' } }] }));
  const missing = await latency(file, line({ role: 'assistant', content: [{ type: 'text', text: 'went on without it' }] }), 'missing-result');
  assert.ok(stray < promptMs && missing < promptMs, `orphan-result ${stray} ms, missing-result ${missing} ms after their appends`);
});

void test('Gemini CLI: a stray result and a missing result in a JSONL session are reported within moments of the append', async () => {
  env = new LiveEnv();
  await env.start(noTick);
  const chats = path.join(env.root, '.gemini', 'tmp', geminiProjectHash(env.workspace), 'chats');
  mkdirSync(chats, { recursive: true });
  const file = path.join(chats, 'session-2026-03-04T07-59-3f2b8c1e.jsonl');
  // Line 7 answers the call of line 6 under another id; line 8 is the next prompt.
  const lines = readFileSync(path.join(repoRoot(), 'test', 'fixtures', 'transcripts', 'gemini', 'orphan-result.jsonl'), 'utf8').trimEnd().split('\n');
  const head = lines.slice(0, 6).join('\n') + '\n';
  writeFileSync(file, head);
  await waitFor(() => env.monitor!.session(file)?.bytes === Buffer.byteLength(head), 10_000, 'the session read');
  await env.monitor!.idle();
  const stray = await latency(file, lines[6]! + '\n', 'orphan-result');
  const missing = await latency(file, lines.slice(7).join('\n') + '\n', 'missing-result');
  assert.ok(stray < promptMs && missing < promptMs, `orphan-result ${stray} ms, missing-result ${missing} ms after their appends`);
});

void test('Gemini CLI legacy: a session document left half-written is judged once the file has been quiet for 2 s, not at the next tick', async () => {
  env = new LiveEnv();
  await env.start(noTick);
  const chats = path.join(env.root, '.gemini', 'tmp', geminiProjectHash(env.workspace), 'chats');
  mkdirSync(chats, { recursive: true });
  const file = path.join(chats, 'session-2026-03-20T10-00-0f0e0d0c.json');
  const doc = JSON.stringify(
    {
      sessionId: '0f0e0d0c-0000-4000-8000-000000000001',
      projectHash: geminiProjectHash(env.workspace),
      startTime: '2026-03-20T10:00:00.000Z',
      lastUpdated: '2026-03-20T10:00:05.000Z',
      messages: [{ id: 'm1', timestamp: '2026-03-20T10:00:00.000Z', type: 'user', content: 'go' }],
    },
    null,
    2,
  );
  // Gemini CLI rewrites the document in place: its writer stopped halfway, and stays so.
  const start = Date.now();
  writeFileSync(file, doc.slice(0, Math.floor(doc.length / 2)));
  await waitFor(() => env.announced.some((f) => f.file === file && f.rule === 'unparseable-line'), 20_000, 'the half-written document reported');
  const ms = Date.now() - start;
  assert.ok(ms < promptMs, `reported ${ms} ms after it was written`);
});
