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

  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    for (const d of this.disposables.splice(0).reverse()) {
      d.dispose();
    }
  }
}
