/**
 * Edits on the text of one JSON line that leave every other byte of it alone: a repair
 * re-links a Claude Code entry by replacing the value of its top-level `parentUuid` and
 * nothing else, and takes a result block out of a line's content array by cutting its text
 * out, so a tool output inside the line is never re-encoded.
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
  return memberSpan(text, skipWs(text, 0), key);
}

/** Where the value of `key` sits in the object whose `{` is at `at` (its last occurrence, as above). */
function memberSpan(text: string, at: number, key: string): TextSpan | undefined {
  let i = at;
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

/** Where the value at a path of keys sits (`['message', 'content']`: the value of `message.content`). */
export function valueSpanAt(text: string, path: readonly string[]): TextSpan | undefined {
  let span: TextSpan | undefined = { start: skipWs(text, 0), end: text.length };
  for (const key of path) {
    span = memberSpan(text, span.start, key);
    if (!span) {
      return undefined;
    }
  }
  return span;
}

/** The spans of the elements of the array whose `[` is at `at`; undefined if it is not one. */
function elementSpans(text: string, at: number): TextSpan[] | undefined {
  if (text[at] !== '[') {
    return undefined;
  }
  const out: TextSpan[] = [];
  let i = skipWs(text, at + 1);
  if (text[i] === ']') {
    return out;
  }
  while (i < text.length) {
    const end = valueEnd(text, i);
    if (end < 0) {
      return undefined;
    }
    out.push({ start: i, end });
    i = skipWs(text, end);
    if (text[i] === ']') {
      return out;
    }
    if (text[i] !== ',') {
      return undefined;
    }
    i = skipWs(text, i + 1);
  }
  return undefined;
}

/**
 * The line without some elements of the array at `path`, every other character as it was (a
 * kept element keeps the separator that came before it): tool output elsewhere in the line is
 * never parsed and written again, which would change numbers a JavaScript double cannot hold
 * (Python writes any integer) and the writer's own spelling of the rest. Undefined when the
 * array is not found or its length is not `length` (the text is not the value it was read as).
 */
export function removeElements(text: string, path: readonly string[], length: number, drop: ReadonlySet<number>): string | undefined {
  const span = valueSpanAt(text, path);
  const elements = span ? elementSpans(text, span.start) : undefined;
  if (!span || !elements || elements.length !== length) {
    return undefined;
  }
  let out = text.slice(0, elements[0]?.start ?? span.start + 1);
  let first = true;
  for (let k = 0; k < elements.length; k++) {
    if (drop.has(k)) {
      continue;
    }
    if (!first) {
      out += text.slice(elements[k - 1]!.end, elements[k]!.start);
    }
    out += text.slice(elements[k]!.start, elements[k]!.end);
    first = false;
  }
  const last = elements[elements.length - 1];
  return out + text.slice(last ? last.end : span.start + 1);
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
