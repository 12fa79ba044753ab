/// <reference types="mocha" />
// A rule's documentation opens from the extension's own files, in the Markdown preview: the
// diagnostics' links go to GitHub, which is no help offline.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { waitFor } from './support/ui';

suite('rule documentation', () => {
  suiteSetup(async () => {
    const api = await vscode.extensions.getExtension<AgentGuardApi>('agent-session-guard.agent-session-guard')!.activate();
    await api.ready();
  });

  test('opens the packaged page of a rule in the Markdown preview', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const doc = await vscode.commands.executeCommand<vscode.Uri | undefined>('agentGuard.openRuleDoc', 'stale-write');
    assert.ok(doc, 'the command names the page it opened');
    assert.equal(doc.scheme, 'file');
    assert.match(doc.path, /\/docs\/rules\/stale-write\.md$/);
    const preview = await waitFor(
      () => vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputWebview && /markdown\.preview/.test(t.input.viewType)),
      10_000,
      'a Markdown preview tab',
    );
    assert.match(preview.label, /stale-write/);
  });
});
