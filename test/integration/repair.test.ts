/// <reference types="mocha" />
// "Repair this session…" on a pairing diagnostic: the diff is shown, the transcript is
// repaired after a backup, and the pairing findings go away.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Finding } from '../../src/core/model/finding';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { ClaudeTranscript } from '../unit/support/claude';
import { appendLines, claudeProjectDir, workspaceDir } from './support/transcripts';
import { withMessages } from './support/messages';
import { uiCheck, waitFor } from './support/ui';

suite('repair', () => {
  let api: AgentGuardApi;
  let file: string;
  let original: string;
  const backupsOf = (at: string): string[] => fs.readdirSync(path.dirname(at)).filter((n) => n.startsWith(path.basename(at) + '.bak-'));

  suiteSetup(async () => {
    api = await vscode.extensions.getExtension<AgentGuardApi>('agent-session-guard.agent-session-guard')!.activate();
    await api.ready();
    file = path.join(claudeProjectDir(), 'c3d4e5f6-0000-4000-8000-000000000003.jsonl');
    const t = new ClaudeTranscript('c3d4e5f6-0000-4000-8000-000000000003', workspaceDir())
      .user('Run the checks')
      .call('msg_1', 'toolu_R1', 'Bash', { command: 'npm test' })
      .result('toolu_R1', 'ok')
      .result('toolu_R1', 'ok')
      .say('msg_2', 'All green.');
    await appendLines(file, t.lines, 5);
    original = t.text();
    await waitFor(() => (api.flushDiagnostics(), vscode.languages.getDiagnostics(vscode.Uri.file(file)).length > 0), 8000, 'the duplicate-result diagnostic');
  });

  test('the quick fix offers the repair on a pairing diagnostic', async () => {
    const d = vscode.languages.getDiagnostics(vscode.Uri.file(file))[0]!;
    assert.equal(typeof d.code === 'object' ? d.code.value : d.code, 'duplicate-result');
    await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', vscode.Uri.file(file), d.range);
    assert.ok(actions.some((a) => a.title === 'Repair this session…'));
  });

  test('from the command palette, it offers the sessions with a pairing problem', async () => {
    const picked = vscode.commands.executeCommand<string>('agentGuard.repairSession');
    try {
      await uiCheck({ id: 'repair-pick', selector: '.quick-input-widget .monaco-list-row', text: 'Run the checks', screenshot: 'repair-pick.png' });
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeQuickOpen');
    }
    assert.equal(await picked, 'nothing', 'dismissing the list repairs nothing');
  });

  /** Makes a session look as one that ended a while ago: its file last written ten minutes back. */
  const ended = (at: string): void => {
    const then = new Date(Date.now() - 10 * 60_000);
    fs.utimesSync(at, then, then);
  };

  test('unconfirmed ({ confirm: false }), a session that looks live is refused, with the reason said, and nothing is written', async () => {
    // Written a moment ago (suiteSetup): as far as repair can tell, the agent is still at it.
    const f = api.findings().find((x) => x.file === file && x.rule === 'duplicate-result')!;
    const outcome = await withMessages(async (shown) => {
      const o = await vscode.commands.executeCommand<string>('agentGuard.repairSession', f, { confirm: false });
      assert.equal(shown.length, 1, JSON.stringify(shown));
      assert.match(shown[0]!, /^Did not repair c3d4e5f6-0000-4000-8000-000000000003\.jsonl: the session looks live: the file was written \d+ s ago/);
      return o;
    }, 'showWarningMessage');
    assert.equal(outcome, 'refused');
    assert.equal(fs.readFileSync(file, 'utf8'), original);
    assert.deepEqual(backupsOf(file), []);
  });

  test('repairing shows the diff, keeps a byte-for-byte backup, and the findings go', async () => {
    const f = api.findings().find((x) => x.file === file && x.rule === 'duplicate-result')!;
    ended(file);
    const outcome = await vscode.commands.executeCommand<string>('agentGuard.repairSession', f, { confirm: false });
    assert.equal(outcome, 'written');
    const diff = vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.input instanceof vscode.TabInputTextDiff && t.input.modified.scheme === 'agent-guard-repair');
    assert.ok(diff, 'a diff of original and repaired was shown');
    const backups = fs.readdirSync(path.dirname(file)).filter((n) => n.startsWith(path.basename(file) + '.bak-'));
    assert.equal(backups.length, 1);
    assert.equal(fs.readFileSync(path.join(path.dirname(file), backups[0]!), 'utf8'), original);
    assert.equal(fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).length, 4, 'the duplicate result line is gone');
    await waitFor(() => (api.flushDiagnostics(), vscode.languages.getDiagnostics(vscode.Uri.file(file)).length === 0), 8000, 'the diagnostics to go');
  });

  /** A transcript written as the agent would, and its finding of `rule` once the monitor has it. */
  async function sessionWith(id: string, lines: readonly string[], rule: string): Promise<{ file: string; finding: Finding }> {
    const at = path.join(claudeProjectDir(), `${id}.jsonl`);
    await appendLines(at, lines, 5);
    const finding = await waitFor(() => api.findings().find((x) => x.file === at && x.rule === rule), 8000, `the ${rule} finding`);
    return { file: at, finding };
  }

  test('a session whose pairing problem needs a person is refused as such, not called nothing to repair', async () => {
    // The call's result may be in the line that cannot be read: repair must not claim that none
    // was recorded, and leaves it for a person (the rule reports it as soon as the next turn comes).
    const t = new ClaudeTranscript('c3d4e5f6-0000-4000-8000-00000000000b', workspaceDir())
      .user('Build it')
      .call('msg_1', 'toolu_G1', 'Bash', { command: 'make' })
      .raw('{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_G1","type":"tool_re')
      .say('msg_2', 'Built.');
    const { file: at, finding } = await sessionWith('c3d4e5f6-0000-4000-8000-00000000000b', t.lines, 'missing-result');
    const before = fs.readFileSync(at, 'utf8');
    assert.equal(await vscode.commands.executeCommand<string>('agentGuard.repairSession', finding, { confirm: false }), 'refused');
    assert.equal(fs.readFileSync(at, 'utf8'), before);
    assert.deepEqual(backupsOf(at), []);
  });
});
