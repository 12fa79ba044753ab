/**
 * End to end with real processes: the built dist/hook.js, run with Claude Code, Copilot,
 * Gemini CLI and Codex hook payloads on stdin, asks a running GuardService backed by a real
 * LiveMonitor on temp folders (run `node esbuild.config.mjs` first).
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { geminiProjectHash } from '../../../src/core/discovery/locations';
import type { GuardPolicy } from '../../../src/core/guard/types';
import { HookLedger } from '../../../src/io/guard/ledger';
import { GuardService } from '../../../src/io/guard/service';
import { ledgerPathFor, socketPathFor } from '../../../src/io/guard/socketPath';
import { hashText } from '../../../src/io/workTree';
import { UserSaves } from '../../../src/vscode/userSaves';
import { seedsRace } from '../repair/cases';
import { ClaudeTranscript } from '../support/claude';
import { cli, spawnCli } from '../support/cli';
import { CodexRollout } from '../support/codex';
import { sleep, waitFor } from '../support/wait';
import { GuardEnv, payloads, runHook, UserSaveLog } from './support/guardEnv';

let env: GuardEnv | undefined;
afterEach(async () => {
  await env?.dispose();
  env = undefined;
});

const v1 = 'const a = 1;\nconst b = 2;\n';
const clock = /\d\d:\d\d:\d\d/.source;

async function setup(policy?: Partial<GuardPolicy>): Promise<{ g: GuardEnv; file: string; claude: { sessionId: string; transcript: string; cwd: string } }> {
  env = new GuardEnv();
  const file = env.file('src/app.ts', v1);
  await env.start(policy ? { policy } : {});
  const claude = { sessionId: 'c1', transcript: path.join(env.live.projectDir, 'c1.jsonl'), cwd: env.workspace };
  return { g: env, file, claude };
}

function denied(r: { code: number | null; stdout: string; stderr: string }, agent: 'claude' | 'gemini' | 'codex'): string {
  assert.equal(r.code, 2, r.stderr);
  const reason = r.stderr.trimEnd();
  const out = JSON.parse(r.stdout) as Record<string, unknown>;
  if (agent === 'gemini') {
    assert.deepEqual(out, { decision: 'deny', reason });
  } else {
    assert.deepEqual(out, { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } });
  }
  return reason;
}

function allowed(r: { code: number | null; stdout: string; stderr: string }): void {
  assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', '']);
}

const patchOf = (rel: string): string => `*** Begin Patch\n*** Update File: ${rel}\n@@\n-const a = 1;\n+const a = 2;\n*** End Patch`;

/**
 * A Codex rollout in the monitor's Codex folder, appended step by step and read before the next;
 * with `parent`, a sub-agent's (0.171's session_meta: `session_id` the root thread, `parent_thread_id`).
 */
function codexSession(g: GuardEnv, id: string, parent?: string): { rollout: string; step: (fn: (r: CodexRollout) => void) => Promise<void> } {
  const day = path.join(g.live.codexHome, 'sessions', '2026', '01', '02');
  mkdirSync(day, { recursive: true });
  const rollout = path.join(day, `rollout-2026-01-02T03-04-05-${id}.jsonl`);
  const r = new CodexRollout(id, g.workspace, parent === undefined);
  if (parent !== undefined) {
    const spawn = { parent_thread_id: parent, depth: 1, agent_path: null, agent_nickname: 'Herschel', agent_role: null };
    r.item('session_meta', { session_id: parent, id, parent_thread_id: parent, cwd: g.workspace, originator: 'codex_exec', cli_version: '0.171.0', source: { subagent: { thread_spawn: spawn } }, thread_source: 'subagent' });
  }
  let written = 0;
  return {
    rollout,
    step: async (fn) => {
      fn(r);
      appendFileSync(rollout, r.lines.slice(written).map((l) => l + '\n').join(''));
      written = r.lines.length;
      await waitFor(() => (g.live.monitor!.session(rollout)?.bytes ?? 0) >= Buffer.byteLength(r.text()), 5000, 'the rollout read');
      await g.live.monitor!.idle();
    },
  };
}

void describe('guard hook end to end', () => {
  void test('Claude Code: fresh read then write is allowed; a foreign change in between is denied, naming it', async () => {
    const { g, file, claude } = await setup();
    allowed(await g.hook(payloads.claude('PostToolUse', claude, 'Read', { file_path: file }, 'toolu_R1'), ['--agent', 'claude']));
    allowed(await g.hook(payloads.claude('PreToolUse', claude, 'Edit', { file_path: file, old_string: '1', new_string: '2' }, 'toolu_E1'), ['--agent', 'claude']));
    writeFileSync(file, 'const a = 2;\nconst b = 2;\n');
    allowed(await g.hook(payloads.claude('PostToolUse', claude, 'Edit', { file_path: file, old_string: '1', new_string: '2' }, 'toolu_E1'), ['--agent', 'claude']));
    // Its own write does not make the next edit stale.
    allowed(await g.hook(payloads.claude('PreToolUse', claude, 'Edit', { file_path: file, old_string: 'b = 2', new_string: 'b = 3' }, 'toolu_E2'), ['--agent', 'claude']));
    allowed(await g.hook(payloads.claude('PostToolUse', claude, 'Edit', { file_path: file, old_string: 'b = 2', new_string: 'b = 3' }, 'toolu_E2'), ['--agent', 'claude']));
    // Someone else changes the file.
    await sleep(50);
    writeFileSync(file, 'const a = 2;\nconst b = 2; // by hand\n');
    const reason = denied(await g.hook(payloads.claude('PreToolUse', claude, 'Write', { file_path: file, content: 'x' }, 'toolu_W'), ['--agent', 'claude']), 'claude');
    assert.match(reason, new RegExp(`^src/app\\.ts changed on disk after you last wrote it \\(by an unattributed process at ${clock}\\)\\. Read it again, then redo the write\\.$`));
    // The decision is a finding, on the transcript, and in the ledger.
    const f = g.live.monitor!.findings.forFile(claude.transcript);
    assert.deepEqual(
      f.map((x) => `${x.rule}:${x.messageId}:${x.severity}`),
      ['guard:stale-write:error'],
    );
    assert.match(f[0]!.message, /^The guard denied Write of src\/app\.ts: the file had changed on disk since the session last saw it\. The agent was told: src\/app\.ts changed/);
    assert.equal(g.ledger.covers('c1'), true);
    assert.equal(g.ledger.lookup('c1', 'toolu_W')?.tool, 'Write');
    assert.ok(g.logs.some((l) => /\[guard\] deny Write of src\/app\.ts by claude session c1: stale-write/.test(l)));
  });

  void test('the ledger says when the service answered the hooks, so a later check judges only calls it could have seen', async () => {
    const started = Date.now();
    const { g, file, claude } = await setup();
    allowed(await g.hook(payloads.claude('PostToolUse', claude, 'Read', { file_path: file }, 'toolu_R0'), ['--agent', 'claude']));
    allowed(await g.hook(payloads.claude('PreToolUse', claude, 'Edit', { file_path: file, old_string: '1', new_string: '2' }, 'toolu_S1'), ['--agent', 'claude']));
    const answered = Date.now();
    await g.service.close();
    const stopped = Date.now();
    // Without a service the hook answers alone and records nothing.
    const alone = await g.hook(payloads.claude('PreToolUse', claude, 'Edit', { file_path: file, old_string: '2', new_string: '3' }, 'toolu_S2'), ['--agent', 'claude'], { AGENT_GUARD_HANDOVER_MS: '0' });
    assert.equal(alone.code, 0);
    assert.match((JSON.parse(alone.stdout) as { systemMessage: string }).systemMessage, /no guard service is running/);
    const back = await HookLedger.load(ledgerPathFor(g.workspace, g.dir));
    assert.ok(back.lookup('c1', 'toolu_S1'));
    assert.equal(back.lookup('c1', 'toolu_S2'), undefined);
    assert.equal(back.servedThrough(answered, answered), true);
    assert.equal(back.servedThrough(started - 1000, answered), false, 'not before it started');
    assert.equal(back.servedThrough(answered, stopped + 1000), false, 'not after it stopped');
  });

  void test('the user’s change is named as such (the host says which saves are the user’s)', async () => {
    env = new GuardEnv();
    const file = env.file('src/app.ts', v1);
    const saves = new UserSaveLog();
    await env.start({ monitor: { isUserSave: saves.isUserSave } });
    const claude = { sessionId: 'c1', transcript: path.join(env.live.projectDir, 'c1.jsonl'), cwd: env.workspace };
    allowed(await env.hook(payloads.claude('PostToolUse', claude, 'Read', { file_path: file }, 'toolu_R'), ['--agent', 'claude']));
    saves.save(file, 'const a = 9;\n');
    const reason = denied(await env.hook(payloads.claude('PreToolUse', claude, 'Edit', { file_path: file, old_string: 'a', new_string: 'b' }, 'toolu_E'), ['--agent', 'claude']), 'claude');
    assert.match(reason, new RegExp(`^src/app\\.ts changed on disk after you last read it \\(by the user at ${clock}\\)\\. Read it again, then redo the edit\\.$`));
  });

  void test('a save whose content the host learns after the change is seen (a notebook, read back) is still named the user’s', async () => {
    env = new GuardEnv();
    const file = env.file('src/app.ts', v1);
    // As the extension records a notebook's save: begun, then the file read back a moment
    // after the write, only then is its hash known to be the user's.
    const saves = new UserSaves();
    await env.start({ monitor: { isUserSave: (p, at, hash) => saves.isUserSave(p, at, hash), userSavePending: (p) => saves.pending(p) } });
    const claude = { sessionId: 'c1', transcript: path.join(env.live.projectDir, 'c1.jsonl'), cwd: env.workspace };
    allowed(await env.hook(payloads.claude('PostToolUse', claude, 'Read', { file_path: file }, 'toolu_R'), ['--agent', 'claude']));
    const saved = 'const a = 9;\n';
    saves.beginNotebookSave(file, Date.now());
    writeFileSync(file, saved);
    const readBack = setTimeout(() => saves.notebookSaveRead(file, hashText(saved), Date.now()), 300);
    try {
      // The hook's answer waits for the tree's hash of the change, which waits for the read-back.
      const reason = denied(await env.hook(payloads.claude('PreToolUse', claude, 'Edit', { file_path: file, old_string: 'a', new_string: 'b' }, 'toolu_E'), ['--agent', 'claude']), 'claude');
      assert.match(reason, new RegExp(`^src/app\\.ts changed on disk after you last read it \\(by the user at ${clock}\\)\\. Read it again, then redo the edit\\.$`));
    } finally {
      clearTimeout(readBack);
    }
  });

  void test('Gemini CLI: AfterTool read then BeforeTool write allowed; after a foreign change denied', async () => {
    const { g, file } = await setup();
    const s = { sessionId: 'g1', transcript: path.join(g.live.root, '.gemini', 'tmp', 'h', 'chats', 'session-g1.json'), cwd: g.workspace };
    allowed(await g.hook(payloads.gemini('AfterTool', s, 'read_file', { file_path: file }), ['--agent', 'gemini']));
    allowed(await g.hook(payloads.gemini('BeforeTool', s, 'replace', { file_path: file, old_string: '1', new_string: '2', instruction: 'x' }), ['--agent', 'gemini']));
    writeFileSync(file, 'const a = 2;\nconst b = 2;\n');
    allowed(await g.hook(payloads.gemini('AfterTool', s, 'replace', { file_path: file, old_string: '1', new_string: '2', instruction: 'x' }), ['--agent', 'gemini']));
    await sleep(50);
    writeFileSync(file, 'rewritten by someone\n');
    const reason = denied(await g.hook(payloads.gemini('BeforeTool', s, 'write_file', { file_path: file, content: 'y' }), ['--agent', 'gemini']), 'gemini');
    assert.match(reason, /^src\/app\.ts changed on disk after you last wrote it \(by an unattributed process at/);
    // Write-before-read of another existing file.
    const other = g.file('src/other.ts', 'x\n');
    assert.match(denied(await g.hook(payloads.gemini('BeforeTool', s, 'replace', { file_path: other, old_string: 'x', new_string: 'y' }), ['--agent', 'gemini']), 'gemini'), /^src\/other\.ts already exists and you have not read it in this session/);
    // A new file needs no read.
    allowed(await g.hook(payloads.gemini('BeforeTool', s, 'write_file', { file_path: path.join(g.workspace, 'src', 'new.ts'), content: 'n' }), ['--agent', 'gemini']));
  });

  void test('Claude Code: a sub-agent’s hooks (agent_id) are its transcript’s; the main session’s write from its older read is denied', async () => {
    // The main session reads the file, its sub-agent (an Agent call) reads and edits it, then
    // the main session writes the whole file from its own read. Every hook names the main
    // session; the sub-agent's also carry its agent_id.
    const { g, file, claude } = await setup();
    const sub = { ...claude };
    const agent = { agent_id: 'a5d1c0f3e2b4a6978', agent_type: 'general-purpose' };
    const hook = (p: Record<string, unknown>, inSub: boolean) => g.hook(inSub ? { ...p, ...agent } : p, ['--agent', 'claude']);
    const edit = { file_path: file, old_string: 'const a = 1;', new_string: 'const a = 8080;' };
    allowed(await hook(payloads.claude('PostToolUse', claude, 'Read', { file_path: file }, 'toolu_R1'), false));
    allowed(await hook(payloads.claude('PostToolUse', sub, 'Read', { file_path: file }, 'toolu_R2'), true));
    allowed(await hook(payloads.claude('PreToolUse', sub, 'Edit', edit, 'toolu_E1'), true));
    await sleep(20);
    writeFileSync(file, 'const a = 8080;\nconst b = 2;\n');
    allowed(await hook(payloads.claude('PostToolUse', sub, 'Edit', edit, 'toolu_E1'), true));
    const reason = denied(await hook(payloads.claude('PreToolUse', claude, 'Write', { file_path: file, content: v1 }, 'toolu_W'), false), 'claude');
    assert.match(reason, new RegExp(`^src/app\\.ts changed on disk after you last read it \\(by your sub-agent \\(agent-a5d1c0f3e2b4a6978\\) at ${clock}\\)`));
    // The ledger files every call under the session id the hooks gave.
    assert.equal(g.ledger.lookup('c1', 'toolu_E1')?.tool, 'Edit');
    assert.equal(g.ledger.lookup('c1', 'toolu_W')?.tool, 'Write');
  });

  void test('Claude Code: a write racing the session’s own sub-agent’s write in flight names the sub-agent, not another session', async () => {
    // A background sub-agent's Edit waits on the user's permission while the main session writes
    // the same file: both read it first, so only the sub-agent's write in flight stands in the way.
    const { g, file, claude } = await setup();
    const agent = { agent_id: 'a5d1c0f3e2b4a6978', agent_type: 'general-purpose' };
    const hook = (p: Record<string, unknown>, inSub: boolean) => g.hook(inSub ? { ...p, ...agent } : p, ['--agent', 'claude']);
    const edit = { file_path: file, old_string: 'const a = 1;', new_string: 'const a = 8080;' };
    allowed(await hook(payloads.claude('PostToolUse', claude, 'Read', { file_path: file }, 'toolu_R1'), false));
    allowed(await hook(payloads.claude('PostToolUse', claude, 'Read', { file_path: file }, 'toolu_R2'), true));
    allowed(await hook(payloads.claude('PreToolUse', claude, 'Edit', edit, 'toolu_E1'), true));
    const reason = denied(await hook(payloads.claude('PreToolUse', claude, 'Write', { file_path: file, content: v1 }, 'toolu_W'), false), 'claude');
    assert.match(reason, new RegExp(`^Your sub-agent \\(agent-a5d1c0f3e2b4a6978\\) is writing src/app\\.ts right now \\(since ${clock}\\)\\.`));
  });

  void test('Gemini CLI: a running sub-agent’s hooks, which name the main session, are the sub-agent’s; the main session’s write from its older read is denied', async () => {
    // As Gemini CLI 0.61 ran `guarded-sub-agent-lost-update` (test/fixtures/generated/gemini-0.61):
    // the main session reads, its sub-agent reads and edits the file, then the main session
    // writes the whole file from its own read. Every hook names the main session.
    const { g, file } = await setup();
    const id = '6d867077-ff73-4df8-a5ec-6c4e31187807';
    const chats = path.join(g.live.root, '.gemini', 'tmp', 'proj', 'chats');
    const main = path.join(chats, 'session-2026-12-02T01-12-6d867077.jsonl');
    mkdirSync(chats, { recursive: true });
    const meta = (sessionId: string, kind: string): string =>
      JSON.stringify({ sessionId, projectHash: geminiProjectHash(g.workspace), startTime: new Date().toISOString(), lastUpdated: new Date().toISOString(), kind }) + '\n';
    writeFileSync(main, meta(id, 'main'));
    const s = { sessionId: id, transcript: main, cwd: g.workspace };
    const at = (f: string, secondsAgo: number): void => {
      const t = new Date(Date.now() - secondsAgo * 1000);
      utimesSync(f, t, t);
    };
    at(main, 30);
    allowed(await g.hook(payloads.gemini('AfterTool', s, 'read_file', { file_path: file }), ['--agent', 'gemini']));
    // The sub-agent starts (`invoke_agent`): its own file, written since the main session's.
    const sub = path.join(chats, id, '9462a13a-fce1-45ab-ac05-e1ca3a71d59c.jsonl');
    mkdirSync(path.dirname(sub), { recursive: true });
    writeFileSync(sub, meta('9462a13a-fce1-45ab-ac05-e1ca3a71d59c', 'subagent'));
    at(sub, 20);
    allowed(await g.hook(payloads.gemini('AfterTool', s, 'read_file', { file_path: file }), ['--agent', 'gemini']));
    const edit = { file_path: file, old_string: 'const a = 1;', new_string: 'const a = 8080;', instruction: 'x' };
    allowed(await g.hook(payloads.gemini('BeforeTool', s, 'replace', edit), ['--agent', 'gemini']));
    writeFileSync(file, 'const a = 8080;\nconst b = 2;\n');
    allowed(await g.hook(payloads.gemini('AfterTool', s, 'replace', edit), ['--agent', 'gemini']));
    // The sub-agent is done; the main session records the batch: its file is the newer again.
    appendFileSync(main, JSON.stringify({ $set: { lastUpdated: new Date().toISOString() } }) + '\n');
    at(main, 10);
    const reason = denied(await g.hook(payloads.gemini('BeforeTool', s, 'write_file', { file_path: file, content: v1 }), ['--agent', 'gemini']), 'gemini');
    assert.match(reason, /^src\/app\.ts changed on disk after you last read it \(by your sub-agent \(9462a13a-fce1-45ab-ac05-e1ca3a71d59c\) at /);
    assert.ok(g.logs.some((l) => /whose sub-agent 9462a13a-fce1-45ab-ac05-e1ca3a71d59c is running: taken as the sub-agent's/.test(l)), g.logs.join('\n'));
  });

  void test('Gemini CLI legacy session: a denial stands over the rewrites of the document that do not have its call yet', async () => {
    const { g } = await setup();
    const other = g.file('src/other.ts', 'x\n');
    const chats = path.join(g.live.root, '.gemini', 'tmp', geminiProjectHash(g.workspace), 'chats');
    mkdirSync(chats, { recursive: true });
    const transcript = path.join(chats, 'session-2026-03-20T10-00-g2.json');
    const monitor = g.live.monitor!;
    /** Gemini CLI rewrites the whole document on every change; waits until this version is read. */
    const rewrite = async (messages: Record<string, unknown>[]): Promise<void> => {
      const text = JSON.stringify({ sessionId: 'g2', projectHash: geminiProjectHash(g.workspace), startTime: '2026-03-20T10:00:00.000Z', lastUpdated: '2026-03-20T10:01:00.000Z', messages }, null, 2);
      writeFileSync(transcript, text);
      await waitFor(() => monitor.session(transcript)?.bytes === Buffer.byteLength(text), 15_000, 'the version read');
      await monitor.idle();
    };
    const prompt = { id: 'm1', timestamp: '2026-03-20T10:00:00.000Z', type: 'user', content: 'Tidy src/other.ts' };
    await rewrite([prompt]);
    const s = { sessionId: 'g2', transcript, cwd: g.workspace };
    denied(await g.hook(payloads.gemini('BeforeTool', s, 'replace', { file_path: other, old_string: 'x', new_string: 'y' }), ['--agent', 'gemini']), 'gemini');
    const guard = (): string[] => monitor.findings.forFile(transcript).filter((f) => f.rule === 'guard').map((f) => f.id);
    await waitFor(() => guard().length === 1, 5_000, 'the denial as a finding on the transcript');
    const ids = guard();
    // Gemini CLI goes on writing the session (the model's text, its thoughts, token counts)
    // before the call it was denied is in the document.
    await rewrite([prompt, { id: 'm2', timestamp: '2026-03-20T10:00:30.000Z', type: 'gemini', content: 'Let me tidy it.' }]);
    assert.deepEqual(guard(), ids, 'the denial is still a finding');
    assert.deepEqual(g.live.removed.filter((f) => f.rule === 'guard'), [], 'never retracted');
    // The call, denied, is in the next version: the same finding, moved onto it.
    const say = { id: 'm2', timestamp: '2026-03-20T10:00:30.000Z', type: 'gemini', content: 'Let me tidy it.' };
    const call = {
      id: 'replace_1774000040000_0',
      name: 'replace',
      args: { file_path: other, old_string: 'x', new_string: 'y' },
      result: [{ functionResponse: { id: 'replace_1774000040000_0', name: 'replace', response: { error: 'denied by the guard' } } }],
      status: 'error',
      timestamp: '2026-03-20T10:00:40.000Z',
    };
    await rewrite([prompt, say, { id: 'm3', timestamp: '2026-03-20T10:00:40.000Z', type: 'gemini', content: '', toolCalls: [call] }]);
    assert.deepEqual(guard(), ids);
    assert.ok(monitor.findings.forFile(transcript).find((f) => f.rule === 'guard')!.line > 1, 'on the call');
  });

  void test('Codex: a read in the rollout, then apply_patch allowed; after a foreign change denied; never read: denied', async () => {
    const { g, file } = await setup();
    const { rollout, step } = codexSession(g, 'x1');
    const s = { sessionId: 'x1', transcript: rollout, cwd: g.workspace };
    // Never read: denied (the envelope is in tool_input.command).
    assert.match(denied(await g.hook(payloads.codex('PreToolUse', s, patchOf('src/app.ts'), 'call_0'), ['--agent', 'codex']), 'codex'), /^src\/app\.ts already exists and you have not read it in this session\. Read it first, then redo the edit\.$/);
    await step((r) => r.user('bump a').shell('call_1', 'cat src/app.ts').output('call_1', v1));
    allowed(await g.hook(payloads.codex('PreToolUse', s, patchOf('src/app.ts'), 'call_2'), ['--agent', 'codex']));
    allowed(await g.hook(payloads.codex('PostToolUse', s, patchOf('src/app.ts'), 'call_2'), ['--agent', 'codex']));
    await sleep(50);
    writeFileSync(file, 'changed elsewhere\n');
    assert.match(denied(await g.hook(payloads.codex('PreToolUse', s, patchOf('src/app.ts'), 'call_3'), ['--agent', 'codex']), 'codex'), /^src\/app\.ts changed on disk after you last wrote it \(by an unattributed process at/);
    // A null transcript_path: the session is found by its id.
    assert.equal(denied(await g.hook(payloads.codex('PreToolUse', { ...s, transcript: null }, patchOf('src/app.ts'), 'call_4'), []), 'codex').startsWith('src/app.ts changed on disk'), true);
  });

  void test('Codex: a sub-agent’s hooks (its own rollout, the root thread’s session_id) are its own; the main session’s write from its older read is denied, naming the sub-agent', async () => {
    // As Codex CLI 0.171 ran `subagent-lost-update-guarded` (test/fixtures/generated/codex-0.171):
    // the main session reads, spawns a sub-agent that reads and patches the file, then writes the
    // whole file from its own read. The sub-agent's hooks carry the root thread's session_id, its
    // own rollout as transcript_path, and agent_id.
    const { g, file } = await setup();
    const root = '01a23472-9e72-7e91-a6c2-bd26dd4c6b94';
    const child = '01a23472-ab63-7961-b20c-06a32a853ab4';
    const main = codexSession(g, root);
    const sub = codexSession(g, child, root);
    const s = { sessionId: root, transcript: main.rollout, cwd: g.workspace };
    const inSub = (p: Record<string, unknown>): Record<string, unknown> => ({ ...p, transcript_path: sub.rollout, agent_id: child, agent_type: 'default' });
    await main.step((r) => r.user('host 0.0.0.0').shell('call_r1', 'cat src/app.ts').output('call_r1', v1));
    await sub.step((r) => r.user('port 8080').shell('call_child_r1', 'cat src/app.ts').output('call_child_r1', v1));
    allowed(await g.hook(inSub(payloads.codex('PreToolUse', s, patchOf('src/app.ts'), 'call_child_w1')), ['--agent', 'codex']));
    await sleep(20);
    writeFileSync(file, 'const a = 2;\nconst b = 2;\n');
    allowed(await g.hook(inSub(payloads.codex('PostToolUse', s, patchOf('src/app.ts'), 'call_child_w1')), ['--agent', 'codex']));
    const overwrite = `*** Begin Patch\n*** Add File: src/app.ts\n+const a = 1;\n+const b = 3;\n*** End Patch`;
    const reason = denied(await g.hook(payloads.codex('PreToolUse', s, overwrite, 'call_w1'), ['--agent', 'codex']), 'codex');
    assert.match(reason, new RegExp(`^src/app\\.ts changed on disk after you last read it \\(by your sub-agent \\(${child}\\) at ${clock}\\)`));
  });

  void test('Codex: a sub-agent’s write in flight, from a rollout not read yet, is named by its own thread id, not the root thread’s', async () => {
    // The sub-agent's first call comes before the monitor has read its rollout: the only name at
    // hand is the rollout's, `rollout-<time>-<thread id>.jsonl` (its hooks give the root's id).
    const { g } = await setup({ 'unread-write': 'off' });
    const root = '01a23472-9e72-7e91-a6c2-bd26dd4c6b94';
    const child = '01a23472-ab63-7961-b20c-06a32a853ab4';
    const main = codexSession(g, root);
    const s = { sessionId: root, transcript: main.rollout, cwd: g.workspace };
    const rollout = path.join(path.dirname(main.rollout), `rollout-2026-01-02T03-04-06-${child}.jsonl`);
    const inSub = (p: Record<string, unknown>): Record<string, unknown> => ({ ...p, transcript_path: rollout, agent_id: child, agent_type: 'default' });
    await main.step((r) => r.user('host 0.0.0.0').shell('call_r1', 'cat src/app.ts').output('call_r1', v1));
    allowed(await g.hook(inSub(payloads.codex('PreToolUse', s, patchOf('src/app.ts'), 'call_child_w1')), ['--agent', 'codex']));
    const reason = denied(await g.hook(payloads.codex('PreToolUse', s, patchOf('src/app.ts'), 'call_w1'), ['--agent', 'codex']), 'codex');
    assert.match(reason, new RegExp(`^Your sub-agent \\(${child}\\) is writing src/app\\.ts right now`));
  });

  void test('Copilot agent mode through the Claude settings: editFiles after readFile', async () => {
    const { g, file } = await setup();
    const base = { timestamp: new Date().toISOString(), cwd: g.workspace, sessionId: 'vscode-1', transcript_path: path.join(g.live.root, 'copilot.json') };
    allowed(await g.hook({ ...base, hookEventName: 'PostToolUse', tool_name: 'readFile', tool_input: { filePath: file }, tool_use_id: 'r1', tool_response: 'ok' }, ['--agent', 'claude']));
    allowed(await g.hook({ ...base, hookEventName: 'PreToolUse', tool_name: 'editFiles', tool_input: { files: ['src/app.ts'] }, tool_use_id: 'e1' }, ['--agent', 'claude']));
    g.dirty.add(file);
    assert.match(denied(await g.hook({ ...base, hookEventName: 'PreToolUse', tool_name: 'editFiles', tool_input: { files: ['src/app.ts'] }, tool_use_id: 'e2' }, ['--agent', 'claude']), 'claude'), /^src\/app\.ts has unsaved changes in the editor/);
    // Tools the guard does not judge pass straight through (VS Code ignores matchers).
    allowed(await g.hook({ ...base, hookEventName: 'PreToolUse', tool_name: 'runInTerminal', tool_input: { command: 'ls' }, tool_use_id: 't1' }, ['--agent', 'claude']));
  });

  void test('write to a file with unsaved editor changes: denied', async () => {
    const { g, file, claude } = await setup();
    allowed(await g.hook(payloads.claude('PostToolUse', claude, 'Read', { file_path: file }, 'toolu_R'), ['--agent', 'claude']));
    g.dirty.add(file);
    const reason = denied(await g.hook(payloads.claude('PreToolUse', claude, 'Edit', { file_path: file, old_string: '1', new_string: '2' }, 'toolu_E'), ['--agent', 'claude']), 'claude');
    assert.equal(
      reason,
      'src/app.ts has unsaved changes in the editor: writing it now would conflict with them. Ask the user to save or discard them, then read src/app.ts again and redo the edit.',
    );
    assert.deepEqual(
      g.live.monitor!.findings.all().map((f) => f.messageId),
      ['dirty-buffer'],
    );
  });

  void test('write before read: denied; set to warn, allowed with the warning for the model', async () => {
    const { g, file, claude } = await setup();
    const edit = payloads.claude('PreToolUse', claude, 'Edit', { file_path: file, old_string: '1', new_string: '2' }, 'toolu_E');
    assert.equal(
      denied(await g.hook(edit, ['--agent', 'claude']), 'claude'),
      'src/app.ts already exists and you have not read it in this session. Read it first, then redo the edit.',
    );
    g.service.setPolicy({ 'unread-write': 'warn' });
    const w = await g.hook({ ...edit, tool_use_id: 'toolu_E2' }, ['--agent', 'claude']);
    assert.equal(w.code, 0);
    const out = JSON.parse(w.stdout) as { hookSpecificOutput: { additionalContext: string } };
    assert.match(out.hookSpecificOutput.additionalContext, /^agent-guard: warning: src\/app\.ts already exists/);
    assert.deepEqual(
      g.live.monitor!.findings.all().map((f) => `${f.messageId}:${f.severity}`).sort(),
      ['unread-write:error', 'unread-write:warning'],
    );
  });

  void test('two sessions: a write in flight denies the other session’s write, then its read is stale', async () => {
    const { g, file, claude } = await setup();
    const gem = { sessionId: 'g2', transcript: path.join(g.live.root, 'gemini-g2.json'), cwd: g.workspace };
    allowed(await g.hook(payloads.claude('PostToolUse', claude, 'Read', { file_path: file }, 'toolu_R'), ['--agent', 'claude']));
    allowed(await g.hook(payloads.gemini('AfterTool', gem, 'read_file', { file_path: file }), ['--agent', 'gemini']));
    // Claude's write is allowed and in flight (its post-tool report has not come).
    allowed(await g.hook(payloads.claude('PreToolUse', claude, 'Edit', { file_path: file, old_string: '1', new_string: '2' }, 'toolu_E'), ['--agent', 'claude']));
    const reason = denied(await g.hook(payloads.gemini('BeforeTool', gem, 'replace', { file_path: file, old_string: 'b', new_string: 'c' }), ['--agent', 'gemini']), 'gemini');
    assert.match(reason, new RegExp(`^Another session \\(c1\\) is writing src/app\\.ts right now \\(since ${clock}\\)\\. Wait until it is done, read src/app\\.ts again, then redo the edit\\.$`));
    writeFileSync(file, 'const a = 2;\nconst b = 2;\n');
    allowed(await g.hook(payloads.claude('PostToolUse', claude, 'Edit', { file_path: file, old_string: '1', new_string: '2' }, 'toolu_E'), ['--agent', 'claude']));
    const stale = denied(await g.hook(payloads.gemini('BeforeTool', gem, 'replace', { file_path: file, old_string: 'b', new_string: 'c' }), ['--agent', 'gemini']), 'gemini');
    assert.match(stale, new RegExp(`^src/app\\.ts changed on disk after you last read it \\(by another session \\(c1\\) at ${clock}\\)`));
    allowed(await g.hook(payloads.gemini('AfterTool', gem, 'read_file', { file_path: file }), ['--agent', 'gemini']));
    allowed(await g.hook(payloads.gemini('BeforeTool', gem, 'replace', { file_path: file, old_string: 'b', new_string: 'c' }), ['--agent', 'gemini']));
  });

  void test('repair --write refuses a transcript whose session has a write in flight, though its file is quiet', async () => {
    const { g, file, claude } = await setup();
    // A repairable transcript of this workspace, last written an hour ago: by its age, not live.
    const transcript = claude.transcript;
    mkdirSync(path.dirname(transcript), { recursive: true });
    writeFileSync(transcript, seedsRace().text().replaceAll('"cwd":"/home/dev/proj"', `"cwd":${JSON.stringify(g.workspace)}`));
    const old = new Date(Date.now() - 3600_000);
    utimesSync(transcript, old, old);
    const repair = async (...args: string[]): Promise<{ code: string; out: string; err: string }> => {
      // Asynchronous: the service answering it lives in this process.
      const p = spawnCli(['repair', ...args, transcript], { env: { AGENT_GUARD_DIR: g.dir } });
      const code = await p.exited;
      return { code, out: p.out(), err: p.err() };
    };
    allowed(await g.hook(payloads.claude('PostToolUse', claude, 'Read', { file_path: file }, 'toolu_R'), ['--agent', 'claude']));
    // Allowed, then waiting (on the user's permission, say): no post-tool report, no result.
    allowed(await g.hook(payloads.claude('PreToolUse', claude, 'Edit', { file_path: file, old_string: '1', new_string: '2' }, 'toolu_E'), ['--agent', 'claude']));
    const before = readFileSync(transcript);

    const refused = await repair('--write');
    assert.equal(refused.code, 'exit 2', refused.err);
    assert.match(refused.err, /refusing to repair .*c1\.jsonl: the session looks live: the guard service has 1 write of it in flight \(src\/app\.ts\); .*--force/);
    assert.ok(before.equals(readFileSync(transcript)), 'nothing written');
    const dry = await repair('--format', 'json');
    assert.equal(dry.code, 'exit 1', dry.err);
    const live = (JSON.parse(dry.out) as { live: { inflight: { path: string; callId?: string; since: number }[] } }).live;
    assert.deepEqual(live.inflight.map((w) => [w.path, w.callId]), [[file, 'toolu_E']]);

    // The write ends: nothing is in flight, and the repair goes through.
    allowed(await g.hook(payloads.claude('PostToolUse', claude, 'Edit', { file_path: file, old_string: '1', new_string: '2' }, 'toolu_E'), ['--agent', 'claude']));
    const written = await repair('--write');
    assert.equal(written.code, 'exit 1', written.err);
    assert.match(written.out, /Wrote .*c1\.jsonl; the original is saved as/);
  });

  void test('Claude Code: files the session knows without a call (named with @, attached after a compaction, its CLAUDE.md) are not unread writes', async () => {
    const { g, file, claude } = await setup();
    const attached = g.file('src/b.ts', 'export const b = 1;\n');
    const claudeMd = g.file('CLAUDE.md', '# Rules\n');
    const edit = (path: string, id: string): Promise<{ code: number | null; stdout: string; stderr: string }> =>
      g.hook(payloads.claude('PreToolUse', claude, 'Edit', { file_path: path, old_string: '1', new_string: '2' }, id), ['--agent', 'claude']);
    // Before the transcript says anything: both never read.
    denied(await edit(file, 'toolu_E0'), 'claude');
    mkdirSync(g.live.projectDir, { recursive: true });
    const t = new ClaudeTranscript('c1', g.workspace).compact().attachFile(attached, 'export const b = 1;\n').user('look at @src/app.ts and fix it');
    appendFileSync(claude.transcript, t.text());
    await waitFor(() => (g.live.monitor!.session(claude.transcript)?.bytes ?? 0) >= Buffer.byteLength(t.text()), 5000, 'transcript read');
    await g.live.monitor!.idle();
    allowed(await edit(file, 'toolu_E1'));
    allowed(await edit(attached, 'toolu_E2'));
    allowed(await edit(claudeMd, 'toolu_E3'));
  });

  void test('Claude Code: after EnterWorktree, the worktree’s copies of files the session knew are not unread writes', async () => {
    const { g, claude } = await setup();
    const original = g.file('main/src/a.ts', 'export const a = 1;\n');
    const copy = g.file('wt/src/a.ts', 'export const a = 1;\n');
    const never = g.file('wt/src/b.ts', 'export const b = 1;\n');
    const edit = (p: string, id: string): Promise<{ code: number | null; stdout: string; stderr: string }> =>
      g.hook(payloads.claude('PreToolUse', claude, 'Edit', { file_path: p, old_string: '1', new_string: '2' }, id), ['--agent', 'claude']);
    mkdirSync(g.live.projectDir, { recursive: true });
    const t = new ClaudeTranscript('c1', path.join(g.workspace, 'main')).user('go').read('m1', 'toolu_R', original, 'export const a = 1;\n');
    appendFileSync(claude.transcript, t.text());
    await waitFor(() => (g.live.monitor!.session(claude.transcript)?.bytes ?? 0) >= Buffer.byteLength(t.text()), 5000, 'transcript read');
    await g.live.monitor!.idle();
    denied(await edit(copy, 'toolu_E0'), 'claude');
    const before = t.text().length;
    t.inWorktree(path.join(g.workspace, 'wt'));
    appendFileSync(claude.transcript, t.text().slice(before));
    await waitFor(() => (g.live.monitor!.session(claude.transcript)?.bytes ?? 0) >= Buffer.byteLength(t.text()), 5000, 'worktree record read');
    await g.live.monitor!.idle();
    allowed(await edit(copy, 'toolu_E1'));
    denied(await edit(never, 'toolu_E2'), 'claude');
  });

  void test('Claude Code: after `mv` of a folder, the files the session knew in it are not unread writes', async () => {
    const { g, claude } = await setup();
    const before = g.file('specs/001-a/spec.md', '# Spec\n');
    mkdirSync(g.live.projectDir, { recursive: true });
    const t = new ClaudeTranscript('c1', g.workspace).user('rename the feature').read('m1', 'toolu_R', before, '# Spec\n');
    t.bash('m2', 'toolu_M', 'mv specs/001-a specs/001-b');
    renameSync(path.join(g.workspace, 'specs/001-a'), path.join(g.workspace, 'specs/001-b'));
    appendFileSync(claude.transcript, t.text());
    await waitFor(() => (g.live.monitor!.session(claude.transcript)?.bytes ?? 0) >= Buffer.byteLength(t.text()), 5000, 'transcript read');
    await g.live.monitor!.idle();
    const moved = path.join(g.workspace, 'specs/001-b/spec.md');
    allowed(await g.hook(payloads.claude('PreToolUse', claude, 'Edit', { file_path: moved, old_string: 'Spec', new_string: 'Feature' }, 'toolu_E1'), ['--agent', 'claude']));
  });

  void test('a transcript that lags the hooks cannot hide a change, and the finding moves to the call’s line', async () => {
    const { g, file, claude } = await setup();
    mkdirSync(g.live.projectDir, { recursive: true });
    allowed(await g.hook(payloads.claude('PostToolUse', claude, 'Read', { file_path: file }, 'toolu_R'), ['--agent', 'claude']));
    await sleep(50);
    writeFileSync(file, 'const a = 7;\n');
    // Only now does the transcript record the read (its content is the old one).
    const t = new ClaudeTranscript('c1', g.workspace).user('edit a').read('m1', 'toolu_R', file, v1);
    const flush = g.transcriptWriter(claude.transcript, t);
    await flush();
    denied(await g.hook(payloads.claude('PreToolUse', claude, 'Edit', { file_path: file, old_string: 'a', new_string: 'b' }, 'toolu_W'), ['--agent', 'claude']), 'claude');
    const before = g.live.monitor!.findings.forFile(claude.transcript).filter((f) => f.rule === 'guard');
    assert.deepEqual(
      before.map((f) => f.line),
      [t.lineOf('toolu_R', 2)],
      'on the last line read when the call is not in the transcript yet',
    );
    // The call (and Claude's error result for the denied call) reach the transcript.
    t.call('m2', 'toolu_W', 'Edit', { file_path: file, old_string: 'a', new_string: 'b' }).result('toolu_W', before[0]!.message, { isError: true });
    await flush();
    const after = g.live.monitor!.findings.forFile(claude.transcript).filter((f) => f.rule === 'guard');
    assert.deepEqual(
      after.map((f) => [f.id, f.line]),
      [[before[0]!.id, t.lineOf('toolu_W')]],
      'the same finding, moved',
    );
    assert.equal(g.live.announced.filter((f) => f.rule === 'guard').length, 1, 'announced once');
  });

  void test('a restarted service knows what the hooks recorded: a read as it was then (stale after the user’s change), and a read the transcript does not have yet', async () => {
    const { g, file, claude } = await setup();
    const other = g.file('src/other.ts', 'export {};\n');
    mkdirSync(g.live.projectDir, { recursive: true });
    allowed(await g.hook(payloads.claude('PostToolUse', claude, 'Read', { file_path: file }, 'toolu_R1'), ['--agent', 'claude']));
    allowed(await g.hook(payloads.claude('PostToolUse', claude, 'Read', { file_path: other }, 'toolu_R2'), ['--agent', 'claude']));
    // The transcript has the first read; the second is not written down yet.
    const t = new ClaudeTranscript('c1', g.workspace).at(Date.now() - 5000).user('look').read('m1', 'toolu_R1', file, v1);
    writeFileSync(claude.transcript, t.text());
    await g.stop();
    // While no guard runs, the user changes the file the session read.
    writeFileSync(file, 'const a = 1; // by the user\n');
    await g.start();
    const reason = denied(await g.hook(payloads.claude('PreToolUse', claude, 'Edit', { file_path: file, old_string: 'a', new_string: 'b' }, 'toolu_E1'), ['--agent', 'claude']), 'claude');
    assert.match(reason, /^src\/app\.ts changed on disk after you last read it/);
    allowed(await g.hook(payloads.claude('PreToolUse', claude, 'Edit', { file_path: other, old_string: '{}', new_string: '{ a }' }, 'toolu_E2'), ['--agent', 'claude']));
  });

  void test('a restarted service: a read the transcript made after the hook’s last report stands (made while no guard answered)', async () => {
    const { g, file, claude } = await setup();
    mkdirSync(g.live.projectDir, { recursive: true });
    allowed(await g.hook(payloads.claude('PostToolUse', claude, 'Read', { file_path: file }, 'toolu_R1'), ['--agent', 'claude']));
    const t = new ClaudeTranscript('c1', g.workspace).at(Date.now() - 5000).user('look').read('m1', 'toolu_R1', file, v1);
    await g.stop();
    const v2 = 'const a = 1; // by the user\n';
    writeFileSync(file, v2);
    // The session reads it again while no service answers: only its transcript says so.
    t.at(Date.now() + 1000).read('m2', 'toolu_R3', file, v2);
    writeFileSync(claude.transcript, t.text());
    await g.start();
    allowed(await g.hook(payloads.claude('PreToolUse', claude, 'Edit', { file_path: file, old_string: 'a', new_string: 'b' }, 'toolu_E1'), ['--agent', 'claude']));
  });

  void test('a service handed over (closed, then bound again a moment later): the hook waits for it and gets its answer', async () => {
    const { g, file, claude } = await setup();
    g.dirty.add(file);
    const edit = payloads.claude('PreToolUse', claude, 'Edit', { file_path: file, old_string: '1', new_string: '2' }, 'toolu_H1');
    // The service answers: the buffer is dirty.
    denied(await g.hook(edit, ['--agent', 'claude']), 'claude');
    // The hand-over: the socket is gone when the hook looks, and back a moment later. (The hook
    // is told to wait longer than usual, so that the test does not depend on how fast it starts.)
    await g.service.close();
    const asked = g.hook(edit, ['--agent', 'claude'], { AGENT_GUARD_HANDOVER_MS: '3000' });
    await sleep(1000);
    const monitor = g.live.monitor!;
    g.service = await GuardService.start({ workspace: g.workspace, monitor, ledger: g.ledger, dirtyBuffers: { isDirty: (p) => g.dirty.has(p) }, dir: g.dir });
    assert.match(denied(await asked, 'claude'), /unsaved changes/);
  });

  void test('no service: allowed at once with a note; a service that hangs: allowed within the deadline; fail-closed denies', async () => {
    const { g, file, claude } = await setup();
    const edit = payloads.claude('PreToolUse', { ...claude, cwd: path.join(g.live.root, 'elsewhere') }, 'Edit', { file_path: path.join(g.live.root, 'elsewhere', 'a.ts'), old_string: '1', new_string: '2' }, 't');
    const none = await g.hook(edit, ['--agent', 'claude']);
    assert.equal(none.code, 0);
    const note = /^agent-guard: no guard service is running for .*elsewhere; allowing the write of a\.ts unchecked .*AGENT_GUARD_FAIL_CLOSED=1/;
    // Where Claude Code shows it on a call it allows (stderr only for exit 2 or a failure).
    const shown = JSON.parse(none.stdout) as { systemMessage: string; hookSpecificOutput: { additionalContext: string } };
    assert.match(shown.systemMessage, note);
    assert.match(shown.hookSpecificOutput.additionalContext, note);
    assert.match(none.stderr, note);
    const closed = await g.hook(edit, ['--agent', 'claude'], { AGENT_GUARD_FAIL_CLOSED: '1' });
    assert.match(denied(closed, 'claude'), /^agent-guard could not check this write of a\.ts: no guard service is running .*fail closed/);
    denied(await g.hook(edit, ['--agent', 'claude', '--fail-closed']), 'claude');
    // No guard directory at all.
    const geminiWrite = payloads.gemini('BeforeTool', { ...claude, cwd: path.join(g.live.root, 'elsewhere') }, 'write_file', { file_path: path.join(g.live.root, 'elsewhere', 'a.ts'), content: 'x' });
    const nodir = await runHook(geminiWrite, ['--agent', 'gemini'], { AGENT_GUARD_DIR: path.join(g.live.root, 'missing') });
    assert.equal(nodir.code, 0);
    assert.match((JSON.parse(nodir.stdout) as { systemMessage: string }).systemMessage, /no guard service is running .*; allowing the write of a\.ts unchecked/);

    // A service that accepts but never answers (stuck): the deadline decides.
    const hangDir = path.join(g.live.root, 'hang');
    mkdirSync(hangDir, { mode: 0o700 });
    const sock = socketPathFor(g.workspace, hangDir);
    // Reads the question, never answers.
    const stuck: Server = createServer((c) => c.resume());
    await new Promise<void>((r) => stuck.listen(sock, r));
    try {
      const write = payloads.claude('PreToolUse', claude, 'Edit', { file_path: file, old_string: '1', new_string: '2' }, 't2');
      const slow = await runHook(write, ['--agent', 'claude'], { AGENT_GUARD_DIR: hangDir, AGENT_GUARD_TIMEOUT_MS: '400' });
      assert.equal(slow.code, 0);
      assert.match((JSON.parse(slow.stdout) as { systemMessage: string }).systemMessage, /did not answer within 400 ms; allowing the write of src\/app\.ts unchecked/);
      assert.ok(slow.ms >= 400, `waited the deadline (${slow.ms} ms)`);
      const slowClosed = await runHook(write, ['--agent', 'codex', '--fail-closed'], { AGENT_GUARD_DIR: hangDir, AGENT_GUARD_TIMEOUT_MS: '400' });
      assert.equal(slowClosed.code, 2);
    } finally {
      await new Promise<void>((r) => stuck.close(() => r()));
      rmSync(sock, { force: true });
    }
  });

  void test('garbage on stdin: a clear message and a non-blocking exit', async () => {
    const { g } = await setup();
    for (const [input, why] of [
      ['this is not json {', /stdin is not JSON/],
      ['', /stdin was empty/],
      ['[1,2,3]', /expected a JSON object, got an array/],
      ['{"hook_event_name":"PostToolUse","tool_name":"Read"}', /a PostToolUse payload without cwd/],
    ] as const) {
      const r = await g.hook(input, ['--agent', 'claude']);
      assert.equal(r.code, 1, input);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^agent-guard: hook input is not a hook payload \(/);
      assert.match(r.stderr, why);
    }
    // Events the guard has nothing to do with pass silently.
    const other = await g.hook({ session_id: 's', cwd: g.workspace, hook_event_name: 'SessionStart', source: 'startup' }, ['--agent', 'claude']);
    assert.deepEqual([other.code, other.stdout, other.stderr], [0, '', '']);
  });

  void test('a write the hook cannot check: denied with --fail-closed, else allowed with a note saying why; not a write: exit 1', async () => {
    const { g, file, claude } = await setup();
    const shown = (r: { code: number | null; stdout: string; stderr: string }): string => {
      assert.equal(r.code, 0, r.stderr);
      return (JSON.parse(r.stdout) as { systemMessage: string }).systemMessage;
    };
    const write = payloads.claude('PreToolUse', claude, 'Write', { file_path: file, content: 'x' }, 'toolu_W');
    // Payloads it cannot read: a field missing, or of another type.
    const { cwd: _cwd, ...noCwd } = write;
    for (const [input, why] of [
      [noCwd, /\(a PreToolUse payload without cwd\)/],
      [{ ...write, tool_input: [file] }, /\(tool_input is an array, not an object\)/],
    ] as const) {
      assert.match(denied(await g.hook(input, ['--agent', 'claude', '--fail-closed']), 'claude'), /^agent-guard could not read this call's hook input .*fail closed, so the call was blocked/);
      assert.match(shown(await g.hook(input, ['--agent', 'claude'])), why);
    }
    // Input that is no payload at all may be a write too.
    assert.match(denied(await g.hook('this is not json {', ['--agent', 'claude', '--fail-closed']), 'claude'), /stdin is not JSON/);
    // Not a write: a read's report, a shell call (nothing the guard would stop).
    for (const input of [
      { ...payloads.claude('PostToolUse', claude, 'Read', { file_path: file }, 'toolu_R'), tool_input: [file] },
      { ...payloads.claude('PreToolUse', claude, 'Bash', { command: 'ls' }, 'toolu_B'), tool_input: ['ls'] },
    ]) {
      const r = await g.hook(input, ['--agent', 'claude', '--fail-closed']);
      assert.deepEqual([r.code, r.stdout], [1, ''], r.stderr);
    }

    // Calls past the service's limits: it runs, and answers with an error, not a verdict.
    const many = Array.from({ length: 1001 }, (_, i) => `*** Add File: gen/f${i}.ts\n+x`).join('\n');
    const patch = payloads.codex('PreToolUse', { sessionId: 'x1', transcript: null, cwd: g.workspace }, `*** Begin Patch\n${many}\n*** End Patch`, 'call_many');
    const longId = payloads.claude('PreToolUse', claude, 'Write', { file_path: file, content: 'x' }, 'toolu_' + 'x'.repeat(200));
    for (const [input, agent, target, why] of [
      [patch, 'codex', /gen\/f0\.ts, gen\/f1\.ts, gen\/f2\.ts and 998 more files/, /paths/],
      [longId, 'claude', /src\/app\.ts/, /toolUseId/],
    ] as const) {
      const closed = denied(await g.hook(input, ['--agent', agent, '--fail-closed']), agent);
      assert.match(closed, /^agent-guard could not check this write of .*: the guard service answered with an error \(.*\)\. The guard is set to fail closed, so the write was blocked/);
      assert.match(closed, target);
      assert.match(closed, why);
      const note = shown(await g.hook(input, ['--agent', agent]));
      assert.match(note, /^agent-guard: could not check the write of .*: the guard service answered with an error \(.*\); allowing it unchecked/);
      assert.match(note, target);
      for (const text of [closed, note]) {
        assert.doesNotMatch(text, /start the/, 'the service runs');
      }
    }
  });

  void test('--help: the hook says what it is and how agents run it, without reading stdin; the CLI says so too', async () => {
    for (const args of [['--help'], ['--agent', 'claude', '-h']]) {
      const r = await runHook('', args);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^Usage: agent-guard hook --agent claude\|codex\|gemini\|copilot \[--fail-closed\] < PAYLOAD\n/);
      assert.match(r.stdout, /Exit status: 0 allowed/);
      assert.equal(r.stderr, '');
    }
    const viaCli = cli(['hook', '--help']);
    assert.equal(viaCli.code, 0);
    assert.match(viaCli.stdout, /^Usage: agent-guard hook /);
    assert.match(cli(['help']).stdout, /\n {2}--version {16}print the version\n/);
  });

  void test('the ledger is persisted as JSONL (mode 0600) next to the socket', async () => {
    const { g, file, claude } = await setup();
    allowed(await g.hook(payloads.claude('PostToolUse', claude, 'Read', { file_path: file }, 'toolu_R'), ['--agent', 'claude']));
    allowed(await g.hook(payloads.claude('PreToolUse', claude, 'Edit', { file_path: file, old_string: '1', new_string: '2' }, 'toolu_E'), ['--agent', 'claude']));
    await g.ledger.flush();
    const ledgerFile = path.join(g.dir, path.basename(g.service.socketPath!).replace(/\.sock$/, '.ledger.jsonl'));
    assert.equal(statSync(ledgerFile).mode & 0o777, 0o600);
    const loaded = await HookLedger.load(ledgerFile);
    assert.deepEqual(
      loaded.all().map((e) => `${e.kind}:${e.tool}:${e.toolUseId}:${e.verdict?.action ?? ''}`),
      ['post:Read:toolu_R:', 'pre:Edit:toolu_E:allow'],
    );
    assert.match(loaded.lookup('c1', 'toolu_E')!.inputHash, /^[0-9a-f]{32}$/);
  });
});
