import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { checkFiles as checkRun, defaultJobs, type CheckManyOptions, type CheckOutcome } from '../../../src/io/checkPool';
import { fixture, repoRoot } from '../support/repo';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ag-pool-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const real = [
  fixture('real', 'claude-code', 'spotter', 'tool_heavy.jsonl'),
  fixture('real', 'codex', 'kvsankar-agent-history', 'rejections-codex_with_escalation.jsonl'),
  fixture('real', 'claude-code', 'spotter', 'short.jsonl'),
];
const config = { levels: {}, options: {} };
const built = (name: string): string => path.join(repoRoot(), 'out', 'src', 'io', name);
const support = (name: string): string => path.join(repoRoot(), 'out', 'test', 'unit', 'support', name);
/** Worker threads even for these small files: one per byte at most. */
const threaded = (more: Partial<CheckManyOptions> = {}): CheckManyOptions => ({ config, jobs: 2, bytesPerWorker: 1, workerScript: built('checkWorker.js'), ...more });

const checkFiles = async (files: readonly string[], opts: CheckManyOptions): Promise<CheckOutcome[]> => (await checkRun(files, opts)).outcomes;

/** What a caller compares: each file's findings, or its error code. */
function digest(outcomes: CheckOutcome[]): unknown[] {
  return outcomes.map((o) => ('error' in o ? { file: o.file, error: o.error.code } : { file: o.file, agent: o.result.agent, session: o.result.session, findings: o.result.findings }));
}

void describe('checkFiles: check over many files on worker threads', () => {
  void test('the same findings as one file at a time, in the order the files were given', async () => {
    const missing = path.join(tmp, 'missing.jsonl');
    const files = [...real, missing, real[1]!];
    const serial = await checkFiles(files, { config, jobs: 1 });
    const run = await checkRun(files, threaded());
    assert.deepEqual([run.threads, run.threadProblem], [2, undefined]);
    const parallel = run.outcomes;
    assert.deepEqual(digest(parallel), digest(serial));
    assert.deepEqual(
      parallel.map((o) => o.file),
      files,
    );
    // Not vacuous: the files have findings, and the unreadable one is an error, not a crash.
    const codex = parallel[1]!;
    assert.ok('result' in codex && codex.result.findings.filter((f) => f.rule === 'missing-result').length === 2);
    const gone = parallel[3]!;
    assert.ok('error' in gone && gone.error.code === 'ENOENT', JSON.stringify(gone));
  });

  void test('a worker thread that dies costs only the file it was on; the rest are still checked', async () => {
    const dir = path.join(tmp, 'crashes');
    mkdirSync(dir);
    const crash = path.join(dir, 'crash.jsonl');
    copyFileSync(real[2]!, crash);
    const files = [real[0]!, crash, real[1]!, real[2]!];
    const outcomes = await checkFiles(files, threaded({ workerScript: support('crashingCheckWorker.js') }));
    const lost = outcomes[1]!;
    assert.ok('error' in lost, 'the crashing file is reported');
    assert.equal(lost.error.code, 'EWORKER');
    assert.match(lost.error.message, /worker thread exited with code 7/);
    const others = await checkFiles([real[0]!, real[1]!, real[2]!], { config, jobs: 1 });
    assert.deepEqual(digest([outcomes[0]!, outcomes[2]!, outcomes[3]!]), digest(others));
  });

  void test('workers that cannot start: every file is checked in this thread instead', async () => {
    const run = await checkRun(real, threaded({ workerScript: support('brokenCheckWorker.js') }));
    assert.deepEqual(digest(run.outcomes), digest(await checkFiles(real, { config, jobs: 1 })));
    assert.ok(run.outcomes.every((o) => 'result' in o));
    assert.match(run.threadProblem ?? '', /^a worker thread could not start: this worker cannot start$/);
    const gone = await checkRun(real, threaded({ workerScript: path.join(tmp, 'no-such-worker.js') }));
    assert.deepEqual(digest(gone.outcomes), digest(run.outcomes));
    assert.match(gone.threadProblem ?? '', /no-such-worker\.js is missing/);
  });

  void test('the shipped bundle has its worker beside the CLI, and it checks as the CLI does', async () => {
    const bundled = path.join(repoRoot(), 'dist', 'checkWorker.js');
    const run = await checkRun(real, threaded({ workerScript: bundled }));
    assert.deepEqual([run.threads, run.threadProblem], [2, undefined]);
    assert.deepEqual(digest(run.outcomes), digest(await checkFiles(real, { config, jobs: 1 })));
  });

  void test('a rule level set for the run reaches the worker threads', async () => {
    const off = { levels: { 'missing-result': 'off' as const }, options: {} };
    const outcomes = await checkFiles([real[1]!, real[0]!], threaded({ config: off }));
    const codex = outcomes[0]!;
    assert.ok('result' in codex);
    assert.equal(codex.result.findings.filter((f) => f.rule === 'missing-result').length, 0);
  });
});

void describe('defaultJobs: threads the cores can keep fed', () => {
  void test('one thread on two cores, where a second thread gained nothing; fewer threads than cores above', () => {
    // A check thread keeps about 1.3 cores busy (V8's concurrent GC and compiler beside it).
    assert.deepEqual(
      [1, 2, 3, 4, 8, 16, 64].map((cores) => defaultJobs(cores)),
      [1, 1, 2, 3, 6, 8, 8],
    );
  });
});
