import { dominantEol, encodeLine, joinLines, leadingBom, splitLines, type OutputLine, type SourceLine } from './lines';
import type { RepairEdit } from './plan';

type Placed = { kind: 'line'; no: number } | { kind: 'new'; text: string };

/**
 * The transcript with the edits applied. Lines no edit touches keep their bytes and their
 * terminator; a rewritten line keeps its terminator; an added line gets the terminator most
 * lines use; a byte order mark stays at the start of the file, whatever happens to line 1.
 * Throws on a plan that does not fit the source (a line out of range, an anchor that is
 * dropped, a line moved twice or after itself).
 */
export function applyRepairPlan(source: Uint8Array, edits: readonly RepairEdit[]): Uint8Array {
  const lines = splitLines(source);
  const count = lines.length;
  const dropped = new Set<number>();
  const moved = new Map<number, number>();
  const rewrites = new Map<number, string>();
  const attached = new Map<number, Placed[]>();
  const checkLine = (n: number, what: string, allowStart = false): void => {
    if (!Number.isInteger(n) || n < (allowStart ? 0 : 1) || n > count) {
      throw new Error(`repair plan: ${what} ${n} is not a line of this file (1–${count})`);
    }
  };
  const attach = (after: number, p: Placed): void => {
    const list = attached.get(after);
    if (list) {
      list.push(p);
    } else {
      attached.set(after, [p]);
    }
  };
  for (const e of edits) {
    switch (e.kind) {
      case 'drop':
        checkLine(e.line, 'dropped line');
        dropped.add(e.line);
        break;
      case 'move':
        checkLine(e.line, 'moved line');
        checkLine(e.after, 'anchor line', true);
        if (moved.has(e.line) || e.line === e.after) {
          throw new Error(`repair plan: line ${e.line} is moved twice or after itself`);
        }
        moved.set(e.line, e.after);
        attach(e.after, { kind: 'line', no: e.line });
        break;
      case 'insert':
        checkLine(e.after, 'anchor line', true);
        attach(e.after, { kind: 'new', text: e.text });
        break;
      case 'rewrite':
        checkLine(e.line, 'rewritten line');
        rewrites.set(e.line, e.text);
        break;
    }
  }
  for (const [n, after] of moved) {
    if (dropped.has(n)) {
      throw new Error(`repair plan: line ${n} is both dropped and moved`);
    }
    if (dropped.has(after)) {
      throw new Error(`repair plan: line ${n} is moved after line ${after}, which is dropped`);
    }
  }
  for (const after of attached.keys()) {
    if (dropped.has(after)) {
      throw new Error(`repair plan: a line is added after line ${after}, which is dropped`);
    }
  }

  const out: OutputLine[] = [];
  const seen = new Set<number>();
  const emitLine = (line: SourceLine): void => {
    if (seen.has(line.no)) {
      throw new Error(`repair plan: line ${line.no} is placed after itself`);
    }
    seen.add(line.no);
    const text = rewrites.get(line.no);
    out.push(text === undefined ? { body: line.body, eol: line.eol } : { body: encodeLine(text), eol: line.eol === '' ? '' : line.eol });
    emitAttached(line.no);
  };
  const eol = dominantEol(lines);
  const emitAttached = (n: number): void => {
    for (const p of attached.get(n) ?? []) {
      if (p.kind === 'new') {
        out.push({ body: encodeLine(p.text), eol });
      } else {
        emitLine(lines[p.no - 1]!);
      }
    }
  };
  emitAttached(0);
  for (const line of lines) {
    if (!moved.has(line.no) && !dropped.has(line.no)) {
      emitLine(line);
    }
  }
  if (seen.size + dropped.size !== count) {
    throw new Error('repair plan: moved lines form a cycle');
  }
  // A last line without newline that is no longer last gets one; a new last line keeps its own.
  return joinLines(out, eol, leadingBom(source));
}
