/**
 * A transcript read again from its start (a re-check, the file rewritten or replaced with other
 * bytes) keeps the verdicts the working tree gave its writes when they were new.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import type { CodexRollout } from '../support/codex';
import { liveRollout } from '../support/codexLive';
import { hashText } from '../../../src/io/workTree';
import { LiveEnv } from '../support/liveEnv';
import { sleep, waitFor } from '../support/wait';

let env: LiveEnv;
afterEach(async () => {
  await env?.dispose();
});

const patch = `*** Begin Patch\n*** Update File: src/app.ts\n@@\n-const a = 1;\n+const a = 2;\n*** End Patch`;

/** A Codex session being written live, with app.ts in its workspace; each step is read before the next. */
async function session(): Promise<{ rollout: string; file: string; step: (fn: (r: CodexRollout) => void) => Promise<void>; changeBehindItsBack: () => Promise<void> }> {
  env = new LiveEnv();
  const file = path.join(env.workspace, 'src', 'app.ts');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, 'const a = 1;\nconst b = 2;\n');
  await env.start();
  const { rollout, step } = liveRollout(env);
  const changeBehindItsBack = async (): Promise<void> => {
    await env.monitor!.tree!.settle(file);
    const changed = readFileSync(file, 'utf8') + '// changed by hand\n';
    writeFileSync(file, changed);
    await waitFor(() => env.monitor!.tree!.history(file).at(-1)?.hash === hashText(changed), 15_000, 'the foreign change');
    // Longer than the attribution grace: a change this close to a patch whose content is not
    // recorded would be taken for the patch itself.
    await sleep(400);
  };
  return { rollout, file, step, changeBehindItsBack };
}

/** A Codex lost update, live: the session reads app.ts, someone changes it, the session patches it. */
async function lostUpdate(): Promise<{ rollout: string }> {
  const { rollout, step, changeBehindItsBack } = await session();
  await step((x) => x.user('bump a').shell('c1', 'cat src/app.ts').output('c1', 'const a = 1;'));
  await changeBehindItsBack();
  await step((x) => x.patch('c2', patch).output('c2', 'Done!', true).say('done'));
  assert.deepEqual(env.monitor!.findings.forFile(rollout).map((f) => `${f.rule}@${f.line}`), ['stale-write@5']);
  return { rollout };
}

void describe('a transcript read again keeps its writes’ verdicts', () => {
  void test('a re-check', async () => {
    const { rollout } = await lostUpdate();
    await env.monitor!.recheck();
    assert.deepEqual(env.monitor!.findings.forFile(rollout).map((f) => `${f.rule}@${f.line}`), ['stale-write@5']);
    assert.deepEqual(env.removed.map((f) => f.rule), [], 'nothing taken back');
  });

  void test('a re-check between a change the session never saw and its write: the write is still stale', async () => {
    const { rollout, step, changeBehindItsBack } = await session();
    await step((x) => x.user('bump a').shell('c1', 'cat src/app.ts').output('c1', 'const a = 1;'));
    await changeBehindItsBack();
    // What the session read is as old as it was: read again, it is not read now.
    await env.monitor!.recheck();
    await step((x) => x.patch('c2', patch).output('c2', 'Done!', true).say('done'));
    assert.deepEqual(env.monitor!.findings.forFile(rollout).map((f) => `${f.rule}@${f.line}`), ['stale-write@5']);
  });

  void test('a re-check after someone changed a file the session wrote: its write, made before, is no stale write', async () => {
    const { rollout, step, changeBehindItsBack } = await session();
    await step((x) => x.user('bump a').shell('c1', 'cat src/app.ts').output('c1', 'const a = 1;'));
    await step((x) => x.patch('c2', patch).output('c2', 'Done!', true).say('done'));
    await changeBehindItsBack();
    await env.monitor!.recheck();
    assert.deepEqual(env.monitor!.findings.forFile(rollout), []);
    assert.deepEqual(env.announced, []);
  });

  void test('rewritten in place with an earlier line changed', async () => {
    const { rollout } = await lostUpdate();
    const text = readFileSync(rollout, 'utf8').replace('bump a', 'BUMP A');
    writeFileSync(rollout, text);
    await waitFor(() => env.logs.some((l) => /was replaced; reading it again/.test(l)), 15_000, 'the re-read');
    await env.monitor!.idle();
    assert.deepEqual(env.monitor!.findings.forFile(rollout).map((f) => `${f.rule}@${f.line}`), ['stale-write@5']);
  });

  void test('replaced by a rename with other bytes (as a repair writes it)', async () => {
    const { rollout } = await lostUpdate();
    const tmp = rollout + '.tmp';
    writeFileSync(tmp, readFileSync(rollout, 'utf8').replace('bump a', 'bump  a'));
    renameSync(tmp, rollout);
    await waitFor(() => env.logs.some((l) => /was replaced; reading it again/.test(l)), 15_000, 'the re-read');
    await env.monitor!.idle();
    assert.deepEqual(env.monitor!.findings.forFile(rollout).map((f) => `${f.rule}@${f.line}`), ['stale-write@5']);
  });

  void test('rewritten in place between a change the session never saw and its write: the write is still stale', async () => {
    const { rollout, step, changeBehindItsBack } = await session();
    await step((x) => x.user('bump a').shell('c1', 'cat src/app.ts').output('c1', 'const a = 1;'));
    await changeBehindItsBack();
    writeFileSync(rollout, readFileSync(rollout, 'utf8').replace('bump a', 'BUMP A'));
    await waitFor(() => env.logs.some((l) => /was replaced; reading it again/.test(l)), 15_000, 'the re-read');
    await env.monitor!.idle();
    await step((x) => x.patch('c2', patch).output('c2', 'Done!', true).say('done'));
    assert.deepEqual(env.monitor!.findings.forFile(rollout).map((f) => `${f.rule}@${f.line}`), ['stale-write@5']);
  });

  void test('deleted and written again', async () => {
    const { rollout } = await lostUpdate();
    const text = readFileSync(rollout, 'utf8');
    rmSync(rollout);
    await waitFor(() => env.monitor!.session(rollout) === undefined, 15_000, 'the deletion seen');
    writeFileSync(rollout, text);
    await waitFor(() => env.monitor!.session(rollout) !== undefined, 15_000, 'the transcript back');
    await env.monitor!.idle();
    assert.deepEqual(env.monitor!.findings.forFile(rollout).map((f) => `${f.rule}@${f.line}`), ['stale-write@5']);
  });
});
