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
};

void describe('Codex CLI 0.171 rollouts made against a scripted model', () => {
  const files = readdirSync(root).filter((n) => n.endsWith('.jsonl'));
  void test('the fixture set is there', () => {
    assert.equal(files.length, 14);
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
