/**
 * Hook payloads of every agent, in the shapes their docs give (FORMATS.md §1.7, §2.6, §3.4;
 * HOOKS-AND-VSCODE.md §3.5), the files the guard takes from them, the input hash the hook
 * and the transcript parser agree on, and the answers in each agent's format.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { answerFor, answerInvalid, answerNoService, answerRefused } from '../../../src/core/guard/answer';
import { guardPaths, mayWriteFiles, parseHookPayload, transcriptInput, type HookEvent } from '../../../src/core/guard/payload';
import type { Verdict } from '../../../src/core/guard/types';
import { inputHash } from '../../../src/core/lib/hash';
import type { ToolCall } from '../../../src/core/model/events';
import { HookLedger } from '../../../src/io/guard/ledger';
import { ClaudeTranscript } from '../support/claude';
import { CodexRollout } from '../support/codex';
import { run } from '../support/run';

const cwd = '/home/dev/proj';
const claudeBase = {
  session_id: 'aaaaaaaa-0000-4000-8000-000000000001',
  transcript_path: '/home/dev/.claude/projects/-home-dev-proj/aaaaaaaa-0000-4000-8000-000000000001.jsonl',
  cwd,
  permission_mode: 'default',
};
const patch = '*** Begin Patch\n*** Update File: src/app.ts\n@@\n-a\n+b\n*** Add File: src/new.ts\n+x\n*** Delete File: old.ts\n*** Update File: src/mv.ts\n*** Move to: src/moved.ts\n@@\n-c\n+d\n*** End Patch';

function event(value: unknown, hint?: Parameters<typeof parseHookPayload>[1]): HookEvent {
  const r = parseHookPayload(value, hint);
  assert.equal(r.kind, 'event', JSON.stringify(r));
  return (r as { event: HookEvent }).event;
}

void describe('hook payloads', () => {
  void test('Claude Code PreToolUse of each write tool', () => {
    const cases: [string, Record<string, unknown>, [string, string][]][] = [
      ['Edit', { file_path: `${cwd}/src/app.ts`, old_string: 'a', new_string: 'b', replace_all: false }, [[`${cwd}/src/app.ts`, 'edit']]],
      ['Write', { file_path: `${cwd}/src/new.ts`, content: 'x' }, [[`${cwd}/src/new.ts`, 'write']]],
      ['MultiEdit', { file_path: `${cwd}/src/app.ts`, edits: [{ old_string: 'a', new_string: 'b' }] }, [[`${cwd}/src/app.ts`, 'edit']]],
      ['NotebookEdit', { notebook_path: `${cwd}/nb.ipynb`, new_source: 'x', cell_id: 'c1' }, [[`${cwd}/nb.ipynb`, 'edit']]],
    ];
    for (const [tool, input, want] of cases) {
      const e = event({ ...claudeBase, hook_event_name: 'PreToolUse', tool_name: tool, tool_input: input, tool_use_id: 'toolu_01' }, 'claude');
      assert.equal(e.agent, 'claude');
      assert.equal(e.phase, 'pre');
      assert.equal(e.toolUseId, 'toolu_01');
      assert.equal(e.transcriptPath, claudeBase.transcript_path);
      assert.deepEqual(
        guardPaths(e).map((p) => [p.path, p.op]),
        want,
        tool,
      );
    }
  });

  void test('Claude Code PostToolUse of Read, and PostToolUseFailure', () => {
    const read = { ...claudeBase, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: `${cwd}/a.ts`, offset: 1, limit: 20 }, tool_use_id: 't', tool_response: { type: 'text', file: {} } };
    const e = event(read);
    assert.equal(e.phase, 'post');
    assert.equal(e.failed, false);
    assert.deepEqual(guardPaths(e), [{ path: `${cwd}/a.ts`, op: 'read' }]);
    const f = event({ ...read, hook_event_name: 'PostToolUseFailure', error: 'boom', tool_response: undefined });
    assert.equal(f.failed, true);
  });

  void test('Claude Code inside a sub-agent (agent_id): the call is the sub-agent transcript’s, under the main session’s id', () => {
    const edit = { ...claudeBase, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: `${cwd}/a.ts`, old_string: 'a', new_string: 'b' }, tool_use_id: 't' };
    const e = event({ ...edit, agent_id: 'a5d1c0f3e2b4a6978', agent_type: 'general-purpose' });
    assert.equal(e.transcriptPath, '/home/dev/.claude/projects/-home-dev-proj/aaaaaaaa-0000-4000-8000-000000000001/subagents/agent-a5d1c0f3e2b4a6978.jsonl');
    assert.equal(e.sessionId, claudeBase.session_id);
    // A Windows transcript keeps its separator.
    const win = event({ ...edit, transcript_path: 'C:\\Users\\dev\\.claude\\projects\\C--proj\\s1.jsonl', agent_id: 'a1' });
    assert.equal(win.transcriptPath, 'C:\\Users\\dev\\.claude\\projects\\C--proj\\s1\\subagents\\agent-a1.jsonl');
    // The main session's own calls, and ids that could name another folder, stay the main transcript's.
    for (const agentId of [undefined, '', '../../x', 'a/b', 'a\\b', 7]) {
      assert.equal(event({ ...edit, agent_id: agentId }).transcriptPath, claudeBase.transcript_path, String(agentId));
    }
  });

  void test('Copilot agent mode (camelCase common fields, editFiles) through the Claude settings', () => {
    const e = event(
      {
        timestamp: '2026-02-09T10:30:00.000Z',
        cwd,
        sessionId: 'copilot-session-1',
        hookEventName: 'PreToolUse',
        transcript_path: '/tmp/copilot/transcript.json',
        tool_name: 'editFiles',
        tool_input: { files: ['src/main.ts', `${cwd}/src/b.ts`] },
        tool_use_id: 'tool-123',
      },
      'claude',
    );
    assert.equal(e.agent, 'copilot');
    assert.equal(e.sessionId, 'copilot-session-1');
    assert.deepEqual(
      guardPaths(e).map((p) => p.path),
      [`${cwd}/src/main.ts`, `${cwd}/src/b.ts`],
    );
    const other = event({ cwd, sessionId: 'c', hookEventName: 'PreToolUse', tool_name: 'replace_string_in_file', tool_input: { filePath: `${cwd}/x.ts`, oldString: 'a', newString: 'b' } }, 'claude');
    assert.deepEqual(guardPaths(other), [{ path: `${cwd}/x.ts`, op: 'edit' }]);
    const terminal = event({ cwd, sessionId: 'c', hookEventName: 'PreToolUse', tool_name: 'runInTerminal', tool_input: { command: 'echo > x' } }, 'claude');
    assert.deepEqual(guardPaths(terminal), [], 'shell writes are left to the transcripts');
  });

  void test('Gemini CLI BeforeTool/AfterTool', () => {
    const base = { session_id: 'g1', transcript_path: '/home/dev/.gemini/tmp/h/chats/session-1.json', cwd, timestamp: '2026-03-02T09:14:09.501Z' };
    const w = event({ ...base, hook_event_name: 'BeforeTool', tool_name: 'write_file', tool_input: { file_path: `${cwd}/a.ts`, content: 'x' }, mcp_context: null }, 'claude');
    assert.equal(w.agent, 'gemini', 'the event name wins over the hint');
    assert.equal(w.toolUseId, undefined);
    assert.deepEqual(guardPaths(w), [{ path: `${cwd}/a.ts`, op: 'write' }]);
    const r = event({ ...base, hook_event_name: 'BeforeTool', tool_name: 'replace', tool_input: { file_path: 'a.ts', old_string: 'a', new_string: 'b' } });
    assert.deepEqual(guardPaths(r), [{ path: `${cwd}/a.ts`, op: 'edit' }]);
    const after = event({ ...base, hook_event_name: 'AfterTool', tool_name: 'read_file', tool_input: { file_path: `${cwd}/a.ts` }, tool_response: { llmContent: 'x', returnDisplay: '' } });
    assert.equal(after.phase, 'post');
    assert.deepEqual(guardPaths(after), [{ path: `${cwd}/a.ts`, op: 'read' }]);
  });

  void test('Codex PreToolUse apply_patch, envelope in tool_input.command or .input', () => {
    const base = { session_id: '019bce9f-0a40-79e2-8351-8818e8487fb6', turn_id: 't1', transcript_path: null, cwd, hook_event_name: 'PreToolUse', model: 'gpt-5-codex', permission_mode: 'default', tool_name: 'apply_patch', tool_use_id: 'call_1' };
    const want = [
      [`${cwd}/src/app.ts`, 'edit'],
      [`${cwd}/src/new.ts`, 'create'],
      [`${cwd}/old.ts`, 'delete'],
      [`${cwd}/src/mv.ts`, 'edit'],
      [`${cwd}/src/moved.ts`, 'create'],
    ];
    for (const input of [{ command: patch }, { input: patch }]) {
      const e = event({ ...base, tool_input: input }, 'codex');
      assert.equal(e.agent, 'codex');
      assert.equal(e.transcriptPath, undefined, 'null transcript_path');
      assert.deepEqual(
        guardPaths(e).map((p) => [p.path, p.op]),
        want,
      );
    }
    // Without the --agent hint Codex is still recognised by its turn_id.
    assert.equal(event({ ...base, tool_input: { command: patch } }).agent, 'codex');
    // A shell command through PreToolUse: nothing to guard.
    assert.deepEqual(guardPaths(event({ ...base, tool_name: 'Bash', tool_input: { command: 'cat a' } })), []);
    // An empty argv names nothing (it threw, and the hook failed instead of answering).
    assert.deepEqual(guardPaths(event({ ...base, tool_name: 'shell', tool_input: { command: [] } })), []);
  });

  void test('not a payload, or not a tool event', () => {
    assert.deepEqual(parseHookPayload([1, 2]), { kind: 'invalid', error: 'expected a JSON object, got an array' });
    assert.equal(parseHookPayload({ tool_name: 'Edit' }).kind, 'invalid');
    assert.match((parseHookPayload({ hook_event_name: 'PreToolUse', tool_name: 'Edit', session_id: 's' }) as { error: string }).error, /without cwd/);
    assert.match((parseHookPayload({ hook_event_name: 'PreToolUse', cwd, session_id: 's' }) as { error: string }).error, /without tool_name/);
    assert.match((parseHookPayload({ hook_event_name: 'PreToolUse', cwd, session_id: 's', tool_name: 'Edit', tool_input: 5 }) as { error: string }).error, /tool_input is a number/);
    assert.equal(parseHookPayload({ ...claudeBase, hook_event_name: 'SessionStart', source: 'startup' }).kind, 'ignore');
  });

  void test('the hook hashes the input the transcript records: Claude, Gemini, Codex', () => {
    const ledger = HookLedger.memory();
    const calls = (text: string, agent?: 'gemini' | 'codex'): ToolCall[] =>
      run(text, { services: { hookLedger: ledger }, ...(agent ? { agent } : {}) }).events.filter((e): e is ToolCall => e.kind === 'call');
    // Claude: tool_input is the tool_use block's input.
    const input = { file_path: `${cwd}/a.ts`, old_string: 'a', new_string: 'b', replace_all: false };
    const t = new ClaudeTranscript('s', cwd).user('go').call('m1', 'toolu_1', 'Edit', input);
    const claudeHook = event({ ...claudeBase, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { new_string: 'b', old_string: 'a', replace_all: false, file_path: `${cwd}/a.ts` }, tool_use_id: 'toolu_1' });
    assert.equal(calls(t.text())[0]!.inputHash, inputHash(transcriptInput(claudeHook)));
    // Codex: the rollout's custom_tool_call input is the patch text; the hook sends it in `command`.
    const r = new CodexRollout('c1', cwd).user('go').patch('call_1', patch);
    const codexHook = event({ session_id: 'c1', turn_id: 't', cwd, hook_event_name: 'PreToolUse', tool_name: 'apply_patch', tool_input: { command: patch }, tool_use_id: 'call_1' });
    assert.equal(calls(r.text(), 'codex')[0]!.inputHash, inputHash(transcriptInput(codexHook)));
    // Gemini: the ToolCallRecord's args are the hook's tool_input.
    const args = { file_path: `${cwd}/a.ts`, content: 'x' };
    const gemini = [
      JSON.stringify({ sessionId: 'g1', projectHash: 'p', startTime: '2026-03-02T09:14:02.311Z', lastUpdated: '2026-03-02T09:14:02.311Z' }),
      JSON.stringify({ id: 'u1', timestamp: '2026-03-02T09:14:05.120Z', type: 'user', content: [{ text: 'go' }] }),
      JSON.stringify({ id: 'm1', timestamp: '2026-03-02T09:14:09.480Z', type: 'gemini', content: '', toolCalls: [{ id: 'write_file-1', name: 'write_file', args, result: null, status: 'executing', timestamp: '2026-03-02T09:14:09.501Z' }] }),
    ].join('\n') + '\n';
    const geminiHook = event({ session_id: 'g1', transcript_path: '/g.json', cwd, hook_event_name: 'BeforeTool', tool_name: 'write_file', tool_input: { content: 'x', file_path: `${cwd}/a.ts` } });
    assert.equal(calls(gemini, 'gemini')[0]!.inputHash, inputHash(transcriptInput(geminiHook)));
  });

  void test('the common fields in either spelling, and what stands in for a missing one', () => {
    // Copilot's camelCase event names and fields, its tool input under `toolArgs` and its call id under `toolCallId`.
    const copilot = { cwd, sessionId: 'c', transcriptPath: '/t/c.json', toolName: 'create_file', toolArgs: { filePath: 'a.ts' }, toolCallId: 'call-1' };
    const pre = event({ ...copilot, hookEventName: 'preToolUse' }, 'claude');
    assert.deepEqual([pre.agent, pre.phase, pre.failed, pre.tool, pre.toolUseId, pre.transcriptPath], ['copilot', 'pre', false, 'create_file', 'call-1', '/t/c.json']);
    assert.deepEqual(guardPaths(pre), [{ path: `${cwd}/a.ts`, op: 'create' }]);
    const post = event({ ...copilot, hookEventName: 'postToolUse' }, 'claude');
    assert.deepEqual([post.phase, post.failed], ['post', false]);
    const failed = event({ ...copilot, hookEventName: 'postToolUseFailure' }, 'claude');
    assert.deepEqual([failed.phase, failed.failed], ['post', true], 'a failure is reported after the tool ran');
    const claudeFailed = event({ ...claudeBase, hook_event_name: 'PostToolUseFailure', tool_name: 'Edit', tool_input: {} });
    assert.deepEqual([claudeFailed.phase, claudeFailed.failed], ['post', true]);
    // No session id (or an empty one): the transcript names the session. An empty call id is none.
    const write = { hook_event_name: 'PreToolUse', tool_name: 'Write', cwd, transcript_path: '/t/s.jsonl', tool_input: { file_path: 'a.ts', content: 'x' } };
    assert.equal(event(write).sessionId, '/t/s.jsonl');
    const empty = event({ ...write, session_id: '', tool_use_id: '' });
    assert.deepEqual([empty.sessionId, empty.toolUseId], ['/t/s.jsonl', undefined]);
    assert.deepEqual(parseHookPayload({ ...write, transcript_path: undefined }), { kind: 'invalid', error: 'a PreToolUse payload without session_id', phase: 'pre', tool: 'Write' });
    // Without an event name the tool is still told (to deny a write when failing closed).
    assert.deepEqual(parseHookPayload({ tool_name: 'Write', cwd }), { kind: 'invalid', error: 'no hook_event_name (or hookEventName) field', tool: 'Write' });
    // A freeform tool's text stands for its input; a null input is an empty one.
    const freeform = event({ session_id: 'c1', turn_id: 't', cwd, hook_event_name: 'PreToolUse', tool_name: 'apply_patch', tool_input: patch });
    assert.deepEqual(freeform.toolInput, { command: patch });
    assert.equal(guardPaths(freeform).length, 5);
    assert.deepEqual(event({ ...write, tool_input: undefined, toolArgs: null }).toolInput, {});
  });

  void test('which agent, where the payload does not say: the hint, then the fields', () => {
    const snake = { hook_event_name: 'PreToolUse', tool_name: 'Write', cwd, session_id: 's', tool_input: {} };
    assert.equal(event(snake).agent, 'claude');
    assert.equal(event(snake, 'codex').agent, 'codex', 'Codex without turn_id, by its settings file');
    assert.equal(event(snake, 'copilot').agent, 'copilot');
    assert.equal(event(snake, 'gemini').agent, 'gemini');
    assert.equal(event({ ...snake, session_id: undefined, sessionId: 's' }, 'claude').agent, 'copilot', 'camelCase sessionId');
    assert.equal(event({ ...snake, hook_event_name: undefined, hookEventName: 'PreToolUse' }, 'claude').agent, 'copilot', 'camelCase hookEventName');
  });

  void test('a Claude Code sub-agent id past 128 characters, or a transcript that is not JSONL, is not followed; a path with any slash is joined with slashes', () => {
    const edit = { ...claudeBase, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: `${cwd}/a.ts`, old_string: 'a', new_string: 'b' } };
    assert.equal(event({ ...edit, agent_id: 'a'.repeat(128) }).transcriptPath, `${claudeBase.transcript_path.slice(0, -'.jsonl'.length)}/subagents/agent-${'a'.repeat(128)}.jsonl`);
    assert.equal(event({ ...edit, agent_id: 'a'.repeat(129) }).transcriptPath, claudeBase.transcript_path);
    assert.equal(event({ ...edit, transcript_path: '/t/s1.json', agent_id: 'a1' }).transcriptPath, '/t/s1.json');
    assert.equal(event({ ...edit, transcript_path: 'C:\\Users\\dev/proj/s1.jsonl', agent_id: 'a1' }).transcriptPath, 'C:\\Users\\dev/proj/s1/subagents/agent-a1.jsonl');
  });

  void test('Copilot apply_patch, multi_replace_string_in_file (each file once, items that are not objects skipped) and edit_notebook_file', () => {
    const base = { cwd, sessionId: 'c', hookEventName: 'PreToolUse' };
    const patched = event({ ...base, tool_name: 'apply_patch', tool_input: { input: patch } }, 'claude');
    assert.deepEqual(
      guardPaths(patched).map((p) => [p.path, p.op]),
      [
        [`${cwd}/src/app.ts`, 'edit'],
        [`${cwd}/src/new.ts`, 'create'],
        [`${cwd}/old.ts`, 'delete'],
        [`${cwd}/src/mv.ts`, 'edit'],
        [`${cwd}/src/moved.ts`, 'create'],
      ],
    );
    const multi = event({ ...base, tool_name: 'multi_replace_string_in_file', tool_input: { replacements: [{ filePath: 'a.ts' }, null, 'b.ts', { filePath: 'a.ts' }, { filePath: 'c.ts' }] } }, 'claude');
    assert.deepEqual(guardPaths(multi), [
      { path: `${cwd}/a.ts`, op: 'edit' },
      { path: `${cwd}/c.ts`, op: 'edit' },
    ]);
    const nb = event({ ...base, tool_name: 'edit_notebook_file', tool_input: { filePath: 'nb.ipynb', cellId: 'c1', newCode: 'x' } }, 'claude');
    assert.deepEqual(guardPaths(nb), [{ path: `${cwd}/nb.ipynb`, op: 'edit' }]);
  });

  void test('Codex: the envelope under `patch`, a patch that deletes a file and adds it again, a Claude-style file tool; only apply_patch’s input is rewrapped', () => {
    const base = { session_id: 'c1', turn_id: 't', cwd, hook_event_name: 'PreToolUse', tool_use_id: 'call_1' };
    const underPatch = event({ ...base, tool_name: 'apply_patch', tool_input: { patch } });
    assert.equal(guardPaths(underPatch).length, 5);
    assert.deepEqual(transcriptInput(underPatch), { input: patch }, 'hashed as the rollout records it');
    const again = '*** Begin Patch\n*** Delete File: a.ts\n*** Add File: a.ts\n+x\n*** End Patch';
    assert.deepEqual(guardPaths(event({ ...base, tool_name: 'apply_patch', tool_input: { command: again } })), [
      { path: `${cwd}/a.ts`, op: 'delete' },
      { path: `${cwd}/a.ts`, op: 'create' },
    ]);
    assert.deepEqual(guardPaths(event({ ...base, tool_name: 'Write', tool_input: { file_path: 'a.ts', content: 'x' } })), [{ path: `${cwd}/a.ts`, op: 'write' }]);
    // A shell command that runs apply_patch is recorded with its own input, not as a patch's.
    const shell = event({ ...base, tool_name: 'Bash', tool_input: { command: `apply_patch <<'EOF'\n${patch}\nEOF` } });
    assert.deepEqual(transcriptInput(shell), shell.toolInput);
  });
});

const deny: Verdict = { action: 'deny', decision: 'stale-write', reason: 'src/a.ts changed on disk after you last read it (by the user at 14:02:07). Read it again, then redo the edit.', hits: [] };

void describe('hook answers', () => {
  void test('deny: exit 2, the reason on stderr, and each agent’s JSON', () => {
    for (const agent of ['claude', 'copilot', 'codex'] as const) {
      const a = answerFor(agent, deny);
      assert.equal(a.exitCode, 2);
      assert.equal(a.stderr, deny.reason + '\n');
      assert.deepEqual(JSON.parse(a.stdout), { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: deny.reason } });
    }
    const g = answerFor('gemini', deny);
    assert.equal(g.exitCode, 2);
    assert.equal(g.stderr, deny.reason + '\n');
    assert.deepEqual(JSON.parse(g.stdout), { decision: 'deny', reason: deny.reason });
  });

  void test('allow: exit 0 and nothing at all (never an explicit allow that would skip the permission prompt)', () => {
    for (const agent of ['claude', 'copilot', 'codex', 'gemini'] as const) {
      assert.deepEqual(answerFor(agent, { action: 'allow', reason: '', hits: [] }), { exitCode: 0, stdout: '', stderr: '' });
    }
  });

  void test('warn: exit 0, told to the model where the agent has a field for it', () => {
    const w: Verdict = { ...deny, action: 'warn' };
    const c = answerFor('claude', w);
    assert.equal(c.exitCode, 0);
    const out = JSON.parse(c.stdout) as { hookSpecificOutput: { additionalContext: string; permissionDecision?: string } };
    assert.match(out.hookSpecificOutput.additionalContext, /^agent-guard: warning: src\/a\.ts changed/);
    assert.equal(out.hookSpecificOutput.permissionDecision, undefined);
    assert.deepEqual(Object.keys(JSON.parse(answerFor('gemini', w).stdout) as object), ['systemMessage']);
    // Codex shows stdout's systemMessage on exit 0, never stderr.
    const x = answerFor('codex', w);
    assert.equal(x.exitCode, 0);
    assert.match((JSON.parse(x.stdout) as { systemMessage: string }).systemMessage, /^agent-guard: warning: src\/a\.ts changed/);
  });

  void test('no service: allow with a note the user and the model see, or deny when failing closed; bad input: exit 1', () => {
    const note = /^agent-guard: no guard service is running for \/p; allowing the write of src\/a\.ts unchecked .*AGENT_GUARD_FAIL_CLOSED=1/;
    for (const agent of ['claude', 'copilot', 'codex', 'gemini'] as const) {
      const open = answerNoService(agent, false, 'no guard service is running for /p', 'src/a.ts');
      assert.equal(open.exitCode, 0);
      const out = JSON.parse(open.stdout) as { systemMessage: string; hookSpecificOutput?: { hookEventName: string; additionalContext: string; permissionDecision?: string } };
      assert.match(out.systemMessage, note, agent);
      if (agent === 'gemini') {
        assert.deepEqual(Object.keys(out), ['systemMessage']);
      } else {
        assert.deepEqual(out.hookSpecificOutput, { hookEventName: 'PreToolUse', additionalContext: out.systemMessage }, agent);
      }
      assert.match(open.stderr, note);
    }
    const closed = answerNoService('gemini', true, 'no guard service is running for /p', 'src/a.ts');
    assert.equal(closed.exitCode, 2);
    assert.equal((JSON.parse(closed.stdout) as { decision: string }).decision, 'deny');
    assert.match(closed.stderr, /fail closed, so the write was blocked/);
    const bad = answerInvalid('stdin is not JSON', { agent: 'claude', failClosed: false, mayWrite: true, payload: false });
    assert.deepEqual([bad.exitCode, bad.stdout], [1, '']);
    assert.match(bad.stderr, /hook input is not a hook payload \(stdin is not JSON\)/);
  });

  void test('input the hook cannot read: a write tool’s payload allowed with a note, or denied when failing closed; anything else exit 1', () => {
    const open = answerInvalid('a PreToolUse payload without cwd', { agent: 'claude', failClosed: false, mayWrite: true, payload: true });
    assert.equal(open.exitCode, 0);
    assert.match((JSON.parse(open.stdout) as { systemMessage: string }).systemMessage, /^agent-guard: could not read this call's hook input \(a PreToolUse payload without cwd\); allowing it unchecked/);
    for (const payload of [true, false]) {
      const closed = answerInvalid('x', { agent: 'gemini', failClosed: true, mayWrite: true, payload });
      assert.equal(closed.exitCode, 2);
      assert.equal((JSON.parse(closed.stdout) as { decision: string }).decision, 'deny');
      assert.match(closed.stderr, /could not read this call's hook input \(x\).*fail closed, so the call was blocked/);
    }
    // Not a write (a read's report, a shell call): nothing the guard would stop.
    assert.equal(answerInvalid('x', { agent: 'claude', failClosed: true, mayWrite: false, payload: true }).exitCode, 1);
    // The service answered with an error: it runs, so not "start the guard".
    const refused = answerRefused('codex', false, 'the guard service answered with an error (paths: too many)', 'a.ts');
    assert.equal(refused.exitCode, 0);
    assert.match((JSON.parse(refused.stdout) as { systemMessage: string }).systemMessage, /^agent-guard: could not check the write of a\.ts: the guard service answered with an error \(paths: too many\); allowing it unchecked/);
    assert.doesNotMatch(refused.stdout, /start the/);
    const refusedClosed = answerRefused('codex', true, 'the guard service answered with an error (paths: too many)', 'a.ts');
    assert.equal(refusedClosed.exitCode, 2);
    assert.match(refusedClosed.stderr, /fail closed, so the write was blocked/);
    assert.doesNotMatch(refusedClosed.stderr, /start the/);
  });

  void test('which tools a payload the hook cannot read may be a write of', () => {
    for (const tool of [undefined, 'Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'write_file', 'replace', 'apply_patch', 'editFiles', 'create_file']) {
      assert.equal(mayWriteFiles(tool), true, tool);
    }
    for (const tool of ['Read', 'Bash', 'read_file', 'run_shell_command', 'shell', 'WebFetch', 'someNewTool']) {
      assert.equal(mayWriteFiles(tool), false, tool);
    }
    // What a payload the hook cannot read still says of itself.
    assert.deepEqual(parseHookPayload({ hook_event_name: 'PreToolUse', tool_name: 'Write', session_id: 's', tool_input: {} }), { kind: 'invalid', error: 'a PreToolUse payload without cwd', phase: 'pre', tool: 'Write' });
    assert.deepEqual(parseHookPayload({ hook_event_name: 'PostToolUse', tool_name: 'Read', session_id: 's', cwd, tool_input: [] }), { kind: 'invalid', error: 'tool_input is an array, not an object', phase: 'post', tool: 'Read' });
  });
});
