/**
 * What the editor guard tells the user about a burst of set-aside writes, computed without
 * `vscode` (unit-tested under node:test). One write gets its own notification with Compare /
 * Keep Mine / Take the Agent's; several arriving together (an agent's formatter or `sed -i`
 * over the files you have open) get one notification, not one each.
 */
import { plainMessage } from '../plainMessage';

/**
 * Writes set aside less than this many ms apart are told about together: each one is set aside
 * in turn (hashed, copied to the store), which on a busy machine can take longer than a fixed
 * window from the first would allow.
 */
export const noticeBatchMs = 400;
/** A burst is told about at the latest this long after its first write. */
export const noticeBatchMaxMs = 3000;

export interface SetAsideNotice {
  /** The file, as the user knows it (relative to the workspace). */
  name: string;
  /** The previous content was put back on disk (block mode). */
  restored: boolean;
}

/** The message of one notification for several set-aside writes (at least two). */
export function batchMessage(notices: readonly SetAsideNotice[]): string {
  const names = [...new Set(notices.map((n) => n.name))];
  const shown = names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0];
  const restored = notices.filter((n) => n.restored).length;
  const back = restored === notices.length ? ' The files were put back as they were.' : restored > 0 ? ` ${restored} of them were put back as they were.` : '';
  // The names are the agents' choice: nothing in them may become a link of the notification.
  return plainMessage(`Agents wrote ${notices.length} times over files open in your editors (${shown}). Their versions were set aside; your editors keep yours.${back}`);
}
