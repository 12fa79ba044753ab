/**
 * The live hosts find a Codex session's write over another session's write it never saw in the
 * history they read at start-up, as `check` does (BlindWriteFinder in LiveMonitor): real folders,
 * real chokidar, the real Codex CLI 0.171 rollouts of test/fixtures/generated/codex-0.171.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import type { Finding } from '../../../src/core/model/finding';
import { ClaudeTranscript } from '../support/claude';
import { adapters } from '../../../src/core/parse/registry';
import { BlindWriteFinder, findBlindWrites } from '../../../src/io/writersAcross';
import { FindingStore } from '../../../src/io/findingStore';
import { Emitter } from '../../../src/core/lib/event';
import { cli } from '../support/cli';
import { LiveEnv } from '../support/liveEnv';
import { repoRoot } from '../support/repo';
import { sleep, waitFor } from '../support/wait';

let env: LiveEnv;
afterEach(async () => {
  await env?.dispose();
});

const fixtures = path.join(repoRoot(), 'test', 'fixtures', 'generated', 'codex-0.171');
/** The folder the rollouts were recorded in, replaced by the test's workspace. */
const recordedIn = '/tmp/drive-codex/subagent-lost-update/ws';

/**
 * The main session read src/app.ts (line 10), its sub-agent patched it (its line 15, 01:54:13),
 * then the main session wrote the whole file from its read (line 31, 01:54:15): as rollouts of
 * the test's Codex home, named as Codex names them.
 */
function rollouts(e: LiveEnv, which: 'both' | 'main' | 'child' = 'both'): { main: string; child: string } {
  const day = path.join(e.codexHome, 'sessions', '2026', '12', '02');
  mkdirSync(day, { recursive: true });
  const main = path.join(day, 'rollout-2026-12-02T01-54-03-01a23475-76e5-7330-b74d-04c348ae6e29.jsonl');
  const child = path.join(day, 'rollout-2026-12-02T01-54-07-01a23475-87d7-7a42-84a1-62cd4dbfd559.jsonl');
  const copy = (from: string, to: string): void => writeFileSync(to, readFileSync(path.join(fixtures, from), 'utf8').replaceAll(recordedIn, e.workspace));
  if (which !== 'child') {
    copy('subagent-lost-update-1.jsonl', main);
  }
  if (which !== 'main') {
    copy('subagent-lost-update-2.jsonl', child);
  }
  return { main, child };
}

const brief = (f: Finding): string => `${f.rule}:${f.severity}@${path.basename(f.file)}:${f.line}:${f.column}-${f.endColumn} ${f.message}`;

/** What `check` gives for the same files, briefly. */
function checked(...files: string[]): string[] {
  const r = cli(['check', '--format', 'json', ...files]);
  assert.ok(r.code === 0 || r.code === 1, r.stderr);
  return (JSON.parse(r.stdout) as { findings: Finding[] }).findings.map(brief);
}

void describe("BlindWriteFinder: a Codex session's write over a write it never saw, in the history read at start-up", () => {
  void test('found once both sessions are read, with check’s finding; a re-read keeps it', async () => {
    env = new LiveEnv();
    const { main, child } = rollouts(env);
    const inCheck = checked(main, child);
    assert.equal(inCheck.length, 1);
    assert.match(inCheck[0]!, /^stale-write:error@rollout-2026-12-02T01-54-03-.*:31:.* apply_patch replaced src\/app\.ts whole on top of a change this session never saw: its sub-agent 01a23475-87d7-7a42-84a1-62cd4dbfd559 wrote it in between/);

    await env.start({ watchTree: false, namingDelayMs: 50 });
    await env.monitor!.idle();
    const stale = (): string[] => env.monitor!.findings.all().filter((f) => f.rule === 'stale-write').map(brief);
    assert.deepEqual(stale(), inCheck);
    assert.deepEqual(env.monitor!.findings.all().map(brief), inCheck, 'and nothing else, as in check');

    // Read again from the start (the command "Re-check"): the rollout's own read does not report
    // it, and it stays, never taken back.
    await env.monitor!.recheck();
    await env.monitor!.idle();
    assert.deepEqual(stale(), inCheck);
    assert.deepEqual(env.removed.map(brief), []);
    assert.equal(env.announced.filter((f) => f.rule === 'stale-write').length, 1, 'announced once');
  });

  void test('the other transcript turns up later (its folder appears): found then; the transcript gone, the finding goes', async () => {
    env = new LiveEnv();
    const { main } = rollouts(env, 'main');
    await env.start({ watchTree: false, namingDelayMs: 50 });
    await env.monitor!.idle();
    assert.deepEqual(env.monitor!.findings.all().map(brief), [], 'alone, the main session shows nothing');
    const { child } = rollouts(env, 'child');
    await waitFor(() => env.monitor!.findings.forFile(main).some((f) => f.rule === 'stale-write'), 15_000, 'the stale write, once the sub-agent’s rollout is read');
    await env.monitor!.idle();
    assert.deepEqual(env.monitor!.findings.all().map(brief), checked(main, child));
    rmSync(child);
    await waitFor(() => !env.monitor!.findings.forFile(main).some((f) => f.rule === 'stale-write'), 15_000, 'the stale write gone with the sub-agent’s rollout');
    assert.deepEqual(env.monitor!.findings.all().map(brief), checked(main));
  });

  void test('another transcript’s write after the watching began is not looked up here (the working tree saw it, and judges the writes over it)', async () => {
    env = new LiveEnv();
    rollouts(env);
    // Watching since 01:54:12: the sub-agent's patch (01:54:13) is a change the working tree saw.
    const start = Date.parse('2026-12-02T01:54:12.000Z');
    await env.start({ watchTree: false, namingDelayMs: 50, clock: () => start });
    await env.monitor!.idle();
    assert.deepEqual(env.monitor!.findings.all().filter((f) => f.rule === 'stale-write').map(brief), []);
  });

  void test('another transcript’s write while the start-up reads ran: found (the working tree tracks a file only from when a read transcript touches it)', async () => {
    env = new LiveEnv();
    const { main, child } = rollouts(env);
    // The monitor was made at 01:54:12 and its start-up reads caught up at 01:54:14: the
    // sub-agent's patch (01:54:13) came in between, before the working tree tracked the file.
    const made = Date.parse('2026-12-02T01:54:12.000Z');
    const caughtUp = Date.parse('2026-12-02T01:54:14.000Z');
    let calls = 0;
    await env.start({ watchTree: false, namingDelayMs: 50, clock: () => (calls++ === 0 ? made : caughtUp) });
    await env.monitor!.idle();
    assert.deepEqual(env.monitor!.findings.all().map(brief), checked(main, child));
  });

  void test('the Codex session’s own write after the watching began, over another’s before it: found', async () => {
    env = new LiveEnv();
    const { main, child } = rollouts(env);
    // Watching since 01:54:14: the sub-agent's patch (01:54:13) is history the working tree
    // never saw; the main session's write (01:54:15) came after.
    const start = Date.parse('2026-12-02T01:54:14.000Z');
    await env.start({ watchTree: false, namingDelayMs: 50, clock: () => start });
    await env.monitor!.idle();
    assert.deepEqual(env.monitor!.findings.all().map(brief), checked(main, child));
  });

  void test('stale-write off: nothing', async () => {
    env = new LiveEnv();
    rollouts(env);
    await env.start({ watchTree: false, namingDelayMs: 50, config: { levels: { 'stale-write': 'off' }, options: {} } });
    await env.monitor!.idle();
    assert.deepEqual(env.monitor!.findings.all().map(brief), []);
  });
});

/** The finder inside a monitor, for what it keeps (memory) and reads. */
interface FinderInsides {
  history: Map<string, unknown>;
  logs: Map<string, unknown>;
}
const insides = (e: LiveEnv): FinderInsides => (e.monitor as unknown as { blind: FinderInsides }).blind;

void describe('BlindWriteFinder (review)', () => {
  void test('the finding is check’s own: its id, message, severity and related locations', async () => {
    env = new LiveEnv();
    const { main, child } = rollouts(env);
    // check's JSON names no id: its findBlindWrites, on the same files, does.
    const session = (f: string): string => /([0-9a-f-]{36})\.jsonl$/.exec(f)![1]!;
    const inCheck = await findBlindWrites(
      [main, child].map((file) => ({ file, session: session(file), cwd: env.workspace, agent: 'codex' as const, findings: [] })),
      adapters,
    );
    assert.equal(inCheck.length, 1);
    await env.start({ watchTree: false, namingDelayMs: 50 });
    await env.monitor!.idle();
    const pick = (f: Finding): unknown => ({ id: f.id, message: f.message, severity: f.severity, line: f.line, related: f.related });
    assert.deepEqual(env.monitor!.findings.all().map(pick), inCheck.map(pick));
  });

  void test('a Codex write after the watching began, over a change made before it: reported as check reports it', async () => {
    env = new LiveEnv();
    const { main, child } = rollouts(env);
    // The sub-agent's patch (01:54:13) is done before the watching; the main session has read
    // src/app.ts (01:54:03) and writes it over the patch only once the watching has begun.
    const lines = readFileSync(main, 'utf8').split('\n');
    writeFileSync(main, lines.slice(0, 29).join('\n') + '\n');
    mkdirSync(path.join(env.workspace, 'src'), { recursive: true });
    writeFileSync(path.join(env.workspace, 'src', 'app.ts'), 'export const host = "127.0.0.1";\n');
    await env.start({ namingDelayMs: 50 });
    await env.monitor!.idle();
    assert.deepEqual(env.monitor!.findings.all().map(brief), []);
    let t = Date.now();
    const rest = lines.slice(29).map((l) => l.replace(/"timestamp":"[^"]*"/, () => `"timestamp":"${new Date(t++).toISOString()}"`));
    // The patch's call, the file written on disk (the working tree sees it), then its result.
    appendFileSync(main, rest[0] + '\n');
    await sleep(100);
    writeFileSync(path.join(env.workspace, 'src', 'app.ts'), 'export const host = "0.0.0.0";\n');
    await sleep(100);
    appendFileSync(main, rest.slice(1).join('\n'));
    const inCheck = checked(main, child);
    assert.equal(inCheck.length, 1, 'check reports it');
    await waitFor(() => env.monitor!.findings.forFile(main).some((f) => f.rule === 'stale-write'), 5_000, 'the stale write, as check reports it');
    await env.monitor!.idle();
    assert.deepEqual(env.monitor!.findings.all().map(brief), inCheck);
  });

  void test('stale-write off: no Codex history is collected or kept', async () => {
    env = new LiveEnv();
    rollouts(env);
    await env.start({ watchTree: false, namingDelayMs: 50, config: { levels: { 'stale-write': 'off' }, options: {} } });
    await env.monitor!.idle();
    assert.equal(insides(env).history.size + insides(env).logs.size, 0);
  });

  void test('closed while it reads the other transcripts: it stops reading them', async () => {
    env = new LiveEnv();
    await env.start({ watchTree: false, namingDelayMs: 50 });
    // Many transcripts of the workspace, each with a few hundred writes: the lookup reads each.
    mkdirSync(env.projectDir, { recursive: true });
    const n = 60;
    for (let i = 0; i < n; i++) {
      const t = new ClaudeTranscript(`sess-${String(i).padStart(4, '0')}-0000-4000-8000-000000000000`, env.workspace).user('go');
      for (let k = 0; k < 150; k++) {
        t.write(`m${k}`, `toolu_${i}_${k}`, path.join(env.workspace, `f${k}.txt`), `x${k}\n`.repeat(50), null);
      }
      writeFileSync(path.join(env.projectDir, `s${i}.jsonl`), t.text());
    }
    rollouts(env);
    const f = insides(env);
    await waitFor(() => f.history.size > 3, 30_000, 'the lookup reading the other transcripts');
    const atClose = f.history.size;
    assert.ok(atClose < n, `still reading (${atClose} of ${n + 2})`);
    await env.monitor!.close();
    await sleep(1_500);
    assert.ok(f.history.size <= atClose + 1, `read ${f.history.size - atClose} more after the close`);
  });

  void test('a transcript with no working folder that grows: the lookup is not done again at each append', async () => {
    env = new LiveEnv();
    rollouts(env);
    mkdirSync(env.projectDir, { recursive: true });
    // A session whose records name no folder (a Gemini CLI session before its first checkpoint is another).
    const t = new ClaudeTranscript('cccccccc-0000-4000-8000-000000000001', env.workspace);
    (t as unknown as { cwd: string | undefined }).cwd = undefined;
    const file = path.join(env.projectDir, 'nocwd.jsonl');
    writeFileSync(file, t.user('go').text());
    const runs: string[] = [];
    const quiet = (): void => {};
    await env.start({
      watchTree: false,
      namingDelayMs: 50,
      logger: { trace: quiet, info: quiet, warn: quiet, error: quiet, debug: (m) => void (/over another session's write found/.test(String(m)) && runs.push(String(m))) },
    });
    await env.monitor!.idle();
    assert.equal(env.monitor!.session(file)?.cwd, undefined);
    const before = runs.length;
    assert.ok(before >= 1);
    for (let k = 0; k < 4; k++) {
      const size = t.text().length;
      t.say(`m${k}`, `more ${k}`);
      appendFileSync(file, t.text().slice(size));
      await waitFor(() => (env.monitor!.session(file)?.bytes ?? 0) >= Buffer.byteLength(t.text()), 5_000, 'the append read');
      await sleep(150);
    }
    await env.monitor!.idle();
    assert.equal(runs.length - before, 0, 'looked up again at each append');
  });

  void test('closed during its start-up reads (the extension restarting on a settings change): start ends', async () => {
    env = new LiveEnv();
    rollouts(env);
    // The start-up reads schedule a lookup (500 ms on); the monitor is closed before it runs.
    const started = env.start({ watchTree: false }).then(() => 'started');
    await waitFor(() => env.monitor && env.monitor.sessionList().some((s) => s.bytes > 0), 15_000, 'a rollout read');
    await env.monitor!.close();
    const r = await Promise.race([started, sleep(3_000).then(() => 'start() still waiting 3 s after the close')]);
    assert.equal(r, 'started');
  });
});

void describe('BlindWriteFinder on its own', () => {
  void test('another transcript that could not be read at one lookup is read again at the next', async () => {
    env = new LiveEnv();
    const { main } = rollouts(env, 'main');
    // A Claude Code session of the same folder edited src/app.ts at 01:54:10, between the main
    // session's read and its write; its file cannot be read at the first lookup (not there yet).
    const target = path.join(env.workspace, 'src', 'app.ts');
    mkdirSync(env.projectDir, { recursive: true });
    const other = path.join(env.projectDir, 'sess-c.jsonl');
    const list = [
      { file: main, session: '01a23475-76e5-7330-b74d-04c348ae6e29', agent: 'codex' as const, cwd: env.workspace },
      { file: other, session: 'sess-c', agent: 'claude-code' as const, cwd: env.workspace },
    ];
    const store = new FindingStore();
    const changed = new Emitter<{ file: string; cwd?: string | undefined } | undefined>();
    const finder = new BlindWriteFinder({ store, adapters, transcripts: () => list, until: () => Date.now(), busy: () => false, onDidChangeTranscripts: changed.event, delayMs: 10 });
    try {
      await finder.idle();
      assert.deepEqual(store.all().map(brief), [], 'nothing while it cannot be read');
      const c = new ClaudeTranscript('sess-c', env.workspace).at(Date.parse('2026-12-02T01:54:10.000Z')).user('go');
      writeFileSync(other, c.edit('n1', 'toolu_CE', target, 'export const port = 3000;\n', '3000', '3001').text());
      changed.fire(undefined);
      await sleep(50);
      await finder.idle();
      assert.deepEqual(
        store.all().map((f) => `${f.rule}@${path.basename(f.file)}:${f.line}`),
        [`stale-write@${path.basename(main)}:31`],
        'read at the next lookup',
      );
    } finally {
      finder.dispose();
    }
  });
});

