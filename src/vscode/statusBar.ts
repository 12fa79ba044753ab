import * as vscode from 'vscode';
import { viewIds } from './ids';
import { Disposable } from './lifecycle';
import type { MonitorScope } from './monitors';

/** Live sessions and findings at a glance; a click focuses the sessions view. */
export class StatusBar extends Disposable {
  private readonly item = this.register(vscode.window.createStatusBarItem('agentGuard.status', vscode.StatusBarAlignment.Left, 50));

  constructor() {
    super();
    this.item.name = 'Agent Session Guard';
    this.item.command = `${viewIds.sessions}.focus`;
    this.item.text = '$(shield) …';
    this.item.tooltip = 'Agent Session Guard: starting';
    this.item.show();
  }

  update(scope: MonitorScope | undefined, liveMs: number): void {
    if (!scope) {
      this.item.text = '$(shield)';
      this.item.tooltip = 'Agent Session Guard: no workspace folder';
      this.item.backgroundColor = undefined;
      return;
    }
    const sessions = scope.sessions();
    const now = Date.now();
    const live = sessions.filter((s) => now - s.lastActivity < liveMs).length;
    const findings = scope.findings();
    const errors = findings.filter((f) => f.severity === 'error').length;
    const warnings = findings.filter((f) => f.severity === 'warning').length;
    const counts = errors + warnings > 0 ? ` $(error) ${errors} $(warning) ${warnings}` : '';
    this.item.text = `$(shield) ${live} live${counts}`;
    this.item.tooltip = `Agent Session Guard: ${sessions.length} session${sessions.length === 1 ? '' : 's'} (${live} live), ${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'} — click to show the sessions`;
    this.item.backgroundColor = errors > 0 ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  }
}
