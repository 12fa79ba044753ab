/**
 * Edits on the text of one JSON line that leave every other byte of it alone: a repair
 * re-links a Claude Code entry by replacing the value of its top-level `parentUuid` and
 * nothing else, so a tool output inside the line is never re-encoded.
 */

export interface TextSpan {
  start: number;
  end: number;
}

const ws = new Set([' ', '\t', '\n', '\r']);

function skipWs(text: string, i: number): number {
  while (i < text.length && ws.has(text[i]!)) {
    i++;
  }
  return i;
}

/** End (exclusive) of the string starting at the quote at `i`; -1 if unterminated. */
function stringEnd(text: string, i: number): number {
  for (let k = i + 1; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x5c) {
      k++;
    } else if (c === 0x22) {
      return k + 1;
    }
  }
  return -1;
}

/** End (exclusive) of the value starting at `i`; -1 if the text ends first. */
function valueEnd(text: string, i: number): number {
  const c = text[i];
  if (c === '"') {
    return stringEnd(text, i);
  }
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let k = i; k < text.length; k++) {
      const d = text[k];
      if (d === '"') {
        k = stringEnd(text, k) - 1;
        if (k < 0) {
          return -1;
        }
      } else if (d === '{' || d === '[') {
        depth++;
      } else if (d === '}' || d === ']') {
        depth--;
        if (depth === 0) {
          return k + 1;
        }
      }
    }
    return -1;
  }
  let k = i;
  while (k < text.length && !ws.has(text[k]!) && text[k] !== ',' && text[k] !== '}' && text[k] !== ']') {
    k++;
  }
  return k > i ? k : -1;
}

/**
 * Where the value of a top-level key sits in a JSON object's text. A repeated key is read by
 * JSON.parse (and so by the agent) from its last occurrence, so that is the one found: a
 * re-link written into an earlier one would not be read. Nested keys of the same name (a tool
 * output quoting a transcript) are never matched.
 */
export function topLevelValueSpan(text: string, key: string): TextSpan | undefined {
  let i = skipWs(text, 0);
  if (text[i] !== '{') {
    return undefined;
  }
  i = skipWs(text, i + 1);
  let found: TextSpan | undefined;
  while (i < text.length && text[i] === '"') {
    const keyEnd = stringEnd(text, i);
    if (keyEnd < 0) {
      return undefined;
    }
    let name: unknown;
    try {
      name = JSON.parse(text.slice(i, keyEnd));
    } catch {
      return undefined;
    }
    i = skipWs(text, keyEnd);
    if (text[i] !== ':') {
      return undefined;
    }
    const start = skipWs(text, i + 1);
    const end = valueEnd(text, start);
    if (end < 0) {
      return undefined;
    }
    if (name === key) {
      found = { start, end };
    }
    i = skipWs(text, end);
    if (text[i] === '}') {
      return found;
    }
    if (text[i] !== ',') {
      return undefined;
    }
    i = skipWs(text, i + 1);
  }
  return undefined;
}

/** The line with one top-level value replaced by `value` (JSON-encoded); undefined if the key is absent. */
export function replaceTopLevelValue(text: string, key: string, value: unknown): string | undefined {
  const span = topLevelValueSpan(text, key);
  if (!span) {
    return undefined;
  }
  return text.slice(0, span.start) + JSON.stringify(value) + text.slice(span.end);
}

/**
 * Serializes `value` in the style of an existing line: compact, as JavaScript writers
 * (Claude Code) write, or with `", "` and `": "` separators and non-ASCII escaped, as
 * Python's `json.dumps` (Amplifier) writes by default.
 */
export function stringifyLike(sample: string, value: unknown): string {
  if (!/^\s*\{\s*"(?:[^"\\]|\\.)*": /.test(sample)) {
    return JSON.stringify(value);
  }
  // Python escapes every non-ASCII character unless ensure_ascii=False was used.
  const ascii = !/[^\u0020-\u007e\t]/.test(sample);
  return pythonJson(value, ascii);
}

function pythonJson(value: unknown, ascii: boolean): string {
  if (Array.isArray(value)) {
    return '[' + value.map((v) => pythonJson(v, ascii)).join(', ') + ']';
  }
  if (typeof value === 'object' && value !== null) {
    const parts: string[] = [];
    for (const [k, v] of Object.entries(value)) {
      if (v !== undefined) {
        parts.push(`${pythonString(k, ascii)}: ${pythonJson(v, ascii)}`);
      }
    }
    return '{' + parts.join(', ') + '}';
  }
  if (typeof value === 'string') {
    return pythonString(value, ascii);
  }
  return JSON.stringify(value) ?? 'null';
}

function pythonString(s: string, ascii: boolean): string {
  const json = JSON.stringify(s);
  return ascii ? json.replace(/[\u0080-\uffff]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')) : json;
}
