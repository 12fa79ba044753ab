/// <reference types="mocha" />
// The hooks preview keeps a preview's text while its document is open, not for as long as the
// window: each install or removal of the hooks makes a new preview.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { HooksPreview } from '../../src/vscode/guard/hooksCommands';

suite('hooks preview', () => {
  test("a preview's text goes when VS Code closes its document, and only then", async () => {
    const closed = new vscode.EventEmitter<vscode.TextDocument>();
    const preview = new HooksPreview(closed.event);
    try {
      const shown = preview.set('install-1', '+ the hook\n');
      const other = preview.set('uninstall-2', '- the hook\n');
      // Opened as changeHooks opens it (its own scheme is registered by the extension's
      // provider: this one is asked directly).
      assert.equal(preview.provideTextDocumentContent(shown), '+ the hook\n');

      // Closed, as far as the editor's documents say: its text is dropped, the other kept.
      closed.fire({ uri: shown } as vscode.TextDocument);
      assert.equal(preview.provideTextDocumentContent(shown), '');
      assert.equal(preview.provideTextDocumentContent(other), '- the hook\n');

      // Closed while it is still open (a language set: closed and opened again at once): kept.
      // (The extension's own preview provider answers this open; the URI is what counts.)
      const open = await vscode.workspace.openTextDocument(other);
      closed.fire(open);
      assert.equal(preview.provideTextDocumentContent(other), '- the hook\n');
    } finally {
      preview.dispose();
      closed.dispose();
    }
  });
});
