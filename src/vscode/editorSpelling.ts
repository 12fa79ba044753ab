/**
 * A workspace file's path as the editor names it, computed without `vscode` (unit-tested under
 * node:test). Agents record real paths (see workspaceSpellings in src/io/discovery.ts); a
 * workspace opened through a symbolic link has its editors, and so the diagnostics a user sees
 * in them, under the path it was opened as. A finding about /disk/app/src/a.ts goes on
 * /home/me/app/src/a.ts when the workspace is /home/me/app, a link to /disk/app.
 */
import * as nodePath from 'node:path';
import { upperDrive } from '../core/classify/paths';

export interface FolderSpelling {
  /** The workspace folder as it was opened. */
  asOpened: string;
  /** Its real path (the same where no link is in the way). */
  real: string;
}

export function editorSpelling(path: string, folders: readonly FolderSpelling[]): string {
  const p = upperDrive(path);
  for (const f of folders) {
    const real = upperDrive(f.real);
    if (real === upperDrive(f.asOpened)) {
      continue;
    }
    if (p === real) {
      return f.asOpened;
    }
    const prefix = real.endsWith(nodePath.sep) ? real : real + nodePath.sep;
    if (p.startsWith(prefix)) {
      return nodePath.join(f.asOpened, p.slice(prefix.length));
    }
  }
  return path;
}
