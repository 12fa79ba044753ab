import { existsSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { RuleConfig } from '../core/config/ruleConfig';
import { errnoCode, errorMessage } from '../core/lib/errors';
import { adapters } from '../core/parse/registry';
import { allRules } from '../core/rules/all';
import { checkFile, type CheckedFile } from './checkFile';
import { HookLedger } from './guard/ledger';

/**
 * `check` over many files on every core. Each file is checked whole by one worker thread, with
 * the same adapters and rules as in-process (`checkFile`): files are independent, so the findings
 * are exactly those of a serial run, in the order the files were given.
 */

export interface CheckManyOptions {
  config: RuleConfig;
  /** The guard hook's ledger file of the workspace, when check binds calls to approvals. */
  ledgerFile?: string;
  /** At most this many worker threads; 1 checks in this thread. */
  jobs: number;
  /** The worker's script (tests); default: checkWorker.js beside this module (or bundle). */
  workerScript?: string;
  /** A worker per this many bytes of transcripts at most (tests); default `bytesPerWorker`. */
  bytesPerWorker?: number;
  /** Keep Codex transcripts' timed accesses (CheckFileOptions.accessLog). */
  accessLog?: boolean;
}

/** A file's result, or why it could not be checked (`code` as an errno code when it is one). */
export type CheckOutcome = { file: string; result: CheckedFile } | { file: string; error: { code: string; message: string } };

/** What the main thread sends a worker, and what it sends back. */
export interface CheckJob {
  index: number;
  file: string;
}
export type CheckReply = { ready: true } | { index: number; result: CheckedFile } | { index: number; error: { code: string; message: string } };
export interface CheckWorkerData {
  config: RuleConfig;
  ledgerFile?: string;
  accessLog?: boolean;
}

/**
 * A worker costs its start (loading the bundle, tens of milliseconds) and its own heap: one per
 * this many bytes of transcripts at most, so that a handful of small files stays in-process.
 */
const bytesPerWorker = 4 * 1000 * 1000;
/** More threads than this add memory, not speed (the work is parse-bound and files are few MB). */
const maxJobs = 8;

/**
 * One `check` thread keeps about 1.3 cores busy: V8's concurrent marking, sweeping and
 * compiling run beside it. A thread per core therefore oversubscribes the machine. Measured on
 * 2 cores (256 MB corpus, 519 real Codex rollouts, 163 mixed real files): two threads were no
 * faster than one (0.96–1.04×, and 0.8× on 64 MB), and took 80 MB more memory.
 */
const coresPerThread = 1.3;

/** The default `--jobs` for this many cores: as many threads as the cores can keep fed, capped. */
export function defaultJobs(cores: number = os.availableParallelism()): number {
  return Math.max(1, Math.min(maxJobs, Math.floor(cores / coresPerThread)));
}

/** The outcomes, file by file, and how they were reached. */
export interface CheckRun {
  outcomes: CheckOutcome[];
  /** Worker threads started (0: checked in this thread). */
  threads: number;
  /** Why the worker threads could not check the files (then this thread did). */
  threadProblem?: string;
}

export async function checkFiles(files: readonly string[], opts: CheckManyOptions): Promise<CheckRun> {
  const sizes = files.map(sizeOf);
  const total = sizes.reduce((a, b) => a + b, 0);
  const script = opts.workerScript ?? path.join(__dirname, 'checkWorker.js');
  const workers = Math.min(opts.jobs, files.length, Math.ceil(total / (opts.bytesPerWorker ?? bytesPerWorker)));
  if (workers <= 1) {
    return { outcomes: await checkSerially(files, opts), threads: 0 };
  }
  if (!existsSync(script)) {
    return { outcomes: await checkSerially(files, opts), threads: 0, threadProblem: `${script} is missing` };
  }
  // Largest first: the last file to start is a small one, so no thread idles behind a big one.
  const order = files.map((_, i) => i).sort((a, b) => sizes[b]! - sizes[a]! || a - b);
  const pool = new WorkerPool(files, order, workers, script, { config: opts.config, ...(opts.ledgerFile ? { ledgerFile: opts.ledgerFile } : {}), ...(opts.accessLog ? { accessLog: true } : {}) });
  const outcomes = await pool.run();
  // Workers that could not start at all (a broken install): what they left is checked here.
  const left = outcomes.flatMap((o, i) => (o === undefined ? [i] : []));
  if (left.length > 0) {
    const serial = await checkSerially(
      left.map((i) => files[i]!),
      opts,
    );
    left.forEach((i, k) => (outcomes[i] = serial[k]));
  }
  return { outcomes: outcomes as CheckOutcome[], threads: pool.started, ...(pool.startFailure ? { threadProblem: pool.startFailure } : {}) };
}

async function checkSerially(files: readonly string[], opts: CheckManyOptions): Promise<CheckOutcome[]> {
  const services = opts.ledgerFile ? await ledgerServices(opts.ledgerFile) : undefined;
  const out: CheckOutcome[] = [];
  for (const file of files) {
    try {
      out.push({ file, result: await checkFile(file, { adapters, rules: allRules, config: opts.config, ...(services ? { services } : {}), ...(opts.accessLog ? { accessLog: true } : {}) }) });
    } catch (e) {
      out.push({ file, error: describeFailure(e) });
    }
  }
  return out;
}

/** The rule services of a ledger file: none when it is missing or empty (as check always did). */
export async function ledgerServices(file: string): Promise<{ hookLedger: HookLedger } | undefined> {
  const ledger = await HookLedger.load(file);
  return ledger.all().length > 0 ? { hookLedger: ledger } : undefined;
}

export function describeFailure(e: unknown): { code: string; message: string } {
  return { code: errnoCode(e) ?? 'EIO', message: errorMessage(e) };
}

/** A stat failure is the worker's to report, with the rest of that file's errors. */
function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * Hands files to workers one at a time, each as soon as its worker is free. A worker that dies
 * (a crash, an exhausted heap on some hostile file) costs that one file, reported as a failure
 * with its reason; a new worker takes the files still waiting. Workers that cannot even start
 * take nothing: the files they leave are `undefined` in the outcomes.
 */
class WorkerPool {
  private readonly outcomes: (CheckOutcome | undefined)[];
  private next = 0;
  private pending = 0;
  private readonly live = new Set<Worker>();
  private done!: (o: (CheckOutcome | undefined)[]) => void;
  /** A worker failed before it was ready: no more are started. */
  private broken = false;
  /** Why the first worker that failed before it was ready failed. */
  startFailure: string | undefined;
  started = 0;

  constructor(
    private readonly files: readonly string[],
    private readonly order: readonly number[],
    private readonly size: number,
    private readonly script: string,
    private readonly data: CheckWorkerData,
  ) {
    this.outcomes = files.map(() => undefined);
  }

  run(): Promise<(CheckOutcome | undefined)[]> {
    const result = new Promise<(CheckOutcome | undefined)[]>((resolve) => (this.done = resolve));
    for (let i = 0; i < this.size; i++) {
      this.spawn();
    }
    return result;
  }

  private spawn(): void {
    const worker = new Worker(this.script, { workerData: this.data });
    this.started++;
    this.live.add(worker);
    let current: number | undefined;
    let ready = false;
    const give = (): void => {
      if (this.next >= this.order.length || this.broken) {
        current = undefined;
        this.retire(worker);
        return;
      }
      current = this.order[this.next++]!;
      this.pending++;
      worker.postMessage({ index: current, file: this.files[current]! } satisfies CheckJob);
    };
    worker.on('message', (reply: CheckReply) => {
      if ('ready' in reply) {
        ready = true;
        give();
        return;
      }
      this.settle(reply.index, 'result' in reply ? { file: this.files[reply.index]!, result: reply.result } : { file: this.files[reply.index]!, error: reply.error });
      give();
    });
    // 'error' (an uncaught exception in the worker) is always followed by 'exit'.
    let failure: unknown;
    worker.on('error', (e) => (failure = e));
    worker.on('exit', (code) => {
      if (!ready) {
        this.broken = true;
        this.startFailure ??= `a worker thread could not start: ${failure instanceof Error ? failure.message : `it exited with code ${code}`}`;
      }
      const lost = this.live.delete(worker) && current !== undefined;
      if (lost) {
        const why = failure instanceof Error ? failure.message : `the worker thread exited with code ${code}`;
        this.settle(current!, { file: this.files[current!]!, error: { code: 'EWORKER', message: `checking it stopped its worker thread: ${why}` } });
        current = undefined;
        if (this.next < this.order.length && !this.broken) {
          this.spawn();
        }
      }
      this.finishIfDone();
    });
  }

  private settle(index: number, outcome: CheckOutcome): void {
    this.outcomes[index] = outcome;
    this.pending--;
  }

  private retire(worker: Worker): void {
    this.live.delete(worker);
    void worker.terminate();
    this.finishIfDone();
  }

  private finishIfDone(): void {
    if (this.pending === 0 && this.live.size === 0) {
      this.done(this.outcomes);
    }
  }
}
