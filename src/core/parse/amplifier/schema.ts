import { z } from 'zod';

/*
 * Amplifier `transcript.jsonl`: one OpenAI-chat-like message per line (FORMATS.md §4;
 * `amplifier_foundation/session/diagnosis.py`, `amplifier_core/message_models.py`), and
 * `events.jsonl` log lines. Loose objects: only the fields we read are checked.
 */

export const amplifierMessageSchema = z.object({
  role: z.string(),
  content: z.unknown().optional(),
  tool_calls: z.array(z.unknown()).nullable().optional(),
  tool_call_id: z.string().min(1).optional(),
  name: z.string().nullable().optional(),
});

/** `tool_calls[]`: the name is `tool` (Amplifier), `function.name` (OpenAI) or `name`. */
export const amplifierToolCallSchema = z.object({
  id: z.string().min(1),
  tool: z.string().optional(),
  name: z.string().optional(),
  function: z.object({ name: z.string().optional(), arguments: z.unknown().optional() }).optional(),
  arguments: z.unknown().optional(),
  input: z.unknown().optional(),
});

export const contentBlockSchema = z.object({ type: z.string() });

/** `{type:'tool_call'}` (Amplifier's ToolCallBlock) or `{type:'tool_use'}` (Anthropic-shaped history). */
export const toolCallBlockSchema = z.object({
  type: z.enum(['tool_call', 'tool_use']),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.unknown().optional(),
});

export const toolResultBlockSchema = z.object({
  type: z.literal('tool_result'),
  tool_call_id: z.string().min(1).optional(),
  tool_use_id: z.string().min(1).optional(),
  output: z.unknown().optional(),
  content: z.unknown().optional(),
});

export const textBlockSchema = z.object({ type: z.literal('text'), text: z.string() });

/** `events.jsonl`: `{ts, lvl, schema:{name,ver}, event, session_id, data}`; `data` is never read here. */
export const amplifierEventLineSchema = z.object({
  ts: z.string().optional(),
  lvl: z.string().optional(),
  event: z.string(),
  session_id: z.string().min(1),
});
