/// <reference types="mocha" />
// A window with no folder open (run with `npm run test:e2e -- --no-folder --grep "no folder"`;
// with a folder open, as in the default run, these tests are skipped). Nothing is watched, so
// the status bar item is hidden and the sessions view says to open a folder, instead of
// "0 live" and an empty "Watching:" list.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { withMessages } from './support/messages';
import { uiCheck, waitFor, type UiCheck } from './support/ui';

/** The driver clicks the element once found (test/e2e/driver.mjs). */
interface ClickCheck extends UiCheck {
  click?: boolean;
}

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

  test('the walkthrough’s Install the Guard Hooks… says to open a folder first, and leaves its step undone', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    try {
      await vscode.commands.executeCommand('workbench.action.openWalkthrough', 'agent-session-guard.agent-session-guard#agentGuard.start', false);
      await withMessages(async (shown) => {
        const title: ClickCheck = { id: 'no-folder-hooks-step', selector: '.getting-started-step .step-title', text: 'Guard writes before they land', click: true };
        await uiCheck(title);
        // The button as the user clicks it: the walkthrough ticked its step on the command alone.
        const button: ClickCheck = { id: 'no-folder-hooks-button', selector: '.getting-started-step.expanded .monaco-button', text: 'Install the Guard Hooks', click: true };
        await uiCheck(button);
        const message = await waitFor(() => shown.find((m) => /open a folder/i.test(m)), 8000, `the message to open a folder (shown: ${JSON.stringify(shown)})`);
        assert.match(message, /^No folder is open\b.*Open a folder first to install the guard hooks/);
      });
      await uiCheck({ id: 'no-folder-hooks-undone', selector: 'button.getting-started-step[aria-checked="false"]', text: 'Guard writes before they land', steadyMs: 1500, screenshot: 'no-folder-hooks-undone.png' });
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  test('removing the guard hooks says to open a folder first', async () => {
    await withMessages(async (shown) => {
      assert.equal(await vscode.commands.executeCommand('agentGuard.uninstallHooks'), 'no-folder');
      assert.equal(shown.length, 1, JSON.stringify(shown));
      assert.match(shown[0]!, /^No folder is open\b.*Open a folder first to remove the guard hooks/);
    });
  });

  test('Show Guard Hooks Status says a folder must be open, and offers no action', async () => {
    await withMessages(async (shown, buttons) => {
      assert.deepEqual(await vscode.commands.executeCommand('agentGuard.hooksStatus'), []);
      assert.equal(shown.length, 1, JSON.stringify(shown));
      assert.match(shown[0]!, /^No folder is open\b.*Open a folder first to see the guard hooks/);
      assert.deepEqual(buttons[0], ['Open Folder…']);
    });
  });

  test('Show Watched Session Folders says no folder is open (not that no agent is on)', async () => {
    await withMessages(async (shown) => {
      assert.deepEqual(await vscode.commands.executeCommand('agentGuard.showWatchedFolders'), []);
      assert.equal(shown.length, 1, JSON.stringify(shown));
      assert.match(shown[0]!, /\nnone: no folder is open\b/);
      assert.doesNotMatch(shown[0]!, /agent is turned on/);
    });
  });
});
