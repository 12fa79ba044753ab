import { createHash } from 'node:crypto';
import * as nodePath from 'node:path';
import type { AgentKind } from '../model/agent';

/**
 * Where each agent keeps its sessions, computed from the environment and the home
 * directory (FORMATS.md §1.1, §2.1, §3.1, §4). Pure: the caller supplies env and home.
 */
export interface AgentRoots {
  agent: AgentKind;
  /** Folders to watch/scan; they may not exist yet. */
  roots: string[];
}

export interface Environment {
  home: string;
  env: Readonly<Record<string, string | undefined>>;
  platform?: NodeJS.Platform;
}

export function claudeConfigDirs(e: Environment): string[] {
  const configured = e.env['CLAUDE_CONFIG_DIR'];
  if (configured && configured.trim() !== '') {
    // ccusage accepts a comma-separated list; Claude Code itself takes one directory.
    return configured
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  }
  const xdg = e.env['XDG_CONFIG_HOME'] ?? nodePath.join(e.home, '.config');
  return [nodePath.join(e.home, '.claude'), nodePath.join(xdg, 'claude')];
}

export function codexHome(e: Environment): string {
  const configured = e.env['CODEX_HOME'];
  return configured && configured.trim() !== '' ? configured : nodePath.join(e.home, '.codex');
}

export function geminiHome(e: Environment): string {
  const configured = e.env['GEMINI_CLI_HOME'];
  return nodePath.join(configured && configured.trim() !== '' ? configured : e.home, '.gemini');
}

export function amplifierHome(e: Environment): string {
  const configured = e.env['AMPLIFIER_HOME'];
  return configured && configured.trim() !== '' ? configured : nodePath.join(e.home, '.amplifier');
}

/** The folders Claude Code keeps its projects' sessions in: `projects/` in each of its config folders. */
export function claudeProjectsDirs(e: Environment): string[] {
  return claudeConfigDirs(e).map((d) => nodePath.join(d, 'projects'));
}

/** Codex CLI's rollouts, by date below it: `$CODEX_HOME/sessions`. */
export function codexSessionsDir(e: Environment): string {
  return nodePath.join(codexHome(e), 'sessions');
}

/** Gemini CLI's per-project folders (a project's sessions in its `chats/`): `~/.gemini/tmp`. */
export function geminiTmpDir(e: Environment): string {
  return nodePath.join(geminiHome(e), 'tmp');
}

/** Amplifier's per-project folders: `$AMPLIFIER_HOME/projects`. */
export function amplifierProjectsDir(e: Environment): string {
  return nodePath.join(amplifierHome(e), 'projects');
}

/** Amplifier's sessions of one project, a folder each. */
export function amplifierSessionsDir(e: Environment, cwd: string): string {
  return nodePath.join(amplifierProjectsDir(e), amplifierSlug(cwd), 'sessions');
}

/** Claude Code's project folder name: every non-alphanumeric character becomes '-' (no collapsing). */
export function encodeClaudeProject(cwd: string): string {
  return cwd.replace(/[^a-zA-Z0-9]/g, '-');
}

/** Names above this are cut and given a hash suffix whose algorithm differs between builds. */
const claudeMaxProjectName = 200;

/** Does a folder under `projects/` belong to this workspace? Long names match by their 200-char prefix. */
export function claudeProjectMatches(dirName: string, workspace: string): boolean {
  const encoded = encodeClaudeProject(workspace);
  if (encoded.length <= claudeMaxProjectName) {
    return dirName === encoded;
  }
  return dirName.startsWith(encoded.slice(0, claudeMaxProjectName) + '-') || dirName === encoded;
}

/** Amplifier's project slug: `/` and `\` become '-', ':' is removed, with a leading '-'. */
export function amplifierSlug(cwd: string): string {
  const s = cwd.replace(/[\\/]/g, '-').replace(/:/g, '');
  return s.startsWith('-') ? s : '-' + s;
}

/** Gemini CLI's legacy project id: sha256 of the project root, hex. */
export function geminiProjectHash(root: string): string {
  return createHash('sha256').update(root).digest('hex');
}

/** Gemini CLI's current slug: basename lower-cased, non-alphanumerics to '-'. Collisions get -1, -2… */
export function geminiSlug(root: string): string {
  return nodePath.basename(root).toLowerCase().replace(/[^a-z0-9]/g, '-');
}

/** Is `child` the same as, or inside, `parent`? Both absolute. */
export function isWithin(child: string, parent: string): boolean {
  const rel = nodePath.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !nodePath.isAbsolute(rel));
}

export function allRoots(e: Environment, extra: readonly string[] = []): AgentRoots[] {
  return [
    { agent: 'claude-code', roots: claudeProjectsDirs(e) },
    { agent: 'codex', roots: [codexSessionsDir(e)] },
    { agent: 'gemini', roots: [geminiTmpDir(e)] },
    { agent: 'amplifier', roots: [amplifierProjectsDir(e)] },
    ...extra.map((r) => ({ agent: 'claude-code' as const, roots: [r] })),
  ];
}

/** Which agent a transcript path belongs to, by its place on disk. */
export function agentForPath(p: string): AgentKind | undefined {
  if (/[\\/]rollout-[^\\/]*\.jsonl$/.test(p)) {
    return 'codex';
  }
  if (/[\\/]\.gemini[\\/]tmp[\\/]/.test(p) || /[\\/]chats[\\/](?:[^\\/]+[\\/])?[^\\/]*\.jsonl?$/.test(p)) {
    return 'gemini';
  }
  if (/[\\/]sessions[\\/][^\\/]+[\\/](transcript|events)\.jsonl$/.test(p)) {
    return 'amplifier';
  }
  if (/[\\/]projects[\\/][^\\/]+[\\/]/.test(p) && p.endsWith('.jsonl')) {
    return 'claude-code';
  }
  return undefined;
}

/** Is this file a transcript (or Amplifier's execution log), as opposed to a sidecar or a backup? */
export function isTranscriptName(p: string): boolean {
  // Gemini CLI's legacy sessions are single JSON documents: `chats/session-*.json`, and its
  // sub-agents' `chats/<parent session id>/<id>.json`.
  return nodePath.basename(p).endsWith('.jsonl') || /[\\/]chats[\\/](?:session-[^\\/]*|[^\\/]+[\\/][^\\/]+)\.json$/.test(p);
}

/**
 * A folder from the `agentGuard.sessionFolders` setting as an absolute path. VS Code does not
 * substitute variables in an extension's settings, and the extension host's working directory
 * is not the workspace, so `~/…`, `${userHome}`, `${workspaceFolder}` and relative paths are
 * resolved here: a relative path against the workspace folder the setting applies to.
 */
export function resolveSessionFolder(folder: string, where: { home: string; workspace: string }): string {
  let p = folder.trim();
  p = p.replace(/\$\{userHome\}/g, where.home).replace(/\$\{workspaceFolder\}/g, where.workspace);
  if (p === '~') {
    p = where.home;
  } else if (p.startsWith('~/') || p.startsWith('~\\')) {
    p = nodePath.join(where.home, p.slice(2));
  }
  return nodePath.resolve(where.workspace, p);
}
