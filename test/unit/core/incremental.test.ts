/**
 * Batch and incremental give identical findings: every transcript is fed in random chunks
 * (splitting lines and multi-byte characters) and compared with a whole-file run.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { ClaudeTranscript } from '../support/claude';
import { fixture } from '../support/repo';
import { prng, run, splitAt } from '../support/run';

function transcripts(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? transcripts(p) : p.endsWith('.jsonl') ? [p] : [];
  });
}

function randomCuts(length: number, rnd: () => number, count: number): number[] {
  return Array.from({ length: count }, () => Math.floor(rnd() * length));
}

void describe('incremental equals batch', () => {
  const files = transcripts(fixture('real'));
  for (const file of files) {
    void test(path.basename(file), () => {
      const bytes = readFileSync(file);
      const whole = run(bytes, { file }).findings;
      for (let seed = 1; seed <= 4; seed++) {
        const rnd = prng(seed * 7919 + bytes.length);
        const cuts = randomCuts(bytes.length, rnd, 3 + Math.floor(rnd() * Math.min(400, bytes.length / 50)));
        const parts = run(bytes, { file, chunks: splitAt(bytes, cuts) }).findings;
        assert.deepEqual(parts, whole, `seed ${seed}: cuts ${cuts.slice(0, 20).join(',')}`);
      }
    });
  }

  void test('a synthetic session with multi-byte text, cut at every byte', () => {
    const t = new ClaudeTranscript()
      .user('Ünïcødé prompt — 日本語 and emoji 🧪🚀')
      .call('m1', 'toolu_A', 'Bash', { command: 'echo "héllo wörld ✓"' })
      .result('toolu_A', 'héllo wörld ✓ 🧪')
      .result('toolu_A', 'duplicate 🚀')
      .raw('{"broken": "日本')
      .call('m2', 'toolu_B', 'Bash', { command: 'ls' });
    const bytes = new TextEncoder().encode(t.text());
    const whole = run(bytes).findings;
    assert.ok(whole.length >= 3, 'the sample has findings to compare');
    for (let cut = 1; cut < bytes.length; cut++) {
      assert.deepEqual(run(bytes, { chunks: splitAt(bytes, [cut]) }).findings, whole, `cut at ${cut}`);
    }
    // One byte at a time: every line and every character arrives in pieces.
    const single = Array.from(bytes, (b) => Uint8Array.of(b));
    assert.deepEqual(run(bytes, { chunks: single }).findings, whole);
  });
});
