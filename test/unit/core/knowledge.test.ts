/** What a session knows of files when it read them through a shell pattern (`for f in src/*.json`). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { shellPattern } from '../../../src/core/classify/paths';
import { FileKnowledge, touchesAny } from '../../../src/core/engine/knowledge';
import { prng } from '../support/run';
import type { ReadSnapshot, Span, WriteSnapshot } from '../../../src/core/model/events';

const at = (line: number): Span => ({ line, start: 0, end: 0 });
/** An edit of line 2 of `before`. */
const edit = (path: string, before: string): WriteSnapshot => ({ path, type: 'update', before, replaced: [{ start: 2, count: 1 }] });

void describe('shell patterns', () => {
  const cases: [string, string[], string[]][] = [
    ['/w/python/agents/*.json', ['/w/python/agents/a.json', '/w/python/agents/b.c.json'], ['/w/python/agents/.a.json', '/w/python/agents/x/a.json', '/w/python/a.json', '/w/python/agents/a.json.bak']],
    ['/w/src/??.ts', ['/w/src/ab.ts'], ['/w/src/a.ts', '/w/src/.a.ts']],
    ['/w/go/[a-c]*/x.go', ['/w/go/api/x.go', '/w/go/c/x.go'], ['/w/go/d/x.go', '/w/go/api/y/x.go']],
    ['/w/go/[!a]*.go', ['/w/go/b.go'], ['/w/go/a.go', '/w/go/.b.go']],
    // Quoted characters are literal (the classifier escapes them); a `[` never closed is literal.
    ['/w/app/\\[locale\\]/*.tsx', ['/w/app/[locale]/page.tsx'], ['/w/app/l/page.tsx']],
    ['/w/a[1/*.md', ['/w/a[1/x.md'], ['/w/a1/x.md']],
    // bash without globstar: `**` is `*`, within one directory.
    ['/w/src/**/*.ts', ['/w/src/a/b.ts'], ['/w/src/a/b/c.ts', '/w/src/b.ts']],
    // Windows (PowerShell's listings, see ShellAccess.inFolder): either separator, no escapes, so a
    // folder's `[`, `]` and `(` are themselves; case counts, and no wildcard takes a name with
    // `[`, `]` or a backtick (which -Path reads as wildcard syntax).
    [
      'C:\\w\\Script\\*.lua',
      ['C:\\w\\Script\\Aire03.lua', 'C:\\w\\Script\\a.b.lua'],
      ['C:\\w\\Script\\x\\a.lua', 'C:\\w\\Script\\.a.lua', 'C:\\w\\Script\\a[1].lua', 'C:\\w\\Script\\a`b.lua', 'C:\\w\\script\\a.lua', 'C:\\w\\Script\\a.lua.bak', 'C:\\w\\Script'],
    ],
    ['C:/w/Script/*.lua', ['C:\\w\\Script\\a.lua'], ['C:\\w\\Script\\x\\a.lua']],
    ['C:\\w\\app\\[id]\\(x)\\?.tsx', ['C:\\w\\app\\[id]\\(x)\\a.tsx'], ['C:\\w\\app\\i\\(x)\\a.tsx', 'C:\\w\\app\\[id]\\(x)\\ab.tsx']],
    ['\\\\srv\\share\\*.md', ['\\\\srv\\share\\a.md'], ['\\\\srv\\a.md', '\\\\srv\\share\\x\\a.md']],
    // `**`: the folder's tree, no folder in it starting with `.` (hidden, as `.git` is) or with `[`, `]`.
    [
      'C:\\w\\Script\\**\\*.lua',
      ['C:\\w\\Script\\a.lua', 'C:\\w\\Script\\x\\a.lua', 'C:\\w\\Script\\x\\y\\z\\a.lua'],
      ['C:\\w\\Script\\.git\\a.lua', 'C:\\w\\Script\\x\\.h\\a.lua', 'C:\\w\\Script\\[id]\\a.lua', 'C:\\w\\Other\\a.lua', 'C:\\w\\Script\\x\\a.txt', 'C:\\w\\a.lua'],
    ],
    ['D:\\api\\**\\F.json', ['D:\\api\\F.json', 'D:\\api\\x\\F.json'], ['D:\\api\\x\\G.json']],
  ];
  for (const [pattern, match, miss] of cases) {
    void test(pattern, () => {
      const re = shellPattern(pattern);
      assert.deepEqual(match.filter((p) => !re.test(p)), []);
      assert.deepEqual(miss.filter((p) => re.test(p)), []);
    });
  }
});

void describe('file knowledge: reads of a pattern', () => {
  const f = '/w/python/agents/review.json';
  const v1 = 'a\nb\nc\n';
  const v2 = 'a\nB\nc\n';

  void test('a whole-file read of a pattern: every file it matches was seen, content unknown', () => {
    const k = new FileKnowledge();
    k.noteSeenGlob('/w/python/agents/*.json', at(5), false);
    assert.equal(k.hasSeen(f), true);
    assert.equal(k.hasSeen('/w/python/prompts/review.md'), false);
    assert.equal(k.get(f)?.opaqueSince?.line, 5);
    assert.equal(k.judge(edit(f, v2)), undefined);
  });

  void test('the read counts in order with what else the session did to the file', () => {
    // Written, then changed by someone else, then read through the pattern: the session saw the change.
    const seenAfter = new FileKnowledge();
    seenAfter.noteWrite(f, at(2), v1);
    seenAfter.noteSeenGlob('/w/python/agents/*.json', at(5), false);
    assert.equal(seenAfter.judge(edit(f, v2)), undefined);
    // Read through the pattern, then written, then changed: the change is unseen.
    const seenBefore = new FileKnowledge();
    seenBefore.noteSeenGlob('/w/python/agents/*.json', at(2), false);
    seenBefore.noteWrite(f, at(5), v1);
    assert.deepEqual(seenBefore.judge(edit(f, v2))?.unseen, [{ start: 2, count: 1 }]);
  });

  void test('a read of a Windows pattern (a PowerShell listing read file by file): every file it matches was seen', () => {
    const k = new FileKnowledge();
    k.noteSeenGlob('C:\\w\\Script\\Regions\\*.lua', at(5), false);
    assert.equal(k.hasSeen('C:\\w\\Script\\Regions\\Aire03.lua'), true);
    assert.equal(k.hasSeen('C:\\w\\Script\\Regions\\x\\Aire03.lua'), false);
    assert.equal(k.get('C:\\w\\Script\\Regions\\Aire03.lua')?.opaqueSince?.line, 5);
  });

  void test('a partial read of a pattern (`sed -n 1,50p "$f"`) counts as a read and vouches for no content', () => {
    const k = new FileKnowledge();
    k.noteWrite(f, at(2), v1);
    k.noteSeenGlob('/w/python/agents/*.json', at(5), true);
    assert.equal(k.get(f)?.lastRead?.line, 5);
    assert.deepEqual(k.judge(edit(f, v2))?.unseen, [{ start: 2, count: 1 }]);
    const fresh = new FileKnowledge();
    fresh.noteSeenGlob('/w/python/agents/*.json', at(5), true);
    assert.equal(fresh.hasSeen(f), true);
  });

  void test('bounded: thousands of loops keep a few hundred patterns, and a dropped one claims nothing', () => {
    const k = new FileKnowledge();
    k.noteWrite(f, at(1), v1);
    k.noteSeenGlob('/w/python/agents/*.json', at(2), false);
    // The same pattern again and again is one pattern.
    for (let i = 0; i < 5000; i++) {
      k.noteSeenGlob('/w/docs/*.md', at(3 + i), false);
    }
    assert.equal(k.hasSeen('/w/docs/a.md'), true);
    for (let i = 0; i < 300; i++) {
      k.noteSeenGlob(`/w/gen${i}/*.go`, at(6000 + i), false);
    }
    // The agents pattern was dropped: a file only it matched is no longer known as seen …
    assert.equal(k.hasSeen('/w/python/agents/other.json'), false);
    // … and a file it may have shown since its last change is not judged on what it held before.
    assert.equal(k.judge(edit(f, v2)), undefined);
    assert.equal(k.hasSeen('/w/gen299/x.go'), true);
  });
});

void describe('file knowledge: a command that may rewrite any file of a directory', () => {
  const v1 = 'a\nb\nc\n';

  void test('what the session knew of each file under it is unknown after; outside it, unchanged', () => {
    const k = new FileKnowledge();
    k.noteRead('/w/src/a.ts', at(2), { path: '/w/src/a.ts', content: v1, startLine: 1, numLines: 3, totalLines: 3 });
    k.noteRead('/other/b.ts', at(3), { path: '/other/b.ts', content: v1, startLine: 1, numLines: 3, totalLines: 3 });
    k.noteRewrite('/w', at(4));
    // The file changed under the session's own `git checkout`: no claim about it.
    assert.equal(k.judge(edit('/w/src/a.ts', 'a\nB\nc\n')), undefined);
    assert.equal(k.get('/w/src/a.ts')?.opaqueSince?.line, 4);
    // Outside the directory the session still knows the file, so a change there is unseen.
    assert.ok(k.judge(edit('/other/b.ts', 'a\nB\nc\n')));
  });

  void test('a file the session never saw stays unseen (a rewrite shows it nothing)', () => {
    const k = new FileKnowledge();
    k.noteAttempted('/w/src/c.ts', at(2));
    k.noteRewrite('/w', at(3));
    assert.equal(k.hasSeen('/w/src/c.ts'), false);
    assert.equal(k.hasSeen('/w/src/d.ts'), false);
  });

  void test('a rewrite reaches a file when it is next looked at: moved since, or spelled with either separator', () => {
    const k = new FileKnowledge();
    k.noteRead('/w/src/a.ts', at(2), { path: '/w/src/a.ts', content: v1, startLine: 1, numLines: 3, totalLines: 3 });
    k.noteRead('C:\\w/src\\b.ts', at(3), { path: 'C:\\w/src\\b.ts', content: v1, startLine: 1, numLines: 3, totalLines: 3 });
    k.noteRewrite('/w/', at(4));
    k.noteRewrite('C:\\w', at(5));
    // The folder moves after the rewrite: its files carry the rewrite to their new paths.
    k.noteMove('/w/src', '/w/lib', at(6));
    assert.equal(k.get('/w/lib/a.ts')?.opaqueSince?.line, 4);
    assert.equal(k.get('C:\\w/src\\b.ts')?.opaqueSince?.line, 5);
    // A rewrite of the new folder before the move does not reach what moved in after it.
    k.noteRead('/x/c.ts', at(7), { path: '/x/c.ts', content: v1, startLine: 1, numLines: 3, totalLines: 3 });
    k.noteRewrite('/y', at(8));
    k.noteMove('/x/c.ts', '/y/c.ts', at(9));
    assert.ok(k.judge(edit('/y/c.ts', 'a\nB\nc\n')), 'its content is still known');
  });

  void test('a sibling directory that shares the prefix is not under it', () => {
    const k = new FileKnowledge();
    k.noteRead('/w2/a.ts', at(2), { path: '/w2/a.ts', content: v1, startLine: 1, numLines: 3, totalLines: 3 });
    k.noteRewrite('/w', at(3));
    assert.ok(k.judge(edit('/w2/a.ts', 'a\nB\nc\n')));
  });
});

void describe('file knowledge: the copies a git worktree holds', () => {
  const read = (k: FileKnowledge, path: string, line: number): void => k.noteRead(path, at(line), { path, content: 'a\n', startLine: 1, numLines: 1, totalLines: 1 });

  void test('each file seen under the old folder, placed against it and against the folders above it', () => {
    const k = new FileKnowledge();
    read(k, '/r/proj/ext/a.ts', 2);
    k.noteWrite('/r/proj/b.ts', at(3), 'b\n');
    k.noteAttempted('/r/proj/ext/tried.ts', at(4));
    read(k, '/elsewhere/c.ts', 5);
    assert.deepEqual(k.copiesInto('/r/proj/ext', '/wt/').sort(), ['/wt/a.ts', '/wt/b.ts', '/wt/ext/a.ts', '/wt/proj/b.ts', '/wt/proj/ext/a.ts'].sort());
  });

  void test('files already known in the worktree, and the worktree inside the repository, are not copied again', () => {
    const k = new FileKnowledge();
    read(k, '/r/a.ts', 2);
    read(k, '/r/.claude/worktrees/w/a.ts', 3);
    read(k, '/r/.claude/worktrees/w/b.ts', 4);
    assert.deepEqual(k.copiesInto('/r', '/r/.claude/worktrees/w'), []);
  });

  void test('Windows paths keep their separators and stop at the drive', () => {
    const k = new FileKnowledge();
    read(k, 'D:\\src\\app\\a.ts', 2);
    assert.deepEqual(k.copiesInto('D:\\src\\app', 'D:\\wt').sort(), ['D:\\wt\\a.ts', 'D:\\wt\\app\\a.ts'].sort());
  });
});

void describe('file knowledge: a folder seen under two names', () => {
  void test('what the session knew under the alias, files and pattern reads, holds under the real folder', () => {
    const k = new FileKnowledge();
    k.noteRead('/sessions/v/mnt/Dev/a.ts', at(2), { path: '/sessions/v/mnt/Dev/a.ts', content: 'a\nb\n', startLine: 1, numLines: 2, totalLines: 2 });
    k.noteSeenGlob('/sessions/v/mnt/Dev/src/*.py', at(3), false);
    const host = '/Users/ana (work)/Dev';
    k.noteRead(`${host}/b.ts`, at(4), { path: `${host}/b.ts`, content: 'b\n', startLine: 1, numLines: 1, totalLines: 1 });
    k.noteRead('/sessions/v/mnt/Dev/b.ts', at(3), { path: '/sessions/v/mnt/Dev/b.ts', content: 'old\n', startLine: 1, numLines: 1, totalLines: 1 });
    k.noteRead(`${host}/c.ts`, at(2), { path: `${host}/c.ts`, content: 'c\n', startLine: 1, numLines: 1, totalLines: 1 });
    k.noteRead('/sessions/v/mnt/Dev/c.ts', at(5), { path: '/sessions/v/mnt/Dev/c.ts', content: 'new\n', startLine: 1, numLines: 1, totalLines: 1 });
    k.alias('/sessions/v/mnt/Dev', host);
    assert.equal(k.get(`${host}/a.ts`)?.lastRead?.line, 2);
    assert.ok(k.judge(edit(`${host}/a.ts`, 'a\nB\n')), 'its content too');
    assert.equal(k.hasSeen(`${host}/src/app.py`), true);
    assert.equal(k.hasSeen(`${host}/lib/app.py`), false);
    // Of two names for one file, what the session learned last holds.
    assert.equal(k.get(`${host}/b.ts`)?.lastRead?.line, 4);
    assert.equal(k.get(`${host}/c.ts`)?.lastRead?.line, 5);
  });

  void test('a linked folder: what the session learns under it later is known under the real folder too, a moved folder is not', () => {
    const k = new FileKnowledge();
    k.link('/home/u/WORK', '/home/u/sda2/WORK');
    k.noteRead('/home/u/WORK/a.ts', at(3), { path: '/home/u/WORK/a.ts', content: 'a\nb\n', startLine: 1, numLines: 2, totalLines: 2 });
    assert.equal(k.get('/home/u/sda2/WORK/a.ts')?.lastRead?.line, 3);
    k.noteWrite('/home/u/sda2/WORK/b.ts', at(4), 'b\n');
    assert.equal(k.hasSeen('/home/u/WORK/b.ts'), true, 'either spelling');
    assert.equal(k.hasSeen('/home/u/WORKS/b.ts'), false, 'a folder whose name only starts alike');
    k.noteRewrite('/home/u/WORK', at(5));
    // After the session's own rewrite of the folder (a formatter), a different content is no unseen change.
    assert.equal(k.judge(edit('/home/u/sda2/WORK/a.ts', 'a\nB\n')), undefined, 'a rewrite through the link reaches the file');
    // `mv src lib` moves what was known once: a later file under src is another one.
    k.noteRead('/w/src/x.ts', at(6), { path: '/w/src/x.ts', content: 'x\n', startLine: 1, numLines: 1, totalLines: 1 });
    k.noteMove('/w/src', '/w/lib', at(7));
    k.noteRead('/w/src/y.ts', at(8), { path: '/w/src/y.ts', content: 'y\n', startLine: 1, numLines: 1, totalLines: 1 });
    assert.equal(k.hasSeen('/w/lib/y.ts'), false);
    k.release();
    assert.equal(k.hasSeen('/home/u/WORK/a.ts'), false);
  });
});

void describe('file knowledge: a file put back to a version the session saw', () => {
  const full = (path: string, content: string): ReadSnapshot => ({ path, content, startLine: 1, numLines: 3, totalLines: 3 });

  void test('the verdict names the earlier version, read or written; another content names none', () => {
    const k = new FileKnowledge();
    k.noteRead('/w/a.ts', at(2), full('/w/a.ts', 'a\nb\nc\n'));
    k.noteWrite('/w/a.ts', at(3), 'a\nB\nc\n');
    k.noteWrite('/w/a.ts', at(4), 'a\nB\nC\n');
    assert.deepEqual(k.judge(edit('/w/a.ts', 'a\nb\nc\n'))?.revertedTo, { at: at(2), source: 'read' });
    assert.deepEqual(k.judge(edit('/w/a.ts', 'a\nB\nc\n'))?.revertedTo, { at: at(3), source: 'write' });
    const other = k.judge(edit('/w/a.ts', 'a\nx\nc\n'));
    assert.ok(other && other.revertedTo === undefined);
  });

  void test('only the newest few versions are kept', () => {
    const k = new FileKnowledge();
    for (let i = 0; i < 8; i++) {
      k.noteWrite('/w/a.ts', at(i + 2), `v${i}\n`);
    }
    assert.equal(k.judge(edit('/w/a.ts', 'v0\n'))?.revertedTo, undefined);
    assert.equal(k.judge(edit('/w/a.ts', 'v6\n'))?.revertedTo?.at.line, 8);
  });
});

void describe('file knowledge: a move', () => {
  const full = (path: string, content: string): ReadSnapshot => ({ path, content, startLine: 1, numLines: 2, totalLines: 2 });

  void test('a file goes with what the session knew of it; its old path is unknown', () => {
    const k = new FileKnowledge();
    k.noteRead('/w/a.ts', at(2), full('/w/a.ts', 'a\nb\n'));
    k.noteMove('/w/a.ts', '/w/b.ts', at(3));
    assert.equal(k.hasSeen('/w/a.ts'), false);
    assert.equal(k.get('/w/b.ts')?.lastWrite?.line, 3);
    assert.ok(k.judge(edit('/w/b.ts', 'a\nB\n')), 'its content is still known');
  });

  void test('a folder takes its files along, even when a pattern read matched the folder too', () => {
    const k = new FileKnowledge();
    k.noteSeenGlob('/w/specs/*', at(2), false);
    k.noteRead('/w/specs/001-a/spec.md', at(3), full('/w/specs/001-a/spec.md', 'a\nb\n'));
    k.noteMove('/w/specs/001-a', '/w/specs/001-b', at(4));
    assert.equal(k.get('/w/specs/001-b/spec.md')?.lastRead?.line, 3);
    assert.equal(k.hasSeen('/w/specs/001-a/spec.md'), false);
  });

  void test('a path the session knew nothing of: a write of the destination, content unknown', () => {
    const k = new FileKnowledge();
    k.noteMove('/w/x', '/w/y', at(2));
    assert.equal(k.get('/w/y')?.opaqueSince?.line, 2);
  });
});

void describe('file knowledge: which unseen change a write overwrote', () => {
  const v1 = 'a\nb\nc\n';
  const seen = (k: FileKnowledge): void => k.noteRead('/w/a.ts', at(2), { path: '/w/a.ts', content: v1, startLine: 1, numLines: 3, totalLines: 3 });

  void test('an insertion next to an unseen change overwrote nothing: aside, not overlap', () => {
    // A real 2.1.49 edit added one line at line 20, where a line had changed unseen.
    const k = new FileKnowledge();
    seen(k);
    const v = k.judge({ path: '/w/a.ts', type: 'update', before: 'a\nB\nc\n', replaced: [{ start: 2, count: 0 }] });
    assert.equal(v?.overlaps, false);
    assert.deepEqual(v?.unseen, [{ start: 2, count: 1 }]);
  });

  void test('whether a change touches a replaced range: as compared pair by pair, in any order', () => {
    const rnd = prng(11);
    const ranges = (): { start: number; count: number }[] => Array.from({ length: Math.floor(rnd() * 8) }, () => ({ start: 1 + Math.floor(rnd() * 40), count: Math.floor(rnd() * 4) }));
    const touches = (u: { start: number; count: number }, r: { start: number; count: number }): boolean => r.count > 0 && u.start < r.start + r.count && r.start < u.start + Math.max(u.count, 1);
    for (let i = 0; i < 3000; i++) {
      const unseen = ranges();
      const replaced = ranges();
      assert.equal(touchesAny(unseen, replaced), unseen.some((u) => replaced.some((r) => touches(u, r))), JSON.stringify({ unseen, replaced }));
    }
  });

  void test('a deletion at the edge of what an edit quoted and replaced overwrote nothing: aside', () => {
    // Forty-fifth set (Claude Code 1.0.84): lines removed right above the method the edit replaced.
    const k = new FileKnowledge();
    seen(k);
    const exact = k.judge({ path: '/w/a.ts', type: 'update', before: 'a\nc\n', replaced: [{ start: 2, count: 1 }], quoted: [{ start: 2, count: 1 }] });
    assert.equal(exact?.overlaps, false);
    assert.deepEqual(exact?.unseen, [{ start: 2, count: 0 }]);
    // The same region known only from a patch's hunk (not each line quoted): the deletion still counts.
    const hunk = k.judge({ path: '/w/a.ts', type: 'update', before: 'a\nc\n', replaced: [{ start: 2, count: 1 }] });
    assert.equal(hunk?.overlaps, true);
  });

  void test('a replaced line that changed unseen: overlap', () => {
    const k = new FileKnowledge();
    seen(k);
    assert.equal(k.judge({ path: '/w/a.ts', type: 'update', before: 'a\nB\nc\n', replaced: [{ start: 2, count: 1 }] })?.overlaps, true);
  });
});

void describe('file knowledge: one window of a file read again and again', () => {
  const f = '/w/big.ts';
  const file = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`);
  /** Lines `from`..`to` (1-based) of `lines`, as a partial read returns them. */
  const window = (from: number, to: number, lines = file): ReadSnapshot => ({ path: f, content: lines.slice(from - 1, to).join('\n'), startLine: from, numLines: to - from + 1, totalLines: lines.length });
  const changed = (at: number[]): string => file.map((l, i) => (at.includes(i + 1) ? `${l} changed` : l)).join('\n') + '\n';
  const write = (before: string): WriteSnapshot => ({ path: f, type: 'update', before, replaced: [{ start: 2, count: 1 }] });

  void test('the same lines read a thousand times are kept once, and judged as when every read was kept', () => {
    const k = new FileKnowledge();
    for (let i = 0; i < 1000; i++) {
      k.noteRead(f, at(2 + i), window(1, 3));
    }
    assert.equal(k.get(f)?.partials.length, 1);
    // Line 2 changed unseen since the reads: seen last by the newest one.
    assert.deepEqual(k.judge(write(changed([2]))), { unseen: [{ start: 2, count: 1 }], overlaps: true, seenAt: at(1001), seenBy: 'lines' });
  });

  void test('search output repeated, between windows read again: the verdicts of every view kept', () => {
    const k = new FileKnowledge();
    for (let i = 0; i < 300; i++) {
      k.noteShown(f, at(2 + i), 5, ['line 5', 'line 6'], true);
    }
    k.noteRead(f, at(400), window(1, 3));
    k.noteRead(f, at(401), window(7, 9));
    // Not the newest view: kept again.
    k.noteRead(f, at(402), window(1, 3));
    k.noteRead(f, at(403), window(1, 3));
    for (let i = 0; i < 300; i++) {
      k.noteShown(f, at(500 + i), 5, ['line 5', 'line 6'], true);
    }
    assert.equal(k.get(f)?.partials.length, 5);
    assert.deepEqual(k.judge(write(changed([2]))), { unseen: [{ start: 2, count: 1 }], overlaps: true, seenAt: at(403), seenBy: 'lines' });
    assert.deepEqual(k.judge(write(changed([8]))), { unseen: [{ start: 8, count: 1 }], overlaps: false, seenAt: at(401), seenBy: 'lines' });
    // Line 5 changed: the search output showed it as it was, which clears nothing.
    assert.deepEqual(k.judge(write(changed([5]))), undefined);
    assert.deepEqual(k.judge(write(changed([2, 8]))), { unseen: [{ start: 2, count: 1 }, { start: 8, count: 1 }], overlaps: true, seenAt: at(403), seenBy: 'lines' });
  });

  void test('a view repeated on its own line is kept as it came (its span may differ)', () => {
    const k = new FileKnowledge();
    k.noteRead(f, { line: 2, start: 0, end: 10 }, window(1, 3));
    k.noteRead(f, { line: 2, start: 20, end: 30 }, window(1, 3));
    assert.equal(k.get(f)?.partials.length, 2);
    assert.deepEqual(k.judge(write(changed([2])))?.seenAt, { line: 2, start: 0, end: 10 });
  });
});
