/** A burst of writes the editor guard set aside is one notification, naming the files. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { batchMessage } from '../../../src/vscode/guard/notices';

void test('names up to three files, then how many more', () => {
  const two = batchMessage([{ name: 'src/a.ts', restored: false }, { name: 'src/b.ts', restored: false }]);
  assert.equal(two, 'Agents wrote 2 times over files open in your editors (src/a.ts and src/b.ts). Their versions were set aside; your editors keep yours.');
  const five = batchMessage(['a', 'b', 'c', 'd', 'e'].map((n) => ({ name: n, restored: true })));
  assert.match(five, /^Agents wrote 5 times over files open in your editors \(a, b, c and 2 more\)\./);
  assert.match(five, /The files were put back as they were\.$/);
});

void test('a file written twice is named once; a partial put-back says how many', () => {
  const m = batchMessage([{ name: 'x.ts', restored: true }, { name: 'x.ts', restored: false }, { name: 'y.ts', restored: false }]);
  assert.match(m, /^Agents wrote 3 times over files open in your editors \(x\.ts and y\.ts\)\./);
  assert.match(m, / 1 of them were put back as they were\.$/);
});
