/** What Claude Code's tool output shows of files: git diff hunks, and which commands print one of the working tree. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyHunks, diffsWorkingTree, diffViews, snippetViews } from '../../../src/core/parse/claude/parser';

void describe('git diff output as a view of the working tree', () => {
  void test('which commands print the working tree as the new side', () => {
    for (const yes of ['git diff', 'git diff website/src/pages/', 'cd web && git diff -- a.ts', 'git diff HEAD src/x.ts | head -80', 'git status && git diff', 'cd web && git diff --stat && echo "=== B ===" && git diff a.css b.js']) {
      assert.equal(diffsWorkingTree(yes), true, yes);
    }
    for (const no of ['git diff --cached', 'git diff --staged a.ts', 'git diff main..feature', 'git diff --stat', 'git diff --name-only', 'git diff | grep foo', 'git log -p', 'git show HEAD', 'echo git diff']) {
      assert.equal(diffsWorkingTree(no), false, no);
    }
  });

  void test('the new side of each hunk, at its line numbers, per file', () => {
    const out = [
      'diff --git a/src/a.ts b/src/a.ts',
      'index 1111111..2222222 100644',
      '--- a/src/a.ts',
      '+++ b/src/a.ts',
      '@@ -1,4 +1,4 @@',
      ' one',
      '-two',
      '+TWO',
      ' three',
      ' four',
      '@@ -10,2 +10,3 @@ function f() {',
      ' ten',
      '+added',
      ' eleven',
      'diff --git a/gone.ts b/gone.ts',
      'deleted file mode 100644',
      '--- a/gone.ts',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-bye',
      'diff --git a/new.ts b/new.ts',
      '--- /dev/null',
      '+++ b/new.ts',
      '@@ -0,0 +1,2 @@',
      '+x',
      '+y',
      '\\ No newline at end of file',
    ].join('\n');
    assert.deepEqual(Object.fromEntries(diffViews(out)), {
      'src/a.ts': [
        { start: 1, lines: ['one', 'TWO', 'three', 'four'] },
        { start: 10, lines: ['ten', 'added', 'eleven'] },
      ],
      'new.ts': [{ start: 1, lines: ['x', 'y'] }],
    });
  });
});

void describe('applyHunks', () => {
  void test('applies a structuredPatch to the text it was made against, and refuses one that does not match', () => {
    const text = 'a\nb\nc\nd\ne\n';
    const hunks = [
      { oldStart: 1, oldLines: 2, lines: [' a', '-b', '+B'] },
      { oldStart: 4, oldLines: 2, lines: [' d', '-e', '+E', '+F'] },
    ];
    assert.equal(applyHunks(text, hunks), 'a\nB\nc\nd\nE\nF\n');
    assert.equal(applyHunks('a\nX\nc\nd\ne\n', hunks), undefined);
    assert.equal(applyHunks(text, [{ oldStart: 3, oldLines: 0, lines: ['+new'] }]), undefined);
  });
});

void describe('snippetViews', () => {
  void test('the numbered source lines of ruff and rustc diagnostics, per file; markers, notes and elisions are no lines', () => {
    const out = [
      'F841 Local variable `event` is assigned to but never used',
      '   --> tests\\strategy\\test_lifecycle.py:254:9',
      '    |',
      '253 |',
      '254 |         event = manager.update_maturity("ppo_v1", 0.85)',
      '    |         ^^^^^',
      '255 |',
      '    |',
      'help: Remove assignment to unused variable `event`',
      '',
      'error[E0308]: mismatched types',
      ' --> src/main.rs:2:18',
      '  |',
      '2 |     let x: i32 = "five";',
      '  |            ---   ^^^^^^ expected `i32`, found `&str`',
      '...',
      '9 | }',
      '  = note: expected type',
      '12 | not a snippet line: the block ended at the note',
      'Found 2 errors.',
    ].join('\n');
    assert.deepEqual(Object.fromEntries(snippetViews(out)), {
      'tests\\strategy\\test_lifecycle.py': [{ start: 253, lines: ['', '        event = manager.update_maturity("ppo_v1", 0.85)', ''] }],
      'src/main.rs': [
        { start: 2, lines: ['    let x: i32 = "five";'] },
        { start: 9, lines: ['}'] },
      ],
    });
    assert.deepEqual(Object.fromEntries(snippetViews('--> a.py:1:1\nno lines here')), {});
  });
});
