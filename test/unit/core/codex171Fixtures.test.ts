/**
 * The rollouts Codex CLI 0.171.0 wrote here against a scripted model (tools/drive-codex; how
 * each was made: test/fixtures/generated/codex-0.171/README.md), checked as `check` does, and
 * the hook payloads it sent the guard in the guarded run. Every finding was checked by hand.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { guardPaths, parseHookPayload, transcriptInput, type HookEvent } from '../../../src/core/guard/payload';
import { inputHash } from '../../../src/core/lib/hash';
import type { ToolCall } from '../../../src/core/model/events';
import { HookLedger } from '../../../src/io/guard/ledger';
import { fixture } from '../support/repo';
import { brief, run } from '../support/run';

const root = fixture('generated', 'codex-0.171');

/** Expected findings per file, with why each is true; a file not named gives none. */
const expected: Record<string, string[]> = {
  // Line 26 `cat notes.txt` and line 27 `printf 'rewritten\n' > notes.txt` are one response's
  // two exec_command calls, which Codex runs side by side: a real race.
  'parallel.jsonl': ['parallel-read-write@27:204-213:warning'],
  // Line 51 calls apply_patch as a function, which 0.171's freeform apply_patch does not take:
  // Codex logs "tool apply_patch invoked with incompatible payload" and writes no output for
  // the call; the next request (tools.requests.json in the run) sent the model "aborted".
  'tools.jsonl': ['missing-result@51:274-293:error'],
  // subagent-lost-update-1.jsonl: line 31's `Add File` over src/app.ts, from the read of line 10,
  // wrote back the port its sub-agent had changed (subagent-lost-update-2.jsonl, line 15): a
  // true lost update that no file shows alone (Codex records no file content); `check` of the two
  // together finds it (test/unit/cli/writersAcross.test.ts). In subagent-lost-update-guarded the
  // guard denied that write (line 33) and a refused call is no write.
};

void describe('Codex CLI 0.171 rollouts made against a scripted model', () => {
  const files = readdirSync(root).filter((n) => n.endsWith('.jsonl'));
  void test('the fixture set is there', () => {
    assert.equal(files.length, 18);
  });
  for (const name of files) {
    void test(name, () => {
      const file = path.join(root, name);
      const { findings, stream } = run(readFileSync(file), { file });
      assert.deepEqual(brief(findings), expected[name] ?? [], findings.map((f) => `${f.line}: ${f.message}`).join('\n'));
      assert.equal(stream.agent, 'codex');
    });
  }
  void test('the forked and the sub-agent files name the session they came from', () => {
    const parentOf = (name: string): string | undefined => {
      const file = path.join(root, name);
      return run(readFileSync(file), { file }).stream.engine.sessionInfo?.parentSessionId;
    };
    const idOf = (name: string): string | undefined => {
      const file = path.join(root, name);
      return run(readFileSync(file), { file }).stream.engine.sessionId;
    };
    assert.equal(parentOf('fork-2.jsonl'), idOf('fork-1.jsonl'));
    assert.equal(parentOf('subagent-2.jsonl'), idOf('subagent-1.jsonl'));
    assert.equal(parentOf('subagent-lost-update-2.jsonl'), idOf('subagent-lost-update-1.jsonl'));
    assert.equal(parentOf('subagent-lost-update-guarded-2.jsonl'), idOf('subagent-lost-update-guarded-1.jsonl'));
  });
});

void describe("Codex CLI 0.171's hook payloads (guarded run)", () => {
  const payloads = readFileSync(path.join(root, 'guarded.hook-payloads.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const events = payloads.map((p) => {
    const r = parseHookPayload(p, 'codex');
    assert.equal(r.kind, 'event', JSON.stringify(r));
    return (r as { event: HookEvent }).event;
  });

  void test('each is a Codex tool event: shell commands as Bash, the patch as apply_patch', () => {
    assert.deepEqual(
      events.map((e) => [e.eventName, e.tool, e.toolUseId, e.agent]),
      [
        ['PreToolUse', 'Bash', 'call_stale_r1', 'codex'],
        ['PostToolUse', 'Bash', 'call_stale_r1', 'codex'],
        // Denied by the guard: no PostToolUse follows.
        ['PreToolUse', 'apply_patch', 'call_stale_w1', 'codex'],
        ['PreToolUse', 'Bash', 'call_guard_r2', 'codex'],
        ['PostToolUse', 'Bash', 'call_guard_r2', 'codex'],
        ['PreToolUse', 'apply_patch', 'call_guard_w2', 'codex'],
        ['PostToolUse', 'apply_patch', 'call_guard_w2', 'codex'],
      ],
    );
  });

  void test('the guard takes the patched file from the patch, and nothing from a shell command', () => {
    const cwd = '/tmp/drive-codex/guarded/ws';
    assert.deepEqual(guardPaths(events[2]!), [{ path: `${cwd}/notes.txt`, op: 'edit' }]);
    assert.deepEqual(guardPaths(events[0]!), []);
  });

  void test('the hook hashes the input the rollout records for the same call', () => {
    const file = path.join(root, 'guarded.jsonl');
    const calls = run(readFileSync(file), { file, services: { hookLedger: HookLedger.memory() } }).events.filter((e): e is ToolCall => e.kind === 'call');
    for (const e of events.filter((x) => x.tool === 'apply_patch' && x.phase === 'pre')) {
      const call = calls.find((c) => c.callId === e.toolUseId);
      assert.ok(call, e.toolUseId);
      assert.equal(call.inputHash, inputHash(transcriptInput(e)));
    }
  });
});

void describe("Codex CLI 0.171's hook payloads with a sub-agent (subagent-lost-update-guarded)", () => {
  const payloads = readFileSync(path.join(root, 'subagent-lost-update-guarded.hook-payloads.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const main = '01a23475-bb42-7e81-a271-9a147eb59e56';
  const child = '01a23475-d1fa-7113-834d-2a4489fc0c12';

  void test("the sub-agent's hooks give the root thread's session_id, its own rollout and its agent_id", () => {
    assert.deepEqual(
      payloads.map((p) => [p['hook_event_name'], p['tool_name'], p['tool_use_id'], p['session_id'], path.basename(String(p['transcript_path'])).slice(-42), p['agent_id'] ?? '-', p['agent_type'] ?? '-']),
      [
        ['PreToolUse', 'Bash', 'call_sublu_r1', main, `${main}.jsonl`, '-', '-'],
        ['PostToolUse', 'Bash', 'call_sublu_r1', main, `${main}.jsonl`, '-', '-'],
        ['PreToolUse', 'spawn_agent', 'call_sublu_spawn', main, `${main}.jsonl`, '-', '-'],
        ['PostToolUse', 'spawn_agent', 'call_sublu_spawn', main, `${main}.jsonl`, '-', '-'],
        ['PreToolUse', 'Bash', 'call_sublu_child_r1', main, `${child}.jsonl`, child, 'default'],
        // The namespace runs into the name (spawn_agent's does not).
        ['PreToolUse', 'multi_agent_v1wait_agent', 'call_sublu_wait', main, `${main}.jsonl`, '-', '-'],
        ['PostToolUse', 'Bash', 'call_sublu_child_r1', main, `${child}.jsonl`, child, 'default'],
        ['PreToolUse', 'apply_patch', 'call_sublu_child_w1', main, `${child}.jsonl`, child, 'default'],
        ['PostToolUse', 'apply_patch', 'call_sublu_child_w1', main, `${child}.jsonl`, child, 'default'],
        ['PostToolUse', 'multi_agent_v1wait_agent', 'call_sublu_wait', main, `${main}.jsonl`, '-', '-'],
        // Denied by the guard: no PostToolUse follows.
        ['PreToolUse', 'apply_patch', 'call_sublu_w1', main, `${main}.jsonl`, '-', '-'],
        ['PreToolUse', 'Bash', 'call_sublu_r2', main, `${main}.jsonl`, '-', '-'],
        ['PostToolUse', 'Bash', 'call_sublu_r2', main, `${main}.jsonl`, '-', '-'],
        ['PreToolUse', 'apply_patch', 'call_sublu_w2', main, `${main}.jsonl`, '-', '-'],
        ['PostToolUse', 'apply_patch', 'call_sublu_w2', main, `${main}.jsonl`, '-', '-'],
      ],
    );
  });

  void test("each call is filed under the rollout that records it (Claude Code's agent_id rule is not applied)", () => {
    const rollouts = readdirSync(root).filter((n) => n.startsWith('subagent-lost-update-guarded-') && n.endsWith('.jsonl'));
    const callsIn = new Map(
      rollouts.map((name) => {
        const file = path.join(root, name);
        const ids = run(readFileSync(file), { file }).events.flatMap((e) => (e.kind === 'call' ? [e.callId] : []));
        return [name, ids] as const;
      }),
    );
    for (const p of payloads) {
      const r = parseHookPayload(p, 'codex');
      assert.equal(r.kind, 'event', JSON.stringify(r));
      const e = (r as { event: HookEvent }).event;
      assert.equal(e.agent, 'codex');
      assert.equal(e.transcriptPath, p['transcript_path']);
      const name = String(e.transcriptPath).endsWith(`${child}.jsonl`) ? 'subagent-lost-update-guarded-2.jsonl' : 'subagent-lost-update-guarded-1.jsonl';
      assert.ok(callsIn.get(name)?.includes(e.toolUseId!), `${e.toolUseId} in ${name}`);
    }
  });
});
