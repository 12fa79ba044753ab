import * as nodePath from 'node:path';

const windowsAbsolute = /^[A-Za-z]:[\\/]/;

export function isWindowsPath(p: string): boolean {
  return windowsAbsolute.test(p) || p.startsWith('\\\\');
}

export function isAbsolutePath(p: string): boolean {
  return p.startsWith('/') || isWindowsPath(p);
}

/** The home folder a path is inside, when its path says so (`/Users/NAME`, `/home/NAME`, `/root`, `C:\\Users\\NAME`). */
export function homeOf(path: string): string | undefined {
  // (`/root`: root's home, where agents run in containers and on servers.)
  const m = /^(\/Users\/[^/]+|\/home\/[^/]+|\/root)(?=\/|$)/.exec(path) ?? /^([A-Za-z]:\\Users\\[^\\]+)(?=\\|$)/.exec(path);
  return m?.[1];
}

/**
 * Resolves a path a tool named against the session's working directory. Transcripts can come
 * from another OS than the one reading them, so the path style follows the path itself.
 * Returns undefined when a relative path has no cwd to resolve against. `home` is the user's
 * home folder when the transcript names it (see SessionContext.home).
 */
export function resolveAgainst(p: string, cwd: string | undefined, home?: string): string | undefined {
  const trimmed = p.trim();
  if (trimmed === '') {
    return undefined;
  }
  if (trimmed.startsWith('/')) {
    // On Windows, Git Bash (the shell Claude Code runs there) names drive D: as /d.
    const drive = cwd !== undefined && isWindowsPath(cwd) ? /^\/([a-zA-Z])(?=\/|$)/.exec(trimmed) : null;
    if (drive) {
      return nodePath.win32.normalize(`${drive[1]!.toUpperCase()}:\\${trimmed.slice(2)}`);
    }
    return normalPosix(trimmed, 0) ? trimmed : nodePath.posix.normalize(trimmed);
  }
  if (isWindowsPath(trimmed)) {
    return upperDrive(nodePath.win32.normalize(trimmed));
  }
  if (trimmed.startsWith('~')) {
    // Home-relative paths depend on whose home: the one the transcript names, else the home
    // folder the session works inside (/Users/NAME, /home/NAME, /root, C:\Users\NAME), whose
    // owner runs the shell. `~\…` only in a Windows home.
    const where = home ?? (cwd !== undefined ? homeOf(cwd) : undefined);
    const known = where !== undefined && (trimmed.startsWith('~/') || (trimmed.startsWith('~\\') && isWindowsPath(where)));
    return known ? resolveAgainst(trimmed.slice(2), where) : undefined;
  }
  if (!cwd) {
    return undefined;
  }
  if (isWindowsPath(cwd)) {
    return upperDrive(nodePath.win32.resolve(cwd, trimmed));
  }
  // The common case, `src/a.ts` against `/work/project`: a plain join when neither part has
  // anything to normalise (what posix.resolve would return for it, without its work).
  if (cwd.length > 1 && cwd.charCodeAt(0) === slash && normalPosix(cwd, 0) && cwd.charCodeAt(cwd.length - 1) !== slash && normalPosix(trimmed, -1) && trimmed.charCodeAt(trimmed.length - 1) !== slash) {
    return `${cwd}/${trimmed}`;
  }
  return nodePath.posix.resolve(cwd, trimmed);
}

/** `c:\x` is `C:\x`: drive letters name one drive in either case (VS Code writes them lower-case). */
function upperDrive(p: string): string {
  const c = p.charCodeAt(0);
  return c >= 0x61 && c <= 0x7a && p.charCodeAt(1) === 0x3a ? p[0]!.toUpperCase() + p.slice(1) : p;
}

const slash = 0x2f;
const dot = 0x2e;

/**
 * Is this POSIX path already in normal form, i.e. would `posix.normalize` return it as is?
 * True when no segment is empty (`//`), `.` or `..`. `from` is where the first segment starts:
 * 0 for an absolute path (its leading `/` opens an empty root segment that is allowed), -1 for a
 * relative one. A trailing slash is kept by normalize, so it is allowed.
 */
function normalPosix(p: string, from: number): boolean {
  let segStart = from + 1;
  for (let i = segStart; i <= p.length; i++) {
    if (i < p.length && p.charCodeAt(i) !== slash) {
      continue;
    }
    const len = i - segStart;
    if (len === 0) {
      // An empty segment: allowed only as the trailing slash of a non-root path.
      if (!(i === p.length && i > 1 && segStart === i)) {
        return false;
      }
    } else if (p.charCodeAt(segStart) === dot && (len === 1 || (len === 2 && p.charCodeAt(segStart + 1) === dot))) {
      return false;
    }
    segStart = i + 1;
  }
  return true;
}

/** A short display form: relative to cwd when inside it. */
export function displayPath(p: string, cwd: string | undefined): string {
  if (cwd) {
    const dir = upperDrive(cwd);
    const prefix = dir.endsWith('/') || dir.endsWith('\\') ? dir : dir + (isWindowsPath(dir) ? '\\' : '/');
    if (p.startsWith(prefix)) {
      return p.slice(prefix.length);
    }
  }
  return p;
}

/**
 * A shell pathname pattern as a RegExp over whole paths: `*` and `?` match within one segment,
 * `[…]` one character of a class (`[!…]` and `[^…]` negate it), and a backslash makes the next
 * character literal (the classifier writes quoted characters so). As bash matches by default:
 * `**` is `*` (zsh and `globstar` recurse), and no wildcard matches a leading `.` of a name. Both
 * narrow the match, so a path it takes is a path the shell's pattern took.
 */
/** Does this shell pattern (quoted characters escaped with a backslash) have a wildcard? */
export function hasWildcard(pattern: string): boolean {
  return /(?:^|[^\\])[*?[]/.test(pattern);
}

/**
 * The folder a pathname pattern searches: the part before the segment with the first wildcard
 * (`src/*.ts` → `src`; `.` for `*.ts`; `/` for `/*.conf`). In a Windows pattern a backslash
 * separates segments; in a POSIX one it escapes the next character (`src/\\[id\\]/*.tsx` →
 * `src/\\[id\\]`).
 */
export function patternRoot(pattern: string, windows: boolean): string {
  let segmentStart = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && !windows) {
      i++;
    } else if (c === '/' || (c === '\\' && windows)) {
      segmentStart = i + 1;
    } else if (c === '*' || c === '?' || c === '[' || c === '{') {
      break;
    }
  }
  const root = pattern.slice(0, Math.max(segmentStart - 1, 0));
  return root !== '' ? root : segmentStart > 0 ? pattern[0]! : '.';
}

export function shellPattern(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const segmentStart = i === 0 || pattern[i - 1] === '/';
    if (c === '\\' && i + 1 < pattern.length) {
      re += escapeRe(pattern[++i]!);
    } else if (c === '*') {
      while (pattern[i + 1] === '*') {
        i++;
      }
      re += segmentStart ? '(?!\\.)[^/]*' : '[^/]*';
    } else if (c === '?') {
      re += segmentStart ? '[^/.]' : '[^/]';
    } else if (c === '[') {
      const cls = charClass(pattern, i);
      if (cls) {
        re += (segmentStart ? '(?!\\.)' : '') + cls.re;
        i = cls.end;
      } else {
        re += '\\[';
      }
    } else {
      re += escapeRe(c);
    }
  }
  return new RegExp('^' + re + '$');
}

/** The bracket expression starting at `open`, as a RegExp class; undefined when it is not closed (a literal `[`). */
function charClass(pattern: string, open: number): { re: string; end: number } | undefined {
  let i = open + 1;
  const negate = pattern[i] === '!' || pattern[i] === '^';
  if (negate) {
    i++;
  }
  let body = '';
  // A `]` right after the opening (or its negation) is a member, not the end.
  for (const start = i; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === ']' && i > start) {
      return { re: negate ? `[^/${body}]` : `[${body}]`, end: i };
    }
    if (c === '/') {
      return undefined;
    }
    if (c === '\\' && i + 1 < pattern.length) {
      body += escapeClass(pattern[++i]!);
    } else {
      body += c === '-' && i > start && pattern[i + 1] !== ']' ? '-' : escapeClass(c);
    }
  }
  return undefined;
}

function escapeClass(c: string): string {
  return /[\\\]^-]/.test(c) ? '\\' + c : c;
}

function escapeRe(c: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(c) ? '\\' + c : c;
}
