import * as nodePath from 'node:path';

const windowsAbsolute = /^[A-Za-z]:[\\/]/;

export function isWindowsPath(p: string): boolean {
  return windowsAbsolute.test(p) || p.startsWith('\\\\');
}

export function isAbsolutePath(p: string): boolean {
  return p.startsWith('/') || isWindowsPath(p);
}

/**
 * Resolves a path a tool named against the session's working directory. Transcripts can come
 * from another OS than the one reading them, so the path style follows the path itself.
 * Returns undefined when a relative path has no cwd to resolve against.
 */
export function resolveAgainst(p: string, cwd: string | undefined): string | undefined {
  const trimmed = p.trim();
  if (trimmed === '') {
    return undefined;
  }
  if (trimmed.startsWith('/')) {
    return nodePath.posix.normalize(trimmed);
  }
  if (isWindowsPath(trimmed)) {
    return nodePath.win32.normalize(trimmed);
  }
  if (trimmed.startsWith('~')) {
    // Home-relative paths depend on whose home; do not guess.
    return undefined;
  }
  if (!cwd) {
    return undefined;
  }
  return isWindowsPath(cwd) ? nodePath.win32.resolve(cwd, trimmed) : nodePath.posix.resolve(cwd, trimmed);
}

/** A short display form: relative to cwd when inside it. */
export function displayPath(p: string, cwd: string | undefined): string {
  if (cwd) {
    const prefix = cwd.endsWith('/') || cwd.endsWith('\\') ? cwd : cwd + (isWindowsPath(cwd) ? '\\' : '/');
    if (p.startsWith(prefix)) {
      return p.slice(prefix.length);
    }
  }
  return p;
}
