/**
 * Why a jump to a file's line did not land, in words, computed without `vscode` (so it is
 * unit-tested under node:test). The message used to blame files over 50 MB whatever happened:
 * a deleted transcript, a workspace file rewritten since the finding, a permission problem.
 */
import * as nodePath from 'node:path';
import { plainMessage } from './plainMessage';

/**
 * VS Code does not hand files over 50 MB to extensions ("Files above 50MB cannot be
 * synchronized with extensions"), so opening one through the API fails.
 */
export const editorSyncLimitBytes = 50 * 1024 * 1024;

export type JumpProblem =
  | { kind: 'missing' }
  | { kind: 'notFile' }
  | { kind: 'unreadable'; reason: string }
  | { kind: 'tooLarge'; bytes: number }
  | { kind: 'beyondEnd'; lines: number }
  | { kind: 'failed'; reason: string };

/** What a stat of the file says before it is opened; undefined when it can be opened. */
export function statProblem(stat: { isFile: boolean; size: number } | { code: string | undefined; message: string }): JumpProblem | undefined {
  if ('code' in stat) {
    if (stat.code === 'ENOENT' || stat.code === 'ENOTDIR') {
      return { kind: 'missing' };
    }
    return { kind: 'unreadable', reason: stat.message };
  }
  if (!stat.isFile) {
    return { kind: 'notFile' };
  }
  return stat.size > editorSyncLimitBytes ? { kind: 'tooLarge', bytes: stat.size } : undefined;
}

/** `line` is 1-based. */
export function jumpProblemMessage(file: string, line: number, p: JumpProblem): string {
  // Shown in a notification, and the file (a finding's subject) may be named by a transcript.
  return plainMessage(problemText(file, line, p));
}

function problemText(file: string, line: number, p: JumpProblem): string {
  const name = nodePath.basename(file);
  const cannot = `Cannot open ${name} at line ${line}`;
  switch (p.kind) {
    case 'missing':
      return `${cannot}: the file no longer exists (${file}).`;
    case 'notFile':
      return `${cannot}: ${file} is not a regular file.`;
    case 'unreadable':
      return `${cannot}: ${p.reason}`;
    case 'tooLarge':
      return `${cannot}: at ${(p.bytes / 1024 / 1024).toFixed(0)} MB it is over the 50 MB VS Code lets extensions open. The command-line tool's \`check\` prints each finding with its line.`;
    case 'beyondEnd':
      return `${name} has ${p.lines} line${p.lines === 1 ? '' : 's'}, so line ${line} is gone: the file was rewritten or cut short after the finding was reported. Showing its end.`;
    case 'failed':
      return `${cannot}: ${p.reason}`;
  }
}
