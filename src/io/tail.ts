import { createHash, type Hash } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync, statSync, watch, type FSWatcher, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import { AgentGuardError } from '../core/lib/errors';
import { FileFollower, type FollowOptions } from './fileFollower';
import { acquireReadBuffer, readBufferBytes, releaseReadBuffer } from './readBuffers';

/** What a tail reader feeds: the bytes appended since the last read, in order. */
export interface TailSink {
  push(bytes: Uint8Array): void;
  /**
   * The file was truncated or replaced by different content: everything read so far is void.
   * The sink starts over; the tail then delivers the new content from byte 0.
   */
  reset(reason: 'truncated' | 'replaced' | 'recreated'): void;
  /** The file is gone (deleted, or renamed away). */
  gone(): void;
}

export type TailState = 'reading' | 'idle' | 'gone';

export interface TailOptions extends FollowOptions {
  /** After each burst of reads, look once more this much later (see FileFollower); 0: never. */
  followUpMs?: number;
  /**
   * Also watch the file itself with `fs.watch` and read on its events directly. The directory
   * watcher (chokidar) stats the file before it reports a change and drops changes within 50 ms
   * of the previous one; on a busy machine that is most of the time from an append to its
   * finding. The inotify watch is the one chokidar already holds on the file (the kernel gives
   * one per inode), so this costs no watch descriptor. Off while suspended.
   */
  directWatch?: boolean;
}

/**
 * The last bytes read, kept to tell an append from a rewrite in place: an editor saving the
 * file (same inode, as long or longer) leaves no other trace, and reading on from the old
 * offset would give the middle of some line.
 */
const guardBytes = 64;

/** Appends up to this size are read synchronously (see `readSmall`); at most one read buffer. */
const syncReadBytes = Math.min(256 * 1024, readBufferBytes);

/**
 * Tails one append-only file by byte offset: reads only what was appended, detects
 * truncation (size below the offset) and replacement (a new inode — a rename over the file,
 * Amplifier's temp-and-rename rewrite, Codex segment rotation). A replacement whose first
 * bytes equal everything read so far is treated as an append (no re-read, nothing re-reported);
 * otherwise the sink is reset and the file read again from the start. When it reads (serialised,
 * coalescing bursts, with a follow-up look) is FileFollower's.
 */
export class FileTail extends FileFollower {
  private offset = 0;
  private ino: number | undefined;
  private dev: number | undefined;
  /** sha256 of bytes [0, offset): lets a replaced file be compared with what was read. */
  private prefix: Hash = createHash('sha256');
  /** The bytes just before `offset` (up to guardBytes), as read. */
  private lastBytes = new Uint8Array(0);
  private state: TailState = 'idle';
  private lastMtimeMs = 0;
  private watcher: FSWatcher | undefined;
  private readonly directWatch: boolean;

  constructor(
    path: string,
    private readonly sink: TailSink,
    opts: TailOptions = {},
  ) {
    super(path, opts, opts.followUpMs ?? 150);
    this.directWatch = opts.directWatch ?? false;
  }

  get bytesRead(): number {
    return this.offset;
  }

  get status(): TailState {
    return this.state;
  }

  /**
   * Stop reading until `resume()`: pokes (the watcher's, the tail's own follow-up look) are
   * ignored. Whoever suspends owns the catching up: offset, inode and prefix are kept, so the
   * first read after `resume()` still detects a truncation or a replacement.
   */
  override suspend(): void {
    super.suspend();
    this.unwatch();
  }

  protected override get isGone(): boolean {
    return this.state === 'gone';
  }

  protected override followUpCheck(): (info: Stats | undefined) => boolean {
    const seen = { offset: this.offset, ino: this.ino, mtime: this.lastMtimeMs };
    // A failed stat reads again: a file gone is then unlinked, one unreadable counts as failing.
    return (info) => info === undefined || info.size !== seen.offset || info.ino !== seen.ino || info.mtimeMs !== seen.mtime;
  }

  /** (Re-)arms the direct watch after a read: a replaced file is a new inode to watch. */
  protected override afterReads(): void {
    if (!this.directWatch || this.watcher || this.disposed || this.isSuspended || this.state === 'gone' || this.ino === undefined) {
      return;
    }
    try {
      const w = watch(this.path, { persistent: false }, (event) => {
        if (event === 'rename') {
          // Renamed away, deleted or replaced: this watch follows the old inode. A file that is
          // there again is read now (and watched anew); a deletion is the directory watcher's to
          // report. Declaring the file gone from here, ahead of chokidar, would race its own
          // handling of a quick delete-and-re-create, which it may then never report.
          this.unwatch();
          if (!existsSync(this.path)) {
            return;
          }
        }
        void this.poke();
      });
      w.on('error', () => this.unwatch());
      this.watcher = w;
    } catch {
      // Gone, or out of watches: the directory watcher still reports changes.
    }
  }

  private unwatch(): void {
    this.watcher?.close();
    this.watcher = undefined;
  }

  /** The watcher saw the file disappear. */
  override unlinked(): void {
    this.unwatch();
    if (this.state !== 'gone') {
      this.state = 'gone';
      this.offset = 0;
      this.ino = undefined;
      this.prefix = createHash('sha256');
      this.lastBytes = new Uint8Array(0);
      this.sink.gone();
    }
  }

  override dispose(): void {
    super.dispose();
    this.unwatch();
  }

  protected override async readOnce(): Promise<void> {
    // Synchronous for the reason given at `readSmall`: a stat is microseconds.
    const info = statSync(this.path);
    if (!info.isFile()) {
      // Never opened: a FIFO's open would block until a writer came.
      throw new AgentGuardError('io', `${this.path} is not a regular file`);
    }
    /** Opened to check an append's guard bytes, then read from by `readSmall`: one open per append. */
    let fd: number | undefined;
    try {
      if (this.state === 'gone') {
        this.state = 'idle';
        this.sink.reset('recreated');
      } else if (this.ino !== undefined && (info.ino !== this.ino || info.dev !== this.dev)) {
        // Replaced: continue only if the new file begins with exactly what was read.
        if (!(await this.samePrefix(info.size))) {
          this.restart('replaced');
        }
      } else if (info.size < this.offset) {
        this.restart('truncated');
      } else if (info.size === this.offset && this.offset > 0 && info.mtimeMs !== this.lastMtimeMs) {
        // Written since, and no longer: rewritten in place with as many bytes (an editor's save
        // of a one-word change), or only touched. Nothing else tells the two apart: an
        // append-only file changes size whenever it is written.
        if (!(await this.samePrefix(info.size))) {
          this.restart('replaced');
        }
      } else if (info.size > this.offset) {
        fd = openSync(this.path, 'r');
        if (!this.endsAsRead(fd)) {
          // Rewritten in place (an editor's save): what was read is no longer the file's start.
          this.restart('replaced');
        }
      }
      this.ino = info.ino;
      this.dev = info.dev;
      this.lastMtimeMs = info.mtimeMs;
      if (info.size <= this.offset) {
        return;
      }
      this.state = 'reading';
      if (info.size - this.offset <= syncReadBytes) {
        try {
          fd ??= openSync(this.path, 'r');
          this.readSmall(fd, info.size);
        } finally {
          this.state = 'idle';
        }
        return;
      }
    } finally {
      if (fd !== undefined) {
        closeSync(fd);
      }
    }
    const handle = await open(this.path, 'r');
    const buf = acquireReadBuffer();
    try {
      // Read to the current end, including bytes appended while reading.
      for (;;) {
        const { bytesRead } = await handle.read(buf, 0, buf.length, this.offset);
        if (bytesRead === 0 || this.disposed) {
          break;
        }
        const chunk = buf.subarray(0, bytesRead);
        this.prefix.update(chunk);
        this.offset += bytesRead;
        this.keepLast(chunk);
        this.sink.push(chunk);
      }
      if (this.offset !== info.size && !this.disposed) {
        // Read on past the stat: its mtime is older than the bytes read, and would make the next
        // look take the file for one rewritten in place with as many bytes (and hash it whole).
        const end = await handle.stat();
        if (end.size === this.offset) {
          this.lastMtimeMs = end.mtimeMs;
        }
      }
    } finally {
      releaseReadBuffer(buf);
      await handle.close();
      this.state = 'idle';
    }
  }

  /**
   * An append of a few KB — the live case — read in one go, synchronously: from the page
   * cache that takes microseconds, where three queued round trips through libuv's thread
   * pool (open, read, close) take milliseconds on a busy machine, and the finding waits.
   */
  private readSmall(fd: number, size: number): void {
    const buf = acquireReadBuffer();
    try {
      const want = size - this.offset;
      let got = 0;
      while (got < want) {
        const n = readSync(fd, buf, got, want - got, this.offset + got);
        if (n === 0) {
          break;
        }
        got += n;
      }
      if (got > 0 && !this.disposed) {
        const chunk = buf.subarray(0, got);
        this.prefix.update(chunk);
        this.offset += got;
        this.keepLast(chunk);
        this.sink.push(chunk);
      }
    } finally {
      releaseReadBuffer(buf);
    }
    // Bytes appended after the stat are read by the next poke (the watcher's, or the follow-up look).
  }

  private restart(reason: 'truncated' | 'replaced'): void {
    this.offset = 0;
    this.prefix = createHash('sha256');
    this.lastBytes = new Uint8Array(0);
    this.sink.reset(reason);
  }

  /**
   * Copied: the chunk is a view of a read buffer that is reused. (Not `chunk.slice()`: on a Node
   * Buffer, slice is a view too.)
   */
  private keepLast(chunk: Uint8Array): void {
    if (chunk.length >= guardBytes) {
      this.lastBytes = new Uint8Array(chunk.subarray(chunk.length - guardBytes));
      return;
    }
    const joined = new Uint8Array(Math.min(guardBytes, this.lastBytes.length + chunk.length));
    const fromOld = joined.length - chunk.length;
    joined.set(this.lastBytes.subarray(this.lastBytes.length - fromOld), 0);
    joined.set(chunk, fromOld);
    this.lastBytes = joined;
  }

  /** Does the file still hold, just before `offset`, the bytes read there? (A small synchronous read.) */
  private endsAsRead(fd: number): boolean {
    const want = this.lastBytes;
    if (want.length === 0) {
      return true;
    }
    const got = new Uint8Array(want.length);
    const n = readSync(fd, got, 0, want.length, this.offset - want.length);
    return n === want.length && Buffer.compare(got, want) === 0;
  }


  private async samePrefix(newSize: number): Promise<boolean> {
    if (newSize < this.offset) {
      return false;
    }
    const expected = this.prefix.copy().digest('hex');
    const h = createHash('sha256');
    const handle = await open(this.path, 'r');
    const buf = acquireReadBuffer();
    try {
      let pos = 0;
      while (pos < this.offset) {
        const { bytesRead } = await handle.read(buf, 0, Math.min(buf.length, this.offset - pos), pos);
        if (bytesRead === 0) {
          return false;
        }
        h.update(buf.subarray(0, bytesRead));
        pos += bytesRead;
      }
    } finally {
      releaseReadBuffer(buf);
      await handle.close();
    }
    return h.digest('hex') === expected;
  }
}
