import { z } from 'zod';

/* Codex CLI rollout lines: `{timestamp, type, payload}` (FORMATS.md §2). Loose objects throughout. */

export const rolloutLineSchema = z.object({
  timestamp: z.string().optional(),
  type: z.string(),
  payload: z.unknown(),
});

/**
 * The first line of a legacy rollout (codex-rs before the `{timestamp,type,payload}` wrapper,
 * up to about September 2025): `{id, timestamp, instructions, git}`, no cwd. The lines after it
 * are bare response items and `{"record_type":"state"}` snapshots.
 */
export const legacyMetaSchema = z.object({
  id: z.string(),
  timestamp: z.string().optional(),
});

export const sessionMetaSchema = z.object({
  id: z.string(),
  timestamp: z.string().optional(),
  cwd: z.string().optional(),
  forked_from_id: z.string().nullable().optional(),
  parent_thread_id: z.string().nullable().optional(),
  /** 0.171's paginated history: where a fork's history is (`{thread_id, end_ordinal_exclusive, end_byte_offset}`). */
  history_base: z.unknown().optional(),
});

export const turnContextSchema = z.object({ cwd: z.string().optional() });

export const responseItemSchema = z.object({ type: z.string() });

export const messageItemSchema = z.object({
  type: z.literal('message'),
  role: z.string(),
  content: z.unknown().optional(),
});

export const functionCallSchema = z.object({
  type: z.literal('function_call'),
  name: z.string(),
  /** The tool's group (Codex 0.14x): `mcp__<server>` for an MCP server's tools, `collaboration`, `web`. */
  namespace: z.string().optional(),
  arguments: z.string().optional(),
  call_id: z.string().min(1),
});

export const customToolCallSchema = z.object({
  type: z.literal('custom_tool_call'),
  name: z.string(),
  input: z.string().optional(),
  call_id: z.string().min(1),
});

export const localShellCallSchema = z.object({
  type: z.literal('local_shell_call'),
  call_id: z.string().min(1).optional(),
  id: z.string().optional(),
  action: z.object({ command: z.array(z.string()).optional(), working_directory: z.string().nullable().optional() }).optional(),
});

export const callOutputSchema = z.object({
  type: z.enum(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output']),
  call_id: z.string().min(1),
  output: z.unknown().optional(),
});

export const eventMsgSchema = z.object({ type: z.string() });
