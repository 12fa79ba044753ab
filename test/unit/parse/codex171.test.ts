/**
 * Codex CLI 0.171, run here against a scripted model (tools/drive-codex): record shapes of its
 * rollouts that earlier builds did not write.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ToolResult } from '../../../src/core/model/events';
import { CodexRollout } from '../support/codex';
import { run } from '../support/run';

const cwd = '/tmp/drive-codex-guarded-bWPwGQ/ws';
const patch = '*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** End Patch\n';

/** 0.171's output line for a call a PreToolUse hook denied (guarded.jsonl, line 17, its metadata kept). */
function blocked(r: CodexRollout, callId: string, text: string, custom: boolean): CodexRollout {
  return r.item('response_item', {
    type: custom ? 'custom_tool_call_output' : 'function_call_output',
    id: 'ctco_01a2302c-b035-7eb2-ac89-8164f1ccd388',
    call_id: callId,
    output: text,
    internal_chat_message_metadata_passthrough: { turn_id: '01a2302c-96c7-7a01-bae2-cec97ba82500', create_time: 1796104564.7897713 },
  });
}

function results(r: CodexRollout): ToolResult[] {
  return run(r.text(), { file: '/tmp/rollout-2026-12-01T05-55-58-01a2302c-9633-73f2-a330-05ea01de0fe8.jsonl' }).events.filter(
    (e): e is ToolResult => e.kind === 'result',
  );
}

void describe('Codex 0.171: a call a PreToolUse hook denied', () => {
  const reason = 'notes.txt changed on disk after you last read it (by an unattributed process at 05:56:02). Read it again, then redo the edit.';

  void test('a blocked apply_patch failed and never ran', () => {
    const r = new CodexRollout('01a2302c-9633-73f2-a330-05ea01de0fe8', cwd).user('Work on the repository as scripted.').patch('call_stale_w1', patch);
    blocked(r, 'call_stale_w1', `Command blocked by PreToolUse hook: ${reason}. Command: ${patch}`, true);
    const [result] = results(r);
    assert.equal(result?.isError, true);
    assert.equal(result?.refused, true);
  });

  void test('a blocked shell command, and a blocked call of another tool, failed and never ran', () => {
    const r = new CodexRollout('01a2302c-9633-73f2-a330-05ea01de0fe8', cwd).user('go').exec('c1', "printf 'x\\n' > notes.txt");
    blocked(r, 'c1', "Command blocked by PreToolUse hook: no shell writes here. Command: printf 'x\\n' > notes.txt", false);
    r.item('response_item', { type: 'function_call', name: 'view_image', arguments: '{"path":"pic.png"}', call_id: 'c2' });
    blocked(r, 'c2', 'Tool call blocked by PreToolUse hook: no images', false);
    assert.deepEqual(
      results(r).map((x) => [x.callId, x.isError, x.refused]),
      [
        ['c1', true, true],
        ['c2', true, true],
      ],
    );
  });

  void test('a command whose output only quotes such a line is no refusal', () => {
    const r = new CodexRollout('01a2302c-9633-73f2-a330-05ea01de0fe8', cwd).user('go').exec('c1', 'cat log.txt');
    blocked(r, 'c1', 'Chunk ID: 1bd9ff\nWall time: 0.1 seconds\nProcess exited with code 0\nOriginal token count: 5\nOutput:\nCommand blocked by PreToolUse hook: x\n', false);
    assert.deepEqual(
      results(r).map((x) => [x.isError, x.refused]),
      [[false, undefined]],
    );
  });

  void test('the blocked patch of a file the session never read is no blind write', () => {
    const r = new CodexRollout('01a2302c-9633-73f2-a330-05ea01de0fe8', cwd).user('go').patch('p1', patch);
    blocked(r, 'p1', `Command blocked by PreToolUse hook: notes.txt already exists and you have not read it in this session. Read it first, then redo the edit.. Command: ${patch}`, true);
    assert.deepEqual(
      run(r.text(), { file: '/tmp/rollout-x.jsonl' }).findings.map((f) => f.rule),
      [],
    );
  });
});

void describe('Codex 0.171: outputs of shell calls that failed', () => {
  const session = (): CodexRollout => new CodexRollout('01a2302e-d652-7e80-8a5e-e394305bfe87', '/tmp/drive-codex-heredoc-TX0UkA/ws').user('Work on the repository as scripted.');

  void test('an apply_patch heredoc Codex intercepted, whose patch did not apply (heredoc.jsonl)', () => {
    const r = session()
      .exec('call_hd_w1', "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** End Patch\nEOF")
      .output('call_hd_w1', 'Wall time: 0.0000 seconds\nOutput:\nExit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM notes.txt\n')
      .exec('call_hd_w2', "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: notes.txt\n@@\n-no such line\n+x\n*** End Patch\nEOF")
      .output('call_hd_w2', 'apply_patch verification failed: Failed to find expected lines in /tmp/drive-codex-heredoc-TX0UkA/ws/notes.txt:\nno such line');
    assert.deepEqual(
      results(r).map((x) => [x.callId, x.isError]),
      [
        ['call_hd_w1', false],
        ['call_hd_w2', true],
      ],
    );
  });

  void test('a command the user interrupted (interrupted.jsonl)', () => {
    const r = session().item('response_item', { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"sleep 60","yield_time_ms":30000}', call_id: 'call_int_sleep' });
    r.output('call_int_sleep', 'Wall time: 2.8 seconds\naborted by user');
    assert.deepEqual(
      results(r).map((x) => [x.isError, x.refused]),
      [[true, undefined]],
    );
  });

  void test('a command that printed such a line itself did not fail', () => {
    const r = session().exec('c1', 'cat notes.txt');
    r.output('c1', 'Chunk ID: 1bd9ff\nWall time: 0.1 seconds\nProcess exited with code 0\nOriginal token count: 5\nOutput:\napply_patch verification failed: x\naborted by user\n');
    assert.deepEqual(
      results(r).map((x) => x.isError),
      [false],
    );
  });
});

void describe('Codex 0.171: a file a code-mode script created (codemode.jsonl)', () => {
  const ws = '/tmp/drive-codex-codemode-heTv6y/ws';
  const script =
    "const r = await tools.exec_command({ cmd: 'cat notes.txt' });\ntext(JSON.stringify(r));\nconst p = await tools.apply_patch('*** Begin Patch\\n*** Add File: made.txt\\n+' + 'made by a script' + '\\n*** End Patch\\n');\ntext(JSON.stringify(p));";
  /** The script, its patch's FileChange item (line 13), its output, then the session's update of the file. */
  const session = (status: string): string =>
    new CodexRollout('01a23030-4aca-7a21-9bc1-b9ecaebe6c48', ws)
      .user('Work on the repository as scripted.')
      .item('response_item', { type: 'custom_tool_call', id: 'item_resp_1_0', call_id: 'call_code_1', name: 'exec', input: script })
      .event('item_completed', {
        thread_id: '01a23030-4aca-7a21-9bc1-b9ecaebe6c48',
        turn_id: '01a23030-4b51-7c83-b7e6-ab279dac9776',
        item: {
          type: 'FileChange',
          id: 'exec-b60d76c1-7639-42bb-92b2-fd05bcefdaaa',
          changes: { [`${ws}/made.txt`]: { type: 'add', content: 'made by a script\n' } },
          status,
          stdout: 'Success. Updated the following files:\nA made.txt\n',
          stderr: '',
        },
        started_at_ms: 1796104806240,
        completed_at_ms: 1796104806240,
      })
      .item('response_item', {
        type: 'custom_tool_call_output',
        call_id: 'call_code_1',
        output: [
          { type: 'input_text', text: 'Script completed\nWall time 4.4 seconds\nOutput:\n' },
          { type: 'input_text', text: '{"chunk_id":"3e5e5b","wall_time_seconds":3.69562548,"exit_code":0,"original_token_count":5,"output":"alpha\\nbeta\\ngamma\\n"}' },
          { type: 'input_text', text: '{}' },
        ],
      })
      .patch('call_code_w1', '*** Begin Patch\n*** Update File: made.txt\n@@\n-made by a script\n+edited after\n*** End Patch\n')
      .output('call_code_w1', 'Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM made.txt\n', true)
      .text();

  void test('the session knows the file it made: its update is no blind write', () => {
    assert.deepEqual(
      run(session('completed'), { file: '/tmp/rollout-x.jsonl' }).findings.map((f) => f.rule),
      [],
    );
  });

  void test('a FileChange that did not complete made nothing', () => {
    assert.deepEqual(
      run(session('failed'), { file: '/tmp/rollout-x.jsonl' }).findings.map((f) => f.rule),
      ['write-before-read'],
    );
  });
});

void describe('Codex 0.171: calls the sandbox or the approval policy refused (sandboxed.jsonl)', () => {
  const ws = '/tmp/drive-codex-sandboxed-hVHwF3/ws';
  const session = (): CodexRollout => new CodexRollout('01a23031-13ee-7de3-88c1-f048629619e5', ws).user('Work on the repository as scripted.');

  void test('a patch in a read-only sandbox, and an escalation under approval policy Never, never ran', () => {
    const r = session()
      .patch('call_sb_w1', '*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** End Patch\n')
      .output('call_sb_w1', 'patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings', true)
      .item('response_item', {
        type: 'function_call',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: "printf 'x\\n' > notes.txt", sandbox_permissions: 'require_escalated', justification: 'write the file' }),
        call_id: 'call_sb_w3',
      })
      .output('call_sb_w3', 'approval policy is Never; reject command — you cannot ask for escalated permissions if the approval policy is Never');
    assert.deepEqual(
      results(r).map((x) => [x.callId, x.isError, x.refused]),
      [
        ['call_sb_w1', true, true],
        ['call_sb_w3', true, true],
      ],
    );
  });

  void test('the refused patch of a file the session never read is no blind write', () => {
    const r = session()
      .patch('call_sb_w1', '*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** End Patch\n')
      .output('call_sb_w1', 'patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings', true);
    assert.deepEqual(
      run(r.text(), { file: '/tmp/rollout-x.jsonl' }).findings.map((f) => f.rule),
      [],
    );
  });

  void test('a write the sandbox stopped is a command that failed, not a refusal', () => {
    const r = session().exec('call_sb_w2', "printf 'x\\n' > notes.txt");
    r.output(
      'call_sb_w2',
      "Chunk ID: 3d87da\nWall time: 0.0000 seconds\nProcess exited with code 1\nOriginal token count: 27\nOutput:\npyenv: cannot rehash: /root/.pyenv/shims isn't writable\n/bin/bash: line 1: notes.txt: Read-only file system\n",
    );
    assert.deepEqual(
      results(r).map((x) => [x.isError, x.refused]),
      [[true, undefined]],
    );
  });
});

void describe('Codex 0.171: a call of a tool the session does not have (tools.jsonl)', () => {
  void test('the classic shell tool, not offered next to exec_command, ran nothing', () => {
    const r = new CodexRollout('01a23032-3cb4-7872-8b9f-1674c8bbd5d3', '/tmp/drive-codex-tools-BOiTRs/ws')
      .user('Work on the repository as scripted.')
      .item('response_item', { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', "printf 'x\\n' > notes.txt"] }), call_id: 'call_tools_shell1' })
      .output('call_tools_shell1', 'unsupported call: shell');
    assert.deepEqual(
      results(r).map((x) => [x.isError, x.refused]),
      [[true, true]],
    );
    // Its write never happened: no blind write of notes.txt.
    assert.deepEqual(
      run(r.text(), { file: '/tmp/rollout-x.jsonl' }).findings.map((f) => f.rule),
      [],
    );
  });
});

void describe('Codex 0.171: a forked thread whose history is in its parent\'s file (fork-2.jsonl)', () => {
  const ws = '/tmp/drive-codex-fork-c9HgEU/ws';
  const parent = '01a23033-309b-78e3-ae12-c64ce2e22021';
  const child = '01a23033-53c2-7f50-98c9-fed23aa632be';
  const fork = (historyBase: boolean): string =>
    new CodexRollout(child, ws, false)
      .item('session_meta', {
        account_scoped: true,
        session_id: child,
        id: child,
        forked_from_id: parent,
        forked_from_ordinal_exclusive: 19,
        timestamp: '2026-12-01T06:03:19.979Z',
        cwd: ws,
        originator: 'codex_exec',
        cli_version: '0.171.0',
        source: 'exec',
        thread_source: 'user',
        model_provider: 'fake',
        history_mode: 'paginated',
        ...(historyBase ? { history_base: { thread_id: parent, end_ordinal_exclusive: 19, end_byte_offset: 44460 } } : {}),
      })
      .user('Now change beta to BETA.')
      .patch('call_fork_w1', '*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** End Patch\n')
      .output('call_fork_w1', 'Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM notes.txt\n', true)
      .text();

  void test('what the parent read (its file, up to history_base) is no blind spot of the fork', () => {
    const { findings, stream } = run(fork(true), { file: `/tmp/rollout-2026-12-01T06-03-19-${child}.jsonl` });
    assert.deepEqual(
      findings.map((f) => f.rule),
      [],
    );
    assert.equal(stream.engine.sessionInfo?.parentSessionId, parent);
  });

  void test('a fork that names no history_base holds its history: its blind write is still one', () => {
    assert.deepEqual(
      run(fork(false), { file: `/tmp/rollout-2026-12-01T06-03-19-${child}.jsonl` }).findings.map((f) => f.rule),
      ['write-before-read'],
    );
  });
});
