/** A jump that fails says why: the 50 MB limit only when the file is over it. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { editorSyncLimitBytes, jumpProblemMessage, statProblem } from '../../../src/vscode/jumpProblem';

const file = '/home/dev/.claude/projects/p/d4e5f6a7.jsonl';

void describe('a failed jump', () => {
  void test('a file that is gone is called gone, not too large', () => {
    const p = statProblem({ code: 'ENOENT', message: "ENOENT: no such file or directory, stat '…'" });
    assert.deepEqual(p, { kind: 'missing' });
    const m = jumpProblemMessage(file, 12, p);
    assert.equal(m, `Cannot open d4e5f6a7.jsonl at line 12: the file no longer exists (${file}).`);
    assert.doesNotMatch(m, /50 MB/);
  });

  void test('only a file over the limit is blamed on its size', () => {
    assert.equal(statProblem({ isFile: true, size: editorSyncLimitBytes }), undefined);
    assert.equal(statProblem({ isFile: true, size: 1000 }), undefined);
    const p = statProblem({ isFile: true, size: 80 * 1024 * 1024 });
    assert.deepEqual(p, { kind: 'tooLarge', bytes: 80 * 1024 * 1024 });
    assert.match(jumpProblemMessage(file, 3, p), /^Cannot open d4e5f6a7\.jsonl at line 3: at 80 MB it is over the 50 MB VS Code lets extensions open\./);
  });

  void test('a line past the end, a folder, a permission problem and an editor error each say so', () => {
    assert.equal(
      jumpProblemMessage(file, 40, { kind: 'beyondEnd', lines: 13 }),
      'd4e5f6a7.jsonl has 13 lines, so line 40 is gone: the file was rewritten or cut short after the finding was reported. Showing its end.',
    );
    assert.deepEqual(statProblem({ isFile: false, size: 0 }), { kind: 'notFile' });
    assert.equal(jumpProblemMessage(file, 1, { kind: 'notFile' }), `Cannot open d4e5f6a7.jsonl at line 1: ${file} is not a regular file.`);
    const denied = statProblem({ code: 'EACCES', message: "EACCES: permission denied, stat '…'" });
    assert.equal(jumpProblemMessage(file, 1, denied!), "Cannot open d4e5f6a7.jsonl at line 1: EACCES: permission denied, stat '…'");
    assert.equal(jumpProblemMessage(file, 2, { kind: 'failed', reason: 'boom' }), 'Cannot open d4e5f6a7.jsonl at line 2: boom');
  });
});
