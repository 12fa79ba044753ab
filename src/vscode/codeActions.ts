import * as vscode from 'vscode';
import type { Finding } from '../core/model/finding';
import type { DiagnosticsPublisher } from './diagnostics';
import { commandIds, productName } from './ids';

/** The pairing rules `repair` answers (duplicate call ids it refuses to guess about). */
const repairable = new Set(['orphan-result', 'duplicate-result', 'misplaced-result', 'missing-result']);

/** Can "Repair this session…" answer this finding? (Claude Code and Amplifier transcripts.) */
export function isRepairable(f: Finding): boolean {
  return repairable.has(f.rule) && (f.agent === 'claude-code' || f.agent === 'amplifier');
}

/** Quick fixes on our diagnostics: the same jumps as the commands, plus the read/now diff. */
export class FindingActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  constructor(private readonly diagnostics: DiagnosticsPublisher) {}

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const out: vscode.CodeAction[] = [];
    for (const d of context.diagnostics) {
      if (d.source !== productName) {
        continue;
      }
      const f = this.diagnostics.findingFor(document.uri, d);
      if (!f) {
        continue;
      }
      const action = (title: string, command: string): void => {
        const a = new vscode.CodeAction(title, vscode.CodeActionKind.QuickFix);
        a.diagnostics = [d];
        a.command = { title, command, arguments: [f] };
        out.push(a);
      };
      if (document.uri.fsPath !== f.file) {
        action('Open the transcript at this finding', commandIds.openFinding);
      }
      if (f.callId !== undefined) {
        action('Open the tool call', commandIds.openCall);
      }
      if (f.subject && document.uri.fsPath !== f.subject.path) {
        action('Open the file it wrote', commandIds.openWorkspaceFile);
      }
      if (f.subject) {
        action('Show diff: what the session read ↔ the file now', commandIds.showReadDiff);
      }
      action('Show in session timeline', commandIds.showTimeline);
      if (isRepairable(f)) {
        action('Repair this session…', commandIds.repairSession);
      }
      action(`Show documentation of ${f.rule}`, commandIds.openRuleDoc);
      action('Copy finding as JSON', commandIds.copyFinding);
    }
    return out;
  }
}
