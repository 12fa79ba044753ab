/**
 * The reader of a file rewritten whole: versions, not appends; bursts coalesced; a half-written
 * document looked at again; nothing kept but the last version's hash.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { afterEach, describe, test } from 'node:test';
import { DocumentTail, type DocumentLook } from '../../../src/io/documentTail';
import { sleep, waitFor } from '../support/wait';

/** The module object DocumentTail calls into (CommonJS: looked up at each call), to race a rewrite with a read. */
const fsp = createRequire(__filename)('node:fs/promises') as { readFile: (p: string) => Promise<Buffer> };

let cleanup: (() => void) | undefined;
afterEach(() => {
  cleanup?.();
  cleanup = undefined;
});

/** A tail on a fresh file, with a sink that takes what parses as JSON (or is settled). */
function setup(opts: { maxBytes?: number; onError?: (e: unknown) => void } = {}): { file: string; tail: DocumentTail; looks: DocumentLook[]; taken: string[]; gone: () => boolean } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ag-doc-'));
  const file = path.join(dir, 'session-1.json');
  const looks: DocumentLook[] = [];
  const taken: string[] = [];
  let isGone = false;
  const tail = new DocumentTail(
    file,
    {
      version: (look) => {
        looks.push(look);
        const text = look.bytes ? Buffer.from(look.bytes).toString('utf8') : `<${look.size} bytes>`;
        if (!look.settled && look.bytes) {
          try {
            JSON.parse(text);
          } catch {
            return false;
          }
        }
        taken.push(text);
        return true;
      },
      gone: () => {
        isGone = true;
      },
    },
    opts,
  );
  cleanup = () => {
    tail.dispose();
    rmSync(dir, { recursive: true, force: true });
  };
  return { file, tail, looks, taken, gone: () => isGone };
}

const doc = (n: number): string => JSON.stringify({ sessionId: 's', messages: Array.from({ length: n }, (_, i) => ({ id: `m${i}`, content: 'x'.repeat(200) })) }, null, 2);

void describe('document tail', () => {
  void test('a document that stays unreadable is reported once, not at every change; again after it was read', async () => {
    const errors: string[] = [];
    const { file, tail, taken } = setup({ onError: (e) => errors.push(String(e)) });
    writeFileSync(file, doc(1));
    await tail.poke();
    // As root every file is readable: a FIFO in the document's place cannot be read either.
    const fifo = path.join(path.dirname(file), 'fifo');
    const putFifo = (): void => {
      execFileSync('mkfifo', [fifo]);
      renameSync(fifo, file);
    };
    putFifo();
    for (let i = 0; i < 4; i++) {
      await tail.poke();
    }
    assert.equal(tail.failing, true);
    assert.equal(errors.length, 1, errors.join('; '));
    writeFileSync(`${file}.new`, doc(2));
    renameSync(`${file}.new`, file);
    await tail.poke();
    assert.equal(tail.failing, false);
    assert.deepEqual(taken, [doc(1), doc(2)]);
    putFifo();
    await tail.poke();
    assert.equal(errors.length, 2, 'failing again after a read is news');
  });

  void test('a burst of rewrites is read a few times, ending with the last version', async () => {
    const { file, tail, taken } = setup();
    writeFileSync(file, doc(1));
    await tail.poke();
    assert.deepEqual(taken, [doc(1)]);
    const pokes: Promise<void>[] = [];
    for (let n = 2; n <= 60; n++) {
      writeFileSync(file, doc(n));
      pokes.push(tail.poke());
      await sleep(1);
    }
    await Promise.all(pokes);
    await tail.poke();
    assert.equal(taken.at(-1), doc(60), 'the last version read');
    assert.ok(taken.length < 30, `coalesced: ${taken.length} reads for 60 versions`);
    assert.equal(new Set(taken).size, taken.length, 'no version taken twice');
  });

  void test('the same content written again, or only touched, is no new version', async () => {
    const { file, tail, taken, looks } = setup();
    writeFileSync(file, doc(2));
    await tail.poke();
    writeFileSync(file, doc(2));
    await tail.poke();
    const later = new Date(Date.now() + 5_000);
    utimesSync(file, later, later);
    await tail.poke();
    assert.deepEqual(taken, [doc(2)]);
    assert.equal(looks.length, 1);
  });

  void test('a half-written document is looked at again without a further poke, and settles as it stands', async () => {
    const { file, tail, taken, looks } = setup();
    writeFileSync(file, doc(3));
    await tail.poke();
    // Caught mid-rewrite: not taken.
    writeFileSync(file, doc(4).slice(0, 300));
    await tail.poke();
    assert.equal(looks.at(-1)?.settled, false);
    assert.equal(tail.isUnsettled, true);
    assert.deepEqual(taken, [doc(3)]);
    assert.equal(tail.bytesRead, Buffer.byteLength(doc(3)));
    // The write that completes it comes with no event the tail hears of: its own look again finds it.
    writeFileSync(file, doc(4));
    await waitFor(() => taken.length === 2, 5_000, 'the whole version');
    assert.equal(taken[1], doc(4));
    assert.equal(tail.isUnsettled, false);

    // Cut short for good: once asked to settle, it is what there is.
    writeFileSync(file, doc(5).slice(0, 300));
    await tail.poke();
    await sleep(300);
    assert.equal(taken.length, 2);
    await tail.settle();
    assert.equal(taken.length, 3);
    assert.equal(looks.at(-1)?.settled, true);
    assert.equal(taken[2], doc(5).slice(0, 300));
  });

  void test('a document unchanged for a while is settled at once, broken or not', async () => {
    const { file, tail, looks, taken } = setup();
    writeFileSync(file, '{"sessionId": "s", "messages": [');
    const old = new Date(Date.now() - 60_000);
    utimesSync(file, old, old);
    await tail.poke();
    assert.equal(looks[0]?.settled, true);
    assert.deepEqual(taken, ['{"sessionId": "s", "messages": [']);
  });

  void test('a document rewritten between the look at its file and the read is not settled, however quiet it was before', async () => {
    const { file, tail, looks, taken } = setup();
    writeFileSync(file, doc(3));
    const old = new Date(Date.now() - 60_000);
    utimesSync(file, old, old);
    // Quiet for a minute, then Gemini CLI starts a rewrite just after the tail's stat: the read
    // gets a prefix of the new version.
    const readFile = fsp.readFile;
    fsp.readFile = (p: string) => {
      fsp.readFile = readFile;
      writeFileSync(file, doc(4).slice(0, 300));
      return readFile(p);
    };
    try {
      await tail.poke();
    } finally {
      fsp.readFile = readFile;
    }
    assert.equal(looks[0]?.settled, false, 'the file changed under the read: it was not quiet');
    assert.deepEqual(taken, [], 'the half-written version is not taken');
    writeFileSync(file, doc(4));
    await waitFor(() => taken.length === 1, 5_000, 'the whole version');
    assert.deepEqual(taken, [doc(4)]);
  });

  void test('settle() takes the document it found half-written as it stands, not one written since', async () => {
    const { file, tail, looks, taken } = setup();
    writeFileSync(file, doc(3));
    await tail.poke();
    writeFileSync(file, doc(4).slice(0, 300));
    await tail.poke();
    assert.equal(tail.isUnsettled, true);
    // A new rewrite has begun (its watcher event not handled yet) when the monitor asks to settle.
    writeFileSync(file, doc(5).slice(0, 200));
    await tail.settle();
    assert.equal(looks.at(-1)?.settled, false, 'a file just written is not quiet');
    assert.deepEqual(taken, [doc(3)]);
    writeFileSync(file, doc(5));
    await waitFor(() => taken.length === 2, 5_000, 'the whole version');
    assert.deepEqual(taken, [doc(3), doc(5)]);
  });

  void test('a document past the size limit is not read, only measured', async () => {
    const { file, tail, looks } = setup({ maxBytes: 1_000 });
    writeFileSync(file, doc(20));
    await tail.poke();
    assert.equal(looks.length, 1);
    assert.equal(looks[0]!.bytes, undefined);
    assert.equal(looks[0]!.size, Buffer.byteLength(doc(20)));
    await tail.poke();
    assert.equal(looks.length, 1, 'not again while unchanged');
  });

  void test('deleted: gone', async () => {
    const { file, tail, gone } = setup();
    writeFileSync(file, doc(1));
    await tail.poke();
    rmSync(file);
    await tail.poke();
    assert.equal(gone(), true);
  });

  // FileTail already backed off; the reader of a rewritten document looked again every 150 ms,
  // and read, as long as the failing thing kept changing. Both follow one file as FileFollower now.
  void test('a file that keeps failing while it changes is looked at again less and less often', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ag-doc-'));
    // A folder in the document's place: every look fails (not a regular file), and each entry
    // added changes its mtime, which the follow-up look takes for a change.
    const file = path.join(dir, 'session-1.json');
    mkdirSync(file);
    const errors: unknown[] = [];
    let bursts = 0;
    const tail = new DocumentTail(file, { version: () => true, gone: () => {} }, { onError: (e) => errors.push(e), onCaughtUp: () => bursts++ });
    let n = 0;
    const churn = setInterval(() => writeFileSync(path.join(file, `x${n++}`), ''), 10);
    cleanup = () => {
      clearInterval(churn);
      tail.dispose();
      rmSync(dir, { recursive: true, force: true });
    };
    await tail.poke();
    await sleep(2_500);
    clearInterval(churn);
    assert.equal(errors.length, 1, 'reported once');
    // 150 ms apart this was about 14 bursts; backing off (300, 600, 1,200 ms…) it is 4 or 5.
    assert.ok(bursts <= 7, `${bursts} bursts of reads in 2.5 s`);
  });
});
