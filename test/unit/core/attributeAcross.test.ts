import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { attributeChange, type RecordedWrite } from '../../../src/core/engine/attributeAcross';
import type { Finding } from '../../../src/core/model/finding';

const t0 = Date.parse('2026-12-01T06:12:44.000Z');

function finding(): Finding {
  return {
    id: 'stale-write|/s/a.jsonl|x',
    rule: 'stale-write',
    severity: 'warning',
    file: '/s/a.jsonl',
    line: 30,
    column: 1,
    endLine: 30,
    endColumn: 2,
    message: 'Edit was applied to a.txt on top of a change this session never saw.',
    agent: 'claude-code',
    session: 'session-a',
    related: [{ file: '/s/a.jsonl', line: 24, message: 'the session last read the file here' }],
    subject: { path: '/w/a.txt' },
    callId: 'toolu_A2',
    changedBetween: { seenLine: 24, writeLine: 31 },
  };
}

function write(over: Partial<RecordedWrite>): RecordedWrite {
  return { file: '/s/b.jsonl', session: 'session-b', path: '/w/a.txt', line: 28, tool: 'Edit', callId: 'toolu_B2', time: t0 + 1000, ...over };
}

const open = { finding: finding(), seenTime: t0, writeTime: t0 + 3000 };

void describe('attributeChange: naming the writer of a change another checked transcript records', () => {
  void test('a write of the file by another session between the read and the write is named, with its time and line', () => {
    const f = attributeChange(open, [write({})]);
    assert.ok(f);
    assert.equal(
      f.message,
      'Edit was applied to a.txt on top of a change this session never saw. Another transcript checked with this one records a write of that file in between: session session-b, its Edit at 06:12:45 UTC (line 28 of b.jsonl).',
    );
    assert.deepEqual(f.related.at(-1), { file: '/s/b.jsonl', line: 28, message: "the other transcript's Edit of this file" });
    assert.equal(f.related.length, 2);
    assert.equal(f.severity, 'warning');
  });

  void test('writes outside the window, of another file, or in the same transcript name nobody', () => {
    assert.equal(attributeChange(open, [write({ time: t0 })]), undefined, 'at the read: the session may have seen it');
    assert.equal(attributeChange(open, [write({ time: t0 - 5 })]), undefined, 'before the read');
    assert.equal(attributeChange(open, [write({ time: t0 + 3001 })]), undefined, 'after the write on top');
    assert.ok(attributeChange(open, [write({ time: t0 + 1 })]), 'just after the read');
    assert.equal(attributeChange(open, [write({ path: '/w/b.txt' })]), undefined, 'another file');
    assert.equal(attributeChange(open, [write({ file: '/s/a.jsonl' })]), undefined, "the session's own write");
    assert.equal(attributeChange(open, []), undefined);
  });

  void test("a copy of this session's own write in another transcript (same call id) is not another writer", () => {
    // Claude Code's compaction helper and a resumed session's new file copy the records, times and ids.
    assert.equal(attributeChange(open, [write({ callId: 'toolu_A2', time: t0 + 2000 })]), undefined);
    assert.equal(attributeChange(open, [write({ time: t0 + 3000 })]), undefined, 'a result at the same instant as the write on top');
    assert.ok(attributeChange(open, [write({ time: t0 + 2999 })]));
  });

  void test('of several writes in between, the latest is named and the others counted', () => {
    const f = attributeChange(open, [write({ time: t0 + 2000, line: 40, file: '/s/c.jsonl', session: 'session-c', callId: 'toolu_C1' }), write({}), write({ time: t0 + 500, line: 12, callId: 'toolu_B1' })]);
    assert.ok(f);
    assert.match(f.message, /session session-c, its Edit at 06:12:46 UTC \(line 40 of c\.jsonl\) \(and 2 more writes there\)\.$/);
    assert.equal(f.related.at(-1)!.file, '/s/c.jsonl');
  });

  void test("copies of the other session's write (its compaction helper's, a resumed file's) are counted once", () => {
    // Claude Code's compaction helper copies its session's records with their call ids and times:
    // one write, however many transcripts hold it.
    const helper = '/s/session-b/subagents/agent-acompact-1.jsonl';
    const f = attributeChange(open, [write({}), write({ file: helper, line: 20 }), write({ time: t0 + 500, line: 12, callId: 'toolu_B1' }), write({ file: helper, time: t0 + 500, line: 9, callId: 'toolu_B1' })]);
    assert.ok(f);
    assert.match(f.message, /session session-b, its Edit at 06:12:45 UTC \(line 28 of b\.jsonl\) \(and 1 more write there\)\.$/);
    const one = attributeChange(open, [write({}), write({ file: helper, line: 20 })]);
    assert.ok(one);
    assert.match(one.message, /\(line 28 of b\.jsonl\)\.$/, 'one write, held twice: none more');
  });

  void test('a transcript of the same session (a Claude Code sub-agent names its parent) is not called another session', () => {
    const f = attributeChange(open, [write({ session: 'session-a', file: '/s/session-a/subagents/agent-1.jsonl', tool: 'Write' })]);
    assert.ok(f);
    assert.match(f.message, /in between: another transcript of this session \(a sub-agent or another run of it\), its Write at 06:12:45 UTC \(line 28 of agent-1\.jsonl\)\.$/);
  });

  void test('the finding given is not changed', () => {
    const before = finding();
    const o = { finding: before, seenTime: t0, writeTime: t0 + 3000 };
    attributeChange(o, [write({})]);
    assert.deepEqual(before, finding());
  });
});
