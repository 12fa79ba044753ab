import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import { describeError, type Logger } from '../../core/lib/logger';
import type { DirtyBuffers } from '../../io/guard/service';
import { readSettings } from '../config';
import { settingsPrefix } from '../../core/config/settings';
import { commandIds, contextKeys, productName } from '../ids';
import { Disposable } from '../lifecycle';
import type { MonitorScope } from '../monitors';
import { EditorGuard, offerChoice, takeAgentsVersion } from './editorGuard';
import { changeHooks, failModeDiffers, hooksPreviewScheme, hooksStatus, HooksPreview, offerHooks, offerRepair, tellOpenFolderFirst } from './hooksCommands';
import { describeHookState, hookStatusActions, type HookState } from '../../core/hooks/state';
import { writeHookShim } from './hookShim';
import { batchMessage, noticeBatchMaxMs, noticeBatchMs } from './notices';
import { QuarantineStore, quarantineScheme } from './quarantine';
import type { QuarantineEntry } from '../../io/guard/editorWrites';
import { Coalescer } from '../coalescer';
import { sameFile } from '../../io/discovery';
import { pathOf } from '../uriPath';
import { notify } from '../notify';
import type { UserSaves } from '../userSaves';

/** The button of the offer to install the hooks again after `guard.failClosed` changed. */
const updateHooksChoice = 'Preview and Update…';

/**
 * The extension's side of the guard: the editor's dirty buffers for the guard services, the
 * editor guard and its quarantine, and the commands that install the agents' hooks.
 */
export class GuardHost extends Disposable {
  readonly quarantine: QuarantineStore;
  private readonly editorGuard: EditorGuard;
  private readonly preview = this.register(new HooksPreview());
  /** The script the installed hook commands run: the shim, once written (see hookShim.ts). */
  private readonly hookScript: Promise<string>;
  /** The scope attach() last saw; a scope's readiness arriving after a newer one is ignored. */
  private attached: MonitorScope | undefined;
  /** Waits for the first session of the attached scope, to offer the hooks then. */
  private sessionsSubscription: vscode.Disposable | undefined;
  /**
   * Once per activation, not per attach: the monitors are rebuilt on every settings change,
   * and the offers must not come back each time.
   */
  private repairChecked = false;
  /** The folders offered the hooks in this activation (answered or not). */
  private readonly offered = new Set<string>();
  /** Set-aside writes not told about yet: a burst of them gets one notification. */
  private notices: { entry: QuarantineEntry; message: string; restored: boolean }[] = [];
  private readonly noticeBurst = this.register(new Coalescer(() => this.tell(), noticeBatchMs, { maxMs: noticeBatchMaxMs }));

  /** The guard services ask this before every write: is the file open with unsaved changes? */
  readonly dirtyBuffers: DirtyBuffers = {
    // sameFile: an agent names a file by its real path, the editor as the workspace was opened
    // (through a symbolic link, say); the unsaved buffer is the same file. A notebook open in
    // the notebook editor is no text document: its unsaved cells are asked for apart.
    isDirty: (path) => {
      const unsaved = (d: { isDirty: boolean; uri: vscode.Uri }): boolean => d.isDirty && d.uri.scheme === 'file' && sameFile(pathOf(d.uri), path);
      return vscode.workspace.textDocuments.some(unsaved) || vscode.workspace.notebookDocuments.some(unsaved);
    },
  };

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: Logger,
    version: string,
    saves: UserSaves,
  ) {
    super();
    try {
      const direct = context.asAbsolutePath(nodePath.join('dist', 'hook.js'));
      this.hookScript = writeHookShim(context.globalStorageUri.fsPath, direct, version).catch((e: unknown) => {
        // Installing still works, but through a path the next update deletes: hooksStatus says so.
        log.warn(`[hooks] could not write the hook shim in ${context.globalStorageUri.fsPath}, installing ${direct} directly: ${describeError(e)}`);
        return direct;
      });
      this.register({
        dispose: () => {
          this.sessionsSubscription?.dispose();
        },
      });
      this.quarantine = new QuarantineStore(context.globalStorageUri);
      this.register(vscode.workspace.registerTextDocumentContentProvider(quarantineScheme, this.quarantine));
      this.register(vscode.workspace.registerTextDocumentContentProvider(hooksPreviewScheme, this.preview));
      this.editorGuard = this.register(
        new EditorGuard('warn', this.quarantine, saves, log, (entry, message, restored) => {
          this.notices.push({ entry, message, restored });
          this.noticeBurst.schedule();
        }),
      );
      // Each folder's own value: it is written into the hook command installed there.
      const failClosed = (folder: vscode.WorkspaceFolder): boolean => readSettings(log, folder.uri)['guard.failClosed'];
      const change = async (action: 'install' | 'uninstall', opts: { confirm?: boolean; folder?: vscode.WorkspaceFolder }) => {
        const outcome = await changeHooks(action, this.preview, await this.hookScript, failClosed, log, opts);
        if (outcome === 'written') {
          void this.updateHooksContext();
        }
        return outcome;
      };
      this.register(vscode.commands.registerCommand(commandIds.installHooks, (opts?: { confirm?: boolean; folder?: vscode.WorkspaceFolder }) => change('install', opts ?? {})));
      this.register(vscode.commands.registerCommand(commandIds.uninstallHooks, (opts?: { confirm?: boolean }) => change('uninstall', opts ?? {})));
      this.register(vscode.commands.registerCommand(commandIds.hooksStatus, (opts?: { show?: boolean }) => this.showStatus(opts?.show ?? true)));
      this.register(vscode.commands.registerCommand(commandIds.showQuarantine, () => this.showQuarantine()));
      this.register(
        vscode.workspace.onDidChangeConfiguration((e) => {
          for (const folder of vscode.workspace.workspaceFolders ?? []) {
            if (e.affectsConfiguration(`${settingsPrefix}.guard.failClosed`, folder.uri)) {
              void this.offerFailModeUpdate(folder, failClosed(folder));
            }
          }
        }),
      );
      void this.updateHooksContext();
    } catch (e) {
      this.abandon(e);
    }
  }

  /**
   * `guard.failClosed` is written into the hook command when the hooks are installed: the hook
   * runs without the extension, so it cannot read the setting. Changed while hooks are installed,
   * it does nothing until they are installed again, which is offered here (with its preview).
   */
  private async offerFailModeUpdate(folder: vscode.WorkspaceFolder, wanted: boolean): Promise<void> {
    const files = await failModeDiffers(folder.uri.fsPath, wanted);
    if (files.length === 0 || this.isDisposed) {
      return;
    }
    const where = (vscode.workspace.workspaceFolders ?? []).length > 1 ? ` of ${folder.name}` : '';
    const choice = await notify.info(
      `The guard hooks installed in ${files.join(', ')}${where} still ${wanted ? 'allow' : 'deny'} writes when no guard service answers: the setting applies once they are installed again. Update them?`,
      updateHooksChoice,
    );
    if (choice === updateHooksChoice) {
      await vscode.commands.executeCommand(commandIds.installHooks, { folder });
    }
  }

  /** Orders the updates of the context key: only the newest one sets it. */
  private hooksContextRun = 0;

  /**
   * Sets the context key that completes the walkthrough's hooks step: the step is done once
   * some folder has the hooks, not once the command ran (it may have written nothing).
   */
  private async updateHooksContext(): Promise<void> {
    const run = ++this.hooksContextRun;
    const script = await this.hookScript;
    let installed = false;
    for (const f of vscode.workspace.workspaceFolders ?? []) {
      const states = await hooksStatus(f.uri.fsPath, script);
      if (states.some((s) => s.state.kind !== 'not-installed' && s.state.kind !== 'unreadable')) {
        installed = true;
        break;
      }
    }
    if (run === this.hooksContextRun && !this.isDisposed) {
      await vscode.commands.executeCommand('setContext', contextKeys.hooksInstalled, installed);
    }
  }

  /**
   * A new configuration: follow its working trees once its monitors run; once per activation,
   * offer to repair hooks that no longer run, and to install them once there are sessions.
   */
  attach(scope: MonitorScope): void {
    this.attached = scope;
    this.editorGuard.setMode(scope.settings['editorGuard.mode']);
    this.sessionsSubscription?.dispose();
    this.sessionsSubscription = undefined;
    void scope.ready.then(() => {
      if (scope.all.length === 0 || this.attached !== scope || this.isDisposed) {
        return;
      }
      this.editorGuard.watch(scope.all.flatMap((m) => (m.tree ? [m.tree] : [])));
      void this.checkHooks();
      if (!this.offerIfSessions(scope)) {
        this.sessionsSubscription = scope.onDidChangeSessions(() => {
          if (this.offerIfSessions(scope)) {
            this.sessionsSubscription?.dispose();
            this.sessionsSubscription = undefined;
          }
        });
      }
    });
  }

  private async checkHooks(): Promise<void> {
    if (this.repairChecked) {
      return;
    }
    this.repairChecked = true;
    const script = await this.hookScript;
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      await offerRepair(folder, script, () => vscode.commands.executeCommand(commandIds.installHooks, { folder }));
    }
  }

  /**
   * Offers the hooks to every folder that has sessions and was not offered them yet; true once
   * every folder of the window was (then there is nothing left to wait for).
   */
  private offerIfSessions(scope: MonitorScope): boolean {
    const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => !this.offered.has(pathOf(f.uri)));
    if (folders.length === 0) {
      return true;
    }
    const withSessions = new Set(scope.foldersWithSessions());
    const ready = folders.filter((f) => withSessions.has(pathOf(f.uri)));
    if (ready.length > 0) {
      void this.hookScript.then((script) =>
        offerHooks(
          this.context.workspaceState,
          ready.map((folder) => ({ folder, hasSessions: true })),
          script,
          (folder) => vscode.commands.executeCommand(commandIds.installHooks, { folder }),
        ),
      );
    }
    // Marked at once, not when the offer is shown: sessions keep changing meanwhile.
    for (const f of ready) {
      this.offered.add(pathOf(f.uri));
    }
    return ready.length === folders.length;
  }

  /** The status of every folder's hooks; `show: false` only returns it (integration tests). */
  private async showStatus(show: boolean): Promise<{ folder: string; file: string; state: HookState }[]> {
    const script = await this.hookScript;
    const all: { folder: string; file: string; state: HookState }[] = [];
    for (const f of vscode.workspace.workspaceFolders ?? []) {
      for (const s of await hooksStatus(f.uri.fsPath, script)) {
        all.push({ folder: f.name, file: s.file, state: s.state });
      }
    }
    if (!show) {
      return all;
    }
    if ((vscode.workspace.workspaceFolders ?? []).length === 0) {
      tellOpenFolderFirst('status');
      return all;
    }
    const lines = all.map((s) => `${s.folder}: ${s.file} — ${describeHookState(s.state)}`);
    const choice = await notify.info(`${productName} hooks`, { modal: true, detail: lines.join('\n') }, ...hookStatusActions(all.map((s) => s.state)));
    if (choice === 'Install…' || choice === 'Repair…') {
      await vscode.commands.executeCommand(commandIds.installHooks);
    } else if (choice === 'Remove…') {
      await vscode.commands.executeCommand(commandIds.uninstallHooks);
    }
    return all;
  }

  /** One notification for the writes set aside since the last one. */
  private tell(): void {
    const batch = this.notices;
    this.notices = [];
    if (batch.length === 1) {
      void offerChoice(this.quarantine, batch[0]!.entry, batch[0]!.message, this.log);
    } else if (batch.length > 1) {
      const message = batchMessage(batch.map((b) => ({ name: vscode.workspace.asRelativePath(b.entry.path), restored: b.restored })));
      void notify.warn(message, 'Show Versions…').then((choice) => {
        if (choice === 'Show Versions…') {
          void this.showQuarantine();
        }
      });
    }
  }

  /** Every version the editor guard set aside: compare, or take it. */
  private async showQuarantine(): Promise<QuarantineEntry | undefined> {
    const entries = [...(await this.quarantine.list())].reverse();
    if (entries.length === 0) {
      void notify.info('No version has been set aside.');
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
