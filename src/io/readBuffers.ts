/**
 * Read buffers shared by every tail. Watching a thousand sessions means thousands of reads of
 * up to a megabyte; a fresh buffer per read leaves glibc's heap fragmented once they are freed
 * (past its first large free, malloc stops giving big blocks their own mappings), which kept
 * ~50 MB of resident memory that no one used. A few buffers, reused, do not.
 *
 * The bytes lent out are only valid until `release`: every reader of them (the line splitter
 * holding a partial line, the prefix hash) copies what it keeps.
 */
export const readBufferBytes = 1 << 20;

/** As many as whole-transcript reads run at once (the monitor's read concurrency); a live tail holds one only for a moment. */
const maxKept = 4;
const kept: Buffer[] = [];

export function acquireReadBuffer(): Buffer {
  return kept.pop() ?? Buffer.allocUnsafeSlow(readBufferBytes);
}

export function releaseReadBuffer(buf: Buffer): void {
  if (kept.length < maxKept && buf.length === readBufferBytes) {
    kept.push(buf);
  }
}
