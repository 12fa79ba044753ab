/// <reference types="mocha" />
// The walkthrough as VS Code renders it: it has a step for the guard hooks (the feature the
// README leads with, which it used to leave out), and its CI step gives a command that works
// without the CLI on the PATH.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { uiCheck, type UiCheck } from './support/ui';

/** The driver clicks the element once found (test/e2e/driver.mjs). */
interface ClickCheck extends UiCheck {
  click?: boolean;
}

/** Expands a step by clicking its title, as a user does, and checks what it shows. */
async function showStep(id: string, title: string, text: string): Promise<void> {
  const click: ClickCheck = { id: `${id}-select`, selector: '.getting-started-step .step-title', text: title, click: true };
  await uiCheck(click);
  await uiCheck({ id, selector: '.getting-started-step.expanded', text, screenshot: `${id}.png` });
}

suite('walkthrough', () => {
  test('it has a step that installs the guard hooks, and a CI step that does not assume agent-guard is on the PATH', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    try {
      await vscode.commands.executeCommand('workbench.action.openWalkthrough', 'agent-session-guard.agent-session-guard#agentGuard.start', false);
      await showStep('walkthrough-hooks', 'Guard writes before they land', 'Install the Guard Hooks');
      await showStep('walkthrough-ci', 'Check sessions in CI', 'node dist/cli.js check');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });

  test('its hooks step is done once a folder has the hooks (not by running the command)', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    try {
      assert.equal(await vscode.commands.executeCommand('agentGuard.installHooks', { confirm: false }), 'written');
      // After the install: its preview of the change takes the walkthrough's place.
      await vscode.commands.executeCommand('workbench.action.openWalkthrough', 'agent-session-guard.agent-session-guard#agentGuard.start', false);
      await uiCheck({ id: 'walkthrough-hooks-done', selector: 'button.getting-started-step[aria-checked="true"]', text: 'Guard writes before they land', screenshot: 'walkthrough-hooks-done.png' });
    } finally {
      await vscode.commands.executeCommand('agentGuard.uninstallHooks', { confirm: false });
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    }
  });
});
