import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { changedRegions, diffLines, splitLines } from '../../../src/core/lib/diff';

/** changedRegions as ranges of b's lines. */
const changedInB = (a: readonly string[], b: readonly string[]): { bStart: number; bCount: number }[] =>
  changedRegions(a, b).map((h) => ({ bStart: h.bStart, bCount: h.bCount }));
import { prng } from '../support/run';

/** Applies hunks to a, taking replacement lines from b: must give b back. */
function apply(a: string[], b: string[], hunks: ReturnType<typeof diffLines>): string[] {
  const out: string[] = [];
  let ai = 0;
  for (const h of hunks) {
    out.push(...a.slice(ai, h.aStart));
    out.push(...b.slice(h.bStart, h.bStart + h.bCount));
    ai = h.aStart + h.aCount;
  }
  out.push(...a.slice(ai));
  return out;
}

void describe('diffLines', () => {
  void test('insert, delete, change', () => {
    assert.deepEqual(diffLines(['a', 'b', 'c'], ['a', 'x', 'b', 'c']), [{ aStart: 1, aCount: 0, bStart: 1, bCount: 1 }]);
    assert.deepEqual(diffLines(['a', 'b', 'c'], ['a', 'c']), [{ aStart: 1, aCount: 1, bStart: 1, bCount: 0 }]);
    assert.deepEqual(diffLines(['a', 'b', 'c', 'd', 'e'], ['a', 'B', 'c', 'd', 'E']), [
      { aStart: 1, aCount: 1, bStart: 1, bCount: 1 },
      { aStart: 4, aCount: 1, bStart: 4, bCount: 1 },
    ]);
    assert.deepEqual(diffLines(['a'], ['a']), []);
  });

  void test('random edits round-trip', () => {
    const rnd = prng(42);
    for (let i = 0; i < 300; i++) {
      const a = Array.from({ length: Math.floor(rnd() * 30) }, () => String.fromCharCode(97 + Math.floor(rnd() * 4)));
      const b = a.filter(() => rnd() > 0.2).flatMap((x) => (rnd() > 0.8 ? [x, 'n'] : [x]));
      assert.deepEqual(apply(a, b, diffLines(a, b)), b, `${a.join('')} -> ${b.join('')}`);
    }
  });

  void test('hundreds of edits: as few as a longest common subsequence leaves, and applied they give b', () => {
    const rnd = prng(7);
    /** The length of a longest common subsequence, by the textbook table. */
    const lcs = (a: string[], b: string[]): number => {
      let prev = new Array<number>(b.length + 1).fill(0);
      for (const x of a) {
        const row = [0];
        for (let j = 0; j < b.length; j++) {
          row.push(x === b[j] ? prev[j]! + 1 : Math.max(prev[j + 1]!, row[j]!));
        }
        prev = row;
      }
      return prev[b.length]!;
    };
    for (let i = 0; i < 20; i++) {
      const line = (): string => String.fromCharCode(97 + Math.floor(rnd() * 6));
      const a = Array.from({ length: 300 + Math.floor(rnd() * 300) }, line);
      const b = a.filter(() => rnd() > 0.3).flatMap((x) => (rnd() > 0.7 ? [x, line()] : [x]));
      const hunks = diffLines(a, b);
      assert.deepEqual(apply(a, b, hunks), b);
      const edits = hunks.reduce((n, h) => n + h.aCount + h.bCount, 0);
      assert.equal(edits, a.length + b.length - 2 * lcs(a, b));
      assert.deepEqual(changedInB(a, b), hunks.map((h) => ({ bStart: h.bStart, bCount: h.bCount })));
    }
  });

  void test('a file rewritten whole: one block', () => {
    const a = Array.from({ length: 3000 }, (_, i) => `old ${i}`);
    const b = Array.from({ length: 3000 }, (_, i) => `new ${i}`);
    assert.deepEqual(diffLines(a, b), [{ aStart: 0, aCount: 3000, bStart: 0, bCount: 3000 }]);
    assert.deepEqual(changedInB(a, b), [{ bStart: 0, bCount: 3000 }]);
  });

  void test('beyond the edit limit: diffLines gives one block, changedRegions only the lines a holds nowhere', () => {
    const x = Array<string>(2101).fill('x');
    const y = Array<string>(2101).fill('y');
    const a = ['same', ...x, ...y, 'end'];
    const b = ['same', ...y, 'new', ...x, 'end'];
    // 4,203 edits at least (2,101 lines kept of 4,202 and 4,203).
    assert.deepEqual(diffLines(a, b), [{ aStart: 1, aCount: 4202, bStart: 1, bCount: 4203 }]);
    assert.deepEqual(apply(a, b, diffLines(a, b)), b);
    assert.deepEqual(changedInB(a, b), [{ bStart: 2102, bCount: 1 }]);
  });

  void test('splitLines: a final newline ends a line', () => {
    assert.deepEqual(splitLines('a\nb\n'), ['a', 'b']);
    assert.deepEqual(splitLines('a\r\nb'), ['a', 'b']);
    assert.deepEqual(splitLines(''), ['']);
  });
});
