/**
 * dist/hook.js stays small and self-contained (it starts before every write of every agent),
 * and `agent-guard watch` owns a guard service the hook finds from the workspace path.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { repoRoot } from '../support/repo';
import { waitFor } from '../support/wait';
import { hookScript, payloads, runHook } from './support/guardEnv';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ag-hookbundle-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

void describe('dist/hook.js', () => {
  void test('small, self-contained, and free of zod, chokidar, jsonc-parser and the rules engine', () => {
    const text = readFileSync(hookScript(), 'utf8');
    assert.ok(statSync(hookScript()).size < 100_000, `${statSync(hookScript()).size} bytes`);
    for (const heavy of ['node_modules/zod', 'node_modules/chokidar', 'node_modules/jsonc-parser', 'src/core/engine', 'src/core/parse', 'src/io/liveMonitor']) {
      assert.equal(text.includes(heavy), false, heavy);
    }
    assert.match(text.split('\n')[0]!, /^#!\/usr\/bin\/env node/);
    // Only node built-ins are required at run time.
    const requires = [...text.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!);
    assert.deepEqual(
      requires.filter((r) => !r.startsWith('node:')),
      [],
    );
  });

  void test('`agent-guard hook` (the CLI) behaves like dist/hook.js', async () => {
    const cli = path.join(repoRoot(), 'dist', 'cli.js');
    const r = await new Promise<{ code: number | null; err: string }>((resolve) => {
      const c = spawn(process.execPath, [cli, 'hook', '--agent', 'claude'], { env: { ...process.env, AGENT_GUARD_DIR: path.join(tmp, 'none') } });
      let err = '';
      c.stderr.on('data', (b: Buffer) => (err += b.toString()));
      c.on('close', (code) => resolve({ code, err }));
      c.stdin.end('garbage');
    });
    assert.equal(r.code, 1);
    assert.match(r.err, /hook input is not a hook payload \(stdin is not JSON/);
  });

  void test('a piped payload loads no tty module, and a judged call imports no built-in through the ESM loader', () => {
    // Every hook run pays for what it loads: node:tty pulls in net and streams (~7 ms), and a
    // dynamic import() of a built-in starts Node's ESM loader (a few ms more).
    const text = readFileSync(hookScript(), 'utf8');
    assert.deepEqual([...text.matchAll(/import\("(node:[^"]+)"\)/g)].map((m) => m[1]), ['node:tty'], 'only the terminal check imports a built-in');
    const loaded = path.join(tmp, 'loaded.json');
    const preload = path.join(tmp, 'record-modules.cjs');
    writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(loaded)}, JSON.stringify(process.moduleLoadList)));`);
    const cwd = path.join(tmp, 'piped');
    mkdirSync(cwd, { recursive: true });
    const payload = JSON.stringify({ session_id: 's', transcript_path: path.join(cwd, 't.jsonl'), cwd, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_use_id: 'toolu_1' });
    // (Output to /dev/null: a pipe for stdout or stderr is a net socket of its own.)
    const r = spawnSync(process.execPath, ['--require', preload, hookScript(), '--agent', 'claude'], { input: payload, stdio: ['pipe', 'ignore', 'ignore'], env: { ...process.env, AGENT_GUARD_DIR: path.join(tmp, 'none') } });
    assert.equal(r.status, 0);
    const modules = JSON.parse(readFileSync(loaded, 'utf8')) as string[];
    assert.ok(modules.length > 0);
    assert.deepEqual(
      modules.filter((m) => /^NativeModule (tty|net)$/.test(m)),
      [],
    );
  });

  void test('a terminal on stdin is refused with a message, not waited on', { skip: process.platform === 'win32' || !existsSync('/usr/bin/script') }, () => {
    // `script` gives the hook a pseudo-terminal for stdin, as when someone runs it by hand.
    const command = `${JSON.stringify(process.execPath)} ${JSON.stringify(hookScript())} --agent claude`;
    const r = spawnSync('/usr/bin/script', ['-qec', command, '/dev/null'], { input: '', timeout: 30_000, env: { ...process.env, AGENT_GUARD_DIR: path.join(tmp, 'none') } });
    assert.equal(r.status, 1, `${r.stdout.toString()}${r.stderr.toString()}`);
    assert.match(r.stdout.toString(), /stdin is a terminal; the agent pipes the payload in/);
  });
});

void describe('agent-guard watch owns the guard service', () => {
  void test('prints its socket, answers the hook, shows the decision, and removes the socket on SIGINT', async () => {
    const ws = path.join(tmp, 'ws');
    mkdirSync(path.join(ws, 'src'), { recursive: true });
    const file = path.join(ws, 'src', 'a.ts');
    writeFileSync(file, 'x\n');
    const dir = path.join(tmp, 'gd');
    const child = spawn(process.execPath, [path.join(repoRoot(), 'dist', 'cli.js'), 'watch', '--format', 'jsonl'], {
      cwd: ws,
      env: { ...process.env, HOME: tmp, CLAUDE_CONFIG_DIR: path.join(tmp, 'claude'), CODEX_HOME: path.join(tmp, 'codex'), AGENT_GUARD_DIR: dir, NO_COLOR: '1' },
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    let socket: string | undefined;
    try {
      await waitFor(() => err.includes('Press Ctrl-C'), 15_000, 'the start banner');
      const m = /\n {2}guard +(\S+\.sock)\n/.exec(err);
      assert.ok(m, err);
      socket = m[1]!;
      assert.equal(path.dirname(socket), dir);
      const transcript = path.join(tmp, 'claude', 'projects', 'x', 's1.jsonl');
      const r = await runHook(payloads.claude('PreToolUse', { sessionId: 's1', transcript, cwd: ws }, 'Edit', { file_path: file, old_string: 'x', new_string: 'y' }, 'toolu_1'), ['--agent', 'claude'], { AGENT_GUARD_DIR: dir });
      assert.equal(r.code, 2);
      assert.match(r.stderr, /^src\/a\.ts already exists and you have not read it in this session/);
      await waitFor(() => out.includes('"rule":"guard"'), 5000, 'the decision in watch');
      const row = JSON.parse(out.trim().split('\n').find((l) => l.includes('"rule":"guard"'))!) as { file: string; severity: string; message: string };
      assert.equal(row.file, transcript);
      assert.equal(row.severity, 'error');
      assert.match(row.message, /^The guard denied Edit of src\/a\.ts: the session had never read the existing file/);
    } finally {
      child.kill('SIGINT');
    }
    assert.equal(await exited, 0, err);
    assert.ok(socket);
    assert.equal(existsSync(socket), false, 'the socket is gone');
  });
});
