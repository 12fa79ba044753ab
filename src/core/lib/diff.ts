/** One changed region: `aCount` lines at `aStart` in `a` became `bCount` lines at `bStart` in `b` (0-based). */
export interface DiffHunk {
  aStart: number;
  aCount: number;
  bStart: number;
  bCount: number;
}

/**
 * Beyond this many edits the middle is reported as one changed block: the exact script
 * is not worth O(N·D) time on a rewritten file, and callers only ask "what changed where".
 */
const maxEditDistance = 4000;

/**
 * Line diff (Myers' O(ND) greedy algorithm) after trimming the common prefix and suffix.
 * Lines are compared as strings; callers normalise line endings first.
 */
export function diffLines(a: readonly string[], b: readonly string[]): DiffHunk[] {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) {
    prefix++;
  }
  let suffix = 0;
  while (
    suffix < a.length - prefix &&
    suffix < b.length - prefix &&
    a[a.length - 1 - suffix] === b[b.length - 1 - suffix]
  ) {
    suffix++;
  }
  const aMid = a.slice(prefix, a.length - suffix);
  const bMid = b.slice(prefix, b.length - suffix);
  if (aMid.length === 0 && bMid.length === 0) {
    return [];
  }
  if (aMid.length === 0 || bMid.length === 0) {
    return [{ aStart: prefix, aCount: aMid.length, bStart: prefix, bCount: bMid.length }];
  }
  const script = myers(aMid, bMid);
  if (script === undefined) {
    return [{ aStart: prefix, aCount: aMid.length, bStart: prefix, bCount: bMid.length }];
  }
  return script.map((h) => ({ ...h, aStart: h.aStart + prefix, bStart: h.bStart + prefix }));
}

function myers(a: readonly string[], b: readonly string[]): DiffHunk[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxEditDistance);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)) {
        x = v[offset + k + 1]!;
      } else {
        x = v[offset + k - 1]! + 1;
      }
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        return backtrack(trace, offset, n, m, d);
      }
    }
  }
  return undefined;
}

/** Walks the saved frontiers back from (n, m) and groups single edits into hunks. */
function backtrack(trace: Int32Array[], offset: number, n: number, m: number, dEnd: number): DiffHunk[] {
  // Each entry marks one edit: a deletion of a[x] or an insertion of b[y].
  const edits: { type: 'del' | 'ins'; x: number; y: number }[] = [];
  let x = n;
  let y = m;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d]!;
    const k = x - y;
    let prevK: number;
    if (k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)) {
      prevK = k + 1;
    } else {
      prevK = k - 1;
    }
    const prevX = v[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
    }
    if (x === prevX) {
      edits.push({ type: 'ins', x, y: prevY });
    } else {
      edits.push({ type: 'del', x: prevX, y });
    }
    x = prevX;
    y = prevY;
  }
  edits.reverse();
  const hunks: DiffHunk[] = [];
  for (const e of edits) {
    const h = hunks[hunks.length - 1];
    const aPos = e.x;
    const bPos = e.y;
    if (h && h.aStart + h.aCount === aPos && h.bStart + h.bCount === bPos) {
      if (e.type === 'del') {
        h.aCount++;
      } else {
        h.bCount++;
      }
    } else {
      hunks.push({ aStart: aPos, aCount: e.type === 'del' ? 1 : 0, bStart: bPos, bCount: e.type === 'ins' ? 1 : 0 });
    }
  }
  return hunks;
}

/** Splits text into lines the way editors count them: `\r\n` and `\n` both end a line. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  // "a\nb\n" is two lines, not three: a final newline terminates, it does not open.
  if (lines.length > 1 && lines[lines.length - 1] === '') {
    lines.pop();
  }
  return lines;
}
