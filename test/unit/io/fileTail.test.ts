/** FileTail on its own, on a real file: what it reads and what it reports. */
import assert from 'node:assert/strict';
import { appendFileSync, chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { FileTail } from '../../../src/io/tail';
import { sleep, waitFor } from '../support/wait';

let dir: string | undefined;
let tail: FileTail | undefined;
afterEach(() => {
  tail?.dispose();
  if (dir) {
    rmSync(dir, { recursive: true, force: true });
  }
});

void describe('FileTail', () => {
  // Root reads a file whatever its permissions.
  void test('a file that stays unreadable is reported once, not at every look; read again once it is readable', { skip: process.getuid?.() === 0 && 'runs as root' }, async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'ag-tail-'));
    const file = path.join(dir, 's.jsonl');
    writeFileSync(file, '{"a":1}\n');
    const errors: unknown[] = [];
    let bytes = '';
    tail = new FileTail(file, { push: (b) => (bytes += Buffer.from(b).toString()), reset: () => {}, gone: () => {} }, { onError: (e) => errors.push(e), directWatch: true });
    await tail.poke();
    chmodSync(file, 0o200);
    appendFileSync(file, '{"b":2}\n');
    await tail.poke();
    await waitFor(() => errors.length > 0, 5_000, 'the error reported');
    // Long enough for a dozen follow-up looks at the unreadable file.
    await sleep(2_000);
    assert.equal(errors.length, 1, `one report, not one per look: ${errors.length}`);
    chmodSync(file, 0o600);
    await tail.poke();
    await waitFor(() => bytes === '{"a":1}\n{"b":2}\n', 5_000, () => `the append read: ${JSON.stringify(bytes)}`);
  });
});
