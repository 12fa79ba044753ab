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

/**
 * Files named by a Codex `apply_patch` envelope (`*** Begin Patch` … `*** End Patch`).
 * Tolerates text around the envelope (a shell heredoc) and CRLF line endings.
 */
export function parseApplyPatch(text: string): PatchTarget[] {
  const out: PatchTarget[] = [];
  let current: PatchTarget | undefined;
  for (const rawLine of text.split('\n')) {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    // Most lines are a hunk's; only a line starting `*` can be a header or a move.
    if (line.charCodeAt(0) !== star) {
      if (current && line.startsWith('@@')) {
        current.hunks++;
      }
      continue;
    }
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

export function looksLikePatch(text: string): boolean {
  return text.includes('*** Begin Patch') || header.test(text.split('\n', 2)[0] ?? '');
}
