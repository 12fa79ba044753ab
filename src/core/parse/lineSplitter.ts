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
  private readonly lenient = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

  constructor(private readonly maxLineBytes = defaultMaxLineBytes) {}

  /** Bytes consumed into complete lines so far (where a tail reader resumes after a reset). */
  get consumedBytes(): number {
    return this.offset;
  }

  get linesEmitted(): number {
    return this.lineNo;
  }

  push(chunk: Uint8Array, onLine: (line: RawLine) => void): void {
    let start = 0;
    while (start < chunk.length) {
      const nl = chunk.indexOf(newline, start);
      if (nl === -1) {
        this.hold(chunk.subarray(start));
        return;
      }
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.pendingBytes === 0 && !this.discarding) {
        onLine(this.makeLine(piece, piece.length, true));
      } else {
        this.hold(piece);
        onLine(this.flush(true));
      }
    }
  }

  /** Emits an unterminated last line, if any. The splitter can be reused afterwards. */
  end(onLine: (line: RawLine) => void): void {
    if (this.pendingBytes > 0 || this.discarding) {
      onLine(this.flush(false));
    }
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
      line = this.makeLine(new Uint8Array(0), total, terminated, true);
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
      line = this.makeLine(bytes, total, terminated);
    }
    this.pending = [];
    this.pendingBytes = 0;
    this.discarding = false;
    return line;
  }

  private makeLine(bytes: Uint8Array, rawLength: number, terminated: boolean, tooLong = false): RawLine {
    const byteOffset = this.offset;
    this.offset += rawLength + (terminated ? 1 : 0);
    this.lineNo++;
    let body = bytes;
    let byteLength = rawLength;
    if (body.length > 0 && body[body.length - 1] === carriageReturn) {
      body = body.subarray(0, body.length - 1);
      byteLength--;
    }
    let text = '';
    let invalidUtf8 = false;
    if (!tooLong && body.length > 0) {
      // The lenient decoder is the fast path; only a line that came out with U+FFFD in it
      // (rare: real text seldom contains the replacement character) is decoded again strictly
      // to tell invalid bytes from a literal U+FFFD.
      text = this.lenient.decode(body);
      if (text.includes('\uFFFD')) {
        try {
          this.fatal.decode(body);
        } catch {
          invalidUtf8 = true;
        }
      }
    }
    return { lineNo: this.lineNo, text, byteOffset, byteLength, invalidUtf8, tooLong, terminated };
  }
}
