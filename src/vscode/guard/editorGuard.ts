import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import { describeError, type Logger } from '../../core/lib/logger';
import { describeAuthor } from '../../core/rules/support/author';
import type { TreeChange, WorkTree } from '../../io/workTree';
import { productName } from '../ids';
import { Disposable } from '../lifecycle';
import type { QuarantineEntry, QuarantineStore } from './quarantine';
import { samePath } from '../../core/classify/paths';
import { pathOf } from '../uriPath';

export type EditorGuardMode = 'block' | 'warn' | 'off';

/** Files larger than this are not kept in memory to be put back; the guard then only warns. */
const maxBaselineBytes = 5 * 1024 * 1024;

/**
 * The guard for writes that bypass the hooks (shell writes, agents without hooks): when a
 * write lands on a file with unsaved changes in an editor, or a session's stale write lands on
 * a file open in an editor, it keeps the agent's version in the quarantine and — in "block"
 * mode — puts the previous content back on disk. The editor buffer is never touched. Either
 * way the user is told, with Compare / Keep mine / Take the agent's.
 */
export class EditorGuard extends Disposable {
  /** The bytes on disk of each open file, as of when it was opened, saved or reverted. */
  private readonly baselines = new Map<string, Uint8Array>();
  /** Writes the guard itself made (putting a version back): not an agent's. */
  private readonly ownWrites = new Map<string, string>();
  private readonly trees = new Set<WorkTree>();
  private treeSubscriptions: { dispose(): void }[] = [];

  constructor(
    private mode: EditorGuardMode,
    private readonly store: QuarantineStore,
    private readonly log: Logger,
    private readonly notify: (entry: QuarantineEntry, message: string, restored: boolean) => void,
  ) {
    super();
    this.register(vscode.workspace.onDidOpenTextDocument((d) => void this.remember(d)));
    this.register(vscode.workspace.onDidSaveTextDocument((d) => void this.remember(d)));
    this.register(vscode.workspace.onDidCloseTextDocument((d) => this.baselines.delete(pathOf(d.uri))));
    this.register(
      vscode.workspace.onDidChangeTextDocument((e) => {
        // A buffer becoming dirty: make sure its file is watched and its disk version kept.
        if (e.document.isDirty && !this.baselines.has(pathOf(e.document.uri))) {
          void this.remember(e.document);
        }
      }),
    );
    this.register({ dispose: () => this.unsubscribe() });
  }

  setMode(mode: EditorGuardMode): void {
    this.mode = mode;
  }

  /** Follows the working trees of the current monitors (they are rebuilt with the settings). */
  watch(trees: readonly WorkTree[]): void {
    this.unsubscribe();
    this.trees.clear();
    for (const t of trees) {
      this.trees.add(t);
      this.treeSubscriptions.push(t.onDidChange((c) => void this.onChange(t, c).catch((e: unknown) => this.failed(c.path, e))));
    }
    for (const d of vscode.workspace.textDocuments) {
      void this.remember(d);
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

  private async remember(doc: vscode.TextDocument): Promise<void> {
    if (doc.uri.scheme !== 'file' || this.mode === 'off') {
      return;
    }
    const path = pathOf(doc.uri);
    const tree = this.treeFor(path);
    if (!tree) {
      return;
    }
    await tree.track(path);
    try {
      const info = await fsp.stat(path);
      if (info.size <= maxBaselineBytes) {
        this.baselines.set(path, await fsp.readFile(path));
      }
    } catch {
      this.baselines.delete(path);
    }
  }

  private async onChange(tree: WorkTree, c: TreeChange): Promise<void> {
    if (this.mode === 'off' || c.hash === null) {
      return;
    }
    if (this.ownWrites.get(c.path) === c.hash) {
      this.ownWrites.delete(c.path);
      return;
    }
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && samePath(d.uri.fsPath, c.path));
    if (!doc) {
      return;
    }
    if (c.by.kind === 'user') {
      await this.remember(doc);
      return;
    }
    let reason: QuarantineEntry['reason'] | undefined;
    if (doc.isDirty) {
      reason = 'dirty-buffer';
    } else if (c.by.kind === 'session') {
      const seen = tree.lastSeen(c.by.session, c.path);
      if (seen && seen.hash !== undefined && seen.hash !== c.previous) {
        reason = 'stale-write';
      }
    }
    if (!reason) {
      await this.remember(doc);
      return;
    }
    let agentVersion: Uint8Array;
    try {
      agentVersion = await fsp.readFile(c.path);
    } catch (e) {
      this.log.warn(`[editor-guard] ${c.path} changed but cannot be read: ${String(e)}`);
      return;
    }
    if (doc.isDirty && new TextDecoder().decode(agentVersion) === doc.getText()) {
      // The disk now holds exactly the buffer: the editor saved it (auto-save can land before
      // its save event reaches us). Nothing is in conflict.
      await this.remember(doc);
      return;
    }
    const author = describeAuthor(c.by);
    const name = vscode.workspace.asRelativePath(c.path);
    // The agent's version is stored before anything is put back: neither side is ever lost.
    const kept = await this.store.keep(agentVersion, c.path);
    const baseline = this.baselines.get(c.path);
    let restoredHash: string | undefined;
    let restoreError: unknown;
    if (this.mode === 'block' && baseline) {
      const hash = createHash('sha256').update(baseline).digest('hex');
      this.ownWrites.set(c.path, hash);
      try {
        await fsp.writeFile(c.path, baseline);
        restoredHash = hash;
      } catch (e) {
        this.ownWrites.delete(c.path);
        restoreError = e;
        this.log.error(`[editor-guard] could not put back the previous content of ${c.path}: ${describeError(e)}`);
      }
    }
    // Recorded after the put-back, so that the index says whether it happened.
    const entry: QuarantineEntry = { ...kept, path: c.path, at: c.at, author, reason, ...(restoredHash !== undefined ? { restoredHash } : {}) };
    try {
      await this.store.record(entry);
    } catch (e) {
      this.log.error(`[editor-guard] could not add ${entry.id} (${c.path}) to the quarantine index; it is listed until the window closes: ${describeError(e)}`);
    }
    const restored = restoredHash !== undefined;
    this.log.warn(`[editor-guard] ${reason}: ${author} wrote ${c.path}; its version is quarantined as ${entry.id}${restored ? '; the previous content was put back' : ''}`);
    const what =
      reason === 'dirty-buffer'
        ? `${capitalize(author)} wrote ${name}, which has unsaved changes in your editor.`
        : `${capitalize(author)} wrote ${name} over content it never saw (it changed after the session last read it).`;
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
    void vscode.window.showWarningMessage(
      `${productName} could not guard the write to ${vscode.workspace.asRelativePath(path)} (${errorMessage(e)}). The file on disk is the agent's version; your editor keeps yours. See the log for details.`,
    );
  }
}

function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The notification's actions: compare the two versions, keep the user's, or take the agent's. */
export async function offerChoice(store: QuarantineStore, entry: QuarantineEntry, message: string, log: Logger): Promise<void> {
  const choice = await vscode.window.showWarningMessage(message, 'Compare', 'Keep Mine', "Take the Agent's");
  const target = vscode.Uri.file(entry.path);
  if (choice === 'Compare') {
    await vscode.commands.executeCommand('vscode.diff', store.uriFor(entry), target, `${nodePath.basename(entry.path)}: the agent's version (set aside) ↔ yours`);
  } else if (choice === "Take the Agent's") {
    await takeAgentsVersion(store, entry, log);
  }
}

/** Puts a quarantined version into the editor (keeping undo) and saves it. */
export async function takeAgentsVersion(store: QuarantineStore, entry: QuarantineEntry, log: Logger): Promise<void> {
  const uri = vscode.Uri.file(entry.path);
  const doc = await vscode.workspace.openTextDocument(uri);
  if (doc.isDirty) {
    const sure = await vscode.window.showWarningMessage(`Replace your unsaved changes to ${nodePath.basename(entry.path)} with the agent's version?`, { modal: true, detail: 'Your version stays in the undo history of the editor.' }, 'Replace');
    if (sure !== 'Replace') {
      return;
    }
  }
  const text = new TextDecoder().decode(await store.read(entry.id));
  const edit = new vscode.WorkspaceEdit();
  edit.replace(uri, new vscode.Range(0, 0, doc.lineCount, 0), text);
  await vscode.workspace.applyEdit(edit);
  await doc.save();
  log.info(`[editor-guard] took the agent's version of ${entry.path} (${entry.id})`);
}
