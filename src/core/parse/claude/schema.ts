import { z } from 'zod';

/*
 * Shapes of the Claude Code records we read (FORMATS.md §1). Unknown fields are tolerated
 * (stripped from the parsed value, never an error), and only the fields the rules need are
 * checked, so a huge tool output is never walked twice. Plain `z.object` rather than
 * `looseObject`: copying every unknown key made validation cost as much as JSON.parse.
 */

const envelope = {
  uuid: z.string().optional(),
  parentUuid: z.string().nullable().optional(),
  sessionId: z.string().optional(),
  cwd: z.string().optional(),
  timestamp: z.string().optional(),
  isSidechain: z.boolean().optional(),
  isMeta: z.boolean().optional(),
  isCompactSummary: z.boolean().optional(),
  isVisibleInTranscriptOnly: z.boolean().optional(),
  agentId: z.string().optional(),
};

/**
 * A content block: any object with a string `type`, kept as it is — its own fields are
 * checked by the block's schema (tool_use, tool_result, text) where they are used.
 */
export const contentBlockSchema = z.custom<{ type: string } & Record<string, unknown>>(
  (v) => typeof v === 'object' && v !== null && typeof (v as { type?: unknown }).type === 'string',
  { message: 'a content block needs a string type' },
);

export const toolUseBlockSchema = z.object({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string(),
  input: z.unknown(),
});

export const toolResultBlockSchema = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.unknown().optional(),
  is_error: z.boolean().nullable().optional(),
});

export const textBlockSchema = z.object({ type: z.literal('text'), text: z.string() });

export const assistantLineSchema = z.object({
  ...envelope,
  type: z.literal('assistant'),
  message: z.object({
    id: z.string().optional(),
    role: z.literal('assistant').optional(),
    content: z.array(contentBlockSchema),
  }),
});

export const userLineSchema = z.object({
  ...envelope,
  type: z.literal('user'),
  message: z.object({
    role: z.literal('user').optional(),
    content: z.union([z.string(), z.array(contentBlockSchema)]),
  }),
  toolUseResult: z.unknown().optional(),
});

export const systemLineSchema = z.object({
  ...envelope,
  type: z.literal('system'),
  subtype: z.string().optional(),
});

export const titleLineSchema = z.object({
  type: z.enum(['summary', 'ai-title', 'custom-title']),
  summary: z.string().optional(),
  title: z.string().optional(),
  customTitle: z.string().optional(),
  aiTitle: z.string().optional(),
});

/**
 * `worktree-state`: the worktree the session works in (`EnterWorktree`), or `null` once it left
 * it. Claude Code writes it for resuming; the new folder also shows in the next records' `cwd`.
 */
export const worktreeStateSchema = z.object({
  type: z.literal('worktree-state'),
  worktreeSession: z.union([z.null(), z.object({ originalCwd: z.string(), worktreePath: z.string() })]),
});

/** `toolUseResult` of Read: `{type:'text', file:{filePath, content, startLine, numLines, totalLines}}`. */
export const readResultSchema = z.object({
  type: z.string().optional(),
  file: z.object({
    filePath: z.string(),
    content: z.string().optional(),
    startLine: z.number().optional(),
    numLines: z.number().optional(),
    totalLines: z.number().optional(),
  }),
});

/** A unified-diff hunk; `lines` start with ' ' (context), '-' (removed) or '+' (added). */
const hunkSchema = z.object({ oldStart: z.number(), oldLines: z.number(), lines: z.array(z.string()).optional() });

/** `toolUseResult` of Edit/MultiEdit/Write. */
export const writeResultSchema = z.object({
  filePath: z.string(),
  type: z.enum(['create', 'update']).optional(),
  content: z.string().optional(),
  oldString: z.string().optional(),
  newString: z.string().optional(),
  replaceAll: z.boolean().optional(),
  originalFile: z.string().nullable().optional(),
  originalFileContents: z.string().nullable().optional(),
  edits: z
    .array(z.object({ old_string: z.string(), new_string: z.string(), replace_all: z.boolean().optional() }))
    .optional(),
  structuredPatch: z.array(hunkSchema).optional(),
  userModified: z.boolean().optional(),
  /** Claude Code also rewrote the `modified:` stamp of a memory file it edited (a hunk of its own in structuredPatch). */
  memdirStamped: z.boolean().optional(),
});

/** `toolUseResult` of Bash. */
export const shellResultSchema = z.object({
  stdout: z.string(),
  stderr: z.string().optional(),
  interrupted: z.boolean().optional(),
});
