import assert from 'node:assert/strict';
import { describe, mock, test } from 'node:test';
import { hashText } from '../../../src/io/workTree';
import { UserSaves, userSaveWindowMs } from '../../../src/vscode/userSaves';

void describe('the user’s saves', () => {
  const t0 = Date.parse('2026-12-02T10:00:00.000Z');

  void test('a change within the window that holds what the editor saved is the user’s; an agent’s write in that window is not', () => {
    const saves = new UserSaves();
    saves.saved('/w/a.ts', 'mine\n', t0);
    assert.equal(saves.isUserSave('/w/a.ts', t0 + 50, hashText('mine\n')), true);
    // The watcher can see the change before the save event: the window runs both ways.
    assert.equal(saves.isUserSave('/w/a.ts', t0 - 50, hashText('mine\n')), true);
    // An agent writes the file a second after the (auto-)save: not the user's, by its content.
    assert.equal(saves.isUserSave('/w/a.ts', t0 + 1000, hashText('the agent\n')), false);
    assert.equal(saves.isUserSave('/w/a.ts', t0 + 1000, null), false, 'a deletion is no save');
    assert.equal(saves.isUserSave('/w/b.ts', t0 + 50, hashText('mine\n')), false, 'another file');
  });

  void test('a file saved with a byte order mark matches; past the window nothing does, and old saves are forgotten', () => {
    const saves = new UserSaves();
    saves.saved('/w/a.ts', 'x', t0);
    assert.equal(saves.isUserSave('/w/a.ts', t0 + 10, hashText('\ufeffx')), true);
    assert.equal(saves.isUserSave('/w/a.ts', t0 + userSaveWindowMs, hashText('x')), false);
    saves.saved('/w/b.ts', 'y', t0 + userSaveWindowMs);
    assert.equal(saves.isUserSave('/w/a.ts', t0 + 10, hashText('x')), false, 'a.ts’s save was dropped once no change could match it');
  });

  void test('a notebook’s save is the user’s by the hash read back; a save begun or not read back is only known to have happened', () => {
    const saves = new UserSaves();
    const h = hashText('{"cells": []}');
    saves.savedNotebook('/w/n.ipynb', undefined, t0);
    assert.equal(saves.savedNear('/w/n.ipynb', t0 + 100), true, 'the save has begun');
    assert.equal(saves.isUserSave('/w/n.ipynb', t0 + 100, h), false, 'but what it wrote is not known');
    saves.savedNotebook('/w/n.ipynb', h, t0 + 200);
    assert.equal(saves.isUserSave('/w/n.ipynb', t0 + 150, h), true);
    assert.equal(saves.isUserSave('/w/n.ipynb', t0 + 150, hashText('the agent')), false);
    assert.equal(saves.savedNear('/w/n.ipynb', t0 + 200 + userSaveWindowMs), false, 'past the window');
    assert.equal(saves.savedNear('/w/other.ipynb', t0 + 200), false, 'another file');
  });

  void test('a save begun before the previous one’s change was judged (auto-save while typing) does not make the previous one another writer’s', () => {
    const saves = new UserSaves();
    const first = hashText('{"cells": [1]}');
    saves.savedNotebook('/w/n.ipynb', first, t0);
    saves.savedNotebook('/w/n.ipynb', undefined, t0 + 150);
    assert.equal(saves.isUserSave('/w/n.ipynb', t0 + 10, first), true, 'a notebook’s');
    saves.saved('/w/a.ts', 'one', t0);
    saves.saved('/w/a.ts', 'two', t0 + 150);
    assert.equal(saves.isUserSave('/w/a.ts', t0 + 10, hashText('one')), true, 'a text document’s');
    assert.equal(saves.isUserSave('/w/a.ts', t0 + 160, hashText('two')), true);
  });

  void test('a write putting back what the user saved before their latest save (an agent’s git checkout) is not the user’s', () => {
    const saves = new UserSaves();
    saves.saved('/w/a.ts', 'one', t0);
    assert.equal(saves.isUserSave('/w/a.ts', t0 + 10, hashText('one')), true);
    saves.saved('/w/a.ts', 'two', t0 + 1000);
    assert.equal(saves.isUserSave('/w/a.ts', t0 + 1010, hashText('two')), true);
    // Within the window of the first save, the file is written back to its content: not a save.
    assert.equal(saves.isUserSave('/w/a.ts', t0 + 1500, hashText('one')), false);
    // Asked again about the change it matched (a file in two working trees), a save still matches.
    assert.equal(saves.isUserSave('/w/a.ts', t0 + 1010, hashText('two')), true);
  });
  void test('a notebook save being read back holds changes of its file until it is, however many saves are under way', async () => {
    const saves = new UserSaves();
    assert.equal(saves.pending('/w/n.ipynb'), undefined, 'no save, nothing to wait for');
    saves.beginNotebookSave('/w/n.ipynb', t0);
    saves.beginNotebookSave('/w/n.ipynb', t0 + 100);
    const pending = saves.pending('/w/n.ipynb');
    assert.ok(pending);
    assert.equal(saves.pending('/w/other.ipynb'), undefined, 'another file');
    let settled = false;
    void pending.then(() => (settled = true));
    const h = hashText('{"cells": []}');
    saves.notebookSaveRead('/w/n.ipynb', h, t0 + 50);
    await Promise.resolve();
    assert.equal(settled, false, 'the second save is still being read back');
    assert.equal(saves.isUserSave('/w/n.ipynb', t0 + 40, h), true, 'the first one’s content is known');
    saves.notebookSaveRead('/w/n.ipynb', undefined, t0 + 150);
    await pending;
    assert.equal(saves.pending('/w/n.ipynb'), undefined);
    assert.equal(saves.savedNear('/w/n.ipynb', t0 + 150), true, 'a save not read back as the editor’s is still known to have happened');
  });

  void test('a notebook save never read back (it failed) holds its file’s changes for the save window at most', async (t) => {
    mock.timers.enable({ apis: ['setTimeout'] });
    t.after(() => mock.timers.reset());
    const saves = new UserSaves();
    saves.beginNotebookSave('/w/n.ipynb', t0);
    const pending = saves.pending('/w/n.ipynb')!;
    let settled = false;
    void pending.then(() => (settled = true));
    mock.timers.tick(userSaveWindowMs - 1);
    await Promise.resolve();
    assert.equal(settled, false);
    mock.timers.tick(1);
    await pending;
    assert.equal(saves.pending('/w/n.ipynb'), undefined);
    // A read-back arriving after that settles nothing and throws nothing.
    saves.notebookSaveRead('/w/n.ipynb', undefined, t0 + userSaveWindowMs + 10);
  });
});
