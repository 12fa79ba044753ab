import { Buffer, isUtf8 } from 'node:buffer';

/** One complete (or, at end of input, unterminated) line of a JSONL file. */
export interface RawLine {
  /** 1-based */
  lineNo: number;
  /** Decoded text without the line terminator (`\n` or `\r\n`). */
  text: string;
  /** Byte offset of the line's first byte in the stream. */
  byteOffset: number;
  /** Byte length of the line without its terminator. */
  byteLength: number;
  /** The bytes were not valid UTF-8; `text` holds U+FFFD where they were. */
  invalidUtf8: boolean;
  /** The line was longer than the splitter keeps; `text` is empty. */
  tooLong: boolean;
  /** False only for a last line that ended without a newline. */
  terminated: boolean;
}

/**
 * Lines longer than this are reported and skipped rather than decoded: a V8 string tops out
 * near 512 M characters, and no real record needs more than a fraction of that.
 */
export const defaultMaxLineBytes = 256 * 1024 * 1024;

const newline = 0x0a;
const carriageReturn = 0x0d;

/**
 * Splits a byte stream into lines, in arrival order, whatever the chunk boundaries: a line,
 * or a multi-byte character, split across chunks is reassembled before it is decoded.
 * Partial trailing bytes are held until their newline arrives (the writer has not flushed
 * it yet) and only surface from `end()`.
 */
export class LineSplitter {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** The current line grew past the limit: its bytes are being discarded up to the next newline. */
  private discarding = false;
  private lineNo = 0;
  private offset = 0;
  private readonly fatal = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

  constructor(private readonly maxLineBytes = defaultMaxLineBytes) {}

  /** Bytes consumed into complete lines so far (where a tail reader resumes after a reset). */
  get consumedBytes(): number {
    return this.offset;
  }

  get linesEmitted(): number {
    return this.lineNo;
  }

  push(chunk: Uint8Array, onLine: (line: RawLine) => void): void {
    // A Buffer view of the chunk (no copy): lines are decoded straight from it by range,
    // without a view object per line.
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    // The lines between the chunk's first and last newline are validated as UTF-8 in one
    // native pass, rather than each decoded line scanned for U+FFFD. (A newline is never
    // inside a multi-byte character, so valid bytes split at newlines are valid lines.) The
    // first line, which may continue a character begun in the previous chunk, is checked alone.
    const firstNl = buf.indexOf(newline);
    const lastNl = firstNl === -1 ? -1 : buf.lastIndexOf(newline);
    const validEnd = lastNl > firstNl && isUtf8(buf.subarray(firstNl + 1, lastNl)) ? lastNl : -1;
    let start = 0;
    while (start < buf.length) {
      const nl = buf.indexOf(newline, start);
      if (nl === -1) {
        this.hold(buf.subarray(start));
        return;
      }
      if (this.pendingBytes === 0 && !this.discarding) {
        onLine(this.makeLine(buf, start, nl, true, start > firstNl && nl <= validEnd));
      } else {
        this.hold(buf.subarray(start, nl));
        onLine(this.flush(true));
      }
      start = nl + 1;
    }
  }

  /** Emits an unterminated last line, if any. The splitter can be reused afterwards. */
  end(onLine: (line: RawLine) => void): void {
    if (this.pendingBytes > 0 || this.discarding) {
      onLine(this.flush(false));
    }
  }

  /**
   * The unterminated last line held now, as `end()` would emit it, left held: live, its
   * newline may still come. Undefined when no bytes are held.
   */
  peek(): RawLine | undefined {
    if (this.pendingBytes === 0 && !this.discarding) {
      return undefined;
    }
    const { pending, pendingBytes, discarding, lineNo, offset } = this;
    // flush() only replaces `pending` (the parts are not written to), so they can be put back.
    const line = this.flush(false);
    this.pending = pending;
    this.pendingBytes = pendingBytes;
    this.discarding = discarding;
    this.lineNo = lineNo;
    this.offset = offset;
    return line;
  }

  private hold(bytes: Uint8Array): void {
    if (bytes.length === 0) {
      return;
    }
    if (this.discarding) {
      this.pendingBytes += bytes.length;
      return;
    }
    if (this.pendingBytes + bytes.length > this.maxLineBytes) {
      this.discarding = true;
      this.pending = [];
      this.pendingBytes += bytes.length;
      return;
    }
    // Copy: the caller may reuse its read buffer for the next chunk. (Not `bytes.slice()`:
    // on a Node Buffer, slice is a view, not a copy.)
    this.pending.push(new Uint8Array(bytes));
    this.pendingBytes += bytes.length;
  }

  private flush(terminated: boolean): RawLine {
    const total = this.pendingBytes;
    let line: RawLine;
    if (this.discarding) {
      line = this.lineOf('', total, total, terminated, false, true);
    } else {
      const parts = this.pending;
      let bytes: Uint8Array;
      if (parts.length === 1) {
        bytes = parts[0]!;
      } else {
        bytes = new Uint8Array(total);
        let at = 0;
        for (const p of parts) {
          bytes.set(p, at);
          at += p.length;
        }
      }
      line = this.makeLine(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), 0, total, terminated, false);
    }
    this.pending = [];
    this.pendingBytes = 0;
    this.discarding = false;
    return line;
  }

  /** The line held in `buf[start, end)` (without its newline); `validUtf8` when its bytes are known to be. */
  private makeLine(buf: Buffer, start: number, end: number, terminated: boolean, validUtf8: boolean): RawLine {
    const rawLength = end - start;
    let bodyEnd = end;
    if (bodyEnd > start && buf[bodyEnd - 1] === carriageReturn) {
      bodyEnd--;
    }
    let text = '';
    let invalidUtf8 = false;
    if (bodyEnd > start) {
      // The lenient decoding (invalid bytes become U+FFFD, as TextDecoder does) is the fast
      // path; unless the bytes are known to be valid, a line that came out with U+FFFD in it
      // (rare: real text seldom contains the replacement character) is decoded again strictly
      // to tell invalid bytes from a literal U+FFFD. A byte-order mark starting the line is
      // dropped, as TextDecoder drops it.
      text = buf.toString('utf8', start, bodyEnd);
      if (text.charCodeAt(0) === 0xfeff && buf[start] === 0xef) {
        text = text.slice(1);
      }
      if (!validUtf8 && text.includes('\uFFFD')) {
        try {
          this.fatal.decode(buf.subarray(start, bodyEnd));
        } catch {
          invalidUtf8 = true;
        }
      }
    }
    return this.lineOf(text, rawLength, bodyEnd - start, terminated, invalidUtf8, false);
  }

  private lineOf(text: string, rawLength: number, byteLength: number, terminated: boolean, invalidUtf8: boolean, tooLong: boolean): RawLine {
    const byteOffset = this.offset;
    this.offset += rawLength + (terminated ? 1 : 0);
    this.lineNo++;
    return { lineNo: this.lineNo, text, byteOffset, byteLength, invalidUtf8, tooLong, terminated };
  }
}
