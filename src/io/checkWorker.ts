import { parentPort, workerData } from 'node:worker_threads';
import { adapters } from '../core/parse/registry';
import { allRules } from '../core/rules/all';
import { checkFile } from './checkFile';
import { describeFailure, ledgerServices, type CheckJob, type CheckReply, type CheckWorkerData } from './checkPool';

/**
 * A worker thread of `check` (see checkPool): checks the files it is sent, one at a time, and
 * sends each file's findings back. The ledger is read once, as a serial run reads it once.
 */
async function serve(): Promise<void> {
  const port = parentPort;
  if (!port) {
    throw new Error('checkWorker runs as a worker thread of check');
  }
  const data = workerData as CheckWorkerData;
  const services = data.ledgerFile ? await ledgerServices(data.ledgerFile) : undefined;
  port.on('message', (job: CheckJob) => {
    checkFile(job.file, { adapters, rules: allRules, config: data.config, ...(services ? { services } : {}), ...(data.accessLog ? { accessLog: true } : {}) }).then(
      (result) => port.postMessage({ index: job.index, result } satisfies CheckReply),
      (e: unknown) => port.postMessage({ index: job.index, error: describeFailure(e) } satisfies CheckReply),
    );
  });
  port.postMessage({ ready: true } satisfies CheckReply);
}

void serve();
