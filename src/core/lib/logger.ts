/**
 * The logging contract of the core. A vscode `LogOutputChannel` satisfies it as is;
 * the CLI adapts stderr to it. Core code never writes to the console.
 */
export interface Logger {
  trace(message: string, ...args: unknown[]): void;
  debug(message: string, ...args: unknown[]): void;
  info(message: string, ...args: unknown[]): void;
  warn(message: string, ...args: unknown[]): void;
  error(message: string | Error, ...args: unknown[]): void;
}

export const nullLogger: Logger = {
  trace() {},
  debug() {},
  info() {},
  warn() {},
  error() {},
};

/**
 * Prefixes every entry with a component tag, e.g. `[tail]`: for a part whose lines carry none.
 * The parts in src/io that tag their own (`[monitor] …`, `[guard] …`) get a host's log as it is.
 */
export function scoped(logger: Logger, component: string): Logger {
  const p = `[${component}] `;
  return {
    trace: (m, ...a) => logger.trace(p + m, ...a),
    debug: (m, ...a) => logger.debug(p + m, ...a),
    info: (m, ...a) => logger.info(p + m, ...a),
    warn: (m, ...a) => logger.warn(p + m, ...a),
    error: (m, ...a) => logger.error(typeof m === 'string' ? p + m : m, ...a),
  };
}

/** Renders an unknown thrown value for a log line: the stack for Errors, else a string. */
export function describeError(e: unknown): string {
  if (e instanceof Error) {
    return e.stack ?? `${e.name}: ${e.message}`;
  }
  return String(e);
}
