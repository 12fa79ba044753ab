import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { encodeClaudeProject } from '../../../src/core/discovery/locations';

/** The workspace folder of the run, as the extension sees it. */
export function workspaceDir(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    throw new Error('no workspace folder');
  }
  return folder.uri.fsPath;
}

/** Claude Code's project folder for the workspace, under the run's CLAUDE_CONFIG_DIR. */
export function claudeProjectDir(): string {
  const base = process.env['CLAUDE_CONFIG_DIR'];
  if (!base) {
    throw new Error('CLAUDE_CONFIG_DIR is not set: run through test/e2e/runTests.mjs');
  }
  return path.join(base, 'projects', encodeClaudeProject(workspaceDir()));
}

/** Appends lines one at a time, as an agent writes them, with a pause between lines. */
export async function appendLines(file: string, lines: readonly string[], pauseMs = 30): Promise<void> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  for (const line of lines) {
    fs.appendFileSync(file, line + '\n');
    await new Promise((r) => setTimeout(r, pauseMs));
  }
}
