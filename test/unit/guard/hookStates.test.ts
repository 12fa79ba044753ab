/** The hooks installed in a folder as both status commands read them (src/io/hookStates). */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, test } from 'node:test';
import { hookCommand, hookSpecs, planInstall } from '../../../src/core/hooks/install';
import { hookSettingsPath, readHookSettings, readHookStates } from '../../../src/io/hookStates';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ag-hookstates-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

void test('readHookStates: each agent asked for, its file, its text and its state; a file that cannot be read is unreadable, not thrown', async () => {
  const script = path.join(tmp, 'hook.js');
  writeFileSync(script, '');
  const ws = path.join(tmp, 'ws');
  const claude = hookSettingsPath(ws, hookSpecs.claude);
  assert.equal(claude, path.join(ws, '.claude', 'settings.local.json'));
  mkdirSync(path.dirname(claude), { recursive: true });
  const installed = planInstall(undefined, hookSpecs.claude, hookCommand(script, 'claude')).after!;
  writeFileSync(claude, installed);
  // A folder where Gemini CLI's settings file should be.
  mkdirSync(hookSettingsPath(ws, hookSpecs.gemini), { recursive: true });

  const states = await readHookStates(ws, script);
  assert.deepEqual(
    states.map((s) => [s.agent, s.file, s.state.kind]),
    [
      ['claude', claude, 'current'],
      ['gemini', hookSettingsPath(ws, hookSpecs.gemini), 'unreadable'],
      ['codex', hookSettingsPath(ws, hookSpecs.codex), 'not-installed'],
    ],
  );
  assert.equal(states[0]!.text, installed);
  assert.equal(states[1]!.text, undefined);
  assert.deepEqual((await readHookStates(ws, script, ['codex'])).map((s) => s.agent), ['codex']);

  const settings = await readHookSettings(ws);
  assert.equal('error' in settings[1]!, true, 'the folder is an error to say, not no settings');
  assert.equal('text' in settings[2]! && settings[2].text, undefined);
});
