/**
 * agentGuard.sessionFolders: VS Code substitutes no variables in an extension's settings and
 * the extension host's working directory is not the workspace, so the extension resolves
 * `~`, `${userHome}`, `${workspaceFolder}` and relative paths itself.
 */
import assert from 'node:assert/strict';
import * as nodePath from 'node:path';
import { test } from 'node:test';
import { resolveSessionFolder } from '../../../src/core/discovery/locations';

const where = { home: nodePath.resolve('/home/ann'), workspace: nodePath.resolve('/work/app') };

void test('a relative folder is taken from the workspace folder, not the extension host\'s cwd', () => {
  assert.equal(resolveSessionFolder('transcripts', where), nodePath.join(where.workspace, 'transcripts'));
  assert.equal(resolveSessionFolder('./a/../b', where), nodePath.join(where.workspace, 'b'));
  assert.equal(resolveSessionFolder('${workspaceFolder}/t', where), nodePath.join(where.workspace, 't'));
});

void test('~ and ${userHome} are the home folder', () => {
  assert.equal(resolveSessionFolder('~', where), where.home);
  assert.equal(resolveSessionFolder('~/backup/claude', where), nodePath.join(where.home, 'backup', 'claude'));
  assert.equal(resolveSessionFolder('${userHome}/x', where), nodePath.join(where.home, 'x'));
});

void test('an absolute folder is kept (normalized); a name starting with ~ is not a home folder', () => {
  assert.equal(resolveSessionFolder(' /srv/sessions/ ', where), nodePath.resolve('/srv/sessions'));
  assert.equal(resolveSessionFolder('~other', where), nodePath.join(where.workspace, '~other'));
});
