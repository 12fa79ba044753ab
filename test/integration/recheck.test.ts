/// <reference types="mocha" />
// Re-check All Sessions from the command palette, with the sessions view hidden: its progress
// used to go only to that view, so nothing showed that anything happened.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { uiCheck } from './support/ui';

suite('re-check', () => {
  let api: AgentGuardApi;

  suiteSetup(async () => {
    api = await vscode.extensions.getExtension<AgentGuardApi>('agent-session-guard.agent-session-guard')!.activate();
    await api.ready();
  });

  suiteTeardown(async () => {
    await vscode.commands.executeCommand('workbench.action.focusSideBar');
  });

  test('from the palette with the side bar closed, the status bar shows it running and what it found', async () => {
    await vscode.commands.executeCommand('workbench.action.closeSidebar');
    const result = await vscode.commands.executeCommand<{ sessions: number; findings: number } | undefined>('agentGuard.recheck');
    assert.ok(result, 'the command says what it re-checked');
    assert.equal(result.findings, api.findings().length);
    const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;
    await uiCheck({
      id: 'recheck-done',
      selector: '#workbench\\.parts\\.statusbar .statusbar-item',
      text: `Re-checked ${plural(result.sessions, 'session')}: ${plural(result.findings, 'finding')}`,
      screenshot: 'recheck-done.png',
    });
  });
});
