/**
 * Live-watching benchmark of `agent-guard watch` (the `LiveMonitor` the CLI and the extension
 * share; see bench/README.md).
 *
 *   npm run bench:watch                          default: 200 appends per scenario, 1,000 sessions / 1 GB, 100k-file tree
 *   node out/bench/watch.bench.js --appends 500 --no-memory
 *   node out/bench/watch.bench.js --overflow     also exhaust inotify watches (root, Linux) and see what breaks
 *
 * 1. Latency: appends violating lines (a Claude Code tool_result for an unknown id →
 *    `orphan-result`) to a live transcript watched by a real LiveMonitor (real chokidar, real
 *    folders, working tree watched too) and times append → the finding store announcing the
 *    finding. Interleaved in the same process, appends the same kind of line to a file watched
 *    by a bare `fs.watch` and times append → callback: the floor any watcher pays on this
 *    machine at this moment. Once with the live session alone, once with 1,000 idle sessions
 *    (1 GB) watched at the same time.
 * 2. Memory: in fresh child processes (`--expose-gc`), starts a LiveMonitor on a workspace whose
 *    agent folders hold 1,000 sessions / 1 GB (and 250 / 250 MB) and whose tree has 100,000
 *    files; peak RSS while it reads everything, RSS and heap after a forced GC once it is idle,
 *    time to start. Plus the floor (nothing to watch) and the tree alone (and with --breakdown
 *    the sessions alone); then the full run's heap is attributed by dropping the monitor's parts
 *    one by one (finding store, tree watcher, conversations, file knowledge, rule state, the
 *    rest), a full GC after each.
 * 3. inotify: the per-user watch limit, the watches each run holds, and (--overflow) what
 *    happens when the tree needs more than are left.
 *
 * The corpus and the tree are generated once into $TMPDIR/agent-guard-watch/ and reused.
 * Results go to stdout and to bench/results/watch.json; progress goes to stderr.
 */
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import * as v8 from 'node:v8';
import { encodeClaudeProject } from '../src/core/discovery/locations';
import type { Logger } from '../src/core/lib/logger';
import { LiveMonitor } from '../src/io/liveMonitor';
import type { SessionFileEvent } from '../src/io/sessionWatcher';
import { prng } from '../test/unit/support/run';
import { log, stats, table, type Stats } from './support/report';
import { idTemplate, instantiate, randomUuid, shuffle, type IdTemplate } from './support/seedCopies';

// ---------------------------------------------------------------------------------------------
// Targets and constants

/** p99(append → finding) may exceed p99(append → fs.watch callback) by at most this. */
const latencyTargetMs = 20;
/** Settled RSS of the monitor on 1,000 sessions / 1 GB and the 100k-file tree. */
const memoryTargetBytes = 150 * 2 ** 20;
const MB = 1e6;
const MiB = 2 ** 20;
/** Bump when the corpus layout, the seeds' use or the id rewriting changes: caches are rebuilt. */
const corpusVersion = 1;
const treeVersion = 1;
const minFileBytes = 100 * 1000;
const maxFileBytes = 4 * 1000 * 1000;
const blockFamilies: Family[] = ['claude', 'claude', 'claude', 'subagent', 'subagent', 'subagent', 'codex', 'codex'];
/** Files per leaf folder of the generated tree. */
const filesPerDir = 50;
/** Idle sessions are this old (mtime), so they are not "recently active" for the monitor's sweep. */
const idleAgeMs = 2 * 24 * 3600 * 1000;

/** The checkout: the first directory above this script that holds bench/seed (else the cwd). */
const repoRoot = ((): string => {
  for (let d = __dirname; ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, 'bench', 'seed', 'SOURCES.md'))) {
      return d;
    }
    if (path.dirname(d) === d) {
      return process.cwd();
    }
  }
})();
const selfScript = __filename;
const cacheRoot = path.join(os.tmpdir(), 'agent-guard-watch');
/** The workspace: `src/` (a few small files) and `repo/` (the big tree). Its path is in every generated session's cwd. */
const workspace = path.join(cacheRoot, 'ws');

type Family = 'claude' | 'subagent' | 'codex';
const families: Family[] = ['claude', 'subagent', 'codex'];

interface SeedDef {
  key: string;
  /** Relative to the repository. */
  rel: string;
  family: Family;
  weight: number;
}

const seedDefs: SeedDef[] = [
  { key: 'tool_heavy', rel: 'bench/seed/claude-code/spotter/tool_heavy.jsonl', family: 'claude', weight: 3 },
  { key: 'short', rel: 'bench/seed/claude-code/spotter/short.jsonl', family: 'claude', weight: 1 },
  // A long real main session (2.7 MB: Edit×67, compaction, Task, hook progress lines): only in files that big.
  { key: 'long_main', rel: 'test/fixtures/real/claude-code/spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl', family: 'claude', weight: 2 },
  {
    key: 'subagent',
    rel: 'bench/seed/claude-code/spotter/6c2214d7-b87e-4432-8e41-22ba294ea584/subagents/agent-afc096d.jsonl',
    family: 'subagent',
    weight: 1,
  },
  {
    key: 'subagent_errors',
    rel: 'test/fixtures/real/claude-code/spotter/4d5611e5-241a-462a-8d15-5122611a9569/subagents/agent-a2898e3.jsonl',
    family: 'subagent',
    weight: 1,
  },
  {
    key: 'rollout',
    rel: 'bench/seed/codex/claude-code-log/sessions/2026/01/02/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl',
    family: 'codex',
    weight: 3,
  },
  { key: 'escalation', rel: 'bench/seed/codex/kvsankar-agent-history/rejections-codex_with_escalation.jsonl', family: 'codex', weight: 1 },
  { key: 'codex_exec', rel: 'test/fixtures/real/codex/kvsankar-agent-history/real_sessions-codex-session-01.jsonl', family: 'codex', weight: 2 },
  { key: 'codex_compaction', rel: 'test/fixtures/real/codex/kvsankar-agent-history/compaction-codex-session_with_compaction.jsonl', family: 'codex', weight: 1 },
];

// ---------------------------------------------------------------------------------------------
// Command line

type ChildKind = 'latency' | 'memory' | 'overflow';

interface Options {
  appends: number;
  warmup: number;
  gapMs: [number, number];
  sessions: number;
  mb: number;
  treeFiles: number;
  latency: boolean;
  /** Which latency scenarios run. */
  scenarios: ('alone' | 'idle')[];
  /** Passed to the latency runs' LiveMonitor (`sweepMs`); undefined: its default. A diagnostic. */
  sweepMs?: number;
  memory: boolean;
  /** How long a memory child watches idle before its "later" sample. */
  idleMs: number;
  breakdown: boolean;
  heapProfile: boolean;
  overflow: boolean;
  fresh: boolean;
  keep: boolean;
  strict: boolean;
  out: string;
  // Children
  child?: ChildKind;
  home?: string;
  corpus?: string;
  tree?: boolean;
  snapshot?: string;
  attribute?: boolean;
  label?: string;
  /** Only summarise this heap snapshot (e.g. one kept with --keep). */
  summarise?: string;
}

const usage = `usage: node out/bench/watch.bench.js [options]
  --appends N        measured appends per latency scenario (default 200; each also to the fs.watch file)
  --warmup N         appends before measuring (default 20)
  --gap-ms MIN,MAX   random pause after each append (default 60,100); the live file is appended every 2 pauses
  --sessions N       sessions in the corpus (default 1000; a quarter of them for the small memory run)
  --mb N             corpus size in MB (10^6 bytes; default 1000)
  --tree-files N     files in the workspace tree (default 100000)
  --no-latency       skip the latency scenarios
  --idle-seconds N   how long each memory run watches idle before its last sample (default 120:
                     V8 gives the heap the first read left committed back on its own schedule,
                     within one to two minutes; the JSON has RSS every 10 s of it)
  --scenarios LIST   latency scenarios to run: alone,idle (default both)
  --sweep-ms N       the latency runs' monitor sweeps recently active sessions every N ms (default: its own, 2000)
  --no-memory        skip the memory children
  --breakdown        also measure the sessions without the tree (one more child reading the whole corpus)
  --heap-profile     also take heap snapshots of "tree only" and "sessions only" and summarise them
  --overflow         also run the inotify-exhaustion experiment (root on Linux; spawns processes as nobody)
  --fresh            rebuild the cached corpus and tree
  --keep             keep heap snapshots and temp dirs
  --strict           exit 1 when a target is missed
  --out FILE         JSON results (default bench/results/watch.json)
  --summarise-heap FILE   only print the self-size summary of a .heapsnapshot`;

function parseArgs(argv: readonly string[]): Options {
  const o: Options = {
    appends: 200,
    warmup: 20,
    gapMs: [60, 100],
    sessions: 1000,
    mb: 1000,
    treeFiles: 100_000,
    latency: true,
    scenarios: ['alone', 'idle'],
    memory: true,
    idleMs: 120_000,
    breakdown: false,
    heapProfile: false,
    overflow: false,
    fresh: false,
    keep: false,
    strict: false,
    out: path.join(repoRoot, 'bench', 'results', 'watch.json'),
  };
  const value = (i: number, name: string): string => {
    const v = argv[i + 1];
    if (v === undefined) {
      throw new Error(`${name} needs a value`);
    }
    return v;
  };
  const count = (s: string, name: string, min = 1): number => {
    const n = Number(s);
    if (!Number.isInteger(n) || n < min) {
      throw new Error(`${name}: not an integer >= ${min}: ${s}`);
    }
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    switch (a) {
      case '--appends':
        o.appends = count(value(i++, a), a);
        break;
      case '--warmup':
        o.warmup = count(value(i++, a), a, 0);
        break;
      case '--gap-ms': {
        const [lo, hi] = value(i++, a).split(',').map(Number);
        if (lo === undefined || hi === undefined || !(lo >= 0) || !(hi >= lo)) {
          throw new Error(`${a}: MIN,MAX with 0 <= MIN <= MAX`);
        }
        o.gapMs = [lo, hi];
        break;
      }
      case '--sessions':
        o.sessions = count(value(i++, a), a, 4);
        break;
      case '--mb':
        o.mb = count(value(i++, a), a);
        break;
      case '--tree-files':
        o.treeFiles = count(value(i++, a), a, 0);
        break;
      case '--no-latency':
        o.latency = false;
        break;
      case '--scenarios':
        o.scenarios = value(i++, a).split(',').map((x) => {
          if (x !== 'alone' && x !== 'idle') {
            throw new Error(`${a}: alone and/or idle, not ${x}`);
          }
          return x;
        });
        break;
      case '--sweep-ms':
        o.sweepMs = count(value(i++, a), a);
        break;
      case '--no-memory':
        o.memory = false;
        break;
      case '--idle-seconds':
        o.idleMs = count(value(i++, a), a) * 1000;
        break;
      case '--breakdown':
        o.breakdown = true;
        break;
      case '--heap-profile':
        o.heapProfile = true;
        break;
      case '--overflow':
        o.overflow = true;
        break;
      case '--fresh':
        o.fresh = true;
        break;
      case '--keep':
        o.keep = true;
        break;
      case '--strict':
        o.strict = true;
        break;
      case '--out':
        o.out = path.resolve(value(i++, a));
        break;
      case '--child': {
        const c = value(i++, a);
        if (c !== 'latency' && c !== 'memory' && c !== 'overflow') {
          throw new Error(`--child: latency, memory or overflow, not ${c}`);
        }
        o.child = c;
        break;
      }
      case '--home':
        o.home = value(i++, a);
        break;
      case '--corpus':
        o.corpus = value(i++, a);
        break;
      case '--tree':
        o.tree = value(i++, a) === 'on';
        break;
      case '--snapshot':
        o.snapshot = value(i++, a);
        break;
      case '--attribute':
        o.attribute = true;
        break;
      case '--label':
        o.label = value(i++, a);
        break;
      case '--summarise-heap':
        o.summarise = value(i++, a);
        break;
      case '-h':
      case '--help':
        console.log(usage);
        process.exit(0);
        break;
      default:
        throw new Error(`unknown option ${a}\n${usage}`);
    }
  }
  return o;
}

// ---------------------------------------------------------------------------------------------
// Small helpers

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

const gc: () => void = (() => {
  const g = (globalThis as { gc?: () => void }).gc;
  return g ?? (() => {});
})();

/** A full collection, twice (the second one frees what the first one's finalizers released). */
function fullGc(): void {
  gc();
  gc();
}

/** Watches this process holds in its inotify instances (Linux; undefined elsewhere). */
function inotifyWatches(): number | undefined {
  if (process.platform !== 'linux') {
    return undefined;
  }
  try {
    let n = 0;
    for (const fd of fs.readdirSync('/proc/self/fd')) {
      let target: string;
      try {
        target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      } catch {
        continue;
      }
      if (target === 'anon_inode:inotify') {
        const info = fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'latin1');
        for (let at = info.indexOf('inotify wd:'); at !== -1; at = info.indexOf('inotify wd:', at + 1)) {
          n++;
        }
      }
    }
    return n;
  } catch {
    return undefined;
  }
}

function readProcNumber(file: string): number | undefined {
  try {
    const n = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isFinite(n) ? n : undefined;
  } catch {
    return undefined;
  }
}

/** fs.watch handles open in this process. */
function fsWatchHandles(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'FSEventWrap').length;
}

interface CountingLogger extends Logger {
  warnings: number;
  errors: number;
  samples: string[];
  /** Paths named by `watch '…'` in watcher errors (ENOSPC and the like). */
  failedPaths: string[];
}

function countingLogger(keepPaths = false): CountingLogger {
  const l: CountingLogger = {
    warnings: 0,
    errors: 0,
    samples: [],
    failedPaths: [],
    trace: () => {},
    debug: () => {},
    info: () => {},
    warn: (m: string) => {
      l.warnings++;
      note(m);
    },
    error: (m: string | Error) => {
      l.errors++;
      note(typeof m === 'string' ? m : (m.stack ?? m.message));
    },
  };
  const note = (m: string): void => {
    const first = m.split('\n')[0] ?? '';
    if (l.samples.length < 3 && !l.samples.includes(first)) {
      l.samples.push(first);
    }
    const p = keepPaths ? /watch '([^']+)'/.exec(m) : null;
    if (p) {
      l.failedPaths.push(p[1]!);
    }
  };
  return l;
}

function envFor(home: string): { home: string; env: Record<string, string> } {
  return { home, env: { CLAUDE_CONFIG_DIR: path.join(home, 'claude'), CODEX_HOME: path.join(home, 'codex') } };
}

// ---------------------------------------------------------------------------------------------
// Seeds as templates: the text cut at every id, so a copy is a join with fresh ids (as in
// check.bench.ts), and with the seed's working directory replaced by the bench workspace, so
// every copy is a session of that workspace (Codex rollouts are matched by their cwd).

interface Template extends IdTemplate {
  def: SeedDef;
}

function loadTemplate(def: SeedDef, cwd: string): Template {
  return { def, ...idTemplate(fs.readFileSync(path.join(repoRoot, def.rel), 'utf8'), { cwd }) };
}

function availableSeeds(): SeedDef[] {
  return seedDefs.filter((d) => fs.existsSync(path.join(repoRoot, d.rel)));
}

function seedHash(defs: readonly SeedDef[]): string {
  const h = createHash('sha256');
  h.update(`${corpusVersion}|${workspace}|${blockFamilies.join(',')}|${minFileBytes}|${maxFileBytes}|${idleAgeMs}`);
  for (const d of defs) {
    h.update(`${d.rel}|${d.family}|${d.weight}`);
    h.update(fs.readFileSync(path.join(repoRoot, d.rel)));
  }
  return h.digest('hex').slice(0, 16);
}

// ---------------------------------------------------------------------------------------------
// The session corpus: `full/` holds every session, `quarter/` hard links to the first quarter
// (the same mix: files come in blocks of 8 that each span the size range and the families).

interface CorpusFile {
  /** Relative to the home (`full/` or `quarter/`): `claude/projects/<ws>/…` or `codex/sessions/…`. */
  path: string;
  family: Family;
  bytes: number;
}

interface CorpusManifest {
  version: number;
  seedHash: string;
  sessions: number;
  targetBytes: number;
  totalBytes: number;
  quarterSessions: number;
  quarterBytes: number;
  files: CorpusFile[];
}

function corpusDirFor(o: Options): string {
  return path.join(cacheRoot, `corpus-${o.sessions}x${o.mb}`);
}

function readCorpusManifest(dir: string): CorpusManifest | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as CorpusManifest;
  } catch {
    return undefined;
  }
}

function corpusUsable(dir: string, o: Options, hash: string): CorpusManifest | undefined {
  const m = readCorpusManifest(dir);
  if (!m || m.version !== corpusVersion || m.seedHash !== hash || m.sessions !== o.sessions || m.targetBytes !== o.mb * MB) {
    return undefined;
  }
  for (const [i, f] of m.files.entries()) {
    try {
      if (fs.statSync(path.join(dir, 'full', f.path)).size !== f.bytes) {
        return undefined;
      }
      if (i < m.quarterSessions && fs.statSync(path.join(dir, 'quarter', f.path)).size !== f.bytes) {
        return undefined;
      }
    } catch {
      return undefined;
    }
  }
  return m;
}

function generateCorpus(dir: string, o: Options, templates: readonly Template[], hash: string): CorpusManifest {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const rnd = prng(0x3a7c + o.sessions);
  const project = encodeClaudeProject(workspace);
  // Sizes log-spread over [min, max] in stratified blocks, then scaled to the target total.
  const plan: { family: Family; raw: number }[] = [];
  while (plan.length < o.sessions) {
    const n = blockFamilies.length;
    const sizes = shuffle(
      Array.from({ length: n }, (_, i) => Math.exp(Math.log(minFileBytes) + ((i + rnd()) / n) * Math.log(maxFileBytes / minFileBytes))),
      rnd,
    );
    const fams = shuffle([...blockFamilies], rnd);
    for (let b = 0; b < n && plan.length < o.sessions; b++) {
      plan.push({ family: fams[b]!, raw: sizes[b]! });
    }
  }
  const scale = (o.mb * MB) / plan.reduce((s, p) => s + p.raw, 0);
  const byFamily = new Map<Family, Template[]>(families.map((f) => [f, templates.filter((t) => t.def.family === f)]));
  const pick = (family: Family, room: number): Template => {
    const all = byFamily.get(family)!;
    const fit = all.filter((t) => t.bytes <= room);
    if (fit.length === 0) {
      return all.reduce((a, b) => (b.bytes < a.bytes ? b : a));
    }
    let r = rnd() * fit.reduce((s, t) => s + t.def.weight, 0);
    for (const t of fit) {
      r -= t.def.weight;
      if (r < 0) {
        return t;
      }
    }
    return fit[fit.length - 1]!;
  };
  const old = new Date(Date.now() - idleAgeMs);
  const files: CorpusFile[] = [];
  let total = 0;
  plan.forEach((p, i) => {
    const session = randomUuid(rnd);
    const agent = (0x1000000 + i).toString(16).slice(-7);
    const day = String(1 + (i % 28)).padStart(2, '0');
    const rel =
      p.family === 'claude'
        ? `claude/projects/${project}/${session}.jsonl`
        : p.family === 'subagent'
          ? `claude/projects/${project}/${session}/subagents/agent-${agent}.jsonl`
          : `codex/sessions/2026/01/${day}/rollout-2026-01-${day}T03-04-05-${session}.jsonl`;
    const abs = path.join(dir, 'full', rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    const want = p.raw * scale;
    const counter = { n: 0 };
    const fd = fs.openSync(abs, 'w');
    let bytes = 0;
    let batch: string[] = [];
    let batchBytes = 0;
    do {
      const copy = instantiate(pick(p.family, want - bytes), session, agent, counter);
      const size = Buffer.byteLength(copy);
      batch.push(copy);
      batchBytes += size;
      bytes += size;
      if (batchBytes >= 4 * MiB) {
        fs.writeSync(fd, batch.join(''));
        batch = [];
        batchBytes = 0;
      }
    } while (bytes < want);
    fs.writeSync(fd, batch.join(''));
    fs.closeSync(fd);
    fs.utimesSync(abs, old, old);
    files.push({ path: rel, family: p.family, bytes });
    total += bytes;
  });
  const quarterSessions = Math.round(o.sessions / 4);
  let quarterBytes = 0;
  for (const f of files.slice(0, quarterSessions)) {
    const to = path.join(dir, 'quarter', f.path);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    linkOrCopy(path.join(dir, 'full', f.path), to);
    quarterBytes += f.bytes;
  }
  const m: CorpusManifest = { version: corpusVersion, seedHash: hash, sessions: o.sessions, targetBytes: o.mb * MB, totalBytes: total, quarterSessions, quarterBytes, files };
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(m));
  return m;
}

function linkOrCopy(from: string, to: string): void {
  try {
    fs.linkSync(from, to);
  } catch {
    fs.copyFileSync(from, to);
    const st = fs.statSync(from);
    fs.utimesSync(to, st.atime, st.mtime);
  }
}

// ---------------------------------------------------------------------------------------------
// The workspace tree: ws/src (20 small files: the latency runs' workspace, with repo/ ignored)
// and ws/repo/pkg-P/src/mod-M/sub-S/file-F.ts, 50 files per leaf folder.

interface TreeManifest {
  version: number;
  files: number;
  dirs: number;
}

function treeUsable(files: number): TreeManifest | undefined {
  try {
    const m = JSON.parse(fs.readFileSync(path.join(cacheRoot, 'tree.json'), 'utf8')) as TreeManifest;
    if (m.version !== treeVersion || m.files !== files) {
      return undefined;
    }
    // Spot checks: the first and the last file, and the small workspace files.
    const leaf = (k: number): string => path.join(workspace, 'repo', `pkg-${Math.floor(k / 100)}`, 'src', `mod-${Math.floor(k / 10) % 10}`, `sub-${k % 10}`);
    if (files > 0) {
      fs.statSync(path.join(leaf(0), 'file-0.ts'));
      const lastLeaf = Math.floor((files - 1) / filesPerDir);
      fs.statSync(path.join(leaf(lastLeaf), `file-${(files - 1) % filesPerDir}.ts`));
    }
    fs.statSync(path.join(workspace, 'src', 'index.ts'));
    return m;
  } catch {
    return undefined;
  }
}

function generateTree(files: number): TreeManifest {
  fs.rmSync(workspace, { recursive: true, force: true });
  fs.rmSync(path.join(cacheRoot, 'tree.json'), { force: true });
  const src = path.join(workspace, 'src');
  fs.mkdirSync(src, { recursive: true });
  fs.writeFileSync(path.join(src, 'index.ts'), `export * from './module-0';\n`);
  for (let i = 0; i < 19; i++) {
    fs.writeFileSync(path.join(src, `module-${i}.ts`), `export const value${i} = ${i};\n`.repeat(1 + (i % 5)));
  }
  const rnd = prng(0x7ee);
  const dirs = new Set<string>();
  for (let k = 0; k * filesPerDir < files; k++) {
    const pkg = path.join(workspace, 'repo', `pkg-${Math.floor(k / 100)}`);
    const dir = path.join(pkg, 'src', `mod-${Math.floor(k / 10) % 10}`, `sub-${k % 10}`);
    fs.mkdirSync(dir, { recursive: true });
    for (let d = dir; d.startsWith(path.join(workspace, 'repo')); d = path.dirname(d)) {
      dirs.add(d);
    }
    for (let j = 0; j < filesPerDir && k * filesPerDir + j < files; j++) {
      // Small source files, 60 B – 3 KB.
      const n = k * filesPerDir + j;
      const body = `export function f${n}(x: number): number {\n  return x * ${n} + ${Math.floor(rnd() * 1000)};\n}\n`;
      fs.writeFileSync(path.join(dir, `file-${j}.ts`), `// ${path.relative(workspace, dir)}/file-${j}.ts\n` + body.repeat(1 + Math.floor(rnd() * rnd() * 30)));
    }
  }
  const m: TreeManifest = { version: treeVersion, files, dirs: dirs.size };
  fs.writeFileSync(path.join(cacheRoot, 'tree.json'), JSON.stringify(m));
  return m;
}

/** Sessions whose last activity is recent enough for the monitor's sweep (liveMonitor.ts: 10 minutes). */
function countRecentlyActive(monitor: LiveMonitor): number {
  const now = Date.now();
  return monitor.sessionList().filter((s) => now - s.lastActivity < 10 * 60_000).length;
}

// ---------------------------------------------------------------------------------------------
// (a) Latency child

interface LatencyReport {
  scenario: string;
  idleSessions: number;
  idleBytes: number;
  sessionsWatched: number;
  /** Sessions the monitor's 2 s sweep re-reads (last activity under 10 minutes ago) once started. */
  recentlyActive: number;
  startMs: number;
  warmup: number;
  appends: number;
  gapMs: [number, number];
  /** Append → bare fs.watch callback on the probe file, ms. */
  fsWatch: number[];
  /** Append → the monitor's session watcher (chokidar) reporting the change of the live file, ms. */
  watcherEvent: number[];
  /** Append → `findings.onDidChange` announcing the orphan-result, ms. */
  finding: number[];
  /** Findings announced before the watcher event (the tail's follow-up look or the sweep found the line first). */
  beforeWatcherEvent: number;
  /** Appends whose finding (or fs.watch callback) did not come within 5 s. */
  missedFindings: number;
  missedFsWatch: number;
  heapUsedAfterStart: number;
  rssAfterStart: number;
  /** Event-loop delay while measuring (perf_hooks.monitorEventLoopDelay, 1 ms resolution), ms. */
  loopDelay: { p50: number; p99: number; max: number };
  /** GC pauses while measuring (PerformanceObserver 'gc'). */
  gc: { count: number; major: number; totalMs: number; maxMs: number };
  /** os.loadavg() (1 min) before and after measuring: other processes compete for the CPUs. */
  load: [number, number];
  warnings: number;
  logSamples: string[];
}

/** A Claude Code 2.1 user line holding a tool_result for a call that never happened (→ orphan-result). */
function orphanResultLine(sessionId: string, parentUuid: string, uuid: string, callId: string): string {
  const out = `stray output of a call this session never made (${callId})`;
  return JSON.stringify({
    parentUuid,
    isSidechain: false,
    userType: 'external',
    cwd: workspace,
    sessionId,
    version: '2.1.39',
    gitBranch: 'main',
    type: 'user',
    message: { role: 'user', content: [{ tool_use_id: callId, type: 'tool_result', content: out }] },
    uuid,
    timestamp: new Date().toISOString(),
    toolUseResult: { stdout: out, stderr: '', interrupted: false, isImage: false },
  });
}

async function latencyChild(o: Options): Promise<void> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-guard-watch-lat-'));
  try {
    const home = scratch;
    const project = path.join(home, 'claude', 'projects', encodeClaudeProject(workspace));
    fs.mkdirSync(project, { recursive: true });
    let idleSessions = 0;
    let idleBytes = 0;
    if (o.corpus) {
      const m = readCorpusManifest(o.corpus);
      if (!m) {
        throw new Error(`no corpus manifest in ${o.corpus}`);
      }
      for (const f of m.files) {
        const to = path.join(home, f.path);
        fs.mkdirSync(path.dirname(to), { recursive: true });
        linkOrCopy(path.join(o.corpus, 'full', f.path), to);
        idleSessions++;
        idleBytes += f.bytes;
      }
    }
    // The live session starts as a real one (the tool_heavy seed, fresh ids): no findings yet.
    const seed = loadTemplate(seedDefs[0]!, workspace);
    const sessionId = randomUUID();
    const live = path.join(project, `${sessionId}.jsonl`);
    fs.writeFileSync(live, instantiate(seed, sessionId, 'a000001', { n: 0 }));
    // The fs.watch probe: the same kind of file, same file system, outside every watched folder.
    const probeDir = path.join(scratch, 'probe');
    fs.mkdirSync(probeDir);
    const probeSession = randomUUID();
    const probe = path.join(probeDir, `${probeSession}.jsonl`);
    fs.writeFileSync(probe, instantiate(seed, probeSession, 'a000002', { n: 0 }));

    const logger = countingLogger();
    const monitor = new LiveMonitor({
      workspace,
      environment: envFor(home),
      logger,
      // The small workspace: ws/src; the big tree is for the memory runs.
      treeIgnore: ['repo'],
      ...(o.sweepMs !== undefined ? { sweepMs: o.sweepMs } : {}),
    });
    const pendingFinding = new Map<string, (at: number) => void>();
    monitor.findings.onDidChange((c) => {
      const at = performance.now();
      for (const f of c.added) {
        if (f.rule === 'orphan-result' && f.callId !== undefined) {
          pendingFinding.get(f.callId)?.(at);
        }
      }
    });
    const t0 = performance.now();
    await monitor.start();
    await monitor.idle();
    const startMs = performance.now() - t0;
    if (!monitor.session(live)) {
      throw new Error(`the monitor did not pick up ${live}`);
    }
    // The session watcher's own events (private: reached for the breakdown only).
    let watcherAt: number | undefined;
    const watcher = (monitor as unknown as { watcher?: { onDidChange?: (l: (e: SessionFileEvent) => void) => unknown } }).watcher;
    watcher?.onDidChange?.((e) => {
      if (e.type === 'change' && e.file === live && watcherAt === undefined) {
        watcherAt = performance.now();
      }
    });
    let probePending: ((at: number) => void) | undefined;
    const probeWatcher = fs.watch(probe, () => {
      const at = performance.now();
      probePending?.(at);
      probePending = undefined;
    });
    await sleep(500);
    fullGc();
    const afterStart = process.memoryUsage();
    const recentlyActive = countRecentlyActive(monitor);
    log(`  [${o.label}] started in ${(startMs / 1000).toFixed(1)} s, ${monitor.sessionList().length} sessions; ${o.warmup} + ${o.appends} appends ...`);

    const loop = monitorEventLoopDelay({ resolution: 1 });
    const gcs: { ms: number; major: boolean }[] = [];
    const gcObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        const kind = (e as { detail?: { kind?: number } }).detail?.kind;
        // NODE_PERFORMANCE_GC_MAJOR = 4 (mark-compact)
        gcs.push({ ms: e.duration, major: kind === 4 });
      }
    });
    gcObserver.observe({ entryTypes: ['gc'] });
    loop.enable();
    const loadBefore = os.loadavg()[0]!;
    const rnd = prng(0x1a7 + idleSessions);
    const gap = (): number => o.gapMs[0] + rnd() * (o.gapMs[1] - o.gapMs[0]);
    const timeoutMs = 5000;
    const within = <T>(p: Promise<T>): Promise<T | undefined> =>
      Promise.race([p, sleep(timeoutMs).then(() => undefined)]);
    const fsWatch: number[] = [];
    const watcherEvent: number[] = [];
    const finding: number[] = [];
    let beforeWatcherEvent = 0;
    let missedFindings = 0;
    let missedFsWatch = 0;
    let parent = randomUUID();
    let probeParent = randomUUID();
    for (let i = 0; i < o.warmup + o.appends; i++) {
      const measured = i >= o.warmup;
      // The live transcript: append → finding.
      {
        const callId = `toolu_01Bench${String(i).padStart(6, '0')}${sessionId.slice(0, 8)}`;
        const uuid = randomUUID();
        const line = orphanResultLine(sessionId, parent, uuid, callId) + '\n';
        parent = uuid;
        const found = new Promise<number>((resolve) => pendingFinding.set(callId, resolve));
        watcherAt = undefined;
        const t = performance.now();
        fs.appendFileSync(live, line);
        const at = await within(found);
        pendingFinding.delete(callId);
        if (measured) {
          if (at === undefined) {
            missedFindings++;
          } else {
            finding.push(at - t);
            if (watcherAt !== undefined && watcherAt <= at) {
              watcherEvent.push(watcherAt - t);
            } else {
              beforeWatcherEvent++;
            }
          }
        }
      }
      await sleep(gap());
      // The probe: append → fs.watch callback.
      {
        const uuid = randomUUID();
        const line = orphanResultLine(probeSession, probeParent, uuid, `toolu_01Probe${String(i).padStart(6, '0')}`) + '\n';
        probeParent = uuid;
        const seen = new Promise<number>((resolve) => (probePending = resolve));
        const t = performance.now();
        fs.appendFileSync(probe, line);
        const at = await within(seen);
        probePending = undefined;
        if (measured) {
          if (at === undefined) {
            missedFsWatch++;
          } else {
            fsWatch.push(at - t);
          }
        }
      }
      await sleep(gap());
    }
    probeWatcher.close();
    loop.disable();
    gcObserver.disconnect();
    const report: LatencyReport = {
      scenario: o.label ?? '',
      idleSessions,
      idleBytes,
      sessionsWatched: monitor.sessionList().length,
      recentlyActive,
      startMs,
      warmup: o.warmup,
      appends: o.appends,
      gapMs: o.gapMs,
      fsWatch,
      watcherEvent,
      finding,
      beforeWatcherEvent,
      missedFindings,
      missedFsWatch,
      heapUsedAfterStart: afterStart.heapUsed,
      rssAfterStart: afterStart.rss,
      loopDelay: { p50: loop.percentile(50) / 1e6, p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
      gc: { count: gcs.length, major: gcs.filter((g) => g.major).length, totalMs: gcs.reduce((n, g) => n + g.ms, 0), maxMs: Math.max(0, ...gcs.map((g) => g.ms)) },
      load: [loadBefore, os.loadavg()[0]!],
      warnings: logger.warnings + logger.errors,
      logSamples: logger.samples,
    };
    await monitor.close();
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// (b) Memory child

interface MemoryReport {
  label: string;
  tree: boolean;
  sessions: number;
  bytesRead: number;
  findings: number;
  findingsByRule: Record<string, number>;
  /** Sessions the monitor's 2 s sweep re-reads (last activity under 10 minutes ago) once started. */
  recentlyActive: number;
  startMs: number;
  /** process.uptime() when the monitor had started: includes Node's own start and module loading. */
  uptimeAtStartMs: number;
  /** Highest `process.memoryUsage.rss()` sampled every 50 ms, from process start to the end. */
  peakRssSampled: number;
  /** `process.resourceUsage().maxRSS`, in bytes. */
  maxRss: number;
  peakHeapUsed: number;
  /** Right after start, before any forced GC. */
  atStart: NodeJS.MemoryUsage;
  /** 1 s after start, after a full GC. */
  settled: NodeJS.MemoryUsage;
  /** `idleMs` later, watching idle, after another full GC: does anything grow? */
  later: NodeJS.MemoryUsage;
  /** RSS every 10 s of the idle period (no GC forced). */
  idleRss: { atMs: number; rss: number }[];
  idleMs: number;
  heapSpaces: { space: string; used: number; size: number }[];
  fsWatchHandles: number;
  inotifyWatches: number | undefined;
  /** os.loadavg() (1 min) when the child started and when the monitor had started. */
  load: [number, number];
  warnings: number;
  logSamples: string[];
  snapshot?: string;
  /** Heap freed by dropping each part of the monitor in turn (see `attribute`). */
  attribution?: AttributionStep[];
}

interface AttributionStep {
  part: string;
  /** heapUsed and RSS after a full GC once this part (and those before it) are dropped. */
  heapUsed: number;
  rss: number;
  freedHeap: number;
  freedRss: number;
}

/**
 * Where the settled heap is: drops the monitor's parts one after another (reaching into private
 * fields: a diagnostic, not an API) and measures what a full GC frees each time. Each step frees
 * what is no longer reachable once it and the steps before it are gone, so objects shared by two
 * parts are billed to the later one.
 */
async function attribute(monitor: LiveMonitor): Promise<AttributionStep[]> {
  interface EngineView {
    conversation?: { messages?: unknown[]; calls?: Map<unknown, unknown>; pending?: Map<unknown, unknown> };
    knowledge?: { paths?: Map<unknown, unknown> };
    active?: unknown[];
    listeners?: Map<unknown, unknown>;
    textRules?: unknown;
    callRules?: unknown;
    resultRules?: unknown;
    messageRules?: unknown;
  }
  interface SessionView {
    stream?: { engine?: EngineView };
    tail?: { dispose?: () => void };
  }
  const m = monitor as unknown as { sessions?: Map<string, SessionView>; watcher?: { close?: () => Promise<void> } };
  const sessions = [...(m.sessions?.values() ?? [])];
  const engines = sessions.map((s) => s.stream?.engine).filter((e): e is EngineView => e !== undefined);
  const steps: { part: string; drop: () => void | Promise<void> }[] = [
    { part: 'finding store', drop: () => monitor.findings.clear() },
    { part: 'working-tree watcher (chokidar on the tree) and model', drop: async () => monitor.tree?.dispose() },
    {
      part: 'conversations (messages, calls, results with their read/write snapshots)',
      drop: () => {
        for (const e of engines) {
          if (e.conversation?.messages) {
            e.conversation.messages.length = 0;
          }
          e.conversation?.calls?.clear();
          e.conversation?.pending?.clear();
        }
      },
    },
    { part: 'file knowledge (file contents each session saw)', drop: () => engines.forEach((e) => e.knowledge?.paths?.clear()) },
    {
      part: 'rule state (branch trackers, open calls, ...)',
      drop: () => {
        for (const e of engines) {
          if (e.active) {
            e.active.length = 0;
          }
          e.listeners?.clear();
          e.textRules = e.callRules = e.resultRules = e.messageRules = undefined;
        }
      },
    },
    {
      part: 'the rest of the sessions (parsers, tails, summaries) and the session watcher',
      drop: async () => {
        for (const s of sessions) {
          s.tail?.dispose?.();
        }
        m.sessions?.clear();
        sessions.length = 0;
        engines.length = 0;
        await m.watcher?.close?.();
      },
    },
  ];
  await sleep(200);
  fullGc();
  let prev = process.memoryUsage();
  const out: AttributionStep[] = [];
  for (const step of steps) {
    await step.drop();
    // Closed watchers are freed once their handles have closed (a few loop turns later).
    for (let n = fsWatchHandles(), i = 0; i < 50; i++) {
      await sleep(100);
      const now = fsWatchHandles();
      if (now === n) {
        break;
      }
      n = now;
    }
    await sleep(300);
    fullGc();
    const now = process.memoryUsage();
    out.push({ part: step.part, heapUsed: now.heapUsed, rss: now.rss, freedHeap: prev.heapUsed - now.heapUsed, freedRss: prev.rss - now.rss });
    prev = now;
  }
  return out;
}

async function memoryChild(o: Options): Promise<void> {
  let peakRss = 0;
  let peakHeap = 0;
  let ticks = 0;
  const sample = (): void => {
    if (ticks++ % 5 === 0) {
      const u = process.memoryUsage();
      peakRss = Math.max(peakRss, u.rss);
      peakHeap = Math.max(peakHeap, u.heapUsed);
    } else {
      peakRss = Math.max(peakRss, process.memoryUsage.rss());
    }
  };
  sample();
  const timer = setInterval(sample, 50);
  const logger = countingLogger();
  const home = o.home!;
  const loadBefore = os.loadavg()[0]!;
  const t0 = performance.now();
  const monitor = new LiveMonitor({ workspace, environment: envFor(home), logger, watchTree: o.tree === true });
  await monitor.start();
  await monitor.idle();
  const startMs = performance.now() - t0;
  const uptimeAtStartMs = process.uptime() * 1000;
  const loadAfter = os.loadavg()[0]!;
  sample();
  const atStart = process.memoryUsage();
  await sleep(1000);
  fullGc();
  const settled = process.memoryUsage();
  const idleMs = o.idleMs;
  // RSS every 10 s while idle, no GC forced: how fast V8 hands back the heap of the first read.
  const idleRss: { atMs: number; rss: number }[] = [];
  for (let waited = 0; waited < idleMs; ) {
    const step = Math.min(10_000, idleMs - waited);
    await sleep(step);
    waited += step;
    idleRss.push({ atMs: waited, rss: process.memoryUsage.rss() });
  }
  fullGc();
  const later = process.memoryUsage();
  sample();
  clearInterval(timer);
  const sessions = monitor.sessionList();
  const report: MemoryReport = {
    label: o.label ?? '',
    tree: o.tree === true,
    sessions: sessions.length,
    bytesRead: sessions.reduce((n, s) => n + s.bytes, 0),
    findings: monitor.findings.size,
    findingsByRule: monitor.findings.all().reduce<Record<string, number>>((m, f) => ((m[f.rule] = (m[f.rule] ?? 0) + 1), m), {}),
    recentlyActive: countRecentlyActive(monitor),
    startMs,
    uptimeAtStartMs,
    peakRssSampled: peakRss,
    maxRss: process.resourceUsage().maxRSS * 1024,
    peakHeapUsed: peakHeap,
    atStart,
    settled,
    later,
    idleMs,
    idleRss,
    heapSpaces: v8.getHeapSpaceStatistics().map((s) => ({ space: s.space_name, used: s.space_used_size, size: s.space_size })),
    fsWatchHandles: fsWatchHandles(),
    inotifyWatches: inotifyWatches(),
    load: [loadBefore, loadAfter],
    warnings: logger.warnings + logger.errors,
    logSamples: logger.samples,
  };
  if (o.snapshot) {
    fullGc();
    report.snapshot = v8.writeHeapSnapshot(o.snapshot);
  }
  if (o.attribute) {
    report.attribution = await attribute(monitor);
  }
  process.stdout.write(`${JSON.stringify(report)}\n`);
  await monitor.close();
}

// ---------------------------------------------------------------------------------------------
// inotify exhaustion: run as an unprivileged user whose watches a hog process has mostly taken

interface OverflowReport {
  limit: number | undefined;
  /** Watches the hog processes hold before the monitor starts. */
  heldByHogs: number;
  /** What the monitor got. */
  inotifyWatches: number | undefined;
  fsWatchHandles: number;
  startMs: number;
  warnings: number;
  logSamples: string[];
  failedWatches: number;
  /** Of those: folders (chokidar watches a folder after reading it, so parents go last), files, and whether the root is one. */
  failedDirs: number;
  failedFiles: number;
  rootWatched: boolean;
  /** A tracked workspace file whose watch succeeded / failed: was its change seen? */
  watchedFile: { path: string; changeSeen: boolean; ms: number | undefined } | undefined;
  unwatchedFile: { path: string; changeSeen: boolean; ms: number | undefined } | undefined;
  /** A session created after start in the existing project folder: found, and how. */
  newSession: { found: boolean; ms: number | undefined; viaWatcherEvent: boolean };
  /** A sub-agent transcript created after start in a new folder (`<session>/subagents/`). */
  newSubagent: { found: boolean; ms: number | undefined; viaWatcherEvent: boolean };
  /** Then one more violating line appended to it. */
  subagentAppend: { found: boolean; ms: number | undefined; viaWatcherEvent: boolean };
}

/** Parent ↔ overflow child messages: the child cannot write the cached tree (it runs as nobody). */
type OverflowMsg = { type: 'touch'; paths: string[] } | { type: 'touched' };

async function overflowChild(o: Options): Promise<void> {
  const home = o.home!;
  const logger = countingLogger(true);
  const t0 = performance.now();
  const monitor = new LiveMonitor({ workspace, environment: envFor(home), logger, watchTree: true });
  await monitor.start();
  const startMs = performance.now() - t0;
  const tree = monitor.tree!;
  const failed = new Set(logger.failedPaths);
  const files = (dir: string): string[] => {
    const out: string[] = [];
    const walk = (d: string): void => {
      for (const e of fs.readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) {
          walk(p);
        } else {
          out.push(p);
        }
      }
    };
    walk(dir);
    return out;
  };
  const all = files(path.join(workspace, 'repo'));
  const allSet = new Set(all);
  const failedFiles = [...failed].filter((p) => allSet.has(p)).length;
  const watchedPath = all.find((p) => !failed.has(p));
  const unwatchedPath = all.find((p) => failed.has(p));
  const probe = async (paths: string[]): Promise<Map<string, number>> => {
    const seen = new Map<string, number>();
    for (const p of paths) {
      await tree.track(p);
    }
    await tree.settle();
    const sub = tree.onDidChange((c) => {
      if (!seen.has(c.path)) {
        seen.set(c.path, performance.now());
      }
    });
    const t = performance.now();
    await new Promise<void>((resolve) => {
      const onMsg = (m: OverflowMsg): void => {
        if (m.type === 'touched') {
          process.off('message', onMsg);
          resolve();
        }
      };
      process.on('message', onMsg);
      process.send!({ type: 'touch', paths } satisfies OverflowMsg);
    });
    await sleep(3000);
    sub.dispose();
    return new Map([...seen].map(([p, at]) => [p, at - t]));
  };
  const targets = [watchedPath, unwatchedPath].filter((p): p is string => p !== undefined);
  const seen = await probe(targets);
  const fileReport = (p: string | undefined): OverflowReport['watchedFile'] =>
    p === undefined ? undefined : { path: path.relative(workspace, p), changeSeen: seen.has(p), ms: seen.get(p) };

  // New transcripts after start: one in the existing project folder, one in a new folder.
  const project = path.join(home, 'claude', 'projects', encodeClaudeProject(workspace));
  const watcher = (monitor as unknown as { watcher?: { onDidChange?: (l: (e: SessionFileEvent) => void) => unknown } }).watcher;
  type Seen = OverflowReport['newSession'];
  /** Writes (or appends) a violating line and waits for its finding; notes whether a watcher event came first. */
  const violate = async (file: string, callId: string): Promise<Seen> => {
    let watcherAt: number | undefined;
    const sub = watcher?.onDidChange?.((e) => {
      if (e.file === file && watcherAt === undefined) {
        watcherAt = performance.now();
      }
    }) as { dispose?: () => void } | undefined;
    let done: ((at: number) => void) | undefined;
    const found = new Promise<number>((resolve) => (done = resolve));
    const sub2 = monitor.findings.onDidChange((c) => {
      if (c.added.some((f) => f.callId === callId)) {
        done?.(performance.now());
      }
    });
    const t = performance.now();
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.appendFileSync(file, orphanResultLine(randomUUID(), randomUUID(), randomUUID(), callId) + '\n');
    const at = await Promise.race([found, sleep(10_000).then(() => undefined)]);
    sub?.dispose?.();
    sub2.dispose();
    return { found: at !== undefined, ms: at === undefined ? undefined : at - t, viaWatcherEvent: watcherAt !== undefined && at !== undefined && watcherAt <= at };
  };
  const newSession = await violate(path.join(project, `${randomUUID()}.jsonl`), 'toolu_01OverflowProbeSession');
  const subagentFile = path.join(project, randomUUID(), 'subagents', 'agent-a0f0f0f.jsonl');
  const newSubagent = await violate(subagentFile, 'toolu_01OverflowProbeSubagent');
  await sleep(300);
  const subagentAppend = await violate(subagentFile, 'toolu_01OverflowProbeSubagentAppend');
  const report: OverflowReport = {
    limit: readProcNumber('/proc/sys/fs/inotify/max_user_watches'),
    heldByHogs: Number(process.env['AGW_HOG_WATCHES'] ?? 0),
    inotifyWatches: inotifyWatches(),
    fsWatchHandles: fsWatchHandles(),
    startMs,
    warnings: logger.warnings + logger.errors,
    logSamples: logger.samples,
    failedWatches: failed.size,
    failedDirs: failed.size - failedFiles,
    failedFiles,
    rootWatched: !failed.has(workspace),
    watchedFile: fileReport(watchedPath),
    unwatchedFile: fileReport(unwatchedPath),
    newSession,
    newSubagent,
    subagentAppend,
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  await monitor.close();
  process.disconnect?.();
}

/** A process that holds up to `want` inotify watches on the tree's paths; prints how many it got. */
const hogScript = `
const fs = require('node:fs'), path = require('node:path');
const [root, wantS] = process.argv.slice(1);
const want = Number(wantS);
const paths = [];
(function walk(d) { paths.push(d); for (const e of fs.readdirSync(d, { withFileTypes: true })) { const p = path.join(d, e.name); if (e.isDirectory()) walk(p); else paths.push(p); } })(root);
let held = 0;
for (const p of paths) { if (held >= want) break; try { fs.watch(p, () => {}); held++; } catch (e) { break; } }
process.stdout.write(JSON.stringify({ held }) + '\\n');
setInterval(() => {}, 1 << 30);
`;

async function overflowExperiment(treeWatches: number): Promise<OverflowReport | { skipped: string }> {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) {
    return { skipped: 'needs root on Linux (runs the monitor as nobody, after hog processes took most of its watches)' };
  }
  const limit = readProcNumber('/proc/sys/fs/inotify/max_user_watches');
  if (limit === undefined) {
    return { skipped: 'cannot read /proc/sys/fs/inotify/max_user_watches' };
  }
  const uid = 65534;
  const gid = 65534;
  // Leave the monitor about half of what the tree needs.
  const hogTarget = Math.max(0, limit - Math.round(treeWatches / 2));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-guard-watch-overflow-'));
  fs.chmodSync(scratch, 0o777);
  const hogs: ReturnType<typeof spawn>[] = [];
  try {
    fs.mkdirSync(path.join(scratch, 'claude', 'projects', encodeClaudeProject(workspace)), { recursive: true, mode: 0o777 });
    for (const d of ['claude', path.join('claude', 'projects'), path.join('claude', 'projects', encodeClaudeProject(workspace))]) {
      fs.chmodSync(path.join(scratch, d), 0o777);
    }
    let held = 0;
    // Each hog is one inotify instance of the 128 a user may have (max_user_instances): a few only.
    const maxHogs = 4;
    while (held < hogTarget) {
      if (hogs.length === maxHogs) {
        return { skipped: `the tree is too small: ${maxHogs} hog processes watching all of it hold ${held} of the ${hogTarget} watches needed to leave the monitor short` };
      }
      const hog = spawn(process.execPath, ['-e', hogScript, workspace, String(hogTarget - held)], { uid, gid, stdio: ['ignore', 'pipe', 'inherit'] });
      hogs.push(hog);
      const got = await new Promise<number>((resolve, reject) => {
        let out = '';
        hog.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          const line = out.split('\n')[0];
          if (out.includes('\n') && line) {
            resolve((JSON.parse(line) as { held: number }).held);
          }
        });
        hog.on('error', reject);
        hog.on('exit', (code) => reject(new Error(`hog exited with ${code}`)));
      });
      if (got === 0) {
        break;
      }
      held += got;
      log(`  inotify hog ${hogs.length}: holds ${got} watches (${held} of the ${hogTarget} wanted)`);
    }
    return await new Promise<OverflowReport>((resolve, reject) => {
      const child = spawn(process.execPath, [selfScript, '--child', 'overflow', '--home', scratch], {
        uid,
        gid,
        stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
        env: { ...process.env, AGW_HOG_WATCHES: String(held) },
      });
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
      child.on('message', (m: OverflowMsg) => {
        if (m.type === 'touch') {
          for (const p of m.paths) {
            fs.appendFileSync(p, `// touched by the overflow probe\n`);
          }
          child.send({ type: 'touched' } satisfies OverflowMsg);
        }
      });
      child.on('error', reject);
      child.on('close', (code) => {
        const last = out.trim().split('\n').pop() ?? '';
        if (code !== 0 || !last.startsWith('{')) {
          reject(new Error(`overflow child exited with ${code}: ${out}`));
          return;
        }
        resolve(JSON.parse(last) as OverflowReport);
      });
    });
  } finally {
    for (const h of hogs) {
      h.kill();
    }
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Children plumbing

function spawnChild<T>(args: string[], nodeFlags: string[] = ['--expose-gc']): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, selfScript, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      process.stderr.write(d);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const last = out.trim().split('\n').pop() ?? '';
      if (code !== 0 || !last.startsWith('{')) {
        reject(new Error(`child ${args.join(' ')} exited with ${code}: ${err || out}`));
        return;
      }
      resolve(JSON.parse(last) as T);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Heap snapshot summary: self size by constructor / kind (retained sizes need a dominator tree)

interface HeapGroup {
  kind: string;
  count: number;
  selfBytes: number;
}

/**
 * Streams the snapshot (it is larger than a string or a readFileSync may be): the node table,
 * then only the strings that name objects. Self sizes only; the JS heap only (not native memory).
 */
function summariseHeapSnapshot(file: string, top: number): { totalBytes: number; nodes: number; groups: HeapGroup[] } | { error: string } {
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (e) {
    return { error: `cannot read ${file}: ${e instanceof Error ? e.message : String(e)}` };
  }
  try {
    const chunk = Buffer.allocUnsafe(64 * MiB);
    let state: 'header' | 'nodes' | 'seekStrings' | 'strings' | 'done' = 'header';
    let text = '';
    let width = 0;
    let fType = 0;
    let fName = 0;
    let fSize = 0;
    let typeNames: string[] = [];
    let types = new Uint8Array(0);
    let names = new Uint32Array(0);
    let sizes = new Float64Array(0);
    let nodeCount = 0;
    let k = 0;
    let num = 0;
    let inNum = false;
    let strIndex = 0;
    let inStr = false;
    let esc = false;
    let parts: Buffer[] | undefined;
    let needed = new Set<number>();
    const strings = new Map<number, string>();
    const named = new Set(['object', 'closure', 'native', 'array', 'hidden', 'synthetic', 'object shape']);
    for (;;) {
      const n = fs.readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0 || state === 'done') {
        break;
      }
      let i = 0;
      while (i < n && state !== 'done') {
        if (state === 'header') {
          const before = text.length;
          text += chunk.toString('latin1', i, n);
          const at = text.indexOf('"nodes":[');
          if (at === -1) {
            i = n;
            continue;
          }
          i += at + 9 - before;
          const header = JSON.parse(text.slice(0, at).replace(/,\s*$/, '') + '}') as {
            snapshot: { meta: { node_fields: string[]; node_types: unknown[] }; node_count: number };
          };
          const fields = header.snapshot.meta.node_fields;
          width = fields.length;
          fType = fields.indexOf('type');
          fName = fields.indexOf('name');
          fSize = fields.indexOf('self_size');
          typeNames = header.snapshot.meta.node_types[0] as string[];
          nodeCount = header.snapshot.node_count;
          types = new Uint8Array(nodeCount);
          names = new Uint32Array(nodeCount);
          sizes = new Float64Array(nodeCount);
          text = '';
          state = 'nodes';
        } else if (state === 'nodes') {
          for (; i < n; i++) {
            const c = chunk[i]!;
            if (c >= 48 && c <= 57) {
              num = num * 10 + (c - 48);
              inNum = true;
              continue;
            }
            if (inNum) {
              const node = Math.floor(k / width);
              const f = k - node * width;
              if (f === fType) {
                types[node] = num;
              } else if (f === fName) {
                names[node] = num;
              } else if (f === fSize) {
                sizes[node] = num;
              }
              k++;
              num = 0;
              inNum = false;
            }
            if (c === 93) {
              i++;
              state = 'seekStrings';
              needed = new Set<number>();
              for (let x = 0; x < nodeCount; x++) {
                if (named.has(typeNames[types[x]!] ?? '')) {
                  needed.add(names[x]!);
                }
              }
              break;
            }
          }
        } else if (state === 'seekStrings') {
          const keep = text.length;
          text += chunk.toString('latin1', i, n);
          const at = text.indexOf('"strings":[');
          if (at === -1) {
            text = text.slice(-16);
            i = n;
            continue;
          }
          i += at + 11 - keep;
          text = '';
          state = 'strings';
        } else {
          let start = inStr ? i : -1;
          for (; i < n; i++) {
            const c = chunk[i]!;
            if (!inStr) {
              if (c === 34) {
                inStr = true;
                esc = false;
                start = i;
                parts = needed.has(strIndex) ? [] : undefined;
              } else if (c === 93) {
                state = 'done';
                break;
              }
              continue;
            }
            if (esc) {
              esc = false;
            } else if (c === 92) {
              esc = true;
            } else if (c === 34) {
              if (parts) {
                parts.push(chunk.subarray(start, i + 1));
                strings.set(strIndex, JSON.parse(Buffer.concat(parts).toString('utf8')) as string);
              }
              inStr = false;
              parts = undefined;
              strIndex++;
            }
          }
          if (inStr && parts) {
            parts.push(Buffer.from(chunk.subarray(start, n)));
          }
        }
      }
    }
    if (nodeCount === 0 || k !== nodeCount * width) {
      return { error: `could not parse ${file} (${k} node fields read, ${nodeCount * width} expected)` };
    }
    const groups = new Map<string, HeapGroup>();
    let total = 0;
    const short = (s: string, n: number): string => (s.length > n ? s.slice(0, n - 3) + '...' : s);
    for (let x = 0; x < nodeCount; x++) {
      const type = typeNames[types[x]!] ?? '?';
      const size = sizes[x]!;
      total += size;
      let kind: string;
      if (type === 'string' || type === 'concatenated string' || type === 'sliced string') {
        kind = '(strings)';
      } else if (type === 'code') {
        kind = '(compiled code)';
      } else if (type === 'number') {
        kind = '(heap numbers)';
      } else {
        const name = short((strings.get(names[x]!) ?? '?').replace(/\s+/g, ' '), 60);
        kind = type === 'object' ? name : `(${type}) ${name}`;
      }
      const g = groups.get(kind) ?? { kind, count: 0, selfBytes: 0 };
      g.count++;
      g.selfBytes += size;
      groups.set(kind, g);
    }
    return { totalBytes: total, nodes: nodeCount, groups: [...groups.values()].sort((a, b) => b.selfBytes - a.selfBytes).slice(0, top) };
  } catch (e) {
    return { error: `cannot summarise ${file}: ${e instanceof Error ? e.message : String(e)}` };
  } finally {
    fs.closeSync(fd);
  }
}

// ---------------------------------------------------------------------------------------------
// Report helpers

const ms = (x: number): string => (Number.isNaN(x) ? '—' : x < 10 ? x.toFixed(2) : x.toFixed(1));
const mib = (b: number): string => `${(b / MiB).toFixed(1)}`;
const fmtMB = (bytes: number): string => `${(bytes / MB).toFixed(1)} MB`;
const int = (n: number): string => n.toLocaleString('en-US');

function heapTable(label: string, sum: { totalBytes: number; nodes: number; groups: HeapGroup[] }): string {
  return [
    `heap snapshot of "${label}": ${mib(sum.totalBytes)} MiB in ${int(sum.nodes)} objects; self size by constructor / kind (top ${sum.groups.length}):`,
    table([['kind', 'count', 'self MiB', 'share', 'bytes each'], ...sum.groups.map((g) => [g.kind, int(g.count), mib(g.selfBytes), `${((100 * g.selfBytes) / sum.totalBytes).toFixed(1)} %`, (g.selfBytes / g.count).toFixed(0)])]),
  ].join('\n');
}

// ---------------------------------------------------------------------------------------------
// Main

interface LatencyResult {
  report: LatencyReport;
  fsWatch: Stats;
  watcherEvent: Stats;
  finding: Stats;
  deltaP99: number;
  pass: boolean;
}

interface MemoryRow {
  key: 'floor' | 'tree' | 'quarter' | 'full' | 'sessions';
  label: string;
  /** Ran side by side with another child (its start time is then inflated). */
  parallel: boolean;
  report: MemoryReport;
}

async function main(o: Options): Promise<number> {
  const started = Date.now();
  fs.mkdirSync(cacheRoot, { recursive: true });
  const limit = readProcNumber('/proc/sys/fs/inotify/max_user_watches');
  const instances = readProcNumber('/proc/sys/fs/inotify/max_user_instances');

  // 1. The tree and the corpus (cached)
  let tree = o.fresh ? undefined : treeUsable(o.treeFiles);
  let treeSeconds: number | undefined;
  if (tree) {
    log(`tree: reusing ${workspace} (${int(tree.files)} files in ${int(tree.dirs)} folders under repo/; --fresh rebuilds it)`);
  } else {
    log(`tree: generating ${int(o.treeFiles)} files under ${path.join(workspace, 'repo')} ...`);
    const t = Date.now();
    tree = generateTree(o.treeFiles);
    treeSeconds = (Date.now() - t) / 1000;
    log(`tree: ${int(tree.files)} files in ${int(tree.dirs)} folders in ${treeSeconds.toFixed(1)} s`);
  }
  const seeds = availableSeeds();
  const missingSeeds = seedDefs.filter((d) => !seeds.includes(d)).map((d) => d.rel);
  if (missingSeeds.length > 0) {
    log(`seeds: not found, left out: ${missingSeeds.join(', ')}`);
  }
  const hash = seedHash(seeds);
  const corpusDir = corpusDirFor(o);
  let corpus = o.fresh ? undefined : corpusUsable(corpusDir, o, hash);
  let corpusSeconds: number | undefined;
  if (corpus) {
    log(`corpus: reusing ${corpusDir} (${int(corpus.sessions)} sessions, ${fmtMB(corpus.totalBytes)}; --fresh rebuilds it)`);
  } else {
    log(`corpus: generating ${int(o.sessions)} sessions, ${fmtMB(o.mb * MB)} into ${corpusDir} ...`);
    const t = Date.now();
    const templates = seeds.map((d) => loadTemplate(d, workspace));
    corpus = generateCorpus(corpusDir, o, templates, hash);
    corpusSeconds = (Date.now() - t) / 1000;
    log(`corpus: ${int(corpus.sessions)} sessions, ${fmtMB(corpus.totalBytes)} in ${corpusSeconds.toFixed(1)} s`);
  }
  const famStats = families.map((f) => {
    const of = corpus.files.filter((x) => x.family === f);
    return { family: f, files: of.length, bytes: of.reduce((s, x) => s + x.bytes, 0), largest: Math.max(0, ...of.map((x) => x.bytes)) };
  });
  // Warm the page cache, so the first child does not pay for a cold disk.
  for (const f of corpus.files) {
    fs.readFileSync(path.join(corpusDir, 'full', f.path));
  }

  // 2. Latency (one child per scenario, one after the other: nothing else runs meanwhile)
  const latency: LatencyResult[] = [];
  if (o.latency) {
    const common = ['--appends', String(o.appends), '--warmup', String(o.warmup), '--gap-ms', o.gapMs.join(','), ...(o.sweepMs !== undefined ? ['--sweep-ms', String(o.sweepMs)] : [])];
    const sweepNote = o.sweepMs !== undefined ? `, sweep every ${o.sweepMs} ms` : '';
    const scenarios: { label: string; args: string[] }[] = [
      ...(o.scenarios.includes('alone') ? [{ label: `live session alone${sweepNote}`, args: [] }] : []),
      ...(o.scenarios.includes('idle') ? [{ label: `+ ${int(corpus.sessions)} idle sessions (${fmtMB(corpus.totalBytes)})${sweepNote}`, args: ['--corpus', corpusDir] }] : []),
    ];
    for (const s of scenarios) {
      log(`latency: ${s.label} ...`);
      const report = await spawnChild<LatencyReport>(['--child', 'latency', '--label', s.label, ...common, ...s.args]);
      const f = stats(report.finding);
      const w = stats(report.fsWatch);
      const deltaP99 = f.p99 - w.p99;
      latency.push({ report, fsWatch: w, watcherEvent: stats(report.watcherEvent), finding: f, deltaP99, pass: deltaP99 <= latencyTargetMs && report.missedFindings === 0 });
    }
  }

  // 3. Memory (fresh children). The floor first; "tree only" and the quarter corpus side by side
  // (two CPUs; peak RSS is per process, but their start times are then not comparable with
  // the others'); the full corpus alone, then the monitor's parts dropped one by one.
  const rows: MemoryRow[] = [];
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-guard-watch-empty-'));
  const snapshotDir = fs.mkdtempSync(path.join(os.tmpdir(), 'agent-guard-watch-heap-'));
  let heap: { label: string; file: string; summary: ReturnType<typeof summariseHeapSnapshot> }[] = [];
  let overflow: OverflowReport | { skipped: string } | undefined;
  try {
    if (o.memory) {
      interface Planned {
        key: MemoryRow['key'];
        label: string;
        home: string;
        tree: boolean;
        parallel?: boolean;
        attribute?: boolean;
      }
      const full = path.join(corpusDir, 'full');
      const floorRun: Planned = { key: 'floor', label: 'floor: nothing to watch', home: empty, tree: false };
      const treeRun: Planned = { key: 'tree', label: `tree only (${int(tree.files)} files)`, home: empty, tree: true, parallel: true };
      const quarterRun: Planned = { key: 'quarter', label: `${int(corpus.quarterSessions)} sessions + tree`, home: path.join(corpusDir, 'quarter'), tree: true, parallel: true };
      const fullRun: Planned = { key: 'full', label: `${int(corpus.sessions)} sessions + tree`, home: full, tree: true, attribute: true };
      const sessionsRun: Planned = { key: 'sessions', label: `${int(corpus.sessions)} sessions only`, home: full, tree: false };
      const run = async (p: Planned, extra: string[] = []): Promise<MemoryReport> => {
        const report = await spawnChild<MemoryReport>(['--child', 'memory', '--label', p.label, '--home', p.home, '--tree', p.tree ? 'on' : 'off', '--idle-seconds', String(o.idleMs / 1000), ...(p.attribute ? ['--attribute'] : []), ...extra]);
        log(
          `  ${p.label}: started in ${(report.startMs / 1000).toFixed(1)} s; peak RSS ${mib(Math.max(report.peakRssSampled, report.maxRss))} MiB, ` +
            `settled RSS ${mib(report.settled.rss)} MiB, heap ${mib(report.settled.heapUsed)} MiB`,
        );
        return report;
      };
      const planned = [floorRun, treeRun, ...(o.breakdown ? [sessionsRun] : []), quarterRun, fullRun];
      const reports = new Map<Planned, MemoryReport>();
      log(`memory: ${floorRun.label} ...`);
      reports.set(floorRun, await run(floorRun));
      log(`memory: ${treeRun.label} | ${quarterRun.label} (side by side) ...`);
      const [t, q] = await Promise.all([run(treeRun), run(quarterRun)]);
      reports.set(treeRun, t);
      reports.set(quarterRun, q);
      log(`memory: ${fullRun.label} (alone; then its parts dropped one by one) ...`);
      reports.set(fullRun, await run(fullRun));
      if (o.breakdown) {
        log(`memory: ${sessionsRun.label} ...`);
        reports.set(sessionsRun, await run(sessionsRun));
      }
      for (const p of planned) {
        rows.push({ key: p.key, label: p.label, parallel: p.parallel === true, report: reports.get(p)! });
      }
      if (o.heapProfile) {
        for (const p of [treeRun, sessionsRun]) {
          log(`heap snapshot: ${p.label} ...`);
          const file = path.join(snapshotDir, `${p.key}.heapsnapshot`);
          await spawnChild<MemoryReport>(['--child', 'memory', '--label', p.label, '--home', p.home, '--tree', p.tree ? 'on' : 'off', '--snapshot', file]);
          heap.push({ label: p.label, file, summary: summariseHeapSnapshot(file, 25) });
        }
      }
    }
    if (o.overflow) {
      const treeRow = rows.find((r) => r.key === 'tree')?.report;
      const needed = treeRow?.inotifyWatches ?? tree.files + tree.dirs + 50;
      log(`inotify overflow experiment (the tree needs ~${int(needed)} watches; limit ${limit ?? '?'}) ...`);
      try {
        overflow = await overflowExperiment(needed);
      } catch (e) {
        overflow = { skipped: `failed: ${e instanceof Error ? e.message : String(e)}` };
      }
    }
  } finally {
    fs.rmSync(empty, { recursive: true, force: true });
    if (o.keep && heap.length > 0) {
      log(`kept heap snapshots in ${snapshotDir}`);
    } else {
      fs.rmSync(snapshotDir, { recursive: true, force: true });
      heap = heap.map((h) => ({ ...h, file: '(removed; --keep keeps it)' }));
    }
  }

  // 4. Report
  const lines: string[] = [];
  lines.push('');
  lines.push(`agent-guard watch benchmark — node ${process.version}, ${os.cpus().length} CPU (${os.cpus()[0]?.model ?? '?'}), ${os.platform()} ${os.arch()}`);
  lines.push(`workspace ${workspace}: tree of ${int(tree.files)} files in ${int(tree.dirs)} folders under repo/, and src/ (20 files)`);
  lines.push(`corpus ${corpusDir}: ${int(corpus.sessions)} sessions, ${fmtMB(corpus.totalBytes)} (quarter: ${int(corpus.quarterSessions)} sessions, ${fmtMB(corpus.quarterBytes)})`);
  lines.push(
    table([
      ['family', 'files', 'size', 'largest file'],
      ...famStats.map((s) => [s.family, String(s.files), fmtMB(s.bytes), fmtMB(s.largest)]),
    ]),
  );
  if (latency.length > 0) {
    const r0 = latency[0]!.report;
    lines.push('');
    lines.push(
      `(a) latency, ms: append of a violating line → event (${r0.appends} appends per row after ${r0.warmup} warm-up ones; ` +
        `the live file and the fs.watch file take turns, ${r0.gapMs[0]}–${r0.gapMs[1]} ms apart)`,
    );
    const rowsL: string[][] = [['scenario / measured', 'n', 'p50', 'p90', 'p99', 'max', 'mean']];
    for (const l of latency) {
      rowsL.push([`${l.report.scenario} (${int(l.report.sessionsWatched)} sessions watched, started in ${(l.report.startMs / 1000).toFixed(1)} s)`, '', '', '', '', '', '']);
      const row = (name: string, s: Stats): string[] => [`  ${name}`, String(s.n), ms(s.p50), ms(s.p90), ms(s.p99), ms(s.max), ms(s.mean)];
      rowsL.push(row('raw fs.watch callback', l.fsWatch));
      rowsL.push(row('chokidar change event (session watcher)', l.watcherEvent));
      rowsL.push(row('finding announced (findings.onDidChange)', l.finding));
    }
    lines.push(table(rowsL));
    for (const l of latency) {
      const extra: string[] = [];
      if (l.report.beforeWatcherEvent > 0) {
        extra.push(`${l.report.beforeWatcherEvent} found before the watcher event (follow-up look / sweep)`);
      }
      if (l.report.missedFindings > 0) {
        extra.push(`${l.report.missedFindings} findings not announced within 5 s`);
      }
      if (l.report.missedFsWatch > 0) {
        extra.push(`${l.report.missedFsWatch} fs.watch callbacks missed`);
      }
      lines.push(
        `${l.report.scenario}: p99(finding) − p99(fs.watch) = ${ms(l.deltaP99)} ms (target <= ${latencyTargetMs} ms): ${l.pass ? 'PASS' : 'FAIL'}` +
          (extra.length > 0 ? ` — ${extra.join('; ')}` : ''),
      );
    }
    lines.push('while measuring (same child): event-loop delay, GC pauses, sessions the 2 s sweep re-reads, load average (1 min) before → after:');
    lines.push(
      table([
        ['scenario', 'loop delay p50', 'p99', 'max', 'GCs (major)', 'GC total ms', 'GC max ms', 'swept sessions', 'load', 'heap after start'],
        ...latency.map(({ report: r }) => [
          r.scenario,
          ms(r.loopDelay.p50),
          ms(r.loopDelay.p99),
          ms(r.loopDelay.max),
          `${r.gc.count} (${r.gc.major})`,
          ms(r.gc.totalMs),
          ms(r.gc.maxMs),
          `${int(r.recentlyActive)} of ${int(r.sessionsWatched)}`,
          `${r.load[0].toFixed(1)} → ${r.load[1].toFixed(1)}`,
          `${mib(r.heapUsedAfterStart)} MiB`,
        ]),
      ]),
    );
  }
  // Two verdicts, both printed: memory while watching (after the idle period: V8 gives the
  // heap the first read of 1 GB left committed back within one to two minutes) — the target — and the
  // peak during that first read, which is over it.
  const fullReport = rows.find((r) => r.key === 'full')?.report;
  const memoryPass = fullReport ? fullReport.later.rss <= memoryTargetBytes : undefined;
  const peakPass = fullReport ? Math.max(fullReport.peakRssSampled, fullReport.maxRss) <= memoryTargetBytes : undefined;
  if (rows.length > 0) {
    lines.push('');
    lines.push('(b) memory, MiB (fresh child per row; RSS sampled every 50 ms and getrusage maxRSS; "settled" = 1 s after start, after a full GC):');
    lines.push(
      table([
        ['run', 'sessions', 'read', 'start s', 'load', 'peak RSS', 'maxRSS', 'settled RSS', 'heapUsed', 'external', `RSS +${o.idleMs / 1000} s`, 'findings', 'fs.watch', 'inotify', 'warn'],
        ...rows.map(({ label, parallel, report: r }) => [
          label,
          int(r.sessions),
          fmtMB(r.bytesRead),
          `${(r.startMs / 1000).toFixed(1)}${parallel ? '*' : ''}`,
          `${r.load[0].toFixed(1)}→${r.load[1].toFixed(1)}`,
          mib(r.peakRssSampled),
          mib(r.maxRss),
          mib(r.settled.rss),
          mib(r.settled.heapUsed),
          mib(r.settled.external),
          mib(r.later.rss),
          int(r.findings),
          int(r.fsWatchHandles),
          r.inotifyWatches === undefined ? '?' : int(r.inotifyWatches),
          String(r.warnings),
        ]),
      ]),
    );
    lines.push('  * ran side by side with the other starred row (two CPUs): its start time is inflated; load = 1-min load average at child start → monitor started');
    const full = rows.find((r) => r.key === 'full')!.report;
    const peak = Math.max(full.peakRssSampled, full.maxRss);
    const label = rows.find((r) => r.key === 'full')!.label;
    lines.push(`${label}, watching (RSS after ${o.idleMs / 1000} s idle): ${mib(full.later.rss)} MiB (target <= ${mib(memoryTargetBytes)} MiB): ${memoryPass ? 'PASS' : 'FAIL'}`);
    lines.push(`${label}, start-up (peak RSS while reading everything; ${mib(full.settled.rss)} MiB 1 s after): ${mib(peak)} MiB: ${peakPass ? 'within the target too' : 'OVER the target'}`);
    lines.push(`${label}, RSS while idle, every 10 s (MiB): ${full.idleRss.map((x) => mib(x.rss)).join(', ')}`);
    const get = (k: MemoryRow['key']): MemoryReport | undefined => rows.find((r) => r.key === k)?.report;
    const floor = get('floor');
    const treeOnly = get('tree');
    const quarter = get('quarter');
    const sessionsOnly = get('sessions');
    if (floor && treeOnly && quarter) {
      lines.push('breakdown (differences of settled figures):');
      const perTree = treeOnly.fsWatchHandles > 0 ? (treeOnly.settled.rss - floor.settled.rss) / treeOnly.fsWatchHandles : NaN;
      const perTreeHeap = treeOnly.fsWatchHandles > 0 ? (treeOnly.settled.heapUsed - floor.settled.heapUsed) / treeOnly.fsWatchHandles : NaN;
      const bd: string[][] = [['component', 'RSS MiB', 'heapUsed MiB', 'per unit']];
      bd.push(['Node + modules (floor)', mib(floor.settled.rss), mib(floor.settled.heapUsed), '']);
      bd.push([
        `tree watcher (${int(treeOnly.fsWatchHandles)} fs.watch handles)`,
        mib(treeOnly.settled.rss - floor.settled.rss),
        mib(treeOnly.settled.heapUsed - floor.settled.heapUsed),
        `${perTree.toFixed(0)} B RSS, ${perTreeHeap.toFixed(0)} B heap per watched path`,
      ]);
      if (sessionsOnly) {
        bd.push([
          `${int(sessionsOnly.sessions)} sessions, no tree`,
          mib(sessionsOnly.settled.rss - floor.settled.rss),
          mib(sessionsOnly.settled.heapUsed - floor.settled.heapUsed),
          `${((sessionsOnly.settled.heapUsed - floor.settled.heapUsed) / Math.max(1, sessionsOnly.sessions) / 1024).toFixed(1)} KiB heap per session`,
        ]);
      }
      const dn = full.sessions - quarter.sessions;
      bd.push([
        `${int(dn)} more sessions (full − quarter, both with the tree)`,
        mib(full.settled.rss - quarter.settled.rss),
        mib(full.settled.heapUsed - quarter.settled.heapUsed),
        `${((full.settled.heapUsed - quarter.settled.heapUsed) / Math.max(1, dn) / 1024).toFixed(1)} KiB heap per session`,
      ]);
      lines.push(table(bd));
    }
    if (full.attribution) {
      lines.push(`where the heap of "${rows.find((r) => r.key === 'full')!.label}" is: its parts dropped one after another, heap freed by a full GC after each (shared objects go to the later part):`);
      lines.push(
        table([
          ['part dropped', 'heap freed MiB', 'share of heapUsed', 'per session', 'heap left MiB', 'RSS left MiB'],
          ...full.attribution.map((a) => [
            a.part,
            mib(a.freedHeap),
            `${((100 * a.freedHeap) / full.settled.heapUsed).toFixed(0)} %`,
            /sessions|conversations|knowledge|rule state/.test(a.part) && full.sessions > 0 ? `${(a.freedHeap / full.sessions / 1024).toFixed(0)} KiB` : '',
            mib(a.heapUsed),
            mib(a.rss),
          ]),
        ]),
      );
      const conv = full.attribution.find((a) => a.part.startsWith('conversations'));
      if (conv && full.bytesRead > 0) {
        lines.push(`  conversations keep ${(conv.freedHeap / full.bytesRead).toFixed(2)} bytes of heap per transcript byte read`);
      }
    }
    if (memoryPass === false) {
      lines.push('target missed: the table above says which part holds the heap; --heap-profile adds heap-snapshot summaries (by constructor) of "tree only" and "sessions only".');
    }
  }
  for (const h of heap) {
    lines.push('');
    if ('error' in h.summary) {
      lines.push(`heap snapshot of "${h.label}": ${h.summary.error}`);
      continue;
    }
    lines.push(heapTable(h.label, h.summary));
  }
  lines.push('');
  const treeRow = rows.find((r) => r.key === 'tree')?.report;
  const fullRow = rows.find((r) => r.key === 'full')?.report;
  lines.push(
    `inotify: max_user_watches ${limit === undefined ? '?' : int(limit)} (per user, all processes), max_user_instances ${instances ?? '?'}` +
      (treeRow?.inotifyWatches !== undefined ? `; the tree alone takes ${int(treeRow.inotifyWatches)}` : '') +
      (fullRow?.inotifyWatches !== undefined ? `, sessions + tree ${int(fullRow.inotifyWatches)}` : '') +
      (limit !== undefined && fullRow?.inotifyWatches !== undefined ? ` (${((100 * fullRow.inotifyWatches) / limit).toFixed(0)} % of the limit)` : ''),
  );
  if (overflow) {
    if ('skipped' in overflow) {
      lines.push(`inotify overflow experiment: skipped — ${overflow.skipped}`);
    } else {
      const f = (x: OverflowReport['watchedFile']): string =>
        x === undefined ? 'none found' : `${x.path}: ${x.changeSeen ? `change seen in ${ms(x.ms ?? NaN)} ms` : 'change NOT seen within 3 s'}`;
      lines.push(
        `inotify overflow experiment (as nobody, ${int(overflow.heldByHogs)} of ${int(overflow.limit ?? 0)} watches taken by hog processes first):`,
      );
      lines.push(
        `  monitor started in ${(overflow.startMs / 1000).toFixed(1)} s holding ${overflow.inotifyWatches ?? '?'} watches (${int(overflow.fsWatchHandles)} fs.watch handles); ` +
          `${int(overflow.failedWatches)} paths could not be watched (${int(overflow.failedFiles)} files, ${int(overflow.failedDirs)} folders; the workspace root ${overflow.rootWatched ? 'is' : 'is NOT'} watched); ` +
          `${int(overflow.warnings)} warnings logged, e.g.`,
      );
      for (const s of overflow.logSamples) {
        lines.push(`    ${s.length > 160 ? s.slice(0, 157) + '...' : s}`);
      }
      lines.push(`  tracked file whose watch succeeded — ${f(overflow.watchedFile)}`);
      lines.push(`  tracked file whose watch failed    — ${f(overflow.unwatchedFile)}`);
      const nt = (x: OverflowReport['newSession']): string =>
        x.found ? `finding in ${ms(x.ms ?? NaN)} ms${x.viaWatcherEvent ? ' (watcher event)' : ' (without a watcher event)'}` : 'NOT found within 10 s';
      lines.push(`  new session in the project folder, with a violating line, after start — ${nt(overflow.newSession)}`);
      lines.push(`  new sub-agent transcript in a new folder, after start             — ${nt(overflow.newSubagent)}`);
      lines.push(`  then a violating line appended to that sub-agent transcript      — ${nt(overflow.subagentAppend)}`);
    }
  }
  const seconds = (Date.now() - started) / 1000;
  lines.push('');
  lines.push(`total run time ${seconds.toFixed(1)} s`);
  console.log(lines.join('\n'));

  const latencyPass = latency.length > 0 ? latency.every((l) => l.pass) : undefined;
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model,
    workspace,
    tree: { ...tree, generatedSeconds: treeSeconds },
    corpus: {
      dir: corpusDir,
      sessions: corpus.sessions,
      totalBytes: corpus.totalBytes,
      quarterSessions: corpus.quarterSessions,
      quarterBytes: corpus.quarterBytes,
      byFamily: famStats,
      seeds: seeds.map((d) => d.rel),
      generatedSeconds: corpusSeconds,
    },
    latency: {
      targetMs: latencyTargetMs,
      pass: latencyPass,
      scenarios: latency.map((l) => {
        const { fsWatch, watcherEvent, finding, ...rest } = l.report;
        return {
          ...rest,
          stats: { fsWatch: l.fsWatch, watcherEvent: l.watcherEvent, finding: l.finding },
          deltaP99: l.deltaP99,
          pass: l.pass,
          samples: { fsWatch, watcherEvent, finding },
        };
      }),
    },
    memory: { targetBytes: memoryTargetBytes, pass: memoryPass, peakPass, idleMs: o.idleMs, runs: rows.map((r) => ({ key: r.key, parallel: r.parallel, ...r.report })) },
    heapSnapshots: heap,
    inotify: { maxUserWatches: limit, maxUserInstances: instances, overflow },
    seconds,
  };
  fs.mkdirSync(path.dirname(o.out), { recursive: true });
  fs.writeFileSync(o.out, `${JSON.stringify(result, null, 2)}\n`);
  log(`results written to ${path.relative(process.cwd(), o.out) || o.out}`);
  const failed = latencyPass === false || memoryPass === false;
  return o.strict && failed ? 1 : 0;
}

async function entry(): Promise<void> {
  let o: Options;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    process.exitCode = 2;
    return;
  }
  if (o.summarise) {
    const sum = summariseHeapSnapshot(o.summarise, 40);
    console.log('error' in sum ? sum.error : heapTable(o.summarise, sum));
    return;
  }
  switch (o.child) {
    case 'latency':
      await latencyChild(o);
      return;
    case 'memory':
      await memoryChild(o);
      return;
    case 'overflow':
      await overflowChild(o);
      return;
    default:
      process.exitCode = await main(o);
  }
}

entry().catch((e: unknown) => {
  console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
  process.exitCode = 1;
});
