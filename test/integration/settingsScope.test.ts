/// <reference types="mocha" />
// Every setting is read in the scope package.json declares for it: a window-scoped one read
// for a folder (or a folder-scoped one read without) makes VS Code log a warning in the
// extension host's log, on every start. Checked in that log, where the code-server driver
// keeps it (test/e2e/driver.mjs: <run dir>/user-data/logs); skipped elsewhere.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';

/** The extension hosts' own logs of this run (remoteexthost.log under code-server). */
function extensionHostLogs(): string[] {
  const signals = process.env.AGS_UI_SIGNAL_DIR;
  const logs = signals && path.join(path.dirname(signals), 'user-data', 'logs');
  if (!logs || !fs.existsSync(logs)) {
    return [];
  }
  return fs.readdirSync(logs).flatMap((session) => {
    const dir = path.join(logs, session);
    return fs.statSync(dir).isDirectory()
      ? fs.readdirSync(dir).filter((d) => /^exthost\d*$/.test(d)).flatMap((d) => fs.readdirSync(path.join(dir, d)).filter((f) => /exthost\.log$/i.test(f)).map((f) => path.join(dir, d, f)))
      : [];
  });
}

suite('settings scope', () => {
  test('reading the settings logs no scope warning in the extension host', async function () {
    const api = await vscode.extensions.getExtension<AgentGuardApi>('agent-session-guard.agent-session-guard')!.activate();
    await api.ready();
    const files = extensionHostLogs();
    if (files.length === 0) {
      this.skip();
    }
    const lines = files.flatMap((f) => fs.readFileSync(f, 'utf8').split('\n'));
    // The log reaches as far as the activation (and the first reading of the settings).
    assert.ok(lines.some((line) => /_doActivateExtension agent-session-guard\.agent-session-guard\b/.test(line)), `no activation in ${files.join(', ')}`);
    const warnings = lines.filter((line) => /scoped configuration/.test(line) && /'agentGuard\./.test(line));
    assert.deepEqual(warnings, []);
  });
});
