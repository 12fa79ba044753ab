/**
 * An agent's settings file on disk, for `hooks install|uninstall` (the CLI and the extension).
 */
import { promises as fsp } from 'node:fs';
import type { InstallPlan } from '../core/hooks/install';

/** The file's text; undefined when it cannot be read (there is none, most often). */
export async function readSettings(file: string): Promise<string | undefined> {
  try {
    return await fsp.readFile(file, 'utf8');
  } catch {
    return undefined;
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
