/**
 * One file, two spellings: a session that reads a file through a symbolic link and writes it by
 * its real path (or the other way round) is judged on the one file (real hook process, real
 * watcher, a real link).
 */
import assert from 'node:assert/strict';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import type { GuardPolicy } from '../../../src/core/guard/types';
import { sleep } from '../support/wait';
import { GuardEnv, payloads } from './support/guardEnv';

let env: GuardEnv | undefined;
afterEach(async () => {
  await env?.dispose();
  env = undefined;
});

function allowed(r: { code: number | null; stdout: string; stderr: string }): void {
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
}

function denied(r: { code: number | null; stdout: string; stderr: string }): string {
  assert.equal(r.code, 2, r.stderr);
  return r.stderr.trimEnd();
}

/** A workspace with `y.txt`, and `wslink` beside it, a link to it; the session works in the workspace. */
async function linked(policy?: Partial<GuardPolicy>) {
  env = new GuardEnv();
  const g = env;
  const real = g.file('y.txt', 'one\n');
  const link = path.join(g.live.root, 'wslink');
  symlinkSync(g.workspace, link, 'dir');
  await g.start(policy ? { policy } : {});
  const claude = { sessionId: 'c1', transcript: path.join(g.live.projectDir, 'c1.jsonl'), cwd: g.workspace };
  const hook = (event: 'PreToolUse' | 'PostToolUse', tool: string, input: Record<string, unknown>, id: string) =>
    g.hook(payloads.claude(event, claude, tool, input, id), ['--agent', 'claude']);
  return { real, viaLink: path.join(link, 'y.txt'), hook };
}

void describe('guard: a file reached through a symbolic link is the file', () => {
  void test('read by its real path, changed, written through the link: denied as stale, not as never read', async () => {
    const { real, viaLink, hook } = await linked();
    allowed(await hook('PostToolUse', 'Read', { file_path: real }, 'toolu_R'));
    await sleep(50);
    writeFileSync(real, 'two\n');
    const reason = denied(await hook('PreToolUse', 'Write', { file_path: viaLink, content: 'three\n' }, 'toolu_W'));
    assert.match(reason, /changed on disk after you last read it/);
    assert.doesNotMatch(reason, /have not read it/);
  });

  void test('with unread-write only a warning, the stale write through the link is still denied', async () => {
    const { real, viaLink, hook } = await linked({ 'unread-write': 'warn' });
    allowed(await hook('PostToolUse', 'Read', { file_path: real }, 'toolu_R'));
    await sleep(50);
    writeFileSync(real, 'two\n');
    const reason = denied(await hook('PreToolUse', 'Write', { file_path: viaLink, content: 'three\n' }, 'toolu_W'));
    assert.match(reason, /changed on disk after you last read it/);
  });

  void test('read through the link, written by its real path (and back): allowed', async () => {
    const { real, viaLink, hook } = await linked();
    allowed(await hook('PostToolUse', 'Read', { file_path: viaLink }, 'toolu_R'));
    allowed(await hook('PreToolUse', 'Write', { file_path: real, content: 'two\n' }, 'toolu_W1'));
    writeFileSync(real, 'two\n');
    allowed(await hook('PostToolUse', 'Write', { file_path: real, content: 'two\n' }, 'toolu_W1'));
    await sleep(400);
    allowed(await hook('PreToolUse', 'Edit', { file_path: viaLink, old_string: 'two', new_string: 'three' }, 'toolu_E1'));
  });

  void test('a new file through the link: its folder resolves it, so the session’s write of it is its own', async () => {
    const { real, viaLink, hook } = await linked();
    const fresh = path.join(path.dirname(viaLink), 'new.txt');
    allowed(await hook('PreToolUse', 'Write', { file_path: fresh, content: 'n\n' }, 'toolu_W1'));
    writeFileSync(path.join(path.dirname(real), 'new.txt'), 'n\n');
    allowed(await hook('PostToolUse', 'Write', { file_path: fresh, content: 'n\n' }, 'toolu_W1'));
    await sleep(400);
    allowed(await hook('PreToolUse', 'Edit', { file_path: path.join(path.dirname(real), 'new.txt'), old_string: 'n', new_string: 'm' }, 'toolu_E1'));
  });

  void test('a link replaced by a file of its own: the write of it is judged on the new file, not on the one the link named', async () => {
    env = new GuardEnv();
    const g = env;
    const shared = g.file('shared.txt', 'shared\n');
    const name = g.file('name.txt');
    symlinkSync(shared, name);
    await g.start();
    const claude = { sessionId: 'c1', transcript: path.join(g.live.projectDir, 'c1.jsonl'), cwd: g.workspace };
    const hook = (event: 'PreToolUse' | 'PostToolUse', tool: string, input: Record<string, unknown>, id: string) =>
      g.hook(payloads.claude(event, claude, tool, input, id), ['--agent', 'claude']);
    allowed(await hook('PostToolUse', 'Read', { file_path: name }, 'toolu_R'));
    // The user makes name.txt a file of its own; shared.txt, which the session read, is unchanged.
    rmSync(name);
    writeFileSync(name, 'the user’s own\n');
    await sleep(50);
    const reason = denied(await hook('PreToolUse', 'Write', { file_path: name, content: 'agent\n' }, 'toolu_W'));
    assert.match(reason, /name\.txt already exists and you have not read it/);
    // And the other way: a file that becomes a link is judged on the file it now names.
    allowed(await hook('PostToolUse', 'Read', { file_path: shared }, 'toolu_R2'));
    rmSync(name);
    symlinkSync(shared, name);
    await sleep(50);
    allowed(await hook('PreToolUse', 'Write', { file_path: name, content: 'agent\n' }, 'toolu_W2'));
  });
});
