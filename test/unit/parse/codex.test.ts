/** The Codex CLI adapter on shapes of its newest rollouts (0.154, September 2026). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CodexRollout } from '../support/codex';
import { run } from '../support/run';

void describe('Codex rollouts of forked threads', () => {
  void test("a forked sub-agent's file is its own session, though it copies its parent's session_meta", () => {
    const parent = '01a095a4-ebb9-7c10-a8e3-0e8e7fc24e87';
    const child = '01a096bd-f639-7a63-a4f5-d6d16856db43';
    const r = new CodexRollout(child, '/home/runner/workspace', false)
      .item('session_meta', { session_id: parent, id: child, forked_from_id: parent, parent_thread_id: parent, timestamp: '2026-09-12T17:50:26.891Z', cwd: '/home/runner/workspace', cli_version: '0.154.0' })
      // The parent's history, copied: its own session_meta first.
      .item('session_meta', { session_id: parent, id: parent, timestamp: '2026-09-12T12:43:28.584Z', cwd: '/home/runner/workspace', cli_version: '0.154.0' })
      .user('go');
    const { stream } = run(r.text(), { file: '/tmp/rollout-2026-09-12T17-50-26-child.jsonl' });
    assert.equal(stream.engine.sessionId, child);
    assert.equal(stream.engine.sessionInfo?.parentSessionId, parent);
    assert.equal(stream.engine.sessionInfo?.startedAt, '2026-09-12T17:50:26.891Z');
  });
});
