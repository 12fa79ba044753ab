/// <reference types="mocha" />
// The guard inside VS Code: the editor guard keeps the user's buffer and sets the agent's
// version aside; the guard service answers a real hook process about a dirty buffer; the
// hooks install command writes the agents' settings.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { nullLogger } from '../../src/core/lib/logger';
import type { QuarantineEntry } from '../../src/io/guard/editorWrites';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { takeAgentsVersion } from '../../src/vscode/guard/editorGuard';
import { noticeBatchMaxMs } from '../../src/vscode/guard/notices';
import { QuarantineStore } from '../../src/vscode/guard/quarantine';
import { hookEnv, runHook } from './support/hooks';
import { withMessages } from './support/messages';
import { workspaceDir } from './support/transcripts';
import { uiCheck, waitFor } from './support/ui';

/** Once the guard service runs: src/util.ts open in an editor with an unsaved change. */
async function dirtyUtilWithGuard(api: AgentGuardApi): Promise<{ file: string; doc: vscode.TextDocument }> {
  await api.ready();
  await waitFor(() => api.guardSockets().length > 0, 10_000, 'the guard service');
  const file = path.join(workspaceDir(), 'src', 'util.ts');
  const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
  const edit = new vscode.WorkspaceEdit();
  edit.insert(doc.uri, new vscode.Position(0, 0), '// unsaved\n');
  await vscode.workspace.applyEdit(edit);
  assert.ok(doc.isDirty);
  return { file, doc };
}

suite('guard', () => {
  let api: AgentGuardApi;
  const extensionRoot = (): string => vscode.extensions.getExtension('agent-session-guard.agent-session-guard')!.extensionPath;

  suiteSetup(async () => {
    api = await vscode.extensions.getExtension<AgentGuardApi>('agent-session-guard.agent-session-guard')!.activate();
    await api.ready();
  });

  /** Sets the editor guard's mode (user settings) and waits for the monitors it restarts; the function returned puts it back. */
  async function editorGuardMode(mode: 'block' | 'warn'): Promise<() => Promise<void>> {
    const config = vscode.workspace.getConfiguration('agentGuard');
    await config.update('editorGuard.mode', mode, vscode.ConfigurationTarget.Global);
    await api.ready();
    return () => Promise.resolve(config.update('editorGuard.mode', undefined, vscode.ConfigurationTarget.Global));
  }

  test('a write landing on a dirty buffer: the buffer is kept, the agent’s version is set aside, the file put back', async () => {
    const restoreMode = await editorGuardMode('block');
    try {
      await api.ready();
      const file = path.join(workspaceDir(), 'src', 'guarded.ts');
      const original = 'export const owner = "me";\n';
      fs.writeFileSync(file, original);
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
      await vscode.window.showTextDocument(doc);
      const edit = new vscode.WorkspaceEdit();
      edit.insert(doc.uri, new vscode.Position(1, 0), 'export const mine = "unsaved";\n');
      await vscode.workspace.applyEdit(edit);
      assert.ok(doc.isDirty);
      const users = doc.getText();
      // Give the guard a moment to keep the file's disk version, then an agent writes it.
      await new Promise((r) => setTimeout(r, 1000));
      const agents = 'export const owner = "the agent";\n';
      fs.writeFileSync(file, agents);
      const entry = await waitFor(async () => (await api.quarantine()).find((e) => e.path === file), 10_000, 'the agent’s version in the quarantine');
      assert.equal(entry.reason, 'dirty-buffer');
      assert.equal(new TextDecoder().decode(await api.readQuarantined(entry.id)), agents, 'retrievable byte for byte');
      await waitFor(() => fs.readFileSync(file, 'utf8') === original, 5000, 'the previous content back on disk');
      // The index on disk says it was put back (it used to be written before the put-back).
      const indexed = await waitFor(
        () =>
          fs
            .readFileSync(path.join(api.quarantineDir(), 'index.jsonl'), 'utf8')
            .split('\n')
            .filter(Boolean)
            .map((l) => JSON.parse(l) as { id: string; restoredHash?: string })
            .find((e) => e.id === entry.id && e.restoredHash !== undefined),
        5000,
        'the index entry with restoredHash',
      );
      assert.match(indexed.restoredHash!, /^[0-9a-f]{64}$/);
      assert.ok(doc.isDirty, 'the buffer is still unsaved');
      assert.equal(doc.getText(), users, 'the buffer is untouched');
      // The notification offers the diff (checked in the browser, in the notification centre).
      await vscode.commands.executeCommand('notifications.showList');
      await uiCheck({ id: 'editor-guard', selector: '.notifications-center .notification-list-item', text: 'Compare', screenshot: 'editor-guard.png' });
      await vscode.commands.executeCommand('notifications.hideList');
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    } finally {
      await restoreMode();
    }
  });

  test('an agent writing several files open with unsaved changes at once: one notification, not one per file', async () => {
    const restoreMode = await editorGuardMode('warn');
    const files = ['burst-a.ts', 'burst-b.ts', 'burst-c.ts'].map((n) => path.join(workspaceDir(), 'src', n));
    try {
      await api.ready();
      await vscode.commands.executeCommand('notifications.clearAll');
      for (const file of files) {
        fs.writeFileSync(file, 'export const owner = "me";\n');
        const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
        const edit = new vscode.WorkspaceEdit();
        edit.insert(doc.uri, new vscode.Position(1, 0), 'export const mine = "unsaved";\n');
        await vscode.workspace.applyEdit(edit);
      }
      await new Promise((r) => setTimeout(r, 1000));
      // As `sed -i` or a formatter run by the agent would: all at once.
      for (const file of files) {
        fs.writeFileSync(file, 'export const owner = "the agent";\n');
      }
      await waitFor(async () => (await api.quarantine()).filter((e) => files.includes(e.path)).length === files.length, 10_000, 'the three versions set aside');
      // The burst is told about once its batch closes, at the latest this long after its first
      // write. Opened before, the notification list is empty and VS Code closes it again, and
      // the notice then comes as a toast that hides itself (a CI run saw exactly that).
      await new Promise((r) => setTimeout(r, noticeBatchMaxMs));
      await vscode.commands.executeCommand('notifications.showList');
      await uiCheck({ id: 'editor-guard-burst', selector: '.notifications-center .notification-list-item', text: 'Agents wrote 3 times', screenshot: 'editor-guard-burst.png' });
      await vscode.commands.executeCommand('notifications.hideList');
    } finally {
      await closeAndDelete(files);
      await restoreMode();
    }
  });

  test('the quarantine cannot be written: the user is told which file, nothing is left unhandled', async () => {
    const restoreMode = await editorGuardMode('block');
    const dir = api.quarantineDir();
    const aside = `${dir}.aside`;
    try {
      await api.ready();
      // A file where the quarantine's folder should be: keeping the agent's version fails.
      fs.renameSync(dir, aside);
      fs.writeFileSync(dir, 'not a folder');
      const file = path.join(workspaceDir(), 'src', 'unguardable.ts');
      fs.writeFileSync(file, 'export const owner = "me";\n');
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
      await vscode.window.showTextDocument(doc);
      const edit = new vscode.WorkspaceEdit();
      edit.insert(doc.uri, new vscode.Position(1, 0), 'export const mine = "unsaved";\n');
      await vscode.workspace.applyEdit(edit);
      await new Promise((r) => setTimeout(r, 1000));
      fs.writeFileSync(file, 'export const owner = "the agent";\n');
      await vscode.commands.executeCommand('notifications.showList');
      await uiCheck({ id: 'editor-guard-failed', selector: '.notifications-center .notification-list-item', text: 'could not guard the write to src/unguardable.ts', screenshot: 'editor-guard-failed.png' });
      await vscode.commands.executeCommand('notifications.hideList');
      assert.equal(fs.readFileSync(file, 'utf8'), 'export const owner = "the agent";\n', 'nothing put back without the agent’s version kept');
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    } finally {
      if (fs.existsSync(aside)) {
        fs.rmSync(dir, { force: true });
        fs.renameSync(aside, dir);
      }
      await restoreMode();
    }
  });

  /** A version set aside for `file` in a quarantine of its own, as the editor guard records it. */
  async function setAside(content: Uint8Array, file: string): Promise<{ store: QuarantineStore; entry: QuarantineEntry }> {
    const store = new QuarantineStore(vscode.Uri.file(fs.mkdtempSync(path.join(os.tmpdir(), 'ags-quarantine-'))));
    const entry: QuarantineEntry = { ...(await store.keep(content, file)), path: file, at: Date.now(), author: 'an unattributed process', reason: 'dirty-buffer' };
    await store.record(entry);
    return { store, entry };
  }

  /** Closes `files` in the editor, unsaved, and deletes them. */
  async function closeAndDelete(files: string[]): Promise<void> {
    for (const file of files) {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.fsPath === file);
      if (doc) {
        await vscode.window.showTextDocument(doc);
        await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      }
      fs.rmSync(file, { force: true });
    }
  }

  test('taking a set-aside version of a file deleted since writes it back', async () => {
    const gone = path.join(workspaceDir(), 'src', 'taken-gone.ts');
    const plain = path.join(workspaceDir(), 'src', 'taken-plain.ts');
    try {
      fs.rmSync(gone, { force: true });
      const agents = new TextEncoder().encode('export const owner = "the agent";\n');
      const a = await setAside(agents, gone);
      // It used to fail: the editor cannot open a file that does not exist.
      await takeAgentsVersion(a.store, a.entry, nullLogger);
      assert.deepEqual(fs.readFileSync(gone), Buffer.from(agents), 'the deleted file is back with the agent’s version');
      fs.writeFileSync(plain, 'old\n');
      const c = await setAside(agents, plain);
      await takeAgentsVersion(c.store, c.entry, nullLogger);
      assert.deepEqual(fs.readFileSync(plain), Buffer.from(agents), 'text goes through the editor, as it is');
    } finally {
      await closeAndDelete([gone, plain]);
    }
  });

  test('taking a set-aside version that is not UTF-8 keeps its bytes', async () => {
    const latin1 = path.join(workspaceDir(), 'src', 'taken-latin1.txt');
    try {
      fs.writeFileSync(latin1, 'old\n');
      // "café" in Latin-1: through the editor it was saved as "caf\uFFFD" in UTF-8.
      const bytes = Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x0a]);
      const b = await setAside(bytes, latin1);
      await takeAgentsVersion(b.store, b.entry, nullLogger);
      assert.deepEqual(fs.readFileSync(latin1), Buffer.from(bytes), 'byte for byte');
    } finally {
      await closeAndDelete([latin1]);
    }
  });

  test('the guard service answers a real hook: a write to a file with unsaved changes is denied', async () => {
    const { file, doc } = await dirtyUtilWithGuard(api);
    try {
      const r = await runHook([path.join(extensionRoot(), 'dist', 'hook.js'), '--agent-guard', '--agent', 'claude'], writeHook(file, '5', 'toolu_HOOK'), hookEnv);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /unsaved changes in the editor/);
      const out = JSON.parse(r.stdout) as { hookSpecificOutput: { permissionDecision: string } };
      assert.equal(out.hookSpecificOutput.permissionDecision, 'deny');
    } finally {
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  });

  test('a write to a notebook with unsaved cells in the notebook editor is denied', async () => {
    await api.ready();
    await waitFor(() => api.guardSockets().length > 0, 10_000, 'the guard service');
    const file = path.join(workspaceDir(), 'src', 'analysis.ipynb');
    const cell = { cell_type: 'code', source: ['print(1)'], metadata: {}, outputs: [], execution_count: null };
    fs.writeFileSync(file, JSON.stringify({ cells: [cell], metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1));
    const notebook = await vscode.workspace.openNotebookDocument(vscode.Uri.file(file));
    await vscode.window.showNotebookDocument(notebook);
    const edit = new vscode.WorkspaceEdit();
    edit.set(notebook.uri, [vscode.NotebookEdit.insertCells(1, [new vscode.NotebookCellData(vscode.NotebookCellKind.Code, 'print(2)', 'python')])]);
    await vscode.workspace.applyEdit(edit);
    assert.ok(notebook.isDirty);
    try {
      const r = await runHook([path.join(extensionRoot(), 'dist', 'hook.js'), '--agent-guard', '--agent', 'claude'], writeHook(file, '7', 'toolu_NOTEBOOK'), hookEnv);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /unsaved changes in the editor/);
    } finally {
      await vscode.window.showNotebookDocument(notebook);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      fs.rmSync(file, { force: true });
    }
  });

  /** `src/<name>` written as a notebook of these code cells, opened in the notebook editor with one cell added (unsaved). */
  async function dirtyNotebook(name: string, sources: string[], added: string): Promise<{ file: string; notebook: vscode.NotebookDocument; onDisk: Buffer }> {
    const file = path.join(workspaceDir(), 'src', name);
    fs.writeFileSync(file, ipynb(...sources));
    const notebook = await vscode.workspace.openNotebookDocument(vscode.Uri.file(file));
    await vscode.window.showNotebookDocument(notebook);
    const edit = new vscode.WorkspaceEdit();
    edit.set(notebook.uri, [vscode.NotebookEdit.insertCells(notebook.cellCount, [new vscode.NotebookCellData(vscode.NotebookCellKind.Code, added, 'python')])]);
    await vscode.workspace.applyEdit(edit);
    assert.ok(notebook.isDirty);
    return { file, notebook, onDisk: fs.readFileSync(file) };
  }

  /** Closes the notebook without saving it, and deletes its file. */
  async function closeNotebook(notebook: vscode.NotebookDocument): Promise<void> {
    if (!notebook.isClosed) {
      await vscode.window.showNotebookDocument(notebook);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
    fs.rmSync(notebook.uri.fsPath, { force: true });
  }

  const sourcesOf = (notebook: vscode.NotebookDocument): string[] => notebook.getCells().map((c) => c.document.getText());

  /**
   * An agent's shell writes the notebook's file, a moment after the last edit (for the guard to
   * have kept the file's disk version): its version is set aside and `putBack` is on disk again.
   */
  async function agentWriteIsPutBack(file: string, putBack: Buffer): Promise<{ entry: QuarantineEntry; agents: string }> {
    await new Promise((r) => setTimeout(r, 1000));
    const agents = ipynb('print("the agent")');
    fs.writeFileSync(file, agents);
    const entry = await waitFor(async () => (await api.quarantine()).find((e) => e.path === file), 10_000, 'the agent’s version in the quarantine');
    await waitFor(() => fs.readFileSync(file).equals(putBack), 5000, 'the previous content back on disk');
    return { entry, agents };
  }

  test('a write landing on a notebook with unsaved cells: the cells are kept, the agent’s version is set aside, the file put back', async () => {
    const restoreMode = await editorGuardMode('block');
    const { file, notebook, onDisk } = await dirtyNotebook('guarded.ipynb', ['print(1)'], 'print("mine, unsaved")');
    try {
      const { entry, agents } = await agentWriteIsPutBack(file, onDisk);
      assert.equal(entry.reason, 'dirty-buffer');
      assert.equal(new TextDecoder().decode(await api.readQuarantined(entry.id)), agents, 'retrievable byte for byte');
      assert.ok(notebook.isDirty, 'the notebook is still unsaved');
      assert.deepEqual(sourcesOf(notebook), ['print(1)', 'print("mine, unsaved")'], 'its cells are untouched');
    } finally {
      await closeNotebook(notebook);
      await restoreMode();
    }
  });

  test('the user saving a notebook with unsaved cells is no agent’s write: nothing set aside, nothing put back, even with the cells edited right after', async () => {
    const restoreMode = await editorGuardMode('block');
    const { file, notebook } = await dirtyNotebook('saved.ipynb', ['print(1)'], 'print(2)');
    try {
      await new Promise((r) => setTimeout(r, 1000));
      assert.ok(await notebook.save(), 'saved');
      const saved = fs.readFileSync(file);
      assert.match(saved.toString('utf8'), /print\(2\)/);
      // Typed on at once: the buffer's cells are no longer what the file holds when the save is judged.
      const edit = new vscode.WorkspaceEdit();
      edit.set(notebook.uri, [vscode.NotebookEdit.insertCells(notebook.cellCount, [new vscode.NotebookCellData(vscode.NotebookCellKind.Code, 'print(3)', 'python')])]);
      await vscode.workspace.applyEdit(edit);
      assert.ok(notebook.isDirty);
      // The guard judges a change once the file has been quiet for 100 ms (2 s at most): a set-aside or a put-back would land within this.
      await new Promise((r) => setTimeout(r, 3000));
      assert.deepEqual(fs.readFileSync(file), saved, 'the save stays on disk');
      assert.equal((await api.quarantine()).filter((e) => e.path === file).length, 0, 'nothing set aside');
    } finally {
      await closeNotebook(notebook);
      await restoreMode();
    }
  });

  test('auto-save of a notebook edited in bursts (saves landing while it is dirty again): none of them is set aside or put back', async () => {
    const files = vscode.workspace.getConfiguration('files');
    // Put back as they were, not removed: code-server's own default is auto-save on.
    const autoSave = files.inspect('autoSave')?.globalValue;
    const autoSaveDelay = files.inspect('autoSaveDelay')?.globalValue;
    const restoreMode = await editorGuardMode('block');
    const { file, notebook } = await dirtyNotebook('autosaved.ipynb', ['print(1)'], 'print(2)');
    try {
      await new Promise((r) => setTimeout(r, 1000));
      await files.update('autoSaveDelay', 100, vscode.ConfigurationTarget.Global);
      await files.update('autoSave', 'afterDelay', vscode.ConfigurationTarget.Global);
      // A pause just longer than the auto-save delay between edits: each save lands, and the
      // next edit comes while the guard is still judging it.
      for (let i = 3; i < 13; i++) {
        const edit = new vscode.WorkspaceEdit();
        edit.set(notebook.uri, [vscode.NotebookEdit.insertCells(notebook.cellCount, [new vscode.NotebookCellData(vscode.NotebookCellKind.Code, `print(${i})`, 'python')])]);
        await vscode.workspace.applyEdit(edit);
        await new Promise((r) => setTimeout(r, 120 + (i % 3) * 40));
      }
      await waitFor(() => !notebook.isDirty, 5000, 'the last auto-save');
      await new Promise((r) => setTimeout(r, 3000));
      assert.equal((await api.quarantine()).filter((e) => e.path === file).length, 0, 'nothing set aside');
      const onDisk = (JSON.parse(fs.readFileSync(file, 'utf8')) as { cells: { source: string[] }[] }).cells.map((c) => c.source.join(''));
      assert.deepEqual(onDisk, sourcesOf(notebook), 'the file holds the last save');
      assert.equal(onDisk.length, 12);
    } finally {
      await files.update('autoSave', autoSave, vscode.ConfigurationTarget.Global);
      await files.update('autoSaveDelay', autoSaveDelay, vscode.ConfigurationTarget.Global);
      await closeNotebook(notebook);
      await restoreMode();
    }
  });

  test('a notebook also open as text (Compare opens it so): the notebook’s unsaved cells are what is guarded', async () => {
    const restoreMode = await editorGuardMode('block');
    const { file, notebook, onDisk } = await dirtyNotebook('astext.ipynb', ['print(1)'], 'print("mine, unsaved")');
    const text = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    try {
      assert.ok(!text.isDirty);
      await agentWriteIsPutBack(file, onDisk);
      assert.deepEqual(sourcesOf(notebook), ['print(1)', 'print("mine, unsaved")']);
    } finally {
      await closeNotebook(notebook);
      await restoreMode();
    }
  });

  test('a notebook also open as text, the text closed: the notebook’s unsaved cells are still guarded', async () => {
    const restoreMode = await editorGuardMode('block');
    const { file, notebook, onDisk } = await dirtyNotebook('textclosed.ipynb', ['print(1)'], 'print("mine, unsaved")');
    try {
      // Opened as the user opens it (Reopen Editor With… Text Editor), not with
      // openTextDocument: a document an extension opened stays open minutes after its editor.
      const closed = new Promise<void>((resolve) => {
        const sub = vscode.workspace.onDidCloseTextDocument((d) => {
          if (d.uri.scheme === 'file' && d.uri.fsPath === file) {
            sub.dispose();
            resolve();
          }
        });
      });
      await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(file), 'default');
      await waitFor(() => vscode.window.activeTextEditor?.document.uri.fsPath === file, 10_000, 'the notebook open as text');
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
      await waitFor(async () => (await Promise.race([closed.then(() => true), new Promise((r) => setTimeout(() => r(false), 100))])) as boolean, 20_000, 'the text document closed');
      assert.ok(notebook.isDirty && !notebook.isClosed, 'the notebook is still open, unsaved');
      await agentWriteIsPutBack(file, onDisk);
      assert.deepEqual(sourcesOf(notebook), ['print(1)', 'print("mine, unsaved")']);
    } finally {
      await closeNotebook(notebook);
      await restoreMode();
    }
  });

  test('a notebook with a cell deleted (its cell document closed): a write landing on it is still put back', async () => {
    const restoreMode = await editorGuardMode('block');
    const { file, notebook, onDisk } = await dirtyNotebook('deleted.ipynb', ['print(1)', 'print(2)'], 'print("mine, unsaved")');
    try {
      const edit = new vscode.WorkspaceEdit();
      edit.set(notebook.uri, [vscode.NotebookEdit.deleteCells(new vscode.NotebookRange(0, 1))]);
      await vscode.workspace.applyEdit(edit);
      assert.deepEqual(sourcesOf(notebook), ['print(2)', 'print("mine, unsaved")']);
      await agentWriteIsPutBack(file, onDisk);
    } finally {
      await closeNotebook(notebook);
      await restoreMode();
    }
  });

  test('a notebook also open as text, both with unsaved changes: the user saving the notebook is not put back', async () => {
    const restoreMode = await editorGuardMode('block');
    const { file, notebook } = await dirtyNotebook('bothdirty.ipynb', ['print(1)'], 'print(2)');
    const text = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    try {
      const edit = new vscode.WorkspaceEdit();
      edit.insert(text.uri, new vscode.Position(0, 0), ' ');
      await vscode.workspace.applyEdit(edit);
      assert.ok(text.isDirty && notebook.isDirty);
      await new Promise((r) => setTimeout(r, 1000));
      assert.ok(await notebook.save(), 'saved');
      const saved = fs.readFileSync(file);
      assert.match(saved.toString('utf8'), /print\(2\)/);
      // A set-aside or a put-back would land within this (see above).
      await new Promise((r) => setTimeout(r, 3000));
      assert.deepEqual(fs.readFileSync(file), saved, 'the save stays on disk');
      assert.equal((await api.quarantine()).filter((e) => e.path === file).length, 0, 'nothing set aside');
      // The text's changes still unsaved: an agent's write (past the 3 s after a save in which
      // nothing is put back) is still set aside and put back.
      assert.ok(text.isDirty);
      await agentWriteIsPutBack(file, saved);
    } finally {
      await vscode.window.showTextDocument(text);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
      await closeNotebook(notebook);
      await restoreMode();
    }
  });

  test('taking the agent’s version of a notebook: asked first when it has unsaved cells (No keeps them), then the notebook shows it', async () => {
    const { file, notebook, onDisk } = await dirtyNotebook('taken.ipynb', ['print(1)'], 'print("mine, unsaved")');
    const agents = new TextEncoder().encode(ipynb('print("the agent")'));
    const { store, entry } = await setAside(agents, file);
    const window = vscode.window as { showWarningMessage: unknown };
    const show = window.showWarningMessage;
    const asked: string[] = [];
    try {
      // No (the question dismissed), then Replace.
      const answers = [undefined, 'Replace'];
      window.showWarningMessage = (message: string) => {
        asked.push(message);
        return Promise.resolve(answers.shift());
      };
      await takeAgentsVersion(store, entry, nullLogger);
      assert.equal(asked.length, 1, 'asked');
      assert.match(asked[0]!, /Replace your unsaved changes to taken\.ipynb/);
      assert.ok(notebook.isDirty, 'declined: the unsaved cells are kept');
      assert.deepEqual(sourcesOf(notebook), ['print(1)', 'print("mine, unsaved")']);
      assert.deepEqual(fs.readFileSync(file), onDisk, 'and the file is as it was');
      await takeAgentsVersion(store, entry, nullLogger);
      assert.deepEqual(fs.readFileSync(file), Buffer.from(agents), 'the agent’s version on disk, byte for byte');
      // Not whether it is dirty after: in a run of all the guard tests VS Code showed the agent's
      // cells with the notebook marked dirty (its own doing after reading the file; not ours).
      await waitFor(() => sourcesOf(notebook).join() === 'print("the agent")', 5000, 'the notebook showing the agent’s version');
    } finally {
      window.showWarningMessage = show;
      await closeNotebook(notebook);
    }
  });

  test('a settings change keeps the guard answering: hooks asked while the monitors restart get the service’s answer', async () => {
    const { file, doc } = await dirtyUtilWithGuard(api);
    const config = vscode.workspace.getConfiguration('agentGuard');
    let n = 0;
    const ask = (): Promise<{ status: number | null; stdout: string; stderr: string }> =>
      runHook([path.join(extensionRoot(), 'dist', 'hook.js'), '--agent-guard', '--agent', 'claude'], writeHook(file, '6', `toolu_RESTART${++n}`), hookEnv);
    const answers: { status: number | null; stdout: string; stderr: string }[] = [];
    let restarted = false;
    // Hooks one after another from before the change until the new monitors serve: with no
    // service in between, one of them would be let through with "no guard service is running".
    const asking = (async () => {
      while (!restarted) {
        answers.push(await ask());
      }
    })();
    try {
      await waitFor(() => answers.length > 0, 15_000, 'a first answer');
      // A rule's severity: nothing the guard itself depends on, yet the monitors are rebuilt.
      await config.update('rules', { 'orphan-result': 'warning' }, vscode.ConfigurationTarget.Global);
      const before = answers.length;
      await waitFor(() => answers.length > before, 15_000, 'a hook asked during the restart');
      await api.ready();
      await waitFor(() => api.guardSockets().length > 0, 15_000, 'the new monitors’ guard service');
      const ready = answers.length;
      await waitFor(() => answers.length > ready, 15_000, 'a hook asked after the restart');
      restarted = true;
      await asking;
      for (const r of answers) {
        assert.equal(r.status, 2, `every hook denied by the service: ${r.stderr}`);
        assert.match(r.stderr, /unsaved changes in the editor/);
      }
    } finally {
      restarted = true;
      await asking.catch(() => undefined);
      await config.update('rules', undefined, vscode.ConfigurationTarget.Global);
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  });

  test('installing the hooks writes the agents’ settings, keeping what was there', async () => {
    const settings = path.join(workspaceDir(), '.claude', 'settings.local.json');
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    const mine = '{\n  // my own permission\n  "permissions": { "allow": ["Bash(npm test)"] }\n}\n';
    fs.writeFileSync(settings, mine);
    const outcome = await vscode.commands.executeCommand<string>('agentGuard.installHooks', { confirm: false });
    assert.equal(outcome, 'written');
    const after = fs.readFileSync(settings, 'utf8');
    assert.ok(after.startsWith('{\n  // my own permission\n  "permissions": { "allow": ["Bash(npm test)"] }'), after);
    assert.match(after, /"PreToolUse"/);
    // Through the shim in the global storage, whose path an update keeps, and which loads
    // this version's dist/hook.js.
    const shim = installedScript(after);
    assert.match(shim, /[\\/]agent-session-guard\.agent-session-guard[\\/]hook\.js$/);
    assert.match(after, /hook\.js\\?" --agent-guard --agent claude/);
    assert.ok(fs.readFileSync(shim, 'utf8').includes(JSON.stringify(path.join(extensionRoot(), 'dist', 'hook.js'))), 'the shim loads this version’s hook');
    assert.equal(await vscode.commands.executeCommand<string>('agentGuard.uninstallHooks', { confirm: false }), 'written');
    assert.equal(fs.readFileSync(settings, 'utf8'), mine, 'uninstall restores the original bytes');
  });

  test('Show Guard Hooks Status offers only what applies: Install… with nothing installed, Remove… with everything', async () => {
    try {
      await withMessages(async (shown, buttons) => {
        const before = await hookStatus();
        assert.ok(before.length > 0 && before.every((s) => s.state.kind === 'not-installed'), JSON.stringify(before));
        await vscode.commands.executeCommand('agentGuard.hooksStatus');
        assert.match(shown.at(-1)!, /not installed/);
        assert.deepEqual(buttons.at(-1), ['Install…']);
        assert.equal(await vscode.commands.executeCommand<string>('agentGuard.installHooks', { confirm: false }), 'written');
        await vscode.commands.executeCommand('agentGuard.hooksStatus');
        assert.deepEqual(buttons.at(-1), ['Remove…']);
      });
    } finally {
      await vscode.commands.executeCommand<string>('agentGuard.uninstallHooks', { confirm: false });
    }
  });

  test('guard.failClosed changed with the hooks installed: installing them again is offered, and does it', async () => {
    const settings = path.join(workspaceDir(), '.claude', 'settings.local.json');
    const config = vscode.workspace.getConfiguration('agentGuard', vscode.workspace.workspaceFolders![0]!.uri);
    try {
      await withMessages(async (shown, buttons) => {
        assert.equal(await vscode.commands.executeCommand<string>('agentGuard.installHooks', { confirm: false }), 'written');
        assert.doesNotMatch(fs.readFileSync(settings, 'utf8'), /--fail-closed/);
        await config.update('guard.failClosed', true, vscode.ConfigurationTarget.WorkspaceFolder);
        await waitFor(() => shown.some((m) => m.startsWith('The guard hooks installed in')), 10_000, 'the offer to install the hooks again');
        const i = shown.findIndex((m) => m.startsWith('The guard hooks installed in'));
        assert.match(shown[i]!, /\.claude\/settings\.local\.json.* still allow writes when no guard service answers/);
        assert.deepEqual(buttons[i], ['Preview and Update…']);
        // What the button runs, for the folder, here without its preview.
        assert.equal(await vscode.commands.executeCommand<string>('agentGuard.installHooks', { confirm: false }), 'written');
        assert.match(fs.readFileSync(settings, 'utf8'), /--agent claude --fail-closed/);
        // The hooks now as the setting says: a change of something else offers nothing.
        const before = shown.length;
        await config.update('guard.staleWrite', 'warn', vscode.ConfigurationTarget.WorkspaceFolder);
        await api.ready();
        await new Promise((r) => setTimeout(r, 500));
        assert.equal(shown.slice(before).filter((m) => m.startsWith('The guard hooks installed in')).length, 0);
      });
    } finally {
      await config.update('guard.failClosed', undefined, vscode.ConfigurationTarget.WorkspaceFolder);
      await config.update('guard.staleWrite', undefined, vscode.ConfigurationTarget.WorkspaceFolder);
      await vscode.commands.executeCommand<string>('agentGuard.uninstallHooks', { confirm: false });
      await api.ready();
    }
  });

  test('a settings file that is there but cannot be read is reported and left as it is, not taken for none', async () => {
    // A folder where Gemini CLI's settings file should be: unreadable whoever runs the test.
    const gemini = path.join(workspaceDir(), '.gemini', 'settings.json');
    fs.mkdirSync(gemini, { recursive: true });
    try {
      const state = (await hookStatus()).find((s) => s.file === '.gemini/settings.json')?.state;
      assert.equal(state?.kind, 'unreadable', JSON.stringify(state));
      assert.equal(await vscode.commands.executeCommand<string>('agentGuard.installHooks', { confirm: false }), 'written', 'the other agents are still installed');
      assert.ok(fs.statSync(gemini).isDirectory());
      assert.deepEqual(fs.readdirSync(gemini), []);
      assert.equal((await hookStatus()).find((s) => s.file === '.claude/settings.local.json')?.state.kind, 'current');
    } finally {
      await vscode.commands.executeCommand<string>('agentGuard.uninstallHooks', { confirm: false });
      fs.rmSync(path.dirname(gemini), { recursive: true, force: true });
    }
  });

  test('a hook left by a deleted version is reported as broken, and installing repairs it; the repaired hook reaches the guard', async () => {
    const settings = path.join(workspaceDir(), '.claude', 'settings.local.json');
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    // What 0.1.0 wrote: its own versioned folder, which VS Code deleted after an update.
    const gone = path.join(workspaceDir(), 'no-such-dir', 'agent-session-guard.agent-session-guard-0.0.1', 'dist', 'hook.js');
    const stale = `{"hooks": {"PreToolUse": [{"matcher": "Edit|Write|MultiEdit|NotebookEdit", "hooks": [{"type": "command", "command": "node \\"${gone}\\" --agent-guard --agent claude", "timeout": 10}]}]}}\n`;
    fs.writeFileSync(settings, stale);
    const file = path.join(workspaceDir(), 'src', 'util.ts');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.file(file));
    try {
      const before = await hookStatus();
      assert.deepEqual(before.find((s) => s.file === '.claude/settings.local.json')?.state, { kind: 'missing-script', script: gone });
      assert.equal(await vscode.commands.executeCommand<string>('agentGuard.installHooks', { confirm: false }), 'written');
      assert.equal((await hookStatus()).find((s) => s.file === '.claude/settings.local.json')?.state.kind, 'current');
      const after = fs.readFileSync(settings, 'utf8');
      assert.ok(!after.includes(gone), after);
      // The command as the agent runs it: a write to a file with unsaved changes is denied.
      await waitFor(() => api.guardSockets().length > 0, 10_000, 'the guard service');
      const edit = new vscode.WorkspaceEdit();
      edit.insert(doc.uri, new vscode.Position(0, 0), '// unsaved\n');
      await vscode.workspace.applyEdit(edit);
      const r = await runHook([installedScript(after), '--agent-guard', '--agent', 'claude'], writeHook(file, '6', 'toolu_SHIM'), hookEnv);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /unsaved changes in the editor/);
    } finally {
      await vscode.commands.executeCommand<string>('agentGuard.uninstallHooks', { confirm: false });
      fs.rmSync(settings, { force: true });
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
  });
});

/** Claude Code's PreToolUse payload for a Write of `file` (session `…00000<session>`), as the hook reads it on stdin. */
/** An .ipynb file of these code cells, as a shell or a script might write it. */
function ipynb(...sources: string[]): string {
  return JSON.stringify({ cells: sources.map((s) => ({ cell_type: 'code', source: [s], metadata: {}, outputs: [], execution_count: null })), metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1);
}

function writeHook(file: string, session: string, toolUseId: string): string {
  return JSON.stringify({
    session_id: `e5f6a7b8-0000-4000-8000-00000000000${session}`,
    transcript_path: '/nonexistent/transcript.jsonl',
    cwd: workspaceDir(),
    hook_event_name: 'PreToolUse',
    tool_name: 'Write',
    tool_input: { file_path: file, content: 'overwritten\n' },
    tool_use_id: toolUseId,
  });
}


/** The script of our hook command in a settings text: `node "<script>" --agent-guard …`. */
function installedScript(settingsText: string): string {
  const command = /"command":\s*"(node \\"[^"\\]*(?:\\.[^"\\]*)*)"/.exec(settingsText)?.[1];
  assert.ok(command, settingsText);
  const script = /^node "([^"]+)"/.exec(JSON.parse(`"${command}"`) as string)?.[1];
  assert.ok(script, command);
  return script;
}

async function hookStatus(): Promise<{ folder: string; file: string; state: { kind: string; script?: string } }[]> {
  return (await vscode.commands.executeCommand<{ folder: string; file: string; state: { kind: string; script?: string } }[]>('agentGuard.hooksStatus', { show: false })) ?? [];
}

