/// <reference types="mocha" />
// A jump that cannot land says why. The message used to blame transcripts over 50 MB
// whatever happened, for a deleted transcript too.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Finding } from '../../src/core/model/finding';
import { workspaceDir } from './support/transcripts';
import { uiCheck, waitFor } from './support/ui';

function findingAt(file: string, line: number): Finding {
  return { id: `jump-${line}`, rule: 'unparseable-line', severity: 'error', file, line, column: 1, endLine: line, endColumn: 2, message: 'm', agent: 'claude-code', session: 's', related: [] };
}

/** The notification centre lists a notification with this text. */
async function notified(id: string, text: string): Promise<void> {
  await vscode.commands.executeCommand('notifications.showList');
  try {
    await uiCheck({ id, selector: '.notifications-center .notification-list-item', text, screenshot: `${id}.png` });
  } finally {
    await vscode.commands.executeCommand('notifications.clearAll');
    await vscode.commands.executeCommand('notifications.hideList');
  }
}

suite('jump', () => {
  test('a transcript that is gone is said to be gone, not too large', async () => {
    const gone = path.join(workspaceDir(), 'gone', 'd4e5f6a7-0000-4000-8000-00000000dead.jsonl');
    const editor = await vscode.commands.executeCommand<vscode.TextEditor | undefined>('agentGuard.openFinding', findingAt(gone, 3));
    assert.equal(editor, undefined);
    await notified('jump-missing', 'line 3: the file no longer exists');
  });

  test('a line past the end of the file: it opens at the end and says the line is gone', async () => {
    const short = path.join(workspaceDir(), 'src', 'jump-short.ts');
    fs.writeFileSync(short, 'export const a = 1;\nexport const b = 2;\n');
    try {
      await vscode.commands.executeCommand('agentGuard.openFinding', findingAt(short, 40));
      const editor = await waitFor(() => (vscode.window.activeTextEditor?.document.uri.fsPath === short ? vscode.window.activeTextEditor : undefined), 5000, 'the file in an editor');
      assert.equal(editor.selection.active.line, editor.document.lineCount - 1);
      await notified('jump-beyond-end', 'jump-short.ts has 2 lines, so line 40 is gone');
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      fs.rmSync(short, { force: true });
    }
  });
});
