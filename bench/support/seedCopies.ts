/**
 * Copies of a seed transcript with fresh ids, for the benchmarks' generated corpora
 * (check.bench.ts, watch.bench.ts). A seed is cut at every id once; a copy is then a join of
 * its literal text with new ids of the same length and alphabet, so calls and results still
 * pair and no copy repeats another's ids.
 */

/** What an id placeholder becomes in a copy. */
export type Slot =
  | { kind: 'copy'; original: string }
  /** The file's session id (Claude `sessionId`, Codex `session_meta.payload.id`). */
  | { kind: 'session' }
  /** The sub-agent id of a sub-agent file (`agentId`), which is also in its file name. */
  | { kind: 'agent' };

export interface IdTemplate {
  bytes: number;
  /** Non-blank lines. */
  lines: number;
  /** Literal text, then alternately a slot index and literal text. */
  literals: string[];
  slotAt: number[];
  slots: Slot[];
}

const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const idShape = /^[A-Za-z0-9_-]{7,}$/;
const idKey = /(^id$|Id$|ID$|_id$|uuid$|Uuid$|UUID$)/;

/**
 * Cuts a seed's text at every id. With `cwd`, the seed's working directory (and every path
 * below it) becomes `cwd`, so every copy is a session of that workspace.
 */
export function idTemplate(seedText: string, opts: { cwd?: string } = {}): IdTemplate {
  let text = seedText;
  const cwds = new Set<string>();
  const found = new Map<string, Slot>();
  const note = (value: string, slot: Slot): void => {
    const had = found.get(value);
    // File-level ids win over per-copy ones.
    if (!had || had.kind === 'copy') {
      found.set(value, slot);
    }
  };
  const walk = (v: unknown, key: string): void => {
    if (Array.isArray(v)) {
      for (const x of v) {
        walk(x, key);
      }
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
        walk(x, k);
      }
    } else if (typeof v === 'string' && opts.cwd !== undefined && key === 'cwd' && v.startsWith('/')) {
      cwds.add(v);
    } else if (typeof v === 'string' && idKey.test(key) && idShape.test(v)) {
      if (key === 'sessionId') {
        note(v, { kind: 'session' });
      } else if (key === 'agentId') {
        note(v, { kind: 'agent' });
      } else {
        note(v, { kind: 'copy', original: v });
      }
    }
  };
  let lines = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      continue;
    }
    lines++;
    const value = JSON.parse(line) as Record<string, unknown>;
    if (value['type'] === 'session_meta') {
      const id = (value['payload'] as Record<string, unknown> | undefined)?.['id'];
      if (typeof id === 'string') {
        note(id, { kind: 'session' });
      }
    }
    walk(value, '');
  }
  if (opts.cwd !== undefined) {
    for (const c of [...cwds].sort((a, b) => b.length - a.length)) {
      text = text.split(c).join(opts.cwd);
    }
  }
  const ids = [...found.keys()].sort((a, b) => b.length - a.length);
  const re = new RegExp(ids.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  const slotIndex = new Map(ids.map((id, i) => [id, i]));
  const literals: string[] = [];
  const slotAt: number[] = [];
  let last = 0;
  for (const m of text.matchAll(re)) {
    literals.push(text.slice(last, m.index));
    slotAt.push(slotIndex.get(m[0])!);
    last = m.index + m[0].length;
  }
  literals.push(text.slice(last));
  return { bytes: Buffer.byteLength(text), lines, literals, slotAt, slots: ids.map((id) => found.get(id)!) };
}

/** One copy with fresh ids; `counter` numbers the per-copy ids of the whole file. */
export function instantiate(t: IdTemplate, session: string, agent: string, counter: { n: number }): string {
  const fresh = t.slots.map((s) => (s.kind === 'session' ? session : s.kind === 'agent' ? agent : renewId(s.original, ++counter.n)));
  const parts: string[] = [t.literals[0]!];
  for (let i = 0; i < t.slotAt.length; i++) {
    parts.push(fresh[t.slotAt[i]!]!, t.literals[i + 1]!);
  }
  return parts.join('');
}

/** Same length and alphabet as `original`, with a counter in its tail: unique per file. */
export function renewId(original: string, n: number): string {
  if (uuidShape.test(original)) {
    return original.slice(0, 24) + n.toString(16).padStart(12, '0');
  }
  const radix = /^[0-9a-f]+$/.test(original) ? 16 : 36;
  const tail = Math.max(4, Math.min(10, Math.floor(original.length / 2)));
  const s = n.toString(radix).padStart(tail, '0');
  return s.length < original.length ? original.slice(0, original.length - s.length) + s : `${original}-${s}`;
}

export function randomUuid(rnd: () => number): string {
  const hex = (n: number): string => Array.from({ length: n }, () => Math.floor(rnd() * 16).toString(16)).join('');
  return `${hex(8)}-${hex(4)}-4${hex(3)}-${(8 + Math.floor(rnd() * 4)).toString(16)}${hex(3)}-${hex(12)}`;
}

export function shuffle<T>(items: T[], rnd: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
