import { randomUUID } from 'node:crypto';
import type { MessageRecord } from '../engine/conversation';
import { AgentGuardError } from '../lib/errors';
import { agentLabels, type AgentKind } from '../model/agent';
import { analyze, type Analysis } from './analyze';
import { applyRepairPlan } from './apply';
import { relink, type ChainNode } from './chain';
import { decide, isOpenAtEnd, type Placement, type Why } from './decide';
import { historyLeavesFile } from './history';
import { replaceTopLevelValue } from './jsonText';
import { groupBy, isValidUtf8, Lines, splitLines } from './lines';
import type { LeftProblem, RepairAgent, RepairEdit, RepairPlan } from './plan';
import { amplifierErrorResult, claudeErrorResult, lineResults, withoutResults } from './shapes';

export interface RepairOptions {
  /** The transcript's path: names it in findings, and lets the path pick the format. */
  file: string;
  /** Force a format instead of detecting it. */
  agent?: AgentKind;
  /**
   * Also answer calls still open at the end of the file. Off by default: at the end of a
   * file the session may still be running the call, and its real result may yet come.
   */
  closeOpenCalls?: boolean;
  /** Uuids for added Claude Code entries (tests pass a deterministic one). */
  newUuid?: () => string;
}

/** A line of the repaired file: an original line, or a result the repair adds. */
type Item = { kind: 'line'; no: number } | { kind: 'new'; placement: Placement & { kind: 'add' }; node?: ChainNode; text?: string };

/**
 * Plans the repair of one transcript: the pairing rules judge it, each finding becomes an
 * edit on its lines, and the plan is verified by judging the repaired bytes again. Pure:
 * bytes in, plan out. Throws AgentGuardError('refused') for formats repair does not
 * support, and ('invalid-input') for input that is no known transcript.
 */
export function planRepair(source: Uint8Array, opts: RepairOptions): RepairPlan {
  const a = analyze(source, opts.file, opts.agent);
  const agent = repairAgent(a.agent);
  const closeOpenCalls = opts.closeOpenCalls ?? false;
  const lines = splitLines(source);
  const doc = new Lines(lines);
  const d = decide(a, { closeOpenCalls, ...(agent === 'claude-code' ? { historyLeavesFile: historyLeavesFile(doc) } : {}) });
  const left: LeftProblem[] = [...d.left];
  const leave = (line: number, why: Why, callId: string, reason: string): void => {
    left.push({ line, rule: why.rule, callId, reason, deliberate: false });
  };

  // Results to drop, per line: a line that is only that result goes; otherwise the result
  // is taken out of the line.
  const droppedLines = new Map<number, Why & { callId: string }>();
  const rewrites = new Map<number, { text: string; why: Why; callId: string }>();
  const onLine = groupBy(a.results, (r) => r.result.at.line);
  for (const [line, recs] of groupBy([...d.drops.keys()], (r) => r.result.at.line)) {
    const why = d.drops.get(recs[0]!)!;
    const callId = recs[0]!.result.callId;
    const value = doc.value(line);
    if (!value || lineResults(agent, value).solo) {
      droppedLines.set(line, { ...why, callId });
      continue;
    }
    const positions = new Set(recs.map((r) => onLine.get(line)!.indexOf(r)));
    const cut = withoutResults(agent, doc.text(line), value, positions);
    if (cut.kind === 'gone') {
      droppedLines.set(line, { ...why, callId });
    } else if (!isValidUtf8(lines[line - 1]!)) {
      leave(line, why, callId, `line ${line} is not valid UTF-8, so the result cannot be taken out of it without changing other bytes`);
    } else if (cut.kind === 'stuck') {
      leave(line, why, callId, `the result cannot be cut out of line ${line} without writing its other content again; take it out by hand`);
    } else {
      rewrites.set(line, { text: cut.text, why: { ...why, reason: why.reason.replace(/^drop /, 'take out ') + ' (the line keeps its other content)' }, callId });
    }
  }

  // Only a line that holds nothing but the result can move.
  const placements = d.placements.filter((p) => {
    if (p.kind === 'move' && !lineResults(agent, doc.value(p.result.result.at.line) ?? {}).solo) {
      leave(p.result.result.at.line, p, p.result.result.callId, `line ${p.result.result.at.line} holds other content besides this result; move the result by hand`);
      return false;
    }
    return true;
  });
  const moved = new Map<number, Placement & { kind: 'move' }>();
  for (const p of placements) {
    if (p.kind === 'move') {
      moved.set(p.result.result.at.line, p);
    }
  }

  // Where each placement goes: into the place of the placeholder it replaces, or directly
  // after its call's message and the results already in place (in call order).
  const here = new Map<number, Placement[]>();
  const put = (line: number, p: Placement): void => {
    const list = here.get(line);
    if (list) {
      list.push(p);
    } else {
      here.set(line, [p]);
    }
  };
  const slotLine = (p: Placement): number | undefined => (p.kind === 'move' && p.slot ? p.slot.result.at.line : undefined);
  for (const p of placements) {
    const s = slotLine(p);
    if (s !== undefined) {
      put(s, p);
    }
  }
  const groupEnd = (msg: MessageRecord): number => {
    let end = Math.max(...(a.messageLines.get(msg) ?? [msg.at.line]));
    for (const c of msg.calls) {
      for (const r of c.results) {
        if (!d.drops.has(r) && !d.misplaced.has(r)) {
          end = Math.max(end, r.result.at.line);
        }
      }
    }
    for (const p of placements) {
      const s = slotLine(p);
      if (s !== undefined && p.call.message === msg) {
        end = Math.max(end, s);
      }
    }
    return end;
  };
  const after = new Map<number, Placement[]>();
  for (const p of placements) {
    if (slotLine(p) === undefined) {
      const end = groupEnd(p.call.message);
      after.set(end, [...(after.get(end) ?? []), p]);
    }
  }
  for (const list of after.values()) {
    list.sort((x, y) => x.call.seq - y.call.seq);
  }
  for (const [line, list] of after) {
    for (const p of list) {
      put(line, p);
    }
  }

  // The repaired file, in order.
  const items: Item[] = [];
  const placedAt = new Map<number, Item[]>();
  for (const line of lines) {
    const n = line.no;
    if (!moved.has(n) && !droppedLines.has(n)) {
      items.push({ kind: 'line', no: n });
    }
    const placedHere: Item[] = (here.get(n) ?? []).map((p) => (p.kind === 'move' ? { kind: 'line', no: p.result.result.at.line } : { kind: 'new', placement: p }));
    items.push(...placedHere);
    placedAt.set(n, placedHere);
  }

  const relinks = new Map<number, { text: string; why: Why; callId: string; from: string | null; to: string | null }>();
  const changes = droppedLines.size + rewrites.size + placements.length;
  if (agent === 'claude-code' && changes > 0) {
    // A line that also loses a result is re-linked in its new text, so one edit does both.
    const textOf = (n: number): string => rewrites.get(n)?.text ?? doc.text(n);
    const problem = linkClaude(doc, textOf, items, droppedLines, moved, a, opts.newUuid ?? randomUUID, relinks);
    if (problem) {
      left.push({ line: 1, rule: 'misplaced-result', reason: `the parent chain cannot be re-linked safely: ${problem}`, deliberate: false });
    }
  } else {
    for (const item of items) {
      if (item.kind === 'new') {
        const c = item.placement.call.call;
        item.text = amplifierErrorResult(doc.text(c.at.line), c.callId, c.tool);
      }
    }
  }

  // Edits, in file order; moves and inserts in the order they land.
  const edits: RepairEdit[] = [];
  let prev = 0;
  const rewriteEdit = (n: number): void => {
    const block = rewrites.get(n);
    const link = relinks.get(n);
    if (link) {
      edits.push({ kind: 'rewrite', line: n, text: link.text, rule: link.why.rule, callId: link.callId, reason: block ? `${block.why.reason}; and ${link.why.reason}` : link.why.reason, parentUuid: { from: link.from, to: link.to } });
    } else if (block) {
      edits.push({ kind: 'rewrite', line: n, text: block.text, rule: block.why.rule, callId: block.callId, reason: block.why.reason });
    }
  };
  for (const line of lines) {
    const n = line.no;
    const drop = droppedLines.get(n);
    if (drop) {
      edits.push({ kind: 'drop', line: n, rule: drop.rule, callId: drop.callId, reason: drop.reason });
    } else if (!moved.has(n)) {
      rewriteEdit(n);
      prev = n;
    }
    for (const item of placedAt.get(n) ?? []) {
      if (item.kind === 'line') {
        const p = moved.get(item.no)!;
        edits.push({ kind: 'move', line: item.no, after: prev, rule: p.rule, callId: p.result.result.callId, reason: p.reason });
        rewriteEdit(item.no);
        prev = item.no;
      } else {
        const p = item.placement;
        edits.push({ kind: 'insert', after: prev, text: item.text!, rule: p.rule, callId: p.call.call.callId, reason: p.reason });
      }
    }
  }

  const repaired = applyRepairPlan(source, edits);
  const remaining = analyze(repaired, opts.file, agent).findings;
  const onPurpose = (f: { rule: string; messageId?: string }): boolean => !closeOpenCalls && isOpenAtEnd(f);
  return {
    file: opts.file,
    agent,
    session: a.sessionId,
    ...(a.cwd !== undefined ? { cwd: a.cwd } : {}),
    findings: a.findings,
    edits,
    left: left.sort((x, y) => x.line - y.line),
    remaining,
    complete: left.every((l) => l.deliberate) && remaining.every(onPurpose),
  };
}

function repairAgent(agent: AgentKind | undefined): RepairAgent {
  switch (agent) {
    case 'claude-code':
    case 'amplifier':
      return agent;
    case undefined:
      throw new AgentGuardError('invalid-input', 'no line matches a known transcript format (Claude Code, Codex, Gemini CLI, Amplifier)');
    case 'codex':
    case 'gemini':
      throw new AgentGuardError('refused', `repair supports Claude Code and Amplifier transcripts; this is a ${agentLabels[agent]} transcript`);
    default:
      return agent satisfies never;
  }
}

/**
 * Claude Code: builds the chain nodes of the repaired file, re-links them (chain.ts), and
 * fills in the added results and the rewritten parentUuids. Returns a problem if the chain
 * cannot be kept whole.
 */
function linkClaude(
  doc: Lines,
  textOf: (line: number) => string,
  items: Item[],
  droppedLines: ReadonlyMap<number, Why & { callId: string }>,
  moved: ReadonlyMap<number, Placement & { kind: 'move' }>,
  a: Analysis,
  newUuid: () => string,
  relinks: Map<number, { text: string; why: Why; callId: string; from: string | null; to: string | null }>,
): string | undefined {
  const nodes = new Map<number, ChainNode>();
  const original: ChainNode[] = [];
  for (let n = 1; n <= doc.count; n++) {
    const v = doc.peek(n);
    if (v && typeof v['uuid'] === 'string') {
      const p = v['parentUuid'];
      const node: ChainNode = { key: n, uuid: v['uuid'], parent: typeof p === 'string' || p === null ? p : undefined, sidechain: v['isSidechain'] === true };
      nodes.set(n, node);
      original.push(node);
    }
  }
  const order: ChainNode[] = [];
  const placed = new Map<ChainNode, { cause: { rule: string; callId: string }; slot?: ChainNode; moved: boolean }>();
  let fresh = 0;
  for (const item of items) {
    if (item.kind === 'line') {
      const node = nodes.get(item.no);
      if (!node) {
        continue;
      }
      order.push(node);
      const p = moved.get(item.no);
      if (p) {
        const slot = p.slot && droppedLines.has(p.slot.result.at.line) ? nodes.get(p.slot.result.at.line) : undefined;
        placed.set(node, { cause: { rule: p.rule, callId: p.result.result.callId }, moved: true, ...(slot ? { slot } : {}) });
      }
    } else {
      const c = item.placement.call;
      const node: ChainNode = { key: -++fresh, uuid: newUuid(), parent: undefined, sidechain: doc.value(c.call.at.line)?.['isSidechain'] === true };
      item.node = node;
      order.push(node);
      placed.set(node, { cause: { rule: item.placement.rule, callId: c.call.callId }, moved: false });
    }
  }
  const dropped = new Set<ChainNode>();
  for (const n of droppedLines.keys()) {
    const node = nodes.get(n);
    if (node) {
      dropped.add(node);
    }
  }
  const before = new Map(original.map((n) => [n, n.parent] as const));
  const result = relink({ original, order, dropped, placed });

  // A line named by its uuid: the first in the new order, else in the file (one lookup per
  // re-link; a search of every line for each made a file of many re-links quadratic).
  const byUuid = new Map<string, ChainNode>();
  for (const n of [...order, ...original]) {
    if (!byUuid.has(n.uuid)) {
      byUuid.set(n.uuid, n);
    }
  }
  const describe = (uuid: string | null | undefined): string => {
    if (uuid === null || uuid === undefined) {
      return 'no parent';
    }
    const node = byUuid.get(uuid);
    if (!node) {
      return uuid;
    }
    if (node.key < 0) {
      const at = items.findIndex((i) => i.kind === 'new' && i.node === node);
      const prevLine = items.slice(0, at).reverse().find((i) => i.kind === 'line');
      return `the added result after line ${prevLine?.kind === 'line' ? prevLine.no : 0}`;
    }
    const fate = droppedLines.has(node.key) ? ', which is dropped' : moved.has(node.key) ? ', which moves' : '';
    return `line ${node.key}${fate}`;
  };
  for (const [node, cause] of result.changed) {
    if (node.key < 0 || dropped.has(node)) {
      continue;
    }
    const from = before.get(node) ?? null;
    const to = node.parent ?? null;
    const text = replaceTopLevelValue(textOf(node.key), 'parentUuid', to);
    if (text === undefined || !isValidUtf8(doc.line(node.key))) {
      return `line ${node.key} has no parentUuid that can be rewritten in place`;
    }
    const isMoved = moved.has(node.key);
    const where = placed.get(node)?.slot ? "the placeholder's parent" : 'the entry before its new place';
    const reason = isMoved
      ? `re-link the moved result's parentUuid to ${describe(to)} (${where}; it was ${describe(from)})`
      : `re-link parentUuid to ${describe(to)} (it was ${describe(from)}), so the parent chain stays whole`;
    relinks.set(node.key, { text, why: { rule: cause.rule as Why['rule'], reason }, callId: cause.callId, from, to });
  }
  for (const item of items) {
    if (item.kind === 'new' && item.node) {
      const c = item.placement.call;
      const value = doc.value(c.call.at.line) ?? {};
      item.text = claudeErrorResult({ value, uuid: c.call.uuid }, c.call.callId, item.node.uuid, item.node.parent ?? null, {
        sessionId: a.sessionId,
        ...(a.cwd !== undefined ? { cwd: a.cwd } : {}),
      });
    }
  }
  return result.problem;
}
