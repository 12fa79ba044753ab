/**
 * Live watching with real folders, real chokidar and real appends: what the watcher finds
 * while files grow equals what `check` finds on the final files, each finding exactly once.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import type { Finding } from '../../../src/core/model/finding';
import { ClaudeTranscript } from '../support/claude';
import { CodexRollout } from '../support/codex';
import { LiveEnv } from '../support/liveEnv';
import { LiveMonitor } from '../../../src/io/liveMonitor';
import { brief, prng, run, sortFindings } from '../support/run';
import { sleep, waitFor } from '../support/wait';

let env: LiveEnv;
afterEach(async () => {
  await env?.dispose();
});

/** A session with several problems, a multi-byte prompt, and no call left open at the end. */
function brokenSession(ws: string, id = 'aaaaaaaa-1111-4000-8000-000000000001'): ClaudeTranscript {
  const f = path.join(ws, 'src', 'app.ts');
  return new ClaudeTranscript(id, ws)
    .user('Réparer le fichier — 日本語 🧪')
    .call('m1', 'toolu_A', 'Bash', { command: 'ls' })
    .call('m1', 'toolu_B', 'Bash', { command: 'pwd' })
    .result('toolu_A', 'a')
    .say('m2', 'moving on without B')
    .result('toolu_B', 'late b')
    .result('toolu_A', 'again')
    .result('toolu_Z', 'stray')
    .edit('m3', 'toolu_C', f, 'one\ntwo\n', 'two', '2')
    .say('m4', 'done ✓');
}

async function appendInRandomChunks(file: string, bytes: Uint8Array, seed: number): Promise<void> {
  const rnd = prng(seed);
  let at = 0;
  while (at < bytes.length) {
    const n = 1 + Math.floor(rnd() * 300);
    appendFileSync(file, bytes.subarray(at, at + n));
    at += n;
    if (rnd() < 0.3) {
      await sleep(Math.floor(rnd() * 15));
    }
  }
}

function checkFindings(file: string): string[] {
  return brief(run(readFileSync(file), { file }).findings);
}

function liveFindings(e: LiveEnv, file: string): string[] {
  return brief(sortFindings(e.monitor!.findings.forFile(file)));
}

void describe('live monitor', () => {
  void test('random-chunk appends: findings equal check on the final file, each announced once', async () => {
    env = new LiveEnv();
    await env.start({ watchTree: false });
    mkdirSync(env.projectDir, { recursive: true });
    const file = path.join(env.projectDir, 'aaaaaaaa-1111-4000-8000-000000000001.jsonl');
    const t = brokenSession(env.workspace);
    const bytes = new TextEncoder().encode(t.text());
    writeFileSync(file, '');
    await appendInRandomChunks(file, bytes, 7);
    const expected = checkFindings(file);
    assert.ok(expected.length >= 5, `the session is broken enough: ${expected.join(' ')}`);
    await waitFor(() => liveFindings(env, file).length === expected.length, 15_000, () => `all findings: live ${liveFindings(env, file).join(' ')} vs check ${expected.join(' ')}; ${env.logs.join('; ')}`);
    await env.monitor!.idle();
    assert.deepEqual(liveFindings(env, file), expected);
    assert.deepEqual(brief(sortFindings([...env.announced])), expected, 'each finding announced exactly once');
    const s = env.monitor!.session(file)!;
    assert.equal(s.sessionId, 'aaaaaaaa-1111-4000-8000-000000000001');
    assert.equal(s.firstPrompt, 'Réparer le fichier — 日本語 🧪');
  });

  void test('a result held for a call that never comes is read once the file is quiet, as check reads it at the end', async () => {
    env = new LiveEnv();
    // Quiet for 30 s before it settles by itself, so a slow machine cannot settle it before the
    // check of what is held; the tick a minute on settles it.
    await env.start({ watchTree: false, settleAfterMs: 30_000 });
    mkdirSync(env.projectDir, { recursive: true });
    const file = path.join(env.projectDir, 'aaaaaaaa-1111-4000-8000-000000000001.jsonl');
    // The result hangs from a record this file never holds (the call's line was lost): Claude
    // Code sometimes writes a result just before its call, so the parser waits for that record.
    const t = new ClaudeTranscript('aaaaaaaa-1111-4000-8000-000000000001', env.workspace).user('go').call('m1', 'toolu_A', 'Bash', { command: 'ls' }).result('toolu_A', 'a').result('toolu_LOST', 'x');
    const lost = 'ffffffff-0000-4000-8000-000000000099';
    const lines = t.text().trimEnd().split('\n');
    lines[lines.length - 1] = JSON.stringify({ ...(JSON.parse(lines[lines.length - 1]!) as object), parentUuid: lost, sourceToolAssistantUUID: lost });
    const text = lines.join('\n') + '\n';
    writeFileSync(file, text);
    const expected = checkFindings(file);
    assert.deepEqual(expected.map((f) => f.split('@')[0]), ['orphan-result']);
    await waitFor(() => env.monitor!.session(file)?.bytes === Buffer.byteLength(text), 10_000, 'the file read');
    await env.monitor!.idle();
    assert.deepEqual(liveFindings(env, file), [], 'held while more lines may come');
    env.monitor!.tick(Date.now() + 60_000);
    assert.deepEqual(liveFindings(env, file), expected);
    // Its call never came; nothing is reported twice when time passes again.
    env.monitor!.tick(Date.now() + 120_000);
    assert.deepEqual(brief(sortFindings([...env.announced])), expected);
  });

  void test('a last line left without its newline is reported once the file is quiet, as check reports it, and withdrawn when the rest comes', async () => {
    env = new LiveEnv();
    // Quiet for 30 s before it settles by itself, so a slow machine cannot settle it before the
    // check of what is held; the tick a minute on settles it.
    await env.start({ watchTree: false, settleAfterMs: 30_000 });
    mkdirSync(env.projectDir, { recursive: true });
    const id = 'aaaaaaaa-1111-4000-8000-000000000003';
    const file = path.join(env.projectDir, `${id}.jsonl`);
    const bytes = Buffer.from(new ClaudeTranscript(id, env.workspace).user('go').call('m1', 'toolu_A', 'Bash', { command: 'ls' }).result('toolu_A', 'a').say('m2', 'done').text());
    // Cut inside the last line: its writer stopped (or has not finished) before its end.
    const cut = bytes.length - 20;
    writeFileSync(file, bytes.subarray(0, cut));
    const checked = run(readFileSync(file), { file }).findings;
    assert.deepEqual(checked.map((f) => `${f.rule}@${f.line}`), ['unparseable-line@4'], 'check reports the cut line');
    const whole = (fs: readonly Finding[]): string[] => fs.map((f) => `${brief([f]).join()} ${f.message}`);
    await waitFor(() => env.monitor!.session(file)?.bytes === cut, 10_000, 'the file read');
    await env.monitor!.idle();
    assert.deepEqual(liveFindings(env, file), [], 'not at once: the line may be in the middle of being written');
    env.monitor!.tick(Date.now() + 60_000);
    assert.deepEqual(whole(sortFindings(env.monitor!.findings.forFile(file))), whole(checked), 'once quiet, what check says, on its line');
    // The rest of the line comes: the line was being written after all.
    appendFileSync(file, bytes.subarray(cut));
    await waitFor(() => liveFindings(env, file).length === 0, 10_000, () => `withdrawn: ${liveFindings(env, file).join(' ')}`);
    await env.monitor!.idle();
    env.monitor!.tick(Date.now() + 120_000);
    assert.deepEqual(liveFindings(env, file), checkFindings(file));
    assert.deepEqual(checkFindings(file), []);
    assert.deepEqual(whole(env.announced), whole(checked), 'reported once');
  });

  void test('the clock set back: a result held for a call that never comes is still read once the file is quiet', async () => {
    env = new LiveEnv();
    let skew = 60 * 60_000;
    await env.start({ watchTree: false, clock: () => Date.now() + skew, tickMs: 50, sweepMs: 50 });
    mkdirSync(env.projectDir, { recursive: true });
    const file = path.join(env.projectDir, 'aaaaaaaa-1111-4000-8000-000000000002.jsonl');
    const t = new ClaudeTranscript('aaaaaaaa-1111-4000-8000-000000000002', env.workspace).at(Date.now()).user('go').call('m1', 'toolu_A', 'Bash', { command: 'ls' }).result('toolu_A', 'a').result('toolu_LOST', 'x');
    const lost = 'ffffffff-0000-4000-8000-000000000099';
    const lines = t.text().trimEnd().split('\n');
    lines[lines.length - 1] = JSON.stringify({ ...(JSON.parse(lines[lines.length - 1]!) as object), parentUuid: lost, sourceToolAssistantUUID: lost });
    writeFileSync(file, lines[0] + '\n');
    await waitFor(() => env.monitor!.session(file)?.bytes === Buffer.byteLength(lines[0]!) + 1, 10_000, 'the first line read');
    await env.monitor!.idle();
    // Appended while the clock is an hour ahead: the session's last activity is then.
    appendFileSync(file, lines.slice(1).join('\n') + '\n');
    const expected = checkFindings(file);
    assert.deepEqual(expected.map((f) => f.split('@')[0]), ['orphan-result']);
    await waitFor(() => env.monitor!.session(file)?.bytes === statSync(file).size, 10_000, 'the append read');
    await env.monitor!.idle();
    assert.deepEqual(liveFindings(env, file), [], 'held while more lines may come');
    skew = 0;
    await waitFor(() => liveFindings(env, file).join() === expected.join(), 15_000, () => `the orphan result, not an hour later: ${liveFindings(env, file).join(' ')}`);
  });

  void test('a folder that does not exist yet, a new session appearing, and Codex matched by cwd', async () => {
    env = new LiveEnv();
    await env.start({ watchTree: false });
    const day = path.join(env.codexHome, 'sessions', '2026', '01', '02');
    mkdirSync(day, { recursive: true });
    const mine = path.join(day, 'rollout-2026-01-02T03-04-05-mine.jsonl');
    const other = path.join(day, 'rollout-2026-01-02T03-04-06-other.jsonl');
    writeFileSync(other, new CodexRollout('other', '/elsewhere').user('x').shell('c1', 'ls').user('y').text());
    const r = new CodexRollout('mine', env.workspace).user('go').shell('c1', 'ls').user('again?');
    await appendInRandomChunks(mine, new TextEncoder().encode(r.text()), 3);
    await waitFor(() => env.monitor!.findings.forFile(mine).length === 1, 15_000, 'the Codex finding');
    assert.deepEqual(liveFindings(env, mine), checkFindings(mine));
    assert.equal(env.monitor!.session(other), undefined, 'a rollout of another workspace is not followed');
    assert.equal(env.monitor!.session(mine)!.sessionId, 'mine');
  });

  void test('truncation, replace-by-rename, deletion and re-creation', async () => {
    env = new LiveEnv();
    await env.start({ watchTree: false });
    mkdirSync(env.projectDir, { recursive: true });
    const file = path.join(env.projectDir, 's1.jsonl');
    const t = brokenSession(env.workspace, 's1');
    writeFileSync(file, t.text());
    const full = checkFindings(file);
    await waitFor(() => liveFindings(env, file).length === full.length, 15_000, 'initial findings');

    // Truncate to the first 4 lines (only A answered, B pending: nothing certain yet).
    truncateSync(file, Buffer.byteLength(t.lines.slice(0, 4).map((l) => l + '\n').join('')));
    appendFileSync(file, ''); // a change event for some platforms
    await waitFor(() => liveFindings(env, file).length === 0, 15_000, 'findings of the cut lines to go');

    // Replace by rename with different content (a rewrite by another program).
    const other = new ClaudeTranscript('s1', env.workspace).user('new').result('toolu_Q', 'stray').say('m9', 'x');
    const tmpFile = path.join(env.projectDir, '.s1.tmp');
    writeFileSync(tmpFile, other.text());
    renameSync(tmpFile, file);
    await waitFor(() => liveFindings(env, file).join() === checkFindings(file).join(), 15_000, 'findings of the new content');

    // An append-only rewrite (Amplifier's temp-and-rename that keeps the prefix) is diffed, not re-reported.
    const before = env.announced.length;
    const grown = other.text() + new ClaudeTranscript('s1b', env.workspace).result('toolu_R', 'stray 2').text();
    writeFileSync(tmpFile, grown);
    renameSync(tmpFile, file);
    await waitFor(() => liveFindings(env, file).length === 2, 15_000, 'the appended finding');
    assert.equal(env.announced.length, before + 1, 'only the new finding is announced');

    // Rewritten in place, longer (an editor's save: same inode): read again from the start, not
    // from the old offset, which now falls in the middle of a line.
    const edited = new ClaudeTranscript('s1', env.workspace).user('edited by hand, at more length than before').say('m8', 'fine').result('toolu_S', 'stray 3');
    const inode = statSync(file).ino;
    writeFileSync(file, edited.text() + other.text());
    assert.equal(statSync(file).ino, inode, 'rewritten in place');
    await waitFor(() => liveFindings(env, file).join() === checkFindings(file).join(), 15_000, () => `findings of the edited file: ${liveFindings(env, file).join(' ')}`);
    assert.ok(!liveFindings(env, file).some((f) => f.startsWith('unparseable-line')), 'no line read from its middle');

    // Deletion clears the file's findings; re-creation starts from scratch.
    rmSync(file);
    await waitFor(() => env.monitor!.session(file) === undefined, 15_000, 'the session to go');
    assert.deepEqual(env.monitor!.findings.forFile(file), []);
    writeFileSync(file, t.text());
    await waitFor(() => liveFindings(env, file).length === full.length, 15_000, () => `the re-created session; log: ${env.logs.join(' | ')}`);
    assert.deepEqual(liveFindings(env, file), full);
  });

  void test('rewritten in place with as many bytes (a one-word edit): read again, as check reads it', async () => {
    env = new LiveEnv();
    await env.start({ watchTree: false });
    mkdirSync(env.projectDir, { recursive: true });
    const file = path.join(env.projectDir, 's3.jsonl');
    const version = (id: string): string => new ClaudeTranscript('s3', env.workspace).user('go').call('m1', 'toolu_A', 'Bash', { command: 'ls' }).result('toolu_A', 'a').result(id, 'again').text();
    const before = version('toolu_A');
    const after = version('toolu_Z');
    assert.equal(Buffer.byteLength(before), Buffer.byteLength(after));
    writeFileSync(file, before);
    const first = checkFindings(file);
    await waitFor(() => liveFindings(env, file).join() === first.join(), 15_000, 'the duplicate result');
    await env.monitor!.idle();
    const inode = statSync(file).ino;
    const mtime = statSync(file).mtimeMs;
    // The result names another call: a duplicate result becomes an orphan one.
    await waitFor(() => (writeFileSync(file, after), statSync(file).mtimeMs !== mtime), 5_000, 'a new mtime');
    assert.equal(statSync(file).ino, inode, 'rewritten in place');
    const expected = checkFindings(file);
    assert.notDeepEqual(expected, first);
    await waitFor(() => liveFindings(env, file).join() === expected.join(), 15_000, () => `findings of the edited file: ${liveFindings(env, file).join(' ')} vs ${expected.join(' ')}`);
  });

  void test('a re-check of a transcript that cannot be read keeps its findings until it is read again', async () => {
    // As root every file is readable: the transcript is made unreadable by putting a FIFO in
    // its place (renamed over it, so it never stops existing), which the tail must not open.
    env = new LiveEnv();
    mkdirSync(env.projectDir, { recursive: true });
    await env.start({ watchTree: false });
    const file = path.join(env.projectDir, 'aaaaaaaa-1111-4000-8000-000000000003.jsonl');
    const text = brokenSession(env.workspace, 'aaaaaaaa-1111-4000-8000-000000000003').text();
    writeFileSync(file, text);
    const expected = checkFindings(file);
    await waitFor(() => liveFindings(env, file).join() === expected.join(), 15_000, 'the findings');
    await env.monitor!.idle();
    const fifo = path.join(env.root, 'fifo');
    execFileSync('mkfifo', [fifo]);
    renameSync(fifo, file);
    // (The watcher's events about the swap come and go meanwhile.)
    await sleep(300);
    await env.monitor!.recheck();
    assert.deepEqual(liveFindings(env, file), expected, 'the findings stand while the transcript cannot be read');
    assert.ok(env.logs.some((l) => l.includes('cannot read') && l.includes(file)), `logged: ${env.logs.join('; ')}`);
    assert.deepEqual(env.removed, []);
    // Readable again: read again, nothing is news.
    const back = path.join(env.root, 'back.jsonl');
    writeFileSync(back, text);
    renameSync(back, file);
    await waitFor(() => env.monitor!.session(file)?.bytes === Buffer.byteLength(text), 15_000, 'the transcript read again');
    await env.monitor!.idle();
    assert.deepEqual(liveFindings(env, file), expected);
    assert.deepEqual(env.removed, []);
    assert.deepEqual(brief(sortFindings([...env.announced])), expected, 'each finding announced once');
  });

  void test('a re-check of a transcript whose permissions were taken away keeps its findings', { skip: process.getuid?.() === 0 && 'runs as root, who reads every file' }, async () => {
    env = new LiveEnv();
    mkdirSync(env.projectDir, { recursive: true });
    await env.start({ watchTree: false });
    const file = path.join(env.projectDir, 'aaaaaaaa-1111-4000-8000-000000000004.jsonl');
    writeFileSync(file, brokenSession(env.workspace, 'aaaaaaaa-1111-4000-8000-000000000004').text());
    const expected = checkFindings(file);
    await waitFor(() => liveFindings(env, file).join() === expected.join(), 15_000, 'the findings');
    await env.monitor!.idle();
    chmodSync(file, 0o000);
    try {
      await env.monitor!.recheck();
      assert.deepEqual(liveFindings(env, file), expected, 'the findings stand while the transcript cannot be read');
      assert.deepEqual(env.removed, []);
    } finally {
      chmodSync(file, 0o600);
    }
    appendFileSync(file, '\n');
    await waitFor(() => env.monitor!.session(file)?.bytes === statSync(file).size, 15_000, 'the transcript read again');
    await env.monitor!.idle();
    assert.deepEqual(liveFindings(env, file), expected);
    assert.deepEqual(env.removed, []);
  });

  void test('a folder deleted under the watcher, an unreadable file: logged, and watching goes on', async () => {
    env = new LiveEnv();
    mkdirSync(env.projectDir, { recursive: true });
    await env.start({ watchTree: false });
    const file = path.join(env.projectDir, 's2.jsonl');
    writeFileSync(file, brokenSession(env.workspace, 's2').text());
    await waitFor(() => env.monitor!.findings.forFile(file).length > 0, 15_000, 'findings');
    rmSync(path.join(env.claudeDir, 'projects'), { recursive: true });
    await waitFor(() => env.monitor!.sessionList().length === 0, 15_000, 'sessions to go with their folder');
    assert.equal(env.monitor!.findings.size, 0);
    // The folder comes back: watched again.
    mkdirSync(env.projectDir, { recursive: true });
    writeFileSync(file, brokenSession(env.workspace, 's2').text());
    await waitFor(() => env.monitor!.findings.forFile(file).length > 0, 15_000, 'findings after the folder came back');
    if (process.getuid?.() !== 0) {
      const locked = path.join(env.projectDir, 'locked.jsonl');
      writeFileSync(locked, 'x\n', { mode: 0o000 });
      await waitFor(() => env.logs.some((l) => l.includes('locked.jsonl')), 15_000, 'a log line about the unreadable file');
    }
  });

  void test('closed while it starts: no sweep or tick runs on the closed monitor afterwards', async () => {
    env = new LiveEnv();
    mkdirSync(env.projectDir, { recursive: true });
    writeFileSync(path.join(env.projectDir, 's1.jsonl'), brokenSession(env.workspace, 's1').text());
    let clockReads = 0;
    const monitor = new LiveMonitor({
      workspace: env.workspace,
      environment: { home: env.root, env: { CLAUDE_CONFIG_DIR: env.claudeDir, CODEX_HOME: env.codexHome } },
      watchTree: false,
      pendingPollMs: 5,
      tickMs: 5,
      sweepMs: 5,
      clock: () => {
        clockReads++;
        return Date.now();
      },
    });
    env.monitor = monitor;
    // As the extension does when the settings change while the monitors read the history.
    const starting = monitor.start();
    await monitor.close();
    await starting;
    const reads = clockReads;
    await sleep(100);
    assert.equal(clockReads, reads, 'the clock was read after the monitor closed: its timers still run');
  });
});
