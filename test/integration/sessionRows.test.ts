/// <reference types="mocha" />
// The sessions view keeps its rows' transcripts and badges for the sessions there are now: a
// session gone takes its row's entries with it (they had stayed for as long as the window).
// A view of its own, on a stand-in scope; its tree view and decoration provider are stand-ins
// too (a second tree view of the same id would take the running extension's place).
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { Finding } from '../../src/core/model/finding';
import type { SessionSummary } from '../../src/io/liveMonitor';
import type { MonitorScope } from '../../src/vscode/monitors';
import { SessionsView, type SessionNode } from '../../src/vscode/sessionsView';
import { sleep } from '../unit/support/wait';

function session(file: string, id: string, lastActivity: number): SessionSummary {
  return { file, agent: 'claude-code', sessionId: id, title: id, firstPrompt: undefined, startedAt: undefined, lastActivity, cwd: undefined, parentSessionId: undefined, bytes: 10 };
}

suite('sessions view rows', () => {
  test("a session gone takes its row's badge with it, the others keep theirs; one back is asked for again", async () => {
    const window = vscode.window as unknown as Record<'createTreeView' | 'registerFileDecorationProvider', unknown>;
    const createTreeView = window.createTreeView;
    const registerFileDecorationProvider = window.registerFileDecorationProvider;
    let provider: vscode.FileDecorationProvider | undefined;
    window.createTreeView = () => ({ dispose: () => undefined });
    window.registerFileDecorationProvider = (p: vscode.FileDecorationProvider) => {
      provider = p;
      return { dispose: () => undefined };
    };
    let view: SessionsView;
    try {
      view = new SessionsView(() => 5 * 60_000);
    } finally {
      window.createTreeView = createTreeView;
      window.registerFileDecorationProvider = registerFileDecorationProvider;
    }
    try {
      // Rows are listed newest first: `gone`, then `stays`.
      const gone = session('/sessions/gone.jsonl', 'gone', Date.now());
      const stays = session('/sessions/stays.jsonl', 'stays', Date.now() - 1000);
      let sessions = [gone, stays];
      // Every session has one finding, even one no longer listed: only the row's entries decide.
      const finding = { severity: 'error' } as Finding;
      const scope = { sessions: () => sessions, findingsFor: () => [finding] } as unknown as MonitorScope;
      view.setScope(scope);
      // The view's refresh (coalesced) has taken the sessions in.
      await sleep(400);
      const [agent] = view.getChildren();
      const rows = view.getChildren(agent).map((n: SessionNode) => view.getTreeItem(n).resourceUri!);
      assert.equal(rows.length, 2);
      const badge = (uri: vscode.Uri): string | undefined => (provider!.provideFileDecoration(uri, new vscode.CancellationTokenSource().token) as vscode.FileDecoration | undefined)?.badge;
      assert.deepEqual(rows.map(badge), ['1', '1']);

      const told: string[] = [];
      provider!.onDidChangeFileDecorations!((uris) => told.push(...[uris].flat().map(String)));
      sessions = [stays];
      view.refresh();
      await sleep(400);
      assert.deepEqual(rows.map(badge), [undefined, '1']);
      assert.deepEqual(told, [rows[0]!.toString()], 'the gone row is told as changed: VS Code drops the badge it keeps for it');

      // Back (the monitors read every session again after a restart): VS Code is told to ask
      // for its badge again, not left with the one it kept.
      told.length = 0;
      sessions = [gone, stays];
      view.refresh();
      await sleep(400);
      assert.deepEqual(told, [rows[0]!.toString()]);
      assert.deepEqual(rows.map(badge), ['1', '1']);
    } finally {
      view.dispose();
    }
  });
});
