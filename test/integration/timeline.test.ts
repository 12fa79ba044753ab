/// <reference types="mocha" />
// The session timeline webview in a real VS Code: a parallel batch, a late result and a stale
// write render with their statuses, rules and arrows; it follows the session live; a click
// opens the transcript line; and hostile transcript text renders as text, running nothing.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { amplifierSlug } from '../../src/core/discovery/locations';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { ClaudeTranscript } from '../unit/support/claude';
import { appendLines, claudeProjectDir, workspaceDir } from './support/transcripts';
import { uiCheck, waitFor, type UiCheck } from './support/ui';

/** The driver's optional checks beyond UiCheck (test/e2e/driver.mjs). */
interface TimelineCheck extends UiCheck {
  /** Selectors that must match nothing in the frame the element was found in. */
  absent?: string[];
  /** Click the element once found. */
  click?: boolean;
  /** Focus the element once found (no click: a click opens a line). */
  focus?: boolean;
  /** Keys pressed then, one after the other (Playwright key names). */
  keys?: string[];
  /** A selector the focused element must match after the keys. */
  focused?: string;
}

/** Webviews are iframes whose URL names the extension; the content is in a nested frame. */
const frame = 'extensionId=agent-session-guard';

function timelineTabs(): vscode.Tab[] {
  return vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('agentGuard.timeline'));
}

async function findingsOf(api: AgentGuardApi, file: string, rules: string[]): Promise<void> {
  await waitFor(
    () => {
      const have = new Set(api.findings().filter((f) => f.file === file).map((f) => f.rule));
      return rules.every((r) => have.has(r));
    },
    10_000,
    `findings ${rules.join(', ')} on ${path.basename(file)}`,
  );
}

suite('session timeline', () => {
  let api: AgentGuardApi;
  let file: string;
  let t: ClaudeTranscript;

  suiteSetup(async () => {
    api = await vscode.extensions.getExtension<AgentGuardApi>('agent-session-guard.agent-session-guard')!.activate();
    await api.ready();
    const ws = workspaceDir();
    const app = path.join(ws, 'src', 'timeline-app.ts');
    const util = path.join(ws, 'src', 'util.ts');
    const v1 = 'export const a = 1;\nexport const b = 2;\n';
    const changed = 'export const a = 100;\nexport const b = 2;\n';
    file = path.join(claudeProjectDir(), 'd4e5f6a7-0000-4000-8000-000000000004.jsonl');
    // Read app.ts; a parallel batch of three calls, the slow one answered only after the next
    // assistant message (late); then a write of app.ts over a change the session never saw.
    t = new ClaudeTranscript('d4e5f6a7-0000-4000-8000-000000000004', ws)
      .user('Refactor the app and run the tests')
      .read('msg_1', 'toolu_READ', app, v1)
      .call('msg_2', 'toolu_TEST', 'Bash', { command: 'npm test' })
      .call('msg_2', 'toolu_UTIL', 'Read', { file_path: util })
      .call('msg_2', 'toolu_SLOW', 'Bash', { command: 'sleep 5' })
      .result('toolu_TEST', 'ok')
      .readResult('toolu_UTIL', util, 'export {};\n')
      .say('msg_3', 'Not waiting for the slow one')
      .result('toolu_SLOW', 'finally done')
      .write('msg_4', 'toolu_EDIT', app, 'export const a = 3;\nexport const b = 2;\n', changed)
      .say('msg_5', 'Done.');
    await appendLines(file, t.lines, 10);
    await findingsOf(api, file, ['missing-result', 'misplaced-result', 'stale-write']);
  });

  test('a parallel batch, a late result and a stale write render with their statuses, rules and arrows', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    const shown = await vscode.commands.executeCommand<string>('agentGuard.showTimeline', { kind: 'session', session: { file } });
    assert.equal(shown, file);
    await waitFor(() => timelineTabs().length === 1, 5000, 'the timeline tab');
    // Named by the session's first prompt, as the sessions view names it, not by a cut-off id;
    // the id stays in the subtitle (the file name) and the title's tooltip.
    await waitFor(() => timelineTabs()[0]?.label === 'Timeline: Refactor the app and run the tests', 15_000, `the tab named after the session (it is "${timelineTabs()[0]?.label}")`);
    await uiCheck({ id: 'timeline-title', frame, selector: '.heading .title[title$="Session d4e5f6a7-0000-4000-8000-000000000004"]', text: 'Refactor the app and run the tests' });
    await uiCheck({ id: 'timeline-subtitle', frame, selector: '.heading .subtitle', text: 'd4e5f6a7-0000-4000-8000-000000000004.jsonl' });
    // The parallel batch: three lanes in one row.
    await uiCheck({ id: 'timeline-batch', frame, selector: '.row-batch .label', text: 'parallel' });
    await uiCheck({ id: 'timeline-batch-lanes', frame, selector: '.row-batch .lane[data-lane="2"][data-status="late"]', text: 'Bash' });
    await uiCheck({ id: 'timeline-ok', frame, selector: '.row-batch .lane[data-status="ok"]', text: 'util.ts' });
    // The late result where it landed, with its rule, and the arrow back to its call.
    await uiCheck({ id: 'timeline-late', frame, selector: '.row-results .lane[data-status="late"]', text: 'misplaced-result' });
    await uiCheck({ id: 'timeline-missing-rule', frame, selector: '.row-batch .lane[data-status="late"] .rule', text: 'missing-result' });
    await uiCheck({ id: 'timeline-late-edge', frame, selector: 'svg.edges path.edge-late' });
    // The stale write: its rule on the write's lane, and the read→write arrow flagged.
    await uiCheck({ id: 'timeline-stale', frame, selector: '.lane[data-severity="error"]', text: 'stale-write' });
    await uiCheck({ id: 'timeline-stale-lane', frame, selector: '.lane[data-severity="error"] .path', text: 'src/timeline-app.ts' });
    // A screen reader reads a lane's label, not the chips inside it: the label names its findings.
    await uiCheck({ id: 'timeline-stale-label', frame, selector: '.lane[data-severity="error"][aria-label*="src/timeline-app.ts"][aria-label$=", error stale-write"]' });
    await uiCheck({ id: 'timeline-hb-edge', frame, selector: 'svg.edges path.edge-hb.flagged', screenshot: 'timeline.png' });
  });

  test('it follows the session live', async () => {
    const more = t.call('msg_6', 'toolu_LIVE', 'Grep', { pattern: 'TODO' });
    await appendLines(file, more.lines.slice(-1));
    await uiCheck({ id: 'timeline-live', frame, selector: '.lane[data-status="pending"]', text: 'Grep', screenshot: 'timeline-live.png' });
  });

  /** The transcript, once a click in the timeline has opened it in the active editor. */
  const transcriptEditor = (): Promise<vscode.TextEditor> =>
    waitFor(
      () => {
        const e = vscode.window.activeTextEditor;
        return e?.document.uri.fsPath === file ? e : undefined;
      },
      8000,
      'the transcript in an editor',
    );

  test('clicking a lane opens the transcript at its line', async () => {
    const check: TimelineCheck = { id: 'timeline-click', frame, selector: '.row-results .lane[data-status="late"] .tool', text: 'Bash', click: true };
    await uiCheck(check);
    const line = t.lineOf('"tool_use_id":"toolu_SLOW"');
    const editor = await transcriptEditor();
    assert.equal(editor.selection.active.line, line - 1);
  });

  test('with a single editor group, a click opens the transcript beside the timeline, which stays in view', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('agentGuard.showTimeline', { kind: 'session', session: { file } });
    await waitFor(() => timelineTabs().length === 1, 5000, 'the timeline tab');
    // The timeline alone in the window's only group: there is no other group to open the line in.
    await vscode.commands.executeCommand('workbench.action.joinAllGroups');
    await waitFor(() => vscode.window.tabGroups.all.length === 1, 5000, 'a single editor group');
    const check: TimelineCheck = { id: 'timeline-click-beside', frame, selector: '.row-results .lane[data-status="late"] .tool', text: 'Bash', click: true };
    await uiCheck(check);
    const editor = await transcriptEditor();
    const timeline = timelineTabs()[0];
    assert.ok(timeline);
    assert.notEqual(editor.viewColumn, timeline.group.viewColumn, 'the transcript opened in the timeline\'s group');
    assert.equal(timeline.group.activeTab?.label, timeline.label, 'the timeline is no longer the visible tab of its group');
    await uiCheck({ id: 'timeline-beside', frame, selector: '.row-batch .label', text: 'parallel', screenshot: 'timeline-beside.png' });
  });

  test('the quick fix "Show in session timeline" opens it at the finding', async () => {
    const stale = api.findings().find((f) => f.file === file && f.rule === 'stale-write');
    assert.ok(stale);
    api.flushDiagnostics();
    await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    const d = vscode.languages.getDiagnostics(vscode.Uri.file(file)).find((x) => (typeof x.code === 'object' ? x.code.value : x.code) === 'stale-write');
    assert.ok(d);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', vscode.Uri.file(file), d.range);
    const action = actions.find((a) => a.title === 'Show in session timeline');
    assert.ok(action?.command, actions.map((a) => a.title).join(', '));
    await vscode.commands.executeCommand(action.command.command, ...(action.command.arguments ?? []));
    await waitFor(() => timelineTabs().some((tab) => tab.isActive), 5000, 'the timeline to be the active tab');
    assert.equal(timelineTabs().length, 1, 'one panel per transcript');
    await uiCheck({ id: 'timeline-quickfix', frame, selector: '.lane[data-severity="error"]', text: 'stale-write', screenshot: 'timeline-quickfix.png' });
  });

  test('the keyboard: the list is one Tab stop, arrows move between rows and lanes, Tab reaches a call\'s result link and Enter opens it', async () => {
    // The timeline is open, from the quick fix test. Every row and lane used to be a Tab stop,
    // and the result and call links none.
    const oneStop: TimelineCheck = {
      id: 'timeline-keys-one-stop',
      frame,
      selector: '.row[data-row="2"]',
      absent: ['.lane[tabindex="0"] ~ .lane[tabindex="0"]'],
      focus: true,
      keys: ['Tab'],
      focused: ':not(.viewport, .viewport *)',
    };
    await uiCheck(oneStop);
    const toResult: TimelineCheck = {
      id: 'timeline-keys-arrows',
      frame,
      selector: '.row[data-row="0"]',
      focus: true,
      keys: ['ArrowDown', 'ArrowRight', 'Tab'],
      focused: '.lane[data-row="1"][data-lane="0"] .jump',
      screenshot: 'timeline-keys.png',
    };
    await uiCheck(toResult);
    const open: TimelineCheck = { id: 'timeline-keys-enter', frame, selector: '.lane[data-row="1"][data-lane="0"] .jump:focus', keys: ['Enter'] };
    await uiCheck(open);
    const line = t.lineOf('"tool_use_id":"toolu_READ"');
    const editor = await waitFor(
      () => {
        const e = vscode.window.activeTextEditor;
        return e?.document.uri.fsPath === file && e.selection.active.line === line - 1 ? e : undefined;
      },
      8000,
      `the transcript at the Read's result (line ${line})`,
    );
    assert.equal(editor.selection.active.line, line - 1);
  });

  test('hostile transcript text renders as text and runs nothing', async () => {
    const ws = workspaceDir();
    const hostile = path.join(claudeProjectDir(), 'e5f6a7b8-0000-4000-8000-000000000005.jsonl');
    const x = new ClaudeTranscript('e5f6a7b8-0000-4000-8000-000000000005', ws)
      .user('<script>window.__pwned=1</script> fix <img src=x onerror="window.__pwned=2"> see javascript:alert(1)')
      .call('msg_1', 'toolu_X1', '<script>window.__pwned=1</script>', { command: 'x' })
      .call('msg_1', 'toolu_X2', 'Read', { file_path: '<img src=x onerror="window.__pwned=2">' })
      .call('msg_1', 'toolu_X3', 'Write', { file_path: 'javascript:alert(1)', content: '<script>window.__pwned=3</script>' })
      // A right-to-left override: laid out as text, this path reads "src/st.png".
      .call('msg_1', 'toolu_X5', 'Read', { file_path: 'src/\u202egnp.ts' })
      .result('toolu_X1', '<script>window.__pwned=1</script>')
      .result('toolu_X2', '<img src=x onerror="window.__pwned=2">')
      .result('toolu_X3', 'javascript:alert(1)')
      .result('toolu_X5', 'export {};')
      .call('msg_2', 'toolu_X4', 'Bash', { command: 'echo "<img src=x onerror=alert(1)>"' })
      .say('msg_3', 'moving on');
    await appendLines(hostile, x.lines, 10);
    await findingsOf(api, hostile, ['missing-result']);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('agentGuard.showTimeline', vscode.Uri.file(hostile));
    await uiCheck({ id: 'hostile-prompt', frame, selector: '.row-prompt .body', text: '<script>window.__pwned=1</script> fix <img src=x onerror="window.__pwned=2">' });
    await uiCheck({ id: 'hostile-tool', frame, selector: '.lane .tool', text: '<script>window.__pwned=1</script>' });
    await uiCheck({ id: 'hostile-path', frame, selector: '.lane .path', text: '<img src=x onerror="window.__pwned=2">' });
    // Its directional formatting characters are shown, not obeyed (as agent-guard's text output shows them).
    await uiCheck({ id: 'hostile-bidi', frame, selector: '.lane .path', text: 'src/\\u202egnp.ts' });
    const check: TimelineCheck = {
      id: 'hostile-nothing-runs',
      frame,
      selector: '.lane .path',
      text: 'javascript:alert(1)',
      // Ours are the bundle and VS Code's own acquireVsCodeApi script; nothing else may be there.
      absent: ['img', 'script:not(#_vscodeApiScript):not([src*="media/dist/timeline.js"])', '[onerror]', '[onload]', '[onclick]', 'a[href]', 'iframe', 'object', 'embed'],
      screenshot: 'timeline-hostile.png',
    };
    await uiCheck(check);
  });

  test('a session over what the timeline carries shows what it can and says what it left out', async function () {
    // (More findings than a message carries, 100,000, are left out and counted by the host:
    // the builder's unit test. Here 100,001 of them kept the extension host busy for minutes.)
    this.timeout(120_000);
    const ws = workspaceDir();
    // One call answered 10,001 times: its lane used to carry every result line, over the
    // protocol's 10,000, and the webview dropped the whole message: a blank timeline.
    const many = path.join(claudeProjectDir(), 'f6a7b8c9-0000-4000-8000-000000000006.jsonl');
    const m = new ClaudeTranscript('f6a7b8c9-0000-4000-8000-000000000006', ws).user('Answer many times').call('msg_1', 'toolu_MANY', 'Bash', { command: 'yes' });
    for (let i = 0; i < 10_001; i++) {
      m.result('toolu_MANY', `answer ${i}`);
    }
    try {
      fs.writeFileSync(many, m.text());
      await findingsOf(api, many, ['duplicate-result']);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand('agentGuard.showTimeline', vscode.Uri.file(many));
      await uiCheck({ id: 'over-bounds-lane', frame, selector: '.row-batch .lane[data-status="duplicate"] .tool', text: 'Bash' });
      const focused: TimelineCheck = { id: 'over-bounds-focus', frame, selector: '.row-batch .lane[data-status="duplicate"]', focus: true };
      await uiCheck(focused);
      await uiCheck({ id: 'over-bounds-results', frame, selector: '.row-batch .lane[data-status="duplicate"][title*="and 9,001 more results not listed here"]', screenshot: 'timeline-over-bounds.png' });
      // Its 10,000 duplicate results go on over rows of at most a hundred lanes, and at most a
      // thousand of their arrows are drawn at once: in one row of 10,000 lanes (two million
      // pixels wide), with all 10,000 arrows drawn, the window stopped answering for good; this
      // click, the screenshot above and every later test's clicks timed out.
      const responsive: TimelineCheck = { id: 'over-bounds-responsive', frame, selector: '.row-results .lane[data-status="duplicate"] .tool', text: 'Bash', click: true };
      await uiCheck(responsive);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      fs.rmSync(many, { force: true });
    }
  });

  test('an Amplifier session with no working folder recorded is named by its agent and id, and says none is recorded', async () => {
    // No events.jsonl or metadata.json beside the transcript: nothing names its working folder,
    // and the transcript itself names neither its agent nor its id. The subtitle read "unknown".
    const home = process.env['AMPLIFIER_HOME'];
    assert.ok(home, 'AMPLIFIER_HOME is set: run through test/e2e/runTests.mjs');
    const dir = path.join(home, 'projects', amplifierSlug(workspaceDir()), 'sessions', 'b8c9d0e1-0000-4000-8000-000000000008');
    fs.mkdirSync(dir, { recursive: true });
    const transcript = path.join(dir, 'transcript.jsonl');
    const lines = [
      { role: 'user', content: 'Tidy the readme' },
      { role: 'assistant', content: [{ type: 'text', text: 'Looking first.' }], tool_calls: [{ id: 'call_AMP1', tool: 'bash', arguments: { command: 'ls' } }] },
      { role: 'tool', tool_call_id: 'call_AMP1', content: 'README.md' },
    ].map((l) => JSON.stringify(l));
    try {
      await appendLines(transcript, lines, 10);
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand('agentGuard.showTimeline', vscode.Uri.file(transcript));
      await uiCheck({
        id: 'amplifier-no-folder',
        frame,
        selector: '.heading .subtitle',
        text: 'Amplifier · session b8c9d0e1-0000-4000-8000-000000000008 · transcript.jsonl · no working folder recorded',
        screenshot: 'timeline-amplifier-no-folder.png',
      });
      await uiCheck({ id: 'amplifier-no-folder-prompt', frame, selector: '.row-prompt .body', text: 'Tidy the readme' });
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('with its agent turned off, an open timeline says the session is not checked, not that it has no findings', async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await vscode.commands.executeCommand('agentGuard.showTimeline', { kind: 'session', session: { file } });
    await uiCheck({ id: 'timeline-agent-on', frame, selector: '.stats', text: 'errors' });
    const config = vscode.workspace.getConfiguration('agentGuard');
    try {
      await config.update('agents.claudeCode', false, vscode.ConfigurationTarget.Global);
      await waitFor(() => !api.findings().some((f) => f.file === file), 15_000, 'the session no longer checked');
      await uiCheck({ id: 'timeline-agent-off', frame, selector: '.stats', text: 'not checked: Claude Code is turned off in the settings (agentGuard.agents.claudeCode)', screenshot: 'timeline-agent-off.png' });
    } finally {
      await config.update('agents.claudeCode', undefined, vscode.ConfigurationTarget.Global);
    }
    // Turned on again: checked again, and the timeline shows its findings.
    await findingsOf(api, file, ['missing-result', 'misplaced-result', 'stale-write']);
    await uiCheck({ id: 'timeline-agent-on-again', frame, selector: '.stats', text: 'errors', steadyMs: 500 });
  });
});
