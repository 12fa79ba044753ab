import type * as vscode from 'vscode';

/**
 * Owns disposables and disposes them once, newest first. Every `register*`/`on*`/`create*`
 * result goes into exactly one owner; a restartable part gets its own owner that is
 * disposed before it is rebuilt.
 */
export abstract class Disposable implements vscode.Disposable {
  private readonly disposables: vscode.Disposable[] = [];
  private disposed = false;

  protected register<T extends vscode.Disposable>(value: T): T {
    if (this.disposed) {
      value.dispose();
    } else {
      this.disposables.push(value);
    }
    return value;
  }

  protected get isDisposed(): boolean {
    return this.disposed;
  }

  /**
   * For a constructor that throws after registering: the caller never gets the object, so
   * nothing else could dispose what it registered. Disposes it and throws `e` again, the error
   * that says what went wrong (not one from the cleaning up after it).
   */
  protected abandon(e: unknown): never {
    try {
      this.dispose();
    } catch {
      // `e` is the one to report; everything was still disposed (see dispose).
    }
    throw e;
  }

  /** Disposes everything, newest first, even past one that throws; then throws the first such error. */
  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    let failed: { error: unknown } | undefined;
    for (const d of this.disposables.splice(0).reverse()) {
      try {
        d.dispose();
      } catch (e) {
        failed ??= { error: e };
      }
    }
    if (failed) {
      throw failed.error;
    }
  }
}
