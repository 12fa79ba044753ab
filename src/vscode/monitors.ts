import * as os from 'node:os';
import * as vscode from 'vscode';
import type { Settings } from '../core/config/settings';
import { AgentGuardError } from '../core/lib/errors';
import { describeError, type Logger } from '../core/lib/logger';
import type { Finding } from '../core/model/finding';
import type { FindingChange } from '../io/findingStore';
import { type HookLedger, ServedLedgerView } from '../io/guard/ledger';
import { type GuardService, servedLedgerView } from '../io/guard/service';
import { ensureGuardDir, guardDir } from '../io/guard/socketPath';
import type { LiveMonitor, SessionSummary } from '../io/liveMonitor';
import type { WatchedRoot } from '../io/sessionWatcher';
import { newFolderMonitor, newFolderStandby, openFolderLedger, startFolderGuard, type FolderContext, type FolderHost } from './folderParts';
import { Disposable } from './lifecycle';
import { pathOf } from './uriPath';

export interface MonitorHooks extends FolderHost {
  /** The settings as a folder sees them: its own values of the `folderSettings` override the window's. */
  folderSettings(folder: string): Settings;
}

/**
 * The live monitors of one configuration: one per workspace folder, each with its guard
 * service and hook ledger. Built from a settings snapshot and thrown away whole when the
 * settings or the folders change (the owner builds a new one), so no listener survives a
 * restart.
 *
 * The guard is handed over, not dropped: the scope being replaced keeps answering the hooks
 * while the new one reads every session (tens of seconds on a large history), and each
 * folder's service moves over when the new monitor is ready (old socket closed, new one
 * bound at once). The two share the folder's ledger, so nothing the old service records in
 * the meantime is missing from the new rules.
 */
export class MonitorScope extends Disposable {
  private readonly monitors = new Map<string, LiveMonitor>();
  private readonly services = new Map<string, GuardService>();
  /** The ledger each served folder's service records to (handed on with the service). */
  private readonly ledgers = new Map<string, HookLedger>();
  private readonly findingsChanged = this.register(new vscode.EventEmitter<FindingChange>());
  readonly onDidChangeFindings = this.findingsChanged.event;
  private readonly sessionsChanged = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeSessions = this.sessionsChanged.event;
  readonly ready: Promise<void>;
  /** The workspace folders this scope watches (none: no folder is open). */
  readonly folders: readonly string[];

  constructor(
    folders: readonly vscode.WorkspaceFolder[],
    readonly settings: Settings,
    private readonly log: Logger,
    private readonly hooks: MonitorHooks,
    /** The scope this one replaces, serving the hooks until each folder is handed over; its owner disposes it. */
    private predecessor?: MonitorScope,
  ) {
    super();
    // Watchers, ledgers and sockets start in the background: activation never waits for them.
    this.folders = folders.filter((f) => f.uri.scheme === 'file').map((f) => pathOf(f.uri));
    this.ready = Promise.all(this.folders.map((f) => this.startFolder(f))).then(() => {
      this.predecessor = undefined;
      this.sessionsChanged.fire();
    });
  }

  /** The ledger of the folder's service, if this scope (or, until it hands over, the one it replaces) serves the folder. */
  private servedLedger(folder: string): HookLedger | undefined {
    return this.services.has(folder) ? this.ledgers.get(folder) : this.predecessor?.servedLedger(folder);
  }

  /** Stops answering the folder's hooks (socket removed, ledger flushed) so the successor can bind at once. */
  private async handOver(folder: string): Promise<void> {
    const service = this.services.get(folder);
    if (!service) {
      await this.predecessor?.handOver(folder);
      return;
    }
    this.services.delete(folder);
    await service.close();
  }

  private async startFolder(folder: string): Promise<void> {
    const settings = this.hooks.folderSettings(folder);
    const context: FolderContext = { folder, settings, log: this.log, host: this.hooks, environment: { home: os.homedir(), env: process.env } };
    let ledger: HookLedger | undefined;
    const dir = guardDir();
    // Served by the scope this one replaces: its service moves here once the monitor is ready.
    const handed = this.predecessor?.servedLedger(folder);
    if (settings.watchWorkingTree) {
      const problem = ensureGuardDir(dir);
      if (problem) {
        this.log.warn(`[guard] not started for ${folder}: ${problem.dir} ${problem.problem}`);
      } else {
        ledger = handed ?? (await openFolderLedger(context, dir));
      }
    }
    // Only the host serving the workspace keeps the ledger current (see ServedLedgerView). The
    // socket answers while it is handed over, but from this very window.
    const rulesLedger = ledger ? (ledger === handed ? new ServedLedgerView(ledger) : await servedLedgerView(ledger, folder, dir)) : undefined;
    if (this.isDisposed) {
      return;
    }
    const monitor = newFolderMonitor(context, rulesLedger);
    this.monitors.set(folder, monitor);
    const a = monitor.findings.onDidChange((c) => this.findingsChanged.fire(c));
    const b = monitor.onDidChangeSessions(() => this.sessionsChanged.fire());
    this.register({ dispose: () => (a.dispose(), b.dispose(), monitor.dispose()) });
    try {
      await monitor.start();
      this.log.info(`[monitor] watching ${folder}: ${monitor.sessionList().length} sessions, ${monitor.findings.size} findings`);
    } catch (e) {
      this.log.error(`[monitor] could not start watching ${folder}: ${describeError(e)}`);
      return;
    }
    if (!ledger || this.isDisposed) {
      return;
    }
    const start = (l: HookLedger): Promise<GuardService> => startFolderGuard(context, monitor, l, dir);
    if (ledger === handed) {
      await this.predecessor?.handOver(folder);
    }
    try {
      const service = await start(ledger);
      if (this.isDisposed) {
        await service.close();
        return;
      }
      this.serve(folder, service, ledger);
    } catch (e) {
      // Typically `agent-guard watch` or another window already serves this workspace: its guard answers the hooks.
      rulesLedger?.withdraw();
      this.log.warn(`[guard] not serving ${folder}: ${describeError(e)}`);
      if (AgentGuardError.is(e, 'refused') && rulesLedger && !this.isDisposed) {
        this.log.info(`[guard] will take the guard service of ${folder} over when the host serving it stops`);
        // Owned by the scope: disposing it stops the waiting, and a service bound meanwhile is closed.
        this.register(
          newFolderStandby(context, dir, start, (service, fresh) => {
            rulesLedger.serve(fresh);
            this.serve(folder, service, fresh);
            this.log.info(`[guard] the host serving ${folder} stopped; this window took its guard service over`);
          }),
        );
      }
    }
  }

  /** This window answers the folder's hooks with `service` (owned by the scope from now on). */
  private serve(folder: string, service: GuardService, ledger: HookLedger): void {
    this.services.set(folder, service);
    this.ledgers.set(folder, ledger);
    // Unless handed over first: handOver closes it then, and it is no longer this scope's.
    this.register({
      dispose: () => {
        if (this.services.get(folder) === service) {
          void service.close();
        }
      },
    });
    this.log.info(`[guard] answering the hooks of ${folder} on ${service.socketPath ?? '(no socket)'}`);
  }

  /** The sockets of the guard services this window runs. */
  guardSockets(): string[] {
    return [...this.services.values()].flatMap((s) => (s.socketPath ? [s.socketPath] : []));
  }

  get all(): readonly LiveMonitor[] {
    return [...this.monitors.values()];
  }

  sessions(): SessionSummary[] {
    const seen = new Map<string, SessionSummary>();
    for (const m of this.monitors.values()) {
      for (const s of m.sessionList()) {
        seen.set(s.file, s);
      }
    }
    return [...seen.values()];
  }

  /** The workspace folders some of whose agent sessions were found. */
  foldersWithSessions(): string[] {
    return [...this.monitors.entries()].filter(([, m]) => m.sessionList().length > 0).map(([folder]) => folder);
  }

  findings(): Finding[] {
    return this.all.flatMap((m) => m.findings.all());
  }

  findingsFor(file: string): Finding[] {
    return this.all.flatMap((m) => m.findings.forFile(file));
  }

  watchedRoots(): WatchedRoot[] {
    const seen = new Map<string, WatchedRoot>();
    for (const m of this.monitors.values()) {
      for (const r of m.watchedRoots) {
        seen.set(`${r.agent}:${r.path}`, r);
      }
    }
    return [...seen.values()];
  }

  /** The monitor following a transcript. */
  monitorOf(file: string): LiveMonitor | undefined {
    return this.all.find((m) => m.session(file) !== undefined);
  }

  async recheck(): Promise<void> {
    await Promise.all(this.all.map((m) => m.recheck()));
  }

  tick(): void {
    for (const m of this.all) {
      m.tick();
    }
  }
}
