/** writeRepaired (src/io/repairFile.ts), the one write of a repair, called directly as the extension calls it. */
import assert from 'node:assert/strict';
import { chownSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { writeRepaired } from '../../../src/io/repairFile';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ag-write-repaired-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

void describe('writeRepaired', () => {
  void test('a symlinked transcript is written where it points, and the link stays a link', { skip: process.platform === 'win32' }, async () => {
    // The extension passes the path the watcher found: in a folder of links to sessions, a link.
    const real = path.join(tmp, 'sessions');
    const links = path.join(tmp, 'links');
    mkdirSync(real);
    mkdirSync(links);
    const target = path.join(real, 'session.jsonl');
    const link = path.join(links, 'session.jsonl');
    const original = Buffer.from('{"a":1}\n{"b":2}\n');
    const repaired = Buffer.from('{"a":1}\n');
    writeFileSync(target, original);
    symlinkSync(target, link);

    const backup = await writeRepaired(link, original, repaired, statSync(link), undefined);

    assert.ok(lstatSync(link).isSymbolicLink(), 'the link is still a link');
    assert.deepEqual(readFileSync(target), repaired, 'the file the agent writes holds the repair');
    assert.deepEqual(readFileSync(backup), original, 'the backup holds the original');
    assert.equal(path.dirname(backup), real, 'the backup is beside the real file');
    assert.deepEqual(readdirSync(links), ['session.jsonl'], 'nothing left beside the link');
  });
});

void describe('writeRepaired run as root', () => {
  void test("the backup keeps the transcript's owner, who can then read it", { skip: process.getuid?.() !== 0 ? 'needs root' : false }, async () => {
    const dir = path.join(tmp, 'owned');
    mkdirSync(dir);
    const file = path.join(dir, 'session.jsonl');
    const original = Buffer.from('{"a":1}\n{"b":2}\n');
    writeFileSync(file, original, { mode: 0o600 });
    chownSync(file, 4321, 4321);

    const backup = await writeRepaired(file, original, Buffer.from('{"a":1}\n'), statSync(file), undefined);

    for (const p of [file, backup]) {
      const s = statSync(p);
      assert.deepEqual([s.uid, s.gid, s.mode & 0o777], [4321, 4321, 0o600], p);
    }
  });
});
