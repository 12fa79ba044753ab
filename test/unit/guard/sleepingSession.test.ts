/**
 * A hook call for a session that went to sleep (its state dropped after long idleness) must
 * be answered from what the service has in memory: rebuilding the session re-reads its whole
 * transcript, and the hook lets the write through once its deadline passes.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { ClaudeTranscript } from '../support/claude';
import { waitFor } from '../support/wait';
import { GuardEnv, payloads } from './support/guardEnv';

let env: GuardEnv | undefined;
afterEach(async () => {
  await env?.dispose();
  env = undefined;
});

const minutes = (n: number): number => n * 60_000;

void describe('guard and a sleeping session', () => {
  void test('a deny is answered before the call is looked up in the transcript; the finding then moves to the call', async () => {
    env = new GuardEnv();
    const g = env;
    let skew = 0;
    const file = g.file('src/app.ts', 'const a = 1;\n');
    await g.start({ monitor: { clock: () => Date.now() + skew, sweepMs: 30, hibernateAfterMs: minutes(15) } });
    const monitor = g.live.monitor!;
    mkdirSync(g.live.projectDir, { recursive: true });
    const transcript = path.join(g.live.projectDir, 'c1.jsonl');
    // The Edit is recorded (with a second call of its batch after it) before its hook asks.
    const t = new ClaudeTranscript('c1', g.workspace)
      .user('edit app.ts')
      .call('m1', 'toolu_E', 'Edit', { file_path: file, old_string: '1', new_string: '2' })
      .call('m1', 'toolu_B', 'Bash', { command: 'ls' });
    writeFileSync(transcript, t.text());
    await waitFor(() => monitor.lastLine(transcript) === 3, 10_000, 'the transcript read');
    await monitor.idle();
    skew += minutes(16);
    await waitFor(() => monitor.isHibernating(transcript), 10_000, 'the session to sleep');

    // A transcript far too long to read again within the hook's deadline: catching up and
    // finding a call take as long as the test says.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const lookups: string[] = [];
    const callLocation = monitor.callLocation.bind(monitor);
    monitor.catchUp = () => gate;
    monitor.callLocation = async (f, id) => {
      lookups.push(id);
      await gate;
      return callLocation(f, id);
    };
    try {
      const s = { sessionId: 'c1', transcript, cwd: g.workspace };
      const r = await g.hook(payloads.claude('PreToolUse', s, 'Edit', { file_path: file, old_string: '1', new_string: '2' }, 'toolu_E'), ['--agent', 'claude']);
      assert.equal(r.code, 2, `denied, not let through on the hook's deadline: ${r.stderr} (${Math.round(r.ms)} ms)`);
      assert.match(r.stderr, /^src\/app\.ts already exists and you have not read it in this session/);
      const guard = (): number[] => monitor.findings.forFile(transcript).filter((f) => f.rule === 'guard').map((f) => f.line);
      assert.deepEqual(guard(), [3], 'reported at once, on the last line read');
      assert.equal(monitor.isHibernating(transcript), true, 'the verdict did not wake the session');
      await waitFor(() => lookups.length === 1, 5000, 'the call looked up after the verdict');
      release();
      await waitFor(() => guard()[0] === t.lineOf('toolu_E'), 10_000, () => `the finding on the call's line: ${guard().join(',')}`);
    } finally {
      release();
    }
  });
});
