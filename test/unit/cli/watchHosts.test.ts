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

/** A workspace `ws<n>` with its Claude Code project folder, guard directory and session `c<n>`. */
function workspace(n: string) {
  const ws = path.join(tmp, `ws${n}`);
  mkdirSync(path.join(ws, 'src'), { recursive: true });
  const claude = path.join(tmp, `claude${n}`);
  const proj = path.join(claude, 'projects', encodeClaudeProject(ws));
  mkdirSync(proj, { recursive: true });
  const gd = path.join(tmp, `gd${n}`);
  const env = { HOME: tmp, CLAUDE_CONFIG_DIR: claude, CODEX_HOME: path.join(tmp, `codex${n}`), AGENT_GUARD_DIR: gd };
  const transcript = path.join(proj, `c${n}.jsonl`);
  const s = { sessionId: `c${n}`, transcript, cwd: ws };
  const write = (id: string, rel: string): Record<string, unknown> => payloads.claude('PreToolUse', s, 'Write', { file_path: path.join(ws, rel), content: 'x\n' }, id);
  return { ws, proj, gd, env, transcript, s, write };
}

void describe('two watch processes on one workspace', () => {
  void test('the one whose guard did not start does not judge calls by a stale copy of the ledger', async () => {
    const { ws, gd, env, transcript, write } = workspace('1');
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
  void test('when the serving one stops, the other takes the guard over and its rules see the approvals from then on', async () => {
    const { ws, gd, env, transcript, write } = workspace('2');
    // Fail closed: with no service answering, the hook denies; an allow is a service's answer.
    const hook = async (input: Record<string, unknown>, by: string): Promise<void> => {
      const r = await runHook(input, ['--agent', 'claude', '--fail-closed'], { AGENT_GUARD_DIR: gd });
      assert.deepEqual([r.code, r.stdout, r.stderr], [0, '', ''], `approved by ${by}`);
    };
    const hosts: CliProcess[] = [];
    try {
      const a = spawnCli(['watch', '--format', 'jsonl'], { cwd: ws, env });
      hosts.push(a);
      await waitFor(() => a.err().includes('Press Ctrl-C'), 10_000, 'the first banner');
      await hook(write('toolu_W1', 'src/one.ts'), 'the first host');
      const b = spawnCli(['watch', '--format', 'jsonl'], { cwd: ws, env });
      hosts.push(b);
      await waitFor(() => b.err().includes('Press Ctrl-C'), 10_000, 'the second banner');
      assert.match(b.err(), /guard +not started: another guard service is already listening.*\(taking over when it stops\)/);
      // Recorded by the first host after the second one read the ledger.
      await hook(write('toolu_W2', 'src/two.ts'), 'the first host');

      a.child.kill('SIGTERM');
      assert.equal(await a.exited, 'exit 0', a.err());
      await waitFor(() => /the other guard service stopped; this one now answers the hooks on \S+\.sock/.test(b.err()), 15_000, () => `the takeover: ${b.err()}`);
      await hook(write('toolu_W3', 'src/three.ts'), 'the second host');

      // Written now: the ledger judges calls by when a service answered the hooks.
      const t = new ClaudeTranscript('c2', ws)
        .at(Date.now() - 4000)
        .user('write four files')
        .call('m1', 'toolu_W1', 'Write', { file_path: path.join(ws, 'src/one.ts'), content: 'x\n' })
        .result('toolu_W1', 'ok')
        .call('m2', 'toolu_W2', 'Write', { file_path: path.join(ws, 'src/two.ts'), content: 'x\n' })
        .result('toolu_W2', 'ok')
        .call('m3', 'toolu_W3', 'Write', { file_path: path.join(ws, 'src/three.ts'), content: 'x\n' })
        .result('toolu_W3', 'ok')
        // Never asked the hook: went around it.
        .call('m4', 'toolu_W4', 'Write', { file_path: path.join(ws, 'src/four.ts'), content: 'x\n' })
        .result('toolu_W4', 'ok')
        .result('toolu_X', 'stray');
      writeFileSync(transcript, t.text());
      await waitFor(() => b.out().includes('orphan-result'), 10_000, () => `the transcript read: ${b.out()}`);
      const found = b
        .out()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { rule: string; message: string })
        .filter((f) => f.rule === 'unapproved-call');
      // W1 and W2 from the ledger file read at the takeover, W3 from this host's own service.
      assert.deepEqual(
        found.map((f) => /toolu_W\d/.exec(f.message)?.[0]),
        ['toolu_W4'],
        `only the call that went around the hook: ${b.out()}`,
      );
    } finally {
      for (const h of hosts) {
        h.child.kill('SIGTERM');
      }
    }
    for (const h of hosts.slice(1)) {
      assert.equal(await h.exited, 'exit 0', h.err());
    }
  });
});
