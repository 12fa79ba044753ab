import * as nodePath from 'node:path';
import type { Finding, Severity } from '../../core/model/finding';

export interface Palette {
  bold(s: string): string;
  dim(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  blue(s: string): string;
  underline(s: string): string;
}

const plain: Palette = { bold: (s) => s, dim: (s) => s, red: (s) => s, yellow: (s) => s, blue: (s) => s, underline: (s) => s };
const sgr = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;
const ansi: Palette = { bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), yellow: sgr(33, 39), blue: sgr(34, 39), underline: sgr(4, 24) };

/**
 * Colour on a terminal unless NO_COLOR is set; FORCE_COLOR forces it (the usual conventions).
 * FORCE_COLOR=0 or false forces it off, on a terminal too, as Node and supports-color read it:
 * `false` was taken for "force" and put escape codes into a log written through a pipe.
 */
export function paletteFor(stream: { isTTY?: boolean }, env: Readonly<Record<string, string | undefined>>): Palette {
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') {
    return plain;
  }
  const force = env['FORCE_COLOR'];
  if (force !== undefined) {
    return force === '0' || force.toLowerCase() === 'false' ? plain : ansi;
  }
  return stream.isTTY ? ansi : plain;
}

/**
 * What a terminal or a CI log would act on rather than show: C0 and C1 controls (escape
 * sequences that clear the screen, set the title or the clipboard, a line break that starts a
 * forged line, which a CI log may read as a command), DEL, line and paragraph separators, and
 * bidi overrides (text shown in another order than it is).
 */
// eslint-disable-next-line no-control-regex -- these characters are what it finds
const unprintable = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const namedEscapes: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `s` with every character a terminal would act on shown as an escape (`\x1b`, `\n`,
 * `\u202e`). Text output is made of transcript content (call ids, tool names, paths, what a
 * model wrote), which is untrusted: printed as it is, it could drive the reader's terminal or
 * forge lines of the report. JSON and SARIF need no such thing: JSON escapes them itself.
 */
export function printable(s: string): string {
  return s.replace(unprintable, (c) => {
    const code = c.charCodeAt(0);
    return namedEscapes[c] ?? (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`);
  });
}

function severityLabel(s: Severity, p: Palette): string {
  return s === 'error' ? p.red('error') : s === 'warning' ? p.yellow('warning') : p.blue('info');
}

export function displayFile(file: string, cwd: string): string {
  const rel = nodePath.relative(cwd, file);
  if (rel === '') {
    // The current folder itself (`check .`, `watch`).
    return '.';
  }
  return printable(!rel.startsWith('..') && !nodePath.isAbsolute(rel) ? rel : file);
}

/**
 * A finding `watch` printed that is no longer reported: its cause went (a stalled call's result
 * landed, a rewrite fixed it, the transcript was truncated or deleted). Said neutrally, as
 * `watch` does not know which.
 */
export function renderGoneLine(f: Finding, p: Palette, cwd: string): string {
  return p.dim(`${displayFile(f.file, cwd)}:${f.line}:${f.column}  no longer reported  ${printable(f.rule)}`);
}

/** One finding as a single line: `file:line:col  severity  message  rule` (for `watch`). */
export function renderFindingLine(f: Finding, p: Palette, cwd: string): string {
  return `${p.underline(`${displayFile(f.file, cwd)}:${f.line}:${f.column}`)}  ${severityLabel(f.severity, p)}  ${printable(f.message)}  ${p.dim(printable(f.rule))}`;
}

/**
 * Findings grouped by file, ESLint-stylish: readable in a terminal and in CI logs. `unreadable`:
 * paths that could not be read (their messages follow on stderr); the summary never says "no
 * problems" when part of what was asked for went unchecked. `nothingFound`: paths given in which no
 * transcript was found, when none of them held one.
 */
export function renderText(findings: readonly Finding[], p: Palette, cwd: string, checkedFiles: number, unreadable = 0, nothingFound = 0): string {
  const byFile = new Map<string, Finding[]>();
  for (const f of findings) {
    const list = byFile.get(f.file);
    if (list) {
      list.push(f);
    } else {
      byFile.set(f.file, [f]);
    }
  }
  const out: string[] = [];
  for (const [file, list] of byFile) {
    out.push(p.underline(displayFile(file, cwd)));
    const first = list[0]!;
    out.push(p.dim(`  ${first.agent} session ${printable(first.session)}`));
    for (const f of list) {
      out.push(`  ${p.dim(`${f.line}:${f.column}`.padEnd(9))} ${severityLabel(f.severity, p).padEnd(p === plain ? 8 : 18)} ${printable(f.message)}  ${p.dim(printable(f.rule))}`);
      for (const r of f.related) {
        out.push(p.dim(`             ↳ ${r.file === f.file ? '' : displayFile(r.file, cwd) + ':'}${r.line}: ${printable(r.message)}`));
      }
    }
    out.push('');
  }
  const errors = findings.filter((f) => f.severity === 'error').length;
  const warnings = findings.filter((f) => f.severity === 'warning').length;
  const infos = findings.length - errors - warnings;
  const files = `${checkedFiles} transcript${checkedFiles === 1 ? '' : 's'} checked`;
  const unchecked = unreadable > 0 ? `${unreadable} path${unreadable === 1 ? '' : 's'} could not be read (see below)` : '';
  if (findings.length === 0) {
    out.push(
      unreadable > 0
        ? p.bold(p.red(`✖ ${unchecked}; no problems in the ${files}`))
        : nothingFound > 0
          ? p.bold(p.red(`✖ no transcripts found in the ${nothingFound === 1 ? 'path' : `${nothingFound} paths`} given (see below)`))
          : `✔ no problems (${files})`,
    );
  } else {
    const summary = `${findings.length} problem${findings.length === 1 ? '' : 's'} (${errors} error${errors === 1 ? '' : 's'}, ${warnings} warning${warnings === 1 ? '' : 's'}, ${infos} info) — ${files}${unchecked ? '; ' + unchecked : ''}`;
    out.push(errors > 0 || unreadable > 0 ? p.bold(p.red('✖ ' + summary)) : p.bold(p.yellow('⚠ ' + summary)));
  }
  return out.join('\n') + '\n';
}
