import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { encodeClaudeProject } from '../../../src/core/discovery/locations';
import { ClaudeTranscript } from '../support/claude';
import { cli, spawnCli } from '../support/cli';
import { CodexRollout } from '../support/codex';
import { repoRoot } from '../support/repo';
import { sleep, waitFor } from '../support/wait';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ag-watch-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

/** `agent-guard watch` as a child process, its output gathered as it comes. `node`: Node's own options. */
function startWatch(
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  node: readonly string[] = [],
): { child: ChildProcess; exited: Promise<string>; readonly out: string; readonly err: string } {
  const child = spawn(process.execPath, [...node, path.join(repoRoot(), 'dist', 'cli.js'), ...args], { cwd, env });
  let out = '';
  let err = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<string>((resolve) => child.on('exit', (code, signal) => resolve(code === null ? `killed by ${signal}` : `exit ${code}`)));
  return {
    child,
    exited,
    get out() {
      return out;
    },
    get err() {
      return err;
    },
  };
}

/** The records of `watch --format jsonl` output, one a line. */
function jsonlRecords<T>(text: string): T[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}

void describe('agent-guard watch', () => {
  void test('a workspace that does not exist, or is a file: a usage error, no watch started', () => {
    const file = path.join(tmp, 'a-file.txt');
    writeFileSync(file, 'x');
    for (const ws of [path.join(tmp, 'no-such-workspace'), file]) {
      const r = cli(['watch', '--no-guard', '--workspace', ws], { env: { HOME: tmp, CLAUDE_CONFIG_DIR: path.join(tmp, 'claude'), CODEX_HOME: path.join(tmp, 'codex') } });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /^agent-guard: the workspace .* is not a folder\n/);
      assert.doesNotMatch(r.stderr, /Press Ctrl-C/);
    }
  });

  void test('prints what it watches, each finding once as jsonl, and exits cleanly on SIGINT', async () => {
    const ws = path.join(tmp, 'ws');
    mkdirSync(ws, { recursive: true });
    const claude = path.join(tmp, 'claude');
    const proj = path.join(claude, 'projects', encodeClaudeProject(ws));
    mkdirSync(proj, { recursive: true });
    const existing = path.join(proj, 'old.jsonl');
    writeFileSync(existing, new ClaudeTranscript('old', ws).user('go').result('toolu_X', 'stray').text());
    const w = startWatch(['watch', '--format', 'jsonl'], ws, { ...process.env, HOME: tmp, CLAUDE_CONFIG_DIR: claude, CODEX_HOME: path.join(tmp, 'codex'), NO_COLOR: '1' });
    const { child, exited } = w;
    try {
      await waitFor(() => w.err.includes('Press Ctrl-C'), 10_000, 'the start banner');
      assert.match(w.err, /Claude Code +.*projects.*-ws\n/);
      assert.match(w.err, /Codex CLI +.*codex.sessions \(not there yet; waiting for it\)/);
      assert.match(w.err, /found 1 session \(Claude Code 1\)/);
      await waitFor(() => w.out.split('\n').filter(Boolean).length >= 1, 5000, 'the existing finding');

      const live = path.join(proj, 'live.jsonl');
      const t = new ClaudeTranscript('live', ws).user('go').call('m1', 'toolu_A', 'Bash', { command: 'ls' }).say('m2', 'skipped the result');
      for (const line of t.lines) {
        appendFileSync(live, line + '\n');
      }
      await waitFor(() => w.out.split('\n').filter(Boolean).length >= 2, 5000, 'the live finding');
      const rows = jsonlRecords<{ rule: string; file: string; line: number; session: string; agent: string }>(w.out);
      assert.deepEqual(
        rows.map((r) => `${r.rule}:${path.basename(r.file)}:${r.line}:${r.session}:${r.agent}`),
        ['orphan-result:old.jsonl:2:old:claude-code', 'missing-result:live.jsonl:2:live:claude-code'],
      );
    } finally {
      child.kill('SIGINT');
    }
    assert.equal(await exited, 'exit 0', w.err);
    assert.match(w.err, /SIGINT, stopping/);
    assert.equal(w.out.split('\n').filter(Boolean).length, 2, 'each finding printed once');
  });

  void test('a session folder it may not enter at first is watched once it may: its sessions, and those written later', { skip: process.platform === 'win32' }, async () => {
    const ws = path.join(tmp, 'ws-denied');
    const claude = path.join(tmp, 'claude-denied');
    const proj = path.join(claude, 'projects', encodeClaudeProject(ws));
    mkdirSync(proj, { recursive: true });
    mkdirSync(ws, { recursive: true });
    writeFileSync(path.join(proj, 'old.jsonl'), new ClaudeTranscript('old', ws).user('go').result('toolu_X', 'stray').text());
    chmodSync(tmp, 0o755);
    chmodSync(proj, 0o000);
    // Root ignores permission bits: run as nobody to see what a user would see.
    const w = spawnCli(['watch', '--format', 'jsonl', '--no-guard', '--no-tree'], {
      cwd: ws,
      env: { HOME: tmp, CLAUDE_CONFIG_DIR: claude, CODEX_HOME: path.join(tmp, 'codex-denied') },
      ...(process.getuid?.() === 0 ? { asUser: 65534 } : {}),
    });
    try {
      await waitFor(() => w.err().includes('Press Ctrl-C'), 10_000, 'the start banner');
      assert.match(w.err(), /EACCES/, 'said once');
      chmodSync(proj, 0o755);
      await waitFor(() => w.out().includes('old.jsonl'), 10_000, () => `the session there all along: ${w.err()}`);
      writeFileSync(path.join(proj, 'new.jsonl'), new ClaudeTranscript('new', ws).user('go').result('toolu_Y', 'stray').text());
      await waitFor(() => w.out().includes('new.jsonl'), 10_000, 'a session written since');
    } finally {
      chmodSync(proj, 0o755);
      w.child.kill('SIGTERM');
    }
    assert.equal(await w.exited, 'exit 0', w.err());
    assert.deepEqual(
      jsonlRecords<{ rule: string; file: string }>(w.out()).map((r) => `${r.rule}:${path.basename(r.file)}`),
      ['orphan-result:old.jsonl', 'orphan-result:new.jsonl'],
    );
  });

  void test('a working-tree folder it may not read at first is followed once it may: a change made there is seen', { skip: process.platform === 'win32' }, async () => {
    const ws = path.join(tmp, 'ws-tree-denied');
    const codexHome = path.join(tmp, 'codex-tree-denied');
    const sub = path.join(ws, 'sub');
    const file = path.join(sub, 'app.ts');
    mkdirSync(sub, { recursive: true });
    writeFileSync(file, 'const a = 1;\nconst b = 2;\n');
    const day = path.join(codexHome, 'sessions', '2026', '01', '02');
    mkdirSync(day, { recursive: true });
    const rollout = path.join(day, 'rollout-2026-01-02T03-04-05-s1.jsonl');
    const r = new CodexRollout('s1', ws);
    let written = 0;
    const step = (fn: (r: CodexRollout) => void): void => {
      fn(r);
      appendFileSync(rollout, r.lines.slice(written).map((l) => l + '\n').join(''));
      written = r.lines.length;
    };
    chmodSync(tmp, 0o755);
    // Root ignores permission bits: run as nobody to see what a user would see.
    const w = spawnCli(['watch', '--format', 'jsonl', '--no-guard'], {
      cwd: ws,
      env: { HOME: tmp, CLAUDE_CONFIG_DIR: path.join(tmp, 'claude-tree-denied'), CODEX_HOME: codexHome },
      ...(process.getuid?.() === 0 ? { asUser: 65534 } : {}),
    });
    try {
      await waitFor(() => w.err().includes('Press Ctrl-C'), 10_000, 'the start banner');
      chmodSync(sub, 0o000);
      // The session reads the file (it runs as another user, who may): the tree may not.
      step((x) => x.user('bump a').shell('c1', 'cat sub/app.ts').output('c1', 'const a = 1;\nconst b = 2;'));
      await waitFor(() => /EACCES|permission denied/.test(w.err()), 10_000, () => `the tree denied the file: ${w.err()}`);
      chmodSync(sub, 0o755);
      // Someone else changes the file, now that the folder can be read again.
      await sleep(1_500);
      writeFileSync(file, 'const a = 1;\nconst b = 3; // changed by hand\n');
      // Longer than the attribution grace, and than a poll.
      await sleep(1_500);
      step((x) => x.patch('c2', '*** Begin Patch\n*** Update File: sub/app.ts\n@@\n-const a = 1;\n+const a = 2;\n*** End Patch').output('c2', 'Done!', true).say('done'));
      await waitFor(() => w.out().includes('stale-write'), 10_000, () => `the lost update: ${w.out()} ${w.err()}`);
    } finally {
      chmodSync(sub, 0o755);
      w.child.kill('SIGTERM');
    }
    assert.equal(await w.exited, 'exit 0', w.err());
    assert.deepEqual(
      jsonlRecords<{ rule: string; line: number }>(w.out()).map((x) => `${x.rule}@${x.line}`),
      [`stale-write@${written - 2}`],
    );
  });

  void test('a warning about a file is one line, without the stack frames of the program (--verbose keeps them)', { skip: process.platform === 'win32' }, async () => {
    const ws = path.join(tmp, 'ws-fifo');
    const claude = path.join(tmp, 'claude-fifo');
    const proj = path.join(claude, 'projects', encodeClaudeProject(ws));
    mkdirSync(proj, { recursive: true });
    mkdirSync(ws, { recursive: true });
    execFileSync('mkfifo', [path.join(proj, 'pipe.jsonl')]);
    for (const verbose of [false, true]) {
      const w = spawnCli(['watch', '--no-guard', '--no-tree', ...(verbose ? ['--verbose'] : [])], { cwd: ws, env: { HOME: tmp, CLAUDE_CONFIG_DIR: claude, CODEX_HOME: path.join(tmp, 'codex-fifo') } });
      try {
        await waitFor(() => w.err().includes('Press Ctrl-C') && w.err().includes('[warn]'), 10_000, () => `the warning: ${w.err()}`);
      } finally {
        w.child.kill('SIGTERM');
      }
      assert.equal(await w.exited, 'exit 0', w.err());
      const warning = w.err().split('\n').find((l) => l.startsWith('[warn]')) ?? '';
      assert.match(warning, /cannot read .*pipe\.jsonl: AgentGuardError: .*pipe\.jsonl is not a regular file/);
      if (verbose) {
        assert.match(warning, /\\n {4}at /, 'with --verbose, the stack');
      } else {
        assert.doesNotMatch(warning, /\\n {4}at |cli\.js/, 'no stack frames');
      }
    }
  });

  void test('a --folder is listed as a folder, not as a Claude Code folder, whatever agents its transcripts are of', async () => {
    const ws = path.join(tmp, 'ws-folder');
    const extra = path.join(tmp, 'extra rollouts');
    mkdirSync(ws, { recursive: true });
    mkdirSync(extra, { recursive: true });
    writeFileSync(path.join(extra, 'rollout-2026-01-01T00-00-00-a.jsonl'), new CodexRollout('codex-a', ws).user('go').exec('call_1', 'ls').user('next').text());
    const w = startWatch(['watch', '--no-guard', '--no-tree', '--folder', extra], ws, { ...process.env, HOME: tmp, CLAUDE_CONFIG_DIR: path.join(tmp, 'claude-none'), CODEX_HOME: path.join(tmp, 'codex-none'), NO_COLOR: '1' });
    try {
      await waitFor(() => w.err.includes('Press Ctrl-C'), 10_000, 'the start banner');
      assert.match(w.err, /\n {2}folder +[^\n]*extra rollouts\n/);
      assert.doesNotMatch(w.err, /Claude Code +[^\n]*extra rollouts/);
      assert.match(w.err, /found 1 session \(Codex CLI 1\)/);
    } finally {
      w.child.kill('SIGTERM');
    }
    assert.equal(await w.exited, 'exit 0', w.err);
  });
});

void describe('agent-guard watch --folder', () => {
  void test('watches the files `check` reads in that folder: Gemini CLI legacy documents too, there at the start or written later', async () => {
    const ws = path.join(tmp, 'ws-folder-gemini');
    const extra = path.join(tmp, 'copied gemini');
    const chats = path.join(extra, 'chats');
    mkdirSync(ws, { recursive: true });
    mkdirSync(path.join(chats, 'parent-id'), { recursive: true });
    // An edit of a file the session never read: a write-before-read, whichever document holds it.
    const doc = (sessionId: string, edit: string): string =>
      JSON.stringify(
        {
          sessionId,
          projectHash: 'h',
          startTime: '2026-03-20T10:00:00.000Z',
          lastUpdated: '2026-03-20T10:01:00.000Z',
          messages: [
            { id: 'm1', timestamp: '2026-03-20T10:00:00.000Z', type: 'user', content: 'Make the port configurable' },
            {
              id: 'm2',
              timestamp: '2026-03-20T10:01:00.000Z',
              type: 'gemini',
              content: '',
              toolCalls: [{ id: edit, name: 'replace', args: { file_path: path.join(ws, 'app.ts'), old_string: '80', new_string: 'env.PORT' }, result: [{ functionResponse: { id: edit, name: 'replace', response: { output: 'Edited' } } }], status: 'success', timestamp: '2026-03-20T10:01:00.000Z' }],
            },
          ],
        },
        null,
        2,
      );
    const first = path.join(chats, 'session-2026-03-20T10-00-0f0e0d0c.json');
    writeFileSync(first, doc('0f0e0d0c', 'replace_1'));
    // Not a transcript, for `check` or `watch`.
    writeFileSync(path.join(extra, 'logs.json'), doc('nope', 'replace_9'));
    const w = startWatch(['watch', '--no-guard', '--no-tree', '--format', 'jsonl', '--folder', extra], ws, { ...process.env, HOME: tmp, CLAUDE_CONFIG_DIR: path.join(tmp, 'claude-none'), CODEX_HOME: path.join(tmp, 'codex-none'), NO_COLOR: '1' });
    try {
      await waitFor(() => w.err.includes('Press Ctrl-C'), 10_000, 'the start banner');
      assert.match(w.err, /found 1 session \(Gemini CLI 1\)/);
      await waitFor(() => w.out.split('\n').filter(Boolean).length >= 1, 10_000, () => `the finding in the document there at the start\n${w.err}`);
      // A sub-agent's document, written after the start.
      const later = path.join(chats, 'parent-id', 'xb7gtb.json');
      writeFileSync(later, doc('xb7gtb', 'replace_2'));
      await waitFor(() => w.out.split('\n').filter(Boolean).length >= 2, 15_000, () => `the finding in the document written later\n${w.out}\n${w.err}`);
      await sleep(500);
      const rows = jsonlRecords<{ rule: string; file: string; agent: string }>(w.out);
      assert.deepEqual(rows.map((r) => `${r.rule}:${path.relative(extra, r.file)}:${r.agent}`), [`write-before-read:${path.join('chats', path.basename(first))}:gemini`, `write-before-read:${path.join('chats', 'parent-id', 'xb7gtb.json')}:gemini`]);
      // What `check` reads in the folder, and nothing else.
      const checked = cli(['check', '--format', 'json', extra]);
      assert.deepEqual((JSON.parse(checked.stdout) as { files: { file: string }[] }).files.map((f) => f.file).sort(), rows.map((r) => r.file).sort());
    } finally {
      w.child.kill('SIGTERM');
    }
    assert.equal(await w.exited, 'exit 0', w.err);
  });
});

void describe('agent-guard watch, jsonl', () => {
  void test('a transcript deleted and written again: a gone record, then its finding again, so the stream folds to the current set', async () => {
    const ws = path.join(tmp, 'ws-jsonl-gone');
    mkdirSync(ws, { recursive: true });
    const claude = path.join(tmp, 'claude-jsonl-gone');
    const proj = path.join(claude, 'projects', encodeClaudeProject(ws));
    mkdirSync(proj, { recursive: true });
    const file = path.join(proj, 'sess.jsonl');
    const text = new ClaudeTranscript('sess', ws).user('go').result('toolu_X', 'stray').text();
    writeFileSync(file, text);
    const w = startWatch(['watch', '--format', 'jsonl', '--no-guard'], ws, { ...process.env, HOME: tmp, CLAUDE_CONFIG_DIR: claude, CODEX_HOME: path.join(tmp, 'codex-jsonl-gone'), NO_COLOR: '1' });
    const { child, exited } = w;
    const printed = (): string[] => w.out.split('\n').filter((l) => l.includes('orphan-result'));
    try {
      await waitFor(() => printed().length === 1, 10_000, 'the orphan result');
      rmSync(file);
      // Long enough for the deletion to be seen as one (chokidar holds it 100 ms).
      await sleep(1000);
      writeFileSync(file, text);
      await waitFor(() => printed().length === 3 || (printed().length === 2 && !printed()[1]!.includes('"gone"')), 10_000, () => `the finding again: ${w.out}`);
    } finally {
      child.kill('SIGINT');
    }
    assert.equal(await exited, 'exit 0', w.err);
    type Row = { id?: string; gone?: true; rule: string; file: string; line: number };
    const rows = jsonlRecords<Row>(w.out);
    assert.deepEqual(rows.map((r) => (r.gone ? 'gone' : 'finding')), ['finding', 'gone', 'finding'], w.out);
    const id = rows[0]!.id;
    assert.equal(typeof id, 'string');
    assert.deepEqual(rows.map((r) => r.id), [id, id, id]);
    assert.deepEqual(
      rows.map((r) => `${r.rule}:${path.basename(r.file)}:${r.line}`),
      ['orphan-result:sess.jsonl:2', 'orphan-result:sess.jsonl:2', 'orphan-result:sess.jsonl:2'],
    );
    // A consumer keeping the current set by id ends with the one finding the file has.
    const current = new Map<string, Row>();
    for (const r of rows) {
      if (r.gone) {
        assert.ok(current.delete(r.id!), 'a gone record names a finding printed before');
      } else {
        current.set(r.id!, r);
      }
    }
    const checked = JSON.parse(cli(['check', '--format', 'json', file]).stdout) as { findings: Row[] };
    assert.deepEqual(
      [...current.values()].map((r) => `${r.rule}:${r.line}`),
      checked.findings.map((r) => `${r.rule}:${r.line}`),
    );
  });
});

void describe('agent-guard watch, text', () => {
  void test('a finding a later line of the same history revises is printed once, as it ends up', async () => {
    const ws = path.join(tmp, 'ws-revised');
    mkdirSync(ws, { recursive: true });
    const claude = path.join(tmp, 'claude-revised');
    const proj = path.join(claude, 'projects', encodeClaudeProject(ws));
    mkdirSync(proj, { recursive: true });
    // The shape of a real 2.1.222 session (fifty-third set): a call cut off when the machine
    // crashed, the resumed session's "Continue from where you left off." and its own "No response
    // requested.", a prompt, then the model's answer. Judged line by line: an error at the unsent
    // turn (the next request would be refused), a warning at the answer (it went through without
    // the result).
    const t = new ClaudeTranscript('old', ws).user('go').call('m1', 'toolu_A', 'Bash', { command: 'ls' }).user('Continue from where you left off.').say('m2', 'No response requested.');
    const unsent = JSON.parse(t.lines[t.lines.length - 1]!) as { message: Record<string, unknown> };
    unsent.message['model'] = '<synthetic>';
    t.lines[t.lines.length - 1] = JSON.stringify(unsent);
    writeFileSync(path.join(proj, 'old.jsonl'), t.user('$ mount').say('m3', 'The mount is back.').text());
    const w = startWatch(['watch', '--no-guard', '--format', 'jsonl'], ws, { ...process.env, HOME: tmp, CLAUDE_CONFIG_DIR: claude, CODEX_HOME: path.join(tmp, 'codex-revised'), NO_COLOR: '1' });
    const { child, exited } = w;
    try {
      await waitFor(() => w.err.includes('Press Ctrl-C'), 10_000, 'the start banner');
      await waitFor(() => w.out.includes('missing-result'), 5000, 'the finding');
      await sleep(300);
    } finally {
      child.kill('SIGINT');
    }
    assert.equal(await exited, 'exit 0', w.err);
    const rows = jsonlRecords<{ rule: string; severity?: string; line: number; gone?: boolean }>(w.out);
    assert.deepEqual(
      rows.map((r) => `${r.gone ? 'gone ' : ''}${r.rule}:${r.severity ?? ''}:${r.line}`),
      ['missing-result:warning:2'],
      'not an error, gone, then a warning',
    );
  });

  void test('a finding printed that is no longer reported is said to be gone, once', async () => {
    const ws = path.join(tmp, 'ws-gone');
    mkdirSync(ws, { recursive: true });
    const claude = path.join(tmp, 'claude-gone');
    const proj = path.join(claude, 'projects', encodeClaudeProject(ws));
    mkdirSync(proj, { recursive: true });
    const file = path.join(proj, 'sess.jsonl');
    writeFileSync(file, new ClaudeTranscript('sess', ws).user('go').result('toolu_X', 'stray').text());
    const w = startWatch(['watch', '--no-guard'], ws, { ...process.env, HOME: tmp, CLAUDE_CONFIG_DIR: claude, CODEX_HOME: path.join(tmp, 'codex-gone'), NO_COLOR: '1' });
    const { child, exited } = w;
    try {
      await waitFor(() => w.out.includes('orphan-result'), 10_000, 'the orphan result');
      // The transcript is cut back to its prompt (as by a repair): read again from its start.
      writeFileSync(file, new ClaudeTranscript('sess', ws).user('go').text());
      await waitFor(() => w.out.includes('no longer reported'), 10_000, 'the finding gone');
    } finally {
      child.kill('SIGINT');
    }
    assert.equal(await exited, 'exit 0', w.err);
    const lines = w.out.split('\n').filter(Boolean);
    assert.equal(lines.length, 2, w.out);
    assert.match(lines[0]!, /sess\.jsonl:2:\d+ +error .* orphan-result$/);
    assert.match(lines[1]!, /sess\.jsonl:2:\d+ {2}no longer reported {2}orphan-result$/);
  });
});

void describe('agent-guard watch --rule', () => {
  void test('a rule turned off is off in watch too; the stop signals are handled from before the banner', async () => {
    const ws = path.join(tmp, 'ws2');
    mkdirSync(ws, { recursive: true });
    const claude = path.join(tmp, 'claude2');
    const proj = path.join(claude, 'projects', encodeClaudeProject(ws));
    mkdirSync(proj, { recursive: true });
    writeFileSync(path.join(proj, 's.jsonl'), new ClaudeTranscript('s', ws).user('go').result('toolu_X', 'stray').call('m1', 'toolu_A', 'Bash', { command: 'ls' }).say('m2', 'no result').text());
    // Records, as the banner is written, whether the signal handlers are already there: a parent
    // may signal the moment it reads "Press Ctrl-C", and without a listener the kernel kills.
    const preload = path.join(tmp, 'banner-probe.js');
    writeFileSync(
      preload,
      `const write = process.stderr.write.bind(process.stderr);
process.stderr.write = (chunk, ...rest) => {
  if (String(chunk).includes('Press Ctrl-C')) write('[at the banner: SIGINT ' + process.listenerCount('SIGINT') + ', SIGTERM ' + process.listenerCount('SIGTERM') + ']\\n');
  return write(chunk, ...rest);
};\n`,
    );
    const w = startWatch(['watch', '--format', 'jsonl', '--rule', 'orphan-result=off', '--no-tree'], ws, { ...process.env, HOME: tmp, CLAUDE_CONFIG_DIR: claude, CODEX_HOME: path.join(tmp, 'codex'), NO_COLOR: '1' }, [
      '--require',
      preload,
    ]);
    const { child, exited } = w;
    try {
      await waitFor(() => w.err.includes('Press Ctrl-C'), 10_000, 'the start banner');
      await waitFor(() => w.out.includes('missing-result'), 5000, 'the missing-result finding');
      assert.match(w.err, /\[at the banner: SIGINT [1-9]\d*, SIGTERM [1-9]\d*\]/, 'the signal handlers are installed before the banner');
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 'exit 0', w.err);
    assert.match(w.err, /SIGTERM, stopping/);
    assert.ok(!w.out.includes('orphan-result'), w.out);
  });
});
