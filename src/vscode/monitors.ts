import * as os from 'node:os';
import * as vscode from 'vscode';
import { enabledAgents, ruleConfigFromSettings, type Settings } from '../core/config/settings';
import { describeError, scoped, type Logger } from '../core/lib/logger';
import type { Finding } from '../core/model/finding';
import type { FindingChange } from '../io/findingStore';
import { LiveMonitor, type SessionSummary } from '../io/liveMonitor';
import type { WatchedRoot } from '../io/sessionWatcher';
import { Disposable } from './lifecycle';

export interface MonitorHooks {
  /** Did the user save this file from an editor around `at` (ms)? */
  isUserSave(path: string, at: number): boolean;
}

/**
 * The live monitors of one configuration: one per workspace folder. Built from a settings
 * snapshot and thrown away whole when the settings or the folders change (the owner builds
 * a new one), so no listener survives a restart.
 */
export class MonitorScope extends Disposable {
  private readonly monitors = new Map<string, LiveMonitor>();
  private readonly findingsChanged = this.register(new vscode.EventEmitter<FindingChange>());
  readonly onDidChangeFindings = this.findingsChanged.event;
  private readonly sessionsChanged = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeSessions = this.sessionsChanged.event;
  readonly ready: Promise<void>;

  constructor(
    folders: readonly vscode.WorkspaceFolder[],
    readonly settings: Settings,
    private readonly log: Logger,
    hooks: MonitorHooks,
  ) {
    super();
    for (const folder of folders) {
      if (folder.uri.scheme !== 'file') {
        continue;
      }
      const monitor = new LiveMonitor({
        workspace: folder.uri.fsPath,
        environment: { home: os.homedir(), env: process.env },
        agents: enabledAgents(settings),
        extraFolders: settings.sessionFolders,
        config: ruleConfigFromSettings(settings),
        logger: scoped(log, 'monitor'),
        watchTree: settings.watchWorkingTree,
        treeIgnore: settings.ignoredPaths,
        isUserSave: (p, at) => hooks.isUserSave(p, at),
      });
      this.monitors.set(folder.uri.fsPath, monitor);
      const a = monitor.findings.onDidChange((c) => this.findingsChanged.fire(c));
      const b = monitor.onDidChangeSessions(() => this.sessionsChanged.fire());
      this.register({ dispose: () => (a.dispose(), b.dispose(), monitor.dispose()) });
    }
    // Watchers start in the background: activation never waits for a disk scan.
    this.ready = Promise.all(
      [...this.monitors.entries()].map(async ([folder, m]) => {
        try {
          await m.start();
          this.log.info(`[monitor] watching ${folder}: ${m.sessionList().length} sessions, ${m.findings.size} findings`);
        } catch (e) {
          this.log.error(`[monitor] could not start watching ${folder}: ${describeError(e)}`);
        }
      }),
    ).then(() => this.sessionsChanged.fire());
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
