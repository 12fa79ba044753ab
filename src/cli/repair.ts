import { exitCodes, UsageError, type CliIo } from './io';

export const repairUsage = `Usage: agent-guard repair [--write] [--force] FILE\n`;

/** Placeholder until the repair command lands. */
export function runRepair(_argv: string[], _io: CliIo): Promise<number> {
  return Promise.reject(new UsageError('repair is not implemented yet'));
}

void exitCodes;
