/**
 * A user's save while the agent's write waits on its permission prompt is not the write's: the
 * session applied its edit on top of a version it never saw, so it has not seen the file whole,
 * and its next whole-file write would erase the user's change (real hook process, real watcher).
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { geminiProjectHash } from '../../../src/core/discovery/locations';
import { ClaudeTranscript } from '../support/claude';
import { sleep } from '../support/wait';
import { GuardEnv, payloads, UserSaveLog } from './support/guardEnv';

let env: GuardEnv | undefined;
afterEach(async () => {
  await env?.dispose();
  env = undefined;
});

const clock = /\d\d:\d\d:\d\d/.source;

function allowed(r: { code: number | null; stdout: string; stderr: string }): void {
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
}

function denied(r: { code: number | null; stdout: string; stderr: string }): string {
  assert.equal(r.code, 2, r.stderr);
  return r.stderr.trimEnd();
}

async function session(opts: { userSaves?: boolean } = {}) {
  env = new GuardEnv();
  const g = env;
  const file = g.file('perm2.txt', 'line1\nline2\n');
  const saves = new UserSaveLog();
  await g.start(opts.userSaves ? { monitor: { isUserSave: saves.isUserSave } } : {});
  const claude = { sessionId: 'c1', transcript: path.join(g.live.projectDir, 'c1.jsonl'), cwd: g.workspace };
  mkdirSync(g.live.projectDir, { recursive: true });
  const t = new ClaudeTranscript('c1', g.workspace).user('edit it');
  const flush = g.transcriptWriter(claude.transcript, t);
  const hook = (event: 'PreToolUse' | 'PostToolUse', tool: string, input: Record<string, unknown>, id: string) =>
    g.hook(payloads.claude(event, claude, tool, { file_path: file, ...input }, id), ['--agent', 'claude']);
  const userSave = async (content: string): Promise<void> => {
    saves.save(file, content);
    await sleep(400);
  };
  /**
   * The session reads the file (its transcript, then its hook), and the guard allows its Edit of
   * line1; the transcript then records the call, unless `recorded` is false.
   */
  const readThenEdit = async (recorded = true): Promise<{ old_string: string; new_string: string }> => {
    t.read('m1', 'toolu_R1', file, 'line1\nline2\n');
    await flush();
    allowed(await hook('PostToolUse', 'Read', {}, 'toolu_R1'));
    const edit = { old_string: 'line1', new_string: 'LINE1' };
    allowed(await hook('PreToolUse', 'Edit', edit, 'toolu_E1'));
    if (recorded) {
      t.call('m2', 'toolu_E1', 'Edit', { file_path: file, ...edit, replace_all: false });
      await flush();
    }
    return edit;
  };
  return { g, file, t, flush, hook, userSave, readThenEdit };
}

void describe('guard: a change made while the session’s write waits', () => {
  void test('the user saves while an Edit waits on its prompt: the Edit is not credited with the save, and the next Write is stale', async () => {
    const { file, t, flush, hook, userSave, readThenEdit } = await session({ userSaves: true });
    const edit = await readThenEdit();
    // The permission prompt is up; the user saves their own change meanwhile.
    await userSave('line1\nuser-line2\n');
    // The user allows the Edit: it lands on top of their save.
    writeFileSync(file, 'LINE1\nuser-line2\n');
    await sleep(100);
    allowed(await hook('PostToolUse', 'Edit', edit, 'toolu_E1'));
    t.editResult('toolu_E1', file, 'line1\nuser-line2\n', 'line1', 'LINE1');
    await flush();
    const reason = denied(await hook('PreToolUse', 'Write', { content: 'LINE1\nline2\nline3\n' }, 'toolu_W1'));
    assert.match(reason, new RegExp(`^perm2\\.txt changed on disk after you last read it \\(by the user at ${clock}\\)\\. Read it again, then redo the write\\.$`));
    // An edit too: the guard cannot tell which lines it quotes.
    denied(await hook('PreToolUse', 'Edit', { old_string: 'user-line2', new_string: 'x' }, 'toolu_E2'));
    // Once it reads the file again, it may write it.
    t.read('m3', 'toolu_R2', file, 'LINE1\nuser-line2\n');
    await flush();
    allowed(await hook('PostToolUse', 'Read', {}, 'toolu_R2'));
    allowed(await hook('PreToolUse', 'Write', { content: 'LINE1\nuser-line2\nline3\n' }, 'toolu_W2'));
  });

  void test('the transcript’s result before the Edit’s own hook: the next Write is still stale', async () => {
    const { file, t, flush, hook, userSave, readThenEdit } = await session();
    const edit = await readThenEdit(false);
    await userSave('line1\nuser-line2\n');
    writeFileSync(file, 'LINE1\nuser-line2\n');
    await sleep(100);
    t.call('m2', 'toolu_E1', 'Edit', { file_path: file, ...edit, replace_all: false }).editResult('toolu_E1', file, 'line1\nuser-line2\n', 'line1', 'LINE1');
    await flush();
    allowed(await hook('PostToolUse', 'Edit', edit, 'toolu_E1'));
    const reason = denied(await hook('PreToolUse', 'Write', { content: 'LINE1\nline2\nline3\n' }, 'toolu_W1'));
    assert.match(reason, new RegExp(`^perm2\\.txt changed on disk after you last read it \\(by an unattributed process at ${clock}\\)\\. Read it again, then redo the write\\.$`));
  });

  void test('a formatter hook rewrites the file after the session’s Edit, before the guard’s own hook: the next edit is allowed', async () => {
    const { file, t, flush, hook, readThenEdit } = await session();
    const edit = await readThenEdit();
    await sleep(400);
    writeFileSync(file, 'LINE1\nline2\n');
    await sleep(500);
    writeFileSync(file, 'LINE1\nline2 \n');
    await sleep(100);
    allowed(await hook('PostToolUse', 'Edit', edit, 'toolu_E1'));
    t.editResult('toolu_E1', file, 'line1\nline2\n', 'line1', 'LINE1');
    await flush();
    allowed(await hook('PreToolUse', 'Edit', { old_string: 'line2 ', new_string: 'LINE2' }, 'toolu_E2'));
  });

  void test('no change while it waits: the session’s own Edit, then its Write, are allowed', async () => {
    const { file, t, flush, hook, readThenEdit } = await session();
    const edit = await readThenEdit();
    await sleep(400);
    writeFileSync(file, 'LINE1\nline2\n');
    allowed(await hook('PostToolUse', 'Edit', edit, 'toolu_E1'));
    t.editResult('toolu_E1', file, 'line1\nline2\n', 'line1', 'LINE1');
    await flush();
    await sleep(400);
    allowed(await hook('PreToolUse', 'Write', { content: 'LINE1\nline2\nline3\n' }, 'toolu_W1'));
  });

  void test('a Write that waited while the user saved replaced the whole file: the session knows it all after, its next edit is allowed', async () => {
    const { file, t, flush, hook, userSave } = await session({ userSaves: true });
    t.read('m1', 'toolu_R1', file, 'line1\nline2\n');
    await flush();
    allowed(await hook('PostToolUse', 'Read', {}, 'toolu_R1'));
    const write = { content: 'LINE1\nline2\n' };
    allowed(await hook('PreToolUse', 'Write', write, 'toolu_W1'));
    t.call('m2', 'toolu_W1', 'Write', { file_path: file, ...write });
    await flush();
    await userSave('line1\nuser-line2\n');
    writeFileSync(file, write.content);
    await sleep(100);
    allowed(await hook('PostToolUse', 'Write', write, 'toolu_W1'));
    t.result('toolu_W1', `The file ${file} has been updated successfully.`, {
      toolUseResult: { type: 'update', filePath: file, content: write.content, structuredPatch: [], originalFile: 'line1\nuser-line2\n' },
    });
    await flush();
    allowed(await hook('PreToolUse', 'Edit', { old_string: 'line2', new_string: 'LINE2' }, 'toolu_E2'));
  });

  for (const hookFirst of [true, false]) {
    void test(`Gemini CLI: the user saves while a replace waits on its prompt: its result’s originalContent shows it, and the next write_file is stale (${hookFirst ? 'its AfterTool hook' : 'its transcript line'} first)`, async () => {
      env = new GuardEnv();
      const g = env;
      const file = g.file('perm2.txt', 'line1\nline2\n');
      const saves = new UserSaveLog();
      await g.start({ monitor: { isUserSave: saves.isUserSave } });
      const id = '0b7d3c1e-5a2f-4c69-9e1d-7f3a2b8c4d10';
      const chats = path.join(g.live.root, '.gemini', 'tmp', geminiProjectHash(g.workspace), 'chats');
      mkdirSync(chats, { recursive: true });
      const transcript = path.join(chats, 'session-2026-12-03T17-00-0b7d3c1e.jsonl');
      const now = (): string => new Date().toISOString();
      const lines = [
        JSON.stringify({ sessionId: id, projectHash: geminiProjectHash(g.workspace), startTime: now(), lastUpdated: now(), kind: 'main' }),
        JSON.stringify({ id: 'u1', timestamp: now(), type: 'user', content: [{ text: 'edit it' }] }),
      ];
      const flush = g.transcriptWriter(transcript, { lines, text: () => lines.map((l) => l + '\n').join('') });
      /** A model turn with one call and its result, as Gemini CLI 0.61 records it: the turn, then the result as the user's. */
      const turn = (msg: string, call: Record<string, unknown>, output: string, display?: Record<string, unknown>): void => {
        const response = { functionResponse: { id: call['id'], name: call['name'], response: { output } } };
        lines.push(
          JSON.stringify({ id: msg, timestamp: now(), type: 'gemini', content: '', toolCalls: [{ ...call, result: [response], status: 'success', timestamp: now(), ...(display ? { resultDisplay: display } : {}) }] }),
          JSON.stringify({ id: `${msg}-r`, timestamp: now(), type: 'user', content: [response] }),
        );
      };
      const s = { sessionId: id, transcript, cwd: g.workspace };
      const hook = (event: 'BeforeTool' | 'AfterTool', tool: string, input: Record<string, unknown>) =>
        g.hook(payloads.gemini(event, s, tool, { file_path: file, ...input }), ['--agent', 'gemini']);

      turn('m1', { id: 'read_file_1_0', name: 'read_file', args: { file_path: file } }, 'line1\nline2\n');
      await flush();
      allowed(await hook('AfterTool', 'read_file', {}));
      const edit = { old_string: 'line1', new_string: 'LINE1', instruction: 'capitals' };
      allowed(await hook('BeforeTool', 'replace', edit));
      // The confirmation is up; the user saves their own change meanwhile, then allows the replace.
      saves.save(file, 'line1\nuser-line2\n');
      await sleep(400);
      writeFileSync(file, 'LINE1\nuser-line2\n');
      await sleep(100);
      if (hookFirst) {
        allowed(await hook('AfterTool', 'replace', edit));
      }
      turn('m2', { id: 'replace_2_0', name: 'replace', args: { file_path: file, ...edit } }, `Successfully modified file: ${file} (1 replacements).`, {
        fileName: 'perm2.txt',
        filePath: file,
        originalContent: 'line1\nuser-line2\n',
        newContent: 'LINE1\nuser-line2\n',
        isNewFile: false,
      });
      await flush();
      if (!hookFirst) {
        allowed(await hook('AfterTool', 'replace', edit));
      }
      const reason = denied(await hook('BeforeTool', 'write_file', { content: 'LINE1\nline2\nline3\n' }));
      assert.match(reason, new RegExp(`^perm2\\.txt changed on disk after you last read it \\(by the user at ${clock}\\)\\. Read it again, then redo the write\\.$`));
    });
  }
});
