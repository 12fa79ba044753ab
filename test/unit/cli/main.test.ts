import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { cli } from '../support/cli';
import { fixture, repoRoot } from '../support/repo';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ag-main-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const { version } = JSON.parse(readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as { version: string };

void describe('agent-guard, the command itself', () => {
  void test('help, -h and --help: the usage on stdout, exit 0', () => {
    for (const arg of ['help', '-h', '--help']) {
      const r = cli([arg]);
      assert.deepEqual([r.code, r.stderr], [0, ''], arg);
      assert.match(r.stdout, /^agent-guard .* keeps coding agents honest\n\nUsage: agent-guard <command>/, arg);
    }
  });

  void test('--version and -v: the version alone, exit 0', () => {
    for (const arg of ['--version', '-v']) {
      assert.deepEqual(cli([arg]), { code: 0, stdout: version + '\n', stderr: '' }, arg);
    }
  });

  void test('each command’s --help and -h: its usage on stdout, exit 0', () => {
    for (const command of ['check', 'watch', 'repair', 'hooks', 'hook']) {
      for (const arg of ['--help', '-h']) {
        const r = cli([command, arg]);
        assert.deepEqual([r.code, r.stderr], [0, ''], `${command} ${arg}`);
        assert.match(r.stdout, new RegExp(`^Usage: agent-guard ${command} `), `${command} ${arg}`);
      }
    }
  });

  void test('no command: a usage error, said on stderr (exit 2), nothing on stdout', () => {
    const r = cli([]);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '', 'a usage error is not output: `agent-guard > out` must not fill out with the usage');
    assert.match(r.stderr, /^agent-guard: no command given\n/);
    assert.match(r.stderr, /\nUsage: agent-guard <command>/);
  });

  void test('an unknown command: exit 2, one line naming it, no stack', () => {
    const r = cli(['frobnicate']);
    assert.deepEqual([r.code, r.stdout], [2, '']);
    assert.equal(r.stderr, "agent-guard: unknown command 'frobnicate'\nRun 'agent-guard help' for usage.\n");
  });

  void test('run from a folder that was removed under it: no crash; absolute paths still checked, or one line and exit 2', () => {
    const codexBroken = fixture('real', 'codex', 'kvsankar-agent-history', 'rejections-codex_with_escalation.jsonl');
    const script = path.join(repoRoot(), 'dist', 'cli.js');
    // The shell enters the folder, removes it, then runs the CLI there (spawn cannot start in a missing folder).
    // Without PWD: the shell exports its own after `cd`, so `env -u` takes it away again.
    const inRemoved = (args: string[], opts: { pwd: boolean }): { code: number | null; stdout: string; stderr: string } => {
      const dir = path.join(tmp, `removed-${Math.random().toString(36).slice(2)}`);
      mkdirSync(dir);
      const run = opts.pwd ? [process.execPath, script, ...args] : ['env', '-u', 'PWD', process.execPath, script, ...args];
      const r = spawnSync('sh', ['-c', 'cd "$0" && rmdir "$0" && exec "$@"', dir, ...run], { env: { ...process.env, NO_COLOR: '1' }, encoding: 'utf8' });
      return { code: r.status, stdout: r.stdout, stderr: r.stderr };
    };
    const found = inRemoved(['check', codexBroken], { pwd: true });
    assert.equal(found.code, 1, found.stderr);
    assert.match(found.stdout, /2 problems \(2 errors, 0 warnings, 0 info\) — 1 transcript checked/);
    const relative = inRemoved(['check', 'session.jsonl'], { pwd: true });
    assert.equal(relative.code, 2, relative.stderr);
    assert.match(relative.stderr, /^agent-guard: cannot read .*session\.jsonl: no such file or directory\n$/);
    const nowhere = inRemoved(['check', codexBroken], { pwd: false });
    assert.equal(nowhere.code, 2);
    assert.equal(nowhere.stdout, '');
    assert.match(nowhere.stderr, /^agent-guard: the current folder no longer exists[^\n]*\n$/);
  });
});
