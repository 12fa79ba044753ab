/// <reference types="mocha" />
// agentGuard.sessionFolders with a relative path: it names a folder of the workspace, not
// one under the extension host's working directory (which is not the workspace).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentGuardApi } from '../../src/vscode/agentGuard';
import { ClaudeTranscript } from '../unit/support/claude';
import { workspaceDir } from './support/transcripts';
import { waitFor } from './support/ui';

suite('session folders', () => {
  test('a relative session folder is found in the workspace folder', async () => {
    const api = await vscode.extensions.getExtension<AgentGuardApi>('agent-session-guard.agent-session-guard')!.activate();
    const dir = path.join(workspaceDir(), 'copied-sessions');
    const id = 'c0ffee00-0000-4000-8000-0000000000f0';
    const file = path.join(dir, `${id}.jsonl`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(file, new ClaudeTranscript(id, workspaceDir()).user('a copied session').raw('{broken').lines.join('\n') + '\n');
    const config = vscode.workspace.getConfiguration('agentGuard');
    await config.update('sessionFolders', ['copied-sessions'], vscode.ConfigurationTarget.Global);
    try {
      await api.ready();
      await waitFor(() => api.findings().some((f) => f.file === file), 15_000, `a finding on ${file}`);
      assert.ok(api.findings().some((f) => f.file === file && f.rule === 'unparseable-line'));
    } finally {
      await config.update('sessionFolders', undefined, vscode.ConfigurationTarget.Global);
      fs.rmSync(dir, { recursive: true, force: true });
      await api.ready();
    }
  });
});
