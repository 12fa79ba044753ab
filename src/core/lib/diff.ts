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
 * Nor beyond this many steps of the search (a diagonal taken, a line matched along it), plus
 * `stepsPerLine` for each line of the two: within the edit limit a call cost O((N+M)·D), 0.6 s
 * for 12,000 lines whose equal lines come in another order, some 20 KB of transcript each.
 */
const maxSteps = 2_000_000;
const stepsPerLine = 100;
/** After this many edits, whether the edit limit can be reached at all is asked first. */
const fewEditsChecked = 64;

/**
 * Line diff (Myers' O(ND) greedy algorithm) after trimming the common prefix and suffix.
 * Lines are compared as strings; callers normalise line endings first. Beyond the search's
 * bounds the middle is one changed block (a diff still: applied, it gives b).
 */
export function diffLines(a: readonly string[], b: readonly string[]): DiffHunk[] {
  return trimmed(a, b);
}

/**
 * Where b differs from a, as hunks whose `bStart`/`bCount` are ranges of b's lines (a pure
 * insertion into b has `aCount` 0): the hunks of diffLines, or beyond the search's bounds only the
 * runs of lines of b that a holds nowhere, which every diff changes (less than the script would
 * say, never more: a block between the common prefix and suffix would claim lines the script keeps).
 */
export function changedRegions(a: readonly string[], b: readonly string[]): DiffHunk[] {
  return trimmed(a, b, absentRuns);
}

/** Runs of lines of `b` (offset by `at`) that `a` holds nowhere. */
function absentRuns(a: readonly string[], b: readonly string[], at: number): DiffHunk[] {
  const held = new Set(a);
  const runs: DiffHunk[] = [];
  for (let i = 0; i < b.length; i++) {
    if (held.has(b[i]!)) {
      continue;
    }
    const last = runs[runs.length - 1];
    if (last && last.bStart + last.bCount === at + i) {
      last.bCount++;
    } else {
      runs.push({ aStart: at, aCount: 0, bStart: at + i, bCount: 1 });
    }
  }
  return runs;
}

function trimmed(
  a: readonly string[],
  b: readonly string[],
  beyond: (aMid: readonly string[], bMid: readonly string[], at: number) => DiffHunk[] = (aMid, bMid, at) => [{ aStart: at, aCount: aMid.length, bStart: at, bCount: bMid.length }],
): DiffHunk[] {
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
    return beyond(aMid, bMid, prefix);
  }
  return script.map((h) => ({ ...h, aStart: h.aStart + prefix, bStart: h.bStart + prefix }));
}

function myers(a: readonly string[], b: readonly string[]): DiffHunk[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxEditDistance);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  // Step d reads only the diagonals -d…d of the frontier before it (and backtrack reads the
  // same): that band is all that is kept of each, diagonal k at k + d. (Whole, the frontiers
  // copied up to the limit were ~130 MB per call.)
  const trace: Int32Array[] = [];
  const budget = maxSteps + stepsPerLine * (n + m);
  let steps = 0;
  for (let d = 0; d <= max; d++) {
    if (d === fewEditsChecked && n + m > maxEditDistance && fewestEdits(a, b) > max) {
      // The search would go through every step up to the limit only to give up (a file
      // rewritten whole: ~125 ms a file, a transcript of such rewrites minutes). Asked only
      // once the edits are not few: the count costs a pass over both.
      return undefined;
    }
    trace.push(v.slice(offset - d, offset + d + 1));
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)) {
        x = v[offset + k + 1]!;
      } else {
        x = v[offset + k - 1]! + 1;
      }
      let y = x - k;
      const from = x;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      steps += 1 + x - from;
      if (steps > budget) {
        return undefined;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        return backtrack(trace, n, m, d);
      }
    }
  }
  return undefined;
}

/**
 * At least how many edits turn a into b: each line of one beyond the copies of it the other
 * holds must be deleted or inserted, in whatever order the lines come. Costs one pass over each.
 */
function fewestEdits(a: readonly string[], b: readonly string[]): number {
  const count = new Map<string, number>();
  for (const line of a) {
    count.set(line, (count.get(line) ?? 0) + 1);
  }
  let common = 0;
  for (const line of b) {
    const c = count.get(line);
    if (c !== undefined && c > 0) {
      count.set(line, c - 1);
      common++;
    }
  }
  return a.length + b.length - 2 * common;
}

/** Walks the saved frontiers back from (n, m) and groups single edits into hunks. */
function backtrack(trace: Int32Array[], n: number, m: number, dEnd: number): DiffHunk[] {
  // Each entry marks one edit: a deletion of a[x] or an insertion of b[y].
  const edits: { type: 'del' | 'ins'; x: number; y: number }[] = [];
  let x = n;
  let y = m;
  for (let d = dEnd; d > 0; d--) {
    // Diagonal k of step d's band is at k + d.
    const v = trace[d]!;
    const k = x - y;
    let prevK: number;
    if (k === -d || (k !== d && v[d + k - 1]! < v[d + k + 1]!)) {
      prevK = k + 1;
    } else {
      prevK = k - 1;
    }
    const prevX = v[d + prevK]!;
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

/** `text.split('\n').length`, without the array. */
export function countLines(text: string): number {
  let n = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) {
    n++;
  }
  return n;
}

/**
 * The lines of `before` each edit's old_string matched (it must match exactly, and once, for the
 * edit to apply). A `replace_all` edit may also match places the session never saw: none. A
 * MultiEdit's later old_strings match the text its earlier edits made; one not found as is in
 * `before` vouches for nothing.
 */
export function quotedLines(before: string, edits: readonly { old_string: string; replace_all?: boolean | undefined }[]): { start: number; count: number }[] {
  const out: { start: number; count: number }[] = [];
  for (const e of edits) {
    if (e.replace_all === true || e.old_string === '') {
      continue;
    }
    const at = before.indexOf(e.old_string);
    if (at < 0 || before.indexOf(e.old_string, at + 1) >= 0) {
      continue;
    }
    // Whole lines only: a line the quote starts or ends inside of was not stated in full.
    const end = at + e.old_string.length;
    const first = lineAt(before, at) + (at === 0 || before[at - 1] === '\n' ? 0 : 1);
    const lastLine = lineAt(before, end - 1);
    const lastWhole = before[end - 1] === '\n' || end === before.length || before[end] === '\n' ? lastLine : lastLine - 1;
    if (lastWhole >= first) {
      out.push({ start: first, count: lastWhole - first + 1 });
    }
  }
  return out;
}

/** The 1-based line of `text` that character `index` is on. */
function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) {
    line++;
  }
  return line;
}
