import * as vscode from 'vscode';
import { commandIds } from '../ids';
import type { Services } from '../services';
import { openCall, openFinding, openTranscript, openWorkspaceFile } from './open';
import { clear, copyFinding, openSettings, recheck, showLog, showReadDiff } from './other';

/** The command table: each command is a factory of its handler, given its dependencies. */
export function registerCommands(s: Services): vscode.Disposable[] {
  const table: Record<(typeof commandIds)[keyof typeof commandIds], (...args: unknown[]) => unknown> = {
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
  };
  return Object.entries(table).map(([id, handler]) => vscode.commands.registerCommand(id, handler));
}
