/**
 * What a session is called wherever it is shown (the sessions view, the timeline): its title
 * when the agent wrote one (a summary), else its first prompt, else its id. One function, so
 * the timeline's tab and the sessions view cannot name one session differently.
 */
export function sessionTitle(s: { title?: string | undefined; firstPrompt?: string | undefined; sessionId?: string | undefined }): string | undefined {
  const title = nonBlank(s.title) ?? nonBlank(s.firstPrompt) ?? nonBlank(s.sessionId);
  return title?.replace(bidiControls, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/**
 * Directional formatting characters. VS Code draws a tab's title, a tree item's label and a
 * picker's item with them obeyed, so a prompt holding one would read in another order than it is
 * (`fix \u202egnp.ts` as `fix st.png`): shown as escapes, as the timeline's rows and the CLI show them.
 */
const bidiControls = /[\u202a-\u202e\u2066-\u2069]/g;

/** Editor tabs have room for a few words: longer titles end in an ellipsis, on one line. */
const maxTabTitle = 40;

/** A title short enough for an editor tab. */
export function tabTitle(title: string, max = maxTabTitle): string {
  const oneLine = title.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? `${oneLine.slice(0, max - 1).trimEnd()}…` : oneLine;
}

function nonBlank(s: string | undefined): string | undefined {
  return s !== undefined && s.trim() !== '' ? s : undefined;
}
