/** Show Read Diff's left side: a partial read at its place, whatever line the transcript says it started at. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { maxSnapshotPadLines, snapshotDocument, snapshotFromLine } from '../../../src/io/transcriptLine';

const readLine = (startLine: number | string): string =>
  `{"type":"user","toolUseResult":{"type":"text","file":{"filePath":"/w/a.ts","content":"x\\ny","numLines":2,"startLine":${startLine},"totalLines":9}}}`;

void test('a partial read keeps its lines where they were in the file', () => {
  const snap = snapshotFromLine(readLine(3))!;
  assert.equal(snapshotDocument(snap), '⋯ (not read by the session)\n⋯ (not read by the session)\nx\ny');
  assert.equal(snapshotDocument(snapshotFromLine(readLine(1))!), 'x\ny');
});

void test('a start line no file has is one line of padding, not gigabytes of it', () => {
  // One line of 28 characters per line before the read: 15 million of them were 840 MB.
  for (const start of ['15000000', '1e9', '1e400']) {
    const doc = snapshotDocument(snapshotFromLine(readLine(start))!);
    assert.ok(doc.length < 200, `startLine ${start}: ${doc.length} characters`);
    assert.match(doc, /^⋯ \(lines 1 to \d+ not read by the session\)\nx\ny$|^⋯ \(lines 1 to Infinity not read by the session\)\nx\ny$/);
  }
  const edge = snapshotDocument(snapshotFromLine(readLine(maxSnapshotPadLines + 1))!);
  assert.equal(edge.split('\n').length, maxSnapshotPadLines + 2);
});
