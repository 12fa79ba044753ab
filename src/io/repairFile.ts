import { randomBytes } from 'node:crypto';
import { promises as fsp, type Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as nodePath from 'node:path';
import type { InflightWrite } from '../core/guard/protocol';
import { displayPath } from '../core/classify/paths';
import { AgentGuardError, errnoCode } from '../core/lib/errors';
import { askService } from './guard/client';
import { findServiceSocket, guardDir } from './guard/socketPath';

/** Is a session still running, as far as repairing its transcript is concerned? */
export interface Liveness {
  /** Seconds since the file last changed, when within the live window. */
  writtenSecondsAgo?: number;
  /** Writes of the session the workspace's guard service saw start and not end (none: not listed). */
  inflight?: InflightWrite[];
}

/** How long to wait for the guard service's answer: it answers from memory, in milliseconds. */
const askTimeoutMs = 2000;

/**
 * Saves the original byte for byte, then replaces the file atomically: the backup is written
 * (never over an existing file) and read back first; the new content goes to a temporary file
 * in the same folder with the original's mode, and is renamed over the file only if the file
 * still holds the bytes the plan was made from.
 *
 * A symlinked transcript (discovery reads a folder of links to sessions) is written where it
 * really lives: a rename over the link would replace the link with a copy, and the agent would
 * go on writing the unrepaired original.
 */
export async function writeRepaired(given: string, original: Uint8Array, repaired: Uint8Array, stat: Stats, backupDir: string | undefined): Promise<string> {
  const file = await fsp.realpath(given);
  const unchanged = async (): Promise<void> => {
    const now = await fsp.readFile(file);
    if (!Buffer.from(original).equals(now)) {
      throw new AgentGuardError('refused', 'the file changed after it was read (is the session running?)');
    }
  };
  await unchanged();
  const mode = stat.mode & 0o7777;
  const dir = backupDir ?? nodePath.dirname(file);
  if (backupDir !== undefined) {
    try {
      await fsp.mkdir(backupDir, { recursive: true });
    } catch (e) {
      const code = errnoCode(e);
      if (code === 'EEXIST' || code === 'ENOTDIR') {
        // Else the message would be "EEXIST" about the transcript, which is not what is wrong.
        throw new AgentGuardError('refused', `the backup folder ${backupDir} is not a folder`);
      }
      throw e;
    }
  }
  const backup = await createExclusive(nodePath.join(dir, `${nodePath.basename(file)}.bak-${stamp(new Date())}`), original, mode, stat);
  const saved = await fsp.readFile(backup);
  if (!Buffer.from(original).equals(saved)) {
    await fsp.rm(backup, { force: true });
    throw new AgentGuardError('io', `the backup ${backup} does not read back as the original; nothing was written`);
  }

  // The backup's name is on disk before the rename can be: after a crash, a renamed file
  // without its backup would be the repair with no way back.
  await syncFolder(dir);

  // The file as it was, held open across the rename: a line the agent appends between the last
  // check and the rename lands in it, not in the repaired file, and would be gone with it.
  let held: FileHandle | undefined;
  try {
    let temp: string | undefined;
    try {
      // Written whole and synced (or not left at all), with the original's mode and owner.
      temp = await createExclusive(nodePath.join(nodePath.dirname(file), `.${nodePath.basename(file)}.agent-guard-${process.pid}-${randomBytes(4).toString('hex')}.tmp`), repaired, mode, stat);
      held = await fsp.open(file, 'r');
      await unchanged();
      await fsp.rename(temp, file);
    } catch (e) {
      if (temp !== undefined) {
        await fsp.rm(temp, { force: true });
      }
      throw e;
    }
    const replaced = await held.readFile();
    if (!Buffer.from(original).equals(replaced)) {
      const kept = await createExclusive(nodePath.join(dir, `${nodePath.basename(file)}.bak-${stamp(new Date())}`), replaced, mode, stat);
      throw new AgentGuardError(
        'io',
        `the file changed while the repair was being written (is the session running?): the repair replaced ${replaced.length} bytes, not the ${original.length} it was made from, so what the session wrote last is not in it; the file it replaced is saved whole as ${kept} (stop the session, then restore from there)`,
      );
    }
  } finally {
    await held?.close();
  }
  await syncFolder(nodePath.dirname(file));
  // What the agent appends after the rename goes to the repaired file: only its start must be the repair.
  const written = await fsp.readFile(file);
  if (!Buffer.from(repaired).equals(written.subarray(0, repaired.length))) {
    throw new AgentGuardError('io', `the repaired file does not read back as written; the original is in ${backup}`);
  }
  return backup;
}

/**
 * Makes a folder's entries (a new file, a rename) durable. Where a folder cannot be opened to
 * sync (Windows), the file system orders its own metadata and there is nothing to do.
 */
async function syncFolder(dir: string): Promise<void> {
  let h: FileHandle | undefined;
  try {
    h = await fsp.open(dir, 'r');
    await h.sync();
  } catch {
    // not supported here
  } finally {
    await h?.close();
  }
}

/**
 * Run as root (sudo), a new file would be root's: the transcript's owner could not read the
 * backup of their own session, or the agent write the repaired file. Both get the original's owner.
 */
async function keepOwner(h: FileHandle, stat: Stats): Promise<void> {
  if (process.getuid?.() === 0) {
    await h.chown(stat.uid, stat.gid);
  }
}

/** Writes a file that did not exist (a `-2`, `-3`… suffix if the name is taken), with the original's owner, and syncs it. */
async function createExclusive(path: string, bytes: Uint8Array, mode: number, owner: Stats): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? path : `${path}-${n}`;
    let h;
    try {
      h = await fsp.open(candidate, 'wx', mode);
    } catch (e) {
      if (errnoCode(e) === 'EEXIST' && n < 100) {
        continue;
      }
      throw e;
    }
    try {
      try {
        await h.writeFile(bytes);
        await h.chmod(mode);
        await keepOwner(h, owner);
        await h.sync();
      } finally {
        await h.close();
      }
    } catch (e) {
      // A disk that filled up (or a file size limit) leaves the first part of the original
      // under a backup's name: the next attempt saves its own, and someone restoring later
      // could take the cut one. Nothing but a whole copy is left as a backup.
      await fsp.rm(candidate, { force: true });
      throw e;
    }
    return candidate;
  }
}

/** `20260212T141326849Z`: sortable, and valid in a file name everywhere. */
function stamp(d: Date): string {
  return d.toISOString().replace(/[-:.]/g, '');
}

/**
 * Is the session still running? Its file's age tells one way: a file changed within the live
 * window may still be written. The other: the guard service of the session's workspace, if
 * one runs, knows the writes it allowed that have not ended, such as an edit waiting on the
 * user's permission while the file stays quiet. Calls the guard does not judge (a shell
 * command, a read) are not known to it.
 */
export async function liveness(
  file: string,
  stat: Stats,
  liveSeconds: number,
  cwd: string | undefined,
  dir: string = guardDir(),
): Promise<Liveness> {
  const age = (Date.now() - stat.mtimeMs) / 1000;
  const inflight = cwd === undefined ? [] : await inflightWrites(file, cwd, dir);
  return {
    ...(age < liveSeconds ? { writtenSecondsAgo: Math.max(0, Math.round(age)) } : {}),
    ...(inflight.length > 0 ? { inflight } : {}),
  };
}

/** The session's writes in flight per its workspace's guard service; none when no service answers. */
async function inflightWrites(file: string, cwd: string, dir: string): Promise<InflightWrite[]> {
  const found = findServiceSocket(cwd, dir);
  if (!found) {
    return [];
  }
  const r = await askService(found.socket, { v: 1, type: 'inflight', transcriptPath: file }, askTimeoutMs);
  return r.kind === 'answer' && r.response.ok && r.response.type === 'inflight' ? r.response.writes : [];
}

export function isLive(l: Liveness): boolean {
  return l.writtenSecondsAgo !== undefined || (l.inflight?.length ?? 0) > 0;
}

export function describeLive(l: Liveness, cwd?: string): string {
  const parts: string[] = [];
  if (l.writtenSecondsAgo !== undefined) {
    parts.push(`the file was written ${l.writtenSecondsAgo} s ago`);
  }
  const writes = l.inflight ?? [];
  if (writes.length > 0) {
    const files = [...new Set(writes.map((w) => displayPath(w.path, cwd)))];
    const shown = files.length > 3 ? [...files.slice(0, 3), `${files.length - 3} more`] : files;
    parts.push(`the guard service has ${writes.length} write${writes.length === 1 ? '' : 's'} of it in flight (${shown.join(', ')})`);
  }
  return `the session looks live: ${parts.join(', and ')}`;
}
