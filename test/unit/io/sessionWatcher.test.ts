/**
 * Session discovery details that the live monitor's tests do not pin down.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { SessionWatcher, type SessionFileEvent } from '../../../src/io/sessionWatcher';
import { waitFor } from '../support/wait';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

void describe('session watcher', () => {
  void test('a Codex rollout whose session_meta was not complete when first seen is asked about again without another file event', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'ag-sw-'));
    const workspace = path.join(root, 'ws');
    const codexHome = path.join(root, 'codex');
    const day = path.join(codexHome, 'sessions', '2026', '01', '02');
    mkdirSync(workspace, { recursive: true });
    mkdirSync(day, { recursive: true });
    const rollout = path.join(day, 'rollout-2026-01-02T03-04-05-s1.jsonl');
    const meta = JSON.stringify({ timestamp: '2026-01-02T03:04:05.000Z', type: 'session_meta', payload: { id: 's1', cwd: workspace } });
    // Half of the first record: not yet a rollout of this workspace, nor of any other.
    writeFileSync(rollout, meta.slice(0, 40));

    // chokidar polls only once a minute here, so the rest of the record arriving makes no event
    // it would report within the test: only the watcher's own looking again can find it.
    const watcher = new SessionWatcher({
      workspace,
      environment: { home: root, env: { CODEX_HOME: codexHome, CLAUDE_CONFIG_DIR: path.join(root, 'claude') } },
      agents: { 'claude-code': false, gemini: false, amplifier: false },
      usePolling: true,
      pollIntervalMs: 60_000,
      pendingPollMs: 200,
    });
    const events: SessionFileEvent[] = [];
    watcher.onDidChange((e) => events.push(e));
    cleanup = async () => {
      await watcher.close();
      rmSync(root, { recursive: true, force: true });
    };
    await watcher.start();
    assert.deepEqual(events, [], 'not judged yet: nothing reported');

    appendFileSync(rollout, meta.slice(40) + '\n');
    await waitFor(() => events.length > 0, 10_000, 'the rollout to be taken up');
    assert.deepEqual(events, [{ type: 'add', file: rollout, agent: 'codex' }]);
  });
});
