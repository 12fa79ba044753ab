import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { diffLines, splitLines } from '../../../src/core/lib/diff';
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

  void test('splitLines: a final newline ends a line', () => {
    assert.deepEqual(splitLines('a\nb\n'), ['a', 'b']);
    assert.deepEqual(splitLines('a\r\nb'), ['a', 'b']);
    assert.deepEqual(splitLines(''), ['']);
  });
});
