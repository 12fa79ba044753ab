import * as vscode from 'vscode';
import type { Logger } from '../core/lib/logger';
import type { Finding } from '../core/model/finding';
import type { Settings } from '../core/config/settings';
import { registerCommands } from './commands/register';
import { affectsUs, needsRestart, readSettings } from './config';
import { pastSessions } from './currentSessions';
import { DiagnosticsPublisher } from './diagnostics';
import type { HiddenSessions } from './findingTargets';
import { FindingActions } from './codeActions';
import { GuardHost } from './guard/guardHost';
import type { QuarantineEntry } from '../io/guard/editorWrites';
import { RepairPreviews } from './commands/repair';
import { contextKeys, repairPreviewScheme, snapshotScheme } from './ids';
import { Disposable } from './lifecycle';
import { createLog } from './log';
import { MonitorScope } from './monitors';
import type { Services } from './services';
import { SessionsView } from './sessionsView';
import { SnapshotProvider } from './snapshots';
import { StatusBar, type StatusSnapshot } from './statusBar';
import { TimelinePanels } from './timeline/panel';
import { pathOf } from './uriPath';
import { UserSaves } from './userSaves';
import { recordNotebookSaves } from './notebookSaves';
import { editorSpelling, type FolderSpelling } from './editorSpelling';
import { workspaceSpellings } from '../io/discovery';

/** What the extension returns from activate(): used by the integration tests, stable for other extensions. */
export interface AgentGuardApi {
  /** Resolves when the current monitors have read the existing sessions. */
  ready(): Promise<void>;
  findings(): Finding[];
  /** Pushes pending diagnostics to VS Code now. */
  flushDiagnostics(): void;
  /** The versions the editor guard set aside, and their bytes. */
  quarantine(): Promise<QuarantineEntry[]>;
  readQuarantined(id: string): Promise<Uint8Array>;
  /** The folder of the quarantine's blobs and index. */
  quarantineDir(): string;
  /** The sockets of the guard services this window runs. */
  guardSockets(): string[];
  /** What the status bar item shows, after any pending update. */
  status(): StatusSnapshot;
}

/**
 * The extension's composition root: builds the services, owns every disposable, and
 * rebuilds the monitors (its restartable part) when the settings or the folders change.
 */
export class AgentGuard extends Disposable implements Services {
  readonly log: vscode.LogOutputChannel & Logger;
  /**
   * When this window started watching: a session written since then is current (see
   * `isCurrent`) for the status bar and the Problems panel alike.
   */
  private readonly since = Date.now();
  readonly diagnostics: DiagnosticsPublisher;
  private readonly view: SessionsView;
  private readonly status: StatusBar;
  /** The open session timelines; they follow the current monitors. */
  private readonly timelines: TimelinePanels;
  private current: MonitorScope | undefined;
  /**
   * Scopes replaced by a restart, still answering the guard's hooks until the current one is
   * ready and has taken their services over (see MonitorScope); disposed then.
   */
  private retiring: MonitorScope[] = [];
  /** Subscriptions to the current scope, disposed with it. */
  private scopeSubscriptions: vscode.Disposable[] = [];
  private readonly saves = new UserSaves();
  /** The workspace folders as opened and as their real paths (see editorSpelling); set at each restart, before the diagnostics are reset. */
  private folderSpellings: FolderSpelling[] = [];
  private liveMs = 5 * 60_000;
  private problemsSessions: Settings['problems.sessions'] = 'current';
  private readonly guard: GuardHost;

  /** Throws if a part cannot be built or registered, having disposed what was (see abandon). */
  constructor(readonly context: vscode.ExtensionContext) {
    super();
    try {
      this.log = this.register(createLog());
      this.diagnostics = this.register(new DiagnosticsPublisher(() => this.hiddenSessions(), (p) => this.editorPath(p)));
      this.status = this.register(new StatusBar(this.since));
      this.view = this.register(new SessionsView(() => this.liveMs));
      this.timelines = this.register(new TimelinePanels(context.extensionUri, this.log));
      this.guard = this.register(new GuardHost(context, this.log, packageVersion(context), this.saves));
      const previews = this.register(new RepairPreviews());
      this.register(vscode.workspace.registerTextDocumentContentProvider(repairPreviewScheme, previews));
      registerCommands(this, this.timelines, previews, (d) => this.register(d));
      this.register(vscode.workspace.registerTextDocumentContentProvider(snapshotScheme, new SnapshotProvider()));
      this.register(
        vscode.languages.registerCodeActionsProvider({ scheme: 'file' }, new FindingActions(this.diagnostics, (f) => (f.callId !== undefined ? this.current?.monitorOf(f.file)?.knownCallLocation(f.file, f.callId)?.line : undefined)), {
          providedCodeActionKinds: FindingActions.kinds,
        }),
      );
      this.register(
        vscode.workspace.onDidChangeConfiguration((e) => {
          if (!affectsUs(e)) {
            return;
          }
          if (needsRestart(e)) {
            this.log.info('[config] settings changed; applying them');
            this.restart();
          } else {
            // Only what the views show changed: no need to read every session again.
            this.applyViewSettings(readSettings(this.log));
            this.status.update(this.current, this.liveMs);
            this.view.refresh();
            this.diagnostics.sessionsChanged();
          }
        }),
      );
      this.register(vscode.workspace.onDidChangeWorkspaceFolders(() => this.restart()));
      this.register(vscode.workspace.onDidSaveTextDocument((d) => this.saves.saved(pathOf(d.uri), d.getText(), Date.now())));
      recordNotebookSaves(this.saves, (d) => this.register(d));
      // Live/idle is a matter of time passing: refresh the summaries now and then.
      const timer = setInterval(() => {
        this.status.update(this.current, this.liveMs);
        this.view.refresh();
        this.diagnostics.sessionsChanged();
      }, 30_000);
      this.register({ dispose: () => clearInterval(timer) });
      this.register({ dispose: () => this.disposeScope() });
      this.restart();
    } catch (e) {
      this.abandon(e);
    }
  }

  scope(): MonitorScope | undefined {
    return this.current;
  }

  get extensionUri(): vscode.Uri {
    return this.context.extensionUri;
  }

  editorPath(path: string): string {
    return editorSpelling(path, this.folderSpellings);
  }

  get api(): AgentGuardApi {
    return {
      ready: async () => {
        await this.current?.ready;
      },
      findings: () => this.current?.findings() ?? [],
      flushDiagnostics: () => this.diagnostics.flush(),
      quarantine: async () => [...(await this.guard.quarantine.list())],
      readQuarantined: (id) => this.guard.quarantine.read(id),
      quarantineDir: () => this.guard.quarantine.dir,
      guardSockets: () => this.current?.guardSockets() ?? [],
      status: () => this.status.current(),
    };
  }

  /** The sessions whose findings are not diagnostics now (`agentGuard.problems.sessions`). */
  private hiddenSessions(): HiddenSessions {
    const scope = this.current;
    if (this.problemsSessions === 'all' || !scope) {
      return new Set();
    }
    return pastSessions(scope.sessions(), Date.now(), this.liveMs, this.since);
  }

  private applyViewSettings(settings: Settings): void {
    this.liveMs = settings.liveMinutes * 60_000;
    this.problemsSessions = settings['problems.sessions'];
  }

  private isUserSave(path: string, at: number, hash: string | null): boolean {
    return this.saves.isUserSave(path, at, hash);
  }

  /**
   * Builds new monitors from the current settings and folders. The old ones stop feeding the
   * views at once but keep their guard services until the new ones take them over.
   */
  private restart(): void {
    if (this.isDisposed) {
      return;
    }
    const previous = this.detachScope();
    if (previous) {
      this.retiring.push(previous);
    }
    const settings = readSettings(this.log);
    this.applyViewSettings(settings);
    const folders = vscode.workspace.workspaceFolders ?? [];
    this.folderSpellings = folders.map((f) => {
      const asOpened = pathOf(f.uri);
      return { asOpened, real: workspaceSpellings(asOpened).at(-1)! };
    });
    void vscode.commands.executeCommand('setContext', contextKeys.ready, false);
    const scope = new MonitorScope(folders, settings, this.log, {
      isUserSave: (p, at, hash) => this.isUserSave(p, at, hash),
      userSavePending: (p) => this.saves.pending(p),
      dirtyBuffers: this.guard.dirtyBuffers,
      version: packageVersion(this.context),
      folderSettings: (f) => readSettings(this.log, vscode.Uri.file(f)),
    }, previous);
    this.current = scope;
    this.scopeSubscriptions = [
      scope.onDidChangeFindings((c) => {
        this.diagnostics.apply(c);
        this.view.refresh();
        this.status.update(scope, this.liveMs);
      }),
      scope.onDidChangeSessions(() => {
        this.view.refresh();
        this.status.update(scope, this.liveMs);
        this.diagnostics.sessionsChanged();
        void vscode.commands.executeCommand('setContext', contextKeys.noSessions, scope.sessions().length === 0);
      }),
    ];
    this.diagnostics.reset(scope.findings());
    this.view.setScope(scope);
    this.timelines.setScope(scope);
    this.guard.attach(scope);
    this.status.update(scope, this.liveMs);
    void scope.ready.then(() => {
      if (this.current === scope) {
        this.disposeRetiring();
        void vscode.commands.executeCommand('setContext', contextKeys.ready, true);
        void vscode.commands.executeCommand('setContext', contextKeys.noSessions, scope.sessions().length === 0);
        this.status.update(scope, this.liveMs);
        this.view.refresh();
        this.diagnostics.sessionsChanged();
      }
    });
  }

  /** Unhooks the current scope from the views; returns it, for the caller to dispose or retire. */
  private detachScope(): MonitorScope | undefined {
    for (const d of this.scopeSubscriptions) {
      d.dispose();
    }
    this.scopeSubscriptions = [];
    const scope = this.current;
    this.current = undefined;
    return scope;
  }

  private disposeRetiring(): void {
    for (const s of this.retiring.splice(0)) {
      s.dispose();
    }
  }

  private disposeScope(): void {
    this.detachScope()?.dispose();
    this.disposeRetiring();
  }
}

function packageVersion(context: vscode.ExtensionContext): string {
  const v = (context.extension.packageJSON as { version?: unknown }).version;
  return typeof v === 'string' ? v : '0';
}
