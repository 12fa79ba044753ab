/**
 * The timeline webview's view: a virtualized list of fixed-height rows (only the visible ones
 * are in the DOM), lanes for the calls of each batch, SVG arrows for the edges between the
 * visible rows, findings as rule chips. It renders what the host computed and runs no core
 * logic; every string in it is transcript text, set as text.
 */
import type { Edge, Header, HostMessage, Lane, Ref, Row, TimelineFindingMessage, WebviewMessage } from '../../protocol/timeline';
import { append, h, setAttr, setText, svg } from './dom';
import { edgePath, laneWidth, rowHeight, rowWidth, visibleWindow, laneLeft, type Window } from './geometry';

/** Rows are asked of the host in aligned chunks of this many. */
const chunkRows = 200;
/**
 * Arrows are drawn for the rows of whole chunks of this many around the visible ones, so the
 * arrow layer is redrawn when scrolling crosses a chunk, not on every frame.
 */
const edgeChunkRows = 64;
/**
 * The most arrows drawn at once. A call answered 10,000 times has 10,000 arrows, all touching its
 * row: drawn whenever that row was near the view, they left the whole window unresponsive (its
 * clicks and screenshots timed out). Over the cap, an arrow with both ends near the view comes
 * first; the others wait until their far end is scrolled to.
 */
const maxArrowsDrawn = 1_000;
/**
 * Rows are put in the DOM and taken out in blocks of this many: the DOM changes only when
 * scrolling reaches another block, and the frames in between are plain scrolls.
 */
const blockRows = 16;

const statusText: Record<Lane['status'], string> = {
  ok: 'ok',
  error: 'error',
  pending: 'pending',
  missing: 'missing',
  late: 'late',
  duplicate: 'duplicate',
  orphan: 'orphan',
};

const statusHelp: Record<Lane['status'], string> = {
  ok: 'its result came in the next message',
  error: 'its result came in the next message, as an error',
  pending: 'no result yet',
  missing: 'the conversation moved on without its result',
  late: 'its result came, but not in the message right after the call',
  duplicate: 'more than one result, or a call id used twice',
  orphan: 'a result for no known call',
};

const edgeHelp: Record<Edge['kind'], string> = {
  hb: 'read before write',
  late: 'late result → its call',
  duplicate: 'duplicate result → its call',
};

export interface ViewHost {
  post(message: WebviewMessage): void;
  saveScroll(scrollTop: number): void;
}

export class TimelineView {
  private header: Header | undefined;
  private total = 0;
  private readonly rows = new Map<number, Row>();
  /** Bumped whenever a row's content (or its findings) changes, to re-render it. */
  private readonly versions = new Map<number, number>();
  private edges: Edge[] = [];
  private readonly edgesByRow = new Map<number, Edge[]>();
  private findings: TimelineFindingMessage[] = [];
  private readonly findingsByRow = new Map<number, TimelineFindingMessage[]>();
  private readonly rendered = new Map<number, { el: HTMLElement; version: number }>();
  /** The blocks in the DOM, by block index (row / blockRows). */
  private readonly blocks = new Map<number, HTMLElement>();
  private readonly requested = new Set<number>();
  private widest = 1;
  private frame = 0;
  private painted = false;
  private focused: Ref | undefined;
  /**
   * The list's one Tab stop (roving tabindex): the focused row or lane, else the first row in
   * view. Every row used to be a stop, so Tab walked through thousands of them; arrows move
   * between rows and lanes instead. A lane that is the stop makes its jump links stops too,
   * so Tab reaches a call's result (and a result's call) and Enter opens it.
   */
  private tabStop: HTMLElement | undefined;
  private nextFinding = 0;
  private arrowSize = { width: 0, height: 0 };
  /** What the arrow layer shows: rows [first, last] as of `version` (bumped when edges, findings or width change). */
  private arrowsDrawn = { first: -1, last: -1, version: -1 };
  private arrowsVersion = 0;
  /**
   * Tooltips of rows and lanes, set as their `title` when the pointer or the focus first
   * reaches them: building thousands of tooltips nobody reads would cost every scrolled frame.
   */
  private readonly tips = new WeakMap<Element, () => string>();

  private readonly titleEl = h('strong', { class: 'title' });
  private readonly subtitleEl = h('span', { class: 'subtitle' });
  private readonly statsEl = h('span', { class: 'stats', 'aria-live': 'polite' });
  /** What the host left out of a session too large for the timeline (see leftOutText); hidden when nothing. */
  private readonly leftOutEl = h('span', { class: 'left-out', role: 'status' });
  private findingsLeftOut = 0;
  // Not "live": the sessions view and the status bar call a session live when it was written in the
  // last minutes; this says the timeline follows the file, whatever the session's age.
  private readonly liveEl = h('span', { class: 'live', title: 'Follows the session: what it writes next appears here' }, 'following');
  private readonly nextEl = h('button', { class: 'next', type: 'button', title: 'Next finding (n)' }, 'Next finding');
  readonly viewport = h('div', { class: 'viewport', role: 'list', 'aria-label': 'Session timeline', tabindex: -1 });
  private readonly canvas = h('div', { class: 'canvas' });
  private readonly arrows = svg('svg', { class: 'edges', 'aria-hidden': 'true', focusable: 'false' });
  private readonly arrowGroup = svg('g');
  private readonly empty = h('div', { class: 'empty' }, 'Reading the session…');

  constructor(
    private readonly root: HTMLElement,
    private readonly host: ViewHost,
    private readonly initialScroll: number | undefined,
  ) {
    const bar = h('header', { class: 'bar' });
    append(bar, append(h('div', { class: 'heading' }), this.titleEl, this.subtitleEl), this.statsEl, this.leftOutEl, legend(), this.nextEl, this.liveEl);
    this.leftOutEl.hidden = true;
    append(this.arrows, arrowDefs(), this.arrowGroup);
    append(this.canvas, this.arrows);
    append(this.viewport, this.canvas);
    append(root, bar, this.viewport, this.empty);
    this.viewport.addEventListener('scroll', () => this.schedule(), { passive: true });
    this.viewport.addEventListener('click', (e) => this.onClick(e));
    this.viewport.addEventListener('keydown', (e) => this.onKey(e));
    this.viewport.addEventListener('focusin', (e) => this.onFocus(e));
    this.viewport.addEventListener('mouseover', (e) => this.showTip(e.target));
    this.nextEl.addEventListener('click', () => this.revealNextFinding());
    root.ownerDocument.addEventListener('keydown', (e) => {
      if (e.key === 'n' && !e.ctrlKey && !e.metaKey && !e.altKey) {
        this.revealNextFinding();
      }
    });
    root.ownerDocument.defaultView?.addEventListener('resize', () => this.schedule());
  }

  handle(m: HostMessage): void {
    switch (m.type) {
      case 'init': {
        this.arrowsVersion++;
        this.rows.clear();
        this.versions.clear();
        this.requested.clear();
        this.clearRendered();
        this.total = m.total;
        this.widest = 1;
        this.store(m.from, m.rows);
        this.setEdges(m.edges);
        this.findingsLeftOut = m.findingsLeftOut ?? 0;
        this.setFindings(m.findings);
        this.setHeader(m.header);
        this.layout();
        if (!this.painted && this.initialScroll !== undefined) {
          this.viewport.scrollTop = this.initialScroll;
        }
        this.render();
        this.markFirstPaint();
        return;
      }
      case 'append': {
        const follow = this.atBottom();
        this.total = m.total;
        for (const { index, row } of m.rows) {
          this.put(index, row);
        }
        this.addEdges(m.edges);
        this.setHeader(m.header);
        this.layout();
        if (follow) {
          this.viewport.scrollTop = this.viewport.scrollHeight;
        }
        this.schedule();
        return;
      }
      case 'rows': {
        this.store(m.from, m.rows);
        // Every chunk the answer covers may be asked for again (an empty answer included).
        const last = m.from + Math.max(m.rows.length, 1) - 1;
        for (let c = Math.floor(m.from / chunkRows); c <= Math.floor(last / chunkRows); c++) {
          this.requested.delete(c);
        }
        if (m.rows.length > 0) {
          // (Nothing to show for an empty one: asking again at once would only repeat it.)
          this.layout();
          this.schedule();
        }
        return;
      }
      case 'findings':
        this.findingsLeftOut = m.findingsLeftOut ?? 0;
        this.setFindings(m.findings);
        this.updateStats();
        this.schedule();
        return;
      case 'reveal':
        this.reveal(m.ref);
        return;
    }
  }

  // ---- state ------------------------------------------------------------------------

  private store(from: number, rows: readonly Row[]): void {
    rows.forEach((row, i) => this.put(from + i, row));
  }

  private put(index: number, row: Row): void {
    if (index >= this.total) {
      return;
    }
    this.rows.set(index, row);
    this.bump(index);
    if ((row.kind === 'batch' || row.kind === 'results') && row.lanes.length > this.widest) {
      this.widest = row.lanes.length;
      this.arrowsVersion++;
    }
  }

  private bump(index: number): void {
    this.versions.set(index, (this.versions.get(index) ?? 0) + 1);
  }

  private setEdges(edges: readonly Edge[]): void {
    this.edges = [];
    this.edgesByRow.clear();
    this.addEdges(edges);
  }

  private addEdges(edges: readonly Edge[]): void {
    this.arrowsVersion++;
    for (const e of edges) {
      this.edges.push(e);
      for (const row of new Set([e.from.row, e.to.row])) {
        const list = this.edgesByRow.get(row);
        if (list) {
          list.push(e);
        } else {
          this.edgesByRow.set(row, [e]);
        }
      }
    }
  }

  private setFindings(findings: readonly TimelineFindingMessage[]): void {
    this.arrowsVersion++;
    for (const row of this.findingsByRow.keys()) {
      this.bump(row);
    }
    this.findings = [...findings];
    this.findingsByRow.clear();
    for (const f of findings) {
      if (f.row === undefined) {
        continue;
      }
      const list = this.findingsByRow.get(f.row);
      if (list) {
        list.push(f);
      } else {
        this.findingsByRow.set(f.row, [f]);
      }
      this.bump(f.row);
    }
    this.nextFinding = Math.min(this.nextFinding, Math.max(0, this.findings.length - 1));
    this.nextEl.hidden = !this.findings.some((f) => f.row !== undefined);
  }

  private setHeader(header: Header): void {
    this.header = header;
    setText(this.titleEl, header.title ?? header.sessionId ?? header.file);
    // The title is the session's words; its id stays at hand, in the tooltip and the subtitle
    // (once: a Claude Code transcript's file name is the id).
    setAttr(this.titleEl, 'title', header.sessionId !== undefined ? `${header.title ?? ''}\nSession ${header.sessionId}`.trim() : header.title ?? '');
    const id = header.sessionId !== undefined && !header.file.includes(header.sessionId) ? `session ${header.sessionId}` : undefined;
    // A session whose agent recorded no working folder (an Amplifier session whose files beside
    // its transcript name none) says so, rather than leaving the place of the folder to guess.
    const folder = header.cwd ?? (header.agent !== 'unknown' ? 'no working folder recorded' : undefined);
    const subtitle = [agentLabel(header.agent), id, header.file, folder].filter(Boolean).join(' · ');
    setText(this.subtitleEl, subtitle);
    setAttr(this.subtitleEl, 'title', subtitle);
    this.liveEl.hidden = !header.live;
    this.updateStats();
  }

  private updateStats(): void {
    const s = this.header?.stats;
    if (!s) {
      return;
    }
    const bySeverity = { error: 0, warning: 0, info: 0 };
    for (const f of this.findings) {
      bySeverity[f.severity]++;
    }
    const parts = [plural(s.turns, 'turn'), plural(s.messages, 'message'), plural(s.calls, 'call'), plural(s.lines, 'line')];
    const found = (['error', 'warning', 'info'] as const).filter((k) => bySeverity[k] > 0).map((k) => plural(bySeverity[k], k));
    // A session not checked now has no findings to count: "no findings" would say it is clean.
    const verdict = this.header?.unchecked ?? (found.length > 0 ? found.join(' · ') : 'no findings');
    setText(this.statsEl, [...parts, verdict].join(' · '));
    const leftOut = leftOutText(this.findingsLeftOut, this.header?.edgesLeftOut ?? 0);
    setText(this.leftOutEl, leftOut);
    this.leftOutEl.hidden = leftOut === '';
  }

  // ---- rendering --------------------------------------------------------------------

  private layout(): void {
    this.canvas.style.height = `${this.total * rowHeight}px`;
    this.canvas.style.width = `${rowWidth(this.widest)}px`;
    this.empty.hidden = this.total > 0;
    setText(this.empty, this.header ? 'Nothing in this session yet.' : 'Reading the session…');
  }

  private schedule(): void {
    if (this.frame !== 0) {
      return;
    }
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  /**
   * Puts the rows around the visible ones in the DOM (whole blocks of them, nothing else), then
   * the arrows between them.
   */
  render(): void {
    // Read the layout once, before any change: reading it after would force a second layout.
    const scrollTop = this.viewport.scrollTop;
    const win = visibleWindow(scrollTop, this.viewport.clientHeight || 600, this.total);
    const firstBlock = Math.floor(win.first / blockRows);
    const lastBlock = win.last < win.first ? -1 : Math.floor(win.last / blockRows);
    for (const [b, el] of this.blocks) {
      if (b < firstBlock || b > lastBlock) {
        el.remove();
        this.blocks.delete(b);
        for (let i = b * blockRows; i < (b + 1) * blockRows; i++) {
          this.rendered.delete(i);
        }
      }
    }
    const missing: number[] = [];
    for (let b = firstBlock; b <= lastBlock; b++) {
      let block = this.blocks.get(b);
      const fresh = !block;
      if (!block) {
        block = h('div', { class: 'block' });
        block.style.top = `${b * blockRows * rowHeight}px`;
        block.style.height = `${blockRows * rowHeight}px`;
        this.blocks.set(b, block);
      }
      for (let i = b * blockRows; i < Math.min(this.total, (b + 1) * blockRows); i++) {
        const row = this.rows.get(i);
        if (!row) {
          missing.push(i);
        }
        const version = row ? (this.versions.get(i) ?? 0) : -1;
        const have = this.rendered.get(i);
        if (have && have.version === version) {
          continue;
        }
        const el = row ? this.rowElement(i, row) : placeholder(i);
        el.style.top = `${(i - b * blockRows) * rowHeight}px`;
        if (have) {
          have.el.replaceWith(el);
        } else {
          block.appendChild(el);
        }
        this.rendered.set(i, { el, version });
      }
      if (fresh) {
        // Filled first, inserted once.
        this.canvas.appendChild(block);
      }
    }
    this.request(missing);
    this.drawEdges(win);
    this.updateTabStop();
    this.restoreFocus();
    this.host.saveScroll(scrollTop);
  }

  private clearRendered(): void {
    for (const el of this.blocks.values()) {
      el.remove();
    }
    this.blocks.clear();
    this.rendered.clear();
  }

  private request(missing: readonly number[]): void {
    for (const c of new Set(missing.map((i) => Math.floor(i / chunkRows)))) {
      if (this.requested.has(c)) {
        continue;
      }
      this.requested.add(c);
      this.host.post({ type: 'requestRows', from: c * chunkRows, to: Math.min(this.total, (c + 1) * chunkRows) });
    }
  }

  private rowElement(index: number, row: Row): HTMLElement {
    const prev = this.rows.get(index - 1);
    const findings = this.findingsByRow.get(index) ?? [];
    const rowFindings = findings.filter((f) => f.lane === undefined);
    const severity = worst(findings);
    const el = h('div', {
      class: `row row-${row.kind}${prev && prev.turn !== row.turn ? ' turn-start' : ''}${index % 2 ? ' odd' : ''}`,
      role: 'listitem',
      tabindex: -1,
      'data-row': index,
      'data-line': row.line,
      'data-severity': severity,
      'aria-label': `${rowTitle(row)}, line ${row.line}${spoken(rowFindings)}`,
    });
    this.tips.set(el, () => `${rowTitle(row)} — line ${row.line} (Enter opens it)`);
    const gutter = h('div', { class: 'gutter' });
    append(gutter, h('span', { class: 'line' }, String(row.line)), row.kind === 'prompt' || row.kind === 'reset' ? h('span', { class: 'turn' }, `turn ${row.turn}`) : undefined);
    el.appendChild(gutter);
    const label = h('div', { class: 'label' });
    el.appendChild(label);
    switch (row.kind) {
      case 'prompt':
        append(label, h('span', { class: 'kind' }, 'prompt'));
        el.appendChild(h('div', { class: 'body prompt-text' }, row.text || '(empty prompt)'));
        break;
      case 'text':
        append(label, h('span', { class: 'kind' }, row.role));
        el.appendChild(h('div', { class: 'body muted' }, row.role === 'assistant' ? `message${row.count > 1 ? ` ×${row.count}` : ''}` : `note${row.count > 1 ? ` ×${row.count}` : ''}`));
        break;
      case 'batch':
      case 'results': {
        const n = row.lanes.length;
        append(label, h('span', { class: 'kind' }, row.kind === 'batch' ? (n > 1 ? 'parallel' : 'call') : 'results'), n > 1 ? h('span', { class: 'count' }, `×${n}`) : undefined);
        row.lanes.forEach((lane, i) => el.appendChild(this.laneElement(index, i, lane, findings.filter((f) => f.lane === i))));
        break;
      }
      case 'reset':
        append(label, h('span', { class: 'kind' }, 'reset'));
        el.appendChild(h('div', { class: 'body muted' }, `History reset (${row.reason}): the provider no longer sees what came before`));
        break;
      case 'note':
        append(label, h('span', { class: 'kind' }, row.tone === 'error' ? 'unreadable' : 'note'));
        el.appendChild(h('div', { class: `body ${row.tone === 'error' ? 'error-text' : 'muted'}` }, row.text));
        break;
    }
    if (rowFindings.length > 0) {
      el.appendChild(chips(rowFindings, 'row-rules', 3));
    }
    return el;
  }

  private laneElement(row: number, index: number, lane: Lane, findings: readonly TimelineFindingMessage[]): HTMLElement {
    const el = h('div', {
      class: `lane lane-${lane.kind}`,
      role: 'button',
      tabindex: -1,
      'data-row': row,
      'data-lane': index,
      'data-line': lane.line,
      'data-status': lane.status,
      'data-severity': worst(findings),
      'aria-label': `${lane.tool}, ${statusText[lane.status]}${lane.path !== undefined ? `, ${lane.path}` : ''}, line ${lane.line}${spoken(findings)}`,
    });
    this.tips.set(el, () => laneTip(lane, findings));
    el.style.left = `${laneLeft(index)}px`;
    el.style.width = `${laneWidth}px`;
    const top = h('div', { class: 'lane-top' });
    append(top, h('span', { class: 'status' }, statusText[lane.status]), h('span', { class: 'tool' }, lane.tool));
    if (findings.length > 0) {
      // A lane is a fixed 208 px: a second chip ("missing-result" then "stalled-call") was cut off.
      top.appendChild(chips(findings, 'rules', 1));
    }
    const bottom = h('div', { class: 'lane-bottom' });
    append(bottom, h('span', { class: 'path' }, lane.path ?? (lane.kind === 'call' ? '—' : '')), lane.more ? h('span', { class: 'more' }, `+${lane.more}`) : undefined);
    if (lane.kind === 'call') {
      for (const r of lane.results.slice(0, 3)) {
        bottom.appendChild(h('span', { class: 'jump', 'data-line': r, title: `Open the result (line ${r})`, role: 'link', tabindex: -1 }, `↳${r}`));
      }
    } else if (lane.callLine !== undefined) {
      bottom.appendChild(h('span', { class: 'jump', 'data-line': lane.callLine, title: `Open the call (line ${lane.callLine})`, role: 'link', tabindex: -1 }, `↰${lane.callLine}`));
    }
    append(el, top, bottom);
    return el;
  }

  private drawEdges(win: Window): void {
    if (win.last < win.first) {
      this.arrowGroup.replaceChildren();
      this.arrowsDrawn = { first: -1, last: -1, version: -1 };
      return;
    }
    // Whole chunks around the visible rows, with one chunk to spare on either side.
    const first = Math.max(0, (Math.floor(win.first / edgeChunkRows) - 1) * edgeChunkRows);
    const last = Math.min(this.total - 1, (Math.floor(win.last / edgeChunkRows) + 2) * edgeChunkRows - 1);
    const drawn = this.arrowsDrawn;
    if (drawn.first === first && drawn.last === last && drawn.version === this.arrowsVersion) {
      return;
    }
    this.arrowsDrawn = { first, last, version: this.arrowsVersion };
    const top = first * rowHeight;
    const height = (last - first + 1) * rowHeight;
    const width = rowWidth(this.widest);
    this.arrows.style.top = `${top}px`;
    if (this.arrowSize.width !== width || this.arrowSize.height !== height) {
      this.arrowSize = { width, height };
      setAttr(this.arrows, 'width', width);
      setAttr(this.arrows, 'height', height);
    }
    const near: Edge[] = [];
    const far: Edge[] = [];
    const seen = new Set<Edge>();
    const within = (row: number): boolean => row >= first && row <= last;
    for (let i = first; i <= last; i++) {
      for (const e of this.edgesByRow.get(i) ?? []) {
        if (!seen.has(e)) {
          seen.add(e);
          (within(e.from.row) && within(e.to.row) ? near : far).push(e);
        }
      }
    }
    const paths = [...near, ...far].slice(0, maxArrowsDrawn).map((e) => {
      const flagged = this.flagged(e.to) || (e.kind !== 'hb' && this.flagged(e.from));
      return svg('path', { class: `edge edge-${e.kind}${flagged ? ' flagged' : ''}`, d: edgePath(e, top), 'marker-end': `url(#arrow-${e.kind})` });
    });
    this.arrowGroup.replaceChildren(...paths);
  }

  private flagged(ref: Ref): boolean {
    return (this.findingsByRow.get(ref.row) ?? []).some((f) => f.lane === ref.lane && f.severity !== 'info');
  }

  private markFirstPaint(): void {
    if (this.painted) {
      return;
    }
    this.painted = true;
    performance.mark('timeline-rendered');
    // After the next frame is produced: what the user first sees.
    requestAnimationFrame(() => setTimeout(() => performance.mark('timeline-first-paint'), 0));
  }

  // ---- interaction ------------------------------------------------------------------

  private onClick(e: MouseEvent): void {
    const target = e.target instanceof Element ? e.target.closest('[data-line]') : null;
    if (target) {
      this.open(target);
    }
  }

  private open(el: Element): void {
    const line = Number(el.getAttribute('data-line'));
    if (Number.isInteger(line) && line >= 1) {
      this.host.post({ type: 'open', line });
    }
  }

  private showTip(target: EventTarget | null): void {
    for (let el = target instanceof Element ? target : null; el && el !== this.viewport; el = el.parentElement) {
      const make = this.tips.get(el);
      if (make) {
        this.tips.delete(el);
        setAttr(el, 'title', make());
      }
    }
  }

  private onFocus(e: FocusEvent): void {
    this.showTip(e.target);
    const el = e.target instanceof HTMLElement ? e.target : undefined;
    const row = Number(el?.getAttribute('data-row'));
    if (!el || !Number.isInteger(row)) {
      return;
    }
    const lane = el.getAttribute('data-lane');
    this.focused = lane === null ? { row } : { row, lane: Number(lane) };
    this.updateTabStop();
  }

  private onKey(e: KeyboardEvent): void {
    const el = e.target instanceof HTMLElement ? e.target : undefined;
    const cur = this.focused;
    if (e.key === 'Enter' || e.key === ' ') {
      if (el?.hasAttribute('data-line')) {
        e.preventDefault();
        this.open(el);
      }
      return;
    }
    if (!cur) {
      return;
    }
    const moves: Record<string, () => Ref | undefined> = {
      ArrowDown: () => (cur.row + 1 < this.total ? this.nearest(cur.row + 1, cur.lane) : undefined),
      ArrowUp: () => (cur.row > 0 ? this.nearest(cur.row - 1, cur.lane) : undefined),
      ArrowRight: () => this.nearest(cur.row, (cur.lane ?? -1) + 1),
      ArrowLeft: () => (cur.lane === undefined ? undefined : cur.lane === 0 ? { row: cur.row } : { row: cur.row, lane: cur.lane - 1 }),
      Home: () => (this.total > 0 ? { row: 0 } : undefined),
      End: () => (this.total > 0 ? { row: this.total - 1 } : undefined),
      PageDown: () => (this.total > 0 ? { row: Math.min(this.total - 1, cur.row + this.pageRows()) } : undefined),
      PageUp: () => (this.total > 0 ? { row: Math.max(0, cur.row - this.pageRows()) } : undefined),
    };
    const move = moves[e.key];
    if (!move) {
      return;
    }
    e.preventDefault();
    const next = move();
    if (next) {
      this.reveal(next);
    }
  }

  private pageRows(): number {
    return Math.max(1, Math.floor(this.viewport.clientHeight / rowHeight) - 1);
  }

  /** The lane `lane` of a row, or its last lane, or the row itself. */
  private nearest(row: number, lane: number | undefined): Ref {
    const r = this.rows.get(row);
    const lanes = r && (r.kind === 'batch' || r.kind === 'results') ? r.lanes.length : 0;
    if (lane === undefined || lanes === 0) {
      return { row };
    }
    return { row, lane: Math.min(lane, lanes - 1) };
  }

  /** Scrolls an element into view, renders, and focuses it. */
  reveal(ref: Ref): void {
    if (ref.row >= this.total) {
      return;
    }
    const top = ref.row * rowHeight;
    const vp = this.viewport;
    if (top < vp.scrollTop || top + rowHeight > vp.scrollTop + vp.clientHeight) {
      vp.scrollTop = Math.max(0, top - vp.clientHeight / 2);
    }
    if (ref.lane !== undefined) {
      const left = laneLeft(ref.lane);
      if (left < vp.scrollLeft || left + laneWidth > vp.scrollLeft + vp.clientWidth) {
        vp.scrollLeft = Math.max(0, left - 32);
      }
    }
    this.focused = ref;
    this.render();
    this.focusElement(ref)?.focus({ preventScroll: true });
  }

  private revealNextFinding(): void {
    const placed = this.findings.filter((f) => f.row !== undefined);
    if (placed.length === 0) {
      return;
    }
    const f = placed[this.nextFinding % placed.length]!;
    this.nextFinding = (this.nextFinding + 1) % placed.length;
    this.reveal({ row: f.row!, ...(f.lane !== undefined ? { lane: f.lane } : {}) });
  }

  private focusElement(ref: Ref): HTMLElement | undefined {
    const rowEl = this.rendered.get(ref.row)?.el;
    if (!rowEl) {
      return undefined;
    }
    if (ref.lane === undefined) {
      return rowEl;
    }
    for (const child of Array.from(rowEl.children)) {
      if (child instanceof HTMLElement && child.getAttribute('data-lane') === String(ref.lane)) {
        return child;
      }
    }
    return rowEl;
  }

  private updateTabStop(): void {
    const top = Math.min(this.total - 1, Math.floor(this.viewport.scrollTop / rowHeight));
    const el = (this.focused && this.focusElement(this.focused)) ?? this.rendered.get(top)?.el;
    if (el === this.tabStop && el?.isConnected) {
      return;
    }
    this.setStop(this.tabStop, -1);
    this.tabStop = el;
    this.setStop(el, 0);
  }

  private setStop(el: HTMLElement | undefined, tabindex: 0 | -1): void {
    if (!el) {
      return;
    }
    setAttr(el, 'tabindex', tabindex);
    if (el.classList.contains('lane')) {
      for (const jump of Array.from(el.querySelectorAll('.jump'))) {
        setAttr(jump, 'tabindex', tabindex);
      }
    }
  }

  /** A re-rendered row takes the keyboard focus with it (the old element left the DOM). */
  private restoreFocus(): void {
    const doc = this.root.ownerDocument;
    if (!this.focused || !doc.hasFocus() || (doc.activeElement !== null && doc.activeElement !== doc.body)) {
      return;
    }
    this.focusElement(this.focused)?.focus({ preventScroll: true });
  }

  private atBottom(): boolean {
    const vp = this.viewport;
    return this.total > 0 && vp.scrollTop + vp.clientHeight >= vp.scrollHeight - rowHeight;
  }
}

function laneTip(lane: Lane, findings: readonly TimelineFindingMessage[]): string {
  const where = lane.kind === 'call' ? `call on line ${lane.line}` : `result on line ${lane.line}${lane.callLine ? ` for the call on line ${lane.callLine}` : ''}`;
  return [
    `${lane.tool} — ${statusText[lane.status]}: ${statusHelp[lane.status]}`,
    lane.path !== undefined ? `${lane.path}${lane.more ? ` (+${lane.more} more)` : ''}` : undefined,
    `${where}; id ${lane.callId}`,
    lane.results.length > 0
      ? `result${lane.results.length > 1 ? 's' : ''} on line ${lane.results.join(', ')}${lane.moreResults ? `, and ${plural(lane.moreResults, 'more result')} not listed here` : ''}`
      : undefined,
    ...findings.map((f) => `${f.rule} (${f.severity}): ${f.message}`),
    'Enter or click opens the line',
  ]
    .filter(Boolean)
    .join('\n');
}

function placeholder(index: number): HTMLElement {
  return h('div', { class: 'row row-loading', role: 'listitem', 'data-row': index, 'aria-busy': 'true' }, 'Loading…');
}

/** A chip per finding, the first `max` of them; the rest are a "+N" chip whose tooltip lists them. */
function chips(findings: readonly TimelineFindingMessage[], cls: string, max: number): HTMLElement {
  const box = h('span', { class: cls });
  for (const f of findings.slice(0, max)) {
    box.appendChild(h('span', { class: 'rule', 'data-severity': f.severity, title: `${f.rule} (${f.severity}): ${f.message}` }, f.rule));
  }
  if (findings.length > max) {
    box.appendChild(h('span', { class: 'rule more', title: findings.slice(max).map((f) => `${f.rule}: ${f.message}`).join('\n') }, `+${findings.length - max}`));
  }
  return box;
}

/**
 * The findings as a screen reader says them. A row's or lane's label is all it reads of the
 * element, so the rule chips inside it, the reason the timeline is opened, went unsaid.
 */
function spoken(findings: readonly TimelineFindingMessage[]): string {
  return findings.map((f) => `, ${f.severity} ${f.rule}`).join('');
}

function worst(findings: readonly TimelineFindingMessage[]): string | undefined {
  return findings.some((f) => f.severity === 'error') ? 'error' : findings.some((f) => f.severity === 'warning') ? 'warning' : findings.length > 0 ? 'info' : undefined;
}

function rowTitle(row: Row): string {
  switch (row.kind) {
    case 'prompt':
      return `Turn ${row.turn}: prompt “${row.text}”`;
    case 'text':
      return row.role === 'assistant' ? 'Assistant text' : 'User text (not a prompt)';
    case 'batch':
      return row.lanes.length > 1 ? `Parallel batch of ${row.lanes.length} calls` : 'One call';
    case 'results':
      return `${row.lanes.length} result${row.lanes.length > 1 ? 's' : ''} out of place`;
    case 'reset':
      return `History reset (${row.reason})`;
    case 'note':
      return row.text;
  }
}

function legend(): HTMLElement {
  const box = h('span', { class: 'legend', 'aria-hidden': 'true' });
  for (const s of ['ok', 'error', 'pending', 'missing', 'late', 'duplicate'] as const) {
    box.appendChild(h('span', { class: 'legend-item', 'data-status': s, title: statusHelp[s] }, s));
  }
  for (const k of ['hb', 'late'] as const) {
    box.appendChild(h('span', { class: `legend-edge edge-${k}`, title: edgeHelp[k] }, k === 'hb' ? 'read→write' : 'result→call'));
  }
  return box;
}

function arrowDefs(): SVGElement {
  const defs = svg('defs');
  for (const kind of ['hb', 'late', 'duplicate'] as const) {
    const marker = svg('marker', { id: `arrow-${kind}`, class: `arrowhead edge-${kind}`, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto' });
    marker.appendChild(svg('path', { d: 'M0 0 L10 5 L0 10 z' }));
    defs.appendChild(marker);
  }
  return defs;
}

function agentLabel(agent: string): string {
  const labels: Record<string, string> = { 'claude-code': 'Claude Code', codex: 'Codex CLI', gemini: 'Gemini CLI', amplifier: 'Amplifier' };
  return labels[agent] ?? agent;
}

/**
 * A session over what the timeline carries (100,000 findings, a million arrows): what it does
 * not show, said plainly, and where all of it is. Empty when nothing was left out.
 */
function leftOutText(findings: number, edges: number): string {
  const parts = [
    findings > 0 ? `${plural(findings, 'finding')} not shown (the least severe; the sessions view and agent-guard check list them all)` : undefined,
    edges > 0 ? `${plural(edges, 'arrow')} not drawn` : undefined,
  ].filter(Boolean);
  return parts.length > 0 ? `Too large to show whole: ${parts.join('; ')}.` : '';
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
}
