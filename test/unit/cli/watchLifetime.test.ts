/** How long `agent-guard watch` runs: until it is stopped, and no longer. */
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { encodeClaudeProject } from '../../../src/core/discovery/locations';
import { socketPathFor } from '../../../src/io/guard/socketPath';
import { ClaudeTranscript } from '../support/claude';
import { spawnCli } from '../support/cli';
import { repoRoot } from '../support/repo';
import { sleep, waitFor } from '../support/wait';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ag-life-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * `watch --format jsonl` on a workspace whose one session holds a stray result (a finding at
 * once), its guard socket, and the session to append to; `exited()` says how it ended, if it has.
 */
async function watchedWorkspace(name: string): Promise<{ w: ReturnType<typeof spawnCli>; t: ClaudeTranscript; transcript: string; socket: string; exited: () => string | undefined }> {
  const ws = path.join(tmp, `ws-${name}`);
  const claude = path.join(tmp, `claude-${name}`);
  const proj = path.join(claude, 'projects', encodeClaudeProject(ws));
  mkdirSync(proj, { recursive: true });
  mkdirSync(ws, { recursive: true });
  const gd = path.join(tmp, `gd-${name}`);
  const transcript = path.join(proj, 's.jsonl');
  const t = new ClaudeTranscript('s', ws).user('go').result('toolu_X', 'stray');
  writeFileSync(transcript, t.text());
  const w = spawnCli(['watch', '--format', 'jsonl', '--rule', 'unbound-result=off'], { cwd: ws, env: { HOME: tmp, CLAUDE_CONFIG_DIR: claude, CODEX_HOME: path.join(tmp, 'codex'), AGENT_GUARD_DIR: gd } });
  let exited: string | undefined;
  void w.exited.then((e) => (exited = e));
  // The findings of existing sessions may come before the banner, which follows the first read.
  await waitFor(() => (w.out().includes('\n') && w.err().includes('Press Ctrl-C')) || exited, 10_000, 'the first finding and the banner');
  return { w, t, transcript, socket: socketPathFor(ws, gd), exited: () => exited };
}

void describe('agent-guard watch lifetime', () => {
  void test('with no agent folder yet and no guard it keeps waiting, and stops cleanly on SIGTERM', async () => {
    const home = path.join(tmp, 'home');
    const ws = path.join(tmp, 'ws');
    mkdirSync(home, { recursive: true });
    mkdirSync(ws, { recursive: true });
    const w = spawnCli(['watch', '--workspace', ws, '--no-guard'], {
      cwd: ws,
      env: { HOME: home, CLAUDE_CONFIG_DIR: undefined, XDG_CONFIG_HOME: undefined, CODEX_HOME: undefined, GEMINI_CLI_HOME: undefined, AMPLIFIER_HOME: undefined, AGENT_GUARD_DIR: path.join(tmp, 'gd') },
    });
    let exited: string | undefined;
    void w.exited.then((e) => (exited = e));
    try {
      await waitFor(() => w.err().includes('Press Ctrl-C') || exited, 10_000, 'the start banner');
      assert.match(w.err(), /not there yet; waiting for it/);
      await sleep(1000);
      assert.equal(exited, undefined, `still running a second after the banner: ${w.err()}`);
    } finally {
      w.child.kill('SIGTERM');
    }
    assert.equal(await w.exited, 'exit 0', w.err());
    assert.match(w.err(), /SIGTERM, stopping/);
  });

  void test('a stop signal during start-up ends it there, not once every transcript has been read', async () => {
    const ws = path.join(tmp, 'ws-busy');
    const claude = path.join(tmp, 'claude-busy');
    const proj = path.join(claude, 'projects', encodeClaudeProject(ws));
    mkdirSync(proj, { recursive: true });
    mkdirSync(ws, { recursive: true });
    // Seconds of start-up reading (2.7 MB each), as a workspace with a long history has.
    const big = path.join(repoRoot(), 'test', 'fixtures', 'real', 'claude-code', 'spotter', 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl');
    for (let i = 0; i < 24; i++) {
      copyFileSync(big, path.join(proj, `s${i}.jsonl`));
    }
    const w = spawnCli(['watch', '--no-guard', '--verbose'], { cwd: ws, env: { HOME: tmp, CLAUDE_CONFIG_DIR: claude, CODEX_HOME: path.join(tmp, 'codex-busy'), AGENT_GUARD_DIR: path.join(tmp, 'gd-busy') } });
    try {
      // The folder's watcher is ready once it has listed the transcripts, whose reads have begun.
      await waitFor(() => /watching \S+projects for claude-code sessions/.test(w.err()), 10_000, 'the transcripts found');
      w.child.kill('SIGINT');
      assert.equal(await w.exited, 'exit 0', w.err());
    } finally {
      w.child.kill('SIGKILL');
    }
    assert.match(w.err(), /SIGINT, stopping/);
    assert.doesNotMatch(w.err(), /Press Ctrl-C/, 'stopped before its start-up was done');
  });

  void test('closing its terminal (SIGHUP) stops it cleanly and frees the guard socket', async () => {
    const ws = path.join(tmp, 'ws-hup');
    mkdirSync(ws, { recursive: true });
    const gd = path.join(tmp, 'gd-hup');
    const w = spawnCli(['watch', '--workspace', ws], { cwd: ws, env: { HOME: path.join(tmp, 'home'), CLAUDE_CONFIG_DIR: undefined, CODEX_HOME: undefined, AGENT_GUARD_DIR: gd } });
    try {
      await waitFor(() => w.err().includes('Press Ctrl-C'), 10_000, 'the start banner');
      const socket = socketPathFor(ws, gd);
      assert.ok(existsSync(socket), w.err());
      w.child.kill('SIGHUP');
      assert.equal(await w.exited, 'exit 0', w.err());
      assert.match(w.err(), /SIGHUP, stopping/);
      assert.equal(existsSync(socket), false, 'the guard socket is free for another host');
    } finally {
      w.child.kill('SIGKILL');
    }
  });

  void test('stops (and gives up the guard socket) once the reader of its output is gone', async () => {
    const { w, t, transcript, socket, exited } = await watchedWorkspace('pipe');
    try {
      assert.match(w.err(), /guard +\S+\.sock\n/);
      assert.ok(existsSync(socket));
      // The reader reads one line and goes (`| head -1`).
      w.child.stdout!.destroy();
      await sleep(200);
      assert.equal(exited(), undefined, 'nothing written yet: nothing noticed');
      // The next finding has nowhere to go.
      t.result('toolu_Y', 'stray');
      appendFileSync(transcript, t.lines.at(-1)! + '\n');
      await waitFor(exited, 5000, () => `watch to stop: ${w.err()}`);
      assert.equal(exited(), 'exit 0', w.err());
      assert.match(w.err(), /the output was closed, stopping/);
      assert.equal(existsSync(socket), false, 'the guard socket is free for another host');
    } finally {
      w.child.kill('SIGKILL');
    }
  });

  void test('stops cleanly when the reader of both its outputs is gone (watch 2>&1 | head)', async () => {
    const { w, t, transcript, socket, exited } = await watchedWorkspace('pipe2');
    try {
      assert.ok(existsSync(socket));
      // Both outputs went to the reader: what watch says about stopping has nowhere to go either.
      w.child.stdout!.destroy();
      w.child.stderr!.destroy();
      await sleep(200);
      t.result('toolu_Y', 'stray');
      appendFileSync(transcript, t.lines.at(-1)! + '\n');
      await waitFor(exited, 5000, 'watch to stop');
      assert.equal(exited(), 'exit 0', 'a clean stop, not a crash on the closed stderr');
      assert.equal(existsSync(socket), false, 'the guard socket is free for another host');
    } finally {
      w.child.kill('SIGKILL');
    }
  });
});
