/**
 * A transcript as lines of bytes, split exactly as the parser's LineSplitter counts them
 * (on `\n`; a trailing `\r` belongs to the terminator), so that line numbers agree with the
 * findings and every line can be written back byte for byte.
 */
export interface SourceLine {
  /** 1-based */
  no: number;
  /** The line's bytes without its terminator. */
  body: Uint8Array;
  /** `''` only for a last line that ends without a newline. */
  eol: '' | '\n' | '\r\n';
}

const newline = 0x0a;
const carriageReturn = 0x0d;

/**
 * The UTF-8 byte order mark a file may start with (editors on Windows write one). It belongs to
 * the file, not to its first line: kept in line 1's body, it went with a rewritten line 1 (the
 * line is decoded to text, which drops it) and with a dropped one, and moved with a moved one.
 */
export function leadingBom(source: Uint8Array): Uint8Array {
  return source.length >= 3 && source[0] === 0xef && source[1] === 0xbb && source[2] === 0xbf ? source.subarray(0, 3) : source.subarray(0, 0);
}

/** The lines after the file's byte order mark, if any (see `leadingBom`); numbered from 1 as the parser numbers them. */
export function splitLines(source: Uint8Array): SourceLine[] {
  const lines: SourceLine[] = [];
  let start = leadingBom(source).length;
  while (start < source.length) {
    const nl = source.indexOf(newline, start);
    if (nl === -1) {
      lines.push({ no: lines.length + 1, body: source.subarray(start), eol: '' });
      break;
    }
    const crlf = nl > start && source[nl - 1] === carriageReturn;
    lines.push({ no: lines.length + 1, body: source.subarray(start, crlf ? nl - 1 : nl), eol: crlf ? '\r\n' : '\n' });
    start = nl + 1;
  }
  return lines;
}

/** The terminator most lines use: what an added line gets. */
export function dominantEol(lines: readonly SourceLine[]): '\n' | '\r\n' {
  let crlf = 0;
  let lf = 0;
  for (const l of lines) {
    if (l.eol === '\r\n') {
      crlf++;
    } else if (l.eol === '\n') {
      lf++;
    }
  }
  return crlf > lf ? '\r\n' : '\n';
}

const lenient = new TextDecoder('utf-8');
const strict = new TextDecoder('utf-8', { fatal: true });

function lineText(line: SourceLine): string {
  return lenient.decode(line.body);
}

/** Can the line be decoded and re-encoded without changing a byte? */
export function isValidUtf8(line: SourceLine): boolean {
  try {
    strict.decode(line.body);
    return true;
  } catch {
    return false;
  }
}

/** One output line: original bytes or new text, and the terminator it should end with. */
export interface OutputLine {
  body: Uint8Array;
  eol: '' | '\n' | '\r\n';
}

const encoder = new TextEncoder();

export function encodeLine(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * Joins lines back into bytes, after `prefix` (the file's byte order mark). Only the last line
 * may lack a terminator: a line that lost its place at the end (or a new line after it) gets `eol`.
 */
export function joinLines(out: readonly OutputLine[], eol: '\n' | '\r\n', prefix: Uint8Array = new Uint8Array(0)): Uint8Array {
  const terms = out.map((l, i) => (l.eol === '' && i < out.length - 1 ? eol : l.eol));
  let size = prefix.length;
  for (let i = 0; i < out.length; i++) {
    size += out[i]!.body.length + terms[i]!.length;
  }
  const bytes = new Uint8Array(size);
  bytes.set(prefix, 0);
  let at = prefix.length;
  for (let i = 0; i < out.length; i++) {
    bytes.set(out[i]!.body, at);
    at += out[i]!.body.length;
    const t = terms[i]!;
    for (let k = 0; k < t.length; k++) {
      bytes[at++] = t.charCodeAt(k);
    }
  }
  return bytes;
}

type Json = Record<string, unknown>;

/** Decoded text and JSON of the source lines, computed once and only when asked for. */
export class Lines {
  private readonly texts = new Map<number, string>();
  private readonly values = new Map<number, Json | undefined>();
  constructor(private readonly lines: readonly SourceLine[]) {}

  get count(): number {
    return this.lines.length;
  }

  line(n: number): SourceLine {
    return this.lines[n - 1]!;
  }

  text(n: number): string {
    let t = this.texts.get(n);
    if (t === undefined) {
      t = lineText(this.line(n));
      this.texts.set(n, t);
    }
    return t;
  }

  value(n: number): Json | undefined {
    if (this.values.has(n)) {
      return this.values.get(n);
    }
    const v = parseObject(this.text(n));
    this.values.set(n, v);
    return v;
  }

  /** The line's JSON without keeping it (a pass over every line of a large file). */
  peek(n: number): Json | undefined {
    return this.values.has(n) ? this.values.get(n) : parseObject(this.texts.get(n) ?? lineText(this.line(n)));
  }
}

function parseObject(text: string): Json | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Json) : undefined;
  } catch {
    return undefined;
  }
}

export { groupBy } from '../lib/group';
