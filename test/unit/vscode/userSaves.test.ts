import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
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
});
