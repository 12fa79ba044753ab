/// <reference types="mocha" />
// The window reloaded (run with `npm run test:e2e -- --reload --grep "reload"`; in the other
// runs these tests are skipped): the test asks the driver to reload the window half way, and
// the tests run again in the new window, where the second half checks what came back. VS Code
// restores a webview panel only when its extension registered a serializer for its view type.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { ClaudeTranscript } from '../unit/support/claude';
import { appendLines, claudeProjectDir, workspaceDir } from './support/transcripts';
import { uiCheck, waitFor } from './support/ui';

const frame = 'extensionId=agent-session-guard';

function timelineTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('agentGuard.timeline'));
}

suite('window reload', () => {
  suiteSetup(function () {
    if (process.env['AGS_E2E_RELOAD'] !== '1') {
      this.skip();
    }
  });

  test('an open session timeline comes back after the window reloads, showing its session', async function () {
    const api = await vscode.extensions.getExtension<AgentGuardApi>('agent-session-guard.agent-session-guard')!.activate();
    await api.ready();
    // Which window this is: the signal folder outlives the window, and the test that asked for
    // the reload never learns that it happened.
    const reloaded = path.join(process.env['AGS_UI_SIGNAL_DIR'] ?? '', 'reload-asked');
    if (!fs.existsSync(reloaded)) {
      const file = path.join(claudeProjectDir(), 'f6a7b8c9-0000-4000-8000-000000000006.jsonl');
      const t = new ClaudeTranscript('f6a7b8c9-0000-4000-8000-000000000006', workspaceDir())
        .user('Reload me')
        .call('msg_1', 'toolu_RL1', 'Bash', { command: 'npm test' })
        .result('toolu_RL1', 'ok')
        .say('msg_2', 'Done.');
      await appendLines(file, t.lines, 5);
      await vscode.commands.executeCommand('agentGuard.showTimeline', vscode.Uri.file(file));
      await uiCheck({ id: 'reload-before', frame, selector: '.row-batch .lane[data-status="ok"]', text: 'Bash' });
      fs.writeFileSync(reloaded, '');
      // This extension host goes with the old window: it must not finish, and report, this run.
      this.timeout(0);
      void vscode.commands.executeCommand('workbench.action.reloadWindow');
      await new Promise(() => {});
    }
    await waitFor(() => timelineTabs().length === 1, 20_000, 'the timeline to be restored');
    await uiCheck({ id: 'reload-restored', frame, selector: '.row-batch .lane[data-status="ok"]', text: 'Bash', screenshot: 'timeline-reloaded.png' });
    await waitFor(() => timelineTabs()[0]?.label === 'Timeline: Reload me', 10_000, `the restored tab named after the session (it is "${timelineTabs()[0]?.label}")`);
    assert.equal(timelineTabs().length, 1);
  });
});
