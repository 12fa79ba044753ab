/**
 * Re-linking Claude Code's parent chain after lines are dropped, moved or added.
 *
 * Claude Code rebuilds a conversation by walking `parentUuid` from the newest leaf back to
 * the root (FORMATS.md §1.3), so a repair must leave one chain that still passes through
 * every entry it passed through before. The moves are list operations on that graph:
 *
 * - **Taking a line out** (dropped, or moved away): its children hang from its parent.
 * - **A real result taking a placeholder's place**: it inherits the placeholder's parent and
 *   children — Claude Code's own links, whatever their shape.
 * - **Putting a line in** after entry P (the nearest entry before its new place): it hangs
 *   from P and the entries after it that hung from P hang from it. For a call's single
 *   result that is exactly Claude Code's shape (the result's parent is the tool_use entry).
 *   For parallel calls the result hangs from the block or result before it, inside the same
 *   API message: every entry the chain passed through, it still passes through. (Claude Code
 *   hangs each parallel result from its own tool_use entry, beside the chain; a repair never
 *   takes an entry off the chain to copy that.)
 *
 * `sourceToolAssistantUUID` always names the call's entry and is never changed.
 */

/** One line with a `uuid` (user, assistant, system, progress, attachment entries). */
export interface ChainNode {
  /** Original line number; negative for a line the repair adds. */
  key: number;
  uuid: string;
  /** `undefined` when the line has no parentUuid key. */
  parent: string | null | undefined;
  sidechain: boolean;
}

export interface Cause {
  rule: string;
  callId: string;
}

export interface RelinkInput {
  /** Every original node, in file order, dropped and moved ones included. */
  original: readonly ChainNode[];
  /** The nodes of the repaired file, in their new order (new nodes included). */
  order: readonly ChainNode[];
  dropped: ReadonlySet<ChainNode>;
  /** Moved and added nodes, each with why it is placed, and the placeholder whose place it takes. */
  placed: ReadonlyMap<ChainNode, { cause: Cause; slot?: ChainNode; moved: boolean }>;
}

export interface RelinkResult {
  /** Nodes whose parent changed, with the placement or drop that changed it last. */
  changed: Map<ChainNode, Cause>;
  /** What is wrong with the resulting chain, if anything (then nothing may be written). */
  problem?: string;
}

/** Re-links in place (`node.parent` is updated) and reports what changed. */
export function relink(input: RelinkInput): RelinkResult {
  const children = new Map<string, Set<ChainNode>>();
  const all = [...input.original, ...[...input.placed.keys()].filter((n) => n.key < 0)];
  const link = (n: ChainNode): void => {
    if (typeof n.parent === 'string') {
      let set = children.get(n.parent);
      if (!set) {
        set = new Set();
        children.set(n.parent, set);
      }
      set.add(n);
    }
  };
  for (const n of all) {
    link(n);
  }
  const before = new Map(all.map((n) => [n, n.parent] as const));
  const changed = new Map<ChainNode, Cause>();
  const setParent = (n: ChainNode, p: string | null, cause: Cause): void => {
    if (n.parent === p) {
      return;
    }
    if (typeof n.parent === 'string') {
      children.get(n.parent)?.delete(n);
    }
    n.parent = p;
    link(n);
    changed.set(n, cause);
  };
  const childrenOf = (uuid: string): ChainNode[] => [...(children.get(uuid) ?? [])];

  // A uuid still held by a kept line (older builds replay entries with their uuids) needs no splice.
  const kept = new Map<string, number>();
  for (const n of input.order) {
    kept.set(n.uuid, (kept.get(n.uuid) ?? 0) + 1);
  }
  /** Placeholders whose place a real result takes over, with that result's cause. */
  const slots = new Map<ChainNode, Cause>();
  for (const p of input.placed.values()) {
    if (p.slot) {
      slots.set(p.slot, p.cause);
    }
  }

  // 1. Take out every dropped and moved line (a placeholder's place is taken over in step 2).
  for (const x of input.original) {
    const movedAway = input.placed.get(x)?.moved === true;
    if ((!input.dropped.has(x) && !movedAway) || slots.has(x) || (!movedAway && (kept.get(x.uuid) ?? 0) > 0)) {
      continue;
    }
    const cause = input.placed.get(x)?.cause ?? { rule: 'repair', callId: '' };
    for (const c of childrenOf(x.uuid)) {
      if (c !== x) {
        setParent(c, x.parent ?? null, cause);
      }
    }
  }

  // 2. Put every moved and added line in, in file order.
  const pos = new Map(input.order.map((n, i) => [n, i] as const));
  for (const r of input.order) {
    const p = input.placed.get(r);
    if (!p) {
      continue;
    }
    const at = pos.get(r)!;
    if (p.slot) {
      const slot = p.slot;
      setParent(r, slot.parent ?? null, p.cause);
      for (const c of childrenOf(slot.uuid)) {
        if (c !== r) {
          setParent(c, r.uuid, p.cause);
        }
      }
      continue;
    }
    let prev: ChainNode | undefined;
    for (let i = at - 1; i >= 0; i--) {
      const n = input.order[i]!;
      if (n.sidechain === r.sidechain) {
        prev = n;
        break;
      }
    }
    const prevUuid = prev?.uuid ?? null;
    setParent(r, prevUuid, p.cause);
    if (prevUuid !== null) {
      for (const c of childrenOf(prevUuid)) {
        if (c !== r && (pos.get(c) ?? -1) > at) {
          setParent(c, r.uuid, p.cause);
        }
      }
    }
  }

  for (const n of [...changed.keys()]) {
    if (before.get(n) === n.parent && n.key > 0) {
      changed.delete(n);
    }
  }
  const problem = checkChain(input.original, input.order);
  return problem ? { changed, problem } : { changed };
}

/** Every parent is a kept entry (or was missing from the file already), and no chain loops. */
function checkChain(original: readonly ChainNode[], order: readonly ChainNode[]): string | undefined {
  const present = new Map<string, ChainNode>();
  for (const n of order) {
    present.set(n.uuid, n);
  }
  const everPresent = new Set(original.map((n) => n.uuid));
  for (const n of order) {
    if (typeof n.parent === 'string' && !present.has(n.parent) && everPresent.has(n.parent)) {
      return `the entry on line ${n.key} would point to a parent that is no longer in the file`;
    }
  }
  const done = new Set<ChainNode>();
  for (const start of order) {
    const path = new Set<ChainNode>();
    let cur: ChainNode | undefined = start;
    while (cur && !done.has(cur)) {
      if (path.has(cur)) {
        return `the parent chain would loop through line ${cur.key}`;
      }
      path.add(cur);
      cur = typeof cur.parent === 'string' ? present.get(cur.parent) : undefined;
    }
    for (const n of path) {
      done.add(n);
    }
  }
  return undefined;
}
