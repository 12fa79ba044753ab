import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Finding } from '../../../src/core/model/finding';
import { editorSpelling } from '../../../src/vscode/editorSpelling';
import { FindingTargets } from '../../../src/vscode/findingTargets';

void describe('a workspace opened through a symbolic link', () => {
  const folders = [
    { asOpened: '/home/me/app', real: '/disk/app' },
    { asOpened: '/home/me/plain', real: '/home/me/plain' },
  ];

  void test('a real path under the folder is named as the folder was opened; anything else is left as it is', () => {
    assert.equal(editorSpelling('/disk/app/src/a.ts', folders), '/home/me/app/src/a.ts');
    assert.equal(editorSpelling('/disk/app', folders), '/home/me/app');
    assert.equal(editorSpelling('/disk/application/a.ts', folders), '/disk/application/a.ts', 'a folder whose name only starts the same');
    assert.equal(editorSpelling('/home/me/plain/b.ts', folders), '/home/me/plain/b.ts');
    assert.equal(editorSpelling('/home/me/.claude/projects/x/s.jsonl', folders), '/home/me/.claude/projects/x/s.jsonl', 'a transcript');
  });

  void test('a finding about a workspace file goes on the file as the editor has it, and leaves it again', () => {
    const targets = new FindingTargets((p) => editorSpelling(p, folders));
    const f = { id: 'f1', file: '/home/me/.claude/projects/x/s.jsonl', subject: { path: '/disk/app/src/a.ts' } } as unknown as Finding;
    targets.apply({ added: [f], removed: [], updated: [] });
    assert.deepEqual([...targets.on('/home/me/app/src/a.ts')].map((x) => x.id), ['f1']);
    assert.deepEqual([...targets.on('/disk/app/src/a.ts')], []);
    targets.takeChanges();
    targets.apply({ added: [], removed: [f], updated: [] });
    assert.deepEqual([...targets.on('/home/me/app/src/a.ts')], []);
    assert.deepEqual(
      targets.takeChanges().map(([t, list]) => [t, list.length]).sort(),
      [
        ['/home/me/.claude/projects/x/s.jsonl', 0],
        ['/home/me/app/src/a.ts', 0],
      ],
      'both files are cleared',
    );
  });
});
