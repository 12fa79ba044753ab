import * as vscode from 'vscode';
import { viewIds } from './ids';
import { Disposable } from './lifecycle';
import type { MonitorScope } from './monitors';
import { Coalescer } from '../core/lib/coalescer';
import { countStatus, statusText } from './statusSummary';

/** Like the sessions view's refresh: soon enough to feel live, late enough to batch a burst. */
const updateDelayMs = 100;

/** Live sessions and findings at a glance; a click focuses the sessions view. */
export class StatusBar extends Disposable {
  private readonly item = this.register(vscode.window.createStatusBarItem('agentGuard.status', vscode.StatusBarAlignment.Left, 50));
  private readonly pending = this.register(new Coalescer(() => this.render(), updateDelayMs));
  private scope: MonitorScope | undefined;
  private liveMs = 0;
  /** Times the item was recomputed (the integration tests check a burst is batched). */
  private renders = 0;
  private visible = true;

  constructor() {
    super();
    this.item.name = 'Agent Session Guard';
    this.item.command = `${viewIds.sessions}.focus`;
    this.item.text = '$(shield) …';
    this.item.tooltip = 'Agent Session Guard: starting';
    this.item.show();
  }

  /** Coalesced: every finding of a session read from the start asks for an update. */
  update(scope: MonitorScope | undefined, liveMs: number): void {
    this.scope = scope;
    this.liveMs = liveMs;
    this.pending.schedule();
  }

  /** Renders a pending update now, and returns what the item shows (for the integration tests). */
  current(): { text: string; tooltip: string; renders: number; visible: boolean } {
    this.pending.flush();
    return { text: this.item.text, tooltip: typeof this.item.tooltip === 'string' ? this.item.tooltip : '', renders: this.renders, visible: this.visible };
  }

  private render(): void {
    this.renders++;
    const scope = this.scope;
    if (!scope || scope.folders.length === 0) {
      // No folder open: nothing is watched, so nothing to show (the view says how to start).
      this.item.text = '$(shield)';
      this.item.tooltip = 'Agent Session Guard: no folder is open, so no agent session is watched';
      this.item.backgroundColor = undefined;
      this.setVisible(false);
      return;
    }
    this.setVisible(true);
    const counts = countStatus(scope.sessions(), scope.findings(), Date.now(), this.liveMs);
    const { text, tooltip } = statusText(counts);
    this.item.text = text;
    this.item.tooltip = tooltip;
    this.item.backgroundColor = counts.errors > 0 ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
  }

  private setVisible(visible: boolean): void {
    if (visible !== this.visible) {
      this.visible = visible;
      if (visible) {
        this.item.show();
      } else {
        this.item.hide();
      }
    }
  }
}
