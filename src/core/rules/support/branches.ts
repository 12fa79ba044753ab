import type { CallRecord, ResultRecord } from '../../engine/conversation';
import type { RequestRetriedEvent, Span, TextEvent, ToolCall } from '../../model/events';

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
  /** The node is an API message written again, elsewhere in the tree (see BranchTracker.add). */
  copy?: true;
  /**
   * The node is the answer to the request a replaced execution had in flight (see
   * BranchTracker.restart): the older branch's one node after the restart, which neither switches
   * branches nor shows a second writer.
   */
  late?: true;
  /**
   * The node starts a conversation over from its root prompt (see BranchTracker.restart), or
   * answers again the request the older branch's one message answered (see BranchTracker.replaced).
   */
  restart?: true;
}

/** What a line is in an assistant API message, where that matters to `entersBefore`. */
export type BlockKind = 'text' | 'call';

/**
 * Lines remembered at a text block of their API message (the newest): a session resumed from
 * inside a message hangs from one of the last messages.
 */
const maxTextLinesKept = 256;
/** API messages whose last call line is remembered (the newest), for the same reason. */
const maxCallMessagesKept = 256;

/** A node of the tree, once placed. */
interface NodeInfo {
  /** Its parent node; undefined for a root. */
  parent: string | undefined;
  /**
   * Its depth (a root is 0) and a jump to one of its ancestors (Myers' skew-binary pointers:
   * `ancestorAt` climbs any distance in O(log depth) steps). A session's chain of messages is as
   * long as the session: walking it parent by parent for every question of descent made a file
   * of thousands of calls with one id, or of results hung far below their calls, cost the square
   * (or cube) of its length.
   */
  depth: number;
  jump: string | undefined;
  /** Child nodes placed under it so far: a second one is a fork. */
  children: number;
  /** The line that placed it. */
  at: Span;
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
  /** A message's copies written elsewhere in the tree (see `add`), by the message's node. */
  private readonly copies = new Map<string, Set<string>>();
  /**
   * What is known of each node placed: one record per node rather than one map per field. A
   * session's nodes are as many as its API messages and prompts, and six maps of them were a
   * fifth of the heap a long Claude Code session retains.
   */
  private readonly nodes = new Map<string, NodeInfo>();
  /** Nodes a result or another line hangs from. */
  private readonly followed = new Set<string>();
  private readonly branchOfTip = new Map<string, Branch>();
  private readonly branches: Branch[] = [];
  private lastBranch: number | undefined;
  /**
   * Where the newest lines sit in their node, when that is at an assistant text or thinking
   * block: the block's line (the block itself, or a result or other line hung from it).
   */
  private readonly textLine = new NewestKept(maxTextLinesKept);
  /** The line of the last call written in each of the newest API messages with calls. */
  private readonly lastCallLine = new NewestKept(maxCallMessagesKept);
  /**
   * Nodes that entered their parent node at a text block with a call written after it: that
   * block's line. Claude Code rebuilds the message from the chain, so the calls after the block
   * are not in it (a session resumed from before a call that never returned). Only such nodes
   * are kept, so this grows with those resumes, not with the file.
   */
  private readonly entryLine = new Map<string, number>();
  /** Root nodes that are prompts (a sub-agent file's first record): where a restart starts over. */
  private readonly rootPrompts = new Set<string>();
  /**
   * A conversation started over from its root prompt while the older branch was being written:
   * Claude Code 2.1.39–2.1.42 moving a running sub-agent to the background ("Async agent
   * launched", the main session's Task result) runs it again from its prompt, under the same
   * agent id and in the same file, and drops the first run; the request that run had in flight
   * is still answered, and its answer written, seconds to minutes later, on the older branch (a
   * tool call that never ran, or "API Error: Unable to connect to API"). That one node is no
   * second writer; more growth of the older branch is. The first run may also be dropped with
   * its calls in flight: its tools running (Claude Code 2.1.41–2.1.49), or the late answer
   * written before the new run's first message (2.1.39): those calls are the older branch's
   * tip and what leads to it, and nothing goes on from them either.
   */
  private restart: { older: number; olderTip: string; prompt: string; answered: boolean; alive: boolean } | undefined;
  /** Nodes that are such a late answer (their calls never ran). */
  private readonly lateNodes = new Set<string>();
  /**
   * Assistant messages answered again: a branch of one API message, and a second answer to the
   * same request hung beside it. Claude Code 2.1.44 whose stream failed ("Error streaming, falling
   * back to non-streaming mode", its debug log) keeps the blocks already written and sends the
   * request again; the answer replaces the message, whose calls never ran. By branch, until the
   * older branch grows again (then it was a second writer after all).
   */
  private readonly replaced = new Map<number, { node: string; alive: boolean }>();
  /**
   * Assistant messages hung from a record the tree never placed: records were lost before them
   * (or the file starts partway), so where they stood in the conversation is not known.
   */
  private readonly detached = new Set<string>();
  /**
   * Lines the file holds that belong to no node: a slash command's `<command-message>` line and
   * the command's or skill's meta text a session starts with, before anything is placed. What
   * hangs from them hangs from a record the file holds (see `holdsLine`).
   */
  private readonly unplaced = new Set<string>();

  /**
   * Records one line. `node` is the line's node id when it is a conversation node (assistant
   * message id, user prompt uuid), undefined for results and other lines. `block` says what the
   * line is in an assistant message, for `entersBefore`. `resumed`: the line is Claude Code's own
   * "No response requested." (a session resumed after its process died), which answers nothing.
   */
  add(uuid: string | undefined, parentUuid: string | null | undefined, node: string | undefined, at: Span, block?: BlockKind, resumed = false): BranchGrowth | undefined {
    const growth = this.place(uuid, parentUuid, node, at, block, resumed);
    if (uuid !== undefined) {
      this.noteEntry(uuid, parentUuid, at, block, growth !== undefined);
    }
    return growth;
  }

  /** `add` without the entries: places the line in the tree of nodes. */
  private place(uuid: string | undefined, parentUuid: string | null | undefined, node: string | undefined, at: Span, block: BlockKind | undefined, resumed: boolean): BranchGrowth | undefined {
    const parentNode = parentUuid ? this.nodeOfUuid.get(parentUuid) : undefined;
    let copied = false;
    if (node === undefined) {
      // A result or another line: it belongs to its parent's node.
      if (uuid !== undefined && parentNode !== undefined) {
        this.nodeOfUuid.set(uuid, parentNode);
      } else if (uuid !== undefined) {
        this.unplaced.add(uuid);
      }
      if (parentNode !== undefined) {
        this.followed.add(parentNode);
      }
      return undefined;
    }
    const placed = this.nodes.get(node);
    if (placed !== undefined) {
      const copy = this.copies.get(node);
      // A block hung beside the message's first one continues it only while nothing hangs from
      // the message yet: Claude Code 2.0.x wrote a message's blocks in one record, and its copy
      // written again after a crash splits them, the first block hung from the original's parent.
      const beside = parentNode === placed.parent && !this.followed.has(node);
      // A parent the tree never placed (a result hung from a record the file lost has no node)
      // tells nothing, unless the message was already followed: then a block hung from it is
      // the copy's first one, hung from the original's parent (Claude Code 2.0.53, the file
      // starting with the result of a `git reset --hard` that rewrote it).
      const unplaced = parentNode === undefined && !(parentUuid && this.followed.has(node));
      if (unplaced || parentNode === node || beside || (copy !== undefined && parentNode !== undefined && copy.has(parentNode))) {
        // Another block of a message already placed (or of a copy of it, below).
        if (uuid !== undefined) {
          this.nodeOfUuid.set(uuid, copy !== undefined && parentNode !== undefined && copy.has(parentNode) ? parentNode : node);
        }
        return undefined;
      }
      // The message written again under another parent: Claude Code 2.0.x writes a crashed
      // session's history again as a sibling branch, with the same message ids. It is a node
      // of its own there, or that branch would seem to grow the old one.
      const original = node;
      node = `${original}#${uuid ?? at.line}`;
      (copy ?? this.copies.set(original, new Set()).get(original)!).add(node);
      copied = true;
    }
    if (uuid !== undefined) {
      this.nodeOfUuid.set(uuid, node);
    }
    if (parentUuid && parentNode === undefined && block !== undefined) {
      this.detached.add(node);
    }
    const info = this.link(parentNode, parentNode !== undefined ? this.nodes.get(parentNode) : undefined, at);
    // (A copy's name met again, a line written twice, is placed again and keeps its children.)
    info.children = this.nodes.get(node)?.children ?? 0;
    this.nodes.set(node, info);
    const parentInfo = parentNode !== undefined ? this.nodes.get(parentNode) : undefined;
    let branch: Branch;
    let forkedAt: BranchGrowth['forkedAt'];
    const siblings = parentInfo?.children ?? 0;
    if (parentInfo !== undefined) {
      parentInfo.children = siblings + 1;
    }
    if (parentNode === undefined && block === undefined) {
      this.rootPrompts.add(node);
    }
    const extending = parentNode !== undefined ? this.branchOfTip.get(parentNode) : undefined;
    let late = false;
    let restarted = false;
    if (extending && siblings === 0) {
      branch = extending;
      this.branchOfTip.delete(parentNode!);
      branch.tip = node;
      branch.grown++;
      if (this.restart?.older === branch.id && !this.restart.answered) {
        // The older branch's first node since the restart: the answer to its request in flight,
        // if it is an assistant message; anything else shows the older run alive.
        this.restart.answered = true;
        late = block !== undefined;
        this.restart.alive = !late;
      } else if (this.restart?.older === branch.id) {
        this.restart.alive = true;
      }
      const r = this.replaced.get(branch.id);
      if (r !== undefined) {
        r.alive = true;
      }
    } else {
      branch = { id: this.branches.length, tip: node, firstAt: at, grown: 0 };
      this.branches.push(branch);
      if (parentNode !== undefined && siblings > 0) {
        forkedAt = { node: parentNode, at: parentInfo?.at ?? at };
        if (siblings === 1 && block !== undefined && this.rootPrompts.has(parentNode) && this.lastBranch !== undefined && this.restart === undefined) {
          const older = this.branches[this.lastBranch];
          if (older !== undefined) {
            this.restart = { older: this.lastBranch, olderTip: older.tip, prompt: parentNode, answered: false, alive: false };
            restarted = true;
          }
        } else if (this.restart !== undefined && parentNode === this.restart.prompt) {
          // A third answer to the prompt: answers side by side, not a run started over.
          this.restart.alive = true;
        } else if (siblings === 1 && block !== undefined && !resumed && node.startsWith('msg:') && this.lastBranch !== undefined) {
          // (A resumed session's own note hangs beside a message whose calls may have run: that
          // message is not answered again, the session went on without it.)
          const older = this.branches[this.lastBranch];
          if (older !== undefined && older.tip.startsWith('msg:') && this.nodes.get(older.tip)?.parent === parentNode) {
            this.replaced.set(older.id, { node: older.tip, alive: false });
            restarted = true;
          }
        }
      }
    }
    this.branchOfTip.set(node, branch);
    const previous = this.lastBranch;
    if (late) {
      // Written by the run that was dropped: the newer branch is still the one being written.
      this.lateNodes.add(node);
      return { branch: branch.id, late: true };
    }
    this.lastBranch = branch.id;
    // Optional fields are set only when present (no spread of a conditional literal: this
    // runs for every message of a Claude Code transcript).
    const growth: BranchGrowth = { branch: branch.id };
    if (forkedAt) {
      growth.forkedAt = forkedAt;
    }
    if (restarted) {
      growth.restart = true;
    }
    if (previous !== undefined && previous !== branch.id) {
      growth.switchedFrom = previous;
    }
    if (copied) {
      growth.copy = true;
    }
    return growth;
  }

  /** Records where the line `uuid`, just placed, sits in its node and where a new node entered its parent. */
  private noteEntry(uuid: string, parentUuid: string | null | undefined, at: Span, block: BlockKind | undefined, newNode: boolean): void {
    const node = this.nodeOfUuid.get(uuid);
    if (node === undefined) {
      return;
    }
    const from = parentUuid ? this.textLine.get(parentUuid) : undefined;
    if (newNode && from !== undefined) {
      const parent = this.nodes.get(node)?.parent;
      const lastCall = parent !== undefined ? this.lastCallLine.get(parent) : undefined;
      if (lastCall !== undefined && lastCall > from) {
        this.entryLine.set(node, from);
      }
    }
    if (block === 'text') {
      this.textLine.set(uuid, at.line);
    } else if (block === 'call') {
      this.lastCallLine.set(node, at.line);
    } else if (!newNode && from !== undefined && parentUuid && this.nodeOfUuid.get(parentUuid) === node) {
      // A result or another line hung from a text block sits where that block does.
      this.textLine.set(uuid, from);
    }
  }

  /**
   * Claude Code sends again the request whose history ends at `parentUuid` (its `api_error`
   * record). An assistant message already hung from that point, the newest branch's tip with
   * nothing hung from it, is the answer whose stream failed (Claude Code 2.1.4x keeps the blocks
   * already written): the retry's answer replaces it, and its calls never ran, as when that
   * answer comes (see `replaced`). Said now, for a file that ends before it does.
   */
  retried(parentUuid: string): void {
    const parentNode = this.nodeOfUuid.get(parentUuid);
    const branch = this.lastBranch !== undefined ? this.branches[this.lastBranch] : undefined;
    if (parentNode === undefined || branch === undefined || this.replaced.has(branch.id) || !branch.tip.startsWith('msg:')) {
      return;
    }
    if (this.nodes.get(branch.tip)?.parent === parentNode && !this.followed.has(branch.tip)) {
      this.replaced.set(branch.id, { node: branch.tip, alive: false });
    }
  }

  /** The node a line belongs to, once added. */
  nodeOfLine(uuid: string): string | undefined {
    return this.nodeOfUuid.get(uuid);
  }

  /** Was a line with this uuid added, whether or not it belongs to a node? */
  holdsLine(uuid: string): boolean {
    return this.nodeOfUuid.has(uuid) || this.unplaced.has(uuid);
  }

  /** Is the node the late answer of a run dropped when its conversation started over (see `restart`)? */
  isLate(node: string): boolean {
    return this.lateNodes.has(node);
  }

  /**
   * A tool result written below the older branch after a restart: the first run's tool ended
   * and was carried on, so that run is alive (its next answer is no late answer either).
   */
  resultLanded(parentUuid: string | null | undefined): void {
    const node = parentUuid ? this.nodeOfUuid.get(parentUuid) : undefined;
    if (node === undefined || !this.inDroppedRun(node) || this.lateNodes.has(node)) {
      return;
    }
    for (const r of this.replaced.values()) {
      if (r.node === node) {
        r.alive = true;
        return;
      }
    }
    if (this.restart !== undefined) {
      this.restart.alive = true;
      this.restart.answered = true;
    }
  }

  /** Is the branch the older one of a restart or of a message answered again, never grown since? */
  branchDropped(branch: number): boolean {
    const r = this.replaced.get(branch);
    if (r !== undefined) {
      return !r.alive;
    }
    return this.restart?.older === branch && !this.restart.alive;
  }

  /**
   * Is the node part of the run dropped at such a restart: its late answer, or the older branch
   * up to its tip at the restart (the root prompt is the new run's too), the older branch never
   * growing again? Its calls in flight never ran or were cut off with the run. (A late answer
   * shows the run was waiting on the model, its calls all answered: then only that answer's
   * calls are the dropped run's.) Or a message answered again (see `replaced`). A message hung
   * from a record the file does not hold (`detached`) is no root prompt: Claude Code 2.0.76's
   * sub-agent files hang most lines from records never written, so the older branch may start
   * at one, and it is the dropped run's all the same.
   */
  inDroppedRun(node: string): boolean {
    if (this.lateNodes.has(node)) {
      return true;
    }
    for (const x of this.replaced.values()) {
      if (x.node === node) {
        return !x.alive;
      }
    }
    const r = this.restart;
    const placed = this.nodes.get(node);
    if (r === undefined || r.alive || r.answered || placed === undefined || (placed.parent === undefined && !this.detached.has(node))) {
      return false;
    }
    return this.ancestorAt(r.olderTip, placed.depth) === node;
  }

  /** Does the node hang from a record the tree never placed (see `detached`)? */
  isDetached(node: string): boolean {
    return this.detached.has(node);
  }

  firstAt(branch: number): Span | undefined {
    return this.branches[branch]?.firstAt;
  }

  /**
   * Does a line hanging from `parentUuid` descend from node `ancestor` (or is it in it)?
   * Undefined when the tree does not tell: no parent, or the ancestor was never placed. A parent
   * the tree never saw is a break in the chain (records lost from the file, or hung from another
   * file's): what hangs from it does not descend from anything here.
   */
  descends(parentUuid: string | null | undefined, ancestor: string): boolean | undefined {
    const placed = this.nodes.get(ancestor);
    if (placed === undefined || !parentUuid) {
      return undefined;
    }
    const node = this.nodeOfUuid.get(parentUuid);
    if (node === undefined) {
      return false;
    }
    // (The ancestor at the ancestor's depth is the ancestor itself, or the line is elsewhere.)
    return this.ancestorAt(node, placed.depth) === ancestor;
  }

  /**
   * Does a line hanging from `parentUuid` reach node `node` at one of its text or thinking
   * blocks written before line `line`: hung from such a block (or from a result or other line
   * hung from it), or descending from a node that was? Claude Code rebuilds an API message from
   * the blocks on the chain, so a block written after that point, a call on `line`, is not in
   * this line's history. A node counts as hung there only if a call of the message had been
   * written after the block when the node was added (the ordinary next turn hangs from a
   * message's last block). False when the chain does not reach `node`, reaches it at or after
   * `line` or at a call or its result, or reaches it at a block the tracker no longer remembers
   * (it keeps the newest few hundred; a resume hangs from one of the last messages).
   */
  entersBefore(parentUuid: string | null | undefined, node: string, line: number): boolean {
    const placed = this.nodes.get(node);
    const at = parentUuid ? this.nodeOfUuid.get(parentUuid) : undefined;
    if (placed === undefined || at === undefined) {
      return false;
    }
    // Where the chain sits in the node it is in: the parent line's own place when that is the
    // node, else where the node's child on the chain entered it.
    if (at === node) {
      const entry = this.textLine.get(parentUuid!);
      return entry !== undefined && entry < line;
    }
    const child = this.ancestorAt(at, placed.depth + 1);
    if (child === undefined || this.nodes.get(child)?.parent !== node) {
      return false;
    }
    const entry = this.entryLine.get(child);
    return entry !== undefined && entry < line;
  }

  /** The record of a node placed under `parent` (see NodeInfo.depth). */
  private link(parent: string | undefined, parentInfo: NodeInfo | undefined, at: Span): NodeInfo {
    if (parent === undefined) {
      return { parent, depth: 0, jump: undefined, children: 0, at };
    }
    const d = (parentInfo?.depth ?? 0) + 1;
    const j = parentInfo?.jump;
    const jInfo = j !== undefined ? this.nodes.get(j) : undefined;
    const jj = jInfo?.jump;
    // Two jumps of equal length above the parent merge into one twice as long.
    if (jInfo !== undefined && jj !== undefined && d - 1 - jInfo.depth === jInfo.depth - (this.nodes.get(jj)?.depth ?? 0)) {
      return { parent, depth: d, jump: jj, children: 0, at };
    }
    return { parent, depth: d, jump: parent, children: 0, at };
  }

  /** The ancestor of `node` (or `node` itself) at depth `target`; undefined when `node` is shallower. */
  private ancestorAt(node: string, target: number): string | undefined {
    let at = node;
    let info = this.nodes.get(at);
    let d = info?.depth ?? 0;
    while (d > target) {
      const j = info?.jump;
      const next = j !== undefined && (this.nodes.get(j)?.depth ?? 0) >= target ? j : info?.parent;
      const nextInfo = next !== undefined ? this.nodes.get(next) : undefined;
      const nextDepth = next !== undefined ? (nextInfo?.depth ?? 0) : -1;
      if (next === undefined || nextDepth >= d) {
        // A root above the target depth (or, never seen, a depth that does not fall).
        return undefined;
      }
      at = next;
      info = nextInfo;
      d = nextDepth;
    }
    return d === target ? at : undefined;
  }

  /** Forget everything (a compaction starts a new root). */
  reset(): void {
    this.lastBranch = undefined;
  }
}

/**
 * A map that keeps the `max` keys set first most recently: setting a new key once it is full
 * drops the oldest (setting a key it holds keeps its place). The keys are kept in a ring beside
 * the map rather than found by `map.keys().next()`: that allocated an iterator for every line,
 * and walked past the holes the deletions leave at the front of the map's table.
 */
class NewestKept {
  private readonly map = new Map<string, number>();
  private readonly ring: string[] = [];
  /** The ring's oldest key, once it is full. */
  private oldest = 0;

  constructor(private readonly max: number) {}

  get(key: string): number | undefined {
    return this.map.get(key);
  }

  set(key: string, value: number): void {
    if (!this.map.has(key)) {
      if (this.ring.length < this.max) {
        this.ring.push(key);
      } else {
        this.map.delete(this.ring[this.oldest]!);
        this.ring[this.oldest] = key;
        this.oldest = (this.oldest + 1) % this.max;
      }
    }
    this.map.set(key, value);
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

class SharedBranchTracker {
  private readonly tracker = new BranchTracker();
  /** The event (call or result record, text event) last added, and what adding it returned. */
  private lastEvent: object | undefined;
  private lastGrowth: BranchGrowth | undefined;

  /** `BranchTracker.add` for the line of `event`; the same event again returns the same answer. */
  add(event: object, uuid: string | undefined, parentUuid: string | null | undefined, node: string | undefined, at: Span, block?: BlockKind, resumed = false): BranchGrowth | undefined {
    if (event !== this.lastEvent) {
      this.lastEvent = event;
      this.lastGrowth = this.tracker.add(uuid, parentUuid, node, at, block, resumed);
    }
    return this.lastGrowth;
  }

  firstAt(branch: number): Span | undefined {
    return this.tracker.firstAt(branch);
  }

  descends(parentUuid: string | null | undefined, ancestor: string): boolean | undefined {
    return this.tracker.descends(parentUuid, ancestor);
  }

  nodeOfLine(uuid: string): string | undefined {
    return this.tracker.nodeOfLine(uuid);
  }

  holdsLine(uuid: string): boolean {
    return this.tracker.holdsLine(uuid);
  }

  isLate(node: string): boolean {
    return this.tracker.isLate(node);
  }

  inDroppedRun(node: string): boolean {
    return this.tracker.inDroppedRun(node);
  }

  isDetached(node: string): boolean {
    return this.tracker.isDetached(node);
  }

  branchDropped(branch: number): boolean {
    return this.tracker.branchDropped(branch);
  }

  entersBefore(parentUuid: string | null | undefined, node: string, line: number): boolean {
    return this.tracker.entersBefore(parentUuid, node, line);
  }

  reset(): void {
    this.tracker.reset();
  }

  // The lines of each event kind, as every rule that shares the tracker adds them. Only lines
  // with a uuid are links of a tree (Claude Code's); other agents' events leave it empty. The
  // same event again (from the next rule) is answered before its node's name is built: five
  // rules add each line, and the name is a new string each time.
  addCall(rec: CallRecord): BranchGrowth | undefined {
    if (rec === this.lastEvent) {
      return this.lastGrowth;
    }
    return rec.call.uuid === undefined ? undefined : this.add(rec, rec.call.uuid, rec.call.parentUuid, callNode(rec.call), rec.call.at, 'call');
  }

  addText(e: TextEvent): BranchGrowth | undefined {
    if (e === this.lastEvent) {
      return this.lastGrowth;
    }
    if (e.uuid === undefined) {
      return undefined;
    }
    const node = e.role === 'assistant' ? (e.messageKey ? `msg:${e.messageKey}` : e.uuid) : e.prompt ? e.uuid : undefined;
    // (A block of an API message only: an assistant line without a message id is a node of its own.)
    return this.add(e, e.uuid, e.parentUuid, node, e.at, e.role === 'assistant' && e.messageKey ? 'text' : undefined, e.unsent === true);
  }

  /** `BranchTracker.retried` for a retry record; the same event again changes nothing. */
  addRetry(e: RequestRetriedEvent): void {
    if (e !== this.lastEvent) {
      this.lastEvent = e;
      this.lastGrowth = undefined;
      this.tracker.retried(e.parentUuid);
    }
  }

  addResult(rec: ResultRecord): BranchGrowth | undefined {
    if (rec.result.uuid === undefined) {
      return undefined;
    }
    const growth = this.add(rec, rec.result.uuid, rec.result.parentUuid, undefined, rec.result.at);
    this.tracker.resultLanded(rec.result.parentUuid);
    return growth;
  }
}

/** The node a call belongs to: its API message. */
function callNode(call: ToolCall): string | undefined {
  return call.messageKey ? `msg:${call.messageKey}` : call.uuid;
}

/**
 * Is `msg` in the same conversation as `call`, as far as Claude Code's `parentUuid` tree tells?
 * False only when the tree shows `msg` on another branch (a second run, a fork): what it
 * holds is not what the provider saw after the call. True when the tree does not tell (other
 * agents, lines without uuids), so file order decides as before.
 */
export function followsCall(branches: SharedBranchTracker, parentUuid: string | null | undefined, call: ToolCall): boolean {
  const node = callNodeOf(branches, call);
  // (By API message, not by line: Claude Code hangs parallel results side by side from their
  // calls and puts a message's blocks back together by its id, so a record hung from one block
  // of a message follows all of it.)
  return node === undefined || branches.descends(parentUuid, node) !== false;
}

/**
 * Does a record hung from `parentUuid` hang from the call's API message at a point before the
 * call: from a text or thinking block written before it, or below a record that does? Claude
 * Code then sent that message without the call (it resumed the session from there): the record
 * does not come after the call, though `followsCall` says it does. False when the tree does not
 * tell. (A block of the call's own message is put back together with it by message id: ask this
 * of records of other messages.)
 */
export function hangsBeforeCall(branches: SharedBranchTracker, parentUuid: string | null | undefined, call: ToolCall): boolean {
  const node = callNodeOf(branches, call);
  return node !== undefined && branches.entersBefore(parentUuid, node, call.at.line);
}

/**
 * Is the call in a run Claude Code dropped when it started the conversation over (see
 * BranchTracker.restart): its late answer, or the older branch that never grew again? Such a
 * call never ran or was cut off with its run, and no conversation goes on from it.
 */
export function inDroppedRun(branches: SharedBranchTracker, call: ToolCall): boolean {
  const node = callNodeOf(branches, call);
  return node !== undefined && branches.inDroppedRun(node);
}

/**
 * Does the call's API message hang from a record the file does not hold? Where it stood in the
 * conversation is then not known: what came after it on another branch may have come before it.
 */
export function hangsFromLost(branches: SharedBranchTracker, call: ToolCall): boolean {
  const node = callNodeOf(branches, call);
  return node !== undefined && branches.isDetached(node);
}

/** The node of a call's own line in the tree: a copy of its message written elsewhere is a node of its own. */
export function callNodeOf(branches: SharedBranchTracker, call: ToolCall): string | undefined {
  return (call.uuid !== undefined ? branches.nodeOfLine(call.uuid) : undefined) ?? callNode(call);
}
