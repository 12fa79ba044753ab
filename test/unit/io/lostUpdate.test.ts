/**
 * A lost update end to end, with real files: a session reads a file, something changes it
 * on disk, then the session's transcript shows a write to it.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { ClaudeTranscript } from '../support/claude';
import type { CodexRollout } from '../support/codex';
import { liveRollout } from '../support/codexLive';
import { hashText } from '../../../src/io/workTree';
import { LiveEnv } from '../support/liveEnv';
import { sleep, waitFor } from '../support/wait';

let env: LiveEnv;
afterEach(async () => {
  await env?.dispose();
});

/**
 * Waits until the working tree has seen `file` hold `content`. Not "one change": a write
 * truncates, then writes, and a watcher that looks in between records two changes.
 */
async function changedTo(file: string, content: string, what: string): Promise<void> {
  await waitFor(() => env.monitor!.tree!.history(file).at(-1)?.hash === hashText(content), 15_000, what);
}

const patch = (rel: string): string => `*** Begin Patch\n*** Update File: ${rel}\n@@\n-const a = 1;\n+const a = 2;\n*** End Patch`;

/** A Codex rollout that is appended to step by step, each step processed before the next. */
async function setup(opts: { throughLink?: boolean } = {}): Promise<{ rollout: string; file: string; r: CodexRollout; step: (fn: (r: CodexRollout) => void) => Promise<void> }> {
  env = new LiveEnv();
  const file = path.join(env.workspace, 'src', 'app.ts');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, 'const a = 1;\nconst b = 2;\n');
  if (opts.throughLink) {
    // The editor opened the workspace through a link; Codex records the real path as its cwd.
    const link = path.join(env.root, 'linked-ws');
    symlinkSync(env.workspace, link, 'dir');
    await env.start({ workspace: link });
  } else {
    await env.start();
  }
  const { rollout, r, step } = liveRollout(env);
  return { rollout, file, r, step };
}

void describe('lost update', () => {
  void test('changed on disk by someone else after the read: stale-write names the change', async () => {
    const { rollout, file, step } = await setup();
    await step((r) => r.user('bump a').shell('c1', 'cat src/app.ts').output('c1', 'const a = 1;'));
    await env.monitor!.tree!.settle(file);
    // Someone else (the user in another editor, a formatter) changes the file.
    writeFileSync(file, 'const a = 1;\nconst b = 3; // changed by hand\n');
    await changedTo(file, 'const a = 1;\nconst b = 3; // changed by hand\n', 'the foreign change');
    // Longer than the attribution grace: a change this close to a patch whose content is not
    // recorded would be taken for the patch itself.
    await sleep(400);
    await step((r) => r.patch('c2', patch('src/app.ts')).output('c2', 'Done!', true).say('done'));
    const findings = env.monitor!.findings.forFile(rollout);
    assert.deepEqual(
      findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`),
      ['stale-write:live@5'],
    );
    const f = findings[0]!;
    assert.match(f.message, /apply_patch wrote src\/app\.ts, which an unattributed process changed at \d\d:\d\d:\d\d, after this session last saw it/);
    assert.deepEqual(
      f.related.map((x) => [path.basename(x.file), x.line]),
      [
        [path.basename(rollout), 4],
        ['app.ts', 1],
      ],
      'links the read and the changed file',
    );
    assert.deepEqual(f.subject, { path: file });
  });

  void test('a workspace opened through a symbolic link: the session (which records the real path) is found and its lost update caught', async () => {
    const { rollout, file, step } = await setup({ throughLink: true });
    await step((r) => r.user('bump a').shell('c1', 'cat src/app.ts').output('c1', 'const a = 1;'));
    await env.monitor!.tree!.settle(file);
    writeFileSync(file, 'const a = 1;\nconst b = 3; // changed by hand\n');
    await changedTo(file, 'const a = 1;\nconst b = 3; // changed by hand\n', 'the foreign change, under the real path');
    await sleep(400);
    await step((r) => r.patch('c2', patch('src/app.ts')).output('c2', 'Done!', true).say('done'));
    assert.deepEqual(
      env.monitor!.findings.forFile(rollout).map((f) => `${f.rule}:${f.messageId}@${f.line}`),
      ['stale-write:live@5'],
    );
  });

  // The same sequence with the change made by the session's own command while its call runs:
  // its call is in the transcript while the file changes, so the change is its own. A formatter
  // and a branch switch name the file differently, or not at all.
  const ownChanges = [
    { name: 'a shell write of the file (sed -i)', command: "sed -i 's/b = 2/b = 3/' src/app.ts", content: 'const a = 1;\nconst b = 3;\n', output: '' },
    { name: 'a formatter run on the file (prettier --write)', command: 'npx prettier --write src/app.ts', content: 'const a = 1;\nconst b = 2;\n\n', output: 'src/app.ts 12ms' },
    { name: 'a branch switch (git stash && git checkout main)', command: 'git stash && git checkout main', content: 'const a = 1;\nconst b = 20;\n', output: "Switched to branch 'main'" },
  ];
  for (const c of ownChanges) {
    void test(`the change made by the session itself, ${c.name}: nothing`, async () => {
      const { rollout, file, step } = await setup();
      await step((r) => r.user('bump a').shell('c1', 'cat src/app.ts').output('c1', 'const a = 1;'));
      await env.monitor!.tree!.settle(file);
      await step((r) => r.shell('c2', c.command));
      writeFileSync(file, c.content);
      await changedTo(file, c.content, 'the session’s change');
      await step((r) => r.output('c2', c.output));
      await step((r) => r.patch('c3', patch('src/app.ts')).output('c3', 'Done!', true).say('done'));
      assert.deepEqual(env.monitor!.findings.forFile(rollout), []);
      const authors = env.monitor!.tree!.history(file).map((x) => x.by.kind);
      assert.ok(authors.length >= 1 && authors.every((k) => k === 'session'), `authors: ${authors.join(', ')}`);
    });
  }

  void test('a read of a pathname pattern: the session knows the file it matched, the tree follows real paths only', async () => {
    const { rollout, file, step } = await setup();
    const other = path.join(env.workspace, 'src', 'b.ts');
    writeFileSync(other, 'const c = 1;\n');
    await step((r) => r.user('bump a').shell('c1', 'cat src/*.ts').output('c1', 'const a = 1;\nconst b = 2;\nconst c = 1;'));
    await step((r) => r.shell('c2', 'cat src/b.ts').output('c2', 'const c = 1;'));
    assert.equal(env.monitor!.tree!.isTracked(path.join(env.workspace, 'src', '*.ts')), false, 'a pattern is no path to follow');
    assert.equal(env.monitor!.tree!.isTracked(other), true, 'a literal read is followed');
    // The patch of a file the pattern matched is no write before a read.
    await step((r) => r.patch('c3', patch('src/app.ts')).output('c3', 'Done!', true).say('done'));
    assert.deepEqual(env.monitor!.findings.forFile(rollout), []);
    assert.ok(env.monitor!.tree!.isTracked(file));
  });

  void test('two sessions writing one file blind to each other: concurrent-write and stale-write', async () => {
    const { rollout, file, step } = await setup();
    mkdirSync(env.projectDir, { recursive: true });
    const claudeFile = path.join(env.projectDir, 'c1.jsonl');
    const t = new ClaudeTranscript('c1', env.workspace);
    let written = 0;
    const claudeStep = async (fn: (t: ClaudeTranscript) => void): Promise<void> => {
      fn(t);
      appendFileSync(claudeFile, t.lines.slice(written).map((l) => l + '\n').join(''));
      written = t.lines.length;
      await waitFor(() => (env.monitor!.session(claudeFile)?.bytes ?? 0) >= Buffer.byteLength(t.text()), 15_000, 'claude line read');
      await env.monitor!.idle();
    };
    const v1 = 'const a = 1;\nconst b = 2;\n';
    // Both sessions read the file.
    await claudeStep((x) => x.user('edit b').read('m1', 'toolu_R', file, v1));
    await step((r) => r.user('bump a').shell('c1', 'cat src/app.ts').output('c1', v1));
    await env.monitor!.tree!.settle(file);
    // Claude writes it (call, the write landing, result).
    await claudeStep((x) => x.call('m2', 'toolu_W', 'Edit', { file_path: file, old_string: 'b = 2', new_string: 'b = 9' }));
    writeFileSync(file, 'const a = 1;\nconst b = 9;\n');
    await changedTo(file, 'const a = 1;\nconst b = 9;\n', 'claude’s write');
    await claudeStep((x) => x.editResult('toolu_W', file, v1, 'b = 2', 'b = 9').say('m3', 'done'));
    // Codex, which never read Claude's write, patches the file.
    await step((r) => r.patch('c2', patch('src/app.ts')).output('c2', 'Done!', true).say('done'));
    const findings = env.monitor!.findings.forFile(rollout);
    assert.deepEqual(findings.map((f) => `${f.rule}:${f.messageId}`).sort(), ['concurrent-write:interleaved', 'stale-write:live']);
    const cw = findings.find((f) => f.rule === 'concurrent-write')!;
    assert.match(cw.message, /without reading the write session c1 made to it/);
    assert.deepEqual([path.basename(cw.related[0]!.file), cw.related[0]!.line], ['c1.jsonl', t.lineOf('toolu_W')]);
    assert.deepEqual(env.monitor!.findings.forFile(claudeFile), [], 'the first writer did nothing wrong');
  });
});
