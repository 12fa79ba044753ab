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
 * value of `key` (`"key":"value"`, else `"key": "value"`). Falls back to the first `"value"`
 * anywhere, and to the whole line when the writer escaped it differently.
 */
export function valueSpan(raw: LineRef, value: string, key?: string): Span {
  const text = raw.text;
  if (!plainJsonString(value)) {
    return encodedValueSpan(raw, JSON.stringify(value), key);
  }
  // The value needs no escaping, so `"value"` is its JSON spelling: look for `value"` and check
  // the quote and key before it, rather than building the keyed patterns. One pass over the
  // occurrences finds the first of each kind, in the order they are preferred. (Not the bare
  // value: it may occur at nearly every position of a long line, `aaa…` in `aaaa…`, each found
  // in as many steps as it is long. `value"` cannot overlap itself, the value holding no quote,
  // and starts with a rarer character than `"value"` does in JSON.)
  const len = value.length;
  const closed = `${value}"`;
  let firstQuoted = -1;
  let firstSpaced = -1;
  let from = 1;
  for (;;) {
    const at = text.indexOf(closed, from);
    if (at === -1) {
      break;
    }
    from = at + len + 1;
    if (text.charCodeAt(at - 1) !== quote) {
      continue;
    }
    if (firstQuoted === -1) {
      firstQuoted = at;
      if (key === undefined) {
        break;
      }
    }
    if (key !== undefined) {
      if (keyBefore(text, at - 1, key, false)) {
        return { line: raw.lineNo, start: at, end: at + len };
      }
      if (firstSpaced === -1 && keyBefore(text, at - 1, key, true)) {
        firstSpaced = at;
      }
    }
  }
  const at = firstSpaced !== -1 ? firstSpaced : firstQuoted;
  if (at === -1) {
    return lineSpan(raw);
  }
  return { line: raw.lineNo, start: at, end: at + len };
}

const quote = 0x22;

/** Is `"key":` (or `"key": ` when `spaced`) right before the opening quote at `q`? */
function keyBefore(text: string, q: number, key: string, spaced: boolean): boolean {
  let i = q - 1;
  if (spaced) {
    if (text.charCodeAt(i) !== 0x20) {
      return false;
    }
    i--;
  }
  if (text.charCodeAt(i) !== 0x3a) {
    return false;
  }
  // i - 1 is the closing quote of the key, and the key ends right before it.
  const keyEnd = i - 1;
  const keyStart = keyEnd - key.length;
  return keyStart >= 1 && text.charCodeAt(keyEnd) === quote && text.charCodeAt(keyStart - 1) === quote && text.startsWith(key, keyStart);
}

/** Does JSON.stringify(value) equal `"` + value + `"` (no character that JSON escapes)? */
function plainJsonString(value: string): boolean {
  if (value.length === 0) {
    return false;
  }
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c < 0x20 || c === quote || c === 0x5c || (c >= 0xd800 && c <= 0xdfff)) {
      return false;
    }
  }
  return true;
}

/** The general case: search for the JSON spelling of the value (escapes, surrogates, the empty string). */
function encodedValueSpan(raw: LineRef, encoded: string, key: string | undefined): Span {
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

/**
 * The first `max` characters of a text on one line (runs of whitespace become one space),
 * with an ellipsis when it was longer. Only as much of the text is looked at as the preview
 * needs: prompts can be pages long.
 */
export function preview(text: string, max = 160): string {
  if (text.length <= 4 * max && isOneLine(text)) {
    return text.length > max ? text.slice(0, max - 1) + '…' : text;
  }
  // Collapsing whitespace never makes a prefix longer, and the trimmed, collapsed form of a
  // prefix is a prefix of the whole text's (but for a trailing space): once a prefix yields
  // more than `max` characters, the result is decided.
  for (let take = 4 * max; take < text.length; take *= 4) {
    const oneLine = text.slice(0, take).replace(/\s+/g, ' ').trim();
    if (oneLine.length > max) {
      return oneLine.slice(0, max - 1) + '…';
    }
  }
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > max ? oneLine.slice(0, max - 1) + '…' : oneLine;
}

/**
 * Is the text already what preview makes of it: no whitespace but single spaces between other
 * characters (so the collapsing and trimming would return it as is)? Most prompts are one
 * line, and this check costs less than the regex replacement.
 */
function isOneLine(text: string): boolean {
  const last = text.length - 1;
  for (let i = 0; i <= last; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20) {
      if (i === 0 || i === last || text.charCodeAt(i - 1) === 0x20) {
        return false;
      }
    } else if ((c >= 0x09 && c <= 0x0d) || (c >= 0x80 && isUnicodeSpace(c))) {
      return false;
    }
  }
  return true;
}

/** The whitespace of `\s` (and of trim) above ASCII. */
function isUnicodeSpace(c: number): boolean {
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}
