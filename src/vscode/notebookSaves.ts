import { promises as fsp } from 'node:fs';
import * as vscode from 'vscode';
import { ipynbHoldsCells, type NotebookCellText } from '../core/guard/notebookCells';
import { sha256 } from '../core/lib/hash';
import { pathOf } from './uriPath';
import type { UserSaves } from './userSaves';

/** A notebook's cells as the editor holds them now. */
export function notebookCells(nb: vscode.NotebookDocument): NotebookCellText[] {
  return nb.getCells().map((c) => ({ kind: c.kind === vscode.NotebookCellKind.Markup ? 'markup' : 'code', text: c.document.getText() }));
}

/**
 * Records the editor's saves of notebooks in `saves`. A notebook's save writes what its
 * serializer makes of the cells, which the extension never sees: the file is read back after
 * the save event, and its hash is the save's only when it holds the cells the editor had as the
 * save began or as it ended (the save event can come after the user typed on: `save()` resolves
 * before it). Read back otherwise (the user typed on during the save, or another writer wrote
 * in between), the save is only known to have happened (UserSaves.savedNear): a change then is
 * never taken for the user's, and the editor guard does not put the file back over it.
 */
export function recordNotebookSaves(saves: UserSaves): vscode.Disposable {
  /** Per notebook being saved, its cells as the save began. */
  const saving = new Map<string, NotebookCellText[]>();
  const subscriptions = [
    vscode.workspace.onWillSaveNotebookDocument((e) => {
      if (e.notebook.uri.scheme === 'file') {
        const path = pathOf(e.notebook.uri);
        saving.set(path, notebookCells(e.notebook));
        saves.savedNotebook(path, undefined, Date.now());
      }
    }),
    vscode.workspace.onDidSaveNotebookDocument((nb) => {
      if (nb.uri.scheme !== 'file') {
        return;
      }
      const path = pathOf(nb.uri);
      const began = saving.get(path);
      saving.delete(path);
      void readBack(saves, path, [notebookCells(nb), ...(began ? [began] : [])]);
    }),
  ];
  return vscode.Disposable.from(...subscriptions, { dispose: () => saving.clear() });
}

async function readBack(saves: UserSaves, path: string, candidates: readonly NotebookCellText[][]): Promise<void> {
  const at = Date.now();
  saves.savedNotebook(path, undefined, at);
  try {
    const bytes = await fsp.readFile(path);
    if (candidates.some((cells) => ipynbHoldsCells(bytes, cells))) {
      saves.savedNotebook(path, sha256(bytes), at);
    }
  } catch {
    // Gone or unreadable: the save stays known only to have happened.
  }
}
