import { promises as fsp } from 'node:fs';
import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import { applyRepairPlan } from '../../core/repair/apply';
import { changesFor, editLine, summarize } from '../../core/repair/plan';
import { planRepair } from '../../core/repair/planner';
import { describeLive, isLive, liveness, writeRepaired } from '../../io/repairFile';
import { agentLabels } from '../../core/model/agent';
import { sessionTitle } from '../../core/model/sessionTitle';
import { isRepairable } from '../codeActions';
import { repairPreviewScheme } from '../ids';
import { relativeTime } from '../sessionsView';
import type { Services } from '../services';
import { asFinding, asSessionFile } from './findingArg';
import { notify } from '../notify';
import { errorMessage } from '../../core/lib/errors';

/** A session file counts as live for repair if written this recently (as `agent-guard repair`). */
const liveSeconds = 120;

/**
 * Serves the repaired transcript of a pending repair for the diff preview
 * (`agent-guard-repair:<file>`). Only what the user is looking at is kept.
 */
export class RepairPreviews implements vscode.TextDocumentContentProvider {
  private readonly previews = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;

  uriFor(file: string): vscode.Uri {
    return vscode.Uri.from({ scheme: repairPreviewScheme, path: vscode.Uri.file(file).path });
  }

  set(file: string, text: string): vscode.Uri {
    const uri = this.uriFor(file);
    this.previews.set(uri.path, text);
    this.changed.fire(uri);
    return uri;
  }

  delete(file: string): void {
    this.previews.delete(this.uriFor(file).path);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.previews.get(uri.path) ?? '(no repair is pending for this transcript)';
  }

  dispose(): void {
    this.changed.dispose();
    this.previews.clear();
  }
}

/**
 * From the command palette: the sessions with a pairing problem repair can fix, most recent
 * first; or a message saying there is none.
 */
async function pickRepairable(s: Services): Promise<string | undefined> {
  const scope = s.scope();
  const candidates = (scope?.sessions() ?? [])
    .map((session) => ({ session, problems: scope?.findingsFor(session.file).filter(isRepairable).length ?? 0 }))
    .filter((c) => c.problems > 0)
    .sort((a, b) => b.session.lastActivity - a.session.lastActivity);
  if (candidates.length === 0) {
    void notify.info('No session of this workspace has a pairing problem to repair.');
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    candidates.map(({ session, problems }) => ({
      label: sessionTitle(session) ?? nodePath.basename(session.file),
      description: `${agentLabels[session.agent]} · ${problems} pairing problem${problems === 1 ? '' : 's'} · ${relativeTime(session.lastActivity)}`,
      detail: session.file,
      file: session.file,
    })),
    { placeHolder: 'Repair which session? (the change is shown as a diff first)', matchOnDescription: true, matchOnDetail: true },
  );
  return pick?.file;
}

/**
 * Repair this session…: plan the repair with the same planner as `agent-guard repair`, show
 * the original against the repaired transcript, and write only after the user confirms
 * (the original is saved beside it first, byte for byte).
 */
export const repairSession = (s: Services, previews: RepairPreviews) => async (arg?: unknown, opts?: unknown): Promise<'written' | 'cancelled' | 'nothing' | 'refused'> => {
  // Automation (and the integration tests) can pass { confirm: false } to skip the dialogs;
  // the diff is still shown and a backup is still saved. A session that looks live is then
  // refused, and the user told why: the dialog that would let them go on is not shown.
  const ask = !(typeof opts === 'object' && opts !== null && (opts as { confirm?: unknown }).confirm === false);
  const file = asFinding(arg)?.file ?? asSessionFile(arg) ?? (typeof arg === 'string' ? arg : undefined) ?? (await pickRepairable(s));
  if (!file) {
    return 'nothing';
  }
  const name = nodePath.basename(file);
  let original: Uint8Array;
  let plan;
  try {
    original = await fsp.readFile(file);
    plan = planRepair(original, { file });
  } catch (e) {
    const why = errorMessage(e);
    void notify.error(`Cannot repair ${name}: ${why}`);
    return 'refused';
  }
  if (plan.edits.length === 0 && plan.complete) {
    void notify.info(
      plan.left.length > 0
        ? `${name}: nothing to repair; the calls still open at the end of the file were left as they are (the session may still be running them).`
        : `${name}: nothing to repair.`,
    );
    return 'nothing';
  }
  if (!plan.complete) {
    // A plan with no edit and problems left is not "nothing to repair": those need a person.
    const needed = plan.left.filter((l) => !l.deliberate).map((l) => `line ${l.line}: ${l.reason}`);
    const rest = plan.remaining.map((f) => `line ${f.line}: ${f.rule}`);
    const why = plan.edits.length === 0 ? `Repair cannot fix the pairing problems of ${name}: they need a person.` : `${name} cannot be repaired completely, so nothing will be written.`;
    void notify.error(why, { modal: ask, detail: (needed.length > 0 ? needed : rest).join('\n') });
    return 'refused';
  }
  const repaired = applyRepairPlan(original, plan.edits);
  const preview = previews.set(file, new TextDecoder().decode(repaired));
  await vscode.commands.executeCommand('vscode.diff', vscode.Uri.file(file), preview, `Repair ${name}: original ↔ repaired`, { preview: true });

  const sum = summarize(plan.edits);
  const detail = [
    `${changesFor(plan)}: ${sum.dropped} dropped, ${sum.moved} moved, ${sum.added} added, ${sum.relinked} re-linked.`,
    ...[...plan.edits].sort((a, b) => editLine(a) - editLine(b)).slice(0, 12).map((e) => `line ${editLine(e)}: ${e.reason}`),
    plan.edits.length > 12 ? `… and ${plan.edits.length - 12} more (see the diff)` : '',
    'The original is saved beside it first, byte for byte. No tool output is ever invented.',
  ].filter(Boolean);
  const choice = ask ? await notify.warn(`Repair ${name}?`, { modal: true, detail: detail.join('\n') }, 'Repair') : 'Repair';
  if (choice !== 'Repair') {
    previews.delete(file);
    return 'cancelled';
  }
  try {
    const stat = await fsp.stat(file);
    const live = await liveness(file, stat, liveSeconds, plan.cwd);
    if (isLive(live) && !ask) {
      const why = `${describeLive(live, plan.cwd)}, and repairing a running session can lose what it writes next`;
      s.log.warn(`[repair] not repairing ${file} unconfirmed: ${why}`);
      void notify.warn(`Did not repair ${name}: ${why}. Stop the session first, or repair it from its diagnostic or the sessions view, where you can confirm.`);
      return 'refused';
    }
    if (isLive(live)) {
      const go = await notify.warn(`Repair ${name} anyway?`, { modal: true, detail: `${describeLive(live, plan.cwd)}. Repairing a running session can lose what it writes next.` }, 'Repair Anyway');
      if (go !== 'Repair Anyway') {
        previews.delete(file);
        return 'cancelled';
      }
    }
    const backup = await writeRepaired(file, original, repaired, stat, undefined);
    s.log.info(`[repair] repaired ${file} (${plan.edits.length} changes); original saved as ${backup}`);
    void notify.info(`Repaired ${name}. The original is saved as ${nodePath.basename(backup)}.`);
    return 'written';
  } catch (e) {
    const why = errorMessage(e);
    s.log.error(`[repair] ${file}: ${why}`);
    void notify.error(`Could not repair ${name}: ${why}`);
    return 'refused';
  } finally {
    previews.delete(file);
  }
};
