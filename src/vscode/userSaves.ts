/** Which changes on disk are the user's own saves, computed without `vscode` (unit-tested under node:test). */
import { hashText } from '../io/workTree';

/** A change this close to a save (before or after: the watcher and the save event race) may be it. */
export const userSaveWindowMs = 3000;

interface Save {
  at: number;
  /**
   * What the editor wrote: the document's text at its save (taken then: the buffer may change
   * right after). A notebook's save has none: its bytes are the serializer's, known only by
   * their hash (`hashes`), read back from the file.
   */
  text?: string;
  /**
   * Its hashes, with and without a byte order mark: computed when a change is first judged
   * against this save, not on every save (most saves are never asked about, and a save of a
   * large file would pay two hashes of it in the editor's save path).
   */
  hashes?: readonly string[];
}

/**
 * The editor's recent saves. A change of a file is the user's when it came within the window
 * of a save of that file *and* the file then held what the editor saved. By time alone, an
 * agent's write landing within 3 s of a save (with auto-save, that is most of the time) was
 * taken as the user's: the editor guard then let it through unremarked, and a stale write over
 * it named the user as the writer.
 */
export class UserSaves {
  /**
   * Per file, its saves of the last few seconds, oldest first. All of them, not the last only:
   * with auto-save, the next save of a file can begin before its previous save's change has
   * been judged, and that change was then taken for another writer's. A save is dropped once a
   * change matched a later one (see isUserSave).
   */
  private readonly saves = new Map<string, Save[]>();
  /**
   * Per notebook, the saves begun and not read back yet. A change of the file seen meanwhile
   * waits for them (see `pending`): judged at once, the user's own save was named "an
   * unattributed process" whenever the watcher's hash came before the read-back's.
   */
  private readonly unsettled = new Map<string, { count: number; done: Promise<void>; resolve: () => void; timer: ReturnType<typeof setTimeout> }>();

  /** The editor saved `text` to `path` at `now`. */
  saved(path: string, text: string, now: number): void {
    this.put(path, { at: now, text });
  }

  /**
   * The editor began (`onWillSave…`) or finished saving the notebook at `path` at `now`; `hash`:
   * the file's, read back after the save and found to hold the editor's cells (undefined: not
   * read yet, or it did not hold them — then the save is known only to have happened).
   */
  savedNotebook(path: string, hash: string | undefined, now: number): void {
    this.put(path, { at: now, hashes: hash === undefined ? [] : [hash] });
  }

  /**
   * The editor began saving the notebook at `path` (`onWillSave…`): what it writes is known once
   * the file is read back (`notebookSaveRead`). Until then, or for `userSaveWindowMs` at most (a
   * save that failed, or whose end never came), `pending` holds changes of the file back.
   */
  beginNotebookSave(path: string, now: number): void {
    this.savedNotebook(path, undefined, now);
    const timer = setTimeout(() => this.settle(path, true), userSaveWindowMs);
    // Only a bound: it must not keep a process (a test, the CLI's host) alive.
    timer.unref?.();
    const u = this.unsettled.get(path);
    if (u) {
      clearTimeout(u.timer);
      u.timer = timer;
      u.count++;
      return;
    }
    let resolve!: () => void;
    const done = new Promise<void>((r) => (resolve = r));
    this.unsettled.set(path, { count: 1, done, resolve, timer });
  }

  /** A notebook save's file was read back: `hash` is what it wrote (undefined: not the editor's cells, or unreadable). */
  notebookSaveRead(path: string, hash: string | undefined, now: number): void {
    if (hash !== undefined) {
      this.savedNotebook(path, hash, now);
    }
    this.settle(path, false);
  }

  /**
   * Resolves when the notebook saves of `path` begun so far have been read back (undefined when
   * none is waiting): the working tree awaits it before it names who changed the file.
   */
  pending(path: string): Promise<void> | undefined {
    return this.unsettled.get(path)?.done;
  }

  private settle(path: string, all: boolean): void {
    const u = this.unsettled.get(path);
    if (!u || (!all && --u.count > 0)) {
      return;
    }
    clearTimeout(u.timer);
    this.unsettled.delete(path);
    u.resolve();
  }

  /** Did the editor begin or finish a save of `path` near `at`, whatever it wrote? */
  savedNear(path: string, at: number): boolean {
    return this.near(path, at).length > 0;
  }

  /**
   * Was the change of `path` at `at`, after which the file hashes to `hash` (null: it is gone),
   * the user's save? (A document in an encoding other than UTF-8 saves bytes none of the hashes
   * match: its save is then an unattributed change, which only changes how a finding names it.)
   */
  isUserSave(path: string, at: number, hash: string | null): boolean {
    if (hash === null) {
      return false;
    }
    const list = this.saves.get(path) ?? [];
    let i = list.length - 1;
    for (; i >= 0; i--) {
      const s = list[i]!;
      if (Math.abs(at - s.at) < userSaveWindowMs) {
        s.hashes ??= s.text === undefined ? [] : [hashText(s.text), hashText('\ufeff' + s.text)];
        if (s.hashes.includes(hash)) {
          break;
        }
      }
    }
    if (i < 0) {
      return false;
    }
    // The file has held this save: the saves before it were written over. A change back to
    // what one of them held (an agent's `git checkout` a second after the next save) is not the
    // user's, as it was not when only the last save was kept.
    if (i > 0) {
      this.saves.set(path, list.slice(i));
    }
    return true;
  }

  private near(path: string, at: number): Save[] {
    return (this.saves.get(path) ?? []).filter((s) => Math.abs(at - s.at) < userSaveWindowMs);
  }

  private put(path: string, save: Save): void {
    // Forget saves no change can match any more, so the map holds only the last few seconds'.
    for (const [p, list] of this.saves) {
      const kept = list.filter((s) => save.at - s.at < userSaveWindowMs);
      if (kept.length === 0) {
        this.saves.delete(p);
      } else if (kept.length < list.length) {
        this.saves.set(p, kept);
      }
    }
    this.saves.set(path, [...(this.saves.get(path) ?? []), save]);
  }
}
