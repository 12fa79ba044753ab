import { realpathSync } from 'node:fs';
import { open, readdir, readFile, stat } from 'node:fs/promises';
import * as nodePath from 'node:path';
import {
  agentForPath,
  amplifierSessionsDir,
  claudeProjectMatches,
  claudeProjectsDirs,
  codexSessionsDir,
  geminiHome,
  geminiProjectHash,
  geminiSlug,
  geminiTmpDir,
  isTranscriptName,
  isWithin,
  type Environment,
} from '../core/discovery/locations';
import { samePath } from '../core/classify/paths';
import { errnoCode, errorMessage } from '../core/lib/errors';
import type { AgentKind } from '../core/model/agent';

export interface FoundTranscript {
  file: string;
  agent: AgentKind | undefined;
}

/** A folder or file that could not be read; reported, never fatal. */
export interface IoProblem {
  path: string;
  code: string;
  message: string;
}

export interface Found {
  transcripts: FoundTranscript[];
  problems: IoProblem[];
  /** Folders not searched, being more than maxFolderDepth levels below the folder searched. */
  tooDeep: string[];
}

/** Folders a search for transcripts never enters: a project's dependencies and its git store hold none. */
export const skippedDirs: ReadonlySet<string> = new Set(['node_modules', '.git']);

/**
 * How many levels below a folder searched are searched: bounds the walk of a huge tree named by
 * mistake (a home folder). The folders it cuts off are listed (`tooDeep`), so that a transcript
 * below them is not skipped unsaid.
 */
export const maxFolderDepth = 12;

function problem(path: string, e: unknown): IoProblem {
  const code = errnoCode(e) ?? 'EIO';
  const reason =
    code === 'EACCES' || code === 'EPERM'
      ? 'permission denied'
      : code === 'ENOENT'
        ? 'no such file or directory'
        : code === 'ENOTDIR'
          ? 'not a directory'
          : errorMessage(e);
  return { path, code, message: `${path}: ${reason}` };
}

/** Every transcript below `dir` (or `dir` itself when it is a file); unreadable parts are listed, not thrown. */
export async function findTranscripts(target: string): Promise<Found> {
  const found: Found = { transcripts: [], problems: [], tooDeep: [] };
  let info;
  try {
    info = await stat(target);
  } catch (e) {
    found.problems.push(problem(target, e));
    return found;
  }
  if (info.isFile()) {
    found.transcripts.push({ file: target, agent: agentForPath(target) });
    return found;
  }
  if (!info.isDirectory()) {
    // A pipe, a device or a socket: neither a transcript nor a folder of them.
    found.problems.push({ path: target, code: 'EINVAL', message: `${target}: not a regular file or a folder` });
    return found;
  }
  await walk(target, found, (file) => isTranscriptName(file));
  found.transcripts.sort((a, b) => a.file.localeCompare(b.file));
  found.transcripts = oncePerFile(found.transcripts);
  found.tooDeep.sort((a, b) => a.localeCompare(b));
  return found;
}

async function walk(dir: string, found: Found, want: (file: string) => boolean, depth = 0): Promise<void> {
  if (depth > maxFolderDepth) {
    found.tooDeep.push(dir);
    return;
  }
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    found.problems.push(problem(dir, e));
    return;
  }
  for (const entry of entries) {
    const p = nodePath.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!skippedDirs.has(entry.name)) {
        await walk(p, found, want, depth + 1);
      }
    } else if (entry.isFile() && want(p)) {
      found.transcripts.push({ file: p, agent: agentForPath(p) });
    } else if (entry.isSymbolicLink() && want(p)) {
      // A link to a transcript (a folder of links to sessions) is read; links to folders are
      // not followed, so a link cycle cannot loop the walk.
      try {
        if ((await stat(p)).isFile()) {
          found.transcripts.push({ file: p, agent: agentForPath(p) });
        }
      } catch (e) {
        found.problems.push(problem(p, e));
      }
    }
  }
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch {
    return [];
  }
}

/**
 * The spellings of a workspace folder an agent may have recorded: the path as given, and, where
 * it goes through a symbolic link (a junction on Windows), the path with the links resolved.
 * Agents record their working folder as the system gives it, with the links resolved (Claude
 * Code names its project folder after the real path, Codex, Gemini CLI and Amplifier take the
 * process's working folder), while an editor keeps a folder as it was opened: a workspace opened
 * as /tmp/app on macOS (/private/tmp/app) or through a linked folder found none of its sessions.
 */
export function workspaceSpellings(workspace: string): string[] {
  const ws = nodePath.resolve(workspace);
  try {
    const real = realpathSync.native(ws);
    return real === ws ? [ws] : [ws, real];
  } catch {
    // Not there (yet): only the path as given can match.
    return [ws];
  }
}

/**
 * Do two paths name one file, spelled the same (drive letter aside) or through symbolic links?
 * The editor names a file under the workspace as it was opened, an agent under the real path
 * (see workspaceSpellings). Resolved only when the spellings differ: a file that does not exist
 * is matched by its folder's real path.
 */
export function sameFile(a: string, b: string): boolean {
  return samePath(a, b) || samePath(realOrAsIs(a), realOrAsIs(b));
}

function realOrAsIs(path: string): string {
  return realPathOf(path) ?? path;
}

/**
 * The real path of a file, its symbolic links resolved; of a file that does not exist (yet),
 * its folder's real path and its name. Undefined when neither resolves.
 */
export function realPathOf(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    try {
      return nodePath.join(realpathSync.native(nodePath.dirname(path)), nodePath.basename(path));
    } catch {
      return undefined;
    }
  }
}

/** The sessions of one workspace in the agents' default folders (plus extra folders). */
export async function findWorkspaceSessions(workspace: string, e: Environment, extraFolders: readonly string[] = []): Promise<Found> {
  const spellings = workspaceSpellings(workspace);
  const found: Found = { transcripts: [], problems: [], tooDeep: [] };
  const add = (more: Found): void => {
    found.transcripts.push(...more.transcripts);
    found.problems.push(...more.problems.filter((p) => p.code !== 'ENOENT'));
    found.tooDeep.push(...more.tooDeep);
  };
  for (const projects of claudeProjectsDirs(e)) {
    for (const name of await listDir(projects)) {
      if (spellings.some((ws) => claudeProjectMatches(name, ws))) {
        add(await findTranscripts(nodePath.join(projects, name)));
      }
    }
  }
  add(await codexSessionsFor(spellings, e));
  add(await geminiSessionsFor(spellings, e));
  for (const ws of spellings) {
    const amp = amplifierSessionsDir(e, ws);
    for (const id of await listDir(amp)) {
      // The transcript, and the execution log next to it (where overlapping executions show).
      for (const name of ['transcript.jsonl', 'events.jsonl']) {
        const t = nodePath.join(amp, id, name);
        try {
          await stat(t);
          found.transcripts.push({ file: t, agent: 'amplifier' });
        } catch {
          // a session folder without this file (yet)
        }
      }
    }
  }
  for (const extra of extraFolders) {
    add(await findTranscripts(extra));
  }
  found.transcripts = oncePerFile(found.transcripts);
  return found;
}

/**
 * One entry per real file. A transcript reached by more than one path (a project folder that
 * is a link to another, a link to a session beside it, an extra folder inside an agent's) was
 * checked, and each of its findings reported, once per path. It is kept under the path that goes
 * through no link when one was found, else under the first; in the order first found.
 */
function oncePerFile(transcripts: readonly FoundTranscript[]): FoundTranscript[] {
  const byReal = new Map<string, FoundTranscript>();
  for (const t of transcripts) {
    const real = realPathOf(t.file) ?? t.file;
    const kept = byReal.get(real);
    if (kept === undefined || (kept.file !== real && t.file === real)) {
      byReal.set(real, t);
    }
  }
  return [...byReal.values()];
}

async function codexSessionsFor(spellings: readonly string[], e: Environment): Promise<Found> {
  const all = await findTranscripts(codexSessionsDir(e));
  const out: Found = { transcripts: [], problems: all.problems, tooDeep: all.tooDeep };
  for (const t of all.transcripts) {
    const cwd = await codexCwd(t.file);
    if (cwd !== undefined && spellings.some((ws) => isWithin(cwd, ws))) {
      out.transcripts.push({ file: t.file, agent: 'codex' });
    }
  }
  return out;
}

/** The cwd in a rollout's first line (session_meta), read without loading the file. */
export async function codexCwd(file: string): Promise<string | undefined> {
  const first = await readFirstLine(file, 1 << 20);
  if (first === undefined) {
    return undefined;
  }
  try {
    const v = JSON.parse(first) as { type?: unknown; payload?: { cwd?: unknown } };
    return v.type === 'session_meta' && typeof v.payload?.cwd === 'string' ? v.payload.cwd : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Only the line's own bytes are decoded, once: decoding each 64 KB read whole made a string of
 * it that the line was a slice of (a thousand rollouts looked at on start-up: tens of MB for the
 * garbage collector), and split a character that straddled two reads.
 */
async function readFirstLine(file: string, maxBytes: number): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(file, 'r');
    const buf = Buffer.allocUnsafe(Math.min(maxBytes, 64 * 1024));
    const before: Buffer[] = [];
    let pos = 0;
    while (pos < maxBytes) {
      const { bytesRead } = await handle.read(buf, 0, buf.length, pos);
      if (bytesRead === 0) {
        break;
      }
      const nl = buf.subarray(0, bytesRead).indexOf(0x0a);
      if (nl !== -1) {
        return Buffer.concat([...before, buf.subarray(0, nl)]).toString('utf8');
      }
      // A copy: the next read reuses `buf`.
      before.push(Buffer.from(buf.subarray(0, bytesRead)));
      pos += bytesRead;
    }
    return before.length === 0 ? undefined : Buffer.concat(before).toString('utf8');
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

async function geminiSessionsFor(spellings: readonly string[], e: Environment): Promise<Found> {
  const tmp = geminiTmpDir(e);
  const owns = geminiProjectsOf(spellings, e);
  // The hashes are tried even where tmp/ cannot be listed.
  const names = new Set([...spellings.map(geminiProjectHash), ...(await listDir(tmp))]);
  const out: Found = { transcripts: [], problems: [], tooDeep: [] };
  for (const name of names) {
    if (!(await owns(name))) {
      continue;
    }
    const more = await findTranscripts(nodePath.join(tmp, name, 'chats'));
    out.transcripts.push(...more.transcripts.map((t) => ({ file: t.file, agent: 'gemini' as const })));
    out.problems.push(...more.problems);
    out.tooDeep.push(...more.tooDeep);
  }
  return out;
}

/**
 * Which of Gemini CLI's project folders (the names in geminiTmpDir) hold a workspace's sessions,
 * for `check` and the watcher alike: the legacy one named by the sha256 of its root; the slug
 * projects.json gives it (current builds); and a slug folder — its basename's, or one with a
 * `-N` suffix for a basename taken — whose `.project_root` names it, or, in older layouts that
 * have no such marker, its basename's slug itself. A slug is shared by every project with that
 * basename: the marker decides where there is one. Each answer is kept.
 */
export function geminiProjectsOf(spellings: readonly string[], e: Environment): (name: string) => Promise<boolean> {
  const hashes = new Set(spellings.map(geminiProjectHash));
  const slugs = new Set(spellings.map(geminiSlug));
  let registered: Promise<Set<string>> | undefined;
  const answers = new Map<string, Promise<boolean>>();
  const decide = async (name: string): Promise<boolean> => {
    if (hashes.has(name)) {
      return true;
    }
    registered ??= registrySlugs(spellings, e);
    if ((await registered).has(name)) {
      return true;
    }
    if (!slugs.has(name) && !/^.+-\d+$/.test(name)) {
      return false;
    }
    try {
      return spellings.includes((await readFile(nodePath.join(geminiTmpDir(e), name, '.project_root'), 'utf8')).trim());
    } catch {
      // No ownership marker: the slug alone decides.
      return slugs.has(name);
    }
  };
  return (name) => {
    let answer = answers.get(name);
    if (answer === undefined) {
      answer = decide(name);
      answers.set(name, answer);
    }
    return answer;
  };
}

/** The slugs projects.json maps a workspace's spellings to. */
async function registrySlugs(spellings: readonly string[], e: Environment): Promise<Set<string>> {
  const names = new Set<string>();
  try {
    const registry = JSON.parse(await readFile(nodePath.join(geminiHome(e), 'projects.json'), 'utf8')) as unknown;
    for (const ws of spellings) {
      collectGeminiSlugs(registry, ws, names);
    }
  } catch {
    // no registry: legacy layout or no Gemini CLI at all
  }
  return names;
}

function collectGeminiSlugs(registry: unknown, ws: string, names: Set<string>): void {
  if (typeof registry !== 'object' || registry === null) {
    return;
  }
  const projects = (registry as { projects?: unknown }).projects ?? registry;
  if (typeof projects !== 'object' || projects === null) {
    return;
  }
  for (const [key, value] of Object.entries(projects as Record<string, unknown>)) {
    if (key === ws && typeof value === 'string') {
      names.add(value);
    } else if (typeof value === 'object' && value !== null) {
      const v = value as { root?: unknown; path?: unknown; slug?: unknown; id?: unknown };
      const root = typeof v.root === 'string' ? v.root : typeof v.path === 'string' ? v.path : undefined;
      const slug = typeof v.slug === 'string' ? v.slug : typeof v.id === 'string' ? v.id : key;
      if (root === ws) {
        names.add(slug);
      }
    }
  }
}
