import { promises as fsp } from 'node:fs';
import * as vscode from 'vscode';
import { ipynbCells, sameCells, type NotebookCellText } from '../core/guard/notebookCells';
import { sha256 } from '../core/lib/hash';
import { pathOf } from './uriPath';
import { userSaveWindowMs, type UserSaves } from './userSaves';

/** A notebook's cells as the editor holds them now. */
export function notebookCells(nb: vscode.NotebookDocument): NotebookCellText[] {
  return nb.getCells().map((c) => ({ kind: c.kind === vscode.NotebookCellKind.Markup ? 'markup' : 'code', text: c.document.getText() }));
}

/** A notebook's buffer states kept while it is being saved: more than a few seconds of edits hold. */
const maxStates = 64;

/**
 * Records the editor's saves of notebooks in `saves`. A notebook's save writes what its
 * serializer makes of the cells, which the extension never sees, and of a state the extension
 * may not see whole: the cells it serializes are taken after `onWillSave…` (edits land in
 * between), and `onDidSave…` can come after more edits (`save()` resolves before it; auto-save
 * while typing). So from a save's start, every state of the buffer is kept (for the window a
 * change is matched with a save in), and after the save the file is read back: its hash is the
 * save's when it holds one of those states. Otherwise (another writer wrote in between) the
 * save is only known to have happened (UserSaves.savedNear): a change then is never taken for
 * the user's, and the editor guard does not put the file back over it.
 */
export function recordNotebookSaves(saves: UserSaves, own: (registration: vscode.Disposable) => void): void {
  /** Per notebook saved lately, its buffer's states since (with when each was seen). */
  const states = new Map<string, { at: number; cells: NotebookCellText[] }[]>();
  const keep = (nb: vscode.NotebookDocument, now: number, start: boolean): void => {
    const path = pathOf(nb.uri);
    const recent = (states.get(path) ?? []).filter((s) => now - s.at < userSaveWindowMs);
    if (recent.length === 0 && !start) {
      states.delete(path);
      return;
    }
    recent.push({ at: now, cells: notebookCells(nb) });
    states.set(path, recent.slice(-maxStates));
  };
  // Each to its owner as it is made: one that throws leaves those before it owned.
  own({ dispose: () => states.clear() });
  own(
    vscode.workspace.onWillSaveNotebookDocument((e) => {
      if (e.notebook.uri.scheme === 'file') {
        const now = Date.now();
        keep(e.notebook, now, true);
        saves.beginNotebookSave(pathOf(e.notebook.uri), now);
      }
    }),
  );
  own(
    vscode.workspace.onDidChangeNotebookDocument((e) => {
      if (e.notebook.uri.scheme === 'file' && states.has(pathOf(e.notebook.uri))) {
        keep(e.notebook, Date.now(), false);
      }
    }),
  );
  own(
    vscode.workspace.onDidSaveNotebookDocument((nb) => {
      if (nb.uri.scheme !== 'file') {
        return;
      }
      const now = Date.now();
      keep(nb, now, true);
      const path = pathOf(nb.uri);
      void readBack(saves, path, (states.get(path) ?? []).map((s) => s.cells), now);
    }),
  );
  own(vscode.workspace.onDidCloseNotebookDocument((nb) => states.delete(pathOf(nb.uri))));
}

async function readBack(saves: UserSaves, path: string, candidates: readonly NotebookCellText[][], at: number): Promise<void> {
  saves.savedNotebook(path, undefined, at);
  let hash: string | undefined;
  try {
    const bytes = await fsp.readFile(path);
    const held = ipynbCells(bytes);
    if (held && candidates.some((cells) => sameCells(held, cells))) {
      hash = sha256(bytes);
    }
  } catch {
    // Gone or unreadable: the save stays known only to have happened.
  } finally {
    // Settled whatever the outcome: a change of the file waits for it (UserSaves.pending).
    saves.notebookSaveRead(path, hash, at);
  }
}
