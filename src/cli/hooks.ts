import { UsageError, type CliIo } from './io';

export const hooksUsage = `Usage: agent-guard hooks install|uninstall|status\n`;

/** Placeholder until the hooks installer lands. */
export function runHooks(_argv: string[], _io: CliIo): Promise<number> {
  return Promise.reject(new UsageError('hooks is not implemented yet'));
}
