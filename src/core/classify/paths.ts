import * as nodePath from 'node:path';

const windowsAbsolute = /^[A-Za-z]:[\\/]/;

export function isWindowsPath(p: string): boolean {
  return windowsAbsolute.test(p) || p.startsWith('\\\\');
}

export function isAbsolutePath(p: string): boolean {
  return p.startsWith('/') || isWindowsPath(p);
}

/**
 * A path whose file name holds a redaction placeholder (`/Users/x/app/.REDACTED.md`): whoever
 * copied the transcript replaced what looked like a secret with `REDACTED` (Entire's checkpoints
 * do, in paths too), so several files may share that name, and it is none of their names. (A
 * placeholder in a folder's name, a home folder replaced throughout, still keeps files apart.)
 */
export function isRedactedPath(p: string): boolean {
  // Every path of every call is tested: the plain search spares nearly all of them the
  // pattern, which tries a match at each position of the path.
  return p.includes('REDACTED') && redactedName.test(p);
}

const redactedName = /(?:^|[^A-Za-z])REDACTED(?:[^A-Za-z\\/][^\\/]*)?$/;

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
export function upperDrive(p: string): string {
  const c = p.charCodeAt(0);
  return c >= 0x61 && c <= 0x7a && p.charCodeAt(1) === 0x3a ? p[0]!.toUpperCase() + p.slice(1) : p;
}

/**
 * One file, however its drive letter is written: VS Code's `Uri.fsPath` writes `c:\x` where the
 * transcripts, Node and this project's paths write `C:\x`.
 */
export function samePath(a: string, b: string): boolean {
  return a === b || upperDrive(a) === upperDrive(b);
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

/**
 * A shell pathname pattern as a matcher of whole paths: `*` and `?` match within one segment,
 * `[…]` one character of a class (`[!…]` and `[^…]` negate it), and a backslash makes the next
 * character literal (the classifier writes quoted characters so). As bash matches by default:
 * `**` is `*` (zsh and `globstar` recurse), and no wildcard matches a leading `.` of a name. Both
 * narrow the match, so a path it takes is a path the shell's pattern took.
 */
export function shellPattern(pattern: string): PathPattern {
  if (isWindowsPath(pattern)) {
    return windowsPattern(pattern);
  }
  // Matched segment by segment without a RegExp: a pattern's stars as `[^/]*` backtrack, and
  // `*a*a*a*b` against a long name of `a`s took a RegExp hours (a power of the name's length).
  const segments: PatternSegment[] = [];
  let tokens: PatternToken[] = [];
  let guarded = false;
  const close = (): void => {
    segments.push({ tokens, dotGuard: guarded, fixed: tokens.filter((t) => t !== star).length });
    tokens = [];
    guarded = false;
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    const segmentStart = i === 0 || pattern[i - 1] === '/';
    let token: PatternToken;
    if (c === '\\' && i + 1 < pattern.length) {
      token = pattern[++i]!;
    } else if (c === '*') {
      while (pattern[i + 1] === '*') {
        i++;
      }
      token = star;
    } else if (c === '?') {
      token = anyChar;
    } else if (c === '[') {
      const cls = charClass(pattern, i);
      if (cls) {
        token = new RegExp(cls.re);
        i = cls.end;
      } else {
        token = '[';
      }
    } else {
      token = c;
    }
    if (token === '/') {
      close();
      continue;
    }
    // (A wildcard that opens a segment does not match a leading `.`.)
    guarded ||= segmentStart && typeof token !== 'string';
    tokens.push(token);
  }
  close();
  return { test: (path) => matchesSegments(segments, path) };
}

/**
 * A Windows pattern (of a drive or a share: `C:\w\Script\*.lua`), which PowerShell's reads of the
 * files a listing kept become (see ShellAccess.inFolder): `\` and `/` separate its segments, and
 * it has no escapes: `*` and `?` cannot be in a Windows name, so each is a wildcard and every
 * other character itself. A segment `**` (the first only; another is `*`) is any number of
 * folders, none at all included: `-Recurse`. Narrower than Windows, so that a path it takes is a
 * path the listing took: case counts; no wildcard (nor `**`) takes a name that starts with `.`
 * (hidden, as a `.git` folder is), or one with `[`, `]` or a backtick, which PowerShell's -Path
 * takes for wildcards and an escape, so that a reader given such a file's path read another.
 */
function windowsPattern(pattern: string): PathPattern {
  const names = pattern.split(/[\\/]/);
  const globstar = names.indexOf('**');
  const compile = (name: string): PatternSegment => {
    const tokens: PatternToken[] = [];
    for (let i = 0; i < name.length; i++) {
      const c = name[i]!;
      if (c === '*') {
        while (name[i + 1] === '*') {
          i++;
        }
        tokens.push(star);
      } else {
        tokens.push(c === '?' ? anyChar : c);
      }
    }
    const wild = tokens.some((t) => typeof t !== 'string');
    return { tokens, dotGuard: typeof tokens[0] === 'symbol', fixed: tokens.filter((t) => t !== star).length, plainNames: wild };
  };
  const head = (globstar === -1 ? names : names.slice(0, globstar)).map(compile);
  const tail = globstar === -1 ? [] : names.slice(globstar + 1).map(compile);
  return {
    test: (path) => {
      const parts = path.split(/[\\/]/);
      if (globstar === -1 ? parts.length !== head.length : parts.length < head.length + tail.length) {
        return false;
      }
      const below = parts.length - tail.length;
      for (let k = 0; k < parts.length; k++) {
        const name = parts[k]!;
        const segment = k < head.length ? head[k] : k >= below ? tail[k - below] : undefined;
        if (segment ? !matchesSegment(segment, name) : name.charCodeAt(0) === dot || wildcardSyntax.test(name)) {
          return false;
        }
      }
      return true;
    },
  };
}

/** Characters PowerShell's -Path reads as wildcard syntax (see windowsPattern). */
const wildcardSyntax = /[[\]`]/;

/** A compiled shell pattern (see shellPattern): does it match the whole path? */
export interface PathPattern {
  test(path: string): boolean;
}

/** One character, `?`, a bracket expression, or `*`. */
type PatternToken = string | RegExp | typeof anyChar | typeof star;
const anyChar = Symbol('?');
const star = Symbol('*');

interface PatternSegment {
  tokens: PatternToken[];
  /** Opens with a wildcard: the name must not start with `.`. */
  dotGuard: boolean;
  /** Tokens that match one character each (all but the stars): the shortest name it matches. */
  fixed: number;
  /** Takes no name with `[`, `]` or a backtick (a Windows segment with a wildcard, see windowsPattern). */
  plainNames?: boolean;
}

/**
 * Steps one segment's match may take (a name's length times the pattern's tokens): names are at
 * most 255 characters, and real patterns a few dozen tokens. Past it, the segment counts as
 * matched: the path may be one the pattern named, and a read or rewrite of it is no claim made.
 */
const maxMatchSteps = 65_536;

function matchesSegments(segments: readonly PatternSegment[], path: string): boolean {
  let from = 0;
  for (let k = 0; k < segments.length; k++) {
    const slash = path.indexOf('/', from);
    const last = k === segments.length - 1;
    if (last !== (slash === -1)) {
      return false;
    }
    const name = path.slice(from, last ? path.length : slash);
    if (!matchesSegment(segments[k]!, name)) {
      return false;
    }
    from = slash + 1;
  }
  return true;
}

/**
 * The usual wildcard match: on a mismatch, the last star takes one more character and the rest
 * is matched again, at most a name's length times the pattern's length steps.
 */
function matchesSegment(segment: PatternSegment, name: string): boolean {
  const { tokens } = segment;
  if (name.length < segment.fixed || (segment.dotGuard && name.charCodeAt(0) === 0x2e) || (segment.plainNames && wildcardSyntax.test(name))) {
    return false;
  }
  if (name.length * (tokens.length + 1) > maxMatchSteps) {
    return true;
  }
  let t = 0;
  let n = 0;
  let starAt = -1;
  let starName = 0;
  while (n < name.length) {
    const token = tokens[t];
    if (token === star) {
      starAt = t++;
      starName = n;
    } else if (token !== undefined && matchesChar(token, name[n]!)) {
      t++;
      n++;
    } else if (starAt >= 0) {
      t = starAt + 1;
      n = ++starName;
    } else {
      return false;
    }
  }
  while (tokens[t] === star) {
    t++;
  }
  return t === tokens.length;
}

function matchesChar(token: Exclude<PatternToken, typeof star>, c: string): boolean {
  return token === anyChar ? true : typeof token === 'string' ? token === c : token.test(c);
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
