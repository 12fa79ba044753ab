import { diffLines } from '../lib/diff';

/**
 * A unified diff of a settings file before and after (undefined = no file), for the preview
 * `hooks install --dry-run` prints and for what `install`/`uninstall` report.
 */
export function unifiedDiff(name: string, before: string | undefined, after: string | undefined, context = 3): string {
  if (before === after) {
    return '';
  }
  const a = lines(before);
  const b = lines(after);
  const hunks = diffLines(a, b);
  const out = [`--- ${before === undefined ? '/dev/null' : 'a/' + name}`, `+++ ${after === undefined ? '/dev/null' : 'b/' + name}`];
  let i = 0;
  while (i < hunks.length) {
    // Merge changes closer than twice the context into one hunk.
    let j = i;
    while (j + 1 < hunks.length && hunks[j + 1]!.aStart - (hunks[j]!.aStart + hunks[j]!.aCount) <= context * 2) {
      j++;
    }
    const first = hunks[i]!;
    const last = hunks[j]!;
    const aFrom = Math.max(0, first.aStart - context);
    const aTo = Math.min(a.length, last.aStart + last.aCount + context);
    const bFrom = first.bStart - (first.aStart - aFrom);
    const bTo = Math.min(b.length, last.bStart + last.bCount + (aTo - (last.aStart + last.aCount)));
    out.push(`@@ -${range(aFrom, aTo - aFrom)} +${range(bFrom, bTo - bFrom)} @@`);
    let ai = aFrom;
    for (let k = i; k <= j; k++) {
      const h = hunks[k]!;
      for (; ai < h.aStart; ai++) {
        out.push(' ' + a[ai]);
      }
      for (let x = 0; x < h.aCount; x++) {
        out.push('-' + a[h.aStart + x]);
      }
      for (let x = 0; x < h.bCount; x++) {
        out.push('+' + b[h.bStart + x]);
      }
      ai = h.aStart + h.aCount;
    }
    for (; ai < aTo; ai++) {
      out.push(' ' + a[ai]);
    }
    i = j + 1;
  }
  return out.join('\n') + '\n';
}

function lines(text: string | undefined): string[] {
  if (text === undefined || text === '') {
    return [];
  }
  const l = text.replace(/\r\n/g, '\n').split('\n');
  if (l[l.length - 1] === '') {
    l.pop();
  }
  return l;
}

/**
 * A hunk's range, `start,count` with 1-based lines. An empty range names the line before it (0
 * at the top of a file), as diff writes it: GNU patch skipped a new file's `-1,0` hunk.
 */
function range(from: number, count: number): string {
  return `${count === 0 ? from : from + 1},${count}`;
}
