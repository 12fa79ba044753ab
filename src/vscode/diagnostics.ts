import * as vscode from 'vscode';
import { agentLabels } from '../core/model/agent';
import type { Finding, Severity } from '../core/model/finding';
import { ruleById } from '../core/rules/registry';
import { allRules } from '../core/rules/all';
import type { FindingChange } from '../io/findingStore';
import { productName } from './ids';
import { Disposable } from './lifecycle';
import { Coalescer } from './coalescer';
import { FindingTargets, type HiddenSessions } from './findingTargets';
import { samePath } from '../core/classify/paths';
import { pathOf } from './uriPath';

/** VS Code keeps at most this many diagnostics per file and collection (microsoft/vscode#181045). */
const maxDiagnosticsPerFile = 1000;

/** Coalesces bursts of findings (a session read from the start) into one update per file. */
const flushDelayMs = 40;

const severity: Record<Severity, vscode.DiagnosticSeverity> = {
  error: vscode.DiagnosticSeverity.Error,
  warning: vscode.DiagnosticSeverity.Warning,
  info: vscode.DiagnosticSeverity.Information,
};

/**
 * Findings as diagnostics, in one collection: on the transcript line and span of the
 * offending id or path, and — for findings about a workspace file — on that file too, at the
 * lines the transcript names, with a link back. Transcripts are never opened as documents to
 * do this: the URI is enough for the Problems panel.
 *
 * The findings of the sessions `hiddenSessions` names are not published (with
 * `agentGuard.problems.sessions` = `current`, the sessions that are not current): agents in the
 * editor read the Problems panel too, and the findings of sessions that ended days ago are
 * noise there. They stay in the sessions view, the timeline and the CLI.
 */
export class DiagnosticsPublisher extends Disposable {
  private readonly collection = this.register(vscode.languages.createDiagnosticCollection('agentGuard'));
  private readonly targets: FindingTargets;
  private readonly pending = this.register(new Coalescer(() => this.flush(), flushDelayMs));

  /**
   * `hiddenSessions` is asked on every flush, so it always sees the sessions as they are then.
   * `spell`: a workspace file's path as the editor names it (see FindingTargets).
   */
  constructor(
    private readonly hiddenSessions: () => HiddenSessions,
    private readonly spell: (path: string) => string = (p) => p,
  ) {
    super();
    this.targets = new FindingTargets(spell);
  }

  apply(change: FindingChange): void {
    this.targets.apply(change);
    this.schedule();
  }

  /** Replaces everything (a restart of the monitors). */
  reset(findings: readonly Finding[]): void {
    this.targets.reset(findings);
    this.schedule();
  }

  /**
   * Which sessions are hidden may have changed: a session was written, time passed, a setting
   * changed. Looked at on the next flush, with the other updates.
   */
  sessionsChanged(): void {
    this.pending.schedule();
  }

  /** The finding a diagnostic shows (for quick fixes, which get copies of the diagnostics). */
  findingFor(uri: vscode.Uri, d: vscode.Diagnostic): Finding | undefined {
    const rule = typeof d.code === 'object' ? String(d.code.value) : String(d.code);
    const path = pathOf(uri);
    for (const f of this.targets.on(path)) {
      if (f.rule === rule && messageFor(f, path) === d.message) {
        return f;
      }
    }
    return undefined;
  }

  /** Flushes pending updates now (tests; the jump command before it reveals). */
  flush(): void {
    this.pending.cancel();
    this.targets.hideSessions(this.hiddenSessions());
    for (const [target, list] of this.targets.takeChanges()) {
      const uri = vscode.Uri.file(target);
      if (list.length === 0) {
        this.collection.delete(uri);
      } else {
        this.collection.set(uri, toDiagnostics(list, target, this.spell));
      }
    }
  }

  private schedule(): void {
    if (this.targets.hasChanges) {
      this.pending.schedule();
    }
  }
}

const rank: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

/** The diagnostics of one file, most severe first, capped with one summary line. */
function toDiagnostics(findings: readonly Finding[], target: string, spell: (path: string) => string = (p) => p): vscode.Diagnostic[] {
  const sorted = [...findings].sort((a, b) => rank[a.severity] - rank[b.severity] || a.line - b.line);
  const shown = sorted.length > maxDiagnosticsPerFile ? sorted.slice(0, maxDiagnosticsPerFile - 1) : sorted;
  const out = shown.map((f) => toDiagnostic(f, target, spell));
  if (sorted.length > shown.length) {
    const rest = sorted.length - shown.length;
    const d = new vscode.Diagnostic(
      new vscode.Range(0, 0, 0, 0),
      `${rest} more finding${rest === 1 ? '' : 's'} on this file are not shown (VS Code shows at most ${maxDiagnosticsPerFile} per file); the ${productName} Sessions view and \`agent-guard check\` list them all.`,
      vscode.DiagnosticSeverity.Information,
    );
    d.source = productName;
    out.push(d);
  }
  return out;
}

function messageFor(f: Finding, target: string): string {
  if (samePath(target, f.file)) {
    return f.message;
  }
  const agent = f.agent === 'unknown' ? 'agent' : agentLabels[f.agent];
  return `${f.message} (recorded in the ${agent} session ${f.session})`;
}

function toDiagnostic(f: Finding, target: string, spell: (path: string) => string = (p) => p): vscode.Diagnostic {
  const onTranscript = samePath(target, f.file);
  const range = onTranscript ? findingRange(f) : subjectRange(f);
  const d = new vscode.Diagnostic(range, messageFor(f, target), severity[f.severity]);
  d.source = productName;
  const rule = ruleById(f.rule, allRules);
  d.code = rule ? { value: f.rule, target: vscode.Uri.parse(rule.meta.docs.url) } : f.rule;
  const related = f.related.map(
    (r) =>
      new vscode.DiagnosticRelatedInformation(
        new vscode.Location(vscode.Uri.file(spell(r.file)), new vscode.Range(r.line - 1, (r.column ?? 1) - 1, r.line - 1, (r.endColumn ?? r.column ?? 1) - 1)),
        r.message,
      ),
  );
  if (onTranscript) {
    if (f.subject) {
      related.push(new vscode.DiagnosticRelatedInformation(new vscode.Location(vscode.Uri.file(spell(f.subject.path)), subjectRange(f)), 'the file it concerns'));
    }
  } else {
    related.unshift(new vscode.DiagnosticRelatedInformation(new vscode.Location(vscode.Uri.file(f.file), findingRange(f)), 'the transcript line'));
  }
  d.relatedInformation = related;
  return d;
}

export function findingRange(f: Finding): vscode.Range {
  return new vscode.Range(f.line - 1, f.column - 1, f.endLine - 1, Math.max(f.endColumn - 1, f.column - 1));
}

function subjectRange(f: Finding): vscode.Range {
  const first = f.subject?.lines?.[0];
  if (!first) {
    return new vscode.Range(0, 0, 0, 0);
  }
  // Lines whose text we do not have: cover them whole (a large end column is clamped by the editor).
  return new vscode.Range(first.start - 1, 0, first.start - 1 + Math.max(first.count, 1) - 1, Number.MAX_SAFE_INTEGER);
}
