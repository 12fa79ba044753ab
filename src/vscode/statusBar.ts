import * as vscode from 'vscode';
import { productName, viewIds } from './ids';
import { Disposable } from './lifecycle';
import type { MonitorScope } from './monitors';
import { Coalescer } from './coalescer';
import { countStatus, statusText, type StatusCounts } from './statusSummary';

/** Like the sessions view's refresh: soon enough to feel live, late enough to batch a burst. */
const updateDelayMs = 100;

/** What the item shows, for the integration tests. */
export interface StatusSnapshot {
  text: string;
  tooltip: string;
  ariaLabel: string;
  /** Coloured as an error (see statusText). */
  alert: boolean;
  counts: StatusCounts | undefined;
  renders: number;
  visible: boolean;
}

/**
 * Live sessions and the findings that need attention now, at a glance; a click focuses the
 * sessions view. Hidden until the workspace has a session: "0 live" in every window with a
 * folder said nothing.
 */
export class StatusBar extends Disposable {
  private readonly item = this.register(vscode.window.createStatusBarItem('agentGuard.status', vscode.StatusBarAlignment.Left, 50));
  private readonly pending = this.register(new Coalescer(() => this.render(), updateDelayMs));
  private scope: MonitorScope | undefined;
  private liveMs = 0;
  /** Times the item was recomputed (the integration tests check a burst is batched). */
  private renders = 0;
  private visible = true;
  private counts: StatusCounts | undefined;

  /** `since`: when this window started watching (see `isCurrent`). */
  constructor(private readonly since: number) {
    super();
    this.item.name = productName;
    this.item.command = `${viewIds.sessions}.focus`;
    this.item.text = '$(shield) …';
    this.item.tooltip = `${productName}: starting`;
    this.item.accessibilityInformation = { label: this.item.tooltip };
    this.item.show();
  }

  /** Coalesced: every finding of a session read from the start asks for an update. */
  update(scope: MonitorScope | undefined, liveMs: number): void {
    this.scope = scope;
    this.liveMs = liveMs;
    this.pending.schedule();
  }

  /** Renders a pending update now, and returns what the item shows (for the integration tests). */
  current(): StatusSnapshot {
    this.pending.flush();
    return {
      text: this.item.text,
      tooltip: typeof this.item.tooltip === 'string' ? this.item.tooltip : '',
      ariaLabel: this.item.accessibilityInformation?.label ?? '',
      alert: this.item.backgroundColor !== undefined,
      counts: this.counts,
      renders: this.renders,
      visible: this.visible,
    };
  }

  private render(): void {
    this.renders++;
    const scope = this.scope;
    if (!scope || scope.folders.length === 0) {
      // No folder open: nothing is watched, so nothing to show (the view says how to start).
      this.item.text = '$(shield)';
      this.item.tooltip = `${productName}: no folder is open, so no agent session is watched`;
      this.item.accessibilityInformation = { label: this.item.tooltip };
      this.item.backgroundColor = undefined;
      this.counts = undefined;
      this.setVisible(false);
      return;
    }
    const counts = countStatus(scope.sessions(), scope.findings(), Date.now(), this.liveMs, this.since);
    this.counts = counts;
    const view = statusText(counts);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.accessibilityInformation = { label: view.ariaLabel };
    this.item.backgroundColor = view.alert ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.setVisible(counts.sessions > 0);
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
