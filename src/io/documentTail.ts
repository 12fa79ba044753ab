import { createHash } from 'node:crypto';
import { existsSync, type Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { defaultMaxLineBytes } from '../core/parse/lineSplitter';
import { AgentGuardError } from '../core/lib/errors';
import { FileFollower, type FollowOptions } from './fileFollower';

/** One look at a document that differs from the last version taken. */
export interface DocumentLook {
  /** The whole document; undefined when it is past `maxBytes` and was not read. */
  bytes: Uint8Array | undefined;
  size: number;
  /** The file has been quiet for a while: this is what it holds, whole or not. */
  settled: boolean;
}

/** What a document reader feeds: the versions of a file its writer rewrites whole. */
export interface DocumentSink {
  /**
   * A new version, or what may be one. False: not taken, being no complete document and not
   * settled (its writer is mid-rewrite); the reader looks again at the next change, or when
   * asked to `settle()`.
   */
  version(look: DocumentLook): boolean;
  /** The file is gone (deleted, or renamed away). */
  gone(): void;
}

export interface DocumentTailOptions extends FollowOptions {
  /** Documents bigger than this are not read, only reported (the parser's limit for one record). */
  maxBytes?: number;
  /** A document whose file has not changed for this long (by its mtime) is settled as soon as it is read. */
  settleMs?: number;
}

/**
 * Before a read, after the change that asked for it: Gemini CLI rewrites its legacy session in
 * place (truncate, then write), so the first event of a rewrite comes while it is being written.
 */
const readDelayMs = 25;
/**
 * The wait after a read for the next one, as a multiple of what the last one cost (read, parse
 * and rules). Gemini CLI rewrites the whole document for every chunk of a reply it streams: a
 * large session rewritten non-stop then costs at most a fifth of a core, the latest version
 * being read each time.
 */
const paceFactor = 4;
const maxPaceMs = 10_000;
/** A look again this long after a burst of reads (see FileFollower): the last write of a rewrite is the one that matters. */
const followUpMs = 150;

interface Stamp {
  ino: number;
  dev: number;
  size: number;
  mtimeMs: number;
}

/**
 * Follows a file that its writer rewrites whole rather than appends to (Gemini CLI's legacy
 * `session-*.json`, one JSON document): each change is read as a new version of the whole
 * document and handed over whole, never as an append.
 *
 * - Bursts coalesce (FileFollower): changes during a read or the wait before it give one more
 *   read, of the latest version, and the wait grows with the document's cost (`paceFactor`).
 * - A version identical to the last one taken (same sha256) is not handed over again.
 * - A half-written document is handed over unsettled and, not taken, looked at again: on its
 *   next change, or settled by `settle()` once the file has been quiet (then it is what the file
 *   holds and is taken, broken or not).
 * - Only the last version's hash is kept, never its bytes.
 */
export class DocumentTail extends FileFollower {
  /** The last look (whether its version was taken): a change is a different stamp. */
  private looked: Stamp | undefined;
  /** sha256 of the last version taken; for one past `maxBytes`, its stamp instead. */
  private taken: string | undefined;
  private takenSize = 0;
  /** The last look found no complete document: `settle()` reads it as it stands. */
  private unsettled = false;
  /**
   * `settle()` was asked: the stamp of the half-written version it settles. Only that version
   * is taken as it stands; a file written since is not quiet, and is looked at as any other.
   */
  private settling: Stamp | undefined;
  private gone = false;
  private lastEnd = 0;
  private lastCost = 0;
  /** The wait for the next read, cut short by `dispose()`. */
  private turn: { timer: ReturnType<typeof setTimeout>; resolve: () => void } | undefined;
  private readonly maxBytes: number;
  private readonly settleMs: number;

  constructor(
    path: string,
    private readonly sink: DocumentSink,
    opts: DocumentTailOptions = {},
  ) {
    super(path, opts, followUpMs);
    this.maxBytes = opts.maxBytes ?? defaultMaxLineBytes;
    this.settleMs = opts.settleMs ?? 2_000;
  }

  /** Size of the last version taken. */
  get bytesRead(): number {
    return this.takenSize;
  }

  /** The last look found the document mid-rewrite, and nothing was taken since. */
  get isUnsettled(): boolean {
    return this.unsettled;
  }

  /** The file has been quiet: a document last seen mid-rewrite is taken as it stands now. */
  settle(): Promise<void> {
    if (!this.unsettled) {
      return Promise.resolve();
    }
    this.settling = this.looked;
    this.looked = undefined;
    return this.poke();
  }

  /** Hand the current version over even if it was taken already (its reader's state was dropped). */
  reread(): Promise<void> {
    this.looked = undefined;
    this.taken = undefined;
    return this.poke();
  }

  /** The watcher saw the file disappear. */
  override unlinked(): void {
    if (!this.gone) {
      this.gone = true;
      this.looked = undefined;
      this.taken = undefined;
      this.takenSize = 0;
      this.clearFollowUp();
      this.sink.gone();
    }
  }

  override dispose(): void {
    super.dispose();
    if (this.turn) {
      clearTimeout(this.turn.timer);
      this.turn.resolve();
      this.turn = undefined;
    }
  }

  protected override async readOnce(): Promise<void> {
    const start = performance.now();
    try {
      if (await this.look()) {
        this.lastCost = performance.now() - start;
      }
    } finally {
      this.lastEnd = performance.now();
    }
  }

  protected override waitTurn(): Promise<void> {
    const now = performance.now();
    const at = Math.max(now + readDelayMs, this.lastEnd + Math.min(maxPaceMs, this.lastCost * paceFactor));
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.turn = undefined;
        resolve();
      }, at - now);
      this.turn = { timer, resolve };
    });
  }

  /** One look; true when a version was handed over (read and run). */
  private async look(): Promise<boolean> {
    const info = await stat(this.path);
    if (!info.isFile()) {
      // Looked at again when it changes, like a file that failed to read.
      this.looked = { ino: info.ino, dev: info.dev, size: info.size, mtimeMs: info.mtimeMs };
      throw new AgentGuardError('io', `${this.path} is not a regular file`);
    }
    this.gone = false;
    const stamp: Stamp = { ino: info.ino, dev: info.dev, size: info.size, mtimeMs: info.mtimeMs };
    // A look that failed is tried again whatever the stamp says: permissions given back change
    // no size or mtime.
    if (this.looked && sameStamp(this.looked, stamp) && !this.failing) {
      return false;
    }
    this.looked = stamp;
    // The file's own time, against the wall clock (not an injected one).
    let settled = (this.settling !== undefined && sameStamp(this.settling, stamp)) || Date.now() - info.mtimeMs >= this.settleMs;
    this.settling = undefined;
    let bytes: Uint8Array | undefined;
    let id: string;
    if (info.size > this.maxBytes) {
      id = `${stamp.ino}:${stamp.size}:${stamp.mtimeMs}`;
    } else {
      bytes = await readFile(this.path);
      id = createHash('sha256').update(bytes).digest('hex');
      if (settled) {
        // The stat and the read are two steps: a rewrite begun between them (the file truncated
        // and half-written again) is no quiet file, whatever the stat said. `looked` keeps the
        // stamp from before the read, so the look after this one reads the file again.
        const after = await stat(this.path);
        settled = sameStamp(stamp, { ino: after.ino, dev: after.dev, size: after.size, mtimeMs: after.mtimeMs });
      }
    }
    if (id === this.taken) {
      // Rewritten as it was (or only touched), or back to the version taken after a half-written one.
      this.unsettled = false;
      return false;
    }
    const size = bytes?.length ?? info.size;
    if (this.sink.version({ bytes, size, settled })) {
      this.taken = id;
      this.takenSize = size;
      this.unsettled = false;
    } else {
      this.unsettled = true;
    }
    return true;
  }

  protected override get isGone(): boolean {
    return this.gone;
  }

  protected override followUpCheck(): (info: Stats | undefined) => boolean {
    const seen = this.looked;
    return (info) =>
      info === undefined
        ? // Gone: the watcher's unlink says so; a file back already is looked at.
          existsSync(this.path)
        : !seen || !sameStamp(seen, { ino: info.ino, dev: info.dev, size: info.size, mtimeMs: info.mtimeMs });
  }
}

function sameStamp(a: Stamp, b: Stamp): boolean {
  return a.ino === b.ino && a.dev === b.dev && a.size === b.size && a.mtimeMs === b.mtimeMs;
}
