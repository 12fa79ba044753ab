/// <reference types="mocha" />
// A finding about a workspace file shows on that file too; quick fixes and the read/now diff.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { ClaudeTranscript } from '../unit/support/claude';
import { withMessages } from './support/messages';
import { appendLines, claudeProjectDir, workspaceDir } from './support/transcripts';
import { uiCheck, waitFor } from './support/ui';

suite('workspace files', () => {
  let api: AgentGuardApi;
  let file: string;
  let target: string;
  let t: ClaudeTranscript;
  const v1 = 'export const greeting = "hello";\nexport const answer = 41;\nexport const name = "app";\n';
  const changed = 'export const greeting = "hello, world";\nexport const answer = 41;\nexport const name = "app";\n';

  suiteSetup(async () => {
    api = await vscode.extensions.getExtension<AgentGuardApi>('agent-session-guard.agent-session-guard')!.activate();
    await api.ready();
    target = path.join(workspaceDir(), 'src', 'stale.ts');
    fs.writeFileSync(target, changed);
    file = path.join(claudeProjectDir(), 'b2c3d4e5-0000-4000-8000-000000000002.jsonl');
    // The session read v1, the file then changed (line 1), and its write of the whole file
    // overwrote it. (An Edit could not: its old_string would have to quote the changed line.)
    t = new ClaudeTranscript('b2c3d4e5-0000-4000-8000-000000000002', workspaceDir())
      .user('Make the greeting friendlier')
      .read('msg_1', 'toolu_READ', target, v1)
      .write('msg_2', 'toolu_EDIT', target, changed.replace('hello, world', 'hi there'), changed)
      .say('msg_3', 'Done.');
    await appendLines(file, t.lines, 10);
  });

  test('the stale write shows on the transcript and on the file, linked both ways', async () => {
    const onFile = await waitFor(
      () => {
        api.flushDiagnostics();
        const d = vscode.languages.getDiagnostics(vscode.Uri.file(target));
        return d.length > 0 ? d : undefined;
      },
      8000,
      'a diagnostic on the workspace file',
    );
    const d = onFile[0]!;
    assert.equal(typeof d.code === 'object' ? d.code.value : d.code, 'stale-write');
    assert.equal(d.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(d.range.start.line, 0, 'at the line that changed behind the session');
    const back = d.relatedInformation?.[0];
    assert.ok(back);
    assert.equal(back.location.uri.fsPath, file);
    assert.equal(back.location.range.start.line, t.lineOf('toolu_EDIT') - 1);
    const onTranscript = vscode.languages.getDiagnostics(vscode.Uri.file(file));
    assert.equal(onTranscript.length, 1);
    assert.ok(onTranscript[0]!.relatedInformation?.some((r) => r.location.uri.fsPath === target));
  });

  test('quick fixes offer the jumps and the diff', async () => {
    const d = vscode.languages.getDiagnostics(vscode.Uri.file(file))[0]!;
    // Quick fixes are asked for on an open document (as when the user hovers the problem).
    await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', vscode.Uri.file(file), d.range);
    const titles = actions.map((a) => a.title);
    for (const title of ['Open the file it wrote', 'Show diff: what the session read ↔ the file now', 'Show documentation of stale-write', 'Copy finding as JSON']) {
      assert.ok(titles.includes(title), `${title} in ${titles.join(', ')}`);
    }
    // The finding is at the write's call: a jump to the call would go nowhere there.
    assert.equal(d.range.start.line, t.lineOf('toolu_EDIT') - 1);
    assert.ok(!titles.includes('Open the tool call'), titles.join(', '));
    // On the file it wrote, both jumps back.
    const onFile = vscode.languages.getDiagnostics(vscode.Uri.file(target))[0]!;
    await vscode.workspace.openTextDocument(vscode.Uri.file(target));
    const there = (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', vscode.Uri.file(target), onFile.range)).map((a) => a.title);
    for (const title of ['Open the transcript at this finding', 'Open the tool call', 'Show diff: what the session read ↔ the file now']) {
      assert.ok(there.includes(title), `${title} in ${there.join(', ')}`);
    }
    assert.ok(!there.includes('Open the file it wrote'), there.join(', '));
  });

  test('the diff shows what the session read against the file now', async () => {
    const f = api.findings().find((x) => x.file === file && x.rule === 'stale-write');
    assert.ok(f);
    await vscode.commands.executeCommand('agentGuard.showReadDiff', f);
    const tab = await waitFor(() => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      return input instanceof vscode.TabInputTextDiff ? input : undefined;
    }, 5000, 'a diff editor');
    assert.equal(tab.original.scheme, 'agent-guard-snapshot');
    assert.equal(tab.modified.fsPath, target);
    const left = await vscode.workspace.openTextDocument(tab.original);
    assert.equal(left.getText(), v1);
  });

  test('open the tool call, and the file it wrote', async () => {
    const f = api.findings().find((x) => x.file === file && x.rule === 'stale-write')!;
    await vscode.commands.executeCommand('agentGuard.openCall', f);
    let editor = vscode.window.activeTextEditor!;
    assert.equal(editor.document.uri.fsPath, file);
    assert.equal(editor.document.getText(editor.selection), 'toolu_EDIT');
    await vscode.commands.executeCommand('agentGuard.openWorkspaceFile', f);
    editor = vscode.window.activeTextEditor!;
    assert.equal(editor.document.uri.fsPath, target);
    assert.equal(editor.selection.start.line, 0);
  });

  test('copy a finding as JSON', async () => {
    const f = api.findings().find((x) => x.file === file && x.rule === 'stale-write')!;
    await vscode.commands.executeCommand('agentGuard.copyFinding', f);
    const copied = JSON.parse(await vscode.env.clipboard.readText()) as { rule: string; line: number; file: string };
    assert.deepEqual([copied.rule, copied.line, copied.file], ['stale-write', t.lineOf('toolu_EDIT'), file]);
  });

  test('the sessions view lists the session under its agent (checked in the browser)', async () => {
    await vscode.commands.executeCommand('workbench.view.extension.agentGuard');
    await uiCheck({ id: 'sessions-view', selector: '.monaco-list-row', text: 'Make the greeting friendlier', screenshot: 'sessions-view.png' });
  });

  test('run without a finding, Open the File It Wrote and Show Diff pick among the findings about a file; a dismissed pick says nothing', async () => {
    // A finding about no file: a result whose call is nowhere.
    const orphans = path.join(claudeProjectDir(), 'b2c3d4e5-0000-4000-8000-000000000099.jsonl');
    const o = new ClaudeTranscript('b2c3d4e5-0000-4000-8000-000000000099', workspaceDir()).user('Go on').result('toolu_NOWHERE', 'done').say('msg_1', 'Done.');
    await appendLines(orphans, o.lines, 10);
    const window = vscode.window as { showQuickPick: unknown };
    const showQuickPick = window.showQuickPick;
    try {
      await waitFor(() => api.findings().some((f) => f.file === orphans && f.subject === undefined), 8000, 'a finding about no file');
      const offered: { rule: string; subject?: unknown }[][] = [];
      window.showQuickPick = (items: readonly { finding: { rule: string; subject?: unknown } }[]) => {
        offered.push(items.map((i) => i.finding));
        return Promise.resolve(undefined);
      };
      await withMessages(async (shown) => {
        assert.equal(await vscode.commands.executeCommand('agentGuard.openWorkspaceFile'), undefined);
        await vscode.commands.executeCommand('agentGuard.showReadDiff');
        assert.deepEqual(shown, [], 'dismissing the pick says nothing');
      });
      assert.equal(offered.length, 2, 'both commands ask which finding');
      for (const findings of offered) {
        assert.ok(findings.some((f) => f.rule === 'stale-write'), JSON.stringify(findings));
        assert.deepEqual(findings.filter((f) => f.subject === undefined), [], 'only findings about a file');
      }
    } finally {
      window.showQuickPick = showQuickPick;
      fs.rmSync(orphans, { force: true });
    }
  });
});
