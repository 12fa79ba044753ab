/** The quarantine on disk: every version kept can be listed and read back, byte for byte. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { QuarantineEntry } from '../../../src/io/guard/editorWrites';
import { QuarantineFiles } from '../../../src/io/guard/quarantineFiles';

let root: string;
let dir: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'quarantine-'));
  dir = path.join(root, 'quarantine');
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);

async function setAside(q: QuarantineFiles, content: string, file: string): Promise<QuarantineEntry> {
  const kept = await q.keep(bytes(content), file);
  const entry: QuarantineEntry = { ...kept, path: file, at: 1, author: 'an unattributed process', reason: 'dirty-buffer' };
  await q.record(entry);
  return entry;
}

void describe('quarantine files', () => {
  void test('a version kept is listed, also by a later window, and reads back byte for byte', async () => {
    const q = new QuarantineFiles(dir);
    const e = await setAside(q, 'the agent\r\n\u00e9', '/w/a.ts');
    assert.deepEqual(await q.list(), [e]);
    const later = new QuarantineFiles(dir);
    assert.deepEqual(await later.list(), [e]);
    assert.deepEqual(Buffer.from(await later.read(e.id)), Buffer.from(bytes('the agent\r\n\u00e9')));
  });

  void test('the same content set aside for two files: one blob, two entries, each readable', async () => {
    const q = new QuarantineFiles(dir);
    const a = await setAside(q, 'same', '/w/a.ts');
    const b = await setAside(q, 'same', '/w/b.ts');
    assert.equal(a.id, b.id);
    assert.deepEqual((await new QuarantineFiles(dir).list()).map((e) => e.path), ['/w/a.ts', '/w/b.ts']);
    assert.equal(Buffer.from(await q.read(b.id)).toString('utf8'), 'same');
  });

  void test('a torn last line of the index leaves the entries before it', async () => {
    const q = new QuarantineFiles(dir);
    const e = await setAside(q, 'one', '/w/a.ts');
    appendFileSync(path.join(dir, 'index.jsonl'), '{"id":"ab');
    assert.deepEqual(await new QuarantineFiles(dir).list(), [e]);
  });

  void test('an id that is not a hash is refused, not read as a path', async () => {
    await assert.rejects(new QuarantineFiles(dir).read('../../etc/passwd'), /not a quarantine id/);
  });

  void test('a blob cut short by an earlier failed write (a full disk, a crash) is written again, not refused forever', async () => {
    const content = 'the agent\n'.repeat(100);
    const id = createHash('sha256').update(content).digest('hex');
    // What writeFile leaves when the disk fills up halfway: the blob's name, part of its bytes.
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, `${id}.blob`), content.slice(0, 10));
    const q = new QuarantineFiles(dir);
    const e = await setAside(q, content, '/w/a.ts');
    assert.equal(e.id, id);
    assert.equal(Buffer.from(await q.read(id)).toString('utf8'), content);
    assert.equal(readFileSync(path.join(dir, `${id}.blob`), 'utf8'), content);
  });

  void test('the list asked for while a version is being recorded holds what the index holds', async () => {
    const e1 = await setAside(new QuarantineFiles(dir), 'one', '/w/a.ts');
    // A later window: its first set-aside reads the index while the user asks for the list.
    const q = new QuarantineFiles(dir);
    const kept = await q.keep(bytes('two'), '/w/b.ts');
    const e2: QuarantineEntry = { ...kept, path: '/w/b.ts', at: 2, author: 'an unattributed process', reason: 'dirty-buffer' };
    const [, listed] = await Promise.all([q.record(e2), q.list().then((l) => [...l])]);
    assert.ok(listed.some((e) => e.id === e1.id), 'the version set aside before is listed');
    assert.deepEqual((await q.list()).map((e) => e.path), ['/w/a.ts', '/w/b.ts']);
  });
});
