import { statSync } from 'node:fs';
import * as nodePath from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import type { Event } from '../core/lib/event';
import { errorMessage } from '../core/lib/errors';

/** What a CLI command may touch, injected so commands can be run in-process by tests. */
export interface CliIo {
  stdout: { write(s: string): unknown; isTTY?: boolean };
  /**
   * Fires once when stdout's reader has gone (EPIPE; at once for a listener added after).
   * Writes after that go nowhere: `check` still finishes for its exit code, `watch` stops.
   */
  onStdoutClosed?: Event<void>;
  stderr: { write(s: string): unknown; isTTY?: boolean };
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  home: string;
}

/** Exit codes of every command: 0 clean, 1 findings at error severity (or a denied hook), 2 usage or I/O error. */
export const exitCodes = { ok: 0, findings: 1, usage: 2 } as const;

export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Is `path` a folder (following links)? False when it is missing or unreadable. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The process's working folder; where the shell says it is (PWD) when that folder was removed
 * under it (`git worktree remove`, a CI workspace cleaned up), as process.cwd() then throws
 * ENOENT, which crashed every command with a stack trace before it started. From there absolute
 * paths still work and a relative one names the missing folder in its error. Undefined when
 * neither is known.
 */
export function currentFolder(env: Readonly<Record<string, string | undefined>>): string | undefined {
  try {
    return process.cwd();
  } catch {
    const pwd = env['PWD'];
    return pwd !== undefined && nodePath.isAbsolute(pwd) ? pwd : undefined;
  }
}

/** The parts of a `parseArgs` token (node:util, `tokens: true`) that `strictTokens` reads. */
type ArgToken = { kind: 'option'; name: string; value?: string | undefined } | { kind: 'positional'; value: string } | { kind: 'option-terminator' };

/**
 * What `parseArgs` lets through and a command must not: an option that takes one value given
 * twice (parseArgs keeps the last, so `check --workspace a --workspace b` checked only b and
 * passed where a had errors), and an empty value or path (`check "$UNSET"` resolved '' to the
 * current folder and checked it; `hooks install --workspace ''` wrote the current folder's
 * settings).
 */
function strictTokens(tokens: readonly ArgToken[], options: Readonly<Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>>): void {
  const given = new Map<string, string | undefined>();
  for (const t of tokens) {
    if (t.kind === 'positional' && t.value === '') {
      throw new UsageError('an empty argument was given where a path was expected (an unset shell variable?)');
    }
    if (t.kind !== 'option') {
      continue;
    }
    const spec = options[t.name];
    if (spec?.type === 'string' && t.value === '') {
      throw new UsageError(`--${t.name} was given an empty value`);
    }
    if (spec?.type === 'string' && spec.multiple !== true) {
      if (given.has(t.name)) {
        throw new UsageError(`--${t.name} was given twice ('${given.get(t.name) ?? ''}' and '${t.value ?? ''}'): give it once`);
      }
      given.set(t.name, t.value);
    }
  }
}

/**
 * A command's arguments as `parseArgs` reads them (with its tokens), held to `strictTokens`;
 * whatever either rejects is a UsageError, which main.ts prints with the command's usage.
 */
export function parseCommandArgs<const O extends NonNullable<ParseArgsConfig['options']>, const P extends boolean>(argv: string[], options: O, allowPositionals: P) {
  let args;
  try {
    args = parseArgs({ args: argv, allowPositionals, options, tokens: true });
  } catch (e) {
    throw new UsageError(errorMessage(e));
  }
  strictTokens(args.tokens, options);
  return args;
}
