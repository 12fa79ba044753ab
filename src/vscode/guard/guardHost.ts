import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import type { Settings } from '../../core/config/settings';
import type { Logger } from '../../core/lib/logger';
import type { DirtyBuffers } from '../../io/guard/service';
import { commandIds } from '../ids';
import { Disposable } from '../lifecycle';
import type { MonitorScope } from '../monitors';
import { EditorGuard, offerChoice, takeAgentsVersion } from './editorGuard';
import { changeHooks, hooksPreviewScheme, hooksStatus, HooksPreview, offerHooks } from './hooksCommands';
import { QuarantineStore, quarantineScheme, type QuarantineEntry } from './quarantine';

/**
 * The extension's side of the guard: the editor's dirty buffers for the guard services, the
 * editor guard and its quarantine, and the commands that install the agents' hooks.
 */
export class GuardHost extends Disposable {
  readonly quarantine: QuarantineStore;
  private readonly editorGuard: EditorGuard;
  private readonly preview = new HooksPreview();
  private settings: Settings | undefined;

  /** The guard services ask this before every write: is the file open with unsaved changes? */
  readonly dirtyBuffers: DirtyBuffers = {
    isDirty: (path) => vscode.workspace.textDocuments.some((d) => d.isDirty && d.uri.scheme === 'file' && d.uri.fsPath === path),
  };

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: Logger,
  ) {
    super();
    this.quarantine = new QuarantineStore(context.globalStorageUri);
    this.register(vscode.workspace.registerTextDocumentContentProvider(quarantineScheme, this.quarantine));
    this.register(vscode.workspace.registerTextDocumentContentProvider(hooksPreviewScheme, this.preview));
    this.editorGuard = this.register(
      new EditorGuard('warn', this.quarantine, log, (entry, message) => void offerChoice(this.quarantine, entry, message, log)),
    );
    const hookScript = context.asAbsolutePath(nodePath.join('dist', 'hook.js'));
    const failClosed = (): boolean => this.settings?.['guard.failClosed'] ?? false;
    this.register(vscode.commands.registerCommand(commandIds.installHooks, (opts?: { confirm?: boolean }) => changeHooks('install', this.preview, hookScript, failClosed(), log, opts ?? {})));
    this.register(vscode.commands.registerCommand(commandIds.uninstallHooks, (opts?: { confirm?: boolean }) => changeHooks('uninstall', this.preview, hookScript, failClosed(), log, opts ?? {})));
    this.register(vscode.commands.registerCommand(commandIds.hooksStatus, () => this.showStatus()));
    this.register(vscode.commands.registerCommand(commandIds.showQuarantine, () => this.showQuarantine()));
  }

  /** A new configuration: follow its working trees once its monitors run, and offer the hooks once. */
  attach(scope: MonitorScope): void {
    this.settings = scope.settings;
    this.editorGuard.setMode(scope.settings['editorGuard.mode']);
    void scope.ready.then(() => {
      if (scope.all.length === 0) {
        return;
      }
      this.editorGuard.watch(scope.all.flatMap((m) => (m.tree ? [m.tree] : [])));
      void offerHooks(this.context.workspaceState, async () => {
        await vscode.commands.executeCommand(commandIds.installHooks);
      });
    });
  }

  private async showStatus(): Promise<void> {
    const lines: string[] = [];
    for (const f of vscode.workspace.workspaceFolders ?? []) {
      for (const s of await hooksStatus(f.uri.fsPath)) {
        lines.push(`${f.name}: ${s.file} — ${s.installed ? 'installed' : 'not installed'}`);
      }
    }
    const choice = await vscode.window.showInformationMessage('Agent Session Guard hooks', { modal: true, detail: lines.join('\n') }, 'Install…', 'Remove…');
    if (choice === 'Install…') {
      await vscode.commands.executeCommand(commandIds.installHooks);
    } else if (choice === 'Remove…') {
      await vscode.commands.executeCommand(commandIds.uninstallHooks);
    }
  }

  /** Every version the editor guard set aside: compare, or take it. */
  private async showQuarantine(): Promise<QuarantineEntry | undefined> {
    const entries = [...(await this.quarantine.list())].reverse();
    if (entries.length === 0) {
      void vscode.window.showInformationMessage('No version has been set aside.');
      return undefined;
    }
    const pick = await vscode.window.showQuickPick(
      entries.map((e) => ({
        label: vscode.workspace.asRelativePath(e.path),
        description: `${new Date(e.at).toLocaleString()} · ${e.author}`,
        detail: e.reason === 'dirty-buffer' ? 'written over unsaved changes' : 'a stale write',
        entry: e,
      })),
      { placeHolder: 'Versions set aside by the editor guard' },
    );
    if (!pick) {
      return undefined;
    }
    const action = await vscode.window.showQuickPick(['Compare with the file', "Take this version"], { placeHolder: pick.label });
    if (action === 'Compare with the file') {
      await vscode.commands.executeCommand('vscode.diff', this.quarantine.uriFor(pick.entry), vscode.Uri.file(pick.entry.path), `${nodePath.basename(pick.entry.path)}: set aside ↔ now`);
    } else if (action === 'Take this version') {
      await takeAgentsVersion(this.quarantine, pick.entry, this.log);
    }
    return pick.entry;
  }
}
