/**
 * The live hosts find a Codex session's write over another session's write it never saw in the
 * history they read at start-up, as `check` does (BlindWriteFinder in LiveMonitor): real folders,
 * real chokidar, the real Codex CLI 0.171 rollouts of test/fixtures/generated/codex-0.171.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import type { Finding } from '../../../src/core/model/finding';
import { cli } from '../support/cli';
import { LiveEnv } from '../support/liveEnv';
import { repoRoot } from '../support/repo';
import { waitFor } from '../support/wait';

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

  void test('a write after the watching began is not judged here (the working tree judges it as it happens)', async () => {
    env = new LiveEnv();
    rollouts(env);
    // Watching since 01:54:14: the sub-agent's patch (01:54:13) is history, the main session's
    // write (01:54:15) is not.
    const start = Date.parse('2026-12-02T01:54:14.000Z');
    await env.start({ watchTree: false, namingDelayMs: 50, clock: () => start });
    await env.monitor!.idle();
    assert.deepEqual(env.monitor!.findings.all().filter((f) => f.rule === 'stale-write').map(brief), []);
  });

  void test('stale-write off: nothing', async () => {
    env = new LiveEnv();
    rollouts(env);
    await env.start({ watchTree: false, namingDelayMs: 50, config: { levels: { 'stale-write': 'off' }, options: {} } });
    await env.monitor!.idle();
    assert.deepEqual(env.monitor!.findings.all().map(brief), []);
  });
});
