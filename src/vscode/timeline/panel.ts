import { promises as fsp } from 'node:fs';
import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import { describeError, type Logger } from '../../core/lib/logger';
import type { NormalizedEvent } from '../../core/model/events';
import { TimelineBuilder } from '../../core/timeline/builder';
import type { TimelineFinding, TimelineHeader, TimelineRef } from '../../core/timeline/model';
import { amplifierWorkingFolder } from '../../io/amplifierFolder';
import type { SessionFollow } from '../../io/liveMonitor';
import { maxRowsPerMessage, webviewMessageSchema, webviewStateSchema, type Header, type HostMessage } from '../../protocol/timeline';
import { reveal } from '../commands/open';
import { webviewPanelIds } from '../ids';
import { Disposable } from '../lifecycle';
import type { MonitorScope } from '../monitors';
import { newNonce, timelineHtml } from './html';
import { readEvents } from './source';
import { Coalescer } from '../coalescer';
import { sessionIdFromPath } from '../../core/model/sessionId';
import { sessionTitle, tabTitle } from '../../core/model/sessionTitle';
import { samePath } from '../../core/classify/paths';
import { agentSettingKeys, enabledAgents, settingsPrefix } from '../../core/config/settings';
import { agentLabels } from '../../core/model/agent';

export const timelineViewType = webviewPanelIds.timeline;

/** Rows sent with `init`; the webview asks for the others as they scroll into view. */
const initialRows = 400;
/** Live updates are coalesced into one message per this many ms. */
const flushDelayMs = 50;
/** Events that may arrive while the transcript is read from disk before the read starts over. */
const maxQueuedEvents = 100_000;

/** Where to take the user when the timeline opens: a transcript line (a finding's). */
export interface TimelineFocus {
  line: number;
  callId?: string;
}

/**
 * The session timelines: one panel per transcript, revealed when asked for again, and restored
 * by VS Code when the window is reloaded or opened again. The composition root owns this (its
 * panels go with the extension) and hands it each new monitor scope.
 */
export class TimelinePanels extends Disposable {
  private readonly panels = new Map<string, TimelinePanel>();
  private scope: MonitorScope | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: Logger,
  ) {
    super();
    try {
      this.register({
        dispose: () => {
          for (const p of [...this.panels.values()]) {
            p.dispose();
          }
        },
      });
      // Without a serializer VS Code keeps no webview panel across a reload: the timelines the
      // user had open were gone.
      this.register(vscode.window.registerWebviewPanelSerializer(timelineViewType, { deserializeWebviewPanel: (panel, state) => this.revive(panel, state) }));
    } catch (e) {
      this.abandon(e);
    }
  }

  show(file: string, focus?: TimelineFocus): void {
    if (this.isDisposed) {
      return;
    }
    const open = this.panels.get(file);
    if (open) {
      open.show(focus);
      return;
    }
    this.open(file, focus);
  }

  private open(file: string, focus: TimelineFocus | undefined, restored?: vscode.WebviewPanel): void {
    const panel = new TimelinePanel(file, this.extensionUri, this.log, focus, () => this.panels.delete(file), restored);
    this.panels.set(file, panel);
    panel.setScope(this.scope);
  }

  /**
   * A panel VS Code restores, with the state its webview last saved: the transcript's path,
   * which came from the webview, so it is shown only if it names a file (a transcript gone since
   * closes the panel, as does a state of another shape).
   */
  private async revive(panel: vscode.WebviewPanel, state: unknown): Promise<void> {
    const parsed = webviewStateSchema.safeParse(state);
    const file = parsed.success ? parsed.data.path : undefined;
    if (file === undefined || !nodePath.isAbsolute(file) || !(await isFile(file)) || this.isDisposed) {
      panel.dispose();
      return;
    }
    const open = this.panels.get(file);
    if (open) {
      panel.dispose();
      open.show();
      return;
    }
    this.open(file, undefined, panel);
  }

  /** The monitors were rebuilt (settings, folders): every panel follows the new ones. */
  setScope(scope: MonitorScope | undefined): void {
    this.scope = scope;
    for (const p of this.panels.values()) {
      p.setScope(scope);
    }
  }
}

/**
 * One session's timeline. The model is built host-side from the transcript (read again from
 * disk up to where the live monitor is, then followed live); the webview only draws it. The
 * webview is an untrusted client: every message from it is validated, and nothing is posted
 * to it before it said `ready`.
 */
class TimelinePanel extends Disposable {
  private readonly panel: vscode.WebviewPanel;
  private scope: MonitorScope | undefined;
  private scopeSubscriptions: vscode.Disposable[] = [];
  private follow: SessionFollow | undefined;
  /** The session's size and last activity as the monitor had them when the timeline was last read. */
  private loadedStamp: string | undefined;
  private builder = new TimelineBuilder();
  /** Bumped by every (re)load; events and reads of an older load are dropped. */
  private generation = 0;
  private loaded = false;
  private ready = false;
  private readonly pending = new Coalescer(() => this.flush(), flushDelayMs);
  private sentFindings = '';
  private focus: TimelineFocus | undefined;

  constructor(
    readonly file: string,
    extensionUri: vscode.Uri,
    private readonly log: Logger,
    focus: TimelineFocus | undefined,
    onDispose: () => void,
    /** A panel VS Code restored, to show the timeline in instead of a new one. */
    restored?: vscode.WebviewPanel,
  ) {
    super();
    this.focus = focus;
    const media = vscode.Uri.joinPath(extensionUri, 'media');
    const options = { enableScripts: true, localResourceRoots: [media] };
    if (restored) {
      restored.webview.options = options;
    }
    this.panel =
      restored ??
      vscode.window.createWebviewPanel(
        timelineViewType,
        // Named after the session once it is known (updateTitle); a truncated UUID said nothing.
        'Session Timeline',
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
        options,
      );
    this.register({ dispose: onDispose });
    this.register(this.panel);
    // A tab icon is drawn as an image, where currentColor is black: activity.svg (which the
    // activity bar uses as a mask) was all but invisible on a dark or high-contrast tab bar.
    this.panel.iconPath = { light: vscode.Uri.joinPath(media, 'timeline-light.svg'), dark: vscode.Uri.joinPath(media, 'timeline-dark.svg') };
    this.register(this.panel.onDidDispose(() => this.dispose()));
    this.register(this.panel.webview.onDidReceiveMessage((m: unknown) => this.onMessage(m)));
    this.register(
      this.panel.onDidChangeViewState(() => {
        // A hidden webview is torn down; it says `ready` again when it comes back.
        if (!this.panel.visible) {
          this.ready = false;
        }
      }),
    );
    this.register({
      dispose: () => {
        this.generation++;
        this.follow?.dispose();
        this.follow = undefined;
        this.disposeSubscriptions();
        this.pending.dispose();
      },
    });
    this.panel.webview.html = timelineHtml(this.panel.webview, media, newNonce());
  }

  show(focus?: TimelineFocus): void {
    this.panel.reveal(undefined, false);
    if (focus) {
      this.focus = focus;
      this.revealFocus();
    }
  }

  private disposeSubscriptions(): void {
    for (const d of this.scopeSubscriptions) {
      d.dispose();
    }
    this.scopeSubscriptions = [];
  }

  setScope(scope: MonitorScope | undefined): void {
    this.disposeSubscriptions();
    this.scope = scope;
    this.scopeSubscriptions = scope
      ? [
          scope.onDidChangeFindings(() => this.schedule()),
          scope.onDidChangeSessions(() => {
            // The monitors of a new scope find the session a little later; a session rewritten
            // whole (a legacy Gemini document), which no monitor follows event by event, is
            // read again when it changed.
            if (!this.follow && scope.monitorOf(this.file) && this.stamp() !== this.loadedStamp) {
              void this.load();
            }
            this.updateTitle();
          }),
        ]
      : [];
    void this.load();
  }

  /**
   * (Re)builds the model: follows the session's live events first, then reads the part of
   * the transcript the monitor had already read; events that arrive meanwhile wait in a queue.
   */
  private async load(): Promise<void> {
    const generation = ++this.generation;
    this.loadedStamp = this.stamp();
    this.follow?.dispose();
    let queue: NormalizedEvent[] | undefined = [];
    let overflow = false;
    const follow = this.scope?.monitorOf(this.file)?.followSession(this.file, (e) => {
      if (generation !== this.generation) {
        return;
      }
      if (!queue) {
        this.onEvent(e);
      } else if (queue.length < maxQueuedEvents) {
        queue.push(e);
      } else {
        overflow = true;
      }
    });
    this.follow = follow;
    const builder = new TimelineBuilder();
    try {
      // The working folder the monitor reads the file with; for a file not followed, the one
      // the files beside it name now (Amplifier's, see amplifierWorkingFolder).
      const opts = follow
        ? { upTo: follow.consumedBytes, agent: follow.forcedAgent, end: false, cwd: follow.cwd }
        : { end: true, cwd: await amplifierWorkingFolder(this.file) };
      const agent = await readEvents(this.file, opts, (e) => builder.add(e));
      // Named as the sessions view and the pickers name it: by the monitor's summary, else as
      // the monitor would (the id a transcript without one has from its path).
      const known = this.scope?.monitorOf(this.file)?.session(this.file);
      const kind = agent ?? known?.agent;
      builder.noteSession(kind, known?.sessionId ?? (kind !== undefined ? sessionIdFromPath(this.file, kind) : undefined));
    } catch (e) {
      this.log.warn(`[timeline] cannot read ${this.file}: ${describeError(e)}`);
    }
    if (generation !== this.generation) {
      return;
    }
    if (overflow) {
      void this.load();
      return;
    }
    this.builder = builder;
    this.updateTitle();
    const waiting = queue;
    queue = undefined;
    this.loaded = true;
    for (const e of waiting) {
      if (!this.onEvent(e)) {
        return;
      }
    }
    this.sendInit();
  }

  private stamp(): string | undefined {
    const s = this.scope?.monitorOf(this.file)?.session(this.file);
    return s ? `${s.bytes}:${s.lastActivity}` : undefined;
  }

  /** A live event; false when it started a reload (the transcript is being read anew). */
  private onEvent(e: NormalizedEvent): boolean {
    if (e.at.line < this.builder.lastLine) {
      void this.load();
      return false;
    }
    this.builder.add(e);
    this.schedule();
    return true;
  }

  private onMessage(raw: unknown): void {
    const parsed = webviewMessageSchema.safeParse(raw);
    if (!parsed.success) {
      this.log.warn(`[timeline] ignored an invalid message from the timeline webview`);
      return;
    }
    const m = parsed.data;
    switch (m.type) {
      case 'ready':
        this.ready = true;
        this.sendInit();
        return;
      case 'open':
        void this.openLine(m.line);
        return;
      case 'requestRows':
        if (this.ready && this.loaded) {
          this.post({ type: 'rows', from: m.from, rows: this.builder.rows(m.from, m.to) });
        }
        return;
    }
  }

  private sendInit(): void {
    if (!this.ready || !this.loaded || this.isDisposed) {
      return;
    }
    const b = this.builder;
    const target = this.focusTarget();
    const from = target ? Math.max(0, Math.min(target.row - initialRows / 4, b.total - initialRows)) : 0;
    const { findings, leftOut } = this.findings();
    this.post({
      type: 'init',
      path: this.file,
      header: this.header(b.header),
      total: b.total,
      from,
      rows: b.rows(from, from + initialRows),
      edges: [...b.edges],
      findings,
      ...(leftOut > 0 ? { findingsLeftOut: leftOut } : {}),
    });
    b.markSent();
    this.sentFindings = JSON.stringify([findings, leftOut]);
    this.revealFocus();
  }

  private schedule(): void {
    if (!this.isDisposed) {
      this.pending.schedule();
    }
  }

  /** Posts what changed since the last message: new and changed rows, new edges, the findings if they changed. */
  private flush(): void {
    if (!this.ready || !this.loaded) {
      return;
    }
    const delta = this.builder.takeDelta();
    if (delta) {
      // Over the rows a message carries (a large session read at once), in several: one over
      // the protocol's bounds is dropped whole by the webview. The edges go with the first.
      const header = this.header(delta.header);
      for (let i = 0; i === 0 || i < delta.rows.length; i += maxRowsPerMessage) {
        this.post({ type: 'append', header, total: delta.total, rows: delta.rows.slice(i, i + maxRowsPerMessage), edges: i === 0 ? delta.edges : [] });
      }
    }
    const { findings, leftOut } = this.findings();
    const key = JSON.stringify([findings, leftOut]);
    if (key !== this.sentFindings) {
      this.sentFindings = key;
      this.post({ type: 'findings', findings, ...(leftOut > 0 ? { findingsLeftOut: leftOut } : {}) });
    }
    this.revealFocus();
  }

  private findings(): { findings: TimelineFinding[]; leftOut: number } {
    return this.builder.attachBounded(this.scope?.findingsFor(this.file) ?? []);
  }

  private focusTarget(): TimelineRef | undefined {
    const f = this.focus;
    return f && f.line <= this.builder.lastLine ? this.builder.locate(f.line, f.callId) : undefined;
  }

  /** Takes the webview to the element of the pending focus, once it exists there. */
  private revealFocus(): void {
    if (!this.ready || !this.loaded) {
      return;
    }
    const target = this.focusTarget();
    if (target) {
      this.focus = undefined;
      this.post({ type: 'reveal', ref: target });
    }
  }

  /**
   * The session's title as the sessions view shows it (the live monitor's summary, which may
   * know it before this timeline has read that far), else as the timeline read it.
   */
  private title(h: TimelineHeader): string | undefined {
    const s = this.scope?.monitorOf(this.file)?.session(this.file);
    return sessionTitle({ title: s?.title ?? h.title, firstPrompt: s?.firstPrompt ?? h.firstPrompt });
  }

  /** Names the tab after the session as soon as it is known, whether or not the webview is ready. */
  private updateTitle(): void {
    const h = this.builder.header;
    const tab = `Timeline: ${tabTitle(this.title(h) ?? h.sessionId ?? nodePath.basename(this.file, '.jsonl'))}`;
    if (!this.isDisposed && this.panel.title !== tab) {
      this.panel.title = tab;
    }
  }

  private header(h: TimelineHeader): Header {
    const title = this.title(h);
    this.updateTitle();
    return {
      agent: h.agent,
      ...(h.sessionId !== undefined ? { sessionId: h.sessionId.slice(0, 400) } : {}),
      ...(title !== undefined ? { title: title.slice(0, 400) } : {}),
      ...(h.cwd !== undefined ? { cwd: h.cwd.slice(0, 4000) } : {}),
      file: nodePath.basename(this.file),
      live: this.follow !== undefined,
      ...this.unchecked(h),
      stats: { ...h.stats },
      ...(h.edgesLeftOut !== undefined ? { edgesLeftOut: h.edgesLeftOut } : {}),
    };
  }

  /**
   * A session of an agent turned off in the settings: no monitor follows it, so it has no
   * findings now. The timeline still shows the transcript (the user opened it), and says why
   * it shows no findings, instead of "no findings".
   */
  private unchecked(h: TimelineHeader): { unchecked?: string } {
    if (h.agent === 'unknown' || !this.scope || enabledAgents(this.scope.settings)[h.agent]) {
      return {};
    }
    return { unchecked: `not checked: ${agentLabels[h.agent]} is turned off in the settings (${settingsPrefix}.${agentSettingKeys[h.agent]})` };
  }

  private post(message: HostMessage): void {
    void this.panel.webview.postMessage(message);
  }

  /**
   * Opens the transcript at a line, beside the timeline: in another editor group when there
   * is one, else in a new group to its side. Opened in the timeline's own group it would
   * cover the timeline the user is reading from.
   */
  private async openLine(line: number): Promise<void> {
    if (line > Math.max(this.builder.lastLine, 1)) {
      return;
    }
    const own = this.panel.viewColumn;
    const others = vscode.window.tabGroups.all.filter((g) => g.viewColumn !== own);
    // The group that already shows the transcript, so that a second click does not open a second copy.
    const showing = others.find((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputText && samePath(t.input.uri.fsPath, this.file)));
    const other = showing ?? others[0];
    await reveal(vscode.Uri.file(this.file), new vscode.Range(line - 1, 0, line - 1, 0), other?.viewColumn ?? vscode.ViewColumn.Beside);
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await fsp.stat(path)).isFile();
  } catch {
    return false;
  }
}
