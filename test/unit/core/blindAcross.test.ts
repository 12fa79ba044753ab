import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { blindWrites, WritesByPath, type TimedAccess, type TimedTranscript } from '../../../src/core/engine/blindAcross';
import type { Severity } from '../../../src/core/model/finding';

const f = '/w/src/app.ts';
const severity = (whole: boolean): Severity => (whole ? 'error' : 'warning');

/** An access of f: its call at `call` s, its result at `result` s. */
function access(op: TimedAccess['op'], callId: string, line: number, call: number, result: number, extra: Partial<TimedAccess> = {}): TimedAccess {
  return { path: f, op, callId, tool: op === 'read' ? 'exec_command' : 'apply_patch', line, callTime: call * 1000, resultTime: result * 1000, viaShell: false, whole: op === 'write' || op === 'create', ...extra };
}
const transcript = (file: string, session: string, accesses: TimedAccess[]): TimedTranscript => ({ file, session, accesses });
const brief = (subject: TimedTranscript, ...others: TimedTranscript[]): string[] => blindWrites(subject, [subject, ...others], '/w', severity).map((x) => `${x.severity}@${x.line}`);

void describe('blindWrites: a write over another transcript’s write that came after the session last saw the file', () => {
  const read = access('read', 'r1', 10, 1, 2);
  void test('a whole-file write: an error; an edit: a warning', () => {
    const other = transcript('/b.jsonl', 'b', [access('edit', 'x1', 15, 3, 4)]);
    assert.deepEqual(brief(transcript('/a.jsonl', 'a', [read, access('create', 'w1', 31, 5, 6)]), other), ['error@31']);
    assert.deepEqual(brief(transcript('/a.jsonl', 'a', [read, access('edit', 'w1', 31, 5, 6)]), other), ['warning@31']);
  });

  void test('only a write surely between the two counts: started after the view’s result, done before the write started', () => {
    const a = transcript('/a.jsonl', 'a', [read, access('write', 'w1', 31, 5, 6)]);
    for (const [call, result] of [
      [1.5, 4], // started before the read was done
      [3, 5.5], // done after the write started
      [0, 0.5], // before the read
      [7, 8], // after the write
    ] as const) {
      assert.deepEqual(brief(a, transcript('/b.jsonl', 'b', [access('edit', 'x1', 15, call, result)])), [], `${call}–${result}`);
    }
  });

  void test('the session’s own later view clears it: a read after the other write', () => {
    const a = transcript('/a.jsonl', 'a', [read, access('read', 'r2', 20, 4.5, 4.6), access('write', 'w1', 31, 5, 6)]);
    assert.deepEqual(brief(a, transcript('/b.jsonl', 'b', [access('edit', 'x1', 15, 3, 4)])), []);
  });

  void test('not another writer: a copy of one of the session’s own calls (a fork), a write seen only in a shell command, a read', () => {
    const a = transcript('/a.jsonl', 'a', [read, access('write', 'w1', 31, 5, 6), access('edit', 'e0', 5, 0, 0.5)]);
    assert.deepEqual(brief(a, transcript('/fork.jsonl', 'a', [access('edit', 'e0', 5, 3, 4)])), []);
    assert.deepEqual(brief(a, transcript('/b.jsonl', 'b', [access('write', 'x1', 15, 3, 4, { viaShell: true })])), []);
    assert.deepEqual(brief(a, transcript('/b.jsonl', 'b', [access('read', 'x1', 15, 3, 4)])), []);
  });

  void test('a write with no earlier view of the file is not judged here (write-before-read)', () => {
    assert.deepEqual(brief(transcript('/a.jsonl', 'a', [access('write', 'w1', 31, 5, 6)]), transcript('/b.jsonl', 'b', [access('edit', 'x1', 15, 3, 4)])), []);
  });

  void test('the latest of several writes in between is named, with a count of the others; the rule off gives nothing', () => {
    const a = transcript('/a.jsonl', 'a', [read, access('write', 'w1', 31, 9, 10)]);
    const b = transcript('/b.jsonl', 'b', [access('edit', 'x1', 15, 3, 4), access('edit', 'x2', 19, 5, 6)]);
    const c = transcript('/c.jsonl', 'c', [access('edit', 'y1', 7, 6.5, 7)]);
    const [only] = blindWrites(a, [a, b, c], '/w', severity);
    assert.match(only!.message, /: session c wrote it in between: its apply_patch at \d\d:\d\d:07 UTC \(line 7 of c\.jsonl\) \(and 2 more writes there\), after the session last read the file \(transcript line 10\)\./);
    assert.deepEqual(blindWrites(a, [a, b, c], '/w', () => undefined), []);
  });
});

void describe('blindWrites: a write that several transcripts hold', () => {
  void test('a fork’s copy of the other session’s write (same call) is one write, not one more', () => {
    const a = transcript('/a.jsonl', 'a', [access('read', 'r1', 10, 1, 2), access('write', 'w1', 31, 9, 10)]);
    const b = transcript('/b.jsonl', 'b', [access('edit', 'x1', 15, 3, 4)]);
    const fork = transcript('/b-fork.jsonl', 'b', [access('edit', 'x1', 15, 3, 4)]);
    const [only] = blindWrites(a, [a, b, fork], '/w', severity);
    assert.match(only!.message, /: session b wrote it in between: its apply_patch at \d\d:\d\d:04 UTC \(line 15 of b\.jsonl\), after/);
    const [two] = blindWrites(a, [a, b, fork, transcript('/c.jsonl', 'c', [access('edit', 'y1', 7, 5, 6)])], '/w', severity);
    assert.match(two!.message, /its apply_patch at \d\d:\d\d:06 UTC \(line 7 of c\.jsonl\) \(and 1 more write there\)/);
  });
});

void describe('blindWrites: how the write and the other writer are named', () => {
  const read = access('read', 'r1', 10, 1, 2);
  const other = (session: string, parentSession?: string): TimedTranscript => ({ ...transcript(`/${session}.jsonl`, session, [access('edit', 'x1', 15, 3, 4)]), parentSession });
  void test('a delete is named a delete, not a whole-file write', () => {
    const [f] = blindWrites(transcript('/a.jsonl', 'a', [read, access('delete', 'w1', 31, 5, 6, { whole: true })]), [other('b')], '/w', severity);
    assert.deepEqual([f!.severity, f!.message.startsWith('apply_patch deleted src/app.ts on top of a change this session never saw: session b wrote it in between')], ['error', true]);
  });

  void test('the other transcript is its sub-agent, its parent session, or another session', () => {
    const sub = { ...transcript('/sub.jsonl', 'sub', [read, access('write', 'w1', 31, 5, 6)]), parentSession: 'main' };
    assert.match(blindWrites(transcript('/main.jsonl', 'main', [read, access('write', 'w1', 31, 5, 6)]), [other('sub', 'main')], '/w', severity)[0]!.message, /: its sub-agent sub wrote it in between/);
    assert.match(blindWrites(sub, [other('main')], '/w', severity)[0]!.message, /: its parent session main wrote it in between/);
    assert.match(blindWrites(sub, [other('b')], '/w', severity)[0]!.message, /: session b wrote it in between/);
  });

  void test('a sibling, a grandchild and a grandparent are named as the session’s own, not as any session', () => {
    const sub = { ...transcript('/sub.jsonl', 'sub', [read, access('write', 'w1', 31, 5, 6)]), parentSession: 'main' };
    const mainT = transcript('/main.jsonl', 'main', [read, access('write', 'w1', 31, 5, 6)]);
    const middle = { ...transcript('/mid.jsonl', 'mid', []), parentSession: 'main' };
    const message = (subject: TimedTranscript, ...others: TimedTranscript[]): string => blindWrites(subject, others, '/w', severity)[0]!.message;
    // Two sub-agents of one fan-out.
    assert.match(message(sub, other('sib', 'main')), /: sib, another sub-agent of its parent session main wrote it in between/);
    // A sub-agent of the session's sub-agent (the middle one has no write of its own).
    assert.match(message(mainT, middle, other('leaf', 'mid')), /: leaf, a sub-agent under its sub-agent mid wrote it in between/);
    // The other way up: the grandparent wrote.
    const leaf = { ...transcript('/leaf.jsonl', 'leaf', [read, access('write', 'w1', 31, 5, 6)]), parentSession: 'mid' };
    assert.match(message(leaf, middle, other('main')), /: session main, above its parent session mid wrote it in between/);
    // A loop of parents, which only broken transcripts make, is no hang.
    const a = { ...transcript('/a.jsonl', 'a', [read, access('write', 'w1', 31, 5, 6)]), parentSession: 'b' };
    assert.match(message(a, { ...transcript('/b.jsonl', 'b', []), parentSession: 'a' }, other('c', 'b')), /: c, a sub-agent under its sub-agent b wrote it in between/);
  });
});

void describe('blindWrites over a large check: a folder of many Codex sessions', () => {
  void test('200 rollouts of 2,000 accesses each (one folder, 50 files) are judged in bounded work', () => {
    // Each write was compared with every access of every transcript of the folder: 40 of these
    // rollouts took a minute, 200 about half an hour. Each runs 200 s, a new one every 100 s.
    const transcripts: TimedTranscript[] = [];
    let seed = 1;
    const random = (n: number): number => ((seed = (seed * 48271) % 2147483647) % n);
    for (let s = 0; s < 200; s++) {
      const accesses: TimedAccess[] = [];
      let t = s * 100;
      for (let i = 0; i < 2000; i++) {
        const path = `/w/src/f${random(50)}.ts`;
        accesses.push(access(random(2) === 0 ? 'read' : 'edit', `c${s}-${i}`, i + 2, t, t + 0.05, { path }));
        t += 0.1;
      }
      transcripts.push(transcript(`/s${s}.jsonl`, `s${s}`, accesses));
    }
    // Against a baseline measured in the same run, not a wall-clock bound (a loaded machine took
    // 7 s where a quiet one takes 1): indexing the same accesses by path, which is linear. The
    // judging takes 2-4x that; the old comparison of every write with every access, hundreds of
    // times as long.
    const baseline = performance.now();
    new WritesByPath(transcripts);
    const indexMs = performance.now() - baseline;
    const started = performance.now();
    const index = new WritesByPath(transcripts);
    let found = 0;
    for (const t of transcripts) {
      found += blindWrites(t, index, '/w', severity).length;
    }
    const ms = performance.now() - started;
    assert.ok(found > 1000, `${found} found`);
    assert.ok(ms < 20 * indexMs, `judged in ${ms.toFixed(0)} ms, ${(ms / indexMs).toFixed(1)}x the ${indexMs.toFixed(0)} ms of indexing the same accesses`);
  });
});
