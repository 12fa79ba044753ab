/**
 * Start-up reads every existing session through a queue of `readConcurrency` slots. A session
 * waiting for its turn holds no state yet, and a session that changes meanwhile goes before
 * the backlog. Real folders, real chokidar, real appends.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { LiveMonitor, type LiveMonitorOptions } from '../../../src/io/liveMonitor';
import { ClaudeTranscript } from '../support/claude';
import { LiveEnv } from '../support/liveEnv';
import { brief, run, sortFindings } from '../support/run';
import { waitFor } from '../support/wait';

let env: LiveEnv;
afterEach(async () => {
  await env?.dispose();
});

/** Written two days ago: read at start-up as history, then put to sleep at once. */
const oldMtime = new Date(Date.now() - 2 * 24 * 3600 * 1000);

/**
 * `count` old sessions of about `bytes` each, every one with a stray result (`orphan-result`)
 * and no call left open, so live and `check` find the same.
 */
function oldSessions(dir: string, ws: string, count: number, bytes: number): Map<string, ClaudeTranscript> {
  mkdirSync(dir, { recursive: true });
  const files = new Map<string, ClaudeTranscript>();
  for (let i = 0; i < count; i++) {
    const id = `bbbbbbbb-${String(i).padStart(4, '0')}-4000-8000-000000000001`;
    const t = new ClaudeTranscript(id, ws).user(`session ${i}`).call('m1', 'toolu_A', 'Bash', { command: 'ls' }).result('toolu_A', 'a').result('toolu_Z', 'stray');
    for (let n = 0; t.text().length < bytes; n++) {
      t.say(`m${n + 2}`, `note ${n}: ${'x'.repeat(2000)}`);
    }
    const file = path.join(dir, `${id}.jsonl`);
    writeFileSync(file, t.text());
    utimesSync(file, oldMtime, oldMtime);
    files.set(file, t);
  }
  return files;
}

/** Appends a stray result to the session; its line number. */
function appendStray(file: string, t: ClaudeTranscript): number {
  const before = t.lines.length;
  t.result('toolu_Y', 'stray too');
  appendFileSync(file, t.lines.slice(before).map((l) => l + '\n').join(''));
  return t.lines.length;
}

/** Like `LiveEnv.start`, but hands back the monitor before its start-up reads are done. */
function startMonitor(e: LiveEnv, opts: Partial<LiveMonitorOptions>): { monitor: LiveMonitor; started: Promise<void> } {
  const monitor = new LiveMonitor({
    workspace: e.workspace,
    environment: { home: e.root, env: { CLAUDE_CONFIG_DIR: e.claudeDir, CODEX_HOME: e.codexHome } },
    pendingPollMs: 50,
    watchTree: false,
    logger: { trace: () => {}, debug: () => {}, info: () => {}, warn: (m) => e.logs.push(`warn ${m}`), error: (m) => e.logs.push(`error ${String(m)}`) },
    ...opts,
  });
  monitor.findings.onDidChange((c) => {
    e.announced.push(...c.added);
    e.removed.push(...c.removed);
  });
  e.monitor = monitor;
  return { monitor, started: monitor.start() };
}

function live(monitor: LiveMonitor, file: string): string[] {
  return brief(sortFindings(monitor.findings.forFile(file)));
}

function checked(file: string): string[] {
  return brief(run(readFileSync(file), { file }).findings);
}

/** Every session read to its end, with the findings `check` gives for its file. */
function assertReadLikeCheck(monitor: LiveMonitor, files: readonly string[]): void {
  for (const f of files) {
    assert.equal(monitor.session(f)?.bytes, statSync(f).size, `${path.basename(f)} read whole`);
    assert.deepEqual(live(monitor, f), checked(f), path.basename(f));
  }
}

void describe('start-up queue', () => {
  void test('every session is read, at most readConcurrency at a time, with no state before its turn', async () => {
    env = new LiveEnv();
    // Larger than the 256 KB a tail reads at once: each read takes several turns of the event loop.
    const files = [...oldSessions(env.projectDir, env.workspace, 24, 300_000).keys()];
    const { monitor, started } = startMonitor(env, { readConcurrency: 2 });
    // A session holds state (is not asleep) only while it is being read: it sleeps as soon as
    // its history is read. Before, every session found had its state built while it queued.
    let most = 0;
    let samples = 0;
    const sampler = setInterval(() => {
      samples++;
      most = Math.max(most, files.filter((f) => monitor.session(f) !== undefined && !monitor.isHibernating(f)).length);
    }, 1);
    try {
      await started;
    } finally {
      clearInterval(sampler);
    }
    assert.ok(samples > 0 && most > 0, `the sampler saw reads (${samples} samples)`);
    assert.ok(most <= 2, `at most 2 sessions held state at once, saw ${most}`);
    assertReadLikeCheck(monitor, files);
    for (const f of files) {
      assert.equal(monitor.isHibernating(f), true, `${path.basename(f)} asleep after start-up`);
    }
    assert.equal(env.announced.length, files.length, 'each finding announced once');
    assert.deepEqual(env.logs, []);
  });

  void test('an append during the catch-up goes before the backlog: to a session read already, and to one not read yet', async () => {
    env = new LiveEnv();
    const sessions = oldSessions(env.projectDir, env.workspace, 300, 12_000);
    const files = [...sessions.keys()];
    const { monitor, started } = startMonitor(env, { readConcurrency: 1 });
    const readCount = (): number => files.filter((f) => (monitor.session(f)?.bytes ?? 0) > 0).length;
    // How many sessions had been read when each appended line's finding was announced.
    const appendedAt = new Map<string, number>();
    const readWhenFound = new Map<string, number>();
    monitor.findings.onDidChange((c) => {
      for (const f of c.added) {
        if (f.line === appendedAt.get(f.file)) {
          readWhenFound.set(f.file, readCount());
        }
      }
    });
    // Every session found (so all are queued), and one of them read and asleep.
    const early = await waitFor(
      () => files.every((f) => monitor.session(f) !== undefined) && files.find((f) => monitor.session(f)!.bytes === statSync(f).size && monitor.isHibernating(f)),
      15_000,
      'every session found, one read and asleep',
    );
    const late = files.find((f) => monitor.session(f) !== undefined && monitor.session(f)!.bytes === 0 && f !== early);
    assert.ok(late !== undefined, 'a session still waiting for its turn');
    for (const f of [early, late]) {
      appendedAt.set(f, appendStray(f, sessions.get(f)!));
    }
    await started;

    for (const f of [early, late]) {
      const at = readWhenFound.get(f);
      assert.ok(at !== undefined, `the append to ${path.basename(f)} was read`);
      // With the backlog served first, these were found only after all 300 sessions were read.
      assert.ok(at < files.length, `${path.basename(f)}: found after ${at} of ${files.length} sessions were read`);
    }
    assertReadLikeCheck(monitor, files);
    assert.equal(env.announced.length, files.length + 2, 'each finding announced once');
    assert.deepEqual(env.logs, []);
  });

  void test('re-check: a session read out of turn and asleep again is left asleep at its turn, and still followed', async () => {
    env = new LiveEnv();
    const sessions = oldSessions(env.projectDir, env.workspace, 60, 12_000);
    const files = [...sessions.keys()];
    const { monitor, started } = startMonitor(env, { readConcurrency: 1 });
    await started;
    const before = env.announced.length;
    // Re-read from the start, one at a time; the last in line is asked for out of turn, which
    // reads it whole and (it is old) puts it to sleep again before its own turn comes.
    const last = monitor.sessionList().at(-1)!.file;
    const rechecked = monitor.recheck();
    await monitor.catchUp(last);
    assert.equal(monitor.isHibernating(last), true, 'read out of turn, then asleep');
    await rechecked;
    assert.equal(monitor.isHibernating(last), true, 'still asleep after its turn');
    assert.equal(env.announced.length, before, 're-check announces nothing new');

    const line = appendStray(last, sessions.get(last)!);
    await waitFor(() => monitor.findings.forFile(last).some((f) => f.line === line), 15_000, () => `the append after the re-check: ${env.logs.join('; ')}`);
    await monitor.idle();
    assertReadLikeCheck(monitor, files);
    assert.equal(env.announced.length, before + 1);
    assert.deepEqual(env.logs, []);
  });
});
