/** Helpers of the repair tests: an Amplifier transcript builder, planning + applying, and chain walks. */
import { applyRepairPlan } from '../../../src/core/repair/apply';
import { pairingRuleIds, type RepairPlan } from '../../../src/core/repair/plan';
import { planRepair, type RepairOptions } from '../../../src/core/repair/planner';
import type { Finding } from '../../../src/core/model/finding';
import { run } from '../support/run';

/**
 * Amplifier `transcript.jsonl` lines (FORMATS.md §4), written the way Python's json.dumps
 * writes them (`", "` and `": "` separators), as amplifier-app-cli does.
 */
export class AmplifierTranscript {
  readonly lines: string[] = [];

  private push(obj: Record<string, unknown>): this {
    this.lines.push(pyJson(obj));
    return this;
  }

  user(text: string): this {
    return this.push({ role: 'user', content: text });
  }

  say(text: string): this {
    return this.push({ role: 'assistant', content: [{ type: 'text', text }] });
  }

  /** One assistant message calling these tools in parallel. */
  calls(...calls: { id: string; tool: string; args?: Record<string, unknown> }[]): this {
    return this.push({ role: 'assistant', content: [], tool_calls: calls.map((c) => ({ id: c.id, tool: c.tool, arguments: c.args ?? {} })) });
  }

  call(id: string, tool: string, args: Record<string, unknown> = {}): this {
    return this.calls({ id, tool, args });
  }

  result(id: string, tool: string, output: string): this {
    return this.push({ role: 'tool', tool_call_id: id, name: tool, content: pyJson({ success: true, output }) });
  }

  /** amplifier-foundation's synthetic result for an interrupted call. */
  placeholder(id: string, tool: string): this {
    return this.push({ role: 'tool', tool_call_id: id, name: tool, content: pyJson({ error: 'unknown_error', message: 'Tool execution was interrupted and no result was captured.' }) });
  }

  lineOf(needle: string, nth = 1): number {
    let seen = 0;
    for (let i = 0; i < this.lines.length; i++) {
      if (this.lines[i]!.includes(needle) && ++seen === nth) {
        return i + 1;
      }
    }
    throw new Error(`no line #${nth} contains ${needle}`);
  }

  text(): string {
    return this.lines.map((l) => l + '\n').join('');
  }
}

function pyJson(v: unknown): string {
  if (Array.isArray(v)) {
    return '[' + v.map(pyJson).join(', ') + ']';
  }
  if (typeof v === 'object' && v !== null) {
    return '{' + Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${pyJson(x)}`).join(', ') + '}';
  }
  return JSON.stringify(v);
}

/** Deterministic uuids for added entries. */
export function uuids(): () => string {
  let n = 0;
  return () => `99999999-0000-4000-8000-${String(++n).padStart(12, '0')}`;
}

export interface Repaired {
  plan: RepairPlan;
  text: string;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

export function repair(text: string, opts: Partial<RepairOptions> = {}): Repaired {
  const source = enc.encode(text);
  const plan = planRepair(source, { file: opts.file ?? '/tmp/session.jsonl', newUuid: opts.newUuid ?? uuids(), ...opts });
  return { plan, text: dec.decode(applyRepairPlan(source, plan.edits)) };
}

const pairing = new Set<string>(pairingRuleIds);

/** The findings `check` gives (every rule, through the real pipeline) that are about pairing. */
export function pairingFindings(text: string, file = '/tmp/session.jsonl'): Finding[] {
  return run(text, { file }).findings.filter((f) => pairing.has(f.rule));
}

/** Short form of an edit for tables: `drop 4`, `move 8>3`, `insert >2`, `relink 6`, `rewrite 6`. */
export function brief(plan: RepairPlan): string[] {
  return plan.edits.map((e) => {
    switch (e.kind) {
      case 'drop':
        return `drop ${e.line}`;
      case 'move':
        return `move ${e.line}>${e.after}`;
      case 'insert':
        return `insert >${e.after}`;
      case 'rewrite':
        return `${e.parentUuid ? 'relink' : 'rewrite'} ${e.line}`;
    }
  });
}

interface Entry {
  uuid: string;
  parentUuid: string | null | undefined;
  type: string;
  isSidechain?: boolean;
  message?: { content?: unknown };
}

/** Claude Code chain entries (the SDK's `_TRANSCRIPT_ENTRY_TYPES` with a uuid), in file order. */
export function chainEntries(text: string): Entry[] {
  const out: Entry[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      continue;
    }
    let v: Record<string, unknown>;
    try {
      v = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    if (typeof v['uuid'] === 'string' && ['user', 'assistant', 'system', 'progress', 'attachment'].includes(String(v['type'])) && v['isSidechain'] !== true) {
      out.push(v as unknown as Entry);
    }
  }
  return out;
}

/**
 * The SDK's view: pick the newest leaf (the last entry no other entry names as parent) and
 * walk parentUuid back to a root. Returns the uuids reached; throws on a loop.
 */
export function walkFromNewestLeaf(text: string): Set<string> {
  const entries = chainEntries(text);
  const byUuid = new Map(entries.map((e) => [e.uuid, e] as const));
  const parents = new Set(entries.map((e) => e.parentUuid).filter((p): p is string => typeof p === 'string'));
  const leaf = [...entries].reverse().find((e) => !parents.has(e.uuid));
  const seen = new Set<string>();
  let cur = leaf;
  while (cur) {
    if (seen.has(cur.uuid)) {
      throw new Error(`parent chain loops at ${cur.uuid}`);
    }
    seen.add(cur.uuid);
    cur = typeof cur.parentUuid === 'string' ? byUuid.get(cur.parentUuid) : undefined;
  }
  return seen;
}

/**
 * What the newest-leaf walk reaches once some entries are taken out (their children hanging
 * from their parents): the chain a repair must keep when it drops or moves those entries.
 * (A dropped or moved line may itself have been the newest leaf; what only it reached is not
 * the conversation's chain.)
 */
export function walkWithout(text: string, removed: ReadonlySet<string>): Set<string> {
  const entries = chainEntries(text);
  const parentOf = new Map(entries.map((e) => [e.uuid, e.parentUuid] as const));
  const lift = (p: string | null | undefined): string | null | undefined => {
    const seen = new Set<string>();
    while (typeof p === 'string' && removed.has(p) && !seen.has(p)) {
      seen.add(p);
      p = parentOf.get(p);
    }
    return p;
  };
  const kept = entries.filter((e) => !removed.has(e.uuid)).map((e) => ({ ...e, parentUuid: lift(e.parentUuid) }));
  return walkFromNewestLeaf(kept.map((e) => JSON.stringify(e)).join('\n'));
}

/** Conversation entries (user, assistant, system) of a set of uuids. */
export function conversationUuids(text: string, within: Set<string>): Set<string> {
  return new Set(chainEntries(text).filter((e) => within.has(e.uuid) && e.type !== 'progress' && e.type !== 'attachment').map((e) => e.uuid));
}

/** Every parentUuid names an entry of the file (or null). */
export function danglingParents(text: string): string[] {
  const entries = chainEntries(text);
  const uuids = new Set(entries.map((e) => e.uuid));
  return entries.filter((e) => typeof e.parentUuid === 'string' && !uuids.has(e.parentUuid)).map((e) => e.uuid);
}
