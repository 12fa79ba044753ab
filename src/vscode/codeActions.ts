import * as vscode from 'vscode';
import type { Finding } from '../core/model/finding';
import type { DiagnosticsPublisher } from './diagnostics';
import { commandIds, productName } from './ids';
import { samePath } from '../core/classify/paths';
import { pathOf } from './uriPath';
import { sameFile } from '../io/discovery';

/** The pairing rules `repair` answers (duplicate call ids it refuses to guess about). */
const repairable = new Set(['orphan-result', 'duplicate-result', 'misplaced-result', 'missing-result']);

/** Can "Repair this session…" answer this finding? (Claude Code and Amplifier transcripts.) */
export function isRepairable(f: Finding): boolean {
  return repairable.has(f.rule) && (f.agent === 'claude-code' || f.agent === 'amplifier');
}

/** Quick fixes on our diagnostics: the same jumps as the commands, plus the read/now diff. */
export class FindingActions implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  /**
   * `callLine`: the transcript line of a finding's call, from what is in memory (undefined when
   * not known without reading the transcript again).
   */
  constructor(
    private readonly diagnostics: DiagnosticsPublisher,
    private readonly callLine: (f: Finding) => number | undefined = () => undefined,
  ) {}

  provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): vscode.CodeAction[] {
    const out: vscode.CodeAction[] = [];
    const ours = context.diagnostics.flatMap((d) => {
      const f = d.source === productName ? this.diagnostics.findingFor(document.uri, d) : undefined;
      return f ? [{ d, f }] : [];
    });
    const documented = new Set<string>();
    for (const { d, f } of ours) {
      // Several findings under the cursor (a file two stale writes concern) each offer the same
      // actions: each title then says which finding it acts on.
      const which = ours.length < 2 ? '' : ours.some((o) => o.f !== f && o.f.rule === f.rule) ? ` (${f.rule}, transcript line ${f.line})` : ` (${f.rule})`;
      const action = (title: string, command: string): void => {
        // ("Show documentation of stale-write" names it already.)
        title += title.includes(f.rule) ? '' : which;
        const a = new vscode.CodeAction(title, vscode.CodeActionKind.QuickFix);
        a.diagnostics = [d];
        a.command = { title, command, arguments: [f] };
        out.push(a);
      };
      const here = pathOf(document.uri);
      if (!samePath(here, f.file)) {
        action('Open the transcript at this finding', commandIds.openFinding);
      }
      // Not where it would go nowhere: most rules report at the call itself (a call with no
      // result, a write without a read), and the transcript is then open at it already.
      if (f.callId !== undefined && !(samePath(here, f.file) && this.callLine(f) === f.line)) {
        action('Open the tool call', commandIds.openCall);
      }
      // (sameFile: the editor may name it through a link, the finding by its real path.)
      if (f.subject && !sameFile(here, f.subject.path)) {
        action('Open the file it wrote', commandIds.openWorkspaceFile);
      }
      if (f.subject) {
        action('Show diff: what the session read ↔ the file now', commandIds.showReadDiff);
      }
      action('Show in session timeline', commandIds.showTimeline);
      if (isRepairable(f)) {
        action('Repair this session…', commandIds.repairSession);
      }
      if (!documented.has(f.rule)) {
        // One page per rule, however many of its findings are under the cursor.
        documented.add(f.rule);
        action(`Show documentation of ${f.rule}`, commandIds.openRuleDoc);
      }
      action('Copy finding as JSON', commandIds.copyFinding);
    }
    return out;
  }
}
