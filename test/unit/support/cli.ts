import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from './repo';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI (dist/cli.js) as a real process. `npm test` builds it first. */
export function cli(args: string[], opts: { env?: Record<string, string | undefined>; cwd?: string; input?: string; asUser?: number; maxBuffer?: number } = {}): CliRun {
  const script = path.join(repoRoot(), 'dist', 'cli.js');
  if (!existsSync(script)) {
    throw new Error('dist/cli.js is missing: run `npm run build` first');
  }
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, ...opts.env })) {
    if (v !== undefined) {
      env[k] = v;
    }
  }
  let command = process.execPath;
  let argv = [script, ...args];
  if (opts.asUser !== undefined) {
    // Root ignores permission bits: drop to another user to see what a user would see.
    command = 'setpriv';
    argv = [`--reuid=${opts.asUser}`, `--regid=${opts.asUser}`, '--clear-groups', process.execPath, ...argv];
  }
  const r = spawnSync(command, argv, { env, cwd: opts.cwd ?? repoRoot(), encoding: 'utf8', input: opts.input ?? '', timeout: 60_000, ...(opts.maxBuffer !== undefined ? { maxBuffer: opts.maxBuffer } : {}) });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A CLI process left running (`watch`), with what it printed so far. */
export interface CliProcess {
  child: ChildProcess;
  out(): string;
  err(): string;
  /** "exit N" or "killed by SIGNAL". */
  exited: Promise<string>;
}

/** Starts the built CLI as a real process and leaves it running. */
export function spawnCli(args: string[], opts: { env?: Record<string, string | undefined>; cwd?: string; asUser?: number } = {}): CliProcess {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, ...opts.env })) {
    if (v !== undefined) {
      env[k] = v;
    }
  }
  const argv = [path.join(repoRoot(), 'dist', 'cli.js'), ...args];
  // As in `cli`: root ignores permission bits.
  const child =
    opts.asUser !== undefined
      ? spawn('setpriv', [`--reuid=${opts.asUser}`, `--regid=${opts.asUser}`, '--clear-groups', process.execPath, ...argv], { env, cwd: opts.cwd ?? repoRoot() })
      : spawn(process.execPath, argv, { env, cwd: opts.cwd ?? repoRoot() });
  let out = '';
  let err = '';
  child.stdout?.on('data', (b: Buffer) => (out += b.toString()));
  child.stderr?.on('data', (b: Buffer) => (err += b.toString()));
  const exited = new Promise<string>((resolve) => child.on('exit', (code, signal) => resolve(code === null ? `killed by ${signal}` : `exit ${code}`)));
  return { child, out: () => out, err: () => err, exited };
}
