import * as vscode from 'vscode';
import type { Logger } from '../../core/lib/logger';
import { AgentGuardError, errorMessage } from '../../core/lib/errors';
import { hookCommand, hookSpecs, installAgents, planInstall, planUninstall, type InstallAgent } from '../../core/hooks/install';
import { unifiedDiff } from '../../core/hooks/preview';
import { answeredFolders, foldersToOffer, offerMessage, type OfferCandidate } from '../../core/hooks/offer';
import { installedFailClosed, needsRepair, type HookState } from '../../core/hooks/state';
import { hookSettingsPath, readHookSettings, readHookStates } from '../../io/hookStates';
import { plannedText, readSettings, writeSettings } from '../../io/settingsFile';
import { productName } from '../ids';
import { notify } from '../notify';

/** The scheme of the read-only preview of a hooks change (a unified diff). */
export const hooksPreviewScheme = 'agent-guard-hooks';

interface FileChange {
  agent: InstallAgent;
  file: string;
  rel: string;
  before: string | undefined;
  after: string | undefined;
}

/**
 * Serves the preview documents: shown before anything is written, never saved. A preview's text
 * is kept while its document is open, and dropped when VS Code closes it: each install or
 * removal makes a new one, and they had all stayed for as long as the window.
 */
export class HooksPreview implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly closing: vscode.Disposable;

  /** `onDidClose`: the documents VS Code closes (the tests give their own). */
  constructor(onDidClose: vscode.Event<vscode.TextDocument> = vscode.workspace.onDidCloseTextDocument) {
    this.closing = onDidClose((d) => {
      // A document whose language is set is closed and opened again at once, and stays open
      // (changeHooks sets the preview's to diff): its text is still the one shown.
      const uri = d.uri.toString();
      if (d.uri.scheme === hooksPreviewScheme && !vscode.workspace.textDocuments.some((o) => o.uri.toString() === uri)) {
        this.texts.delete(keyOf(d.uri));
      }
    });
  }

  set(key: string, text: string): vscode.Uri {
    this.texts.set(key, text);
    return vscode.Uri.from({ scheme: hooksPreviewScheme, path: `/${key}.diff` });
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(keyOf(uri)) ?? '';
  }

  dispose(): void {
    this.closing.dispose();
    this.texts.clear();
  }
}

function keyOf(uri: vscode.Uri): string {
  return uri.path.slice(1).replace(/\.diff$/, '');
}

async function plan(workspace: string, action: 'install' | 'uninstall', hookScript: string, failClosed: boolean): Promise<{ changes: FileChange[]; problems: string[] }> {
  const changes: FileChange[] = [];
  const problems: string[] = [];
  for (const agent of installAgents) {
    const spec = hookSpecs[agent];
    const file = hookSettingsPath(workspace, spec);
    try {
      // Inside: a settings file that is there but cannot be read is a problem listed, not no settings.
      const before = await readSettings(file);
      const p = action === 'install' ? planInstall(before, spec, hookCommand(hookScript, agent, { failClosed })) : planUninstall(before);
      if (p.changed) {
        changes.push({ agent, file, rel: spec.file, before, after: await plannedText(file, p) });
      }
    } catch (e) {
      const message = errorMessage(e);
      problems.push(`${spec.file}: ${AgentGuardError.is(e, 'io') ? `cannot read it: ${message}` : message} (left as it is)`);
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
 * The hooks live in a folder's own agent settings: in a window without one there is nothing to
 * change, and the user is told so (the walkthrough's button runs the command whatever the window).
 */
export function tellOpenFolderFirst(action: 'install' | 'uninstall' | 'status'): void {
  const what = action === 'install' ? 'install' : action === 'uninstall' ? 'remove' : 'see';
  void notify.info(`No folder is open: the guard hooks live in a workspace folder's agent settings. Open a folder first to ${what} the guard hooks.`, 'Open Folder…').then((choice) => {
    if (choice === 'Open Folder…') {
      void vscode.commands.executeCommand('workbench.action.files.openFolder');
    }
  });
}

/**
 * Install or remove the guard hooks: the change is shown as a diff first and written only
 * after the user confirms. Other entries, comments and formatting are kept byte for byte.
 */
export async function changeHooks(
  action: 'install' | 'uninstall',
  preview: HooksPreview,
  hookScript: string,
  failClosed: (folder: vscode.WorkspaceFolder) => boolean,
  log: Logger,
  opts: { confirm?: boolean; folder?: vscode.WorkspaceFolder } = {},
): Promise<'written' | 'nothing' | 'cancelled' | 'no-folder'> {
  if (!opts.folder && (vscode.workspace.workspaceFolders ?? []).length === 0) {
    tellOpenFolderFirst(action);
    return 'no-folder';
  }
  const folder = opts.folder ?? (await pickFolder());
  if (!folder) {
    return 'cancelled';
  }
  const { changes, problems } = await plan(folder.uri.fsPath, action, hookScript, failClosed(folder));
  for (const p of problems) {
    void notify.warn(`${productName}: ${p}`);
  }
  if (changes.length === 0) {
    void notify.info(action === 'install' ? 'The guard hooks are already installed in this workspace.' : 'No guard hooks to remove in this workspace.');
    return 'nothing';
  }
  const diff = changes.map((c) => unifiedDiff(c.rel, c.before, c.after)).join('\n');
  const doc = await vscode.workspace.openTextDocument(preview.set(`${action}-${Date.now()}`, diff));
  await vscode.window.showTextDocument(await vscode.languages.setTextDocumentLanguage(doc, 'diff'), { preview: true });
  if (opts.confirm !== false) {
    const files = changes.map((c) => c.rel).join(', ');
    const answer = await notify.warn(
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
  // The preview may have waited a long time for its answer: a file changed meanwhile (by the
  // user, or by Claude Code saving a permission into settings.local.json) is left as it is.
  const written: FileChange[] = [];
  for (const c of changes) {
    let outcome;
    try {
      outcome = await writeSettings(c.file, c.before, c.after);
    } catch (e) {
      void notify.warn(`${productName}: cannot write ${c.rel}: ${errorMessage(e)}; nothing was changed there.`);
      continue;
    }
    if (outcome === 'changed-meanwhile') {
      void notify.warn(`${productName}: ${c.rel} changed after the preview was made; nothing was changed there. Run the command again to see the change against what it holds now.`);
      continue;
    }
    written.push(c);
    log.info(`[hooks] ${action === 'install' ? 'installed the guard hook in' : 'removed the guard hook from'} ${c.file}`);
  }
  if (written.length === 0) {
    return 'nothing';
  }
  const notes = action === 'install' ? written.map((c) => hookSpecs[c.agent].note) : [];
  void notify.info(`${action === 'install' ? 'Installed' : 'Removed'} the guard hooks (${written.map((c) => c.rel).join(', ')}). ${notes.join(' ')}`);
  return 'written';
}

/** What each agent's settings in a folder hold, compared with what `script` would install. */
export async function hooksStatus(workspace: string, script: string): Promise<{ agent: InstallAgent; file: string; state: HookState }[]> {
  return (await readHookStates(workspace, script)).map((h) => ({ agent: h.agent, file: h.spec.file, state: h.state }));
}

/**
 * The settings files of a folder whose installed hooks fail otherwise when no guard service
 * answers than `failClosed` says: the setting is written into the hook command when the hooks
 * are installed, so a change of it applies only once they are installed again.
 */
export async function failModeDiffers(workspace: string, failClosed: boolean): Promise<string[]> {
  const out: string[] = [];
  for (const s of await readHookSettings(workspace)) {
    // Unreadable: the status says so, and installing would not touch it.
    const installed = 'error' in s ? undefined : installedFailClosed(s.text);
    if (installed !== undefined && installed !== failClosed) {
      out.push(s.spec.file);
    }
  }
  return out;
}

/** The folders whose offer was answered: "Not Now" counts, the offer is made once per folder (the commands stay). */
const offeredKey = 'agentGuard.hooksOffered';

/**
 * The first time a workspace folder has agent sessions and no hooks, offer to install them —
 * never silently, and once per folder: the answer is remembered in the workspace's state.
 * Several folders found at once get one offer naming them (the caller makes it once per folder
 * and activation). Closing the notification without
 * an answer asks again in a later window.
 */
export async function offerHooks(
  state: vscode.Memento,
  folders: readonly { folder: vscode.WorkspaceFolder; hasSessions: boolean }[],
  script: string,
  install: (folder: vscode.WorkspaceFolder) => Thenable<unknown>,
): Promise<void> {
  const all = vscode.workspace.workspaceFolders ?? [];
  const answered = answeredFolders(state.get<unknown>(offeredKey), all[0]?.uri.fsPath);
  const candidates: (OfferCandidate & { folder: vscode.WorkspaceFolder })[] = [];
  for (const { folder, hasSessions } of folders) {
    const path = folder.uri.fsPath;
    const hasHooks = hasSessions && !answered.has(path) && (await hooksStatus(path, script)).some((s) => s.state.kind !== 'not-installed');
    candidates.push({ folder, path, name: folder.name, hasSessions, hasHooks });
  }
  const offer = foldersToOffer(candidates, answered);
  if (offer.length === 0) {
    return;
  }
  const choice = await notify.info(offerMessage(offer, all.length === 1), 'Preview and Install…', 'Not Now');
  if (choice !== undefined) {
    const now = answeredFolders(state.get<unknown>(offeredKey), all[0]?.uri.fsPath);
    await state.update(offeredKey, [...new Set([...now, ...offer.map((f) => f.path)])]);
  }
  if (choice === 'Preview and Install…') {
    // One folder after the other: each install shows its own preview and asks.
    for (const f of offer) {
      await install(f.folder);
    }
  }
}

/**
 * Hooks of ours that do not run what this version installs and will not (their script is
 * gone) or soon will not (it is in a versioned extension folder): say so, and offer to
 * re-install them through the shim. The fix is shown as a diff first, like any install.
 */
export async function offerRepair(folder: vscode.WorkspaceFolder, script: string, repair: () => Thenable<unknown>): Promise<void> {
  const broken = (await hooksStatus(folder.uri.fsPath, script)).filter((s) => needsRepair(s.state));
  if (broken.length === 0) {
    return;
  }
  const missing = broken.some((s) => s.state.kind === 'missing-script');
  const files = broken.map((s) => s.file).join(', ');
  const choice = await notify.warn(
    missing
      ? `The guard hook in ${files} runs a script that no longer exists (an older version of the extension): agent writes are not checked. Repair it?`
      : `The guard hook in ${files} runs this version's own folder, which the next update of the extension deletes. Repair it so that it keeps working?`,
    'Preview and Repair…',
  );
  if (choice === 'Preview and Repair…') {
    await repair();
  }
}
