/**
 * Typed errors: each carries a `reason` discriminator and a static `is()` guard, so
 * callers branch on values, never on message text.
 */
export type GuardErrorReason =
  | 'usage'
  | 'io'
  | 'not-found'
  | 'permission'
  | 'invalid-input'
  | 'timeout'
  | 'refused';

export class AgentGuardError extends Error {
  override readonly name = 'AgentGuardError';
  constructor(
    readonly reason: GuardErrorReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  static is(e: unknown, reason?: GuardErrorReason): e is AgentGuardError {
    return e instanceof AgentGuardError && (reason === undefined || e.reason === reason);
  }
}

/** Node's errno-style errors carry a string `code` ('ENOENT', 'EACCES', …). */
export function errnoCode(e: unknown): string | undefined {
  if (typeof e === 'object' && e !== null && 'code' in e) {
    const code = (e).code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

/**
 * The message of a thrown value, for a line a person reads: an Error's message without its
 * stack (see `describeError` for logs), anything else as a string.
 */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
