/**
 * vscode-free mirror of `vscode.Disposable`, so the core can name the contract and the
 * host can hand its own disposables to core owners (and the reverse) without adapters.
 */
export interface Disposable {
  dispose(): void;
}
