import type { Span } from '../../model/events';

/**
 * The shape of a Claude Code file's `parentUuid` tree, at the level that matters: API
 * messages and prompts. Claude Code writes one line per content block, each tool result as a
 * child of its tool_use line, progress lines as children of anything — so many lines have
 * siblings without any fork. Here every line maps to a node (an assistant API message by its
 * message id, a user prompt by its uuid; results and other lines inherit their parent's
 * node), and a fork is a node getting a second child node.
 */
export interface BranchGrowth {
  /** The branch this node extends (an id local to the tracker). */
  branch: number;
  /** This node started a new branch at a node that already had a child. */
  forkedAt?: { node: string; at: Span };
  /** The branch that was growing before this node, when it is another one. */
  switchedFrom?: number;
}

interface Branch {
  id: number;
  tip: string;
  firstAt: Span;
  /** Nodes added to this branch after it started. */
  grown: number;
}

export class BranchTracker {
  private readonly nodeOfUuid = new Map<string, string>();
  private readonly childCount = new Map<string, number>();
  private readonly branchOfTip = new Map<string, Branch>();
  private readonly nodeAt = new Map<string, Span>();
  private readonly branches: Branch[] = [];
  private lastBranch: number | undefined;

  /**
   * Records one line. `node` is the line's node id when it is a conversation node (assistant
   * message id, user prompt uuid), undefined for results and other lines.
   */
  add(uuid: string | undefined, parentUuid: string | null | undefined, node: string | undefined, at: Span): BranchGrowth | undefined {
    const parentNode = parentUuid ? this.nodeOfUuid.get(parentUuid) : undefined;
    if (node === undefined) {
      // A result or another line: it belongs to its parent's node.
      if (uuid !== undefined && parentNode !== undefined) {
        this.nodeOfUuid.set(uuid, parentNode);
      }
      return undefined;
    }
    if (uuid !== undefined) {
      this.nodeOfUuid.set(uuid, node);
    }
    if (this.nodeAt.has(node)) {
      // Another block of a message already placed.
      return undefined;
    }
    this.nodeAt.set(node, at);
    let branch: Branch;
    let forkedAt: BranchGrowth['forkedAt'];
    const siblings = parentNode === undefined ? 0 : (this.childCount.get(parentNode) ?? 0);
    if (parentNode !== undefined) {
      this.childCount.set(parentNode, siblings + 1);
    }
    const extending = parentNode !== undefined ? this.branchOfTip.get(parentNode) : undefined;
    if (extending && siblings === 0) {
      branch = extending;
      this.branchOfTip.delete(parentNode!);
      branch.tip = node;
      branch.grown++;
    } else {
      branch = { id: this.branches.length, tip: node, firstAt: at, grown: 0 };
      this.branches.push(branch);
      if (parentNode !== undefined && siblings > 0) {
        forkedAt = { node: parentNode, at: this.nodeAt.get(parentNode) ?? at };
      }
    }
    this.branchOfTip.set(node, branch);
    const previous = this.lastBranch;
    this.lastBranch = branch.id;
    // Optional fields are set only when present (no spread of a conditional literal: this
    // runs for every message of a Claude Code transcript).
    const growth: BranchGrowth = { branch: branch.id };
    if (forkedAt) {
      growth.forkedAt = forkedAt;
    }
    if (previous !== undefined && previous !== branch.id) {
      growth.switchedFrom = previous;
    }
    return growth;
  }

  firstAt(branch: number): Span | undefined {
    return this.branches[branch]?.firstAt;
  }

  /** Forget everything (a compaction starts a new root). */
  reset(): void {
    this.lastBranch = undefined;
  }
}

/**
 * The one tracker of a conversation that the branch rules (forked-session,
 * overlapping-executions) share: they feed it the same lines, so each line is added once and
 * the second rule gets the answer the first one got. Keyed by the engine's conversation, so
 * it lives as long as that stream.
 */
export function sharedBranchTracker(conversation: object): SharedBranchTracker {
  let t = sharedTrackers.get(conversation);
  if (!t) {
    t = new SharedBranchTracker();
    sharedTrackers.set(conversation, t);
  }
  return t;
}

const sharedTrackers = new WeakMap<object, SharedBranchTracker>();

export class SharedBranchTracker {
  private readonly tracker = new BranchTracker();
  /** The event (call or result record, text event) last added, and what adding it returned. */
  private lastEvent: object | undefined;
  private lastGrowth: BranchGrowth | undefined;

  /** `BranchTracker.add` for the line of `event`; the same event again returns the same answer. */
  add(event: object, uuid: string | undefined, parentUuid: string | null | undefined, node: string | undefined, at: Span): BranchGrowth | undefined {
    if (event !== this.lastEvent) {
      this.lastEvent = event;
      this.lastGrowth = this.tracker.add(uuid, parentUuid, node, at);
    }
    return this.lastGrowth;
  }

  firstAt(branch: number): Span | undefined {
    return this.tracker.firstAt(branch);
  }

  reset(): void {
    this.tracker.reset();
  }
}
