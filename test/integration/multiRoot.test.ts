/// <reference types="mocha" />
// A multi-root window (run with `npm run test:e2e -- --multi-root --grep "multi-root"`; in a
// one-folder window these tests are skipped): each folder's sessions are found and checked,
// each folder has its own guard service, and a folder's own settings apply to its sessions only.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { encodeClaudeProject } from '../../src/core/discovery/locations';
import type { Finding } from '../../src/core/model/finding';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { ClaudeTranscript } from '../unit/support/claude';
import { appendLines } from './support/transcripts';
import { uiCheck, waitFor } from './support/ui';

suite('multi-root window', () => {
  let api: AgentGuardApi;
  let folders: readonly vscode.WorkspaceFolder[];
  /** Per folder: its session's transcript. */
  const transcripts = new Map<string, string>();

  /** The write-before-read finding of the session in `folder`, if there is one now. */
  const unreadWrite = (folder: vscode.WorkspaceFolder): Finding | undefined =>
    api.findings().find((f) => f.rule === 'write-before-read' && f.file === transcripts.get(folder.name));

  suiteSetup(async function () {
    folders = vscode.workspace.workspaceFolders ?? [];
    if (folders.length < 2) {
      // In the --multi-root run, a window that did not open both folders is a failure, not a skip.
      assert.notEqual(process.env['AGS_E2E_WINDOW'], 'multi-root', `the --multi-root run opened ${folders.length} folder(s)`);
      this.skip();
    }
    api = await vscode.extensions.getExtension<AgentGuardApi>('agent-session-guard.agent-session-guard')!.activate();
    await api.ready();
    const base = process.env['CLAUDE_CONFIG_DIR'];
    assert.ok(base, 'CLAUDE_CONFIG_DIR is set by test/e2e/runTests.mjs');
    // In each folder, a session edits a file it never read.
    for (const [i, folder] of folders.entries()) {
      const dir = folder.uri.fsPath;
      const target = path.join(dir, 'src', 'app.ts');
      const original = fs.readFileSync(target, 'utf8');
      const firstLine = original.split('\n')[0]!;
      const id = `c0ffee0${i}-0000-4000-8000-00000000000${i}`;
      const file = path.join(base, 'projects', encodeClaudeProject(dir), `${id}.jsonl`);
      transcripts.set(folder.name, file);
      const t = new ClaudeTranscript(id, dir)
        .user(`Tidy ${folder.name}`)
        .edit('msg_1', `toolu_EDIT_${i}`, target, original, firstLine, `${firstLine} // tidied`)
        .say('msg_2', 'Done.');
      await appendLines(file, t.lines, 10);
    }
  });

  suiteTeardown(async () => {
    if (folders.length >= 2) {
      await vscode.workspace.getConfiguration('agentGuard', folders[1]!.uri).update('rules', undefined, vscode.ConfigurationTarget.WorkspaceFolder);
    }
  });

  test("each folder's sessions are found and checked, and shown in the Problems panel", async () => {
    for (const folder of folders) {
      const finding = await waitFor(() => unreadWrite(folder), 20_000, `a write-before-read finding for the session in ${folder.name}`);
      const diagnostics = await waitFor(
        () => {
          api.flushDiagnostics();
          const list = vscode.languages.getDiagnostics(vscode.Uri.file(finding.file));
          return list.length > 0 ? list : undefined;
        },
        10_000,
        `diagnostics on ${finding.file}`,
      );
      const rules = diagnostics.map((d) => (typeof d.code === 'object' ? d.code.value : d.code));
      assert.ok(rules.includes('write-before-read'), `rules on ${folder.name}'s transcript: ${rules.join(', ')}`);
    }
  });

  test('every folder with sessions is offered the guard hooks, by name', async () => {
    // Each folder's sessions may be found in the same moment (one offer naming both) or not
    // (one offer each): either way, each folder is named.
    await vscode.commands.executeCommand('notifications.showList');
    try {
      for (const folder of folders) {
        await uiCheck({
          id: `hooks-offer-${folder.name}`,
          selector: '.notifications-center .notification-list-item:has-text("install its hook")',
          text: folder.name,
          screenshot: `hooks-offer-${folder.name}.png`,
        });
      }
    } finally {
      await vscode.commands.executeCommand('notifications.hideList');
    }
  });

  test('each folder has its own guard service', () => {
    const sockets = api.guardSockets();
    assert.equal(new Set(sockets).size, folders.length, `sockets: ${sockets.join(', ')}`);
  });

  test("a folder's own rules setting applies to that folder's sessions only", async () => {
    const [alpha, beta] = [folders[0]!, folders[1]!];
    await waitFor(() => unreadWrite(alpha) && unreadWrite(beta), 20_000, 'both findings');
    await vscode.workspace.getConfiguration('agentGuard', beta.uri).update('rules', { 'write-before-read': 'off' }, vscode.ConfigurationTarget.WorkspaceFolder);
    await waitFor(() => (unreadWrite(beta) === undefined && unreadWrite(alpha) !== undefined ? true : undefined), 20_000, `the rule off in ${beta.name} only`);
    await api.ready();
    assert.ok(unreadWrite(alpha), `${alpha.name}'s finding stays`);
    assert.equal(unreadWrite(beta), undefined, `${beta.name}'s finding is gone`);
  });
});
