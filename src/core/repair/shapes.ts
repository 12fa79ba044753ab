import type { RepairAgent } from './plan';
import { removeElements, stringifyLike } from './jsonText';

/**
 * How results sit in a transcript line, per format, and the one kind of line repair writes:
 * an explicit error result for a call that never got one. Repair never writes tool output;
 * the added result only says that none was recorded.
 */

/** The text of an added result; `placeholder.ts` recognises it ("no result was recorded"). */
const noResultText = 'no result was recorded for this call (added by agent-guard repair)';

type Json = Record<string, unknown>;

function isRecord(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function nonEmptyString(v: unknown): v is string {
  return typeof v === 'string' && v.length > 0;
}

/** The result blocks of a line, as the format's parser reads them (same order, same validity checks). */
export interface LineResults {
  /** The line is one result and nothing else: it can be moved or dropped whole. */
  solo: boolean;
  /** Indexes into the content array of the blocks the parser reads as results, in order. */
  blockIndexes: number[];
  /** The array those indexes point into (absent when the line itself is the result). */
  content?: unknown[];
}

export function lineResults(agent: RepairAgent, value: Json): LineResults {
  return agent === 'claude-code' ? claudeResults(value) : amplifierResults(value);
}

function claudeResults(value: Json): LineResults {
  const message = value['message'];
  const content = isRecord(message) ? message['content'] : undefined;
  if (value['type'] !== 'user' || !Array.isArray(content)) {
    return { solo: false, blockIndexes: [] };
  }
  const blockIndexes: number[] = [];
  content.forEach((b, i) => {
    if (isRecord(b) && b['type'] === 'tool_result' && nonEmptyString(b['tool_use_id'])) {
      const err = b['is_error'];
      if (err === undefined || err === null || typeof err === 'boolean') {
        blockIndexes.push(i);
      }
    }
  });
  return { solo: content.length === 1 && blockIndexes.length === 1, blockIndexes, content };
}

function amplifierResults(value: Json): LineResults {
  if (value['role'] === 'tool' && nonEmptyString(value['tool_call_id'])) {
    return { solo: true, blockIndexes: [] };
  }
  const content = value['content'];
  if ((value['role'] !== 'tool' && value['role'] !== 'user') || !Array.isArray(content)) {
    return { solo: false, blockIndexes: [] };
  }
  const blockIndexes: number[] = [];
  content.forEach((b, i) => {
    if (isRecord(b) && b['type'] === 'tool_result' && (nonEmptyString(b['tool_call_id']) || nonEmptyString(b['tool_use_id']))) {
      blockIndexes.push(i);
    }
  });
  return { solo: content.length === 1 && blockIndexes.length === 1, blockIndexes, content };
}

/**
 * The line without the result blocks at the given positions (0-based, among the line's
 * results), its other bytes as they were: `gone` when nothing else would be left (the whole
 * line goes), `stuck` when the blocks cannot be cut out of the text in place.
 */
export function withoutResults(agent: RepairAgent, text: string, value: Json, drop: ReadonlySet<number>): { kind: 'text'; text: string } | { kind: 'gone' } | { kind: 'stuck' } {
  const lr = lineResults(agent, value);
  if (lr.solo || !lr.content) {
    return { kind: 'gone' };
  }
  const gone = new Set(lr.blockIndexes.filter((_, k) => drop.has(k)));
  if (gone.size === lr.content.length) {
    return { kind: 'gone' };
  }
  const cut = removeElements(text, agent === 'claude-code' ? ['message', 'content'] : ['content'], lr.content.length, gone);
  return cut === undefined ? { kind: 'stuck' } : { kind: 'text', text: cut };
}

/** What an added Claude Code result copies from the line of the call it answers. */
export interface ClaudeCallEntry {
  value: Json;
  uuid: string | undefined;
}

/**
 * An error result in Claude Code's own shape and key order (FORMATS.md §1.3), with the
 * envelope of the call's entry: `parentUuid` is filled in by the re-linking, `timestamp`
 * is the call's (the result was due then), `sourceToolAssistantUUID` names the call's entry.
 */
export function claudeErrorResult(call: ClaudeCallEntry, callId: string, uuid: string, parentUuid: string | null, fallback: { sessionId?: string; cwd?: string }): string {
  const v = call.value;
  const line: Json = { parentUuid, isSidechain: v['isSidechain'] === true, userType: typeof v['userType'] === 'string' ? v['userType'] : 'external' };
  const cwd = typeof v['cwd'] === 'string' ? v['cwd'] : fallback.cwd;
  const sessionId = typeof v['sessionId'] === 'string' ? v['sessionId'] : fallback.sessionId;
  if (cwd !== undefined) {
    line['cwd'] = cwd;
  }
  if (sessionId !== undefined) {
    line['sessionId'] = sessionId;
  }
  for (const key of ['version', 'gitBranch', 'agentId', 'slug']) {
    if (typeof v[key] === 'string') {
      line[key] = v[key];
    }
  }
  line['type'] = 'user';
  line['message'] = {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: callId, content: `<tool_use_error>${noResultText}</tool_use_error>`, is_error: true }],
  };
  line['uuid'] = uuid;
  if (typeof v['timestamp'] === 'string') {
    line['timestamp'] = v['timestamp'];
  }
  if (call.uuid !== undefined) {
    line['sourceToolAssistantUUID'] = call.uuid;
  }
  return JSON.stringify(line);
}

/**
 * An error result as an Amplifier tool message, shaped like amplifier-foundation's own
 * synthetic results (`{"error": "unknown_error", "message": …}` as the content string) and
 * written in the style of the transcript's other lines.
 */
export function amplifierErrorResult(sample: string, callId: string, tool: string): string {
  const content = stringifyLike(sample, { error: 'unknown_error', message: noResultText });
  return stringifyLike(sample, { role: 'tool', tool_call_id: callId, name: tool, content });
}
