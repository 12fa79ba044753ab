import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import { describeError, type Logger } from '../../core/lib/logger';
import { EditorWrites, type EditorGuardMode, type OpenDocument, type QuarantineEntry } from '../../io/guard/editorWrites';
import type { TreeChange, WorkTree } from '../../io/workTree';
import { productName } from '../ids';
import { Disposable } from '../lifecycle';
import type { QuarantineStore } from './quarantine';
import { samePath } from '../../core/classify/paths';
import { pathOf } from '../uriPath';
import { notify } from '../notify';
import { notebookCells } from '../notebookSaves';
import type { UserSaves } from '../userSaves';
import { errorMessage } from '../../core/lib/errors';

/**
 * The guard for writes that bypass the hooks (shell writes, agents without hooks): when a
 * write lands on a file with unsaved changes in an editor (a text editor or the notebook
 * editor), or a session's stale write lands on a file open in an editor, it keeps the agent's
 * version in the quarantine and — in "block" mode — puts the previous content back on disk.
 * The editor buffer is never touched. Either way the user is told, with Compare / Keep mine /
 * Take the agent's. The work is EditorWrites' (src/io/guard/editorWrites.ts); this feeds it the
 * editor's documents.
 */
export class EditorGuard extends Disposable {
  private readonly writes: EditorWrites;
  private readonly trees = new Set<WorkTree>();
  private treeSubscriptions: { dispose(): void }[] = [];

  constructor(
    mode: EditorGuardMode,
    store: QuarantineStore,
    private readonly saves: Pick<UserSaves, 'isUserSave' | 'savedNear'>,
    private readonly log: Logger,
    private readonly notify: (entry: QuarantineEntry, message: string, restored: boolean) => void,
  ) {
    super();
    try {
      this.writes = new EditorWrites(mode, store, log, (path) => this.documentAt(path));
      const w = vscode.workspace;
      this.follow(w.onDidOpenTextDocument, w.onDidSaveTextDocument, w.onDidCloseTextDocument, w.onDidChangeTextDocument, (e) => e.document);
      // A notebook in the notebook editor is no text document (its cells are, but they are no
      // files: their scheme is vscode-notebook-cell): its own events.
      this.follow(w.onDidOpenNotebookDocument, w.onDidSaveNotebookDocument, w.onDidCloseNotebookDocument, w.onDidChangeNotebookDocument, (e) => e.notebook);
      this.register({ dispose: () => this.unsubscribe() });
    } catch (e) {
      this.abandon(e);
    }
  }

  /** One kind of document's events: its file's disk version kept while it is open. */
  private follow<D extends { uri: vscode.Uri; isDirty: boolean }, C>(
    onOpen: vscode.Event<D>,
    onSave: vscode.Event<D>,
    onClose: vscode.Event<D>,
    onChange: vscode.Event<C>,
    changed: (e: C) => D,
  ): void {
    this.register(onOpen((d) => void this.remember(d.uri)));
    this.register(onSave((d) => void this.remember(d.uri)));
    // Only the file's own document: a notebook's cells are text documents whose URI holds the
    // notebook's path (scheme vscode-notebook-cell), closed when a cell is deleted or the notebook
    // reloaded; as a git diff's side is. Forgotten then, a write over the notebook's unsaved cells
    // was set aside but never put back.
    this.register(
      onClose((d) => {
        if (d.uri.scheme === 'file' && !openElsewhere(pathOf(d.uri), d)) {
          this.writes.forget(pathOf(d.uri));
        }
      }),
    );
    this.register(
      onChange((e) => {
        // A buffer becoming dirty: make sure its file is watched and its disk version kept.
        const d = changed(e);
        if (d.isDirty && !this.writes.remembers(pathOf(d.uri))) {
          void this.remember(d.uri);
        }
      }),
    );
  }

  setMode(mode: EditorGuardMode): void {
    this.writes.setMode(mode);
  }

  /** Follows the working trees of the current monitors (they are rebuilt with the settings). */
  watch(trees: readonly WorkTree[]): void {
    this.unsubscribe();
    this.trees.clear();
    for (const t of trees) {
      this.trees.add(t);
      this.treeSubscriptions.push(t.onDidChange((c) => void this.onChange(t, c).catch((e: unknown) => this.failed(c.path, e))));
    }
    for (const d of [...vscode.workspace.textDocuments, ...vscode.workspace.notebookDocuments]) {
      void this.remember(d.uri);
    }
  }

  private unsubscribe(): void {
    for (const s of this.treeSubscriptions) {
      s.dispose();
    }
    this.treeSubscriptions = [];
  }

  private treeFor(path: string): WorkTree | undefined {
    return [...this.trees].find((t) => {
      const rel = nodePath.relative(t.root, path);
      return rel !== '' && !rel.startsWith('..') && !nodePath.isAbsolute(rel);
    });
  }

  private async remember(uri: vscode.Uri): Promise<void> {
    if (uri.scheme !== 'file' || this.writes.isOff) {
      return;
    }
    const path = pathOf(uri);
    const tree = this.treeFor(path);
    if (tree) {
      await this.writes.remember(tree, path);
    }
  }

  /**
   * The document open at `path`: its text document, or the notebook open there in the notebook
   * editor. Both open (a notebook also opened as text), the notebook, with the unsaved changes of
   * either: judged as the text document, the user's save of the notebook while the text had
   * unsaved changes was set aside as another writer's (and put back, unless the file's version
   * had been taken again since), the notebook's saves not being looked at. The text's saves are
   * the user's by their hash (UserSaves holds both).
   */
  private documentAt(path: string): OpenDocument | undefined {
    const text = openAt(vscode.workspace.textDocuments, path);
    const nb = openAt(vscode.workspace.notebookDocuments, path);
    if (nb) {
      const saves = this.saves;
      const savedAt = pathOf(nb.uri);
      return {
        kind: 'notebook',
        get isDirty() {
          return nb.isDirty || (text?.isDirty ?? false);
        },
        cells: () => notebookCells(nb),
        isSavedAs: (hash, at) => saves.isUserSave(savedAt, at, hash),
        savedNear: (at) => saves.savedNear(savedAt, at),
      };
    }
    return text;
  }

  private async onChange(tree: WorkTree, c: TreeChange): Promise<void> {
    const aside = await this.writes.onChange(tree, c);
    if (!aside) {
      return;
    }
    const { entry, restored, restoreError } = aside;
    const name = vscode.workspace.asRelativePath(c.path);
    const what =
      entry.reason === 'dirty-buffer'
        ? `${capitalize(entry.author)} wrote ${name}, which has unsaved changes in your editor.`
        : `${capitalize(entry.author)} wrote ${name} over content it never saw (it changed after the session last read it).`;
    const outcome = restored
      ? ' Its version was set aside and the file put back as it was; your editor keeps your version.'
      : restoreError !== undefined
        ? ` Its version was set aside, but the file could not be put back (${errorMessage(restoreError)}): the agent's version is on disk; your editor keeps yours.`
        : ' Its version is kept aside as well; your editor keeps your version.';
    this.notify(entry, what + outcome, restored);
  }

  /** The guard could not do its job for a write: the user must know, the agent's version stays on disk. */
  private failed(path: string, e: unknown): void {
    this.log.error(`[editor-guard] could not guard the write to ${path}: ${describeError(e)}`);
    void notify.warn(
      `${productName} could not guard the write to ${vscode.workspace.asRelativePath(path)} (${errorMessage(e)}). The file on disk is the agent's version; your editor keeps yours. See the log for details.`,
    );
  }
}

/** The document of these (text documents or notebooks) open on the file at `path`, if any. */
function openAt<D extends { uri: vscode.Uri }>(docs: readonly D[], path: string): D | undefined {
  return docs.find((d) => d.uri.scheme === 'file' && samePath(d.uri.fsPath, path));
}


function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The notification's actions: compare the two versions, keep the user's, or take the agent's. */
export async function offerChoice(store: QuarantineStore, entry: QuarantineEntry, message: string, log: Logger): Promise<void> {
  // The message names the file the agent wrote: nothing in its name may become a link.
  const choice = await notify.warn(message, 'Compare', 'Keep Mine', "Take the Agent's");
  const target = vscode.Uri.file(entry.path);
  if (choice === 'Compare') {
    await vscode.commands.executeCommand('vscode.diff', store.uriFor(entry), target, `${nodePath.basename(entry.path)}: the agent's version (set aside) ↔ yours`);
  } else if (choice === "Take the Agent's") {
    await takeAgentsVersion(store, entry, log);
  }
}

/**
 * Puts a quarantined version into the editor (keeping undo) and saves it. A version that is
 * not UTF-8 text, or a file that is neither on disk nor open any more, gets the version's
 * bytes written as they are: through the editor, the bytes that are not UTF-8 were saved as
 * U+FFFD (the version taken was not the one set aside), and a file gone could not be opened.
 * A notebook open in the notebook editor also gets the bytes written (its buffer is cells, which
 * only its serializer makes of them), after its unsaved cells are dropped, if the user agrees.
 */
export async function takeAgentsVersion(store: QuarantineStore, entry: QuarantineEntry, log: Logger): Promise<void> {
  const uri = vscode.Uri.file(entry.path);
  const bytes = await store.read(entry.id);
  const notebook = openAt(vscode.workspace.notebookDocuments, entry.path);
  if (notebook) {
    await takeIntoNotebook(notebook, bytes, entry, log);
    return;
  }
  const text = utf8Text(bytes);
  const open = openAt(vscode.workspace.textDocuments, entry.path);
  if (text === undefined || (!open && !(await exists(uri)))) {
    // The editor's buffer, if any, is left as it is: it keeps the user's version.
    await vscode.workspace.fs.writeFile(uri, bytes);
    log.info(`[editor-guard] wrote the agent's version of ${entry.path} (${entry.id}) to disk as it is`);
    return;
  }
  const doc = open ?? (await vscode.workspace.openTextDocument(uri));
  if (doc.isDirty) {
    const sure = await notify.warn(`Replace your unsaved changes to ${nodePath.basename(entry.path)} with the agent's version?`, { modal: true, detail: 'Your version stays in the undo history of the editor.' }, 'Replace');
    if (sure !== 'Replace') {
      return;
    }
  }
  const edit = new vscode.WorkspaceEdit();
  edit.replace(doc.uri, new vscode.Range(0, 0, doc.lineCount, 0), text);
  await vscode.workspace.applyEdit(edit);
  await doc.save();
  log.info(`[editor-guard] took the agent's version of ${entry.path} (${entry.id})`);
}

/**
 * The version's bytes written to the file of a notebook open in the notebook editor, which then
 * shows them (a notebook without unsaved changes follows its file). Unsaved cells are reverted
 * first, and only once the user agreed: the revert has no undo. Written over unsaved cells, the
 * file would be the agent's and the notebook the user's, and the user's next save would undo
 * the take (and the editor guard would take the write for an agent's).
 */
async function takeIntoNotebook(notebook: vscode.NotebookDocument, bytes: Uint8Array, entry: QuarantineEntry, log: Logger): Promise<void> {
  const name = nodePath.basename(entry.path);
  if (notebook.isDirty) {
    const sure = await notify.warn(`Replace your unsaved changes to ${name} with the agent's version?`, { modal: true, detail: 'Your unsaved cells are discarded: this cannot be undone.' }, 'Replace');
    if (sure !== 'Replace') {
      return;
    }
    // The revert command acts on the active editor: the notebook's, once shown.
    await vscode.window.showNotebookDocument(notebook);
    await vscode.commands.executeCommand('workbench.action.files.revert');
    if (notebook.isDirty) {
      log.warn(`[editor-guard] could not revert ${entry.path} to take the agent's version (${entry.id}); nothing written`);
      void notify.warn(`${name} could not be reverted: the agent's version was not taken, and your unsaved cells are as they were.`);
      return;
    }
  }
  await vscode.workspace.fs.writeFile(vscode.Uri.file(entry.path), bytes);
  log.info(`[editor-guard] took the agent's version of the notebook ${entry.path} (${entry.id})`);
}

/** The bytes as text, or undefined when they are not UTF-8. */
function utf8Text(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

/**
 * Is the file at `path` still open in another document than `closed`? A notebook is also open as
 * text when Compare or *Reopen Editor With…* opened it so: closing that view forgot the file's
 * disk version while the notebook's unsaved cells still needed it (a write over them was set
 * aside but not put back).
 */
function openElsewhere(path: string, closed: unknown): boolean {
  const same = (d: { uri: vscode.Uri; isClosed: boolean }): boolean => d !== closed && !d.isClosed && d.uri.scheme === 'file' && pathOf(d.uri) === path;
  return vscode.workspace.notebookDocuments.some(same) || vscode.workspace.textDocuments.some(same);
}
