/// <reference types="mocha" />
// The status bar under a burst: a session read at once with 15,000 findings. Each finding is
// reported on its own; the status bar used to recount every finding for each of them: quadratic,
// 9.5 s for 10,000 findings on the test machine, ~90 s at 21,000, the extension host blocked.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Finding } from '../../src/core/model/finding';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { ClaudeTranscript } from '../unit/support/claude';
import { claudeProjectDir, workspaceDir } from './support/transcripts';
import { waitFor } from './support/ui';

const broken = 15_000;
/**
 * Recomputations of the status bar allowed for the burst: one per 100 ms window batches it into a
 * few dozen, where recounting per finding did it 15,000 times. (Counted, not timed: time on
 * these machines is noise.)
 */
const maxRenders = 1000;

/** Does the status bar's text show these findings' counts? */
function shows(text: string, findings: readonly Finding[]): boolean {
  const errors = findings.filter((f) => f.severity === 'error').length;
  const warnings = findings.filter((f) => f.severity === 'warning').length;
  return errors + warnings === 0 ? !text.includes('$(error)') : text.endsWith(`$(error) ${errors} $(warning) ${warnings}`);
}

suite('status bar', () => {
  let api: AgentGuardApi;

  suiteSetup(async () => {
    api = await vscode.extensions.getExtension<AgentGuardApi>('agent-session-guard.agent-session-guard')!.activate();
    await api.ready();
  });

  test('15,000 findings at once: the counts are right, and reading them does not stall the extension host', async () => {
    const id = 'c0ffee00-0000-4000-8000-000000000010';
    const file = path.join(claudeProjectDir(), `${id}.jsonl`);
    const t = new ClaudeTranscript(id, workspaceDir()).user('a session with many broken lines');
    for (let i = 0; i < broken; i++) {
      t.raw(`{broken ${i}`);
    }
    fs.mkdirSync(path.dirname(file), { recursive: true });
    try {
      const started = Date.now();
      const rendersBefore = api.status().renders;
      fs.writeFileSync(file, t.lines.join('\n') + '\n');
      await waitFor(() => api.findings().filter((f) => f.file === file).length >= broken, 120_000, `${broken} findings on the session`);
      const elapsed = Date.now() - started;
      console.log(`[status bar] ${broken} findings read and counted in ${elapsed} ms`);
      const text = api.status().text;
      assert.ok(shows(text, api.findings()), `${text}: not the counts of the findings`);
      assert.match(text, /\$\(error\) \d{5}/);
      const renders = api.status().renders - rendersBefore;
      console.log(`[status bar] recomputed ${renders} times for the burst`);
      assert.ok(renders > 0 && renders <= maxRenders, `${renders} recomputations for ${broken} findings (at most ${maxRenders})`);
    } finally {
      fs.rmSync(file, { force: true });
      await waitFor(() => api.findings().every((f) => f.file !== file), 30_000, 'the findings gone with the file');
      await waitFor(() => shows(api.status().text, api.findings()), 5000, 'the counts back');
    }
  });

  test('changing how long a session counts as live updates the views without re-reading every session', async () => {
    const id = 'c0ffee00-0000-4000-8000-000000000011';
    const file = path.join(claudeProjectDir(), `${id}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, new ClaudeTranscript(id, workspaceDir()).user('one broken line').raw('{broken').lines.join('\n') + '\n');
    const config = vscode.workspace.getConfiguration('agentGuard');
    try {
      const before = await waitFor(() => api.findings().find((f) => f.file === file), 15_000, 'the finding on the session');
      await config.update('liveMinutes', 7, vscode.ConfigurationTarget.Global);
      await new Promise((r) => setTimeout(r, 500));
      await api.ready();
      // A rebuild reads the session again and makes new findings; a view-only change keeps them.
      assert.ok(api.findings().includes(before), 'the monitors were rebuilt for a view-only setting');
    } finally {
      await config.update('liveMinutes', undefined, vscode.ConfigurationTarget.Global);
      fs.rmSync(file, { force: true });
      await waitFor(() => api.findings().every((f) => f.file !== file), 30_000, 'the finding gone with the file');
    }
  });
});
