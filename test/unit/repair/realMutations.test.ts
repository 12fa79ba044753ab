/**
 * Real transcripts, broken on purpose the way the incidents broke them (a result arriving
 * late, twice, never, for no call, or after a placeholder), then repaired: the pairing rules
 * must be satisfied again and Claude Code's parent chain must reach everything the healthy
 * original reached. This exercises re-linking on Claude Code's real shape (progress lines,
 * parallel results hanging from their own tool_use entries) rather than the builder's.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fixture } from '../support/repo';
import { conversationUuids, danglingParents, pairingFindings, repair, walkFromNewestLeaf, walkWithout } from './support';

type Entry = Record<string, unknown> & { uuid?: string; parentUuid?: string | null };

const files = ['tool_heavy.jsonl', 'short.jsonl', 'ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl'];

function entries(text: string): Entry[] {
  return text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as Entry);
}

function render(list: readonly Entry[]): string {
  return list.map((e) => JSON.stringify(e) + '\n').join('');
}

/** Indexes of lines that are exactly one tool_result (of the main chain). */
function resultLines(list: readonly Entry[]): number[] {
  const out: number[] = [];
  list.forEach((e, i) => {
    const content = (e['message'] as { content?: unknown } | undefined)?.content;
    if (e['type'] === 'user' && e['isSidechain'] !== true && Array.isArray(content) && content.length === 1 && (content[0] as { type?: string }).type === 'tool_result') {
      out.push(i);
    }
  });
  return out;
}

/** Takes a line out as if it had never been written: its children hang from its parent. */
function without(list: readonly Entry[], i: number): Entry[] {
  const gone = list[i]!;
  return list.filter((_, k) => k !== i).map((e) => (e.parentUuid === gone.uuid ? { ...e, parentUuid: gone.parentUuid ?? null } : e));
}

function renamed(e: Entry, uuid: string, extra: Record<string, unknown> = {}): Entry {
  return { ...e, uuid, ...extra };
}

function withContent(e: Entry, content: string, isError: boolean): Entry {
  const msg = e['message'] as { content: Record<string, unknown>[] };
  const block = { ...msg.content[0]!, content, ...(isError ? { is_error: true } : {}) };
  return { ...e, message: { ...msg, content: [block] }, toolUseResult: undefined };
}

const mutations: Record<string, (list: Entry[], i: number) => Entry[]> = {
  'a result written late, at the end': (list, i) => [...without(list, i), list[i]!],
  'a result written twice': (list, i) => [...list, renamed(list[i]!, '00000000-dup0-4000-8000-000000000001')],
  'a result never written': (list, i) => without(list, i),
  'a result for no call': (list, i) => {
    const r = list[i]!;
    const msg = r['message'] as { content: Record<string, unknown>[] };
    return [...list, { ...renamed(r, '00000000-orph-4000-8000-000000000001'), message: { ...msg, content: [{ ...msg.content[0]!, tool_use_id: 'toolu_01NoSuchCallNoSuchCall00' }] } }];
  },
  "the seeds' race: a placeholder in place, the real result late": (list, i) => {
    const placeholder = withContent(list[i]!, 'Tool execution was interrupted and no result was captured.', true);
    const copy = [...list];
    copy[i] = placeholder;
    return [...copy, renamed(list[i]!, '00000000-real-4000-8000-000000000001')];
  },
};

void describe('repairing broken copies of real Claude Code transcripts', () => {
  for (const name of files) {
    const original = readFileSync(fixture('real', 'claude-code', 'spotter', name), 'utf8');
    const list = entries(original);
    const healthyReach = conversationUuids(original, walkFromNewestLeaf(original));
    const picks = resultLines(list);
    // A spread of results: the first, some in the middle (parallel ones included), the last.
    const chosen = [...new Set([0, 1, 2, Math.floor(picks.length / 3), Math.floor(picks.length / 2), picks.length - 2, picks.length - 1])]
      .filter((k) => k >= 0 && k < picks.length)
      .map((k) => picks[k]!);
    for (const [what, mutate] of Object.entries(mutations)) {
      void test(`${name}: ${what}`, () => {
        for (const i of chosen) {
          const broken = render(mutate(list, i));
          if (pairingFindings(broken).length === 0) {
            // Only a result moved past nothing it was sent before needs no repair: what follows it
            // is user text (an interrupt note, which Claude Code 2.0.19 and later sends after
            // the result, in one message; these files are 2.1.38), and at most turns hung from
            // the result itself, which the file now holds ahead of the record they hang from.
            const turnsAfter = list.slice(i + 1).filter((e) => e['type'] === 'assistant');
            assert.ok(what === 'a result written late, at the end' && turnsAfter.every((e) => e.parentUuid === list[i]!.uuid), `line ${i + 1}: the mutation breaks pairing`);
            continue;
          }
          const { plan, text } = repair(broken, { closeOpenCalls: true });
          assert.ok(plan.complete, `line ${i + 1}: ${JSON.stringify(plan.left)}`);
          assert.deepEqual(pairingFindings(text).map((f) => `${f.rule}@${f.line}`), [], `line ${i + 1}`);
          assert.deepEqual(danglingParents(text), [], `line ${i + 1}: no dangling parent`);
          const reach = walkFromNewestLeaf(text);
          const after = new Map(entries(text).filter((e) => e.uuid !== undefined).map((e) => [e.uuid!, e] as const));
          const uuids = entries(broken).map((e) => e.uuid);
          const taken = new Set(plan.edits.flatMap((e) => (e.kind === 'drop' || e.kind === 'move' ? [uuids[e.line - 1]!] : [])));
          // What the transcript as given reached from its newest leaf (without the lines the
          // repair drops or moves), it still reaches.
          for (const uuid of conversationUuids(broken, walkWithout(broken, taken))) {
            assert.ok(reach.has(uuid), `line ${i + 1} (${what}): ${uuid} is still reached`);
          }
          // What the healthy original reached is reached too, or hangs from its own tool_use
          // entry beside the chain: the shape Claude Code itself writes for parallel results.
          const removed = list[i]!.uuid;
          for (const uuid of healthyReach) {
            const e = after.get(uuid);
            const sideResult = e?.['sourceToolAssistantUUID'] !== undefined && e.parentUuid === e['sourceToolAssistantUUID'] && reach.has(String(e.parentUuid));
            assert.ok(uuid === removed || reach.has(uuid) || sideResult, `line ${i + 1} (${what}): ${uuid} still reached from the newest leaf`);
          }
          assert.deepEqual(repair(text, { closeOpenCalls: true }).plan.edits, [], 'idempotent');
        }
      });
    }
  }
});
