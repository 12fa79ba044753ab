/**
 * Decision time of the guard hook: the real `node dist/hook.js` process, spawn to exit, with
 * a Claude Code PreToolUse payload on stdin, against a guard service run by a real
 * `agent-guard watch` — beside a bare `node -e ''` start in the same run, interleaved.
 *
 *   npm run bench:hook                         builds, then 200 runs of each row
 *   node out/bench/hook.bench.js --runs 500    after a build
 *
 * Rows (each run is a fresh process; rows alternate run by run so load hits them alike):
 * - bare:   `node -e ''` — the floor any Node hook pays.
 * - allow:  a fresh read then an Edit: the hook finds the socket, asks, the service refreshes
 *           the file's hash, judges, records; the hook exits 0.
 * - deny:   an Edit of a file the session never read: the same path, answered with exit 2.
 * - skip:   a tool the guard does not judge (VS Code runs every hook for every tool): no socket.
 * - round trip: the question alone, from this process over the socket (no process start).
 * - zod:    `node -e "require('zod')"`, for reference: why the hook checks payloads by hand.
 * Target: p99(allow) ≤ 1.3 × p99(bare), and under 100 ms.
 *
 * Results go to stdout and to bench/results/hook.json; progress goes to stderr.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { askService } from '../src/io/guard/client';
import { socketPathFor } from '../src/io/guard/socketPath';
import { log, stats, table, type Stats } from './support/report';

const repoRoot = ((): string => {
  for (let d = __dirname; ; d = path.dirname(d)) {
    if (existsSync(path.join(d, 'package.json')) && existsSync(path.join(d, 'bench'))) {
      return d;
    }
    if (path.dirname(d) === d) {
      return process.cwd();
    }
  }
})();

const ratioTarget = 1.3;
const absoluteTargetMs = 100;

interface Options {
  runs: number;
  out: string;
}

function parseArgs(argv: string[]): Options {
  const o: Options = { runs: 200, out: path.join(repoRoot, 'bench', 'results', 'hook.json') };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--runs') {
      o.runs = Math.max(10, Number(argv[++i]));
    } else if (a === '--out') {
      o.out = path.resolve(argv[++i]!);
    } else {
      throw new Error(`unknown option ${a}\nusage: node out/bench/hook.bench.js [--runs N] [--out FILE]`);
    }
  }
  return o;
}

/** Wall time of one process, spawn to exit, with `input` on stdin; checks its exit code. */
function timeProcess(args: string[], input: string, env: NodeJS.ProcessEnv, expectCode: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - t0;
      if (code !== expectCode) {
        reject(new Error(`${args.join(' ')} exited ${code}, expected ${expectCode}: ${err}`));
      } else {
        resolve(ms);
      }
    });
    child.stdin.end(input);
  });
}

async function startWatch(ws: string, home: string, env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; socket: string }> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'dist', 'cli.js'), 'watch'], {
    cwd: ws,
    env: { ...env, HOME: home, CLAUDE_CONFIG_DIR: path.join(home, 'claude'), CODEX_HOME: path.join(home, 'codex') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const deadline = Date.now() + 30_000;
  while (!err.includes('Press Ctrl-C')) {
    if (Date.now() > deadline || child.exitCode !== null) {
      throw new Error(`agent-guard watch did not start:\n${err}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const m = /\n {2}guard +(\S+\.sock)\n/.exec(err);
  if (!m) {
    throw new Error(`agent-guard watch started no guard service:\n${err}`);
  }
  return { child, socket: m[1]! };
}

async function main(): Promise<number> {
  const o = parseArgs(process.argv.slice(2));
  const hook = path.join(repoRoot, 'dist', 'hook.js');
  if (!existsSync(hook) || !existsSync(path.join(repoRoot, 'dist', 'cli.js'))) {
    throw new Error('dist/hook.js or dist/cli.js is missing: run `node esbuild.config.mjs` first');
  }
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'agent-guard-hookbench-'));
  const ws = path.join(scratch, 'ws');
  const dir = path.join(scratch, 'gd');
  mkdirSync(path.join(ws, 'src'), { recursive: true });
  const file = path.join(ws, 'src', 'app.ts');
  const unread = path.join(ws, 'src', 'unread.ts');
  writeFileSync(file, 'export const a = 1;\n'.repeat(200));
  writeFileSync(unread, 'export const b = 2;\n');
  const env: NodeJS.ProcessEnv = { ...process.env, AGENT_GUARD_DIR: dir };
  delete env['AGENT_GUARD_FAIL_CLOSED'];
  delete env['AGENT_GUARD_TIMEOUT_MS'];
  const { child, socket } = await startWatch(ws, scratch, env);
  try {
    if (socket !== socketPathFor(ws, dir)) {
      throw new Error(`unexpected socket ${socket}`);
    }
    const session = { session_id: 'bench-1', transcript_path: path.join(scratch, 'claude', 'projects', 'x', 'bench-1.jsonl'), cwd: ws, permission_mode: 'default' };
    const read = JSON.stringify({ ...session, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: file }, tool_use_id: 'toolu_read', tool_response: {} });
    const edit = (id: string, target: string): string =>
      JSON.stringify({ ...session, hook_event_name: 'PreToolUse', tool_name: 'Edit', tool_input: { file_path: target, old_string: 'a = 1', new_string: 'a = 2', replace_all: false }, tool_use_id: id });
    const skip = JSON.stringify({ ...session, hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_use_id: 'toolu_bash' });
    await timeProcess([hook, '--agent', 'claude'], read, env, 0);

    // Warm-up: page cache, the service's JIT.
    for (let i = 0; i < 10; i++) {
      await timeProcess(['-e', ''], '', env, 0);
      await timeProcess([hook, '--agent', 'claude'], edit(`warm${i}`, file), env, 0);
      await timeProcess([hook, '--agent', 'claude'], edit(`warmd${i}`, unread), env, 2);
    }

    const rows: Record<'bare' | 'allow' | 'deny' | 'skip' | 'roundTrip' | 'zod', number[]> = { bare: [], allow: [], deny: [], skip: [], roundTrip: [], zod: [] };
    const zodRuns = Math.max(20, Math.round(o.runs / 4));
    const started = Date.now();
    for (let i = 0; i < o.runs; i++) {
      // Rotate the order so no row always runs right after another.
      const order = [
        async () => rows.bare.push(await timeProcess(['-e', ''], '', env, 0)),
        async () => rows.allow.push(await timeProcess([hook, '--agent', 'claude'], edit(`toolu_a${i}`, file), env, 0)),
        async () => rows.deny.push(await timeProcess([hook, '--agent', 'claude'], edit(`toolu_d${i}`, unread), env, 2)),
        async () => rows.skip.push(await timeProcess([hook, '--agent', 'claude'], skip, env, 0)),
      ];
      for (let k = 0; k < order.length; k++) {
        await order[(i + k) % order.length]!();
      }
      const t0 = performance.now();
      const r = await askService(
        socket,
        { v: 1, type: 'pre', agent: 'claude', sessionId: 'bench-1', transcriptPath: session.transcript_path, cwd: ws, tool: 'Edit', toolUseId: `toolu_rt${i}`, paths: [{ path: file, op: 'edit' }] },
        5000,
      );
      rows.roundTrip.push(performance.now() - t0);
      if (r.kind !== 'answer' || !r.response.ok || r.response.type !== 'verdict' || r.response.verdict.action !== 'allow') {
        throw new Error(`unexpected answer ${JSON.stringify(r)}`);
      }
      if (i < zodRuns) {
        rows.zod.push(await timeProcess(['-e', "require('zod')"], '', { ...env, NODE_PATH: path.join(repoRoot, 'node_modules') }, 0));
      }
      if ((i + 1) % 50 === 0) {
        log(`${i + 1}/${o.runs} rounds (${((Date.now() - started) / 1000).toFixed(0)} s)`);
      }
    }

    const s = Object.fromEntries(Object.entries(rows).map(([k, v]) => [k, stats(v)])) as Record<keyof typeof rows, Stats>;
    const ratioP99 = s.allow.p99 / s.bare.p99;
    const ratioP50 = s.allow.p50 / s.bare.p50;
    const pass = ratioP99 <= ratioTarget && s.allow.p99 < absoluteTargetMs;
    const f = (x: number): string => x.toFixed(1);
    const labels: Record<keyof typeof rows, string> = {
      bare: "node -e ''",
      allow: 'hook: read then Edit, allowed',
      deny: 'hook: Edit never read, denied',
      skip: 'hook: Bash, not judged',
      roundTrip: 'question only (socket round trip)',
      zod: "node -e \"require('zod')\"",
    };
    const lines = [
      '',
      `agent-guard hook benchmark — node ${process.version}, ${os.cpus().length} CPU (${os.cpus()[0]?.model ?? '?'}), ${os.platform()} ${os.arch()}, load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`,
      `${o.runs} runs of each process row, interleaved; wall time from spawn to exit, ms`,
      table([
        ['', 'runs', 'min', 'p50', 'p90', 'p99', 'max', 'mean'],
        ...(Object.keys(rows) as (keyof typeof rows)[]).map((k) => [labels[k], String(s[k].n), f(s[k].min), f(s[k].p50), f(s[k].p90), f(s[k].p99), f(s[k].max), f(s[k].mean)]),
      ]),
      '',
      `hook (allow) / bare node: p50 ${ratioP50.toFixed(2)}×, p99 ${ratioP99.toFixed(2)}× (target ≤ ${ratioTarget}×); hook p99 ${f(s.allow.p99)} ms (target < ${absoluteTargetMs} ms): ${pass ? 'PASS' : 'FAIL'}`,
      `hook cost over a bare start at p50: ${f(s.allow.p50 - s.bare.p50)} ms (allow), ${f(s.deny.p50 - s.bare.p50)} ms (deny), ${f(s.skip.p50 - s.bare.p50)} ms (skip); zod alone would add ${f(s.zod.p50 - s.bare.p50)} ms`,
    ];
    console.log(lines.join('\n'));
    mkdirSync(path.dirname(o.out), { recursive: true });
    writeFileSync(
      o.out,
      JSON.stringify(
        {
          date: new Date().toISOString(),
          node: process.version,
          platform: `${os.platform()} ${os.arch()}`,
          cpus: os.cpus().length,
          cpuModel: os.cpus()[0]?.model,
          loadAverage: os.loadavg(),
          runs: o.runs,
          stats: s,
          ratioP50,
          ratioP99,
          target: { ratio: ratioTarget, absoluteMs: absoluteTargetMs },
          pass,
        },
        null,
        2,
      ) + '\n',
    );
    log(`results written to ${path.relative(process.cwd(), o.out) || o.out}`);
    return 0;
  } finally {
    child.kill('SIGINT');
    await new Promise((r) => child.once('exit', r));
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
    process.exitCode = 1;
  },
);
