/// <reference types="mocha" />
// A legacy Gemini CLI session (one JSON document, rewritten whole on every change) is watched
// live: its diagnostics follow the rewrites, and the sessions view lists it.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { geminiProjectHash } from '../../src/core/discovery/locations';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { workspaceDir } from './support/transcripts';
import { uiCheck, waitFor } from './support/ui';

/** The document as Gemini CLI wrote it: the conversation, pretty-printed, with every call answered. */
function legacyDocument(calls: { id: string; name: string; args: Record<string, unknown> }[]): string {
  return JSON.stringify(
    {
      sessionId: '7a6b5c4d-1111-2222-3333-444455556666',
      projectHash: geminiProjectHash(workspaceDir()),
      startTime: '2026-03-20T10:00:00.000Z',
      lastUpdated: `2026-03-20T10:0${calls.length}:00.000Z`,
      messages: [
        { id: 'm1', timestamp: '2026-03-20T10:00:00.000Z', type: 'user', content: 'Make the port configurable' },
        ...calls.map((c, i) => ({
          id: `m${i + 2}`,
          timestamp: `2026-03-20T10:0${i + 1}:00.000Z`,
          type: 'gemini',
          content: '',
          toolCalls: [{ id: c.id, name: c.name, args: c.args, result: [{ functionResponse: { id: c.id, name: c.name, response: { output: 'ok' } } }], status: 'success', timestamp: `2026-03-20T10:0${i + 1}:00.000Z` }],
        })),
      ],
    },
    null,
    2,
  );
}

suite('Gemini CLI legacy sessions', () => {
  let api: AgentGuardApi;
  let file: string;

  suiteSetup(async () => {
    api = await vscode.extensions.getExtension<AgentGuardApi>('agent-session-guard.agent-session-guard')!.activate();
    await api.ready();
    const home = process.env['GEMINI_CLI_HOME'];
    assert.ok(home, 'GEMINI_CLI_HOME is set: run through test/e2e/runTests.mjs');
    file = path.join(home, '.gemini', 'tmp', geminiProjectHash(workspaceDir()), 'chats', 'session-2026-03-20T10-00-7a6b5c4d.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
  });

  suiteTeardown(async () => {
    fs.rmSync(file, { force: true });
    await waitFor(() => !api.findings().some((f) => f.file === file), 10_000, 'the session’s findings to go with it');
  });

  test('a rewrite that adds a problem brings its diagnostic; a rewrite that fixes it takes it away', async () => {
    const app = path.join(workspaceDir(), 'src', 'app.ts');
    const edit = { id: 'replace_1774000020000_0', name: 'replace', args: { file_path: app, old_string: '80', new_string: 'env.PORT' } };
    fs.writeFileSync(file, legacyDocument([{ id: 'list_directory_1774000000000_0', name: 'list_directory', args: { dir_path: workspaceDir() } }]));
    await new Promise((r) => setTimeout(r, 500));
    // Rewritten in place, as Gemini CLI does: an edit of a file the session never read.
    const broken = legacyDocument([{ id: 'list_directory_1774000000000_0', name: 'list_directory', args: { dir_path: workspaceDir() } }, edit]);
    fs.writeFileSync(file, broken);
    const uri = vscode.Uri.file(file);
    const diags = await waitFor(
      () => {
        api.flushDiagnostics();
        const d = vscode.languages.getDiagnostics(uri);
        return d.length > 0 ? d : undefined;
      },
      10_000,
      'a diagnostic on the session document',
    );
    assert.deepEqual(
      diags.map((d) => (typeof d.code === 'object' ? d.code.value : d.code)),
      ['write-before-read'],
    );
    const line = broken.split('\n').findIndex((l) => l.includes('"file_path"'));
    assert.equal(diags[0]!.range.start.line, line, 'at the edit’s path, in the pretty-printed document');

    fs.writeFileSync(file, legacyDocument([{ id: 'read_file_1774000010000_0', name: 'read_file', args: { file_path: app } }, edit]));
    await waitFor(
      () => {
        api.flushDiagnostics();
        return vscode.languages.getDiagnostics(uri).length === 0;
      },
      10_000,
      'the diagnostic to go with the rewrite',
    );
  });

  test('the sessions view lists the session (checked in the browser)', async () => {
    await vscode.commands.executeCommand('workbench.view.extension.agentGuard');
    await uiCheck({ id: 'gemini-legacy-session', selector: '.monaco-list-row', text: 'Make the port configurable', screenshot: 'gemini-legacy-session.png' });
  });
});
