/// <reference types="mocha" />
// Re-check All Sessions from the command palette, with the sessions view hidden: its progress
// used to go only to that view, so nothing showed that anything happened. A re-check keeps the
// guard's decisions: they come from its ledger, not from the transcript.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { ClaudeTranscript } from '../unit/support/claude';
import { hookEnv, runHook } from './support/hooks';
import { appendLines, claudeProjectDir, workspaceDir } from './support/transcripts';
import { uiCheck, waitFor } from './support/ui';

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

  test('a denial by the guard stays through a re-check, on the transcript and on the file it protected', async () => {
    await waitFor(() => api.guardSockets().length > 0, 10_000, 'the guard service');
    const sessionId = 'f1e2d3c4-0000-4000-8000-000000000021';
    const transcript = path.join(claudeProjectDir(), `${sessionId}.jsonl`);
    const readme = path.join(workspaceDir(), 'README.md');
    const codes = (file: string): string[] => (
      api.flushDiagnostics(),
      vscode.languages
        .getDiagnostics(vscode.Uri.file(file))
        .map((d) => String(typeof d.code === 'object' ? d.code.value : d.code))
        .sort()
    );
    // A line that is no JSON: its diagnostic says the monitor has read the session.
    const t = new ClaudeTranscript(sessionId, workspaceDir()).at(Date.now()).user('Tidy the readme').raw('{not json').say('msg_1', 'Looking at it.');
    await appendLines(transcript, t.lines);
    try {
      await waitFor(() => codes(transcript).includes('unparseable-line'), 10_000, 'the session read');
      const edit = { file_path: readme, old_string: '#', new_string: '##' };
      const input = JSON.stringify({
        session_id: sessionId,
        transcript_path: transcript,
        cwd: workspaceDir(),
        hook_event_name: 'PreToolUse',
        tool_name: 'Edit',
        tool_input: edit,
        tool_use_id: 'toolu_RECHECK',
      });
      const hook = path.join(vscode.extensions.getExtension('agent-session-guard.agent-session-guard')!.extensionPath, 'dist', 'hook.js');
      const r = await runHook([hook, '--agent-guard', '--agent', 'claude'], input, hookEnv);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /^README\.md already exists and you have not read it in this session/);
      await waitFor(() => codes(transcript).includes('guard') && codes(readme).includes('guard'), 10_000, 'the guard’s diagnostics');
      const before = { transcript: codes(transcript), readme: codes(readme), errors: api.status().counts?.errors };

      await vscode.commands.executeCommand('agentGuard.recheck');
      assert.deepEqual({ transcript: codes(transcript), readme: codes(readme), errors: api.status().counts?.errors }, before);
    } finally {
      fs.rmSync(transcript, { force: true });
      await waitFor(() => codes(transcript).length === 0 && !codes(readme).includes('guard'), 10_000, 'the session’s diagnostics to go with it');
    }
  });
});
