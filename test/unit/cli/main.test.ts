import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { cli } from '../support/cli';
import { repoRoot } from '../support/repo';

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
});
