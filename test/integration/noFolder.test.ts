/// <reference types="mocha" />
// A window with no folder open (run with `npm run test:e2e -- --no-folder --grep "no folder"`;
// with a folder open, as in the default run, these tests are skipped). Nothing is watched, so
// the status bar item is hidden and the sessions view says to open a folder, instead of
// "0 live" and an empty "Watching:" list.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { uiCheck } from './support/ui';

suite('no folder open', () => {
  let api: AgentGuardApi;

  suiteSetup(async function () {
    if ((vscode.workspace.workspaceFolders ?? []).length > 0) {
      // In the --no-folder run, a window with a folder is a failure, not a skip.
      assert.notEqual(process.env['AGS_E2E_WINDOW'], 'no-folder', 'the --no-folder run opened a folder');
      this.skip();
    }
    api = await vscode.extensions.getExtension<AgentGuardApi>('agent-session-guard.agent-session-guard')!.activate();
    await api.ready();
  });

  test('the status bar item is hidden', () => {
    const status = api.status();
    assert.equal(status.visible, false, `shown: ${status.text} (${status.tooltip})`);
  });

  test('the sessions view offers to open a folder', async () => {
    await vscode.commands.executeCommand('agentGuard.sessions.focus');
    await uiCheck({ id: 'no-folder-view', selector: '.welcome-view-content', text: 'Open Folder', screenshot: 'no-folder-view.png' });
  });
});
