/// <reference types="mocha" />
// A folder opened through a symbolic link (run with `npm run test:e2e -- --linked --grep "linked
// folder"`; in other windows these tests are skipped). Agents record real paths: Claude Code
// names its project folder after the real path and writes real paths into its calls. The editor
// keeps the folder as it was opened. The session must still be found, its findings shown on the
// file as the editor names it, and the jumps must open that editor, not a second one of the same
// file under its real path (beside the buffer that may hold the user's unsaved changes).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { encodeClaudeProject } from '../../src/core/discovery/locations';
import type { Finding } from '../../src/core/model/finding';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { ClaudeTranscript } from '../unit/support/claude';
import { runHook } from './support/hooks';
import { appendLines, workspaceDir } from './support/transcripts';
import { waitFor } from './support/ui';

suite('linked folder', () => {
  let api: AgentGuardApi;
  /** The folder as opened (the link), and its real path. */
  let linked: string;
  let real: string;
  let transcript: string;
  const v1 = 'export const greeting = "hello";\nexport const answer = 41;\n';
  const changed = 'export const greeting = "hello, world";\nexport const answer = 41;\n';

  const staleWrite = (): Finding | undefined => api.findings().find((f) => f.rule === 'stale-write' && f.file === transcript);

  suiteSetup(async function () {
    linked = workspaceDir();
    real = fs.realpathSync(linked);
    if (real === linked) {
      // In the --linked run, a folder opened by its real path is a failure, not a skip.
      assert.notEqual(process.env['AGS_E2E_WINDOW'], 'linked', `the --linked run opened ${linked}, not a link`);
      this.skip();
    }
    api = await vscode.extensions.getExtension<AgentGuardApi>('agent-session-guard.agent-session-guard')!.activate();
    await api.ready();
    const base = process.env['CLAUDE_CONFIG_DIR'];
    assert.ok(base, 'CLAUDE_CONFIG_DIR is set by test/e2e/runTests.mjs');
    const target = path.join(real, 'src', 'linked.ts');
    fs.writeFileSync(target, changed);
    const id = 'd4e5f6a7-0000-4000-8000-000000000004';
    transcript = path.join(base, 'projects', encodeClaudeProject(real), `${id}.jsonl`);
    // As Claude Code records it: the real working folder and real paths. The session read v1,
    // the file then changed, and its write of the whole file overwrote that change.
    const t = new ClaudeTranscript(id, real)
      .user('Make the greeting friendlier')
      .read('msg_1', 'toolu_READ', target, v1)
      .write('msg_2', 'toolu_WRITE', target, changed.replace('hello, world', 'hi there'), changed)
      .say('msg_3', 'Done.');
    await appendLines(transcript, t.lines, 10);
  });

  test('the session, recorded under the real path, is found', async () => {
    const f = await waitFor(staleWrite, 20_000, 'the stale-write finding of the session recorded under the real path');
    assert.equal(f.subject?.path, path.join(real, 'src', 'linked.ts'));
  });

  test('the finding shows on the file as the editor names it, and only there', async () => {
    const asOpened = vscode.Uri.file(path.join(linked, 'src', 'linked.ts'));
    const onFile = await waitFor(
      () => {
        api.flushDiagnostics();
        const d = vscode.languages.getDiagnostics(asOpened);
        return d.length > 0 ? d : undefined;
      },
      10_000,
      `a diagnostic on ${asOpened.fsPath}`,
    );
    assert.equal(typeof onFile[0]!.code === 'object' ? onFile[0]!.code.value : onFile[0]!.code, 'stale-write');
    assert.deepEqual(vscode.languages.getDiagnostics(vscode.Uri.file(path.join(real, 'src', 'linked.ts'))), [], 'nothing under the real path');
    const onTranscript = vscode.languages.getDiagnostics(vscode.Uri.file(transcript));
    assert.ok(
      onTranscript.some((d) => d.relatedInformation?.some((r) => r.location.uri.fsPath === asOpened.fsPath)),
      'the transcript links to the file as the editor names it',
    );
  });

  test('"Open the file it wrote" opens the editor of the folder as opened', async () => {
    const f = staleWrite();
    assert.ok(f);
    await vscode.commands.executeCommand('agentGuard.openWorkspaceFile', f);
    const editor = vscode.window.activeTextEditor;
    assert.equal(editor?.document.uri.fsPath, path.join(linked, 'src', 'linked.ts'));
    const open = vscode.workspace.textDocuments.map((d) => d.uri.fsPath);
    assert.ok(!open.includes(path.join(real, 'src', 'linked.ts')), `no second editor under the real path: ${open.join(', ')}`);
  });

  test('the read diff compares with that same editor', async () => {
    const f = staleWrite();
    assert.ok(f);
    await vscode.commands.executeCommand('agentGuard.showReadDiff', f);
    const tab = await waitFor(() => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputTextDiff ? input : undefined;
    }, 5000, 'a diff editor');
    assert.equal(tab.modified.fsPath, path.join(linked, 'src', 'linked.ts'));
    assert.equal((await vscode.workspace.openTextDocument(tab.original)).getText(), v1);
  });

  test('the guard denies a hook write, named by its real path, to a file with unsaved changes in the linked editor', async () => {
    await waitFor(() => api.guardSockets().length > 0, 10_000, 'the guard service');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(path.join(linked, 'src', 'util.ts')));
    const edit = new vscode.WorkspaceEdit();
    edit.insert(doc.uri, new vscode.Position(0, 0), '// unsaved\n');
    await vscode.workspace.applyEdit(edit);
    assert.ok(doc.isDirty);
    try {
      const hook = path.join(vscode.extensions.getExtension('agent-session-guard.agent-session-guard')!.extensionPath, 'dist', 'hook.js');
      // What Claude Code sends: its real working folder, and the real path of the file.
      const input = JSON.stringify({
        session_id: 'd4e5f6a7-0000-4000-8000-000000000005',
        transcript_path: '/nonexistent/transcript.jsonl',
        cwd: real,
        hook_event_name: 'PreToolUse',
        tool_name: 'Write',
        tool_input: { file_path: path.join(real, 'src', 'util.ts'), content: 'overwritten\n' },
        tool_use_id: 'toolu_LINKED_HOOK',
      });
      const r = await runHook([hook, '--agent-guard', '--agent', 'claude'], input);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /unsaved changes in the editor/);
    } finally {
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  });
});
