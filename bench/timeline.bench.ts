/**
 * Session timeline benchmark.
 *
 *   npm run bench:timeline                                builds, then runs with the defaults
 *   node out/bench/timeline.bench.js --events 10000 --screenshot /tmp/timeline.png
 *   node out/bench/timeline.bench.js --bundle /tmp/timeline.min.js   measure another build of the webview
 *   node out/bench/timeline.bench.js --profile | --trace FILE         where the webview's time goes
 *
 * 1. Model (extension host side): generates a Claude Code session of N events (default 10,000:
 *    prompts, parallel batches of one to five calls, late and duplicate results, stale edits,
 *    compactions), parses it, then times TimelineBuilder over its events (best of 7) and
 *    measures the heap the model keeps when built from the transcript as a panel does; also
 *    the size of the `init` message the host posts.
 * 2. Webview: loads media/dist/timeline.js (or --bundle) and media/timeline.css into headless
 *    Chromium through playwright-core, in a page that stands in for the webview
 *    (acquireVsCodeApi; host messages by window.postMessage, as VS Code delivers them). Once
 *    the webview says `ready`, the bench posts `init` and measures the time to the first paint
 *    of the rows (the webview's own `timeline-first-paint` mark), the JS heap it added (CDP
 *    Performance.getMetrics after a forced GC), the DOM size, the animation-frame intervals
 *    while scrolling continuously, and how long rows take to show after a jump. Three
 *    scenarios: the host's way (the first 400 rows, the rest on request), every row of the
 *    N-event session in `init`, and an `init` of 10,000 rows (from a longer session).
 *
 * Timings depend on the machine and its load: each is the best of several runs (--repeat).
 * Results are printed as a table (progress on stderr) and written to bench/results/timeline.json.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { chromium, type Page } from 'playwright-core';
import type { NormalizedEvent } from '../src/core/model/events';
import type { Finding } from '../src/core/model/finding';
import { adapters } from '../src/core/parse/registry';
import { TranscriptParser } from '../src/core/parse/transcript';
import { allRules } from '../src/core/rules/all';
import { TranscriptStream } from '../src/core/engine/stream';
import { TimelineBuilder } from '../src/core/timeline/builder';
import type { HostMessage } from '../src/protocol/timeline';
import { hostMessageSchema } from '../src/protocol/timeline';
import { ClaudeTranscript } from '../test/unit/support/claude';
import { prng } from '../test/unit/support/run';

const { values: args } = parseArgs({
  options: {
    events: { type: 'string', default: '10000' },
    rows: { type: 'string', default: '10000' },
    screenshot: { type: 'string' },
    out: { type: 'string' },
    chromium: { type: 'string', default: process.env.CHROMIUM ?? '/usr/bin/chromium' },
    'no-webview': { type: 'boolean', default: false },
    /** The webview bundle to load (default media/dist/timeline.js), e.g. a production build elsewhere. */
    bundle: { type: 'string' },
    /** Measured runs of each webview scenario; each timing is the best of them. */
    repeat: { type: 'string', default: '3' },
    /** CPU-profile the page during init and scrolling; prints the functions with the most time. */
    profile: { type: 'boolean', default: false },
    /** Write a Chrome trace (devtools.timeline) of the first scenario's init and scrolling to this file. */
    trace: { type: 'string' },
  },
});

const repoRoot = ((): string => {
  for (let d = __dirname; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'package.json')) && fs.existsSync(path.join(d, 'media'))) {
      return d;
    }
    if (path.dirname(d) === d) {
      return process.cwd();
    }
  }
})();

const progress = (m: string): void => void process.stderr.write(`[bench:timeline] ${m}\n`);
const cwd = '/home/dev/proj';
/** The rows the host puts in `init` (src/vscode/timeline/panel.ts). */
const initialRows = 400;

const gc = ((): (() => void) => {
  v8.setFlagsFromString('--expose-gc');
  const fn: unknown = vm.runInNewContext('gc');
  return typeof fn === 'function' ? () => (fn as () => void)() : () => {};
})();

// ---------------------------------------------------------------------------------------------
// 1. A generated session and its model

/** A Claude Code session of about `events` events, deterministic (seeded). */
function generate(events: number): string {
  const rnd = prng(42);
  const t = new ClaudeTranscript('bbbbbbbb-0000-4000-8000-00000000beef', cwd);
  const files = Array.from({ length: 80 }, (_, i) => `${cwd}/src/module${i}.ts`);
  const content = (i: number): string => `export const v${i} = ${i};\nexport const w = 2;\n`;
  let n = 0;
  const id = (): string => `toolu_${String(++n).padStart(10, '0')}`;
  for (let turn = 0; t.lines.length < events; turn++) {
    t.user(`Prompt ${turn}: change module ${turn % files.length} and run the tests`);
    if (turn > 0 && turn % 150 === 0) {
      t.compact();
      t.user('This session is being continued from a previous conversation.');
    }
    const steps = 2 + Math.floor(rnd() * 4);
    for (let s = 0; s < steps; s++) {
      const msg = `msg_${turn}_${s}`;
      const width = 1 + Math.floor(rnd() * 5);
      const calls: { id: string; kind: 'read' | 'bash' | 'grep'; file: string }[] = [];
      for (let c = 0; c < width; c++) {
        const kind = (['read', 'bash', 'grep'] as const)[Math.floor(rnd() * 3)]!;
        const file = files[Math.floor(rnd() * files.length)]!;
        const call = { id: id(), kind, file };
        calls.push(call);
        if (kind === 'read') {
          t.call(msg, call.id, 'Read', { file_path: file });
        } else if (kind === 'bash') {
          t.call(msg, call.id, 'Bash', { command: 'npm test' });
        } else {
          t.call(msg, call.id, 'Grep', { pattern: 'TODO', path: cwd });
        }
      }
      const late = width > 1 && rnd() < 0.08 ? calls.pop() : undefined;
      for (const call of calls) {
        if (call.kind === 'read') {
          t.readResult(call.id, call.file, content(1));
        } else {
          t.result(call.id, 'ok');
        }
      }
      if (rnd() < 0.02 && calls[0]) {
        t.result(calls[0].id, 'again');
      }
      t.say(`${msg}_t`, 'Looking at the results');
      if (late) {
        t.result(late.id, 'finally');
      }
      const read = calls.find((c) => c.kind === 'read');
      if (read && rnd() < 0.5) {
        // Mostly edits of what was read; now and then of a file that changed unseen (stale).
        const original = rnd() < 0.1 ? content(2) : content(1);
        t.edit(`${msg}_e`, id(), read.file, original, 'export const w = 2;', 'export const w = 3;');
      }
    }
    t.say(`msg_${turn}_done`, 'Done.');
  }
  return t.text();
}

function parse(text: string): { events: NormalizedEvent[]; findings: Finding[] } {
  const events: NormalizedEvent[] = [];
  const findings = new Map<string, Finding>();
  const stream = new TranscriptStream({
    file: '/tmp/bench-timeline.jsonl',
    adapters,
    rules: allRules,
    mode: 'batch',
    sink: { add: (f) => findings.set(f.id, f), retract: (id) => findings.delete(id) },
    observe: (e) => events.push(e),
  });
  stream.push(new TextEncoder().encode(text));
  stream.end();
  return { events, findings: [...findings.values()] };
}

interface ModelFigures {
  events: number;
  lines: number;
  rows: number;
  edges: number;
  lanes: number;
  findings: number;
  buildMs: number;
  /** The same events through a fresh parser (what the panel does on opening: read from disk). */
  reparseAndBuildMs: number;
  heapBytes: number;
  initBytes: number;
  allRowsInitBytes: number;
}

/** Builds the model `rounds` times; the fastest round (the machine may be busy with other work). */
function timeBuild(events: readonly NormalizedEvent[], findings: readonly Finding[], rounds: number): number {
  let best = Infinity;
  for (let round = 0; round < rounds; round++) {
    const t0 = performance.now();
    const b = new TimelineBuilder();
    for (const e of events) {
      b.add(e);
    }
    b.attach(findings);
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

/** Parses the transcript again and builds the model from it: what opening a panel costs. */
function timeReparse(text: string, rounds: number): number {
  const bytes = new TextEncoder().encode(text);
  let best = Infinity;
  for (let round = 0; round < rounds; round++) {
    const t0 = performance.now();
    const b = new TimelineBuilder();
    const parser = new TranscriptParser({ file: '/tmp/bench-timeline.jsonl', adapters, emit: (e) => b.add(e), agent: 'claude-code' });
    parser.push(bytes);
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

function buildModel(text: string): { figures: ModelFigures; builder: TimelineBuilder; findings: Finding[] } {
  const { events, findings } = parse(text);
  timeBuild(events.slice(0, 2000), findings, 3); // warm-up
  const buildMs = timeBuild(events, findings, 7);
  const reparseAndBuildMs = timeReparse(text, 3);
  // The heap the model keeps: built from the transcript's bytes as a panel does, no event kept.
  const bytes = new TextEncoder().encode(text);
  const before = heapUsed();
  const builder = new TimelineBuilder();
  new TranscriptParser({ file: '/tmp/bench-timeline.jsonl', adapters, emit: (e) => builder.add(e), agent: 'claude-code' }).push(bytes);
  const heapBytes = heapUsed() - before;
  const init = initMessage(builder, findings, initialRows);
  const all = initMessage(builder, findings, builder.total);
  const lanes = builder.rows().reduce((n, r) => n + (r.kind === 'batch' || r.kind === 'results' ? r.lanes.length : 0), 0);
  return {
    builder,
    findings,
    figures: {
      events: events.length,
      lines: builder.lastLine,
      rows: builder.total,
      edges: builder.edges.length,
      lanes,
      findings: findings.length,
      buildMs,
      reparseAndBuildMs,
      heapBytes,
      initBytes: JSON.stringify(init).length,
      allRowsInitBytes: JSON.stringify(all).length,
    },
  };
}

function initMessage(b: TimelineBuilder, findings: readonly Finding[], rows: number): HostMessage {
  const msg: HostMessage = {
    type: 'init',
    path: `${cwd}/bench.jsonl`,
    header: { agent: b.header.agent, sessionId: b.header.sessionId, title: 'Benchmark session', cwd, file: 'bench.jsonl', live: true, stats: { ...b.header.stats } },
    total: b.total,
    from: 0,
    rows: b.rows(0, rows),
    edges: [...b.edges],
    findings: b.attach(findings),
  };
  if (!hostMessageSchema.safeParse(msg).success) {
    throw new Error('the init message does not fit the protocol');
  }
  return msg;
}

// ---------------------------------------------------------------------------------------------
// 2. The webview in Chromium

interface WebviewFigures {
  scenario: string;
  rowsInInit: number;
  totalRows: number;
  /** Navigation start → the webview said `ready` (bundle loaded, parsed, run). */
  readyMs: number;
  /** `init` posted → rows painted. */
  initToFirstPaintMs: number;
  /** `init` posted → rows in the DOM (message delivered, validated, rendered). */
  initToRenderedMs: number;
  /** Navigation start → rows painted, without the host's round trip. */
  firstPaintMs: number;
  firstContentfulPaintMs: number | undefined;
  /** JS heap after first paint minus before `init` (after GC both times). */
  heapAddedBytes: number;
  heapUsedBytes: number;
  domNodes: number;
  renderedRows: number;
  /** Animation frame intervals while scrolling continuously (16.7 ms = 60 fps). */
  scrollFrames: number;
  scrollFrameMedianMs: number;
  scrollFrameP95Ms: number;
  scrollFrameMaxMs: number;
  /** Frames that took longer than two 60 Hz frames. */
  scrollLongFrames: number;
  /** Jump to another place in the list → its rows shown (median and max of 20). */
  jumpMedianMs: number;
  jumpMaxMs: number;
  /** Measured runs the figures are the best of. */
  runs: number;
  /** Rows in the DOM at most while scrolling (virtualization keeps this flat). */
  maxRenderedRows: number;
  requestRows: number;
}

interface Marks {
  ready: number;
  posted: number;
  /** The rows are in the DOM (synchronously after init was validated and rendered). */
  rendered: number;
  painted: number;
  fcp: number | undefined;
}

/** What the page script below puts on `window.__bench` (called from page.evaluate). */
interface BenchPage {
  __bench: {
    ready: boolean;
    requests: number;
    rows: unknown[] | null;
    post(message: unknown): void;
    painted(): boolean;
    marks(): Marks;
    renderedRows(): number;
    scroll(): Promise<{ intervals: number[]; jumps: number[]; maxRows: number }>;
  };
}

/**
 * The stand-in for VS Code's webview page: acquireVsCodeApi (answering requestRows from
 * `__bench.rows`), host messages by window.postMessage, and the in-page measurements.
 */
const fakeHost = `
window.__bench = {
  ready: false,
  requests: 0,
  rows: null,
  post: function (m) { performance.mark('init-posted'); window.postMessage(m, '*'); },
  painted: function () { return performance.getEntriesByName('timeline-first-paint').length > 0; },
  marks: function () {
    var at = function (name) { var e = performance.getEntriesByName(name)[0]; return e ? e.startTime : NaN; };
    var fcp = performance.getEntriesByType('paint').filter(function (p) { return p.name === 'first-contentful-paint'; })[0];
    return { ready: at('ready'), posted: at('init-posted'), rendered: at('timeline-rendered'), painted: at('timeline-first-paint'), fcp: fcp ? fcp.startTime : undefined };
  },
  renderedRows: function () { return document.querySelectorAll('.row').length; },
  // 1. Continuous scrolling, 240 px (five rows) a frame, for up to 300 frames: the intervals
  //    between animation frames say how smooth it is (16.7 ms at 60 Hz).
  // 2. Jumps to 20 places across the list: the time until the rows there are shown (with
  //    paging, that includes asking the host for them).
  scroll: async function () {
    var vp = document.querySelector('.viewport');
    var frame = function () { return new Promise(function (r) { requestAnimationFrame(function () { r(); }); }); };
    var maxRows = 0;
    var count = function () { var n = document.querySelectorAll('.row').length; if (n > maxRows) { maxRows = n; } };
    vp.scrollTop = 0;
    await frame();
    await frame();
    var stamps = [];
    await new Promise(function (resolve) {
      var step = function (ts) {
        stamps.push(ts);
        count();
        vp.scrollTop += 240;
        if (stamps.length < 300 && vp.scrollTop < vp.scrollHeight - vp.clientHeight) { requestAnimationFrame(step); } else { resolve(); }
      };
      requestAnimationFrame(step);
    });
    var intervals = [];
    for (var i = 1; i < stamps.length; i++) { intervals.push(stamps[i] - stamps[i - 1]); }
    var jumps = [];
    for (var j = 0; j < 20; j++) {
      var t0 = performance.now();
      vp.scrollTop = ((vp.scrollHeight - vp.clientHeight) * ((j * 7) % 20)) / 19;
      do { await frame(); } while (document.querySelector('.row-loading') && performance.now() - t0 < 5000);
      jumps.push(performance.now() - t0);
      count();
    }
    return { intervals: intervals, jumps: jumps, maxRows: maxRows };
  },
};
window.acquireVsCodeApi = function () {
  return {
    postMessage: function (m) {
      if (m && m.type === 'ready') { performance.mark('ready'); window.__bench.ready = true; }
      if (m && m.type === 'requestRows' && window.__bench.rows) {
        window.__bench.requests++;
        window.postMessage({ type: 'rows', from: m.from, rows: window.__bench.rows.slice(m.from, m.to) }, '*');
      }
    },
    getState: function () { return undefined; },
    setState: function () {},
  };
};`;


function pageHtml(dir: string, bundle: string): string {
  fs.writeFileSync(path.join(dir, 'host.js'), fakeHost);
  fs.copyFileSync(path.join(repoRoot, 'media', 'timeline.css'), path.join(dir, 'timeline.css'));
  fs.copyFileSync(bundle, path.join(dir, 'timeline.js'));
  // The theme variables VS Code would set (Dark Modern).
  const theme = `:root{--vscode-editor-background:#1f1f1f;--vscode-editor-foreground:#cccccc;--vscode-font-family:system-ui,sans-serif;--vscode-font-size:13px;--vscode-editor-font-family:monospace;--vscode-descriptionForeground:#9d9d9d;--vscode-errorForeground:#f85149;--vscode-editorWarning-foreground:#cca700;--vscode-charts-green:#89d185;--vscode-charts-blue:#3794ff;--vscode-charts-orange:#d18616;--vscode-charts-purple:#b180d7;--vscode-focusBorder:#0078d4;--vscode-textLink-foreground:#4daafc;--vscode-panel-border:#2b2b2b;--vscode-list-hoverBackground:#2a2d2e;--vscode-editorWidget-background:#202020}`;
  fs.writeFileSync(path.join(dir, 'theme.css'), theme);
  const html = `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8">
<link rel="stylesheet" href="theme.css"><link rel="stylesheet" href="timeline.css">
<script src="host.js"></script></head>
<body><div id="app" class="app" aria-busy="true"></div><script src="timeline.js"></script></body></html>`;
  const file = path.join(dir, 'index.html');
  fs.writeFileSync(file, html);
  return file;
}

/**
 * What the browser alone achieves here: the same scrolling over a static page of as many plain
 * rows (no script but the measuring one), for comparison with the timeline's frame intervals.
 */
async function baselineScroll(page: Page, dir: string, rows: number): Promise<{ median: number; p95: number; long: number; frames: number }> {
  const body = Array.from({ length: rows }, (_, i) => `<div class="row" style="top:${i * 48}px">Row ${i} — plain text of about the same length as a lane</div>`).join('');
  const html = `<!DOCTYPE html><html><head><meta charset="UTF-8"><link rel="stylesheet" href="theme.css"><style>
html,body{height:100%;margin:0;overflow:hidden;background:var(--vscode-editor-background);color:var(--vscode-editor-foreground);font-family:var(--vscode-font-family)}
.viewport{height:100vh;overflow:auto;position:relative}.row{position:absolute;left:0;right:0;height:48px;line-height:48px;padding-left:188px}
</style><script src="host.js"></script></head><body><div class="viewport"><div style="height:${rows * 48}px"></div>${body}</div></body></html>`;
  const file = path.join(dir, 'baseline.html');
  fs.writeFileSync(file, html);
  await page.goto(`file://${file}`);
  const scroll = await page.evaluate(() => (globalThis as unknown as BenchPage).__bench.scroll());
  const sorted = [...scroll.intervals].sort((a, b) => a - b);
  return {
    frames: sorted.length,
    median: sorted[Math.floor(sorted.length / 2)] ?? NaN,
    p95: sorted[Math.floor(sorted.length * 0.95)] ?? NaN,
    long: sorted.filter((x) => x > 2 * (1000 / 60)).length,
  };
}

async function metrics(page: Page): Promise<Record<string, number>> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  await cdp.send('HeapProfiler.collectGarbage');
  const { metrics: list } = await cdp.send('Performance.getMetrics');
  await cdp.detach();
  return Object.fromEntries(list.map((m) => [m.name, m.value]));
}

async function runWebview(page: Page, url: string, scenario: string, init: HostMessage & { type: 'init' }, allRows: unknown[], trace?: string): Promise<WebviewFigures> {
  await page.goto(url);
  await page.waitForFunction(() => (globalThis as unknown as BenchPage).__bench.ready);
  await page.evaluate((rows) => {
    (globalThis as unknown as BenchPage).__bench.rows = rows;
  }, allRows);
  const before = await metrics(page);
  const profiler = args.profile ? await page.context().newCDPSession(page) : undefined;
  if (profiler) {
    await profiler.send('Profiler.enable');
    await profiler.send('Profiler.setSamplingInterval', { interval: 100 });
    await profiler.send('Profiler.start');
  }
  if (trace) {
    await page.context().browser()?.startTracing(page, { path: trace, categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing'] });
  }
  await page.evaluate((m) => (globalThis as unknown as BenchPage).__bench.post(m), init);
  await page.waitForFunction(() => (globalThis as unknown as BenchPage).__bench.painted(), undefined, { timeout: 60_000 });
  const marks = await page.evaluate(() => (globalThis as unknown as BenchPage).__bench.marks());
  const after = await metrics(page);
  const renderedRows = await page.evaluate(() => (globalThis as unknown as BenchPage).__bench.renderedRows());
  const scroll = await page.evaluate(() => (globalThis as unknown as BenchPage).__bench.scroll());
  const requests = await page.evaluate(() => (globalThis as unknown as BenchPage).__bench.requests);
  if (trace) {
    await page.context().browser()?.stopTracing();
    progress(`trace ${trace}`);
  }
  if (profiler) {
    const { profile } = await profiler.send('Profiler.stop');
    await profiler.detach();
    printProfile(scenario, profile);
  }
  const sorted = [...scroll.intervals].sort((a, b) => a - b);
  const jumps = [...scroll.jumps].sort((a, b) => a - b);
  return {
    scenario,
    rowsInInit: init.rows.length,
    totalRows: init.total,
    readyMs: marks.ready,
    initToFirstPaintMs: marks.painted - marks.posted,
    initToRenderedMs: marks.rendered - marks.posted,
    firstPaintMs: marks.ready + (marks.painted - marks.posted),
    firstContentfulPaintMs: marks.fcp,
    heapAddedBytes: (after.JSHeapUsedSize ?? 0) - (before.JSHeapUsedSize ?? 0),
    heapUsedBytes: after.JSHeapUsedSize ?? 0,
    domNodes: after.Nodes ?? 0,
    renderedRows,
    scrollFrames: sorted.length,
    scrollFrameMedianMs: sorted[Math.floor(sorted.length / 2)] ?? NaN,
    scrollFrameP95Ms: sorted[Math.floor(sorted.length * 0.95)] ?? NaN,
    scrollFrameMaxMs: sorted[sorted.length - 1] ?? NaN,
    scrollLongFrames: sorted.filter((x) => x > 2 * (1000 / 60)).length,
    jumpMedianMs: jumps[Math.floor(jumps.length / 2)] ?? NaN,
    jumpMaxMs: jumps[jumps.length - 1] ?? NaN,
    runs: 1,
    maxRenderedRows: scroll.maxRows,
    requestRows: requests,
  };
}

// ---------------------------------------------------------------------------------------------

const ms = (n: number | undefined): string => (n === undefined || Number.isNaN(n) ? '—' : `${n.toFixed(1)} ms`);
const mb = (n: number): string => `${(n / 1e6).toFixed(2)} MB`;

/** Each timing the best (lowest) of the runs; counts and sizes from the first. */
function best(runs: readonly WebviewFigures[]): WebviewFigures {
  const first = runs[0]!;
  const min = (k: keyof WebviewFigures): number => Math.min(...runs.map((r) => r[k] as number));
  return {
    ...first,
    readyMs: min('readyMs'),
    initToFirstPaintMs: min('initToFirstPaintMs'),
    initToRenderedMs: min('initToRenderedMs'),
    firstPaintMs: min('firstPaintMs'),
    heapAddedBytes: min('heapAddedBytes'),
    heapUsedBytes: min('heapUsedBytes'),
    scrollFrameMedianMs: min('scrollFrameMedianMs'),
    scrollFrameP95Ms: min('scrollFrameP95Ms'),
    scrollFrameMaxMs: min('scrollFrameMaxMs'),
    scrollLongFrames: min('scrollLongFrames'),
    jumpMedianMs: min('jumpMedianMs'),
    jumpMaxMs: min('jumpMaxMs'),
    runs: runs.length,
  };
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples?: number[];
  timeDeltas?: number[];
}

function printProfile(scenario: string, profile: CpuProfile): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  (profile.samples ?? []).forEach((id, i) => {
    const f = byId.get(id)?.callFrame;
    const key = f ? `${f.functionName || '(anonymous)'} ${path.basename(f.url)}:${f.lineNumber + 1}` : '?';
    self.set(key, (self.get(key) ?? 0) + (profile.timeDeltas?.[i] ?? 0));
  });
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15);
  progress(`profile of ${scenario}:\n${top.map(([k, us]) => `  ${(us / 1000).toFixed(1).padStart(8)} ms  ${k}`).join('\n')}`);
}

/** Which build of the webview was measured: `npm run bench:timeline` builds the development one. */
function bundleInfo(file: string): string {
  const text = fs.readFileSync(file, 'utf8');
  const dev = text.includes('sourceMappingURL=data:');
  return `${path.basename(file)} ${(Buffer.byteLength(text) / 1024).toFixed(0)} KB, ${dev ? 'development build (inline source map)' : 'production build'}`;
}

type Model = ReturnType<typeof buildModel>;

let baseline: { median: number; p95: number; long: number; frames: number } | undefined;

async function webviewScenarios(bundle: string, session: Model, big: Model, nRows: number): Promise<WebviewFigures[]> {
  const m = session.figures;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'timeline-bench-'));
  const url = `file://${pageHtml(dir, bundle)}`;
  const browser = await chromium.launch({ executablePath: args.chromium, headless: true, args: ['--no-sandbox', '--disable-gpu', '--headless'] });
  const results: WebviewFigures[] = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('pageerror', (e) => progress(`page error: ${e.message}`));
    const scenarios: [string, typeof session, number][] = [
      [`${m.events.toLocaleString('en-US')} events, paged (host: first ${initialRows} rows)`, session, initialRows],
      [`${m.events.toLocaleString('en-US')} events, every row in init`, session, session.builder.total],
      [`${big.figures.events.toLocaleString('en-US')} events, ${nRows.toLocaleString('en-US')} rows in init`, big, nRows],
    ];
    for (const [name, s, rows] of scenarios) {
      // Warm-up load (disk cache, Chromium's code cache), then the measured ones.
      const init = initMessage(s.builder, s.findings, rows) as HostMessage & { type: 'init' };
      await runWebview(page, url, name, init, s.builder.rows());
      const runs: WebviewFigures[] = [];
      for (let i = 0; i < Math.max(1, Number(args.repeat)); i++) {
        progress(`webview: ${name} (run ${i + 1})`);
        runs.push(await runWebview(page, url, name, init, s.builder.rows(), results.length === 0 && i === 0 ? args.trace : undefined));
      }
      results.push(best(runs));
      if (args.screenshot && results.length === 1) {
        await page.evaluate(() => (globalThis as unknown as { document: { querySelector(s: string): { scrollTop: number } | null } }).document.querySelector('.viewport')!.scrollTop = 0);
        await page.waitForTimeout(100);
        await page.screenshot({ path: args.screenshot });
        progress(`screenshot ${args.screenshot}`);
      }
      if (results.length === 1) {
        const base = [];
        for (let i = 0; i < Math.max(1, Number(args.repeat)); i++) {
          base.push(await baselineScroll(page, dir, s.builder.total));
        }
        baseline = { ...base[0]!, median: Math.min(...base.map((b) => b.median)), p95: Math.min(...base.map((b) => b.p95)), long: Math.min(...base.map((b) => b.long)) };
      }
    }
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

async function main(): Promise<void> {
  const bundle = path.resolve(args.bundle ?? path.join(repoRoot, 'media', 'dist', 'timeline.js'));
  if (!fs.existsSync(bundle)) {
    throw new Error(`${bundle} is missing: run \`node esbuild.config.mjs\` first`);
  }
  const nEvents = Number(args.events);
  const nRows = Number(args.rows);
  progress(`generating a ${nEvents}-event session`);
  const session = buildModel(generate(nEvents));
  const m = session.figures;
  progress(`model: ${m.events} events → ${m.rows} rows, ${m.lanes} lanes, ${m.edges} edges, ${m.findings} findings`);
  // A longer session whose model has at least `rows` rows, for the 10,000-row init.
  let big = session;
  for (let n = nEvents; !args['no-webview'] && big.builder.total < nRows; n = Math.ceil((n * nRows) / Math.max(big.builder.total, 1)) + 500) {
    progress(`generating a ${n}-event session for ${nRows} rows`);
    big = buildModel(generate(n));
  }

  const results = args['no-webview'] ? [] : await webviewScenarios(bundle, session, big, nRows);
  const out = [
    '',
    `Session timeline — model (extension host, Node ${process.version})`,
    `  session           ${m.events.toLocaleString('en-US')} events, ${m.lines.toLocaleString('en-US')} lines → ${m.rows.toLocaleString('en-US')} rows, ${m.lanes.toLocaleString('en-US')} lanes, ${m.edges.toLocaleString('en-US')} edges, ${m.findings} findings`,
    `  build model       ${ms(m.buildMs)} (best of 7; events already parsed)`,
    `  re-read + build   ${ms(m.reparseAndBuildMs)} (best of 3; parse the transcript again and build: what opening a panel costs)`,
    `  model heap        ${mb(m.heapBytes)}`,
    `  init message      ${mb(m.initBytes)} with the first ${initialRows} rows; ${mb(m.allRowsInitBytes)} with all ${m.rows} rows`,
    '',
    `Session timeline — webview (headless Chromium; ${bundleInfo(bundle)}; each timing the best of ${results[0]?.runs ?? 0} runs)`,
    ...results.flatMap((r) => [
      `  ${r.scenario}`,
      `    first paint       ${ms(r.initToFirstPaintMs)} after init (rows in the DOM after ${ms(r.initToRenderedMs)}; webview ready at ${ms(r.readyMs)} from navigation; FCP ${ms(r.firstContentfulPaintMs)})`,
      `    JS heap           ${mb(r.heapUsedBytes)} in use, ${mb(r.heapAddedBytes)} added by init (rows cached: ${r.rowsInInit.toLocaleString('en-US')} of ${r.totalRows.toLocaleString('en-US')})`,
      `    DOM               ${r.domNodes} nodes, ${r.renderedRows} rows rendered after first paint; at most ${r.maxRenderedRows} rows while scrolling`,
      `    scrolling         ${r.scrollFrames} frames at 240 px/frame: interval median ${ms(r.scrollFrameMedianMs)}, p95 ${ms(r.scrollFrameP95Ms)}, max ${ms(r.scrollFrameMaxMs)}; ${r.scrollLongFrames} over 33 ms`,
      `    jumps             rows shown ${ms(r.jumpMedianMs)} after a jump (median of 20; max ${ms(r.jumpMaxMs)}; ${r.requestRows} requestRows in all)`,
    ]),
    ...(baseline
      ? [
          `  baseline: the same scrolling over a static page of ${session.builder.total.toLocaleString('en-US')} plain rows, no timeline code`,
          `    scrolling         ${baseline.frames} frames: interval median ${ms(baseline.median)}, p95 ${ms(baseline.p95)}; ${baseline.long} over 33 ms`,
        ]
      : []),
    '',
  ];
  process.stdout.write(out.join('\n'));
  const file = args.out ?? path.join(repoRoot, 'bench', 'results', 'timeline.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ model: m, bigModel: big.figures, webview: results, baseline, node: process.version, cpus: os.cpus()[0]?.model, load: os.loadavg() }, null, 2)}\n`);
  progress(`results in ${path.relative(process.cwd(), file)}`);
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
