/// <reference types="mocha" />
// Checks only what holds whatever the extension does: that the harness really runs a
// VS Code with the fixture workspace open and our extension loaded from this repo.
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';

suite('smoke', () => {
  test('runs inside a real VS Code', () => {
    assert.match(vscode.version, /^1\./);
  });

  test('the fixture workspace is open', async () => {
    const folders = vscode.workspace.workspaceFolders ?? [];
    assert.equal(folders.length, 1, 'exactly one workspace folder');
    const readme = vscode.Uri.joinPath(folders[0]!.uri, 'README.md');
    const stat = await vscode.workspace.fs.stat(readme);
    assert.equal(stat.type, vscode.FileType.File, `${readme.toString()} is the fixture's README`);
  });

  test('our extension is loaded', () => {
    assert.ok(vscode.extensions.getExtension('agent-session-guard.agent-session-guard'));
  });
});
