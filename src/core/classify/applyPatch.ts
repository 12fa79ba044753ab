import type { AccessOp } from '../model/events';

export interface PatchTarget {
  /** As written in the patch (often relative to the session's cwd). */
  path: string;
  op: Extract<AccessOp, 'create' | 'edit' | 'delete'>;
  /** For `*** Move to:`: the destination, written as a new file. */
  moveTo?: string;
  /** 1-based line ranges of the old file the hunks name, when their context locates them. */
  hunks: number;
}

const header = /^\*\*\* (Add|Update|Delete) File: (.+)$/;
const moveTo = /^\*\*\* Move to: (.+)$/;
const star = 0x2a;
const cr = 0x0d;

/**
 * Files named by a Codex `apply_patch` envelope (`*** Begin Patch` … `*** End Patch`).
 * Tolerates text around the envelope (a shell heredoc) and CRLF line endings.
 */
export function parseApplyPatch(text: string): PatchTarget[] {
  const out: PatchTarget[] = [];
  let current: PatchTarget | undefined;
  // Line by line in place: a patch carries whole files, and only its header lines are needed
  // as strings of their own.
  for (let start = 0; start <= text.length; ) {
    const newline = text.indexOf('\n', start);
    const next = newline === -1 ? text.length + 1 : newline + 1;
    const lineStart = start;
    start = next;
    // Most lines are a hunk's; only a line starting `*` can be a header or a move.
    if (text.charCodeAt(lineStart) !== star) {
      if (current && text.startsWith('@@', lineStart)) {
        current.hunks++;
      }
      continue;
    }
    const end = next - 1;
    const line = text.slice(lineStart, end > lineStart && text.charCodeAt(end - 1) === cr ? end - 1 : end);
    const h = header.exec(line);
    if (h) {
      const kind = h[1]!;
      current = {
        path: h[2]!.trim(),
        op: kind === 'Add' ? 'create' : kind === 'Update' ? 'edit' : 'delete',
        hunks: 0,
      };
      out.push(current);
      continue;
    }
    const m = moveTo.exec(line);
    if (m && current) {
      current.moveTo = m[1]!.trim();
      continue;
    }
    if (current && line.startsWith('@@')) {
      current.hunks++;
    }
  }
  return out;
}
