/**
 * The editor guard's handling of writes, with real files and an editor stand-in: a write over
 * a dirty buffer keeps the agent's version and (block mode) puts the previous content back;
 * neither side of the conflict is ever lost.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { EditorWrites, maxBaselineBytes, type GuardedTree, type OpenDocument, type OpenNotebook, type QuarantineEntry, type SetAsideStore } from '../../../src/io/guard/editorWrites';
import type { TreeChange } from '../../../src/io/workTree';
import { nullLogger } from '../../../src/core/lib/logger';

const sha = (b: Uint8Array | string): string => createHash('sha256').update(b).digest('hex');

/** The quarantine in memory; `onKeep` runs while a version is being kept (a race's other side). */
class MemoryStore implements SetAsideStore {
  readonly blobs = new Map<string, Uint8Array>();
  readonly entries: QuarantineEntry[] = [];
  onKeep: (() => void) | undefined;

  keep(content: Uint8Array): Promise<{ id: string; bytes: number }> {
    const id = sha(content);
    this.blobs.set(id, Uint8Array.from(content));
    this.onKeep?.();
    return Promise.resolve({ id, bytes: content.length });
  }

  record(entry: QuarantineEntry): Promise<void> {
    this.entries.push(entry);
    return Promise.resolve();
  }

  /** Every version of the file the store holds, as text. */
  texts(): string[] {
    return [...this.blobs.values()].map((b) => Buffer.from(b).toString('utf8'));
  }
}

const tree: GuardedTree = { track: () => Promise.resolve(), lastSeen: () => undefined };

let dir: string;
let file: string;
let store: MemoryStore;
let doc: OpenDocument & { isDirty: boolean; text: string };
let previousHash: string | null;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'editor-writes-'));
  file = path.join(dir, 'a.ts');
  store = new MemoryStore();
  doc = { isDirty: false, text: '', getText: () => doc.text };
  previousHash = null;
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function guard(mode: 'block' | 'warn', opts?: { quietMs?: number }): EditorWrites {
  return new EditorWrites(mode, store, nullLogger, (p) => (p === file ? doc : undefined), opts);
}

/** The file opened in the editor (its disk version kept), then edited without saving. */
async function openAndEdit(g: EditorWrites, onDisk: string, unsaved: string): Promise<void> {
  writeFileSync(file, onDisk);
  previousHash = sha(onDisk);
  doc.text = onDisk;
  await g.remember(tree, file);
  doc.text = unsaved;
  doc.isDirty = true;
}

/** What the working tree reports when it sees `content` on disk, written by an unknown process. */
function changeTo(content: string): TreeChange {
  const c: TreeChange = { path: file, at: Date.now(), hash: sha(content), previous: previousHash, by: { kind: 'unknown' } };
  previousHash = c.hash;
  return c;
}

void describe('editor writes', () => {
  void test('block: a write over a dirty buffer is set aside and the file put back', async () => {
    const g = guard('block');
    await openAndEdit(g, 'mine\n', 'mine, unsaved\n');
    writeFileSync(file, 'the agent\n');
    const aside = await g.onChange(tree, changeTo('the agent\n'));
    assert.ok(aside);
    assert.equal(aside.restored, true);
    assert.equal(aside.entry.reason, 'dirty-buffer');
    assert.deepEqual(store.texts(), ['the agent\n']);
    assert.equal(readFileSync(file, 'utf8'), 'mine\n');
    assert.equal(doc.text, 'mine, unsaved\n');
    // The put-back is the guard's own write, not a new conflict.
    assert.equal(await g.onChange(tree, changeTo('mine\n')), undefined);
    assert.equal(store.entries.length, 1);
  });

  void test('warn: a write over a dirty buffer is set aside and stays on disk', async () => {
    const g = guard('warn');
    await openAndEdit(g, 'mine\n', 'mine, unsaved\n');
    writeFileSync(file, 'the agent\n');
    const aside = await g.onChange(tree, changeTo('the agent\n'));
    assert.equal(aside?.restored, false);
    assert.deepEqual(store.texts(), ['the agent\n']);
    assert.equal(readFileSync(file, 'utf8'), 'the agent\n');
  });

  void test('the editor saving its buffer is no conflict', async () => {
    const g = guard('block');
    await openAndEdit(g, 'mine\n', 'mine, unsaved\n');
    writeFileSync(file, 'mine, unsaved\n');
    assert.equal(await g.onChange(tree, changeTo('mine, unsaved\n')), undefined);
    assert.equal(store.entries.length, 0);
    assert.equal(readFileSync(file, 'utf8'), 'mine, unsaved\n');
  });

  void test('a file too large to keep in memory is only set aside, never put back', async () => {
    const g = guard('block');
    await openAndEdit(g, 'x'.repeat(maxBaselineBytes + 1), 'unsaved');
    writeFileSync(file, 'the agent\n');
    const aside = await g.onChange(tree, changeTo('the agent\n'));
    assert.equal(aside?.restored, false);
    assert.equal(readFileSync(file, 'utf8'), 'the agent\n');
  });

  void test('a write still landing while the first thing seen of it is set aside: the write is not undone unkept', async () => {
    const g = guard('block');
    await openAndEdit(g, 'mine\n', 'mine, unsaved\n');
    // A write truncates, then writes: the watcher may look in between, and the rest of the
    // write lands while the guard keeps the empty file.
    writeFileSync(file, '');
    store.onKeep = () => {
      store.onKeep = undefined;
      writeFileSync(file, 'the agent\n');
    };
    await g.onChange(tree, changeTo(''));
    await settle(g);
    assert.ok(store.texts().includes('the agent\n') || readFileSync(file, 'utf8') === 'the agent\n', "the agent's version is kept or on disk");
    assert.equal(readFileSync(file, 'utf8'), 'mine\n', 'put back once the whole write was set aside');
    assert.equal(doc.text, 'mine, unsaved\n');
  });

  void test('the user saving while the agent\'s version is set aside: the save is not overwritten', async () => {
    const g = guard('block');
    await openAndEdit(g, 'mine\n', 'mine, unsaved\n');
    writeFileSync(file, 'the agent\n');
    store.onKeep = () => {
      store.onKeep = undefined;
      // "Overwrite" in VS Code's save conflict, or auto-save: the buffer goes to disk.
      writeFileSync(file, 'mine, unsaved\n');
      doc.isDirty = false;
    };
    await g.onChange(tree, changeTo('the agent\n'));
    await settle(g, { kind: 'user' });
    assert.equal(readFileSync(file, 'utf8'), 'mine, unsaved\n', 'the saved buffer stays on disk');
    assert.deepEqual(store.texts(), ['the agent\n']);
  });

  void test('two changes of one write judged at once: one version set aside, the file put back', async () => {
    const g = guard('block');
    await openAndEdit(g, 'mine\n', 'mine, unsaved\n');
    writeFileSync(file, 'the agent\n');
    // The tree saw the truncated file and then the whole one; both changes arrive before the
    // first is judged.
    const first = g.onChange(tree, changeTo(''));
    const second = g.onChange(tree, changeTo('the agent\n'));
    await Promise.all([first, second]);
    await settle(g);
    assert.deepEqual(store.entries.map((e) => e.id), [sha('the agent\n')]);
    assert.equal(readFileSync(file, 'utf8'), 'mine\n');
  });
  void test('nested workspace folders: each change reported by both trees, the put-back is not taken for an agent\'s write', async () => {
    // A folder inside another folder of the window: the file is in both working trees, and
    // each reports every change of it, in either order.
    const inner: GuardedTree = { track: () => Promise.resolve(), lastSeen: () => undefined };
    for (const order of ['each tree in turn', 'write, write, put-back, put-back']) {
      store = new MemoryStore();
      const g = guard('block');
      await openAndEdit(g, 'mine\n', 'mine, unsaved\n');
      writeFileSync(file, 'the agent\n');
      const write = changeTo('the agent\n');
      const putBack = { ...write, previous: write.hash, hash: sha('mine\n') };
      previousHash = putBack.hash;
      if (order === 'each tree in turn') {
        await g.onChange(tree, write);
        await g.onChange(tree, putBack);
        await g.onChange(inner, write);
        await g.onChange(inner, putBack);
      } else {
        await Promise.all([g.onChange(tree, write), g.onChange(inner, write)]);
        await g.onChange(tree, putBack);
        await g.onChange(inner, putBack);
      }
      assert.deepEqual(store.entries.map((e) => e.id), [sha('the agent\n')], order);
      assert.equal(readFileSync(file, 'utf8'), 'mine\n', order);
      assert.equal(doc.text, 'mine, unsaved\n');
    }
  });

  void test('a write still going on (the file truncated, its content not written yet) is not overwritten by the put-back', async () => {
    const g = guard('block', { quietMs: 200 });
    const mine = 'mine\n'.repeat(50);
    await openAndEdit(g, mine, mine + 'unsaved');
    // The agent's write has truncated the file (the watcher saw it empty) and writes its
    // content a moment later, through the descriptor it holds.
    const fd = openSync(file, 'w');
    const judged = g.onChange(tree, changeTo(''));
    await sleep(20);
    writeSync(fd, 'the agent\n');
    closeSync(fd);
    await judged;
    await settle(g);
    assert.deepEqual(store.texts(), ['the agent\n'], "the agent's version is kept whole, and no part of it beside");
    assert.equal(readFileSync(file, 'utf8'), mine, 'put back, not mixed with the agent\'s bytes');
  });

  void test('a session writing over a version it never saw (the buffer clean): set aside as stale and put back; over the version it saw, or one it saw unhashed: no conflict', async () => {
    const session = '/t/s1.jsonl';
    const seenAs = (hash: string | undefined): GuardedTree => ({ track: () => Promise.resolve(), lastSeen: (s, p) => (s === session && p === file ? { at: 0, hash, how: 'read', source: 'hook', callId: undefined } : undefined) });
    const bySession = (content: string): TreeChange => ({ ...changeTo(content), by: { kind: 'session', session } });
    const g = guard('block');
    writeFileSync(file, 'v2\n');
    previousHash = sha('v2\n');
    doc.text = 'v2\n';
    await g.remember(tree, file);
    writeFileSync(file, 'the agent\n');
    const aside = await g.onChange(seenAs(sha('v1\n')), bySession('the agent\n'));
    assert.equal(aside?.entry.reason, 'stale-write');
    assert.equal(aside.restored, true);
    assert.equal(readFileSync(file, 'utf8'), 'v2\n');
    await g.onChange(tree, changeTo('v2\n'));
    for (const hash of [sha('v2\n'), undefined]) {
      writeFileSync(file, 'the agent again\n');
      assert.equal(await g.onChange(seenAs(hash), bySession('the agent again\n')), undefined, String(hash));
      writeFileSync(file, 'v2\n');
      previousHash = sha('v2\n');
      await g.remember(tree, file);
    }
    assert.equal(store.entries.length, 1);
  });

  void test('the user’s own save seen after they typed on (the buffer dirty again): kept as the new version, not set aside', async () => {
    const g = guard('block');
    await openAndEdit(g, 'mine\n', 'mine, saved\n');
    writeFileSync(file, 'mine, saved\n');
    doc.text = 'mine, saved, and typed on\n';
    assert.equal(await g.onChange(tree, { ...changeTo('mine, saved\n'), by: { kind: 'user' } }), undefined);
    assert.equal(store.entries.length, 0);
    assert.equal(readFileSync(file, 'utf8'), 'mine, saved\n');
    // The save is now what a conflicting write is put back to.
    writeFileSync(file, 'the agent\n');
    assert.equal((await g.onChange(tree, changeTo('the agent\n')))?.restored, true);
    assert.equal(readFileSync(file, 'utf8'), 'mine, saved\n');
  });

  void test('after a put-back and the user’s save, an agent writing the old content again is set aside: the put-back is no longer the guard’s own write', async () => {
    const g = guard('block');
    await openAndEdit(g, 'mine\n', 'mine, unsaved\n');
    writeFileSync(file, 'the agent\n');
    assert.equal((await g.onChange(tree, changeTo('the agent\n')))?.restored, true);
    assert.equal(await g.onChange(tree, changeTo('mine\n')), undefined, 'the put-back');
    writeFileSync(file, 'mine, saved\n');
    await g.onChange(tree, { ...changeTo('mine, saved\n'), by: { kind: 'user' } });
    doc.text = 'mine, saved, and typed on\n';
    writeFileSync(file, 'mine\n');
    const aside = await g.onChange(tree, changeTo('mine\n'));
    assert.equal(aside?.entry.reason, 'dirty-buffer');
    assert.equal(readFileSync(file, 'utf8'), 'mine, saved\n');
  });

  void test('off: nothing is kept to be put back', async () => {
    const g = new EditorWrites('off', store, nullLogger, (p) => (p === file ? doc : undefined));
    writeFileSync(file, 'mine\n');
    await g.remember(tree, file);
    assert.equal(g.remembers(file), false);
  });

  void test('a file saved too large to keep in memory: its older version is not put back over it', async () => {
    const g = guard('block');
    await openAndEdit(g, 'small\n', 'small, unsaved\n');
    // The user saves a version larger than what is kept in memory, then edits it again.
    const large = 'x'.repeat(maxBaselineBytes + 1);
    writeFileSync(file, large);
    doc.text = large;
    doc.isDirty = false;
    await g.onChange(tree, { ...changeTo(large), by: { kind: 'user' } });
    doc.text = large + 'unsaved';
    doc.isDirty = true;
    writeFileSync(file, 'the agent\n');
    const aside = await g.onChange(tree, changeTo('the agent\n'));
    assert.equal(aside?.restored, false);
    assert.equal(readFileSync(file, 'utf8'), 'the agent\n', 'not the version before the save');
  });
});

/** As the working tree would: reports what is on disk now, until it stops changing. */
async function settle(g: EditorWrites, by: TreeChange['by'] = { kind: 'unknown' }): Promise<void> {
  for (let i = 0; i < 5; i++) {
    const now = readFileSync(file, 'utf8');
    if (sha(now) === previousHash) {
      return;
    }
    const c = changeTo(now);
    await g.onChange(tree, { ...c, by });
  }
  assert.fail('the file keeps changing');
}

void describe('editor writes over a notebook', () => {
  /** An .ipynb file holding these code cells. */
  const ipynb = (...sources: string[]): string => JSON.stringify({ cells: sources.map((s) => ({ cell_type: 'code', source: [s], metadata: {}, outputs: [], execution_count: null })), metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1);

  /** A notebook in the editor: its cells, and the saves the host saw (at, and the hash it read back). */
  let nb: OpenNotebook & { isDirty: boolean; sources: string[]; saves: { at: number; hash?: string }[] };

  beforeEach(() => {
    file = path.join(dir, 'a.ipynb');
    nb = {
      kind: 'notebook',
      isDirty: false,
      sources: [],
      saves: [],
      cells: () => nb.sources.map((text) => ({ kind: 'code', text })),
      isSavedAs: (hash, at) => nb.saves.some((s) => s.hash === hash && Math.abs(s.at - at) < 3000),
      savedNear: (at) => nb.saves.some((s) => Math.abs(s.at - at) < 3000),
    };
  });

  function notebookGuard(mode: 'block' | 'warn'): EditorWrites {
    return new EditorWrites(mode, store, nullLogger, (p) => (p === file ? nb : undefined));
  }

  async function openAndEditNotebook(g: EditorWrites, onDisk: string[], unsaved: string[]): Promise<void> {
    writeFileSync(file, ipynb(...onDisk));
    previousHash = sha(ipynb(...onDisk));
    nb.sources = onDisk;
    await g.remember(tree, file);
    nb.sources = unsaved;
    nb.isDirty = true;
  }

  /** The change is judged the editor's own save: nothing set aside, the file left holding `content`. */
  async function judgedTheEditorsSave(g: EditorWrites, c: TreeChange, content: string): Promise<void> {
    assert.equal(await g.onChange(tree, c), undefined);
    assert.equal(store.entries.length, 0);
    assert.equal(readFileSync(file, 'utf8'), content);
  }

  /**
   * The editor saved `print(2)` over `print(1)`, and the user typed on (`print(3)`) before the
   * change was judged: the change the watcher saw. `readBack`: the host read the save back (its
   * hash known), else only its beginning was seen.
   */
  async function savedThenTypedOn(g: EditorWrites, readBack: boolean): Promise<TreeChange> {
    await openAndEditNotebook(g, ['print(1)'], ['print(2)']);
    writeFileSync(file, ipynb('print(2)'));
    const c = changeTo(ipynb('print(2)'));
    nb.saves.push(readBack ? { at: c.at, hash: sha(ipynb('print(2)')) } : { at: c.at - 10 });
    nb.sources = ['print(3)'];
    return c;
  }

  void test('block: a write over unsaved cells is set aside and the file put back; the cells are untouched', async () => {
    const g = notebookGuard('block');
    await openAndEditNotebook(g, ['print(1)'], ['print(1)', 'print(2)']);
    writeFileSync(file, ipynb('print("the agent")'));
    const aside = await g.onChange(tree, changeTo(ipynb('print("the agent")')));
    assert.equal(aside?.restored, true);
    assert.equal(aside.entry.reason, 'dirty-buffer');
    assert.deepEqual(store.texts(), [ipynb('print("the agent")')]);
    assert.equal(readFileSync(file, 'utf8'), ipynb('print(1)'));
    assert.deepEqual(nb.sources, ['print(1)', 'print(2)']);
  });

  void test('the editor saving its cells (before its save event is seen) is no conflict, though the bytes are not the buffer’s', async () => {
    const g = notebookGuard('block');
    await openAndEditNotebook(g, ['print(1)'], ['print(1)', 'print(2)']);
    // As VS Code's serializer would write them: other spacing, outputs, metadata.
    const saved = JSON.stringify({ cells: [{ cell_type: 'code', execution_count: 3, metadata: {}, outputs: [{ output_type: 'stream', name: 'stdout', text: ['1\n'] }], source: ['print(1)'] }, { cell_type: 'code', execution_count: null, metadata: {}, outputs: [], source: ['print(2)'] }], metadata: { language_info: { name: 'python' } }, nbformat: 4, nbformat_minor: 5 }, null, 1) + '\n';
    writeFileSync(file, saved);
    assert.equal(await g.onChange(tree, changeTo(saved)), undefined);
    assert.equal(store.entries.length, 0);
    assert.equal(readFileSync(file, 'utf8'), saved);
  });

  void test('the editor’s save, read back by the host, when the cells changed again since: no conflict, nothing put back', async () => {
    const g = notebookGuard('block');
    const c = await savedThenTypedOn(g, true);
    await judgedTheEditorsSave(g, c, ipynb('print(2)'));
  });

  void test('the editor’s save first seen half written, its cells changed since: the save, once whole, is recognised', async () => {
    const g = notebookGuard('block');
    await openAndEditNotebook(g, ['print(1)'], ['print(2)']);
    // The watcher saw the file truncated; by the time it is judged the save is whole and read back.
    writeFileSync(file, '');
    const c = changeTo('');
    writeFileSync(file, ipynb('print(2)'));
    nb.saves.push({ at: c.at, hash: sha(ipynb('print(2)')) });
    nb.sources = ['print(3)'];
    await judgedTheEditorsSave(g, c, ipynb('print(2)'));
  });

  void test('a change judged before the host has read the save back: the read-back is waited for', async () => {
    const g = notebookGuard('block');
    // The save began; its event (and the read-back) comes after the change is judged.
    const c = await savedThenTypedOn(g, false);
    const saves = nb.saves;
    setTimeout(() => saves.push({ at: c.at + 250, hash: sha(ipynb('print(2)')) }), 250);
    await judgedTheEditorsSave(g, c, ipynb('print(2)'));
  });

  void test('a save without its beginning seen (Save without Formatting runs no onWillSave), its event late: the read-back is waited for', async () => {
    const g = notebookGuard('block');
    await openAndEditNotebook(g, ['print(1)'], ['print(2)']);
    writeFileSync(file, ipynb('print(2)'));
    const c = changeTo(ipynb('print(2)'));
    nb.sources = ['print(3)'];
    // No save is known when the change is judged: its event comes 250 ms later (the host busy).
    const saves = nb.saves;
    setTimeout(() => saves.push({ at: c.at + 250, hash: sha(ipynb('print(2)')) }), 250);
    await judgedTheEditorsSave(g, c, ipynb('print(2)'));
  });

  void test('a write near a save the host could not check: set aside, never put back (it may be the user’s save)', async () => {
    const g = notebookGuard('block');
    // The save began (its content not read back yet), and the user typed on.
    const c = await savedThenTypedOn(g, false);
    const aside = await g.onChange(tree, c);
    assert.equal(aside?.restored, false);
    assert.equal(readFileSync(file, 'utf8'), ipynb('print(2)'), 'what may be the user’s save stays on disk');
    assert.deepEqual(store.texts(), [ipynb('print(2)')], 'and is kept aside');
  });

  void test('a write long after the last save is put back', async () => {
    const g = notebookGuard('block');
    await openAndEditNotebook(g, ['print(1)'], ['print(2)']);
    nb.saves.push({ at: Date.now() - 10_000, hash: sha(ipynb('print(1)')) });
    writeFileSync(file, ipynb('print("the agent")'));
    const aside = await g.onChange(tree, changeTo(ipynb('print("the agent")')));
    assert.equal(aside?.restored, true);
    assert.equal(readFileSync(file, 'utf8'), ipynb('print(1)'));
  });
});
