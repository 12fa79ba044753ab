/**
 * Idle sessions drop their state and rebuild it when they change again. Nothing may be
 * reported twice, lost, or judged against today's working tree on the way back.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import type { TranscriptStream } from '../../../src/core/engine/stream';
import type { NormalizedEvent } from '../../../src/core/model/events';
import { ClaudeTranscript } from '../support/claude';
import { CodexRollout } from '../support/codex';
import { hashText } from '../../../src/io/workTree';
import { LiveEnv } from '../support/liveEnv';
import { brief, run, sortFindings } from '../support/run';
import { sleep, waitFor } from '../support/wait';

let env: LiveEnv;
afterEach(async () => {
  await env?.dispose();
});

/** Real time plus a skew the test moves forward: "twenty minutes later" without waiting for it. */
function skewedClock(): { clock: () => number; advance: (ms: number) => void } {
  let skew = 0;
  return { clock: () => Date.now() + skew, advance: (ms) => (skew += ms) };
}

const minutes = (n: number): number => n * 60_000;

function live(file: string): string[] {
  return brief(sortFindings(env.monitor!.findings.forFile(file)));
}

function checked(file: string, bytes: string): string[] {
  return brief(run(Buffer.from(bytes), { file }).findings);
}

void describe('hibernation', () => {
  void test('an idle session sleeps; an append wakes it and only what is new is reported', async () => {
    env = new LiveEnv();
    const time = skewedClock();
    await env.start({ watchTree: false, clock: time.clock, sweepMs: 30, hibernateAfterMs: minutes(15) });
    mkdirSync(env.projectDir, { recursive: true });
    const file = path.join(env.projectDir, 'h1.jsonl');
    const t = new ClaudeTranscript('h1', env.workspace)
      .user('go')
      .call('m1', 'toolu_A', 'Bash', { command: 'ls' })
      .result('toolu_A', 'a')
      .result('toolu_A', 'again')
      .call('m2', 'toolu_B', 'Bash', { command: 'pwd' });
    writeFileSync(file, t.text());
    await waitFor(() => live(file).length === 1, 15_000, 'the duplicate result');
    await env.monitor!.idle();
    await sleep(100);
    assert.equal(env.monitor!.isHibernating(file), false, 'a session just written to stays awake');
    // The session's state, reached through the monitor's private table: what sleeping must empty.
    const sessions = (env.monitor as unknown as { sessions: Map<string, { stream?: TranscriptStream }> }).sessions;
    const awake = sessions.get(file)?.stream;
    assert.ok(awake && awake.engine.conversation.messages.length > 0, 'the awake session holds its messages');

    time.advance(minutes(16));
    await waitFor(() => env.monitor!.isHibernating(file), 15_000, 'the session to sleep');
    // Emptied in place, not only dropped (see RuleEngine.release).
    assert.equal(awake.engine.conversation.messages.length, 0, 'the sleeping session kept its messages');
    assert.equal(awake.engine.conversation.call('toolu_A'), undefined);
    // B is still open: live that is a stalled call (info), where `check` calls it missing.
    const before = checked(file, t.text()).map((f) => f.replace(/^missing-result@(\S+):warning$/, 'stalled-call@$1:info'));
    assert.deepEqual(live(file), before, 'findings survive the sleep');
    const announcedBefore = env.announced.length;

    // B's result lands, then a stray result: one new finding, nothing re-announced or dropped.
    const lines = t.lines.length;
    t.result('toolu_B', '/ws').result('toolu_Z', 'stray').say('m3', 'done');
    const grown = t.text();
    appendFileSync(file, t.lines.slice(lines).map((l) => l + '\n').join(''));
    await waitFor(() => live(file).some((f) => f.startsWith('orphan-result@')), 15_000, () => `the stray result: ${live(file).join(' ')}; ${env.logs.join('; ')}`);
    await env.monitor!.idle();
    assert.deepEqual(live(file), checked(file, grown));
    assert.equal(env.announced.length, announcedBefore + 1, `only the new finding is announced: ${brief(env.announced.slice(announcedBefore)).join(' ')}`);
    assert.deepEqual(
      brief(env.removed),
      before.filter((f) => f.startsWith('stalled-call@')),
      'only the stalled call went, because its result landed: nothing was dropped and re-added',
    );
    assert.equal(env.monitor!.isHibernating(file), false, 'awake after a change');
    assert.equal(env.monitor!.session(file)!.bytes, Buffer.byteLength(grown));
  });

  void test("a FIFO in a sleeping transcript's place does not hold the wake: the file put back is read", async () => {
    env = new LiveEnv();
    const time = skewedClock();
    await env.start({ watchTree: false, clock: time.clock, sweepMs: 30, hibernateAfterMs: minutes(15), readConcurrency: 1 });
    mkdirSync(env.projectDir, { recursive: true });
    const file = path.join(env.projectDir, 'h5.jsonl');
    const t = new ClaudeTranscript('h5', env.workspace).user('go').call('m1', 'toolu_A', 'Bash', { command: 'ls' }).result('toolu_A', 'a').result('toolu_A', 'again');
    writeFileSync(file, t.text());
    await waitFor(() => live(file).length === 1, 15_000, 'the duplicate result');
    time.advance(minutes(16));
    await waitFor(() => env.monitor!.isHibernating(file), 15_000, 'the session to sleep');
    const before = live(file);

    // A FIFO's open blocks until a writer comes: the wake must not open it.
    const fifo = path.join(env.root, 'fifo');
    execFileSync('mkfifo', [fifo]);
    renameSync(fifo, file);
    // (Bounded: a wake stuck in the open would never return.)
    await Promise.race([env.monitor!.catchUp(file), sleep(3000)]);
    assert.deepEqual(live(file), before, 'the findings stand');
    assert.ok(env.logs.some((l) => l.includes('not a regular file')), `logged: ${env.logs.join('; ')}`);
    // Every change tries again; the log says it once, not once per try.
    for (let i = 0; i < 3; i++) {
      await Promise.race([env.monitor!.catchUp(file), sleep(3000)]);
    }
    assert.equal(env.logs.filter((l) => l.startsWith('warn') && l.includes('cannot read')).length, 1, `logged: ${env.logs.join('; ')}`);

    // The transcript put back, grown by a stray result: read, and only that is new.
    const lines = t.lines.length;
    t.result('toolu_Z', 'stray');
    const back = path.join(env.root, 'back.jsonl');
    writeFileSync(back, t.text());
    renameSync(back, file);
    // Asked directly, as the guard asks before it judges a call: the watcher, here, reported
    // nothing more of a path a FIFO had been put at.
    await Promise.race([env.monitor!.catchUp(file), sleep(3000)]);
    await waitFor(() => live(file).some((f) => f.startsWith('orphan-result@')), 5000, () => `the stray result: ${live(file).join(' ')}; ${env.logs.join('; ')}`);
    await env.monitor!.idle();
    assert.deepEqual(live(file), checked(file, t.text()));
    assert.equal(env.monitor!.session(file)!.bytes, Buffer.byteLength(t.text()));
    assert.ok(lines < t.lines.length);
    assert.ok(env.logs.some((l) => l.startsWith('info') && l.includes('can be read again')), `logged: ${env.logs.join('; ')}`);
  });

  void test('a sleeping session whose transcript cannot be read stays asleep: no result is judged without its call', { skip: process.getuid?.() === 0 && 'runs as root, who reads every file' }, async () => {
    env = new LiveEnv();
    const time = skewedClock();
    await env.start({ watchTree: false, clock: time.clock, sweepMs: 30, hibernateAfterMs: minutes(15) });
    mkdirSync(env.projectDir, { recursive: true });
    const file = path.join(env.projectDir, 'h6.jsonl');
    const t = new ClaudeTranscript('h6', env.workspace).user('go').call('m1', 'toolu_A', 'Bash', { command: 'ls' });
    writeFileSync(file, t.text());
    await waitFor(() => env.monitor!.session(file)?.bytes === Buffer.byteLength(t.text()), 15_000, 'the first read');
    time.advance(minutes(16));
    await waitFor(() => env.monitor!.isHibernating(file), 15_000, 'the session to sleep');

    // Write-only: the agent still appends A's result, the monitor cannot read.
    chmodSync(file, 0o200);
    try {
      let lines = t.lines.length;
      t.result('toolu_A', 'a');
      appendFileSync(file, t.lines.slice(lines).map((l) => l + '\n').join(''));
      await env.monitor!.catchUp(file);
      await env.monitor!.idle();
      assert.equal(env.monitor!.isHibernating(file), true, 'asleep while it cannot be read');
      chmodSync(file, 0o600);
      lines = t.lines.length;
      t.say('m2', 'done');
      appendFileSync(file, t.lines.slice(lines).map((l) => l + '\n').join(''));
      await waitFor(() => env.monitor!.session(file)?.bytes === Buffer.byteLength(t.text()), 15_000, () => `read again: ${env.logs.join('; ')}`);
      await env.monitor!.idle();
      assert.deepEqual(live(file), checked(file, t.text()), 'A\'s result answers the call made before the sleep');
    } finally {
      chmodSync(file, 0o600);
    }
  });

  void test('a follower of a sleeping session gets the events after what it reads itself', async () => {
    env = new LiveEnv();
    const time = skewedClock();
    await env.start({ watchTree: false, clock: time.clock, sweepMs: 30, hibernateAfterMs: minutes(15) });
    mkdirSync(env.projectDir, { recursive: true });
    const file = path.join(env.projectDir, 'h2.jsonl');
    const t = new ClaudeTranscript('h2', env.workspace).user('go').call('m1', 'toolu_A', 'Bash', { command: 'ls' }).result('toolu_A', 'a');
    writeFileSync(file, t.text());
    await waitFor(() => env.monitor!.session(file)?.bytes === Buffer.byteLength(t.text()), 15_000, 'the first read');
    time.advance(minutes(16));
    await waitFor(() => env.monitor!.isHibernating(file), 15_000, 'the session to sleep');

    const seen: NormalizedEvent[] = [];
    const follow = env.monitor!.followSession(file, (e) => seen.push(e))!;
    assert.equal(follow.consumedBytes, Buffer.byteLength(t.text()), 'the follower reads the whole file so far itself');
    await env.monitor!.idle();
    await sleep(200);
    assert.equal(seen.length, 0, 'the replay is not followed');
    assert.equal(env.monitor!.isHibernating(file), false, 'a followed session is awake');
    time.advance(minutes(16));
    await sleep(200);
    assert.equal(env.monitor!.isHibernating(file), false, 'and stays awake while followed');

    const lines = t.lines.length;
    t.say('m2', 'next');
    appendFileSync(file, t.lines.slice(lines).map((l) => l + '\n').join(''));
    await waitFor(() => seen.length > 0, 15_000, 'the new event');
    assert.deepEqual(
      seen.map((e) => e.at.line),
      [lines + 1],
    );
    follow.dispose();
    await waitFor(() => env.monitor!.isHibernating(file) || (time.advance(minutes(16)), false), 15_000, 'sleep again once unfollowed');
  });

  void test('what the session saw before sleeping still judges a write after it wakes (a lost update)', async () => {
    env = new LiveEnv();
    const time = skewedClock();
    const src = path.join(env.workspace, 'src', 'app.ts');
    mkdirSync(path.dirname(src), { recursive: true });
    writeFileSync(src, 'const a = 1;\nconst b = 2;\n');
    await env.start({ clock: time.clock, sweepMs: 30, hibernateAfterMs: minutes(15) });
    const day = path.join(env.codexHome, 'sessions', '2026', '01', '02');
    mkdirSync(day, { recursive: true });
    const rollout = path.join(day, 'rollout-2026-01-02T03-04-05-h3.jsonl');
    const r = new CodexRollout('h3', env.workspace).user('bump a').shell('c1', 'cat src/app.ts').output('c1', 'const a = 1;');
    writeFileSync(rollout, r.text());
    await waitFor(() => env.monitor!.session(rollout)?.bytes === Buffer.byteLength(r.text()), 15_000, 'the read');
    await env.monitor!.idle();
    await env.monitor!.tree!.settle(src);

    time.advance(minutes(16));
    await waitFor(() => env.monitor!.isHibernating(rollout), 15_000, 'the session to sleep');
    // While it sleeps, someone else changes the file.
    writeFileSync(src, 'const a = 1;\nconst b = 3; // by hand\n');
    // Its last content, not "one change": a write truncates, then writes, and may show as two.
    await waitFor(() => env.monitor!.tree!.history(src).at(-1)?.hash === hashText('const a = 1;\nconst b = 3; // by hand\n'), 15_000, 'the foreign change');
    await sleep(400);
    const lines = r.lines.length;
    r.patch('c2', '*** Begin Patch\n*** Update File: src/app.ts\n@@\n-const a = 1;\n+const a = 2;\n*** End Patch').output('c2', 'Done!', true);
    appendFileSync(rollout, r.lines.slice(lines).map((l) => l + '\n').join(''));
    await waitFor(() => live(rollout).length === 1, 15_000, () => `the stale write: ${env.logs.join('; ')}`);
    const f = env.monitor!.findings.forFile(rollout)[0]!;
    assert.equal(`${f.rule}:${f.messageId}@${f.line}`, 'stale-write:live@5');
    assert.equal(f.related[0]!.line, 4, 'the read before the sleep');
  });

  void test('a re-check while a session wakes reads it whole, takes nothing back and announces nothing again', async () => {
    env = new LiveEnv();
    const time = skewedClock();
    await env.start({ watchTree: false, clock: time.clock, sweepMs: 30, hibernateAfterMs: minutes(15) });
    mkdirSync(env.projectDir, { recursive: true });
    const file = path.join(env.projectDir, 'h4.jsonl');
    const t = new ClaudeTranscript('h4', env.workspace).user('go').call('m1', 'toolu_A', 'Bash', { command: 'ls' }).result('toolu_A', 'a').result('toolu_A', 'again');
    // Long enough (6 MB) that waking reads it in several chunks: the re-check comes mid-wake.
    for (let i = 0; i < 3000; i++) {
      t.say(`m${i + 2}`, 'x'.repeat(2000));
    }
    writeFileSync(file, t.text());
    const expected = checked(file, t.text());
    await waitFor(() => live(file).length === expected.length, 30_000, 'the duplicate result');
    await env.monitor!.idle();
    time.advance(minutes(16));
    await waitFor(() => env.monitor!.isHibernating(file), 15_000, 'the session to sleep');
    const announcedBefore = env.announced.length;

    const m = env.monitor!;
    let woken = false;
    void m.callLocation(file, 'toolu_A').then(() => (woken = true));
    while (m.isHibernating(file)) {
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(woken, false, 'the re-check comes while the session is being read again');
    await m.recheck();
    await m.idle();
    assert.deepEqual(live(file), expected);
    assert.deepEqual(brief(env.removed), [], 'nothing taken back');
    assert.equal(env.announced.length, announcedBefore, 'nothing announced again');
    assert.equal(m.session(file)!.bytes, Buffer.byteLength(t.text()));
  });
});
