import { parentPort } from 'node:worker_threads';
// The real worker: it answers each file once its check is done, after this file's listener ran.
import '../../../src/io/checkWorker';

/**
 * check's real worker thread (src/io/checkWorker), except that it dies, as a thread killed by
 * a crash or an exhausted heap would, when it is sent a file whose name holds `crash`.
 */
parentPort?.on('message', (job: { file: string }) => {
  if (job.file.includes('crash')) {
    process.exit(7);
  }
});
