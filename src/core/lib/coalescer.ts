/**
 * Runs `fn` once, `delayMs` after the first of a burst of requests. Reading a session from
 * the start reports its findings one at a time; recomputing something that walks all
 * findings on each of them is quadratic (the status bar took 12 s of a blocked extension
 * host for 10,000 findings), while once per burst is linear. The views, the diagnostics and
 * the timeline panel batch their updates through it.
 */
export class Coalescer {
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly fn: () => void,
    private readonly delayMs: number,
  ) {}

  schedule(): void {
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.fn();
    }, this.delayMs);
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
