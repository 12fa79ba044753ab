import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { LineSplitter, type RawLine } from '../../../src/core/parse/lineSplitter';

const enc = new TextEncoder();

function collect(chunks: Uint8Array[], max?: number): RawLine[] {
  const s = new LineSplitter(max);
  const out: RawLine[] = [];
  for (const c of chunks) {
    s.push(c, (l) => out.push(l));
  }
  s.end((l) => out.push(l));
  return out;
}

void describe('LineSplitter', () => {
  void test('lines, offsets and CRLF', () => {
    const lines = collect([enc.encode('a\r\nbb\n\nccc')]);
    assert.deepEqual(
      lines.map((l) => [l.lineNo, l.text, l.byteOffset, l.byteLength, l.terminated]),
      [
        [1, 'a', 0, 1, true],
        [2, 'bb', 3, 2, true],
        [3, '', 6, 0, true],
        [4, 'ccc', 7, 3, false],
      ],
    );
  });

  void test('a multi-byte character split across chunks is decoded whole', () => {
    const bytes = enc.encode('é→🧪\n');
    for (let cut = 1; cut < bytes.length; cut++) {
      const lines = collect([bytes.subarray(0, cut), bytes.subarray(cut)]);
      assert.equal(lines.length, 1);
      assert.equal(lines[0]!.text, 'é→🧪');
      assert.equal(lines[0]!.invalidUtf8, false);
    }
  });

  void test('a partial line is held until its newline arrives', () => {
    const s = new LineSplitter();
    const out: string[] = [];
    s.push(enc.encode('{"a":'), (l) => out.push(l.text));
    assert.equal(out.length, 0);
    assert.equal(s.consumedBytes, 0);
    s.push(enc.encode('1}\n{"b"'), (l) => out.push(l.text));
    assert.deepEqual(out, ['{"a":1}']);
    assert.equal(s.consumedBytes, 8);
  });

  void test('invalid UTF-8 is flagged and replaced', () => {
    const lines = collect([Uint8Array.of(0x61, 0xff, 0x62, 0x0a)]);
    assert.equal(lines[0]!.invalidUtf8, true);
    assert.equal(lines[0]!.text, 'a\uFFFDb');
  });

  void test('invalid UTF-8 is flagged on whichever line of a chunk it is, and a literal U+FFFD is not', () => {
    // Lines of a chunk are validated together: the verdict must still be per line, wherever
    // the chunks are cut.
    const parts = [enc.encode('ok\n'), Uint8Array.of(0x61, 0xc3, 0x0a), enc.encode('\uFFFD é\n'), Uint8Array.of(0xed, 0xa0, 0x80, 0x0a), enc.encode('end\n')];
    const bytes = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((at, p) => (bytes.set(p, at), at + p.length), 0);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const lines = collect([bytes.subarray(0, cut), bytes.subarray(cut)]);
      assert.deepEqual(
        lines.map((l) => l.invalidUtf8),
        [false, true, false, true, false],
        `cut at ${cut}`,
      );
      assert.equal(lines[2]!.text, '\uFFFD é');
    }
  });

  void test('a line over the limit is skipped, not buffered, and the next line is intact', () => {
    const long = new Uint8Array(5000).fill(0x78);
    const lines = collect([long.subarray(0, 2000), long.subarray(2000), enc.encode('\nok\n')], 1024);
    assert.deepEqual(
      lines.map((l) => [l.lineNo, l.tooLong, l.text, l.byteLength]),
      [
        [1, true, '', 5000],
        [2, false, 'ok', 2],
      ],
    );
    assert.equal(lines[1]!.byteOffset, 5001);
  });
});

void test('held bytes are copied: a caller may reuse its read buffer (as the tail reader does)', () => {
  const s = new LineSplitter();
  const out: string[] = [];
  const buf = Buffer.alloc(8);
  buf.write('{"a":');
  s.push(buf.subarray(0, 5), (l) => out.push(l.text));
  buf.write('1}\n', 0);
  buf.fill(0x78, 3);
  s.push(buf.subarray(0, 3), (l) => out.push(l.text));
  assert.deepEqual(out, ['{"a":1}']);
});
