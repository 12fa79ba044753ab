/**
 * One workspace folder's parts as the extension builds them: its hook ledger, live monitor and
 * guard service (and the standby that takes the service over from another host), from the
 * folder's settings and the window's log. Computed without `vscode` (unit-tested under
 * node:test); the MonitorScope owns what these return, and their events.
 */
import { enabledAgents, ruleConfigFromSettings, type Settings } from '../core/config/settings';
import { resolveSessionFolder, type Environment } from '../core/discovery/locations';
import type { HookLedgerView } from '../core/engine/rule';
import type { GuardPolicy } from '../core/guard/types';
import type { Logger } from '../core/lib/logger';
import { HookLedger } from '../io/guard/ledger';
import { GuardService, type DirtyBuffers } from '../io/guard/service';
import { ledgerPathFor } from '../io/guard/socketPath';
import { GuardStandby, type GuardStandbyOptions } from '../io/guard/standby';
import { LiveMonitor } from '../io/liveMonitor';

/** The guard decisions' levels, from the settings (one key per decision). */
function guardPolicy(s: Settings): GuardPolicy {
  return {
    'stale-write': s['guard.staleWrite'],
    'dirty-buffer': s['guard.dirtyBuffer'],
    'unread-write': s['guard.unreadWrite'],
    'concurrent-write': s['guard.concurrentWrite'],
  };
}

/** What the window gives each folder's parts. */
export interface FolderHost {
  /** Did the user save this file from an editor around `at` (ms)? */
  isUserSave(path: string, at: number, hash: string | null): boolean;
  /** A notebook save of this file still being read back (see WorkTreeOptions.userSavePending). */
  userSavePending(path: string): Promise<void> | undefined;
  /** The editors' unsaved buffers (the guard denies writes to them). */
  dirtyBuffers: DirtyBuffers;
  version: string;
}

/** One folder, as its parts are built. */
export interface FolderContext {
  folder: string;
  /** The settings as the folder sees them (its own values of the folder settings). */
  settings: Settings;
  /**
   * The window's log (one LogOutputChannel), given to every part as it is: each tags its own
   * lines (`[monitor] …`, `[guard] …`, `[tree] …`; the monitor tags its own parts' `[sessions] …`,
   * `[writers] …`), as `agent-guard watch` shows them. Scoped again here, every line carried
   * its tag twice.
   */
  log: Logger;
  host: FolderHost;
  /** Where the agents keep their sessions: the user's home and environment. */
  environment: Environment;
}

/** The folder's hook ledger, from its file in the per-user guard directory `dir`. */
export function openFolderLedger(c: FolderContext, dir: string): Promise<HookLedger> {
  return HookLedger.open(ledgerPathFor(c.folder, dir), c.log);
}

/** The folder's live monitor (not started); its rules see `hookLedger` (see ServedLedgerView). */
export function newFolderMonitor(c: FolderContext, hookLedger: HookLedgerView | undefined): LiveMonitor {
  const { folder, settings, host } = c;
  return new LiveMonitor({
    workspace: folder,
    environment: c.environment,
    agents: enabledAgents(settings),
    extraFolders: settings.sessionFolders.map((f) => resolveSessionFolder(f, { home: c.environment.home, workspace: folder })),
    config: ruleConfigFromSettings(settings),
    logger: c.log,
    watchTree: settings.watchWorkingTree,
    treeIgnore: settings.ignoredPaths,
    isUserSave: (p, at, hash) => host.isUserSave(p, at, hash),
    userSavePending: (p) => host.userSavePending(p),
    ...(hookLedger ? { hookLedger } : {}),
  });
}

/** Starts the folder's guard service on its socket in `dir`, recording to `ledger`. */
export function startFolderGuard(c: FolderContext, monitor: LiveMonitor, ledger: HookLedger, dir: string): Promise<GuardService> {
  return GuardService.start({
    workspace: c.folder,
    monitor,
    ledger,
    dirtyBuffers: c.host.dirtyBuffers,
    policy: guardPolicy(c.settings),
    logger: c.log,
    version: c.host.version,
    dir,
  });
}

/** Waits for the host that serves the folder's hooks to stop, then takes its guard service over. */
export function newFolderStandby(c: FolderContext, dir: string, start: GuardStandbyOptions['start'], onServe: GuardStandbyOptions['onServe']): GuardStandby {
  return new GuardStandby({ workspace: c.folder, dir, logger: c.log, start, onServe });
}
