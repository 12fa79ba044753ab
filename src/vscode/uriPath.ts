import type * as vscode from 'vscode';
import { upperDrive } from '../core/classify/paths';

/**
 * A file URI's path as the rest of the project writes it. `Uri.fsPath` lower-cases a Windows
 * drive letter (`c:\proj\a.ts`), while the transcripts, Node and the core write `C:\proj\a.ts`:
 * compared as they are, no finding, dirty buffer or session of a Windows machine matched the
 * editor's. Every path taken from a URI to be compared or looked up goes through here.
 */
export function pathOf(uri: vscode.Uri): string {
  return upperDrive(uri.fsPath);
}
