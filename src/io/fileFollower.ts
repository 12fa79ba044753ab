import type { Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import { errnoCode } from '../core/lib/errors';

export interface FollowOptions {
  onError?: (e: unknown) => void;
  /** After every burst of reads, whoever started it (a watcher event or the follower's own look again). */
  onCaughtUp?: () => void;
}

/** A failing file is looked at again at most 2^this follow-up delays apart (150 ms: about 40 s). */
const maxBackOffSteps = 8;

/**
 * Follows one file that its writer keeps changing: what `FileTail` (a file appended to) and
 * `DocumentTail` (a file rewritten whole) share, whatever each reads on a change.
 *
 * - Reads are serialised: `poke()` while a read is running schedules one more read after it,
 *   so bursts of change events coalesce and no two reads of one file ever overlap.
 * - A read that fails for the file being gone (ENOENT) is `unlinked()`; any other failure is
 *   reported once, not again while the file keeps failing the same way (a file that stays
 *   unreadable, its permissions taken away, otherwise failed at every follow-up look, and
 *   `watch` printed a warning seven times a second until it became readable).
 * - After each burst of reads it looks once more, `followUpMs` later and backing off while the
 *   file fails: chokidar drops a change event that comes within 50 ms of the previous one for
 *   the same file (no trailing event), and watchers coalesce quick successive renames, so a
 *   missed event must not leave the reader behind the file.
 * - `suspend()` makes pokes (the watcher's, the follow-up look) do nothing until `resume()`:
 *   whoever suspends owns the catching up.
 */
export abstract class FileFollower {
  private running: Promise<void> | undefined;
  private again = false;
  private suspended = false;
  private followUp: ReturnType<typeof setTimeout> | undefined;
  /** Reads that failed in a row, and the last one's error code (see the class comment). */
  private failures = 0;
  private failedWith: string | undefined;
  protected disposed = false;
  private readonly onError: (e: unknown) => void;
  private readonly onCaughtUp: () => void;

  protected constructor(
    readonly path: string,
    opts: FollowOptions,
    private readonly followUpMs: number,
  ) {
    this.onError = opts.onError ?? (() => {});
    this.onCaughtUp = opts.onCaughtUp ?? (() => {});
  }

  /** A read is running or scheduled. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /**
   * The last read failed (the file is there but cannot be read: its permissions, a FIFO or a
   * folder in its place). What was read before is all that is known of the file, not the news
   * that the file no longer holds it: whoever reads it again from the start waits for a read
   * that succeeds before taking anything back.
   */
  get failing(): boolean {
    return this.failures > 0;
  }

  /** Pokes are ignored until `resume()`; what was read is remembered. */
  suspend(): void {
    this.suspended = true;
    this.clearFollowUp();
  }

  resume(): void {
    this.suspended = false;
  }

  get isSuspended(): boolean {
    return this.suspended;
  }

  /** Something may have changed: read what is new. Resolves when the file is caught up. */
  poke(): Promise<void> {
    if (this.disposed || this.suspended) {
      return Promise.resolve();
    }
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = this.loop().finally(() => {
      this.running = undefined;
      if (!this.disposed) {
        this.onCaughtUp();
      }
      this.scheduleFollowUp();
      this.afterReads();
    });
    return this.running;
  }

  dispose(): void {
    this.disposed = true;
    this.clearFollowUp();
  }

  /** The watcher saw the file disappear (also called when a read finds it gone). */
  abstract unlinked(): void;

  /** One read of what changed. Throws what the file system threw. */
  protected abstract readOnce(): Promise<void>;

  /** The file is known to be gone: no follow-up look until it is poked again. */
  protected abstract get isGone(): boolean;

  /**
   * What the follow-up look compares with, taken when it is scheduled: given the file's stat
   * then (undefined when the stat failed), should it read again?
   */
  protected abstract followUpCheck(): (info: Stats | undefined) => boolean;

  /** A wait before each read (the reader's pacing); changes during it are in the read that follows. */
  protected waitTurn(): Promise<void> | undefined {
    return undefined;
  }

  /** After each burst of reads and its follow-up look are settled. */
  protected afterReads(): void {}

  protected clearFollowUp(): void {
    if (this.followUp) {
      clearTimeout(this.followUp);
      this.followUp = undefined;
    }
  }

  private async loop(): Promise<void> {
    do {
      const turn = this.waitTurn();
      if (turn) {
        await turn;
        if (this.disposed || this.suspended) {
          return;
        }
      }
      // What changed before this read is in it.
      this.again = false;
      try {
        await this.readOnce();
        this.failures = 0;
        this.failedWith = undefined;
      } catch (e) {
        const code = errnoCode(e);
        if (code === 'ENOENT') {
          this.unlinked();
        } else {
          this.failures++;
          const what = code ?? String(e);
          if (what !== this.failedWith) {
            this.failedWith = what;
            this.onError(e);
          }
        }
      }
    } while (this.again && !this.disposed);
  }

  private scheduleFollowUp(): void {
    if (this.disposed || this.suspended || this.followUpMs <= 0 || this.followUp || this.isGone) {
      return;
    }
    const changed = this.followUpCheck();
    this.followUp = setTimeout(() => {
      this.followUp = undefined;
      void stat(this.path).then(
        (info) => {
          if (changed(info)) {
            void this.poke();
          }
        },
        () => {
          if (changed(undefined)) {
            void this.poke();
          }
        },
      );
    }, this.followUpMs * 2 ** Math.min(this.failures, maxBackOffSteps));
    this.followUp.unref?.();
  }
}
