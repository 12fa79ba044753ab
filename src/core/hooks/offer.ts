/**
 * Which workspace folders to offer the guard hooks to, and what the offer says. The offer is
 * made once per folder: the folders whose offer was answered are remembered in the
 * workspace's state.
 */

/** A workspace folder as the offer sees it. */
export interface OfferCandidate {
  path: string;
  name: string;
  /** The agents' sessions of this folder were found. */
  hasSessions: boolean;
  /** Some agent's settings in the folder already hold a hook of ours (in any state). */
  hasHooks: boolean;
}

/**
 * The folders whose offer was answered, from the stored value: a list of folder paths. Before
 * the offer was made per folder it was `true`, and it was made for the first folder only.
 */
export function answeredFolders(stored: unknown, firstFolder: string | undefined): Set<string> {
  if (stored === true) {
    return new Set(firstFolder !== undefined ? [firstFolder] : []);
  }
  return new Set(Array.isArray(stored) ? stored.filter((p): p is string => typeof p === 'string') : []);
}

/** Every folder with sessions and no hook of ours whose offer was not answered. */
export function foldersToOffer<T extends OfferCandidate>(folders: readonly T[], answered: ReadonlySet<string>): T[] {
  return folders.filter((f) => f.hasSessions && !f.hasHooks && !answered.has(f.path));
}

/** One offer for all of them: "this workspace" when it is the window's only folder, else their names. */
export function offerMessage(folders: readonly Pick<OfferCandidate, 'name'>[], onlyFolder: boolean): string {
  const where = onlyFolder ? 'this workspace' : folders.length === 1 ? `the folder ${folders[0]!.name}` : `the folders ${listNames(folders.map((f) => f.name))}`;
  return `Agent Session Guard can block stale writes before they land: install its hook for Claude Code, Gemini CLI and Codex in ${where}?`;
}

function listNames(names: readonly string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]!}`;
}
