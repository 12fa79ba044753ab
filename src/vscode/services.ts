import type * as vscode from 'vscode';
import type { Logger } from '../core/lib/logger';
import type { DiagnosticsPublisher } from './diagnostics';
import type { MonitorScope } from './monitors';

/** What commands and providers may use: passed in, never imported as globals. */
export interface Services {
  readonly log: vscode.LogOutputChannel & Logger;
  readonly diagnostics: DiagnosticsPublisher;
  /** Where the extension is installed (its packaged files, e.g. the rule documentation). */
  readonly extensionUri: vscode.Uri;
  /** The current monitors (they are rebuilt when settings change). */
  scope(): MonitorScope | undefined;
  /**
   * A workspace file's path as the editor names it (see editorSpelling): agents record real
   * paths, and opening one under a folder opened through a link would give a second editor of
   * the same file, beside the one holding the user's changes and our diagnostics.
   */
  editorPath(path: string): string;
}
