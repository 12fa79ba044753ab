/** Where each agent keeps its sessions: one answer, whoever asks (check's search, the watcher, `check`'s "looked in"). */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  allRoots,
  amplifierSessionsDir,
  amplifierSlug,
  claudeProjectsDirs,
  codexSessionsDir,
  geminiTmpDir,
  type Environment,
} from '../../../src/core/discovery/locations';
import { SessionWatcher } from '../../../src/io/sessionWatcher';

const home = path.resolve('/home/u');
const ws = path.resolve('/work/project');

void test('the session folders follow the agents\' environment variables', () => {
  const e: Environment = { home, env: { CLAUDE_CONFIG_DIR: '/c1, /c2', CODEX_HOME: '/cx', GEMINI_CLI_HOME: '/g', AMPLIFIER_HOME: '/a' } };
  assert.deepEqual(claudeProjectsDirs(e), [path.join('/c1', 'projects'), path.join('/c2', 'projects')]);
  assert.equal(codexSessionsDir(e), path.join('/cx', 'sessions'));
  assert.equal(geminiTmpDir(e), path.join('/g', '.gemini', 'tmp'));
  assert.equal(amplifierSessionsDir(e, ws), path.join('/a', 'projects', amplifierSlug(ws), 'sessions'));
  const plain: Environment = { home, env: {} };
  assert.deepEqual(claudeProjectsDirs(plain), [path.join(home, '.claude', 'projects'), path.join(home, '.config', 'claude', 'projects')]);
  assert.equal(codexSessionsDir(plain), path.join(home, '.codex', 'sessions'));
  assert.equal(geminiTmpDir(plain), path.join(home, '.gemini', 'tmp'));
  assert.equal(amplifierSessionsDir(plain, ws), path.join(home, '.amplifier', 'projects', amplifierSlug(ws), 'sessions'));
});

void test('the watcher watches the folders allRoots names (Amplifier: the workspace\'s project below them)', () => {
  const e: Environment = { home, env: { CLAUDE_CONFIG_DIR: '/c1,/c2', CODEX_HOME: '/cx' } };
  const watched = new SessionWatcher({ workspace: ws, environment: e }).watchedRoots;
  for (const r of allRoots(e)) {
    const mine = watched.filter((w) => w.agent === r.agent).map((w) => w.path);
    if (r.agent === 'amplifier') {
      assert.ok(mine.length > 0 && mine.every((p) => path.dirname(path.dirname(p)) === r.roots[0]), `${r.agent}: ${mine.join(', ')}`);
    } else {
      assert.deepEqual(mine, r.roots, r.agent);
    }
  }
});
