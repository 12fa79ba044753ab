import { promises as fsp } from 'node:fs';
import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import type { Logger } from '../../core/lib/logger';
import { findOurHooks, hookCommand, hookSpecs, installAgents, planInstall, planUninstall, type InstallAgent } from '../../core/hooks/install';
import { unifiedDiff } from '../../core/hooks/preview';

/** The scheme of the read-only preview of a hooks change (a unified diff). */
export const hooksPreviewScheme = 'agent-guard-hooks';

interface FileChange {
  agent: InstallAgent;
  file: string;
  rel: string;
  before: string | undefined;
  after: string | undefined;
}

/** Serves the preview documents: shown before anything is written, never saved. */
export class HooksPreview implements vscode.TextDocumentContentProvider {
  private readonly texts = new Map<string, string>();
  set(key: string, text: string): vscode.Uri {
    this.texts.set(key, text);
    return vscode.Uri.from({ scheme: hooksPreviewScheme, path: `/${key}.diff` });
  }
  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.path.slice(1).replace(/\.diff$/, '')) ?? '';
  }
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await fsp.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}

async function plan(workspace: string, action: 'install' | 'uninstall', hookScript: string, failClosed: boolean): Promise<{ changes: FileChange[]; problems: string[] }> {
  const changes: FileChange[] = [];
  const problems: string[] = [];
  for (const agent of installAgents) {
    const spec = hookSpecs[agent];
    const file = nodePath.join(workspace, ...spec.file.split('/'));
    const before = await readIfExists(file);
    try {
      const p = action === 'install' ? planInstall(before, spec, hookCommand(hookScript, agent, { failClosed })) : planUninstall(before);
      if (p.changed) {
        changes.push({ agent, file, rel: spec.file, before, after: p.after });
      }
    } catch (e) {
      problems.push(`${spec.file}: ${e instanceof Error ? e.message : String(e)} (left as it is)`);
    }
  }
  return { changes, problems };
}

async function pickFolder(): Promise<vscode.WorkspaceFolder | undefined> {
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length <= 1) {
    return folders[0];
  }
  return vscode.window.showWorkspaceFolderPick({ placeHolder: 'Which workspace folder?' });
}

/**
 * Install or remove the guard hooks: the change is shown as a diff first and written only
 * after the user confirms. Other entries, comments and formatting are kept byte for byte.
 */
export async function changeHooks(
  action: 'install' | 'uninstall',
  preview: HooksPreview,
  hookScript: string,
  failClosed: boolean,
  log: Logger,
  opts: { confirm?: boolean; folder?: vscode.WorkspaceFolder } = {},
): Promise<'written' | 'nothing' | 'cancelled'> {
  const folder = opts.folder ?? (await pickFolder());
  if (!folder) {
    return 'nothing';
  }
  const { changes, problems } = await plan(folder.uri.fsPath, action, hookScript, failClosed);
  for (const p of problems) {
    void vscode.window.showWarningMessage(`Agent Session Guard: ${p}`);
  }
  if (changes.length === 0) {
    void vscode.window.showInformationMessage(action === 'install' ? 'The guard hooks are already installed in this workspace.' : 'No guard hooks to remove in this workspace.');
    return 'nothing';
  }
  const diff = changes.map((c) => unifiedDiff(c.rel, c.before, c.after)).join('\n');
  const doc = await vscode.workspace.openTextDocument(preview.set(`${action}-${Date.now()}`, diff));
  await vscode.window.showTextDocument(await vscode.languages.setTextDocumentLanguage(doc, 'diff'), { preview: true });
  if (opts.confirm !== false) {
    const files = changes.map((c) => c.rel).join(', ');
    const answer = await vscode.window.showWarningMessage(
      action === 'install' ? 'Install the guard hooks?' : 'Remove the guard hooks?',
      {
        modal: true,
        detail:
          action === 'install'
            ? `This adds the guard's hook to ${files} (see the preview). Your other settings, comments and formatting are kept. The agents then ask the guard before each write and are told to re-read a file that changed behind them.`
            : `This removes only the guard's own entries from ${files} (see the preview).`,
      },
      action === 'install' ? 'Install' : 'Remove',
    );
    if (answer === undefined) {
      return 'cancelled';
    }
  }
  for (const c of changes) {
    if (c.after === undefined) {
      await fsp.rm(c.file, { force: true });
    } else {
      await fsp.mkdir(nodePath.dirname(c.file), { recursive: true });
      await fsp.writeFile(c.file, c.after);
    }
    log.info(`[hooks] ${action === 'install' ? 'installed the guard hook in' : 'removed the guard hook from'} ${c.file}`);
  }
  const notes = action === 'install' ? changes.map((c) => hookSpecs[c.agent].note) : [];
  void vscode.window.showInformationMessage(`${action === 'install' ? 'Installed' : 'Removed'} the guard hooks (${changes.map((c) => c.rel).join(', ')}). ${notes.join(' ')}`);
  return 'written';
}

/** Where the hooks are installed in a folder (for the status command and the first-run offer). */
export async function hooksStatus(workspace: string): Promise<{ agent: InstallAgent; file: string; installed: boolean }[]> {
  const out: { agent: InstallAgent; file: string; installed: boolean }[] = [];
  for (const agent of installAgents) {
    const spec = hookSpecs[agent];
    const text = await readIfExists(nodePath.join(workspace, ...spec.file.split('/')));
    let installed: boolean;
    try {
      installed = findOurHooks(text).length > 0;
    } catch {
      // A settings file we cannot parse holds no hook of ours that could run.
      installed = false;
    }
    out.push({ agent, file: spec.file, installed });
  }
  return out;
}

const offeredKey = 'agentGuard.hooksOffered';

/**
 * On first run in a workspace, offer to install the hooks — never silently, and once: the
 * answer is remembered per workspace.
 */
export async function offerHooks(state: vscode.Memento, install: () => Promise<unknown>): Promise<void> {
  if (state.get<boolean>(offeredKey) === true) {
    return;
  }
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder || (await hooksStatus(folder.uri.fsPath)).some((s) => s.installed)) {
    return;
  }
  const choice = await vscode.window.showInformationMessage(
    'Agent Session Guard can block stale writes before they land: install its hook for Claude Code, Gemini CLI and Codex in this workspace?',
    'Preview and Install…',
    'Not Now',
    "Don't Ask Again",
  );
  if (choice === 'Preview and Install…') {
    await state.update(offeredKey, true);
    await install();
  } else if (choice === "Don't Ask Again") {
    await state.update(offeredKey, true);
  }
}
