/// <reference types="mocha" />
// The sessions view with no session: its welcome content (what is watched, and the buttons)
// shows. VS Code hides a tree view's welcome content while the view has a `message`, and the
// view used to set one ("Watching: …") whenever it had no session, so the welcome never showed.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { claudeProjectDir } from './support/transcripts';
import { uiCheck, waitFor } from './support/ui';

const agents = ['agents.claudeCode', 'agents.codex', 'agents.gemini', 'agents.amplifier'];

suite('empty state', () => {
  test('with no session, the view shows its welcome with the watched folders one click away', async () => {
    const api = await vscode.extensions.getExtension<AgentGuardApi>('agent-session-guard.agent-session-guard')!.activate();
    const config = vscode.workspace.getConfiguration('agentGuard');
    const watched = await vscode.commands.executeCommand<string[]>('agentGuard.showWatchedFolders', { show: false });
    assert.ok(watched.some((l) => l.startsWith('Claude Code: ') && l.includes(claudeProjectDir().split('/projects/')[0]!)), watched.join('\n'));
    for (const key of agents) {
      await config.update(key, false, vscode.ConfigurationTarget.Global);
    }
    try {
      await api.ready();
      await waitFor(() => api.findings().length === 0, 10_000, 'no session left');
      await vscode.commands.executeCommand('agentGuard.sessions.focus');
      await uiCheck({ id: 'empty-state', selector: '.welcome-view-content', text: 'Show Watched Folders', screenshot: 'empty-state.png' });
    } finally {
      for (const key of agents) {
        await config.update(key, undefined, vscode.ConfigurationTarget.Global);
      }
      await api.ready();
    }
  });
});
