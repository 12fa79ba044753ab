/**
 * Two hosts on one workspace (two `watch` processes here; the extension and `watch` alike):
 * one serves the guard and records what the hooks ask, the other cannot.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { encodeClaudeProject } from '../../../src/core/discovery/locations';
import { ledgerPathFor } from '../../../src/io/guard/socketPath';
import { payloads, runHook } from '../guard/support/guardEnv';
import { ClaudeTranscript } from '../support/claude';
import { spawnCli, type CliProcess } from '../support/cli';
import { waitFor } from '../support/wait';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ag-hosts-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

void describe('two watch processes on one workspace', () => {
  void test('the one whose guard did not start does not judge calls by a stale copy of the ledger', async () => {
    const ws = path.join(tmp, 'ws');
    mkdirSync(path.join(ws, 'src'), { recursive: true });
    const claude = path.join(tmp, 'claude');
    const proj = path.join(claude, 'projects', encodeClaudeProject(ws));
    mkdirSync(proj, { recursive: true });
    const gd = path.join(tmp, 'gd');
    const env = { HOME: tmp, CLAUDE_CONFIG_DIR: claude, CODEX_HOME: path.join(tmp, 'codex'), AGENT_GUARD_DIR: gd };
    const transcript = path.join(proj, 'c1.jsonl');
    const s = { sessionId: 'c1', transcript, cwd: ws };
    const write = (id: string, rel: string): Record<string, unknown> => payloads.claude('PreToolUse', s, 'Write', { file_path: path.join(ws, rel), content: 'x\n' }, id);
    const hook = async (input: Record<string, unknown>): Promise<void> => {
      const r = await runHook(input, ['--agent', 'claude'], { AGENT_GUARD_DIR: gd });
      assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', ''], 'approved by the serving watch');
    };
    const hosts: CliProcess[] = [];
    try {
      const a = spawnCli(['watch', '--format', 'jsonl'], { cwd: ws, env });
      hosts.push(a);
      await waitFor(() => a.err().includes('Press Ctrl-C'), 10_000, 'the first banner');
      assert.match(a.err(), /guard +\S+\.sock\n/);
      // The session is known to the ledger before the second host reads it.
      await hook(write('toolu_W1', 'src/one.ts'));
      await waitFor(() => readFileSync(ledgerPathFor(ws, gd), 'utf8').includes('toolu_W1'), 5000, 'the ledger on disk');

      const b = spawnCli(['watch', '--format', 'jsonl'], { cwd: ws, env });
      hosts.push(b);
      await waitFor(() => b.err().includes('Press Ctrl-C'), 10_000, 'the second banner');
      assert.match(b.err(), /guard +not started: another guard service is already listening/);
      // Approved by the first host after the second one loaded the ledger.
      await hook(write('toolu_W2', 'src/two.ts'));

      const t = new ClaudeTranscript('c1', ws)
        .user('write two files')
        .call('m1', 'toolu_W1', 'Write', { file_path: path.join(ws, 'src/one.ts'), content: 'x\n' })
        .result('toolu_W1', 'ok')
        .call('m2', 'toolu_W2', 'Write', { file_path: path.join(ws, 'src/two.ts'), content: 'x\n' })
        .result('toolu_W2', 'ok')
        // A finding after both calls: once it is printed, both calls were judged.
        .result('toolu_X', 'stray');
      writeFileSync(transcript, t.text());
      for (const h of hosts) {
        await waitFor(() => h.out().includes('orphan-result'), 10_000, () => `the transcript read: ${h.out()}`);
      }
      const rules = (h: CliProcess): string[] =>
        h
          .out()
          .split('\n')
          .filter(Boolean)
          .map((l) => (JSON.parse(l) as { rule: string }).rule);
      assert.ok(!rules(a).includes('unapproved-call'), `the serving host: ${a.out()}`);
      // The rules bound to the hook's approvals (unapproved-call, unbound-result) run only where the guard does.
      assert.deepEqual(rules(b), ['orphan-result'], 'the other host: no call "went around the hook"');
    } finally {
      for (const h of hosts) {
        h.child.kill('SIGTERM');
      }
    }
    for (const h of hosts) {
      assert.equal(await h.exited, 'exit 0', h.err());
    }
  });
});
