/**
 * Notification text that stays text, computed without `vscode` (unit-tested under node:test).
 *
 * VS Code turns `[label](href)` in the message of a (non-modal) notification into a link, for
 * `https:`, `file:` and `command:` hrefs, and opens it with commands allowed: a click on a
 * `command:` link runs that command with the arguments in its query. Our messages quote file
 * names, paths and error texts that a transcript, a hook payload or an agent chose (a Read of
 * `[Show diff](command:workbench.action.terminal.sendSequence?…)`), and there is no escape in
 * that syntax. A zero-width space between `]` and `(` keeps the text as it reads and breaks
 * the link.
 */

/** `message` with nothing a notification would render as a link. Our own messages hold no links. */
export function plainMessage(message: string): string {
  return message.replace(/\]\(/g, ']\u200b(');
}
