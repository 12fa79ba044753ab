import { randomBytes } from 'node:crypto';
import { promises as fsp, type Stats } from 'node:fs';
import * as nodePath from 'node:path';
import { AgentGuardError, errnoCode } from '../core/lib/errors';

/** Is a session still running, as far as repairing its transcript is concerned? */
export interface Liveness {
  /** Seconds since the file last changed, when within the live window. */
  writtenSecondsAgo?: number;
}

/**
 * Saves the original byte for byte, then replaces the file atomically: the backup is written
 * (never over an existing file) and read back first; the new content goes to a temporary file
 * in the same folder with the original's mode, and is renamed over the file only if the file
 * still holds the bytes the plan was made from.
 */
export async function writeRepaired(file: string, original: Uint8Array, repaired: Uint8Array, stat: Stats, backupDir: string | undefined): Promise<string> {
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
    await fsp.mkdir(backupDir, { recursive: true });
  }
  const backup = await createExclusive(nodePath.join(dir, `${nodePath.basename(file)}.bak-${stamp(new Date())}`), original, mode);
  const saved = await fsp.readFile(backup);
  if (!Buffer.from(original).equals(saved)) {
    throw new AgentGuardError('io', `the backup ${backup} does not read back as the original; nothing was written`);
  }

  const temp = nodePath.join(nodePath.dirname(file), `.${nodePath.basename(file)}.agent-guard-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  try {
    const h = await fsp.open(temp, 'wx', mode);
    try {
      await h.writeFile(repaired);
      await h.chmod(mode);
      if (process.getuid?.() === 0) {
        await h.chown(stat.uid, stat.gid);
      }
      await h.sync();
    } finally {
      await h.close();
    }
    await unchanged();
    await fsp.rename(temp, file);
  } catch (e) {
    await fsp.rm(temp, { force: true });
    throw e;
  }
  const written = await fsp.readFile(file);
  if (!Buffer.from(repaired).equals(written)) {
    throw new AgentGuardError('io', `the repaired file does not read back as written; the original is in ${backup}`);
  }
  return backup;
}

/** Writes a file that did not exist (a `-2`, `-3`… suffix if the name is taken) and syncs it. */
async function createExclusive(path: string, bytes: Uint8Array, mode: number): Promise<string> {
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
      await h.writeFile(bytes);
      await h.chmod(mode);
      await h.sync();
    } finally {
      await h.close();
    }
    return candidate;
  }
}

/** `20260212T141326849Z`: sortable, and valid in a file name everywhere. */
function stamp(d: Date): string {
  return d.toISOString().replace(/[-:.]/g, '');
}

/**
 * Is the session still running? Only its file's age tells: a file changed within the live
 * window may still be written. Which hook calls are in flight is known only to the guard
 * service, which is not asked (no marker file records them).
 */
export function liveness(stat: Stats, liveSeconds: number): Liveness {
  const age = (Date.now() - stat.mtimeMs) / 1000;
  return age < liveSeconds ? { writtenSecondsAgo: Math.max(0, Math.round(age)) } : {};
}

export function isLive(l: Liveness): boolean {
  return l.writtenSecondsAgo !== undefined;
}

export function describeLive(l: Liveness): string {
  const parts: string[] = [];
  if (l.writtenSecondsAgo !== undefined) {
    parts.push(`the file was written ${l.writtenSecondsAgo} s ago`);
  }
  return `the session looks live: ${parts.join(', and ')}`;
}
