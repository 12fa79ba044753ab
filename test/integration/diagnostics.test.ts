/// <reference types="mocha" />
// Findings reach VS Code's real diagnostics API, the jump command lands on the line, and
// settings apply without a reload — inside a real extension host.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { ClaudeTranscript } from '../unit/support/claude';
import { appendLines, claudeProjectDir, workspaceDir } from './support/transcripts';
import { uiCheck, waitFor } from './support/ui';

const A = 'toolu_01AAAAAAAAAAAAAAAAAAAAAA';
const B = 'toolu_01BBBBBBBBBBBBBBBBBBBBBB';

suite('diagnostics', () => {
  let api: AgentGuardApi;
  let file: string;
  let transcript: ClaudeTranscript;

  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension<AgentGuardApi>('agent-session-guard.agent-session-guard');
    assert.ok(ext);
    api = await ext.activate();
    await api.ready();
    file = path.join(claudeProjectDir(), 'a1b2c3d4-0000-4000-8000-000000000001.jsonl');
    const app = path.join(workspaceDir(), 'src', 'app.ts');
    transcript = new ClaudeTranscript('a1b2c3d4-0000-4000-8000-000000000001', workspaceDir())
      .user('Tidy up the app')
      .call('msg_1', A, 'Bash', { command: 'npm test' })
      .call('msg_1', B, 'Read', { file_path: app })
      .result(A, 'ok')
      .say('msg_2', 'Moving on before the Read came back');
  });

  test('a violating line appended live becomes a diagnostic at its line and span', async () => {
    await appendLines(file, transcript.lines);
    const uri = vscode.Uri.file(file);
    const diags = await waitFor(
      () => {
        api.flushDiagnostics();
        const d = vscode.languages.getDiagnostics(uri);
        return d.length > 0 ? d : undefined;
      },
      8000,
      'a diagnostic on the transcript',
    );
    assert.equal(diags.length, 1);
    const d = diags[0]!;
    const line = transcript.lineOf(B);
    assert.equal(d.range.start.line, line - 1);
    const text = transcript.lines[line - 1]!;
    assert.equal(d.range.start.character, text.indexOf(B));
    assert.equal(d.range.end.character, text.indexOf(B) + B.length);
    assert.equal(d.severity, vscode.DiagnosticSeverity.Error);
    assert.equal(d.source, 'Agent Session Guard');
    assert.equal(typeof d.code === 'object' ? d.code.value : d.code, 'missing-result');
    assert.match(d.message, /Tool call toolu_01B+ \(Read\) got no result before the next assistant turn/);
    assert.ok(d.relatedInformation?.some((r) => r.location.range.start.line === transcript.lineOf('msg_2') - 1));
  });

  test('the jump command opens the transcript with the span selected', async () => {
    const f = api.findings().find((x) => x.file === file && x.rule === 'missing-result');
    assert.ok(f);
    await vscode.commands.executeCommand('agentGuard.openFinding', f);
    const editor = vscode.window.activeTextEditor;
    assert.ok(editor);
    assert.equal(editor.document.uri.fsPath, file);
    assert.equal(editor.selection.start.line, transcript.lineOf(B) - 1);
    assert.equal(editor.document.getText(editor.selection), B);
  });

  test('the Problems panel shows the finding (checked in the browser)', async () => {
    await vscode.commands.executeCommand('workbench.actions.view.problems');
    await uiCheck({ id: 'problems-panel', selector: '.markers-panel .monaco-list-row', text: 'got no result before the next assistant turn', screenshot: 'problems-panel.png' });
  });

  test('a rule severity setting applies without a reload', async () => {
    const config = vscode.workspace.getConfiguration('agentGuard');
    await config.update('rules', { 'missing-result': 'warning' }, vscode.ConfigurationTarget.Global);
    try {
      await waitFor(
        () => {
          api.flushDiagnostics();
          return vscode.languages.getDiagnostics(vscode.Uri.file(file)).some((d) => d.severity === vscode.DiagnosticSeverity.Warning);
        },
        8000,
        'the diagnostic to become a warning',
      ).catch((e: unknown) => {
        throw new Error(`${String(e)} — findings: ${JSON.stringify(api.findings().map((f) => [f.rule, f.severity]))}, diags: ${JSON.stringify(vscode.languages.getDiagnostics(vscode.Uri.file(file)).map((d) => d.severity))}`);
      });
    } finally {
      await config.update('rules', undefined, vscode.ConfigurationTarget.Global);
    }
    await waitFor(
      () => {
        api.flushDiagnostics();
        return vscode.languages.getDiagnostics(vscode.Uri.file(file)).some((d) => d.severity === vscode.DiagnosticSeverity.Error);
      },
      8000,
      'the diagnostic to be an error again',
    );
  });

  test('turning an agent off removes its diagnostics; on again brings them back', async () => {
    const config = vscode.workspace.getConfiguration('agentGuard');
    await config.update('agents.claudeCode', false, vscode.ConfigurationTarget.Global);
    try {
      await waitFor(
        () => {
          api.flushDiagnostics();
          return vscode.languages.getDiagnostics(vscode.Uri.file(file)).length === 0;
        },
        8000,
        'the diagnostics to go',
      );
    } finally {
      await config.update('agents.claudeCode', undefined, vscode.ConfigurationTarget.Global);
    }
    await api.ready();
    await waitFor(
      () => {
        api.flushDiagnostics();
        return vscode.languages.getDiagnostics(vscode.Uri.file(file)).length === 1;
      },
      8000,
      'the diagnostics to come back',
    );
  });
});
