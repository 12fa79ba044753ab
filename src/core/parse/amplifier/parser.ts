import { classifyToolCall, isRecord } from '../../classify/tools';
import { inputHash } from '../../lib/hash';
import type { FileAccess, Span } from '../../model/events';
import type { AdapterContext, FormatAdapter, FormatParser } from '../adapter';
import type { RawLine } from '../lineSplitter';
import { isPlaceholderText, resultText } from '../placeholder';
import { lineSpan, preview, valueSpan } from '../span';
import {
  amplifierMessageSchema,
  amplifierToolCallSchema,
  contentBlockSchema,
  textBlockSchema,
  toolCallBlockSchema,
  toolResultBlockSchema,
} from './schema';
import { parseWith } from '../guard';

const conversationRoles: ReadonlySet<unknown> = new Set(['user', 'assistant', 'tool']);

/** Record types of the formats whose lines also carry a role somewhere. */
const foreignTypes: ReadonlySet<unknown> = new Set(['user', 'assistant', 'system', 'response_item', 'event_msg', 'session_meta', 'message']);

/**
 * Injected context, not typed by a person (`messages.py` `is_real_user_message`): a
 * `<system-reminder>` block, or since 2026.08 the `<system-reminders>` wrapper that Amplifier
 * persists hook injections in (`metadata.ephemeral`, see `user`).
 */
const systemReminder = /^\s*<system-reminders?[\s>]/;

/** Error-shaped tool output is only looked for in short outputs: file contents are not parsed. */
const maxErrorProbe = 4096;

export const amplifierAdapter: FormatAdapter = {
  agent: 'amplifier',
  sniff(v) {
    // A message object under `message` is Cursor's agent transcript (`{"role":…,"message":
    // {"content":[…]}}`): an Amplifier message holds its content itself, and read as one, each
    // Cursor line would be a message with nothing in it, and the file a session with no finding.
    return (
      conversationRoles.has(v['role']) && !foreignTypes.has(v['type']) && !('payload' in v) && !('uuid' in v) && !isRecord(v['message'])
    );
  },
  claimsPath(p) {
    return /[\\/]\.amplifier[\\/]projects[\\/][^\\/]+[\\/]sessions[\\/][^\\/]+[\\/]transcript\.jsonl$/.test(p);
  },
  create(ctx) {
    return new AmplifierParser(ctx);
  },
};

/**
 * The transcript holds no session id or working folder (they live in the files beside it and
 * the folder's name): the caller names the session, and hands in the folder where those files
 * name it (AdapterContext.cwd). Only then is there a session event, to carry it.
 */
class AmplifierParser implements FormatParser {
  private announced = false;

  constructor(private readonly ctx: AdapterContext) {}

  line(value: Record<string, unknown>, raw: RawLine): void {
    if (!this.announced) {
      this.announced = true;
      if (this.ctx.cwd !== undefined) {
        this.ctx.emit({ kind: 'session', at: lineSpan(raw), agent: 'amplifier', cwd: this.ctx.cwd });
      }
    }
    const parsed = parseWith(amplifierMessageSchema, value);
    if (!parsed.success) {
      this.invalid(raw, 'a line that is not a chat message (no role, or fields of the wrong type)');
      return;
    }
    const m = parsed.data;
    switch (m.role) {
      case 'user':
        // Hook injections persisted as user messages (`ephemeral_injection_mode: "persist"`,
        // Amplifier 2026.08–09): one every few tool calls, mid-turn too; none is a prompt.
        return this.user(m.content, isRecord(value['metadata']) && value['metadata']['ephemeral'] === true, raw);
      case 'assistant':
        return this.assistant(m.content, m.tool_calls ?? [], raw);
      case 'tool':
        return this.tool(m.content, m.tool_call_id, m.name ?? undefined, raw);
      default:
        // system / developer messages are never written to the transcript; tolerate them.
        return;
    }
  }

  private user(content: unknown, injected: boolean, raw: RawLine): void {
    if (typeof content === 'string') {
      this.userText(content, injected, raw);
      return;
    }
    for (const block of blocks(content)) {
      if (block.type === 'tool_result') {
        this.resultBlock(block, undefined, raw);
      } else if (block.type === 'text') {
        const tb = parseWith(textBlockSchema, block);
        this.userText(tb.success ? tb.data.text : '', injected, raw);
      }
    }
  }

  private userText(text: string, injected: boolean, raw: RawLine): void {
    const prompt = !injected && !systemReminder.test(text);
    this.ctx.emit({ kind: 'text', at: lineSpan(raw), role: 'user', prompt, ...(prompt ? { preview: preview(text) } : {}) });
  }

  private assistant(content: unknown, toolCalls: readonly unknown[], raw: RawLine): void {
    // Each line is its own API message: two assistant lines in a row are two messages, and
    // the second one must not hide that the first one's calls went unanswered.
    const messageKey = `line-${raw.lineNo}`;
    this.ctx.emit({ kind: 'text', at: lineSpan(raw), role: 'assistant', prompt: false, messageKey });
    // A response may list a call both in `tool_calls` and as a content block: one call.
    const seen = new Set<string>();
    for (const tc of toolCalls) {
      const p = parseWith(amplifierToolCallSchema, tc);
      const name = p.success ? (p.data.tool ?? p.data.function?.name ?? p.data.name) : undefined;
      if (!p.success || name === undefined) {
        this.invalid(raw, 'a tool call without id or name');
        continue;
      }
      const args = p.data.arguments ?? p.data.function?.arguments ?? p.data.input ?? {};
      this.call(p.data.id, name, args, messageKey, seen, raw);
    }
    for (const block of blocks(content)) {
      if (block.type !== 'tool_call' && block.type !== 'tool_use') {
        continue;
      }
      const b = parseWith(toolCallBlockSchema, block);
      if (!b.success) {
        this.invalid(raw, `a ${block.type} block without id or name`);
        continue;
      }
      this.call(b.data.id, b.data.name, b.data.input ?? {}, messageKey, seen, raw);
    }
  }

  private call(id: string, name: string, rawArgs: unknown, messageKey: string, seen: Set<string>, raw: RawLine): void {
    if (seen.has(id)) {
      return;
    }
    seen.add(id);
    const args = parseArguments(rawArgs);
    // The file tools resolve a relative path against the session's working folder
    // (amplifier-module-tool-filesystem `read.py`: `Path(self.working_dir) / path`, the folder
    // being the `session.working_dir` capability), but an `@` path is a mention the app
    // resolves (`@bundle:context/x.md`): no file of that folder.
    const mention = isRecord(args) && typeof args['file_path'] === 'string' && args['file_path'].startsWith('@');
    const cls = classifyToolCall('amplifier', name, args, mention ? undefined : this.ctx.cwd);
    const accesses: FileAccess[] = cls.accesses.map((a) => {
      const span = pathSpan(raw, args, a.path);
      return span ? { ...a, span } : a;
    });
    this.ctx.emit({
      kind: 'call',
      at: valueSpan(raw, id, 'id'),
      callId: id,
      tool: name,
      category: cls.category,
      ...(cls.rewrites ? { rewrites: cls.rewrites } : {}),
      accesses,
      messageKey,
      ...(this.ctx.hashInputs ? { inputHash: inputHash(args) } : {}),
    });
  }

  private tool(content: unknown, toolCallId: string | undefined, name: string | undefined, raw: RawLine): void {
    if (toolCallId !== undefined) {
      this.result(toolCallId, resultText(content), name, valueSpan(raw, toolCallId, 'tool_call_id'));
      return;
    }
    const results = blocks(content).filter((b) => b.type === 'tool_result');
    if (results.length === 0) {
      this.invalid(raw, 'a tool message without tool_call_id');
      return;
    }
    for (const block of results) {
      this.resultBlock(block, name, raw);
    }
  }

  private resultBlock(block: Record<string, unknown>, name: string | undefined, raw: RawLine): void {
    const b = parseWith(toolResultBlockSchema, block);
    const id = b.success ? (b.data.tool_call_id ?? b.data.tool_use_id) : undefined;
    if (!b.success || id === undefined) {
      this.invalid(raw, 'a tool_result block without tool_call_id');
      return;
    }
    const key = b.data.tool_call_id !== undefined ? 'tool_call_id' : 'tool_use_id';
    this.result(id, resultText(b.data.output ?? b.data.content), name, valueSpan(raw, id, key));
  }

  private result(callId: string, text: string | undefined, name: string | undefined, at: Span): void {
    this.ctx.emit({
      kind: 'result',
      at,
      callId,
      isError: looksLikeError(text),
      placeholder: isPlaceholderText(text),
      ...(name ? { tool: name } : {}),
    });
  }

  private invalid(raw: RawLine, what: string): void {
    this.ctx.emit({ kind: 'malformed', at: lineSpan(raw), reason: 'invalid-shape', detail: `${what} (Amplifier)` });
  }
}

function blocks(content: unknown): Record<string, unknown>[] {
  if (!Array.isArray(content)) {
    return [];
  }
  const out: Record<string, unknown>[] = [];
  for (const b of content) {
    if (parseWith(contentBlockSchema, b).success) {
      out.push(b as Record<string, unknown>);
    }
  }
  return out;
}

/** OpenAI-style arguments are a JSON string; Amplifier's own are an object. */
function parseArguments(args: unknown): unknown {
  if (typeof args !== 'string') {
    return args;
  }
  try {
    return JSON.parse(args) as unknown;
  } catch {
    // Arguments the model produced that are not JSON: the call still exists.
    return args;
  }
}

/**
 * Where the path sits in the line. Arguments given as a JSON string hold it escaped
 * (`\"file_path\": \"/a\"`), so the key lookup misses and the bare path is searched.
 */
function pathSpan(raw: RawLine, args: unknown, absolute: string): Span | undefined {
  const spelled = isRecord(args) && typeof args['file_path'] === 'string' ? args['file_path'] : absolute;
  const keyed = valueSpan(raw, spelled, 'file_path');
  if (keyed.start !== 0 || keyed.end !== raw.text.length) {
    return keyed;
  }
  const at = raw.text.indexOf(spelled);
  return at === -1 ? undefined : { line: raw.lineNo, start: at, end: at + spelled.length };
}

/**
 * Amplifier's tool messages have no error flag of their own: the content is the tool's result
 * as JSON, `{"error": null, "output": …, "success": true}` in the real transcripts of 2026.06–09.
 * A short JSON output that says `success: false`, or is only an error object (the repair
 * placeholder is one), counts as an error; anything else (file contents included) does not.
 * (No failed call was in the real files seen: the failure shape is not verified.)
 */
function looksLikeError(text: string | undefined): boolean {
  if (text === undefined || text.length > maxErrorProbe || !text.trimStart().startsWith('{')) {
    return false;
  }
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return false;
  }
  if (!isRecord(v)) {
    return false;
  }
  if (v['success'] === false) {
    return true;
  }
  const errorKeys = new Set(['error', 'message', 'code', 'details', 'forked', 'success']);
  return v['error'] !== undefined && v['error'] !== null && v['success'] !== true && Object.keys(v).every((k) => errorKeys.has(k));
}
