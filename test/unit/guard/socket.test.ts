/**
 * The guard socket: private to its user (0700 directory, 0600 socket, checked — other users
 * are refused by the kernel, and a directory anyone else could enter is refused by us), a
 * stale socket left by a crashed run is replaced, a live one never is.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { AgentGuardError } from '../../../src/core/lib/errors';
import { askService } from '../../../src/io/guard/client';
import { HookLedger } from '../../../src/io/guard/ledger';
import { GuardService } from '../../../src/io/guard/service';
import { checkGuardDir, socketPathFor } from '../../../src/io/guard/socketPath';
import { LiveEnv } from '../support/liveEnv';
import { waitFor } from '../support/wait';
import { payloads, runHook } from './support/guardEnv';

let env: LiveEnv | undefined;
const services: GuardService[] = [];
afterEach(async () => {
  for (const s of services.splice(0)) {
    await s.close();
  }
  await env?.dispose();
  env = undefined;
});

async function start(dir: string): Promise<GuardService> {
  env ??= new LiveEnv();
  const monitor = env.monitor ?? (await env.start({ hookLedger: HookLedger.memory() }));
  const s = await GuardService.start({ workspace: env.workspace, monitor, ledger: HookLedger.memory(), dir, logger: logTo(env.logs) });
  services.push(s);
  return s;
}

function logTo(logs: string[]): { trace(): void; debug(): void; info(m: string): void; warn(m: string): void; error(m: string | Error): void } {
  return { trace: () => {}, debug: () => {}, info: (m) => logs.push(`info ${m}`), warn: (m) => logs.push(`warn ${m}`), error: (m) => logs.push(`error ${String(m)}`) };
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const nobody = 65534;

/** A process that listens on `sock` and dies without cleaning up, leaving its socket file. */
async function leaveDeadSocket(sock: string): Promise<void> {
  const crashed = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(sock)}, () => console.log('up'))`]);
  await new Promise<void>((resolve) => crashed.stdout.once('data', () => resolve()));
  crashed.kill('SIGKILL');
  await new Promise<void>((resolve) => crashed.once('exit', () => resolve()));
}

void describe('guard socket', { skip: process.platform === 'win32' ? 'Unix sockets' : false }, () => {
  void test('directory 0700 and socket 0600, owned by the user; closed = removed', async () => {
    env = new LiveEnv();
    const dir = path.join(env.root, 'gd');
    const s = await start(dir);
    const d = statSync(dir);
    const sock = statSync(s.socketPath!);
    assert.equal(d.mode & 0o777, 0o700);
    assert.equal(sock.isSocket(), true);
    assert.equal(sock.mode & 0o777, 0o600);
    assert.equal(sock.uid, process.getuid!());
    assert.equal(s.socketPath, socketPathFor(env.workspace, dir));
    const pong = await askService(s.socketPath, { v: 1, type: 'ping' }, 1000);
    assert.equal(pong.kind === 'answer' && pong.response.ok && pong.response.type === 'pong' && pong.response.service.pid, process.pid);
    await s.close();
    services.splice(0);
    assert.equal(existsSync(s.socketPath), false);
  });

  void test('another user cannot connect', { skip: isRoot ? false : 'needs root to act as another user' }, async () => {
    env = new LiveEnv();
    const s = await start(path.join(env.root, 'gd'));
    // Root ignores permission bits: ask as "nobody", as any other local user would.
    const probe = `const c=require('net').createConnection(${JSON.stringify(s.socketPath)});c.on('connect',()=>{console.log('CONNECTED');process.exit(0)});c.on('error',e=>{console.log(e.code);process.exit(0)})`;
    const r = await new Promise<string>((resolve) => {
      const child = spawn('setpriv', [`--reuid=${nobody}`, `--regid=${nobody}`, '--clear-groups', process.execPath, '-e', probe]);
      let out = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      child.on('close', () => resolve(out.trim()));
    });
    assert.equal(r, 'EACCES');
    // With the directory opened up, the socket's own 0600 still says no.
    chmodSync(path.dirname(s.socketPath!), 0o755);
    const again = spawnSync('setpriv', [`--reuid=${nobody}`, `--regid=${nobody}`, '--clear-groups', process.execPath, '-e', probe], { encoding: 'utf8' });
    assert.equal(again.stdout.trim(), 'EACCES');
  });

  void test('a directory another user could enter, or that belongs to someone else, is refused (service and hook)', async () => {
    env = new LiveEnv();
    const open = path.join(env.root, 'open');
    mkdirSync(open, { mode: 0o700 });
    chmodSync(open, 0o755);
    await assert.rejects(start(open), (e: unknown) => AgentGuardError.is(e, 'permission') && /refusing to use .*open for the guard socket: it has mode 0755; it must be 0700/.test(e.message));
    assert.match(checkGuardDir(open)!.problem, /mode 0755/);
    if (isRoot) {
      const theirs = path.join(env.root, 'theirs');
      mkdirSync(theirs, { mode: 0o700 });
      chownSync(theirs, nobody, nobody);
      await assert.rejects(start(theirs), (e: unknown) => AgentGuardError.is(e, 'permission') && /belongs to user 65534, not to this user \(0\)/.test(e.message));
    }
    // A service already running whose directory was opened up afterwards: the hook will not talk to it.
    const dir = path.join(env.root, 'gd');
    await start(dir);
    chmodSync(dir, 0o777);
    const file = path.join(env.workspace, 'a.ts');
    const r = await runHook(payloads.claude('PreToolUse', { sessionId: 's', transcript: path.join(env.root, 's.jsonl'), cwd: env.workspace }, 'Write', { file_path: file, content: 'x' }, 't'), ['--agent', 'claude'], { AGENT_GUARD_DIR: dir });
    assert.equal(r.code, 0);
    assert.match((JSON.parse(r.stdout) as { systemMessage: string }).systemMessage, /the guard directory .*gd has mode 0777; it must be 0700 \(only its owner may enter it\), so no service in it can be trusted; allowing the write/);
    const closed = await runHook(payloads.claude('PreToolUse', { sessionId: 's', transcript: path.join(env.root, 's.jsonl'), cwd: env.workspace }, 'Write', { file_path: file, content: 'x' }, 't'), ['--agent', 'claude', '--fail-closed'], { AGENT_GUARD_DIR: dir });
    assert.equal(closed.code, 2);
  });

  void test('a stale socket from a crashed run is removed; a live one is never taken over', async () => {
    env = new LiveEnv();
    const dir = path.join(env.root, 'gd');
    mkdirSync(dir, { mode: 0o700 });
    const sock = socketPathFor(env.workspace, dir);
    await leaveDeadSocket(sock);
    assert.equal(statSync(sock).isSocket(), true, 'the dead run left its socket behind');
    const s = await start(dir);
    assert.ok(env.logs.some((l) => /removed a stale socket left by an earlier run/.test(l)));
    const pong = await askService(sock, { v: 1, type: 'ping' }, 1000);
    assert.equal(pong.kind, 'answer');
    // A second service for the same workspace (the extension and `watch` at once): refused, the first keeps serving.
    await assert.rejects(start(dir), (e: unknown) => AgentGuardError.is(e, 'refused') && /already listening for this workspace/.test(e.message));
    await waitFor(async () => (await askService(s.socketPath!, { v: 1, type: 'ping' }, 1000)).kind === 'answer', 2000, 'the first service still answering');
  });

  void test('two hosts finding the same stale socket at once: one serves, the other is refused', async () => {
    env = new LiveEnv();
    const dir = path.join(env.root, 'gd');
    mkdirSync(dir, { mode: 0o700 });
    const sock = socketPathFor(env.workspace, dir);
    await leaveDeadSocket(sock);
    await env.start({ hookLedger: HookLedger.memory() });
    // Both probe the dead file before either removes it (two hosts waiting to take over).
    const results = await Promise.allSettled([start(dir), start(dir)]);
    const served = results.filter((r) => r.status === 'fulfilled');
    assert.equal(served.length, 1, `exactly one serves: ${results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'served')).join('; ')}`);
    const refused = results.find((r) => r.status === 'rejected');
    assert.ok(refused && AgentGuardError.is(refused.reason, 'refused'), String(refused?.reason));
    assert.equal((await askService(sock, { v: 1, type: 'ping' }, 1000)).kind, 'answer');
  });

  void test('requests are validated and versioned', async () => {
    env = new LiveEnv();
    const s = await start(path.join(env.root, 'gd'));
    const newer = await askService(s.socketPath!, { v: 2, type: 'ping' } as unknown as Parameters<typeof askService>[1], 1000);
    assert.deepEqual(newer.kind === 'answer' ? newer.response : newer, { v: 1, ok: false, error: 'unsupported protocol version 2 (this service speaks 1)' });
    const bad = await askService(s.socketPath!, { v: 1, type: 'pre', agent: 'claude', sessionId: 's', cwd: '/p', tool: 'Edit', paths: [{ path: 'relative.ts', op: 'edit' }] }, 1000);
    assert.equal(bad.kind === 'answer' && !bad.response.ok && bad.response.error, 'paths.0.path: paths must be absolute');
  });

  void test('a request line is read up to 1 MiB: many long paths are answered, a longer line is refused', async () => {
    env = new LiveEnv();
    const s = await start(path.join(env.root, 'gd'));
    const call = { v: 1 as const, type: 'pre' as const, agent: 'claude' as const, sessionId: 's', cwd: env.workspace, tool: 'Edit' };
    const long = (n: number, len: number): { path: string; op: 'edit' }[] => Array.from({ length: n }, (_, i) => ({ path: `${env!.workspace}/${String(i).padStart(len, 'x')}.ts`, op: 'edit' }));
    // About 200 KB: well past a small buffer, well under the bound.
    const many = await askService(s.socketPath!, { ...call, paths: long(50, 4000) }, 5000);
    assert.equal(many.kind === 'answer' && many.response.ok && many.response.type, 'verdict');
    // About 1.6 MB (each path within its own bound of 8192 characters).
    const past = await askService(s.socketPath!, { ...call, paths: long(200, 8000) }, 5000);
    assert.deepEqual(past.kind === 'answer' ? past.response : past, { v: 1, ok: false, error: 'request longer than 1048576 bytes' });
  });
});
