/**
 * Where a workspace's guard service listens, for the service and for the hook (which loads
 * this module, so it stays small: node built-ins only).
 *
 * Unix: `$TMPDIR/agent-guard-<uid>/<sha256(realpath(workspace))[0:16]>.sock` in a directory
 * only the user can enter (0700, owned by them; checked before every use, never repaired:
 * a directory someone else made or opened up is refused), socket mode 0600. Windows: a named
 * pipe `\\.\pipe\agent-guard-<user>-<key>` (pipes have no directory; their default ACL is
 * the creator's). `AGENT_GUARD_DIR` overrides the directory (when the agent and the editor
 * see different TMPDIRs; tests).
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import { errnoCode, errorMessage } from '../../core/lib/errors';

export interface GuardDirProblem {
  dir: string;
  problem: string;
}

export function isWindows(): boolean {
  return process.platform === 'win32';
}

function userTag(): string {
  return typeof process.getuid === 'function' ? String(process.getuid()) : (os.userInfo().username || 'user').replace(/[^A-Za-z0-9_.-]/g, '_');
}

/** The per-user directory of sockets and ledgers. */
export function guardDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const override = env['AGENT_GUARD_DIR'];
  return override ? nodePath.resolve(override) : nodePath.join(os.tmpdir(), `agent-guard-${userTag()}`);
}

/** The workspace's key: the first 16 hex digits of the sha256 of its real path. */
function workspaceKey(realWorkspace: string): string {
  return createHash('sha256').update(realWorkspace).digest('hex').slice(0, 16);
}

export function realWorkspace(workspace: string): string {
  try {
    return realpathSync(workspace);
  } catch {
    return nodePath.resolve(workspace);
  }
}

function socketPathForKey(key: string, dir: string): string {
  return isWindows() ? `\\\\.\\pipe\\agent-guard-${userTag()}-${key}` : nodePath.join(dir, `${key}.sock`);
}

/** The socket (or pipe) of the guard service of `workspace`. */
export function socketPathFor(workspace: string, dir: string = guardDir()): string {
  return socketPathForKey(workspaceKey(realWorkspace(workspace)), dir);
}

/** The hook ledger of `workspace` (JSONL, next to the socket). */
export function ledgerPathFor(workspace: string, dir: string = guardDir()): string {
  return nodePath.join(dir, `${workspaceKey(realWorkspace(workspace))}.ledger.jsonl`);
}

/**
 * Is the directory safe to use: a real directory (not a link), owned by this user, that no
 * one else may enter or write (no group or other bits)? Returns the problem, or undefined.
 * A missing directory is a problem too (the hook then knows there is no service).
 */
export function checkGuardDir(dir: string): GuardDirProblem | undefined {
  if (isWindows()) {
    return undefined;
  }
  let info;
  try {
    info = lstatSync(dir);
  } catch (e) {
    return { dir, problem: errnoCode(e) === 'ENOENT' ? 'does not exist' : `cannot be read (${errorMessage(e)})` };
  }
  if (info.isSymbolicLink()) {
    return { dir, problem: 'is a symbolic link' };
  }
  if (!info.isDirectory()) {
    return { dir, problem: 'is not a directory' };
  }
  const uid = typeof process.getuid === 'function' ? process.getuid() : info.uid;
  if (info.uid !== uid) {
    return { dir, problem: `belongs to user ${info.uid}, not to this user (${uid})` };
  }
  if ((info.mode & 0o077) !== 0) {
    return { dir, problem: `has mode ${(info.mode & 0o777).toString(8).padStart(4, '0')}; it must be 0700 (only its owner may enter it)` };
  }
  return undefined;
}

/** Creates the directory (0700) if it is missing, then checks it; returns the problem if it is unsafe. */
export function ensureGuardDir(dir: string): GuardDirProblem | undefined {
  if (isWindows()) {
    return undefined;
  }
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (e) {
    if (errnoCode(e) !== 'EEXIST') {
      return { dir, problem: `cannot be created (${errorMessage(e)})` };
    }
  }
  return checkGuardDir(dir);
}

/**
 * The workspace a path belongs to, as far as running guard services say: the nearest folder
 * at or above `start` that has a service socket. One sha256 and one stat per level.
 */
export function findServiceSocket(start: string, dir: string): { socket: string; workspace: string } | undefined {
  let cur = deepestExisting(start);
  for (;;) {
    const socket = socketPathForKey(workspaceKey(cur), dir);
    if (exists(socket)) {
      return { socket, workspace: cur };
    }
    const up = nodePath.dirname(cur);
    if (up === cur) {
      return undefined;
    }
    cur = up;
  }
}

function deepestExisting(p: string): string {
  let cur = nodePath.resolve(p);
  for (;;) {
    try {
      return realpathSync(cur);
    } catch {
      const up = nodePath.dirname(cur);
      if (up === cur) {
        return cur;
      }
      cur = up;
    }
  }
}

/** Something is at `p` (a socket, a dangling link): lstat, not stat. */
export function exists(p: string): boolean {
  try {
    lstatSync(p);
    return true;
  } catch {
    return false;
  }
}
