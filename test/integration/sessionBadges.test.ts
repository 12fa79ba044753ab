/// <reference types="mocha" />
// A session row's finding count is a file-decoration badge. Each refresh of the sessions view
// used to tell VS Code that every decoration changed: VS Code dropped them all and asked again,
// and every row's badge blinked out for ~100 ms whenever any session was written to. A refresh
// now re-announces only the rows whose badge changed.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { ClaudeTranscript } from '../unit/support/claude';
import { appendLines, claudeProjectDir, workspaceDir } from './support/transcripts';
import { uiCheck, waitFor } from './support/ui';

/** A session row's label in the sessions view: it carries the badge (as `::after` content). */
const rowLabel = '.monaco-list-row[aria-level="2"] .monaco-icon-label';
const steadyTitle = 'Badge check: the session nobody writes to';
const busyTitle = 'Badge check: the session being written';

suite('session badges', () => {
  let api: AgentGuardApi;
  const steadyFile = (): string => path.join(claudeProjectDir(), 'bade0000-0000-4000-8000-000000000001.jsonl');
  const busyFile = (): string => path.join(claudeProjectDir(), 'bade0000-0000-4000-8000-000000000002.jsonl');
  const countOf = (file: string): number => api.findings().filter((f) => f.file === file).length;
  /** A result that answers no call: one orphan-result finding (an error). */
  const orphan = (t: ClaudeTranscript, n: number): ClaudeTranscript => t.result(`toolu_01BADGEORPHAN${String(n).padStart(10, '0')}`, 'done');

  suiteSetup(async () => {
    api = await vscode.extensions.getExtension<AgentGuardApi>('agent-session-guard.agent-session-guard')!.activate();
    await api.ready();
  });

  suiteTeardown(async () => {
    fs.rmSync(steadyFile(), { force: true });
    fs.rmSync(busyFile(), { force: true });
    await waitFor(() => countOf(steadyFile()) + countOf(busyFile()) === 0, 10_000, 'the sessions’ findings to go with them');
  });

  test("appends to one session update its badge and leave the other rows' badges on screen", async () => {
    await appendLines(steadyFile(), orphan(new ClaudeTranscript('bade0000-0000-4000-8000-000000000001', workspaceDir()).user(steadyTitle), 1).lines);
    const busy = new ClaudeTranscript('bade0000-0000-4000-8000-000000000002', workspaceDir()).user(busyTitle);
    await appendLines(busyFile(), orphan(busy, 2).lines);
    const steady = await waitFor(() => countOf(steadyFile()) || undefined, 10_000, 'the steady session’s finding');
    const before = await waitFor(() => countOf(busyFile()) || undefined, 10_000, 'the busy session’s finding');
    await vscode.commands.executeCommand('agentGuard.sessions.focus');
    await uiCheck({ id: 'badge-steady', selector: rowLabel, text: steadyTitle, badge: String(steady) });
    await uiCheck({ id: 'badge-busy', selector: rowLabel, text: busyTitle, badge: String(before) });

    // Lines that add no finding, each a refresh of the view, while the driver watches the
    // other row's badge; then one that adds a finding to this row.
    const watching = uiCheck({ id: 'badge-steady-through-refreshes', selector: rowLabel, text: steadyTitle, badge: String(steady), steadyMs: 5000 });
    // Awaited below, after the appends: a failure may come before.
    watching.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const from = busy.lines.length;
    for (let i = 0; i < 8; i++) {
      busy.user(`keep going ${i}`);
    }
    orphan(busy, 3);
    await appendLines(busyFile(), busy.lines.slice(from), 400);
    await watching;

    await waitFor(() => countOf(busyFile()) === before + 1 || undefined, 10_000, 'the busy session’s new finding');
    assert.equal(countOf(steadyFile()), steady, 'the steady session’s findings did not change');
    await uiCheck({ id: 'badge-busy-grown', selector: rowLabel, text: busyTitle, badge: String(before + 1), screenshot: 'session-badges.png' });
  });
});
