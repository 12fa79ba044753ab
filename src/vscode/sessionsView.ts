import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import { agentLabels, type AgentKind } from '../core/model/agent';
import type { Finding } from '../core/model/finding';
import type { SessionSummary } from '../io/liveMonitor';
import { commandIds, sessionRowQuery, viewIds } from './ids';
import { findingRowText, markdownCode, sessionRowText, SessionRows, type SessionRowText } from './sessionRow';
import { Disposable } from './lifecycle';
import type { MonitorScope } from './monitors';
import { Coalescer } from './coalescer';
import { sessionTitle } from '../core/model/sessionTitle';

export type SessionNode =
  | { kind: 'agent'; agent: AgentKind; sessions: SessionSummary[] }
  | { kind: 'session'; session: SessionSummary; findings: Finding[] }
  | { kind: 'finding'; finding: Finding };

/**
 * The sessions view: agents → sessions (title or first prompt, start, live or idle, finding
 * count) → findings. Renders what the monitors computed; no logic of its own.
 */
export class SessionsView extends Disposable implements vscode.TreeDataProvider<SessionNode> {
  private readonly changed = this.register(new vscode.EventEmitter<SessionNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;
  readonly view: vscode.TreeView<SessionNode>;
  private scope: MonitorScope | undefined;
  private readonly pending = this.register(
    // No `view.message`: VS Code hides the welcome content (the empty state, with its
    // buttons) while a tree view has a message.
    new Coalescer(() => {
      const moved = this.rows.sync((this.scope?.sessions() ?? []).map((s) => ({ file: s.file, uri: rowUri(s.file).toString() })));
      this.changed.fire(undefined);
      this.fireDecorations(moved);
    }, 100),
  );
  private readonly decorationsChanged = this.register(new vscode.EventEmitter<vscode.Uri[]>());
  /** The session rows' transcripts and badges, of the sessions there are now (see SessionRows). */
  private readonly rows = new SessionRows();

  constructor(private readonly liveMs: () => number) {
    super();
    try {
      this.view = this.register(vscode.window.createTreeView(viewIds.sessions, { treeDataProvider: this, showCollapseAll: true }));
      this.register(
        vscode.window.registerFileDecorationProvider({
          onDidChangeFileDecorations: this.decorationsChanged.event,
          provideFileDecoration: (uri) => {
            const file = uri.query === sessionRowQuery ? this.rows.fileOf(uri.toString()) : undefined;
            return file !== undefined ? this.sessionDecoration(file) : undefined;
          },
        }),
      );
    } catch (e) {
      this.abandon(e);
    }
  }

  private badgeRow(file: string): SessionRowText {
    return sessionRowText({ lastActivity: 0 }, this.scope?.findingsFor(file) ?? [], 0, 0, relativeTime);
  }

  /** A session row's finding count, as a badge (see sessionRowText) coloured by the worst finding. */
  private sessionDecoration(file: string): vscode.FileDecoration | undefined {
    const row = this.badgeRow(file);
    this.rows.showed(file, badgeKey(row));
    if (row.badge === undefined) {
      return undefined;
    }
    const color = row.worst === 'error' ? 'list.errorForeground' : row.worst === 'warning' ? 'list.warningForeground' : undefined;
    return new vscode.FileDecoration(row.badge, row.counts, color ? new vscode.ThemeColor(color) : undefined);
  }

  /**
   * Only the rows whose badge changed since VS Code last asked for it, and those of the sessions
   * that came or went (`moved`, see SessionRows): told that every decoration changed, VS Code
   * drops them all and asks again, and every session's badge blinked out at each refresh.
   */
  private fireDecorations(moved: readonly string[]): void {
    const changed = [...new Set([...this.rows.changed((f) => badgeKey(this.badgeRow(f))), ...moved])];
    if (changed.length > 0) {
      this.decorationsChanged.fire(changed.map(rowUri));
    }
  }

  setScope(scope: MonitorScope | undefined): void {
    this.scope = scope;
    this.refresh();
  }

  /** Coalesced: a session being read from the start fires many changes. */
  refresh(): void {
    this.pending.schedule();
  }

  getChildren(node?: SessionNode): SessionNode[] {
    const scope = this.scope;
    if (!scope) {
      return [];
    }
    if (!node) {
      const byAgent = new Map<AgentKind, SessionSummary[]>();
      for (const s of scope.sessions()) {
        byAgent.set(s.agent, [...(byAgent.get(s.agent) ?? []), s]);
      }
      return [...byAgent.entries()]
        .sort(([a], [b]) => agentLabels[a].localeCompare(agentLabels[b]))
        .map(([agent, sessions]) => ({ kind: 'agent', agent, sessions: sessions.sort((x, y) => y.lastActivity - x.lastActivity) }));
    }
    if (node.kind === 'agent') {
      return node.sessions.map((session) => ({ kind: 'session', session, findings: scope.findingsFor(session.file) }));
    }
    if (node.kind === 'session') {
      return [...node.findings]
        .sort((a, b) => a.line - b.line || a.column - b.column)
        .map((finding) => ({ kind: 'finding', finding }));
    }
    return [];
  }

  getTreeItem(node: SessionNode): vscode.TreeItem {
    switch (node.kind) {
      case 'agent': {
        const item = new vscode.TreeItem(agentLabels[node.agent], vscode.TreeItemCollapsibleState.Expanded);
        item.description = `${node.sessions.length} session${node.sessions.length === 1 ? '' : 's'}`;
        item.iconPath = new vscode.ThemeIcon('hubot');
        item.contextValue = 'agent';
        return item;
      }
      case 'session':
        return this.sessionItem(node.session, node.findings);
      case 'finding':
        return findingItem(node.finding);
    }
  }

  private sessionItem(s: SessionSummary, findings: readonly Finding[]): vscode.TreeItem {
    const title = sessionTitle(s) ?? nodePath.basename(s.file);
    const item = new vscode.TreeItem(title, findings.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    const now = Date.now();
    const live = now - s.lastActivity < this.liveMs();
    const errors = findings.filter((f) => f.severity === 'error').length;
    const row = sessionRowText(s, findings, now, this.liveMs(), relativeTime);
    item.description = row.description;
    item.iconPath = live
      ? new vscode.ThemeIcon('pulse', new vscode.ThemeColor(errors > 0 ? 'errorForeground' : 'charts.green'))
      : new vscode.ThemeIcon(errors > 0 ? 'error' : 'circle-outline', errors > 0 ? new vscode.ThemeColor('errorForeground') : undefined);
    const md = new vscode.MarkdownString(undefined, true);
    md.appendText(title + '\n\n');
    md.appendMarkdown(`**${agentLabels[s.agent]}** session ${markdownCode(s.sessionId)}\n\n`);
    if (s.startedAt) {
      md.appendText(`Started ${new Date(s.startedAt).toLocaleString()}\n\n`);
    }
    md.appendText(`Last written ${new Date(s.lastActivity).toLocaleString()} · ${formatBytes(s.bytes)}\n\n${row.counts}\n\n${s.file}`);
    item.tooltip = md;
    // The file's URI with our query: the row's badge is then our count of the session's
    // findings, not the Problems panel's count of its diagnostics (keyed by the bare URI).
    // Not a scheme of our own: VS Code does not decorate those in a tree view.
    item.resourceUri = rowUri(s.file);
    this.rows.row(item.resourceUri.toString(), s.file);
    item.contextValue = 'session';
    item.id = `session:${s.file}`;
    return item;
  }
}

function findingItem(f: Finding): vscode.TreeItem {
  const row = findingRowText(f);
  const item = new vscode.TreeItem(row.label, vscode.TreeItemCollapsibleState.None);
  item.description = row.description;
  item.iconPath = new vscode.ThemeIcon(
    f.severity === 'error' ? 'error' : f.severity === 'warning' ? 'warning' : 'info',
    new vscode.ThemeColor(f.severity === 'error' ? 'errorForeground' : f.severity === 'warning' ? 'editorWarning.foreground' : 'editorInfo.foreground'),
  );
  item.tooltip = new vscode.MarkdownString().appendText(`${f.message}\n\n${f.rule} — ${nodePath.basename(f.file)}:${f.line}:${f.column}`);
  item.command = { command: commandIds.openFinding, title: 'Open Transcript at Finding', arguments: [f] };
  // What the context menu may offer for this finding.
  item.contextValue = ['finding', f.callId !== undefined ? 'call' : '', f.subject ? 'file' : '', f.subject ? 'diff' : ''].filter(Boolean).join('-');
  item.id = `finding:${f.id}`;
  return item;
}

function rowUri(file: string): vscode.Uri {
  return vscode.Uri.file(file).with({ query: sessionRowQuery });
}

/** What a session row's decoration shows: it changed when this did. */
function badgeKey(row: SessionRowText): string {
  return `${row.badge ?? ''}|${row.counts}|${row.worst ?? ''}`;
}

export function relativeTime(ms: number, now = Date.now()): string {
  if (!Number.isFinite(ms)) {
    return '';
  }
  const s = Math.round((now - ms) / 1000);
  if (s < 60) {
    return 'just now';
  }
  if (s < 3600) {
    return `${Math.round(s / 60)} min ago`;
  }
  if (s < 86_400) {
    return `${Math.round(s / 3600)} h ago`;
  }
  return new Date(ms).toLocaleDateString();
}

function formatBytes(n: number): string {
  return n < 1024 ? `${n} B` : n < 1 << 20 ? `${(n / 1024).toFixed(1)} KB` : `${(n / (1 << 20)).toFixed(1)} MB`;
}
