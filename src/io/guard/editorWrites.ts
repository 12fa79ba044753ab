import { createHash } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describeError, type Logger } from '../../core/lib/logger';
import { describeAuthor } from '../../core/rules/support/author';
import { ipynbHoldsCells, type NotebookCellText } from '../../core/guard/notebookCells';
import type { TreeChange, WorkTree } from '../workTree';

export type EditorGuardMode = 'block' | 'warn' | 'off';

/** One version set aside by the editor guard. */
export interface QuarantineEntry {
  /** sha256 of the content: the blob's name. */
  id: string;
  /** The workspace file it was written to. */
  path: string;
  /** Epoch ms the write was seen. */
  at: number;
  /** Who wrote it, in words ("session 1f2e…", "an unattributed process"). */
  author: string;
  bytes: number;
  /** Why it was set aside. */
  reason: 'dirty-buffer' | 'stale-write';
  /** The version the editor guard put back on disk, if it did (block mode). */
  restoredHash?: string;
}

/** Where set-aside versions go (the host's quarantine). */
export interface SetAsideStore {
  /** Stores the bytes (read back to be sure) without listing them yet. */
  keep(content: Uint8Array, path: string): Promise<{ id: string; bytes: number }>;
  /** Lists a kept version. */
  record(entry: QuarantineEntry): Promise<void>;
}

/** What the guard needs of a document open in an editor: a text document, or a notebook. */
export type OpenDocument = OpenText | OpenNotebook;

/** A text document: its buffer is its file's text. */
export interface OpenText {
  readonly kind?: undefined;
  readonly isDirty: boolean;
  getText(): string;
}

/**
 * A notebook open in the notebook editor. Its buffer is cells, not its file's bytes: the
 * editor's save of it is recognised by the cells the file holds, read as a Jupyter `.ipynb`'s,
 * or by what the host saw the editor write; and a save the host could not check (any save of a
 * notebook of another format) makes the guard unsure: it does not put the file back (see judge).
 */
export interface OpenNotebook {
  readonly kind: 'notebook';
  readonly isDirty: boolean;
  /** Its cells as the editor holds them now. */
  cells(): readonly NotebookCellText[];
  /** Did the editor save it near `at` and the file then hash to `hash` (the host read it back and found the editor's cells)? */
  isSavedAs(hash: string, at: number): boolean;
  /** Did the editor begin or finish a save of it near `at`, whatever it wrote? */
  savedNear(at: number): boolean;
}

/** The working tree as the guard uses it. */
export type GuardedTree = Pick<WorkTree, 'track' | 'lastSeen'>;

/** A write set aside: what the host tells the user. */
export interface SetAside {
  entry: QuarantineEntry;
  /** The previous content was put back on disk. */
  restored: boolean;
  /** Putting it back was tried and failed. */
  restoreError?: unknown;
}

/**
 * How long a written file must stay the same before its version is taken as the writer's
 * whole write: longer than the gaps within one write (a truncation and its content, the
 * chunks of a stream), short next to how fast the user is told.
 */
const defaultQuietMs = 100;
/** A file still changing after this many quiet periods is taken as it is then (the put-back still checks it). */
const maxQuietRounds = 20;

/**
 * How long a change of a notebook waits for the host to have read a save of it back
 * (OpenNotebook.isSavedAs) before it is taken for another writer's: the save event can reach the
 * extension well after the file changed (150 ms was seen with the extension host busy with the
 * edits of auto-save while typing). A write into a notebook is put back this much later.
 */
const saveReadBackMs = 1000;

/** Files larger than this are not kept in memory to be put back; the guard then only warns. */
export const maxBaselineBytes = 5 * 1024 * 1024;

/**
 * The editor guard's handling of writes, without the editor: which write conflicts with an
 * open document, keeping the agent's version and putting the previous content back. The host
 * (src/vscode/guard/editorGuard.ts) feeds it the editor's documents and tells the user.
 */
export class EditorWrites {
  /** The bytes on disk of each open file, as of when it was opened, saved or reverted. */
  private readonly baselines = new Map<string, Uint8Array>();
  /**
   * Per file, the content the guard itself last put back: a change to it is not an agent's.
   * Kept until the file's version is taken again (`remember`), not dropped at the first change
   * that matches: a file in two working trees (a folder nested in another of the window) is
   * reported by each, and the second report of the put-back was set aside as an agent's write.
   */
  private readonly ownWrites = new Map<string, string>();
  /** Per file, the change being judged (see onChange). */
  private readonly judging = new Map<string, Promise<void>>();

  constructor(
    private mode: EditorGuardMode,
    private readonly store: SetAsideStore,
    private readonly log: Logger,
    /** The document open in an editor for a path (file scheme only), if any. */
    private readonly documentAt: (path: string) => OpenDocument | undefined,
    /** `quietMs`: see defaultQuietMs (tests shorten or lengthen it). */
    private readonly opts: { quietMs?: number } = {},
  ) {}

  setMode(mode: EditorGuardMode): void {
    this.mode = mode;
  }

  get isOff(): boolean {
    return this.mode === 'off';
  }

  /** Keeps the file's disk version (to put back) and has the tree watch it. */
  async remember(tree: GuardedTree, path: string): Promise<void> {
    if (this.mode === 'off') {
      return;
    }
    await tree.track(path);
    this.ownWrites.delete(path);
    try {
      const info = await fsp.stat(path);
      if (info.size <= maxBaselineBytes) {
        this.baselines.set(path, await fsp.readFile(path));
      } else {
        // The version kept before is older than what is on disk now: put back, it would
        // replace the file's newer content.
        this.baselines.delete(path);
      }
    } catch {
      this.baselines.delete(path);
    }
  }

  /** Is the file's disk version kept? */
  remembers(path: string): boolean {
    return this.baselines.has(path);
  }

  /** The document was closed. */
  forget(path: string): void {
    this.baselines.delete(path);
    this.ownWrites.delete(path);
  }

  /**
   * A tracked file changed: when the write conflicts with an open document, keeps the
   * written version and (in block mode) puts the previous content back. Returns what was
   * set aside, or undefined when nothing was.
   */
  onChange(tree: GuardedTree, c: TreeChange): Promise<SetAside | undefined> {
    // One change of a file at a time, in the order the tree saw them: judged side by side,
    // two changes of one write (the truncation, then the content) both read the finished
    // write and set it aside twice, and both put the file back.
    const run = (this.judging.get(c.path) ?? Promise.resolve()).then(() => this.judge(tree, c));
    const done = run.then(
      () => undefined,
      () => undefined,
    );
    this.judging.set(c.path, done);
    void done.then(() => {
      if (this.judging.get(c.path) === done) {
        this.judging.delete(c.path);
      }
    });
    return run;
  }

  private async judge(tree: GuardedTree, c: TreeChange): Promise<SetAside | undefined> {
    if (this.mode === 'off' || c.hash === null) {
      return undefined;
    }
    if (this.ownWrites.get(c.path) === c.hash) {
      return undefined;
    }
    const doc = this.documentAt(c.path);
    if (!doc) {
      return undefined;
    }
    if (c.by.kind === 'user' || (doc.kind === 'notebook' && c.hash !== null && doc.isSavedAs(c.hash, c.at))) {
      await this.remember(tree, c.path);
      return undefined;
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
      await this.remember(tree, c.path);
      return undefined;
    }
    let agentVersion: Uint8Array;
    try {
      agentVersion = await this.quietContent(c.path);
    } catch (e) {
      this.log.warn(`[editor-guard] ${c.path} changed but cannot be read: ${String(e)}`);
      return undefined;
    }
    if (this.ownWrites.get(c.path) === sha256(agentVersion)) {
      // The guard has put the file back since this change was seen. The put-back is only
      // ever over the version just kept: what this change reported was that version, or a
      // write that version replaced. Judged again, the guard's own content would be set
      // aside as the agent's.
      return undefined;
    }
    if ((doc.isDirty && holdsBuffer(doc, agentVersion)) || (doc.kind === 'notebook' && (await this.savedByEditor(doc, agentVersion, c.at)))) {
      // The disk now holds exactly the buffer: the editor saved it (auto-save can land before
      // its save event reaches us). Or it holds what the host saw the editor save into a
      // notebook, whose cells changed since (the change seen may have been a part of that save,
      // or seen before the save was read back). Nothing is in conflict.
      await this.remember(tree, c.path);
      return undefined;
    }
    const author = describeAuthor(c.by);
    // The agent's version is stored before anything is put back: neither side is ever lost.
    const kept = await this.store.keep(agentVersion, c.path);
    const baseline = this.baselines.get(c.path);
    let restoredHash: string | undefined;
    let restoreError: unknown;
    if (this.mode === 'block' && baseline && doc.kind === 'notebook' && doc.savedNear(c.at)) {
      // The editor saved the notebook near this change, and what it wrote cannot be told from
      // the file (the cells it holds now are no longer the ones saved, or the save has not been
      // read back yet): this may be the user's own save. Put back, it would be undone; kept
      // aside and told about, nothing is lost.
      this.log.info(`[editor-guard] ${c.path} was saved by the editor near this change; not put back`);
    } else if (this.mode === 'block' && baseline && !(await this.holds(c.path, kept.id))) {
      // Only the version just kept is undone. Something wrote the file while it was being
      // kept: the rest of the agent's write (the watcher can look between the truncation and
      // the write), its next write, or the user saving. That version was never set aside, and
      // putting the old content back over it would lose it; its own change is judged next.
      this.log.info(`[editor-guard] ${c.path} changed again while its version was set aside; not put back`);
    } else if (this.mode === 'block' && baseline) {
      const hash = sha256(baseline);
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
    return { entry, restored, ...(restoreError !== undefined ? { restoreError } : {}) };
  }

  /**
   * The file's content once it stops changing. A write seen by the watcher may still be
   * going on: truncated and not written yet, or written in chunks. Kept then, the version set
   * aside was a part of the write, and the put-back landed before the writer's next bytes,
   * which then overwrote the start of the old content: neither version was left whole.
   */
  private async quietContent(path: string): Promise<Uint8Array> {
    const quietMs = this.opts.quietMs ?? defaultQuietMs;
    let content = await fsp.readFile(path);
    for (let i = 0; i < maxQuietRounds; i++) {
      await sleep(quietMs);
      const again = await fsp.readFile(path);
      if (Buffer.compare(again, content) === 0) {
        break;
      }
      content = again;
    }
    return content;
  }

  /**
   * Is this content what the editor saved into the notebook near `at`? A save is waited for
   * (see saveReadBackMs): judged before the host has read it back, the user's own save was set
   * aside as another writer's. Waited for even when no save of it is known yet: a save that
   * runs no save participants (Save without Formatting) has no `onWillSave…`, and its save event
   * can come after the change (in a remote window, a round trip later); with the cells edited
   * since, the file was put back over the user's save.
   */
  private async savedByEditor(doc: OpenNotebook, content: Uint8Array, at: number): Promise<boolean> {
    const hash = sha256(content);
    const step = this.opts.quietMs ?? defaultQuietMs;
    for (let waited = 0; !doc.isSavedAs(hash, at); waited += step) {
      if (waited >= saveReadBackMs) {
        return false;
      }
      await sleep(step);
    }
    return true;
  }

  /** Does the file hold exactly the content with this hash now? */
  private async holds(path: string, hash: string): Promise<boolean> {
    try {
      return sha256(await fsp.readFile(path)) === hash;
    } catch {
      return false;
    }
  }
}

/** Does the content on disk hold exactly what the document's buffer holds? */
function holdsBuffer(doc: OpenDocument, content: Uint8Array): boolean {
  if (doc.kind === 'notebook') {
    return ipynbHoldsCells(content, doc.cells());
  }
  return new TextDecoder().decode(content) === doc.getText();
}

function sha256(content: Uint8Array): string {
  return createHash('sha256').update(content).digest('hex');
}
