import * as path from 'node:path';
import * as vscode from 'vscode';
import { agentLabels } from '../../core/model/agent';
import { findingToJson } from '../../core/model/findingJson';
import { SnapshotProvider } from '../snapshots';
import { productName, viewIds } from '../ids';
import type { Services } from '../services';
import { asFinding } from './findingArg';
import { pickFinding } from './open';
import { notify } from '../notify';

export const copyFinding = () => async (arg?: unknown): Promise<string | undefined> => {
  const f = asFinding(arg);
  if (!f) {
    return undefined;
  }
  const json = JSON.stringify(findingToJson(f), null, 2);
  await vscode.env.clipboard.writeText(json);
  void vscode.window.setStatusBarMessage(`${productName}: finding copied as JSON`, 3000);
  return json;
};

/** `vscode.diff` between what the session last saw of the file and the file now. */
export const showReadDiff = (s: Services) => async (arg?: unknown): Promise<void> => {
  const f = asFinding(arg) ?? (await pickFinding(s, { aboutFile: true }));
  if (!f) {
    return;
  }
  const target = f.subject?.path;
  if (!target) {
    void notify.info('This finding is not about a workspace file.');
    return;
  }
  const seen = await s.scope()?.monitorOf(f.file)?.lastSeen(f.file, target);
  const relatedRead = f.related.find((r) => r.file === f.file && /last (read|saw|wrote)/.test(r.message));
  const line = seen?.at.line ?? relatedRead?.line;
  if (line === undefined) {
    void notify.info(`The transcript records no read of ${path.basename(target)} by this session.`);
    return;
  }
  const left = SnapshotProvider.uriFor(target, f.file, line);
  await vscode.commands.executeCommand(
    'vscode.diff',
    left,
    vscode.Uri.file(s.editorPath(target)),
    `${path.basename(target)}: what the session saw (transcript line ${line}) ↔ now`,
    { preview: true },
  );
};

/** How long the result of a re-check stays in the status bar. */
const recheckMessageMs = 5000;

/**
 * Reads every session again. Its progress goes to the status bar (visible whatever view is
 * open, e.g. when run from the palette) and to the sessions view's own bar when it is shown;
 * the result then stays in the status bar a moment, since a quick run shows no progress at all
 * (VS Code waits 150 ms before it does). Not cancellable: every session's findings are
 * dropped up front and rebuilt as it is read, so stopping halfway would leave some sessions
 * with only part of theirs.
 */
export const recheck = (s: Services) => async (): Promise<{ sessions: number; findings: number } | undefined> => {
  const scope = s.scope();
  if (!scope) {
    return undefined;
  }
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Re-checking agent sessions' }, () =>
    vscode.window.withProgress({ location: { viewId: viewIds.sessions } }, () => scope.recheck()),
  );
  const result = { sessions: scope.sessions().length, findings: scope.findings().length };
  const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;
  void vscode.window.setStatusBarMessage(`$(check) Re-checked ${plural(result.sessions, 'session')}: ${plural(result.findings, 'finding')}`, recheckMessageMs);
  return result;
};

export const clear = (s: Services) => (): void => {
  for (const m of s.scope()?.all ?? []) {
    m.findings.clear();
  }
};

export const showLog = (s: Services) => (): void => {
  s.log.show(true);
};

export const openSettings = () => async (): Promise<void> => {
  await vscode.commands.executeCommand('workbench.action.openSettings', '@ext:agent-session-guard.agent-session-guard');
};

/**
 * Where the sessions of this workspace are looked for, exactly (the environment variables and
 * settings applied); `{ show: false }` only returns the lines (integration tests).
 */
export const showWatchedFolders = (s: Services) => async (opts?: unknown): Promise<string[]> => {
  const lines = (s.scope()?.watchedRoots() ?? []).map((r) => `${agentLabels[r.agent]}: ${r.path}${r.exists ? '' : ' (not there yet)'}`);
  if (!(typeof opts === 'object' && opts !== null && (opts as { show?: unknown }).show === false)) {
    // The session folders are those of the workspace's folders: without one, none is watched
    // whatever agents are turned on.
    const none = (vscode.workspace.workspaceFolders ?? []).length === 0 ? 'none: no folder is open. Sessions are looked for only for the workspace folders.' : 'none: no agent is turned on in the settings.';
    await notify.info(`${productName} looks for agent sessions in:`, {
      modal: true,
      detail: lines.length > 0 ? lines.join('\n') : none,
    });
  }
  return lines;
};
