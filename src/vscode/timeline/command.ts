import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import { agentLabels } from '../../core/model/agent';
import { sessionTitle } from '../../core/model/sessionTitle';
import { asFinding, asSessionFile } from '../commands/findingArg';
import { productName } from '../ids';
import type { Services } from '../services';
import { relativeTime } from '../sessionsView';
import type { TimelineFocus, TimelinePanels } from './panel';
import { pathOf } from '../uriPath';
import { notify } from '../notify';

/**
 * Show Session Timeline: for the session of a tree item, of a finding (from its quick fix,
 * then revealed at the finding), of a transcript URI or path, or else one picked from a list.
 * Resolves to the transcript shown.
 */
export const showTimeline =
  (s: Services, panels: TimelinePanels) =>
  async (arg?: unknown): Promise<string | undefined> => {
    const finding = asFinding(arg);
    const file = asSessionFile(arg) ?? finding?.file ?? asTranscript(arg) ?? (await pickSession(s));
    if (!file) {
      return undefined;
    }
    const focus: TimelineFocus | undefined = finding ? { line: finding.line, ...(finding.callId !== undefined ? { callId: finding.callId } : {}) } : undefined;
    panels.show(file, focus);
    return file;
  };

function asTranscript(arg: unknown): string | undefined {
  if (arg instanceof vscode.Uri) {
    return arg.scheme === 'file' ? pathOf(arg) : undefined;
  }
  return typeof arg === 'string' && nodePath.isAbsolute(arg) ? arg : undefined;
}

async function pickSession(s: Services): Promise<string | undefined> {
  const sessions = [...(s.scope()?.sessions() ?? [])].sort((a, b) => b.lastActivity - a.lastActivity);
  if (sessions.length === 0) {
    void notify.info(`${productName} has found no agent session of this workspace yet.`);
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    sessions.map((x) => ({
      label: sessionTitle(x) ?? nodePath.basename(x.file),
      description: `${agentLabels[x.agent]} · ${relativeTime(x.lastActivity)}`,
      detail: x.file,
      file: x.file,
    })),
    { placeHolder: 'Show the timeline of which session?', matchOnDescription: true, matchOnDetail: true },
  );
  return pick?.file;
}
