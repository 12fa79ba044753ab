/**
 * An agent's settings file on disk, for `hooks install|uninstall` (the CLI and the extension):
 * read it, and write a planned change to it — only while it still holds the text the change
 * was planned from.
 */
import { promises as fsp } from 'node:fs';
import * as nodePath from 'node:path';
import type { InstallPlan } from '../core/hooks/install';
import { AgentGuardError, errnoCode, errorMessage } from '../core/lib/errors';

/**
 * The file's text, or undefined when there is none. A file that is there but cannot be read (no
 * permission, a folder by that name) throws: it may hold the hook and the user's other settings,
 * and taken for none, an install would write over them.
 */
export async function readSettings(file: string): Promise<string | undefined> {
  try {
    return await fsp.readFile(file, 'utf8');
  } catch (e) {
    const code = errnoCode(e);
    // ENOTDIR: a file where a folder of its path should be; no settings file there either.
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      return undefined;
    }
    // The message is the system's (it names the file where it can): callers say what they could not do.
    throw new AgentGuardError('io', errorMessage(e), { cause: e });
  }
}

/**
 * The text the file is to hold after `plan` (undefined: it goes). A file that is to go but is
 * a symbolic link keeps what is left of it instead: the link is the user's, and removing it
 * would leave our entries in its target, where the agents still read them.
 */
export async function plannedText(file: string, plan: InstallPlan): Promise<string | undefined> {
  if (plan.after !== undefined || plan.left === undefined) {
    return plan.after;
  }
  const stat = await fsp.lstat(file).catch(() => undefined);
  return stat?.isSymbolicLink() ? plan.left : undefined;
}

export type SettingsWrite = 'written' | 'removed' | 'changed-meanwhile';

/**
 * Writes `after` (undefined: removes the file, and the folder it leaves empty), unless the file
 * no longer holds `before`: it changed after the change was planned (the user, or an agent
 * saving a permission, while the preview waited for an answer), and writing would undo that.
 */
export async function writeSettings(file: string, before: string | undefined, after: string | undefined): Promise<SettingsWrite> {
  if ((await readSettings(file)) !== before) {
    return 'changed-meanwhile';
  }
  if (after === undefined) {
    await fsp.rm(file, { force: true });
    // The folder install made for it goes too, if nothing else is in it.
    await fsp.rmdir(nodePath.dirname(file)).catch(() => undefined);
    return 'removed';
  }
  await fsp.mkdir(nodePath.dirname(file), { recursive: true });
  await fsp.writeFile(file, after);
  return 'written';
}
