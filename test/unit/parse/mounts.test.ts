/** Claude Desktop's local-agent VM mounts: VM paths placed on the host folder their mount shows. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { VmMounts } from '../../../src/core/parse/claude/mounts';

void describe('local-agent VM mounts', () => {
  void test('a VM path stays as it is until a host path shows its mount; from then on it is placed', () => {
    const m = new VmMounts();
    assert.deepEqual(m.place('/sessions/keen-fox/mnt/Developer/lab/a.py'), { path: '/sessions/keen-fox/mnt/Developer/lab/a.py' });
    assert.deepEqual(m.place('/Users/ana/Developer/lab/b.py'), {
      path: '/Users/ana/Developer/lab/b.py',
      learned: [{ from: '/sessions/keen-fox/mnt/Developer', to: '/Users/ana/Developer' }],
    });
    assert.deepEqual(m.place('/sessions/keen-fox/mnt/Developer/lab/a.py'), { path: '/Users/ana/Developer/lab/a.py' });
    // Learned once.
    assert.deepEqual(m.place('/Users/ana/Developer/x.md'), { path: '/Users/ana/Developer/x.md' });
  });

  void test('a host path seen before the mount places it at once; a pattern gets the folder escaped', () => {
    const m = new VmMounts();
    m.place('/Users/ana/My [docs]/notes/a.md');
    assert.deepEqual(m.place('/sessions/v/mnt/My [docs]/notes/*.md', true), { path: '/Users/ana/My \\[docs\\]/notes/*.md' });
  });

  void test('a path through no folder of the mount’s name places nothing; relative paths and other mounts are left alone', () => {
    const m = new VmMounts();
    m.place('/sessions/v/mnt/outputs/r.md');
    assert.deepEqual(m.place('/Users/ana/Developer/outputs.md'), { path: '/Users/ana/Developer/outputs.md' });
    assert.deepEqual(m.place('notes/a.md'), { path: 'notes/a.md' });
    assert.deepEqual(m.place('/sessions/v/mnt/outputs/r.md'), { path: '/sessions/v/mnt/outputs/r.md' });
  });
});
