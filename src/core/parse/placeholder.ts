/**
 * Results written by a repair step rather than by the tool: Amplifier's orphan repair,
 * our own repair, Claude Code's resume-time fill-ins. Real output never says these.
 */
const placeholderPatterns = [
  /^\s*\{?"?error"?\s*:\s*"unknown_error"/,
  /Tool execution was interrupted and no result was captured/i,
  // amplifier-foundation's fork repair (messages.py)
  /Tool execution interrupted by session fork/i,
  /no result was recorded/i,
  /^\s*\[Tool result missing/i,
  /^\s*<synthetic[ _-]?result/i,
];

/** The patterns above as two regexes (one per flag set): a text is tested twice, not six times. */
const anyPlaceholder = [
  new RegExp(placeholderPatterns.filter((p) => !p.ignoreCase).map((p) => `(?:${p.source})`).join('|')),
  new RegExp(placeholderPatterns.filter((p) => p.ignoreCase).map((p) => `(?:${p.source})`).join('|'), 'i'),
];

/** Placeholders are one short sentence; anything longer is real output and not worth the regexes. */
const maxPlaceholderLength = 400;

export function isPlaceholderText(text: string | undefined): boolean {
  if (text === undefined || text.length > maxPlaceholderLength) {
    return false;
  }
  return anyPlaceholder[0]!.test(text) || anyPlaceholder[1]!.test(text);
}

/** Placeholder check straight on a result's content, without joining a long output into one string. */
export function isPlaceholderContent(content: unknown): boolean {
  if (typeof content === 'string') {
    return isPlaceholderText(content);
  }
  if (Array.isArray(content)) {
    if (content.length !== 1) {
      return false;
    }
    const only: unknown = content[0];
    const text = typeof only === 'object' && only !== null ? (only as { text?: unknown }).text : undefined;
    return typeof text === 'string' && isPlaceholderText(text);
  }
  if (typeof content === 'object' && content !== null) {
    return isPlaceholderText(resultText(content));
  }
  return false;
}

/** The text of a tool result's content (a string or text blocks); undefined for anything else. */
export function resultText(content: unknown): string | undefined {
  if (typeof content === 'string') {
    return content;
  }
  if (Array.isArray(content)) {
    // One text block (most results, most prompts): its text, without an array to join.
    const only: unknown = content.length === 1 ? content[0] : undefined;
    if (typeof only === 'object' && only !== null && typeof (only as { text?: unknown }).text === 'string') {
      return (only as { text: string }).text;
    }
    const parts: string[] = [];
    for (const b of content) {
      if (typeof b === 'object' && b !== null && typeof (b as { text?: unknown }).text === 'string') {
        parts.push((b as { text: string }).text);
      }
    }
    return parts.length > 0 ? parts.join('\n') : undefined;
  }
  if (typeof content === 'object' && content !== null) {
    try {
      const s = JSON.stringify(content);
      return s.length <= 2000 ? s : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
