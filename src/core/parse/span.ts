import type { Span } from '../model/events';

export interface LineRef {
  lineNo: number;
  text: string;
}

export function lineSpan(raw: LineRef): Span {
  return { line: raw.lineNo, start: 0, end: raw.text.length };
}

/**
 * The span of a string value inside a JSON line: where `"value"` appears, preferably as the
 * value of `key`. Falls back to the whole line when the writer escaped it differently.
 */
export function valueSpan(raw: LineRef, value: string, key?: string): Span {
  const encoded = JSON.stringify(value);
  let at = -1;
  if (key !== undefined) {
    const keyed = raw.text.indexOf(`"${key}":${encoded}`);
    if (keyed !== -1) {
      at = keyed + key.length + 3;
    } else {
      const spaced = raw.text.indexOf(`"${key}": ${encoded}`);
      if (spaced !== -1) {
        at = spaced + key.length + 4;
      }
    }
  }
  if (at === -1) {
    at = raw.text.indexOf(encoded);
  }
  if (at === -1) {
    return lineSpan(raw);
  }
  // Inside the quotes: the id or path itself is what gets underlined.
  return { line: raw.lineNo, start: at + 1, end: at + encoded.length - 1 };
}

export function preview(text: string, max = 160): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? oneLine.slice(0, max - 1) + '…' : oneLine;
}
