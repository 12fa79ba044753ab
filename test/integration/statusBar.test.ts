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
import type { StatusSnapshot } from '../../src/vscode/statusBar';
import { ClaudeTranscript } from '../unit/support/claude';
import { claudeProjectDir, workspaceDir } from './support/transcripts';
import { uiCheck, waitFor } from './support/ui';

const broken = 15_000;
/**
 * Recomputations of the status bar allowed for the burst: one per 100 ms window batches it into a
 * few dozen, where recounting per finding did it 15,000 times. (Counted, not timed: time on
 * these machines is noise.)
 */
const maxRenders = 1000;

/**
 * Does the status bar count these findings, and show the ones that need attention (only the
 * counts that are not zero)?
 */
function shows(status: StatusSnapshot, findings: readonly Finding[]): boolean {
  const c = status.counts;
  if (!c) {
    return findings.length === 0;
  }
  const errors = findings.filter((f) => f.severity === 'error').length;
  const warnings = findings.filter((f) => f.severity === 'warning').length;
  const shown = `${c.errors > 0 ? ` $(error) ${c.errors}` : ''}${c.warnings > 0 ? ` $(warning) ${c.warnings}` : ''}`;
  return c.allErrors === errors && c.allWarnings === warnings && status.text === `$(shield) ${c.live} live${shown}`;
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
      const status = api.status();
      assert.ok(shows(status, api.findings()), `${status.text}: not the counts of the findings`);
      // A session written now needs attention: its errors are in the text and colour the item.
      assert.match(status.text, /\$\(error\) \d{5}/);
      assert.equal(status.alert, true);
      const renders = api.status().renders - rendersBefore;
      console.log(`[status bar] recomputed ${renders} times for the burst`);
      assert.ok(renders > 0 && renders <= maxRenders, `${renders} recomputations for ${broken} findings (at most ${maxRenders})`);
    } finally {
      fs.rmSync(file, { force: true });
      await waitFor(() => api.findings().every((f) => f.file !== file), 30_000, 'the findings gone with the file');
      await waitFor(() => shows(api.status(), api.findings()), 5000, 'the counts back');
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

  test('an error in a session last written before the window opened is counted, but not shown as needing attention', async () => {
    const id = 'c0ffee00-0000-4000-8000-000000000012';
    const file = path.join(claudeProjectDir(), `${id}.jsonl`);
    // Written elsewhere and moved in with its old time, as a session from last week is found.
    const staging = path.join(path.dirname(claudeProjectDir()), `${id}.staging`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(staging, new ClaudeTranscript(id, workspaceDir()).user('last week').raw('{broken').lines.join('\n') + '\n');
    const lastWeek = new Date(Date.now() - 7 * 24 * 60 * 60_000);
    fs.utimesSync(staging, lastWeek, lastWeek);
    const before = api.status().counts;
    try {
      fs.renameSync(staging, file);
      await waitFor(() => api.findings().some((f) => f.file === file && f.severity === 'error'), 15_000, 'the error on the old session');
      await waitFor(() => shows(api.status(), api.findings()), 5000, 'the counts');
      const after = api.status();
      assert.ok(after.counts && before);
      assert.equal(after.counts.allErrors, before.allErrors + 1, 'counted among all the errors');
      assert.equal(after.counts.errors, before.errors, 'not among the ones that need attention');
      assert.doesNotMatch(after.text, /\$\(warning\) 0|\$\(error\) 0/);
      // A screen reader hears words, not codicon names.
      assert.match(after.ariaLabel, /^Agent Session Guard: \d+ live sessions?, /);
      assert.match(after.ariaLabel, new RegExp(`All \\d+ sessions?: ${after.counts.allErrors} errors?`));
      assert.doesNotMatch(after.ariaLabel, /\$\(/);
      assert.match(after.tooltip, /since this window opened/);
      await uiCheck({ id: 'status-bar-label', selector: `#workbench\\.parts\\.statusbar [aria-label="${after.ariaLabel}"]`, screenshot: 'status-bar.png' });
    } finally {
      fs.rmSync(staging, { force: true });
      fs.rmSync(file, { force: true });
      await waitFor(() => api.findings().every((f) => f.file !== file), 30_000, 'the finding gone with the file');
    }
  });
});
