/**
 * Minimal, byte-preserving edits of JSON-with-comments settings files: append to an array,
 * add a property, remove a member. Everything outside the edited member stays as it was —
 * comments, order, formatting, unrelated entries — and removing a member this module added
 * gives back the original bytes. jsonc-parser parses and scans; the edits are computed here,
 * because its `modify` re-formats the whole array it inserts into.
 */
import { createScanner, findNodeAtLocation, parseTree, printParseErrorCode, type JSONPath, type Node, type ParseError } from 'jsonc-parser';

/** jsonc-parser's SyntaxKind values (a const enum, which isolated modules cannot read). */
const token: Readonly<Record<'comma' | 'lineComment' | 'blockComment' | 'lineBreak' | 'trivia' | 'eof', number>> = {
  comma: 5,
  lineComment: 12,
  blockComment: 13,
  lineBreak: 14,
  trivia: 15,
  eof: 17,
};

export interface TextFormat {
  /** One level of indentation, e.g. two spaces or a tab. */
  unit: string;
  eol: string;
}

export class JsoncError extends Error {
  override readonly name = 'JsoncError';
}

/** The document's own indentation and line ending (defaults: two spaces, \n). */
export function detectFormat(text: string): TextFormat {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  let min = Infinity;
  for (const line of text.split('\n')) {
    const m = /^([ \t]+)([^\s*])/.exec(line);
    if (!m) {
      continue;
    }
    if (m[1]!.startsWith('\t')) {
      return { unit: '\t', eol };
    }
    min = Math.min(min, m[1]!.length);
  }
  return { unit: min === Infinity ? '  ' : ' '.repeat(min), eol };
}

/** Parses the document's tree; throws JsoncError naming the first syntax error. */
export function parseDocument(text: string): Node {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first || !root) {
    const at = first ? lineCol(text, first.offset) : { line: 1, col: 1 };
    throw new JsoncError(`not valid JSON (with comments): ${first ? printParseErrorCode(first.error) : 'empty'} at line ${at.line}, column ${at.col}`);
  }
  return root;
}

function nodeAt(text: string, path: JSONPath): Node | undefined {
  return findNodeAtLocation(parseDocument(text), path);
}

/** Appends `value` to the array at `path` (which must exist). */
export function appendToArray(text: string, path: JSONPath, value: unknown, fmt: TextFormat = detectFormat(text)): string {
  const arr = nodeAt(text, path);
  if (!arr || arr.type !== 'array') {
    throw new JsoncError(`${path.join('.')} is not an array`);
  }
  return insertMember(text, arr, (indent) => render(value, indent, fmt), fmt);
}

/** Adds property `key` with `value` to the object at `path` (which must exist and lack the key). */
export function addProperty(text: string, path: JSONPath, key: string, value: unknown, fmt: TextFormat = detectFormat(text)): string {
  const obj = path.length === 0 ? parseDocument(text) : nodeAt(text, path);
  if (!obj || obj.type !== 'object') {
    throw new JsoncError(`${path.join('.') || 'the document'} is not an object`);
  }
  return insertMember(text, obj, (indent) => `${JSON.stringify(key)}: ${render(value, indent, fmt)}`, fmt);
}

/** Removes the array element or object property at `path` (its last segment names it). */
export function removeMember(text: string, path: JSONPath): string {
  const root = parseDocument(text);
  const parentPath = path.slice(0, -1);
  const parent = parentPath.length === 0 ? root : findNodeAtLocation(root, parentPath);
  const last = path[path.length - 1];
  if (!parent?.children) {
    throw new JsoncError(`nothing at ${path.join('.')}`);
  }
  const members = parent.children;
  const index =
    parent.type === 'array'
      ? (last as number)
      : members.findIndex((p) => p.children?.[0]?.value === last);
  const member = members[index];
  if (!member) {
    throw new JsoncError(`nothing at ${path.join('.')}`);
  }
  const open = parent.offset + 1;
  const close = parent.offset + parent.length - 1;
  const end = member.offset + member.length;
  if (members.length === 1) {
    // The only member: the container becomes empty; comments in it stay, blank space goes.
    const lineStart = startOfLine(text, member.offset);
    const after = findComma(text, end, close);
    const rest = after !== undefined ? after + 1 : end;
    const from = lineStart !== undefined && lineStart > open ? lineStart - lineBreakToCut(text, open, lineStart, rest) : member.offset;
    const inner = text.slice(open, from) + text.slice(rest, close);
    return text.slice(0, open) + (inner.trim() === '' ? '' : inner) + text.slice(close);
  }
  if (index > 0) {
    const prev = members[index - 1]!;
    const prevEnd = prev.offset + prev.length;
    const comma = findComma(text, prevEnd, member.offset);
    const lineStart = startOfLine(text, member.offset);
    // A comma after the member (it is not the last, or the container keeps a trailing comma)
    // goes with it, and the one before it stays.
    const own = findComma(text, end, close);
    if (lineStart !== undefined && (comma === undefined || lineStart > comma)) {
      // The member starts a line of its own: that line break goes with it, and one comma
      // (any comment after a comma stays).
      const from = lineStart - lineBreakToCut(text, open, lineStart, own !== undefined ? own + 1 : end);
      if (own !== undefined) {
        return text.slice(0, from) + text.slice(end, own) + text.slice(own + 1);
      }
      const cut = text.slice(0, from) + text.slice(end);
      return comma === undefined ? cut : cut.slice(0, comma) + cut.slice(comma + 1);
    }
    // A comment between the comma and the member stays.
    const before = comma !== undefined && holdsComment(text, comma + 1, member.offset) ? text.slice(comma + 1, member.offset).trimEnd() : '';
    if (own !== undefined && comma !== undefined) {
      return text.slice(0, comma + 1) + before + text.slice(own + 1);
    }
    if (before !== '') {
      return text.slice(0, comma) + before + text.slice(end);
    }
    return text.slice(0, comma ?? prevEnd) + text.slice(end);
  }
  // The first of several: the next member moves into its place.
  const next = members[index + 1]!;
  const comma = findComma(text, end, next.offset);
  if (comma === undefined || !holdsComment(text, comma + 1, next.offset)) {
    return text.slice(0, member.offset) + text.slice(next.offset);
  }
  // Comments after its comma stay (the user's, say, above a hook they added after ours); its
  // line goes when the member and its comma were all it held.
  const lineStart = startOfLine(text, member.offset);
  const rest = /^[ \t]*\r?\n/.exec(text.slice(comma + 1));
  if (lineStart !== undefined && rest) {
    return text.slice(0, lineStart) + text.slice(comma + 1 + rest[0].length);
  }
  return text.slice(0, member.offset) + text.slice(comma + 1);
}

/** The array or object at `path` has no members and no comments: nothing of anyone's is in it. */
export function isEmptyContainer(text: string, path: JSONPath): boolean {
  const node = nodeAt(text, path);
  if (!node || (node.type !== 'array' && node.type !== 'object') || (node.children?.length ?? 0) > 0) {
    return false;
  }
  return !holdsComment(text, node.offset + 1, node.offset + node.length - 1);
}

/**
 * Inserts a member at the end of a container. After an existing member: a comma right after
 * it (before any comment on its line), then the new member on a line of its own with the
 * same indentation. Into an empty container: on its own line, one level in.
 */
function insertMember(text: string, container: Node, body: (indent: string) => string, fmt: TextFormat): string {
  const members = container.children ?? [];
  const close = container.offset + container.length - 1;
  const last = members[members.length - 1];
  if (!last) {
    const indent = lineIndent(text, container.offset);
    const open = container.offset + 1;
    const inner = text.slice(open, close);
    const member = fmt.eol + indent + fmt.unit + body(indent + fmt.unit);
    // A comment between the brackets stays; one on the same line as both follows the member.
    const rest = inner.includes('\n') ? inner : inner.trimEnd() + fmt.eol + indent;
    return text.slice(0, open) + member + rest + text.slice(close);
  }
  const end = last.offset + last.length;
  const after = trailingCommentEnd(text, end, close);
  // A comma after the last member (JSONC's trailing comma) now separates it from the new one,
  // which takes a trailing comma of its own: the style stays, and removing the new member
  // (with its own comma, see removeMember) gives back the original bytes.
  const comma = findComma(text, end, close);
  if (!text.slice(container.offset, close).includes('\n')) {
    // A one-line container stays on one line.
    const flat = body('').replace(/\r?\n\s*/g, ' ');
    return comma !== undefined ? text.slice(0, comma + 1) + ' ' + flat + ',' + text.slice(comma + 1) : text.slice(0, end) + ', ' + flat + text.slice(end);
  }
  const indent = lineIndent(text, last.offset);
  const inserted = fmt.eol + indent + body(indent);
  if (comma !== undefined) {
    // After the comma, and after any comment on its line (a comment before the comma stays
    // before it).
    const at = Math.max(after, comma + 1);
    return text.slice(0, at) + inserted + ',' + text.slice(at);
  }
  return text.slice(0, end) + ',' + text.slice(end, after) + inserted + text.slice(after);
}

/** The JSON of `value`, its lines after the first indented to `indent`. */
function render(value: unknown, indent: string, fmt: TextFormat): string {
  return JSON.stringify(value, null, fmt.unit).replace(/\n/g, fmt.eol + indent);
}

/** Offset of the first comma between `from` and `to` that is not inside a comment. */
function findComma(text: string, from: number, to: number): number | undefined {
  const s = createScanner(text, false);
  s.setPosition(from);
  for (let k: number = s.scan(); k !== token.eof && s.getTokenOffset() < to; k = s.scan()) {
    if (k === token.comma) {
      return s.getTokenOffset();
    }
    if (k !== token.lineComment && k !== token.blockComment && k !== token.lineBreak && k !== token.trivia) {
      return undefined;
    }
  }
  return undefined;
}

/** A comment starts between `from` and `to`. */
function holdsComment(text: string, from: number, to: number): boolean {
  const s = createScanner(text, false);
  s.setPosition(from);
  for (let k: number = s.scan(); k !== token.eof && s.getTokenOffset() < to; k = s.scan()) {
    if (k === token.lineComment || k === token.blockComment) {
      return true;
    }
  }
  return false;
}

/** Past the spaces, comma and comments that follow `from` on its own line (stops at a line break). */
function trailingCommentEnd(text: string, from: number, limit: number): number {
  const s = createScanner(text, false);
  s.setPosition(from);
  let end = from;
  for (let k: number = s.scan(); k !== token.eof && s.getTokenOffset() < limit; k = s.scan()) {
    if (k === token.lineBreak) {
      break;
    }
    if (k === token.trivia || k === token.comma) {
      continue;
    }
    if (k === token.lineComment || k === token.blockComment) {
      end = s.getPosition();
      continue;
    }
    break;
  }
  return end;
}

/** The whitespace that starts the line holding `offset`. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start, offset))![0];
}

/** Start of the line holding `offset` when only whitespace precedes it there, else undefined. */
function startOfLine(text: string, offset: number): number | undefined {
  const start = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*$/.test(text.slice(start, offset)) && start > 0 ? start : undefined;
}

/**
 * The length of the line break before `lineStart` that goes with a member removed from that
 * line, 0 when it must stay: what is left of the line after the member (from `rest`) joins the
 * line before, and would be commented out if that line ends in a line comment. `from` is a
 * token boundary before it, for the scanner.
 */
function lineBreakToCut(text: string, from: number, lineStart: number, rest: number): number {
  const eol = eolBefore(text, lineStart);
  if (/^[ \t]*(\r?\n|$)/.test(text.slice(rest))) {
    return eol;
  }
  const s = createScanner(text, false);
  s.setPosition(from);
  let last: number = token.eof;
  for (let k: number = s.scan(); k !== token.eof && s.getTokenOffset() < lineStart - eol; k = s.scan()) {
    if (k !== token.trivia) {
      last = k;
    }
  }
  return last === token.lineComment ? 0 : eol;
}

function eolBefore(text: string, lineStart: number): number {
  return text[lineStart - 2] === '\r' ? 2 : 1;
}

function lineCol(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, col: offset - before.lastIndexOf('\n') };
}
