/**
 * Runs `fn` once, `delayMs` after the first of a burst of requests. Reading a session from
 * the start reports its findings one at a time; recomputing something that walks all
 * findings on each of them is quadratic (the status bar took 12 s of a blocked extension
 * host for 10,000 findings), while once per burst is linear. The views, the diagnostics and
 * the timeline panel batch their updates through it. (Here, not in src/core: it runs on the
 * clock and timers, which the pure core leaves to its hosts; it imports no `vscode`.)
 */
export class Coalescer {
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** With `quiet`: when the first request of the pending burst came. */
  private firstAt = 0;

  /**
   * `quiet.maxMs`: the burst ends when no request came for `delayMs` (each request restarts the
   * wait), but at most this long after its first request. Without it, `fn` runs `delayMs` after
   * the first request, however many follow.
   */
  constructor(
    private readonly fn: () => void,
    private readonly delayMs: number,
    private readonly quiet?: { maxMs: number },
  ) {}

  schedule(): void {
    if (this.timer !== undefined && this.quiet) {
      clearTimeout(this.timer);
      this.timer = undefined;
    } else if (this.timer === undefined) {
      this.firstAt = Date.now();
    }
    const delay = this.quiet ? Math.max(0, Math.min(this.delayMs, this.firstAt + this.quiet.maxMs - Date.now())) : this.delayMs;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.fn();
    }, delay);
  }

  /** Runs a pending request now. */
  flush(): void {
    if (this.timer) {
      this.cancel();
      this.fn();
    }
  }

  cancel(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  dispose(): void {
    this.cancel();
  }
}
