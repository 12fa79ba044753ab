/**
 * What a session is called wherever it is shown (the sessions view, the timeline): its title
 * when the agent wrote one (a summary), else its first prompt, else its id. One function, so
 * the timeline's tab and the sessions view cannot name one session differently.
 */
export function sessionTitle(s: { title?: string | undefined; firstPrompt?: string | undefined; sessionId?: string | undefined }): string | undefined {
  return nonBlank(s.title) ?? nonBlank(s.firstPrompt) ?? nonBlank(s.sessionId);
}

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
