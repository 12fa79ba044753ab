/**
 * How a timeline gets its events: the transcript's first `consumedBytes` bytes read again from
 * disk, then the monitor's live events — together exactly the events of the whole file, while
 * it grows in random chunks. And a re-read of the transcript starts the live events over.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import type { NormalizedEvent } from '../../../src/core/model/events';
import { adapters } from '../../../src/core/parse/registry';
import { TranscriptParser } from '../../../src/core/parse/transcript';
import { TimelineBuilder } from '../../../src/core/timeline/builder';
import { ClaudeTranscript } from '../support/claude';
import { LiveEnv } from '../support/liveEnv';
import { prng, run } from '../support/run';
import { sleep, waitFor } from '../support/wait';

let env: LiveEnv;
afterEach(async () => {
  await env?.dispose();
});

function session(ws: string): ClaudeTranscript {
  const f = path.join(ws, 'src', 'app.ts');
  const t = new ClaudeTranscript('cccccccc-1111-4000-8000-000000000001', ws).user('go');
  for (let i = 0; i < 30; i++) {
    t.call(`m${i}`, `toolu_A${i}`, 'Read', { file_path: f }).call(`m${i}`, `toolu_B${i}`, 'Bash', { command: 'ls' });
    t.readResult(`toolu_A${i}`, f, 'one\ntwo\n');
    if (i % 7 === 3) {
      t.say(`m${i}x`, 'moving on');
    }
    t.result(`toolu_B${i}`, 'ok');
  }
  return t.say('end', 'done');
}

/** The part of a transcript before `upTo`, parsed as the timeline does. */
function eventsUpTo(file: string, upTo: number): NormalizedEvent[] {
  const out: NormalizedEvent[] = [];
  const parser = new TranscriptParser({ file, adapters, emit: (e) => out.push(e), agent: 'claude-code' });
  parser.push(readFileSync(file).subarray(0, upTo));
  return out;
}

function model(events: readonly NormalizedEvent[]): unknown {
  const b = new TimelineBuilder();
  for (const e of events) {
    b.add(e);
  }
  return { rows: b.rows(), edges: b.edges };
}

void describe('following a live session', () => {
  void test('disk up to consumedBytes + live events = the whole file, whenever the follow starts', async () => {
    env = new LiveEnv();
    const monitor = await env.start({ watchTree: false });
    const file = path.join(env.projectDir, 'cccccccc-1111-4000-8000-000000000001.jsonl');
    mkdirSync(env.projectDir, { recursive: true });
    const bytes = new TextEncoder().encode(session(env.workspace).text());
    const rnd = prng(7);
    // The session starts with a few lines; the follow starts once the monitor knows it.
    writeFileSync(file, bytes.subarray(0, 1500));
    await waitFor(() => monitor.session(file), 5000, 'the session');
    await monitor.idle();
    const live: NormalizedEvent[] = [];
    const follow = monitor.followSession(file, (e) => live.push(e));
    assert.ok(follow);
    assert.equal(follow.forcedAgent, 'claude-code');
    const before = eventsUpTo(file, follow.consumedBytes);
    let at = 1500;
    while (at < bytes.length) {
      const n = 1 + Math.floor(rnd() * 900);
      appendFileSync(file, bytes.subarray(at, at + n));
      at += n;
      await sleep(Math.floor(rnd() * 10));
    }
    const all = run(bytes, { file }).events;
    await waitFor(
      async () => {
        await monitor.catchUp(file);
        return before.length + live.length >= all.length;
      },
      8000,
      () => `${before.length} + ${live.length} of ${all.length} events`,
    );
    follow.dispose();
    assert.deepEqual(model([...before, ...live]), model(all));
    // Unfollowed: nothing more arrives.
    const n = live.length;
    appendFileSync(file, new ClaudeTranscript('cccccccc-1111-4000-8000-000000000001', env.workspace).say('more', 'x').text());
    await monitor.catchUp(file);
    await sleep(50);
    assert.equal(live.length, n);
  });

  void test('a re-check reads the transcript again: live events start over at line 1', async () => {
    env = new LiveEnv();
    const monitor = await env.start({ watchTree: false });
    const file = path.join(env.projectDir, 'cccccccc-1111-4000-8000-000000000001.jsonl');
    mkdirSync(env.projectDir, { recursive: true });
    writeFileSync(file, session(env.workspace).text());
    await waitFor(() => monitor.session(file), 5000, 'the session');
    await monitor.idle();
    const lines: number[] = [];
    const follow = monitor.followSession(file, (e) => lines.push(e.at.line));
    assert.ok(follow);
    await monitor.recheck();
    assert.equal(lines[0], 1);
    follow.dispose();
    assert.equal(monitor.followSession('/no/such/file.jsonl', () => {}), undefined);
  });
});
