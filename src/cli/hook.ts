import type { CliIo } from './io';

/**
 * The guard hook (`agent-guard hook`, bundled on its own as dist/hook.js). Placeholder until
 * the guard lands: it allows everything.
 */
export function runHookCommand(_argv: string[], _io: CliIo): Promise<number> {
  return Promise.resolve(0);
}

if (require.main === module) {
  process.exitCode = 0;
}
