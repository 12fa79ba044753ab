/// <reference types="mocha" />
// Two sessions edit one file blind to each other, with nothing changing on disk while the
// extension watches (their transcripts are all it has): the stale write's problem names the
// other session, and links to its edit.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { ClaudeTranscript } from '../unit/support/claude';
import { appendLines, claudeProjectDir, workspaceDir } from './support/transcripts';
import { waitFor } from './support/ui';

const idA = 'c0ffee00-0000-4000-8000-0000000000a1';
const idB = 'c0ffee00-0000-4000-8000-0000000000b1';

suite('the writer of a change another session made', () => {
  let api: AgentGuardApi;
  let fileA: string;
  let fileB: string;
  let target: string;

  suiteSetup(async () => {
    api = await vscode.extensions.getExtension<AgentGuardApi>('agent-session-guard.agent-session-guard')!.activate();
    await api.ready();
    target = path.join(workspaceDir(), 'src', 'shared.ts');
    fileA = path.join(claudeProjectDir(), `${idA}.jsonl`);
    fileB = path.join(claudeProjectDir(), `${idB}.jsonl`);
    // A read the file (14:00:03); B edited its line 2 (result 14:00:04); A edited line 1 on top (14:00:05).
    const a = new ClaudeTranscript(idA, workspaceDir())
      .user('rename one')
      .read('msg_a1', 'toolu_A_READ', target, 'export const one = 1;\nexport const two = 2;\n')
      .edit('msg_a2', 'toolu_A_EDIT', target, 'export const one = 1;\nexport const two = 22;\n', 'one = 1', 'uno = 1');
    const b = new ClaudeTranscript(idB, workspaceDir())
      .at(Date.parse('2026-02-12T14:00:02.000Z'))
      .user('bump two')
      .edit('msg_b1', 'toolu_B_EDIT', target, 'export const one = 1;\nexport const two = 2;\n', 'two = 2', 'two = 22');
    await appendLines(fileB, b.lines, 10);
    // B's session is found before A's edit comes (as when both run: B's file is there already).
    await new Promise((r) => setTimeout(r, 1500));
    await appendLines(fileA, a.lines, 10);
  });

  suiteTeardown(async () => {
    fs.rmSync(fileA, { force: true });
    fs.rmSync(fileB, { force: true });
    await waitFor(() => api.findings().every((f) => f.file !== fileA && f.file !== fileB), 30_000, 'the findings gone with the files');
  });

  test("the stale write's problem names session B, when and where it edited the file", async () => {
    const d = await waitFor(
      () => {
        api.flushDiagnostics();
        return vscode.languages
          .getDiagnostics(vscode.Uri.file(fileA))
          .find((x) => (typeof x.code === 'object' ? x.code.value : x.code) === 'stale-write' && x.message.includes('Another transcript'));
      },
      20_000,
      'the named stale write',
    );
    assert.match(d.message, new RegExp(`in between: session ${idB}, its Edit at 14:00:04 UTC \\(line 2 of ${idB}\\.jsonl\\)\\.$`));
    assert.equal(d.severity, vscode.DiagnosticSeverity.Warning);
    const link = d.relatedInformation?.find((r) => r.location.uri.fsPath === fileB);
    assert.ok(link, `a link to B's edit: ${JSON.stringify(d.relatedInformation?.map((r) => r.location.uri.fsPath))}`);
    assert.equal(link.location.range.start.line, 1, "B's Edit call, line 2");
  });
});
