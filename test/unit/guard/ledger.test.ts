/** The hook ledger as the rules see it (HookLedgerView) and the guard rule's findings from it. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { inputHash } from '../../../src/core/lib/hash';
import { HookLedger } from '../../../src/io/guard/ledger';
import { ClaudeTranscript } from '../support/claude';
import { run } from '../support/run';

const cwd = '/home/dev/proj';
const file = `${cwd}/a.ts`;

function gemini(args: Record<string, unknown>, id: string): string {
  return (
    [
      JSON.stringify({ sessionId: 'g1', projectHash: 'p', startTime: '2026-03-02T09:14:02.311Z', lastUpdated: '2026-03-02T09:14:02.311Z' }),
      JSON.stringify({ id: 'u1', timestamp: '2026-03-02T09:14:05.120Z', type: 'user', content: [{ text: 'go' }] }),
      JSON.stringify({ id: 'm1', timestamp: '2026-03-02T09:14:09.480Z', type: 'gemini', content: '', toolCalls: [{ id, name: 'write_file', args, result: null, status: 'executing', timestamp: '2026-03-02T09:14:09.501Z' }] }),
    ].join('\n') + '\n'
  );
}

void describe('hook ledger', () => {
  void test('covers and lookup by session and call id', () => {
    const l = HookLedger.memory();
    assert.equal(l.covers('s1'), false);
    l.record({ kind: 'pre', at: 5, agent: 'claude', sessionId: 's1', tool: 'Edit', toolUseId: 'toolu_1', inputHash: 'ab'.repeat(16), seq: l.nextSeq(), paths: [{ path: file, op: 'edit' }], verdict: { action: 'allow', hits: [] } });
    assert.equal(l.covers('s1'), true);
    assert.deepEqual(l.lookup('s1', 'toolu_1'), { tool: 'Edit', inputHash: 'ab'.repeat(16), at: 5 });
    assert.equal(l.lookup('s1', 'toolu_2'), undefined);
  });

  void test('a rotated ledger still knows the calls approved before the rotation', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ag-ledger-'));
    try {
      const f = path.join(dir, 'ledger.jsonl');
      const pre = (l: HookLedger, id: string): void => {
        l.record({ kind: 'pre', at: 5, agent: 'claude', sessionId: 's1', tool: 'Edit', toolUseId: id, inputHash: 'ab'.repeat(16), seq: l.nextSeq(), paths: [{ path: file, op: 'edit' }], verdict: { action: 'allow', hits: [] } });
      };
      const before = await HookLedger.open(f);
      pre(before, 'toolu_before');
      await before.flush();
      // Other records fill the file up to just under the rotation size (8 MB): the next one rotates it.
      const head = readFileSync(f, 'utf8');
      const frame = '{"v":0,"pad":""}\n';
      writeFileSync(f, head + frame.replace('""', `"${'p'.repeat(8 * 1024 * 1024 - 50 - head.length - frame.length)}"`));
      const during = await HookLedger.open(f);
      pre(during, 'toolu_after');
      await during.flush();
      assert.ok(existsSync(f + '.1'), 'rotated');
      assert.ok(!readFileSync(f, 'utf8').includes('toolu_before'), 'the session’s records are split between the two files');

      for (const reloaded of [await HookLedger.open(f), await HookLedger.load(f)]) {
        assert.equal(reloaded.covers('s1'), true);
        assert.deepEqual(reloaded.lookup('s1', 'toolu_before'), { tool: 'Edit', inputHash: 'ab'.repeat(16), at: 5 });
        assert.ok(reloaded.lookup('s1', 'toolu_after'));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void test('the guard rule reports a decision on its call’s line (by call id), and `check` without a ledger stays silent', () => {
    const l = HookLedger.memory();
    const input = { file_path: file, old_string: 'a', new_string: 'b', replace_all: false };
    l.record({
      kind: 'pre',
      at: 5,
      agent: 'claude',
      sessionId: 's1',
      transcriptPath: '/t/s1.jsonl',
      tool: 'Edit',
      toolUseId: 'toolu_1',
      inputHash: inputHash(input),
      seq: l.nextSeq(),
      paths: [{ path: file, op: 'edit' }],
      verdict: { action: 'deny', hits: [{ decision: 'unread-write', action: 'deny', path: file, reason: 'a.ts already exists and you have not read it in this session. Read it first, then redo the edit.' }] },
    });
    const t = new ClaudeTranscript('s1', cwd).user('go').call('m1', 'toolu_1', 'Edit', input).result('toolu_1', 'denied', { isError: true });
    const withLedger = run(t.text(), { services: { hookLedger: l }, mode: 'live' }).findings.filter((f) => f.rule === 'guard');
    assert.deepEqual(
      withLedger.map((f) => [f.messageId, f.line, f.severity, f.callId]),
      [['unread-write', t.lineOf('toolu_1'), 'error', 'toolu_1']],
    );
    assert.match(withLedger[0]!.message, /^The guard denied Edit of a\.ts: the session had never read the existing file\. The agent was told: a\.ts already exists/);
    assert.deepEqual(
      run(t.text()).findings.filter((f) => f.rule === 'guard'),
      [],
    );
  });

  void test('hooks without call ids (Gemini): a sub-agent’s call is not matched with its main session’s decision, nor the reverse', () => {
    // Both transcripts' hooks give the main session's id (the service files the sub-agent's calls
    // under its own transcript); the main session's write was denied, the sub-agent then made the
    // same call and was allowed.
    const l = HookLedger.memory();
    const args = { file_path: file, content: 'x' };
    const chats = '/home/dev/.gemini/tmp/proj/chats';
    const main = `${chats}/session-2026-03-02T09-14-g1.jsonl`;
    const sub = `${chats}/g1/s2.jsonl`;
    const pre = (transcriptPath: string, reason: string | undefined): void => {
      l.record({
        kind: 'pre',
        at: 5,
        agent: 'gemini',
        sessionId: 'g1',
        transcriptPath,
        tool: 'write_file',
        inputHash: inputHash(args),
        seq: l.nextSeq(),
        paths: [{ path: file, op: 'write' }],
        verdict: reason === undefined ? { action: 'allow', hits: [] } : { action: 'deny', hits: [{ decision: 'stale-write', action: 'deny', path: file, reason }] },
      });
    };
    pre(main, 'main');
    pre(sub, undefined);
    const call = (callId: string) => ({ callId, tool: 'write_file', inputHash: inputHash(args) });
    // The sub-agent's transcript is read first (check --workspace, a sleeping session rebuilt).
    assert.deepEqual(l.decisionsFor({ sessionId: 's2', transcript: sub }, call('s2#0-0')), []);
    assert.deepEqual(
      l.decisionsFor({ sessionId: 'g1', transcript: main }, call('write_file-1')).map((d) => d.reason),
      ['main'],
    );
  });

  void test('decisionsIn: each objection filed under the transcript the hook named, with its call (an id-less one once matched); read back from the file too', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ag-ledger-'));
    try {
      const ledgerFile = path.join(dir, 'l.jsonl');
      const l = await HookLedger.open(ledgerFile);
      const args = { file_path: file, content: 'x' };
      const deny = (reason: string) => ({ action: 'deny' as const, hits: [{ decision: 'unread-write' as const, action: 'deny' as const, path: file, reason }] });
      const base = { kind: 'pre' as const, at: 5, tool: 'Write', inputHash: inputHash(args), paths: [{ path: file, op: 'write' as const }] };
      l.record({ ...base, agent: 'claude', sessionId: 'c1', transcriptPath: '/t/c1.jsonl', toolUseId: 'toolu_1', seq: l.nextSeq(), verdict: deny('claude') });
      l.record({ ...base, agent: 'claude', sessionId: 'c1', transcriptPath: '/t/c1.jsonl', toolUseId: 'toolu_2', seq: l.nextSeq(), verdict: { action: 'allow', hits: [] } });
      l.record({ ...base, agent: 'gemini', sessionId: 'g1', transcriptPath: '/t/g1.jsonl', seq: l.nextSeq(), verdict: deny('gemini') });
      l.record({ ...base, agent: 'claude', sessionId: 'c9', seq: l.nextSeq(), verdict: deny('no transcript') });
      const filed = (v: HookLedger, transcript: string) => v.decisionsIn(transcript).map((d) => `${d.callId ?? '-'}:${d.record.reason}`);
      assert.deepEqual(filed(l, '/t/c1.jsonl'), ['toolu_1:claude']);
      assert.deepEqual(filed(l, '/t/g1.jsonl'), ['-:gemini']);
      l.decisionsFor({ sessionId: 'g1', transcript: '/t/g1.jsonl' }, { callId: 'write_file-1', tool: 'write_file', inputHash: inputHash(args) });
      assert.deepEqual(filed(l, '/t/g1.jsonl'), ['write_file-1:gemini']);
      assert.deepEqual(filed(l, '/t/other.jsonl'), []);
      await l.flush();
      assert.deepEqual(filed(await HookLedger.load(ledgerFile), '/t/c1.jsonl'), ['toolu_1:claude']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void test('hooks without call ids (Gemini): matched by input hash, each decision to one call', () => {
    const l = HookLedger.memory();
    const args = { file_path: file, content: 'x' };
    for (const reason of ['first', 'second']) {
      l.record({
        kind: 'pre',
        at: 5,
        agent: 'gemini',
        sessionId: 'g1',
        tool: 'write_file',
        inputHash: inputHash(args),
        seq: l.nextSeq(),
        paths: [{ path: file, op: 'write' }],
        verdict: { action: 'warn', hits: [{ decision: 'stale-write', action: 'warn', path: file, reason }] },
      });
    }
    const a = l.decisionsFor({ sessionId: 'g1', transcript: '/g.json' }, { callId: 'write_file-1', tool: 'write_file', inputHash: inputHash(args) });
    const b = l.decisionsFor({ sessionId: 'g1', transcript: '/g.json' }, { callId: 'write_file-2', tool: 'write_file', inputHash: inputHash(args) });
    const again = l.decisionsFor({ sessionId: 'g1', transcript: '/g.json' }, { callId: 'write_file-1', tool: 'write_file', inputHash: inputHash(args) });
    assert.deepEqual([a.map((d) => d.reason), b.map((d) => d.reason), again.map((d) => d.reason)], [['first'], ['second'], ['first']]);
    // Through the rule: a Gemini transcript's call finds the id-less decision by its input.
    const l2 = HookLedger.memory();
    l2.record({
      kind: 'pre',
      at: 5,
      agent: 'gemini',
      sessionId: 'g1',
      tool: 'write_file',
      inputHash: inputHash(args),
      seq: l2.nextSeq(),
      paths: [{ path: file, op: 'write' }],
      verdict: { action: 'deny', hits: [{ decision: 'dirty-buffer', action: 'deny', path: file, reason: 'unsaved' }] },
    });
    const found = run(gemini(args, 'write_file-3'), { services: { hookLedger: l2 }, agent: 'gemini', mode: 'live' }).findings.filter((f) => f.rule === 'guard');
    assert.deepEqual(
      found.map((f) => [f.messageId, f.line, f.callId]),
      [['dirty-buffer', 3, 'write_file-3']],
    );
  });

  void test('serving marks: a run read back served from its first mark to its stop, or a little past its last mark', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ag-ledger-'));
    try {
      const f = path.join(dir, 'ledger.jsonl');
      const min = 60_000;
      const first = await HookLedger.open(f);
      // Written before serving marks existed: every call is judged, as then.
      assert.equal(first.servedThrough(0, 1), true);
      first.markServing(10 * min);
      first.markServing(15 * min);
      first.markStopped(17 * min);
      // Its own run again after a stop (a settings change hands the ledger on): a new stretch.
      first.markServing(30 * min);
      assert.equal(first.servedThrough(40 * min, 10_000 * min), true, 'its own serving run is open-ended');
      await first.flush();
      const crashed = await HookLedger.open(f);
      crashed.markServing(50 * min);
      crashed.markServing(55 * min);
      await crashed.flush();

      const back = await HookLedger.load(f);
      const served = (from: number, to: number): boolean => back.servedThrough(from * min, to * min);
      assert.deepEqual(
        [served(10, 17), served(9, 11), served(16, 18), served(20, 21), served(50, 56), served(50, 57), served(61, 62)],
        [true, false, false, false, true, false, false],
      );
      // The first run's second stretch has no stop and no later mark: read back, it ended at most
      // a minute and a half after its start, like the crashed one's.
      assert.deepEqual([served(30, 31), served(30, 32)], [true, false]);
      // A record that is no hook call is no covered session.
      assert.equal(back.covers('s1'), false);

      // A host hands the service over (a settings change, a takeover): a few seconds apart, the
      // two stretches are one, and a call made just before the hand-over is judged.
      const handed = HookLedger.memory();
      handed.markServing(100 * min);
      handed.markStopped(110 * min);
      const next = HookLedger.memory();
      for (const l of [handed]) {
        l.markServing(110 * min + 5_000);
      }
      assert.equal(handed.servedThrough(109.5 * min, 110.5 * min), true, 'across the hand-over');
      assert.equal(next.servedThrough(0, 1), true, 'a ledger with no mark judges everything');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void test('unapproved-call and unbound-result judge only what a serving guard could have recorded', () => {
    const sid = 'aaaaaaaa-0000-4000-8000-000000000001';
    const t0 = Date.parse('2026-02-12T14:00:00.000Z');
    const edit = { file_path: file, old_string: 'a', new_string: 'b', replace_all: false };
    const l = HookLedger.memory();
    l.markServing(t0);
    l.record({ kind: 'pre', at: t0 + 2000, agent: 'claude', sessionId: sid, tool: 'Edit', toolUseId: 'toolu_OK', inputHash: inputHash(edit), seq: l.nextSeq(), paths: [{ path: file, op: 'edit' }] });
    l.markStopped(t0 + 5 * 60_000);
    const t = new ClaudeTranscript(sid, cwd)
      .user('go')
      .call('m1', 'toolu_OK', 'Edit', edit)
      .result('toolu_OK', 'ok')
      // Made while the service answered, and never reported: around the hook.
      .call('m2', 'toolu_AROUND', 'Edit', edit)
      .result('toolu_AROUND', 'ok')
      // Made after it stopped (its host closed): the hook answered alone and recorded nothing.
      .later(10 * 60_000)
      .call('m3', 'toolu_DOWN', 'Edit', edit)
      .result('toolu_DOWN', 'ok')
      .result('toolu_GHOST', 'no call anywhere');
    const bound = (ledger: HookLedger): string[] =>
      run(t.text(), { services: { hookLedger: ledger }, mode: 'live' })
        .findings.filter((x) => x.rule === 'unapproved-call' || x.rule === 'unbound-result')
        .map((x) => `${x.rule}@${x.line}`);
    assert.deepEqual(bound(l), [`unapproved-call@${t.lineOf('toolu_AROUND')}`]);
    // The same ledger with no serving marks (an older version wrote it): all of it is judged.
    const legacy = HookLedger.memory();
    legacy.record({ kind: 'pre', at: t0 + 2000, agent: 'claude', sessionId: sid, tool: 'Edit', toolUseId: 'toolu_OK', inputHash: inputHash(edit), seq: legacy.nextSeq(), paths: [{ path: file, op: 'edit' }] });
    assert.deepEqual(bound(legacy), [`unapproved-call@${t.lineOf('toolu_AROUND')}`, `unapproved-call@${t.lineOf('toolu_DOWN')}`, `unbound-result@${t.lineOf('toolu_GHOST')}`]);
  });

  void test('a call’s post-tool record leaves what its pre-tool one approved (tool, input hash, time)', () => {
    const l = HookLedger.memory();
    const call = { agent: 'claude' as const, sessionId: 's1', tool: 'Edit', toolUseId: 'toolu_1', paths: [{ path: file, op: 'edit' as const }] };
    l.record({ ...call, kind: 'pre', at: 5, inputHash: 'ab'.repeat(16), seq: l.nextSeq(), verdict: { action: 'allow', hits: [] } });
    l.record({ ...call, kind: 'post', at: 9, seq: l.nextSeq() });
    assert.deepEqual(l.lookup('s1', 'toolu_1'), { tool: 'Edit', inputHash: 'ab'.repeat(16), at: 5 });
  });

  void test('decisionsFor: every objection to an id-less call goes to the call matched; a transcript the hooks filed under another session id still finds its own', () => {
    const l = HookLedger.memory();
    const args = { file_path: file, content: 'x' };
    const hits = [
      { decision: 'dirty-buffer' as const, action: 'deny' as const, path: file, reason: 'unsaved' },
      { decision: 'unread-write' as const, action: 'deny' as const, path: file, reason: 'unread' },
    ];
    const base = { kind: 'pre' as const, at: 5, tool: 'write_file', inputHash: inputHash(args), paths: [{ path: file, op: 'write' as const }], verdict: { action: 'deny' as const, hits } };
    l.record({ ...base, agent: 'gemini', sessionId: 'g1', transcriptPath: '/t/g1.jsonl', seq: l.nextSeq() });
    const reasons = l.decisionsFor({ sessionId: 'g1', transcript: '/t/g1.jsonl' }, { callId: 'write_file-1', tool: 'write_file', inputHash: inputHash(args) }).map((r) => r.reason);
    assert.deepEqual(reasons, ['unsaved', 'unread']);
    // A sub-agent's transcript, whose hooks gave the main session's id: its session is named otherwise.
    l.record({ ...base, agent: 'claude', sessionId: 'main', transcriptPath: '/t/main/subagents/agent-a1.jsonl', toolUseId: 'toolu_9', seq: l.nextSeq() });
    assert.equal(l.decisionsFor({ sessionId: 'main/agent-a1', transcript: '/t/main/subagents/agent-a1.jsonl' }, { callId: 'toolu_9', tool: 'write_file' }).length, 2);
  });

  void test('a record of another ledger version, or a serving mark without a finite time, is not read back', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ag-ledger-'));
    try {
      const f = path.join(dir, 'l.jsonl');
      const entry = { kind: 'pre', at: 5, agent: 'claude', sessionId: 's1', tool: 'Edit', toolUseId: 'toolu_1', seq: 'r-1', paths: [{ path: file, op: 'edit' }], verdict: { action: 'allow', hits: [] } };
      writeFileSync(f, JSON.stringify({ v: 2, ...entry }) + '\n');
      assert.equal((await HookLedger.load(f)).covers('s1'), false);
      writeFileSync(f, JSON.stringify({ v: 1, ...entry }) + '\n');
      assert.equal((await HookLedger.load(f)).covers('s1'), true);
      // A serving mark whose time is no finite number (1e400 reads as Infinity) marks nothing:
      // the ledger, with no mark, judges every call as served.
      writeFileSync(f, '{"v":1,"kind":"serving","run":"r1","at":1e400}\n');
      assert.equal((await HookLedger.load(f)).servedThrough(0, 10), true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  void test('memory holds the latest 50,000 entries', () => {
    const l = HookLedger.memory();
    for (let i = 0; i < 50_001; i++) {
      l.record({ kind: 'post', at: i, agent: 'claude', sessionId: 's1', tool: 'Read', seq: l.nextSeq(), paths: [] });
    }
    assert.equal(l.all().length, 50_000);
    assert.equal(l.all()[0]!.at, 1);
  });
});
