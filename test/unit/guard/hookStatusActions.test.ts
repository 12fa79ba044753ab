/**
 * Show Guard Hooks Status offers only what would change something: no Remove… with nothing
 * installed, no Install… with everything installed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hookStatusActions, installedFailClosed, type HookState } from '../../../src/core/hooks/state';
import { hookCommand } from '../../../src/core/hooks/install';

const none: HookState = { kind: 'not-installed' };
const current: HookState = { kind: 'current' };
const missing: HookState = { kind: 'missing-script', script: '/gone/hook.js' };
const other: HookState = { kind: 'other', command: 'node "/elsewhere/hook.js" --agent-guard --agent claude' };
const unreadable: HookState = { kind: 'unreadable', error: 'EISDIR' };

void test('nothing installed: only Install…', () => {
  assert.deepEqual(hookStatusActions([none, none, none]), ['Install…']);
});

void test('everything installed: only Remove…', () => {
  assert.deepEqual(hookStatusActions([current, current, other]), ['Remove…']);
});

void test('some agents installed: both', () => {
  assert.deepEqual(hookStatusActions([current, none, none]), ['Install…', 'Remove…']);
});

void test('a broken hook: Repair… (which installs the rest too) and Remove…', () => {
  assert.deepEqual(hookStatusActions([missing, none, none]), ['Repair…', 'Remove…']);
});

void test('a file that cannot be read offers nothing for itself', () => {
  assert.deepEqual(hookStatusActions([unreadable, current, current]), ['Remove…']);
  assert.deepEqual(hookStatusActions([unreadable]), []);
});

void test('no folder: nothing to offer', () => {
  assert.deepEqual(hookStatusActions([]), []);
});

void test('installedFailClosed: whether our hook entries deny when no service answers', () => {
  const file = (command: string): string => JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command }] }] } });
  assert.equal(installedFailClosed(file(hookCommand('/x/hook.js', 'claude'))), false);
  assert.equal(installedFailClosed(file(hookCommand('/x/hook.js', 'claude', { failClosed: true }))), true);
  assert.equal(installedFailClosed(file('node other.js --fail-closed')), undefined, 'not ours');
  assert.equal(installedFailClosed(undefined), undefined);
  assert.equal(installedFailClosed('{ not json'), undefined);
});
