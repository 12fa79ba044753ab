import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { adapters } from '../../../src/core/parse/registry';
import { allRules } from '../../../src/core/rules/all';
import { checkFile } from '../../../src/io/checkFile';
import { findBlindWrites } from '../../../src/io/writersAcross';
import { cli } from '../support/cli';
import { ClaudeTranscript } from '../support/claude';
import { CodexRollout } from '../support/codex';
import { repoRoot } from '../support/repo';

interface Out {
  findings: { rule: string; severity: string; line: number; message: string; file: string; related: { file: string; line: number; message: string }[] }[];
}

function check(...targets: string[]): Out {
  const r = cli(['check', '--format', 'json', ...targets]);
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  return JSON.parse(r.stdout) as Out;
}

/**
 * Claude Code 2.1.332, run here (test/fixtures/generated/claude-code-2.1.332/two-sessions): A
 * read a.txt (line 24, 06:12:44.912), B edited its line 2 (call line 28, result 06:12:45.830),
 * then A edited line 1 on top (result line 31, 06:12:47.124).
 */
const twoSessions = path.join(repoRoot(), 'test', 'fixtures', 'generated', 'claude-code-2.1.332', 'two-sessions', '-tmp-agent-guard-drive-two-sessions');
const a = path.join(twoSessions, '60f84621-9909-4772-9529-65cdf752256d.jsonl');
const b = path.join(twoSessions, '5332e60e-94ad-4eec-a7eb-52d90497c5ed.jsonl');

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ag-writers-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

void describe('check names the writer of a change another checked transcript records', () => {
  void test('two sessions of one folder: the stale write names the other session, its time and its line', () => {
    const out = check(twoSessions);
    assert.equal(out.findings.length, 1);
    const f = out.findings[0]!;
    assert.equal(f.rule, 'stale-write');
    assert.equal(f.severity, 'warning');
    assert.equal(f.file, a);
    assert.match(
      f.message,
      / Another transcript checked with this one records a write of that file in between: session 5332e60e-94ad-4eec-a7eb-52d90497c5ed, its Edit at 06:12:45 UTC \(line 28 of 5332e60e-94ad-4eec-a7eb-52d90497c5ed\.jsonl\)\.$/,
    );
    assert.deepEqual(f.related.at(-1), { file: b, line: 28, message: "the other transcript's Edit of this file" });
  });

  void test("Claude Code 2.1.332 (subagent-lost-update): the main session's stale edit names its sub-agent, the time and line of the sub-agent's edit", () => {
    const folder = path.join(repoRoot(), 'test', 'fixtures', 'generated', 'claude-code-2.1.332', 'subagent-lost-update', '-tmp-agent-guard-drive-subagent-lost-update');
    const main = path.join(folder, '81fad1cd-6559-4eac-8238-c64b72bbea2b.jsonl');
    const sub = path.join(folder, '81fad1cd-6559-4eac-8238-c64b72bbea2b', 'subagents', 'agent-a17b0d7041897642d.jsonl');
    const out = check(folder);
    assert.deepEqual(
      out.findings.map((f) => [f.rule, f.severity, f.file, f.line]),
      [['stale-write', 'warning', main, 36]],
    );
    assert.match(
      out.findings[0]!.message,
      / Another transcript checked with this one records a write of that file in between: session 81fad1cd-6559-4eac-8238-c64b72bbea2b\/agent-a17b0d7041897642d, its Edit at 01:29:42 UTC \(line 20 of agent-a17b0d7041897642d\.jsonl\)\.$/,
    );
    assert.deepEqual(out.findings[0]!.related.at(-1), { file: sub, line: 20, message: "the other transcript's Edit of this file" });
  });

  void test('the same transcript checked alone names nobody', () => {
    const out = check(a);
    assert.equal(out.findings.length, 1);
    assert.doesNotMatch(out.findings[0]!.message, /Another transcript/);
    assert.ok(out.findings[0]!.related.every((r) => r.file === a));
  });

  void test("a sub-agent's edit between its parent's read and edit is named as this session's other transcript", () => {
    const ws = path.join(tmp, 'ws');
    const folder = path.join(tmp, 'projects', '-ws');
    mkdirSync(path.join(folder, 'sess-1', 'subagents'), { recursive: true });
    const file = path.join(ws, 'notes.txt');
    const parent = new ClaudeTranscript('sess-1', ws)
      .user('tidy notes.txt')
      .read('m1', 'toolu_R1', file, 'one\ntwo\nthree\n')
      .call('m2', 'toolu_T1', 'Task', { description: 'fix', prompt: 'capitalise line 2' });
    // The sub-agent ran while the parent waited on its Task call.
    const readAt = Date.parse('2026-02-12T14:00:03.000Z');
    const sub = new ClaudeTranscript('sess-1', ws);
    sub.sidechain = true;
    sub.at(readAt + 1500).user('capitalise line 2').edit('s1', 'toolu_S1', file, 'one\ntwo\nthree\n', 'two', 'TWO');
    parent.result('toolu_T1', 'done').edit('m3', 'toolu_E1', file, 'one\nTWO\nthree\n', 'one', 'ONE');
    writeFileSync(path.join(folder, 'sess-1.jsonl'), parent.text());
    const subFile = path.join(folder, 'sess-1', 'subagents', 'agent-a1.jsonl');
    writeFileSync(subFile, sub.text());

    const alone = check(path.join(folder, 'sess-1.jsonl')).findings.filter((f) => f.rule === 'stale-write');
    assert.equal(alone.length, 1, 'the parent alone: a change it never saw');
    assert.doesNotMatch(alone[0]!.message, /Another transcript/);

    const both = check(folder).findings.filter((f) => f.rule === 'stale-write');
    assert.equal(both.length, 1);
    assert.match(both[0]!.message, /in between: another transcript of this session \(a sub-agent or another run of it\), its Edit at 14:00:06 UTC \(line 2 of agent-a1\.jsonl\)\.$/);
    assert.deepEqual(both[0]!.related.at(-1), { file: subFile, line: 2, message: "the other transcript's Edit of this file" });
  });

  void test("a copy of the session's records in another file (a compaction helper's, a resumed session's) names nobody", () => {
    const ws = path.join(tmp, 'ws3');
    const folder = path.join(tmp, 'projects', '-ws3');
    mkdirSync(folder, { recursive: true });
    const file = path.join(ws, 'a.txt');
    const s1 = new ClaudeTranscript('sess-1', ws).user('go').read('m1', 'toolu_R1', file, 'x\ny\n').edit('m2', 'toolu_E1', file, 'x\nY\n', 'x', 'X');
    writeFileSync(path.join(folder, 'sess-1.jsonl'), s1.text());
    writeFileSync(path.join(folder, 'sess-1-copy.jsonl'), s1.text());
    const stale = check(folder).findings.filter((f) => f.rule === 'stale-write');
    assert.equal(stale.length, 2, 'each file alone shows the change');
    for (const f of stale) {
      assert.doesNotMatch(f.message, /Another transcript/);
    }
  });

  void test("a file outside the session's folder (a shared notes file) is looked up in every project's sessions", () => {
    // aroldzmitry's home, thirty-fifth set: a session of another project wrote the shared history file.
    const home = path.join(tmp, 'home4');
    const notes = path.join(home, '.claude', 'agents', 'history.md');
    const p1 = path.join(tmp, 'projects4', '-p1');
    const p2 = path.join(tmp, 'projects4', '-p2');
    mkdirSync(p1, { recursive: true });
    mkdirSync(p2, { recursive: true });
    const s1 = new ClaudeTranscript('sess-1', path.join(home, 'p1')).user('go').read('m1', 'toolu_R1', notes, 'a\nb\n').edit('m2', 'toolu_E1', notes, 'a\nb2\n', 'a', 'A');
    const s2 = new ClaudeTranscript('sess-2', path.join(home, 'p2')).at(Date.parse('2026-02-12T14:00:02.000Z')).user('go').edit('n1', 'toolu_E2', notes, 'a\nb\n', 'b', 'b2');
    writeFileSync(path.join(p1, 'sess-1.jsonl'), s1.text());
    writeFileSync(path.join(p2, 'sess-2.jsonl'), s2.text());
    const stale = check(path.join(tmp, 'projects4')).findings.filter((f) => f.rule === 'stale-write');
    assert.equal(stale.length, 1);
    assert.match(stale[0]!.message, /in between: session sess-2, its Edit at 14:00:04 UTC \(line 2 of sess-2\.jsonl\)\.$/);
  });

  void test('another session that wrote the file before the read, or wrote another file, is not named', () => {
    const ws = path.join(tmp, 'ws2');
    const folder = path.join(tmp, 'projects', '-ws2');
    mkdirSync(folder, { recursive: true });
    const file = path.join(ws, 'a.txt');
    const other = path.join(ws, 'b.txt');
    // Session 2 wrote a.txt at 13:59:02, before session 1 read it, and b.txt at 14:00:04, in the window.
    const s2 = new ClaudeTranscript('sess-2', ws)
      .at(Date.parse('2026-02-12T13:59:00.000Z'))
      .user('go')
      .write('n1', 'toolu_W1', file, 'x\ny\n', null)
      .at(Date.parse('2026-02-12T14:00:03.000Z'))
      .write('n2', 'toolu_W2', other, 'b\n', null);
    // Session 1 read a.txt at 14:00:03; a person changed it; session 1 edited on top at 14:00:05.
    const s1 = new ClaudeTranscript('sess-1', ws).user('go').read('m1', 'toolu_R1', file, 'x\ny\n').edit('m2', 'toolu_E1', file, 'x\nY\n', 'x', 'X');
    writeFileSync(path.join(folder, 'sess-1.jsonl'), s1.text());
    writeFileSync(path.join(folder, 'sess-2.jsonl'), s2.text());
    const stale = check(folder).findings.filter((f) => f.rule === 'stale-write');
    assert.equal(stale.length, 1);
    assert.doesNotMatch(stale[0]!.message, /Another transcript/);
  });
});

void describe("check finds a Codex session's write over another transcript's write it never saw", () => {
  // Codex CLI 0.171, run here (test/fixtures/generated/codex-0.171): the main session read
  // src/app.ts (line 10), its sub-agent patched the port (subagent-lost-update-2.jsonl, line 15),
  // then the main session wrote the whole file from its read (line 31's `Add File`).
  const root = path.join(repoRoot(), 'test', 'fixtures', 'generated', 'codex-0.171');
  const main = path.join(root, 'subagent-lost-update-1.jsonl');
  const child = path.join(root, 'subagent-lost-update-2.jsonl');

  void test('checked together, the main session’s whole-file write is a stale-write error naming the sub-agent’s patch', () => {
    const out = check(main, child);
    assert.deepEqual(
      out.findings.map((f) => [f.rule, f.severity, f.file, f.line]),
      [['stale-write', 'error', main, 31]],
    );
    assert.equal(
      out.findings[0]!.message,
      'apply_patch replaced src/app.ts whole on top of a change this session never saw: its sub-agent 01a23475-87d7-7a42-84a1-62cd4dbfd559 wrote it in between: its apply_patch at 01:54:13 UTC (line 15 of subagent-lost-update-2.jsonl), after the session last read the file (transcript line 10). What that write put there is most likely lost.',
    );
    assert.deepEqual(out.findings[0]!.related, [
      { file: main, line: 10, message: 'the session last read the file here' },
      { file: child, line: 15, message: "the other transcript's apply_patch of this file" },
    ]);
  });

  void test('alone, neither file shows it; with the guard the write was denied, and a denied write is no write', () => {
    assert.deepEqual(check(main).findings, []);
    assert.deepEqual(check(child).findings, []);
    assert.deepEqual(check(path.join(root, 'subagent-lost-update-guarded-1.jsonl'), path.join(root, 'subagent-lost-update-guarded-2.jsonl')).findings, []);
  });

  void test('--rule stale-write=off turns it off; =warning makes it a warning', () => {
    assert.deepEqual(JSON.parse(cli(['check', '--format', 'json', '--rule', 'stale-write=off', main, child]).stdout).findings, []);
    const warned = JSON.parse(cli(['check', '--format', 'json', '--rule', 'stale-write=warning', main, child]).stdout) as Out;
    assert.deepEqual(warned.findings.map((f) => f.severity), ['warning']);
  });
});

void describe('findBlindWrites uses the accesses check collected on its own read', () => {
  void test('a Codex transcript checked with accessLog is not read again (here: gone since)', async () => {
    const root = path.join(repoRoot(), 'test', 'fixtures', 'generated', 'codex-0.171');
    const main = await checkFile(path.join(root, 'subagent-lost-update-1.jsonl'), { adapters, rules: allRules, accessLog: true });
    const child = await checkFile(path.join(root, 'subagent-lost-update-2.jsonl'), { adapters, rules: allRules, accessLog: true });
    assert.ok(main.log && main.log.accesses.length > 0);
    assert.equal(child.log?.parentSession, main.session);
    const gone = path.join(tmp, 'gone', 'subagent-lost-update-1.jsonl');
    const found = await findBlindWrites([{ ...main, file: gone }, child], adapters);
    assert.deepEqual(
      found.map((f) => [f.file, f.line, f.severity]),
      [[gone, 31, 'error']],
    );
    // Without it the file would be read again, and a file that is gone shows nothing.
    const { log: _dropped, ...unlogged } = main;
    assert.deepEqual(await findBlindWrites([{ ...unlogged, file: gone }, child], adapters), []);
  });
});

/**
 * Codex rollouts of one folder, on one clock: A read src/app.ts (line 2, its output at 03:04:08),
 * B patched it (03:04:09–10), then A patched it (line 7, at 03:04:12).
 */
function twoCodexSessions(dir: string): { a: string; b: string } {
  mkdirSync(dir, { recursive: true });
  const patch = (to: string): string => `*** Begin Patch\n*** Update File: src/app.ts\n@@\n-hello\n+${to}\n*** End Patch`;
  const a = new CodexRollout('019bce9f-0a40-79e2-8351-8818e8487a01', '/home/dev/proj')
    .exec('call_r1', 'cat src/app.ts')
    .output('call_r1', 'Exit code: 0\nWall time: 0.1 seconds\nOutput:\nhello')
    .say('reading on')
    .say('still reading')
    .say('now the patch')
    .patch('call_p1', patch('hi'))
    .output('call_p1', 'Success.', true);
  const b = new CodexRollout('019bce9f-0a40-79e2-8351-8818e8487b02', '/home/dev/proj').user('go').user('the port').patch('call_p2', patch('HELLO')).output('call_p2', 'Success.', true);
  const files = { a: path.join(dir, 'rollout-a.jsonl'), b: path.join(dir, 'rollout-b.jsonl') };
  writeFileSync(files.a, a.text());
  writeFileSync(files.b, b.text());
  return files;
}

void describe('Codex writes across transcripts: the same transcript named twice', () => {
  void test('a file named on its own and within its folder is one transcript: its finding is given once', () => {
    const { a, b } = twoCodexSessions(path.join(tmp, 'named-twice'));
    const once = check(a, b).findings.filter((f) => f.file === a);
    assert.deepEqual(once.map((f) => [f.rule, f.line, f.severity]), [['stale-write', 7, 'warning']]);
    // (Judged as two transcripts, each copy got both copies' findings: four.)
    assert.deepEqual(check(path.dirname(a), a).findings.filter((f) => f.file === a), once);
    assert.deepEqual(check(a, b, a).findings.filter((f) => f.file === a), once);
  });
});

void describe('Codex writes across transcripts: one Windows folder written two ways', () => {
  // Codex names the folder `C:\proj`; VS Code's Claude Code may write `c:\proj`, or `C:\proj\`.
  // The paths in it are written alike (resolveAgainst), and so must the folders be.
  for (const claudeCwd of ['c:\\proj', 'C:\\proj\\']) {
    void test(`a Codex session in C:\\proj and a Claude Code session in ${claudeCwd} are of one folder`, () => {
      const dir = path.join(tmp, `windows-${claudeCwd.startsWith('c') ? 'lower' : 'slash'}`);
      mkdirSync(dir, { recursive: true });
      const codex = new CodexRollout('019bce9f-0a40-79e2-8351-8818e8487c03', 'C:\\proj')
        .exec('call_r1', 'type src\\app.ts')
        .output('call_r1', 'Exit code: 0\nWall time: 0.1 seconds\nOutput:\nhello')
        .say('reading on');
      for (let i = 0; i < 7; i++) {
        codex.say('still reading');
      }
      codex.patch('call_p1', '*** Begin Patch\n*** Update File: src/app.ts\n@@\n-hello\n+hi\n*** End Patch').output('call_p1', 'Success.', true);
      // Claude Code's read and edit between the Codex read (03:04:08) and patch (03:04:17).
      const file = `${claudeCwd.slice(0, 2)}\\proj\\src\\app.ts`;
      const claude = new ClaudeTranscript('bbbbbbbb-0000-4000-8000-000000000002', claudeCwd)
        .at(Date.parse('2026-01-02T03:04:09.500Z'))
        .user('go')
        .read('m1', 'toolu_R1', file, 'hello\n')
        .edit('m2', 'toolu_E1', file, 'hello\n', 'hello', 'HELLO');
      const a = path.join(dir, 'rollout-c.jsonl');
      writeFileSync(a, codex.text());
      writeFileSync(path.join(dir, 'bbbbbbbb-0000-4000-8000-000000000002.jsonl'), claude.text());
      const found = check(dir).findings.filter((f) => f.file === a);
      assert.deepEqual(
        found.map((f) => [f.rule, f.severity, f.line]),
        [['stale-write', 'warning', codex.lineOf('call_p1')]],
      );
      assert.match(found[0]!.message, /: session bbbbbbbb-0000-4000-8000-000000000002 wrote it in between: its Edit at 03:04:13 UTC/);
    });
  }
});

void describe('the access log check keeps of each Codex transcript', () => {
  void test('holds the accesses of the files it wrote, not its reads of the others (kept for every rollout to the end of the check)', async () => {
    const file = path.join(tmp, 'kept', 'rollout-kept.jsonl');
    mkdirSync(path.dirname(file), { recursive: true });
    const r = new CodexRollout('019bce9f-0a40-79e2-8351-8818e8487d04', '/home/dev/proj');
    for (let i = 0; i < 20; i++) {
      r.exec(`call_r${i}`, `cat src/f${i}.ts`).output(`call_r${i}`, 'Exit code: 0\nWall time: 0.1 seconds\nOutput:\nx');
    }
    r.patch('call_p1', '*** Begin Patch\n*** Update File: src/f3.ts\n@@\n-x\n+y\n*** End Patch').output('call_p1', 'Success.', true);
    writeFileSync(file, r.text());
    const checked = await checkFile(file, { adapters, rules: allRules, accessLog: true });
    assert.deepEqual(
      checked.log?.accesses.map((a) => [a.op, a.path]),
      [
        ['read', '/home/dev/proj/src/f3.ts'],
        ['edit', '/home/dev/proj/src/f3.ts'],
      ],
    );
  });
});

void describe('the access log holds paths, not the records they were read from', () => {
  void test('the logs of rollouts of large patches take a few bytes a write, not the patch', async () => {
    // A path cut out of an apply_patch input was a slice of it, and held the whole input alive
    // for as long as the log: for every Codex transcript of a check, to its end (40 rollouts of
    // 200 patches of 32 KB held 200 MB more with the feature than without).
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const file = path.join(tmp, 'large-patches', 'rollout-large.jsonl');
    mkdirSync(path.dirname(file), { recursive: true });
    const body = Array.from({ length: 1000 }, (_, i) => `+export const line${i} = 'the content of a generated file';`).join('\n');
    const r = new CodexRollout('019bce9f-0a40-79e2-8351-8818e8487e05', '/home/dev/proj');
    for (let i = 0; i < 50; i++) {
      r.patch(`call_p${i}`, `*** Begin Patch\n*** Add File: /home/dev/proj/src/generated/module${i}.ts\n${body}\n*** End Patch`).output(`call_p${i}`, 'Success.', true);
    }
    writeFileSync(file, r.text());
    gc();
    const before = process.memoryUsage().heapUsed;
    const logs = [];
    for (let k = 0; k < 4; k++) {
      logs.push((await checkFile(file, { adapters, rules: allRules, accessLog: true })).log!);
    }
    gc();
    const perWrite = (process.memoryUsage().heapUsed - before) / (4 * 50);
    assert.equal(logs.flatMap((l) => l.accesses).length, 200);
    assert.ok(perWrite < 4000, `${perWrite.toFixed(0)} bytes a write (each patch is ${body.length} bytes)`);
  });
});
