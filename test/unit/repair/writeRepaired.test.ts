/** writeRepaired (src/io/repairFile.ts), the one write of a repair, called directly as the extension calls it. */
import assert from 'node:assert/strict';
import { appendFileSync, chownSync, lstatSync, mkdirSync, mkdtempSync, promises as fsp, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
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

void describe('writeRepaired and a session still writing', () => {
  void test('a line appended between the last check and the rename is saved and reported, not lost', async (t) => {
    const dir = path.join(tmp, 'appended');
    mkdirSync(dir);
    const file = path.join(dir, 'session.jsonl');
    const original = Buffer.from('{"a":1}\n{"b":2}\n');
    const late = '{"late":"written by the agent as the repair lands"}\n';
    writeFileSync(file, original);
    // The agent appends (by path, as Claude Code does) at the last moment before the rename.
    const rename = fsp.rename.bind(fsp);
    t.mock.method(fsp, 'rename', async (from: string, to: string) => {
      appendFileSync(to, late);
      return rename(from, to);
    });

    await assert.rejects(writeRepaired(file, original, Buffer.from('{"a":1}\n'), statSync(file), undefined), (e: Error) => {
      assert.match(e.message, /^the file changed while the repair was being written \(is the session running\?\): the repair replaced 68 bytes, not the 16 it was made from, so what the session wrote last is not in it; the file it replaced is saved whole as .*session\.jsonl\.bak-[0-9TZ]+(-2)? \(stop the session, then restore from there\)$/);
      return true;
    });
    const saved = readdirSync(dir)
      .filter((f) => f.startsWith('session.jsonl.bak-'))
      .map((f) => readFileSync(path.join(dir, f), 'utf8'))
      .sort();
    assert.deepEqual(saved, [original.toString(), original.toString() + late].sort(), 'the original, and the file with the late line');
  });
});

void describe('writeRepaired and a crash', () => {
  void test('the backup’s folder is synced before the rename, and the transcript’s folder after it', { skip: process.platform === 'win32' }, async (t) => {
    const dir = path.join(tmp, 'synced');
    const backups = path.join(tmp, 'synced-backups');
    mkdirSync(dir);
    const file = path.join(dir, 'session.jsonl');
    const original = Buffer.from('{"a":1}\n{"b":2}\n');
    writeFileSync(file, original);
    // Which folders were opened, in order, around the rename.
    const steps: string[] = [];
    const open = fsp.open.bind(fsp);
    t.mock.method(fsp, 'open', async (p: string, flags?: string, mode?: number) => {
      const h = await open(p, flags, mode);
      if (statSync(p).isDirectory()) {
        const sync = h.sync.bind(h);
        t.mock.method(h, 'sync', async () => {
          steps.push(`sync ${path.basename(p)}`);
          return sync();
        });
      }
      return h;
    });
    const rename = fsp.rename.bind(fsp);
    t.mock.method(fsp, 'rename', async (from: string, to: string) => {
      steps.push('rename');
      return rename(from, to);
    });

    await writeRepaired(file, original, Buffer.from('{"a":1}\n'), statSync(file), backups);
    assert.deepEqual(steps, ['sync synced-backups', 'rename', 'sync synced']);
  });
});
