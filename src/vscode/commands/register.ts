import * as vscode from 'vscode';
import { commandIds } from '../ids';
import type { Services } from '../services';
import { showTimeline } from '../timeline/command';
import type { TimelinePanels } from '../timeline/panel';
import { openCall, openFinding, openTranscript, openWorkspaceFile } from './open';
import { openRuleDoc } from './ruleDoc';
import { clear, copyFinding, openSettings, recheck, showLog, showReadDiff, showWatchedFolders } from './other';
import { repairSession, type RepairPreviews } from './repair';

/** The guard's commands are registered by the GuardHost, which owns what they need. */
type GuardCommandId = (typeof commandIds)['installHooks' | 'uninstallHooks' | 'hooksStatus' | 'showQuarantine'];

/**
 * The command table: each command is a factory of its handler, given its dependencies. Each
 * registration goes to `own` as it is made: one that throws (a command already registered)
 * leaves those before it with their owner, not in a list the throw never returned.
 */
export function registerCommands(s: Services, timelines: TimelinePanels, previews: RepairPreviews, own: (registration: vscode.Disposable) => void): void {
  const table: Record<Exclude<(typeof commandIds)[keyof typeof commandIds], GuardCommandId>, (...args: unknown[]) => unknown> = {
    [commandIds.openFinding]: openFinding(s),
    [commandIds.openCall]: openCall(s),
    [commandIds.openWorkspaceFile]: openWorkspaceFile(s),
    [commandIds.copyFinding]: copyFinding(),
    [commandIds.showReadDiff]: showReadDiff(s),
    [commandIds.recheck]: recheck(s),
    [commandIds.clear]: clear(s),
    [commandIds.openTranscript]: openTranscript(),
    [commandIds.showLog]: showLog(s),
    [commandIds.openSettings]: openSettings(),
    [commandIds.repairSession]: repairSession(s, previews),
    [commandIds.showTimeline]: showTimeline(s, timelines),
    [commandIds.showWatchedFolders]: showWatchedFolders(s),
    [commandIds.openRuleDoc]: openRuleDoc(s),
  };
  for (const [id, handler] of Object.entries(table)) {
    own(vscode.commands.registerCommand(id, handler));
  }
}
