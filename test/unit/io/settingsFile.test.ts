/**
 * Writing a planned change of an agent's settings file: only over the text it was planned
 * from (the extension's preview may wait minutes for its answer), and into a symbolic link's
 * target rather than over the link.
 */
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { hookCommand, hookSpecs, planInstall, planUninstall } from '../../../src/core/hooks/install';
import { plannedText, writeSettings } from '../../../src/io/settingsFile';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ag-settings-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const command = hookCommand('/opt/ags/dist/hook.js', 'claude');

void describe('writeSettings', () => {
  void test('a file changed after the plan was made is left as it is', async () => {
    const file = path.join(tmp, 'changed', '.claude', 'settings.local.json');
    mkdirSync(path.dirname(file), { recursive: true });
    const before = '{\n  "permissions": { "allow": [] }\n}\n';
    writeFileSync(file, before);
    const plan = planInstall(before, hookSpecs.claude, command);
    // Meanwhile Claude Code saves a permission the user granted ("don't ask again").
    const meanwhile = '{\n  "permissions": { "allow": ["Bash(npm test)"] }\n}\n';
    writeFileSync(file, meanwhile);
    assert.equal(await writeSettings(file, before, await plannedText(file, plan)), 'changed-meanwhile');
    assert.equal(readFileSync(file, 'utf8'), meanwhile);
    // Created meanwhile, where there was none.
    const fresh = path.join(tmp, 'changed', '.gemini', 'settings.json');
    mkdirSync(path.dirname(fresh), { recursive: true });
    writeFileSync(fresh, '{ "model": "x" }');
    assert.equal(await writeSettings(fresh, undefined, '{}\n'), 'changed-meanwhile');
    assert.equal(readFileSync(fresh, 'utf8'), '{ "model": "x" }');
  });

  void test('written over the text it was planned from; removed with the folder it leaves empty', async () => {
    const file = path.join(tmp, 'plain', '.codex', 'hooks.json');
    assert.equal(await writeSettings(file, undefined, '{}\n'), 'written');
    assert.equal(readFileSync(file, 'utf8'), '{}\n');
    assert.equal(await writeSettings(file, '{}\n', undefined), 'removed');
    assert.equal(existsSync(path.dirname(file)), false);
  });

  void test('a symbolic link that is to go keeps its link, and its target what is left', async (t) => {
    const target = path.join(tmp, 'dotfiles', 'claude.json');
    const link = path.join(tmp, 'linked', '.claude', 'settings.local.json');
    mkdirSync(path.dirname(target), { recursive: true });
    mkdirSync(path.dirname(link), { recursive: true });
    const installed = planInstall('{}\n', hookSpecs.claude, command).after!;
    writeFileSync(target, installed);
    try {
      symlinkSync(target, link);
    } catch {
      t.skip('no symbolic links here');
      return;
    }
    const plan = planUninstall(installed);
    assert.equal(plan.after, undefined);
    const text = await plannedText(link, plan);
    assert.equal(text, '{}\n');
    assert.equal(await writeSettings(link, installed, text), 'written');
    assert.ok(lstatSync(link).isSymbolicLink());
    assert.equal(readFileSync(target, 'utf8'), '{}\n');
    // A plain file that is to go does go.
    assert.equal(await plannedText(target, plan), undefined);
  });
});
