/**
 * The guard service's own bookkeeping, asked directly (no hook process): which allowed writes
 * count as in flight, and which of the hooks' records a new service takes back from the ledger.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import type { PreRequest } from '../../../src/core/guard/protocol';
import type { Verdict } from '../../../src/core/guard/types';
import { HookLedger, type LedgerEntry } from '../../../src/io/guard/ledger';
import { ledgerPathFor } from '../../../src/io/guard/socketPath';
import { hashText } from '../../../src/io/workTree';
import { GuardEnv } from './support/guardEnv';

let env: GuardEnv | undefined;
afterEach(async () => {
  await env?.dispose();
  env = undefined;
});

async function pre(g: GuardEnv, session: string, ...files: string[]): Promise<Verdict> {
  const request: PreRequest = { v: 1, type: 'pre', agent: 'claude', sessionId: session, transcriptPath: path.join(g.live.root, `${session}.jsonl`), cwd: g.workspace, tool: 'Edit', toolUseId: `toolu_${session}`, paths: files.map((f) => ({ path: f, op: 'edit' as const })) };
  const r = await g.service.handle(request);
  assert.ok(r.ok && r.type === 'verdict', JSON.stringify(r));
  return r.verdict;
}

void describe('guard service', { skip: process.platform === 'win32' ? 'Unix sockets' : false }, () => {
  void test('a write let through with a warning is in flight too: another session writing the file meanwhile is told', async () => {
    env = await new GuardEnv().start({ policy: { 'unread-write': 'warn' } });
    const file = env.file('a.ts', 'one\n');
    const first = await pre(env, 's1', file);
    assert.equal(first.action, 'warn');
    const second = await pre(env, 's2', file);
    assert.equal(second.action, 'deny');
    assert.deepEqual(
      second.hits.map((h) => h.decision),
      ['concurrent-write', 'unread-write'],
    );
  });

  void test('two sessions asking at once: the one judged second sees the first one’s write in flight', async () => {
    env = await new GuardEnv().start({ policy: { 'unread-write': 'off' } });
    const file = env.file('a.ts', 'one\n');
    // The first call writes more files: judged side by side, the second was decided (and its
    // write started) while the first was still looking at its other files, and both went ahead.
    const others = [env.file('b.ts', 'b\n'), env.file('c.ts', 'c\n'), env.file('d.ts', 'd\n')];
    const verdicts = await Promise.all([pre(env, 's1', file, ...others), pre(env, 's2', file)]);
    assert.deepEqual(
      verdicts.map((v) => v.action),
      ['allow', 'deny'],
    );
  });

  void test('its own write in flight, not yet reported done, is neither another session’s nor a change behind its back', async () => {
    env = await new GuardEnv().start();
    const file = env.file('a.ts', 'one\n');
    const transcript = path.join(env.live.root, 's1.jsonl');
    await env.service.handle({ v: 1, type: 'post', agent: 'claude', sessionId: 's1', transcriptPath: transcript, cwd: env.workspace, tool: 'Read', toolUseId: 'toolu_read', paths: [{ path: file, op: 'read', hash: hashText('one\n') }] });
    assert.equal((await pre(env, 's1', file)).action, 'allow');
    // The edit lands; the hook's report of it has not come (yet) when the session edits again.
    env.file('a.ts', 'two\n');
    const again = await pre(env, 's1', file);
    assert.deepEqual([again.action, again.hits.map((h) => h.decision)], ['allow', []]);
  });

  void test('a read that failed is no read: the write after it is of a file never read', async () => {
    env = await new GuardEnv().start();
    const file = env.file('a.ts', 'one\n');
    const transcript = path.join(env.live.root, 's1.jsonl');
    await env.service.handle({ v: 1, type: 'post', failed: true, agent: 'claude', sessionId: 's1', transcriptPath: transcript, cwd: env.workspace, tool: 'Read', toolUseId: 'toolu_read', paths: [{ path: file, op: 'read', hash: hashText('one\n') }] });
    assert.deepEqual(
      (await pre(env, 's1', file)).hits.map((h) => h.decision),
      ['unread-write'],
    );
  });

  void test('the writes in flight `repair` asks for: a call the hook named by id, and one it did not (no id of ours given out)', async () => {
    env = await new GuardEnv().start({ policy: { 'unread-write': 'off' } });
    const transcript = path.join(env.live.root, 's1.jsonl');
    const named = env.file('a.ts', 'a\n');
    const unnamed = env.file('b.ts', 'b\n');
    assert.equal((await pre(env, 's1', named)).action, 'allow');
    const r = await env.service.handle({ v: 1, type: 'pre', agent: 'gemini', sessionId: 's1', transcriptPath: transcript, cwd: env.workspace, tool: 'write_file', paths: [{ path: unnamed, op: 'write' }] });
    assert.equal(r.ok && r.type === 'verdict' && r.verdict.action, 'allow');
    const asked = await env.service.handle({ v: 1, type: 'inflight', transcriptPath: transcript });
    assert.ok(asked.ok && asked.type === 'inflight');
    assert.deepEqual(
      asked.writes.map((w) => [w.path, w.callId]).sort(),
      [
        [named, 'toolu_s1'],
        [unnamed, undefined],
      ],
    );
  });

  void test('a service that stops says so in the ledger: calls after it are not taken as served', async () => {
    env = await new GuardEnv().start();
    const started = Date.now();
    assert.equal(env.ledger.servedThrough(started + 60_000, started + 61_000), true, 'serving until it stops');
    await env.service.close();
    assert.equal(env.ledger.servedThrough(started + 60_000, started + 61_000), false);
  });

  void test('a restarted service takes back a session’s last hashed read, not a failed call’s report nor a read without a hash', async () => {
    env = new GuardEnv();
    const file = env.file('a.ts', 'one\n');
    const transcript = path.join(env.live.root, 's1.jsonl');
    mkdirSync(env.dir, { recursive: true, mode: 0o700 });
    const ledger = await HookLedger.open(ledgerPathFor(env.workspace, env.dir));
    const now = Date.now();
    const report = (at: number, op: 'read' | 'edit', hash: string | null | undefined, extra: Partial<LedgerEntry> = {}): void => {
      ledger.record({ kind: 'post', at, agent: 'claude', sessionId: 's1', transcriptPath: transcript, tool: op === 'read' ? 'Read' : 'Edit', toolUseId: `toolu_${at}`, seq: ledger.nextSeq(), paths: [{ path: file, op, ...(hash !== undefined ? { hash } : {}) }], ...extra });
    };
    // The session read "one"; the file then became "two" while no guard ran. The session's
    // later reports say nothing of "two": an edit that failed, found it there; a read carried no hash.
    report(now - 3000, 'read', hashText('one\n'));
    env.file('a.ts', 'two\n');
    report(now - 2000, 'edit', hashText('two\n'), { failed: true });
    report(now - 1000, 'read', undefined);
    await ledger.flush();
    await env.start();
    const v = await pre(env, 's1', file);
    assert.equal(v.action, 'deny');
    assert.deepEqual(
      v.hits.map((h) => h.decision),
      ['stale-write'],
    );
  });
});
