/// <reference types="mocha" />
// agentGuard.problems.sessions: agents in the editor read the Problems panel too, so by default
// the findings of a session that ended before the window opened are not problems (on its
// transcript, or on the workspace file they are about); `all` shows them, and a new write to
// the session makes it current again.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { ClaudeTranscript } from '../unit/support/claude';
import { claudeProjectDir, workspaceDir } from './support/transcripts';
import { waitFor } from './support/ui';

const id = 'c0ffee00-0000-4000-8000-000000000020';

suite('problems of past sessions', () => {
  let api: AgentGuardApi;
  let file: string;
  let target: string;
  let staging: string;
  let t: ClaudeTranscript;
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('agentGuard');

  /** The diagnostics of this session: on its transcript, and on the workspace file it wrote. */
  function problems(): { onTranscript: vscode.Diagnostic[]; onFile: vscode.Diagnostic[] } {
    api.flushDiagnostics();
    return {
      onTranscript: vscode.languages.getDiagnostics(vscode.Uri.file(file)),
      // Other sessions may have findings on the file too; this one's name its transcript.
      onFile: vscode.languages.getDiagnostics(vscode.Uri.file(target)).filter((d) => d.relatedInformation?.some((r) => r.location.uri.fsPath === file)),
    };
  }

  const shown = (): boolean => {
    const p = problems();
    return p.onTranscript.some((d) => (typeof d.code === 'object' ? d.code.value : d.code) === 'stale-write') && p.onFile.length > 0;
  };
  const hidden = (): boolean => {
    const p = problems();
    return p.onTranscript.length === 0 && p.onFile.length === 0;
  };

  suiteSetup(async () => {
    api = await vscode.extensions.getExtension<AgentGuardApi>('agent-session-guard.agent-session-guard')!.activate();
    await api.ready();
    assert.equal(config().get('problems.sessions'), 'current', 'the default');
    file = path.join(claudeProjectDir(), `${id}.jsonl`);
    target = path.join(workspaceDir(), 'src', 'past.ts');
    const v1 = 'export const past = 1;\n';
    const changed = 'export const past = 2;\n';
    fs.writeFileSync(target, changed);
    // A stale write: a finding on the transcript and on the file it wrote (see workspaceFile.test).
    t = new ClaudeTranscript(id, workspaceDir())
      .user('Last week: bump the constant')
      .read('msg_1', 'toolu_PAST_READ', target, v1)
      .write('msg_2', 'toolu_PAST_WRITE', target, 'export const past = 3;\n', changed)
      .say('msg_3', 'Done.');
    // Written elsewhere and moved in with its old time, as a session from last week is found.
    staging = path.join(path.dirname(claudeProjectDir()), `${id}.staging`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(staging, t.lines.join('\n') + '\n');
    const lastWeek = new Date(Date.now() - 7 * 24 * 60 * 60_000);
    fs.utimesSync(staging, lastWeek, lastWeek);
    fs.renameSync(staging, file);
  });

  suiteTeardown(async () => {
    await config().update('problems.sessions', undefined, vscode.ConfigurationTarget.Global);
    fs.rmSync(staging, { force: true });
    fs.rmSync(file, { force: true });
    fs.rmSync(target, { force: true });
    await waitFor(() => api.findings().every((f) => f.file !== file), 30_000, 'the findings gone with the file');
  });

  test('with the default (current), its findings are not problems, on the transcript or on the file; they are still findings', async () => {
    await waitFor(() => api.findings().some((f) => f.file === file && f.rule === 'stale-write' && f.subject?.path === target), 15_000, 'the stale write of the old session');
    assert.ok(hidden(), `problems of a session from last week: ${JSON.stringify(problems().onTranscript.map((d) => d.message))}`);
    // Not a matter of timing: still none a while later.
    await new Promise((r) => setTimeout(r, 500));
    assert.ok(hidden(), 'problems of a session from last week, a little later');
  });

  test('with all, they are problems, without re-reading the sessions', async () => {
    const before = api.findings().find((f) => f.file === file && f.rule === 'stale-write');
    assert.ok(before);
    await config().update('problems.sessions', 'all', vscode.ConfigurationTarget.Global);
    await waitFor(shown, 8000, 'the problems of the old session, on the transcript and on the file');
    assert.ok(api.findings().includes(before), 'the monitors were rebuilt for a setting that only changes what is shown');
  });

  test('back to current they go, and a new write to the session brings them back', async () => {
    await config().update('problems.sessions', undefined, vscode.ConfigurationTarget.Global);
    await waitFor(hidden, 8000, 'the problems of the old session gone again');
    const written = t.lines.length;
    t.say('msg_4', 'Back to this session today.');
    fs.appendFileSync(file, t.lines.slice(written).join('\n') + '\n');
    await waitFor(shown, 15_000, 'the problems of the session written to again');
  });
});
