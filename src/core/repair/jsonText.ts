/**
 * Edits on the text of one JSON line that leave every other byte of it alone: a repair
 * re-links a Claude Code entry by replacing the value of its top-level `parentUuid` and
 * nothing else, and takes a result block out of a line's content array by cutting its text
 * out, so a tool output inside the line is never re-encoded.
 */

import { parseTree, type Node, type ParseError } from 'jsonc-parser';

interface TextSpan {
  start: number;
  end: number;
}

/**
 * The line's syntax tree, with every value's place in the text (jsonc-parser, as the hooks'
 * settings edits use it); undefined unless the line is strict JSON, since nothing else is edited.
 */
function tree(text: string): Node | undefined {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false });
  return errors.length === 0 ? root : undefined;
}

/**
 * The value of `key` in an object. A repeated key is read by JSON.parse (and so by the agent)
 * from its last occurrence, so that is the one found: a re-link written into an earlier one
 * would not be read. Nested keys of the same name (a tool output quoting a transcript) are
 * never matched.
 */
function member(node: Node | undefined, key: string): Node | undefined {
  if (node?.type !== 'object') {
    return undefined;
  }
  let found: Node | undefined;
  for (const property of node.children ?? []) {
    if (property.children?.[0]?.value === key) {
      found = property.children[1];
    }
  }
  return found;
}

/** The value at a path of keys (`['message', 'content']`: the value of `message.content`). */
function valueAt(text: string, path: readonly string[]): Node | undefined {
  let node = tree(text);
  for (const key of path) {
    node = member(node, key);
  }
  return node;
}

function spanOf(node: Node): TextSpan {
  return { start: node.offset, end: node.offset + node.length };
}

/**
 * The line without some elements of the array at `path`, every other character as it was (a
 * kept element keeps the separator that came before it): tool output elsewhere in the line is
 * never parsed and written again, which would change numbers a JavaScript double cannot hold
 * (Python writes any integer) and the writer's own spelling of the rest. Undefined when the
 * array is not found or its length is not `length` (the text is not the value it was read as).
 */
export function removeElements(text: string, path: readonly string[], length: number, drop: ReadonlySet<number>): string | undefined {
  const array = valueAt(text, path);
  const elements = array?.type === 'array' ? (array.children ?? []).map(spanOf) : undefined;
  if (!array || !elements || elements.length !== length) {
    return undefined;
  }
  const span = spanOf(array);
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
  const node = member(tree(text), key);
  if (!node) {
    return undefined;
  }
  const span = spanOf(node);
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
