import { parentPort } from 'node:worker_threads';

/** A worker that cannot start, as with a broken install: it throws before it is ready. */
if (parentPort) {
  throw new Error('this worker cannot start');
}
