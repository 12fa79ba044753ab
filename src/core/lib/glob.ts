/**
 * Glob patterns as used in VS Code settings (`**`, `*`, `?`, `{a,b}`, character classes),
 * compiled to a RegExp over '/'-separated paths. A pattern without a slash matches a path
 * segment anywhere (like `.gitignore` and `files.exclude` do for bare names).
 */
function globToRegExp(pattern: string): RegExp {
  let p = pattern.trim().replace(/\\/g, '/');
  if (p.endsWith('/')) {
    p += '**';
  }
  const anchored = p.includes('/') && !p.startsWith('**/');
  let re = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '*') {
      if (p[i + 1] === '*') {
        // '**/' matches zero or more directories; a trailing '**' matches everything below.
        i++;
        if (p[i + 1] === '/') {
          i++;
          re += '(?:.*/)?';
        } else {
          re += '.*';
        }
      } else {
        re += '[^/]*';
      }
    } else if (c === '?') {
      re += '[^/]';
    } else if (c === '{') {
      const end = p.indexOf('}', i);
      if (end === -1) {
        re += '\\{';
      } else {
        re += '(?:' + p.slice(i + 1, end).split(',').map(escape).join('|') + ')';
        i = end;
      }
    } else if (c === '[') {
      const end = p.indexOf(']', i);
      if (end === -1) {
        re += '\\[';
      } else {
        re += '[' + p.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\') + ']';
        i = end;
      }
    } else {
      re += escape(c);
    }
  }
  return new RegExp((anchored ? '^' : '(?:^|/)') + re + '(?:/.*)?$');
}

function escape(s: string): string {
  return s.replace(/[.+^$()|\\]/g, '\\$&');
}

/** A matcher over paths relative to a root ('/'-separated). */
export function globMatcher(patterns: readonly string[]): (relPath: string) => boolean {
  const res = patterns.filter((p) => p.trim() !== '').map(globToRegExp);
  return (rel) => res.some((r) => r.test(rel));
}
