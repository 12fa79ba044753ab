/**
 * The hook command the extension installs runs a shim in its global storage that loads the
 * current version's dist/hook.js (an update deletes the old version's folder), and the status
 * compares what the settings hold with what the extension would install.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { hookCommand, hookSpecs, planInstall } from '../../../src/core/hooks/install';
import { hookShimName, writeHookShim } from '../../../src/vscode/guard/hookShim';
import { hookState, needsRepair, scriptOf } from '../../../src/core/hooks/state';
import { hookScript } from '../guard/support/guardEnv';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ag-hookshim-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function run(script: string, args: string[], input: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env: { PATH: process.env.PATH ?? '', AGENT_GUARD_DIR: path.join(tmp, 'no-guard-dir'), ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

const write = JSON.stringify({
  session_id: 's1',
  transcript_path: '/nonexistent/t.jsonl',
  cwd: tmp,
  hook_event_name: 'PreToolUse',
  tool_name: 'Write',
  tool_input: { file_path: path.join(tmp, 'a.ts'), content: 'x' },
  tool_use_id: 'toolu_1',
});

void describe('the hook shim', () => {
  void test('runs the hook it points to, with its arguments and stdin', async () => {
    const shim = await writeHookShim(path.join(tmp, 'storage-a'), hookScript(), '9.9.9');
    assert.equal(path.basename(shim), hookShimName);
    const invalid = await run(shim, ['--agent-guard', '--agent', 'claude'], 'not json');
    assert.equal(invalid.code, 1);
    assert.match(invalid.stderr, /not a hook payload/);
    // No service: allowed with a note, or denied with --fail-closed — the hook's own answers.
    const open = await run(shim, ['--agent-guard', '--agent', 'claude'], write);
    assert.equal(open.code, 0, open.stderr);
    assert.match((JSON.parse(open.stdout) as { systemMessage: string }).systemMessage, /no guard service is running/);
    const closed = await run(shim, ['--agent-guard', '--agent', 'claude', '--fail-closed'], write);
    assert.equal(closed.code, 2, closed.stderr);
    assert.match(closed.stdout + closed.stderr, /fail closed/);
  });

  void test('its target gone: a note, and a block only when installed to fail closed', async () => {
    const shim = await writeHookShim(path.join(tmp, 'storage-b'), path.join(tmp, 'gone', 'dist', 'hook.js'), '9.9.9');
    const open = await run(shim, ['--agent-guard', '--agent', 'claude'], write);
    assert.equal(open.code, 0);
    assert.match(open.stderr, /is missing .*not checked/);
    assert.match((JSON.parse(open.stdout) as { systemMessage: string }).systemMessage, /is missing .*not checked/);
    const closed = await run(shim, ['--agent-guard', '--agent', 'claude', '--fail-closed'], write);
    assert.equal(closed.code, 2);
    assert.match(closed.stderr, /fail closed, so the write was blocked/);
    const env = await run(shim, ['--agent-guard', '--agent', 'claude'], write, { AGENT_GUARD_FAIL_CLOSED: '1' });
    assert.equal(env.code, 2);
  });

  void test('written once per content; a new target rewrites it', async () => {
    const dir = path.join(tmp, 'storage-c');
    const shim = await writeHookShim(dir, '/x/one/dist/hook.js', '1.0.0');
    const first = statSync(shim).mtimeMs;
    await new Promise((r) => setTimeout(r, 20));
    await writeHookShim(dir, '/x/one/dist/hook.js', '1.0.0');
    assert.equal(statSync(shim).mtimeMs, first, 'not rewritten');
    await writeHookShim(dir, '/x/two/dist/hook.js', '1.0.1');
    assert.match(readFileSync(shim, 'utf8'), /"\/x\/two\/dist\/hook\.js"/);
  });
});

void describe('hookState', () => {
  const spec = hookSpecs.claude;
  const shim = '/home/u/.vscode/globalStorage/agent-session-guard.agent-session-guard/hook.js';
  const installed = (script: string, failClosed = false): string => planInstall(undefined, spec, hookCommand(script, 'claude', { failClosed })).after!;
  const exists = (p: string): boolean => !p.startsWith('/gone/');

  void test('none, current (with or without --fail-closed), and unreadable', () => {
    assert.equal(hookState(undefined, spec, { script: shim, exists }).kind, 'not-installed');
    assert.equal(hookState('{"permissions": {}}', spec, { script: shim, exists }).kind, 'not-installed');
    assert.equal(hookState(installed(shim), spec, { script: shim, exists }).kind, 'current');
    assert.equal(hookState(installed(shim, true), spec, { script: shim, exists }).kind, 'current');
    assert.equal(hookState('{"hooks": ', spec, { script: shim, exists }).kind, 'unreadable');
  });

  void test('an entry whose script is gone needs a repair (it used to count as installed)', () => {
    const old = '/gone/extensions/agent-session-guard.agent-session-guard-0.1.0/dist/hook.js';
    const s = hookState(installed(old), spec, { script: shim, exists });
    assert.deepEqual(s, { kind: 'missing-script', script: old });
    assert.ok(needsRepair(s));
  });

  void test('an entry in a versioned extension folder needs a repair before the next update', () => {
    const own = '/home/u/.vscode/extensions/agent-session-guard.agent-session-guard-0.1.0/dist/hook.js';
    const s = hookState(installed(own), spec, { script: shim, exists });
    assert.deepEqual(s, { kind: 'versioned', script: own });
    assert.ok(needsRepair(s));
  });

  void test('an entry installed another way (the CLI) is reported, not repaired', () => {
    const cli = '/usr/lib/node_modules/agent-session-guard/dist/hook.js';
    const s = hookState(installed(cli), spec, { script: shim, exists });
    assert.equal(s.kind, 'other');
    assert.ok(!needsRepair(s));
    assert.equal(scriptOf(hookCommand(cli, 'claude')), cli);
  });
});
