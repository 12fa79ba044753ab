import { z } from 'zod';

/*
 * Shapes of the Claude Code records we read (FORMATS.md §1). Objects are loose: unknown
 * fields are tolerated, and only the fields the rules need are checked, so a huge tool
 * output is never walked twice.
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

export const contentBlockSchema = z.looseObject({ type: z.string() });

export const toolUseBlockSchema = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string(),
  input: z.unknown(),
});

export const toolResultBlockSchema = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.unknown().optional(),
  is_error: z.boolean().nullable().optional(),
});

export const textBlockSchema = z.looseObject({ type: z.literal('text'), text: z.string() });

export const assistantLineSchema = z.looseObject({
  ...envelope,
  type: z.literal('assistant'),
  message: z.looseObject({
    id: z.string().optional(),
    role: z.literal('assistant').optional(),
    content: z.array(contentBlockSchema),
  }),
});

export const userLineSchema = z.looseObject({
  ...envelope,
  type: z.literal('user'),
  message: z.looseObject({
    role: z.literal('user').optional(),
    content: z.union([z.string(), z.array(contentBlockSchema)]),
  }),
  toolUseResult: z.unknown().optional(),
});

export const systemLineSchema = z.looseObject({
  ...envelope,
  type: z.literal('system'),
  subtype: z.string().optional(),
});

export const titleLineSchema = z.looseObject({
  type: z.enum(['summary', 'ai-title', 'custom-title']),
  summary: z.string().optional(),
  title: z.string().optional(),
  customTitle: z.string().optional(),
  aiTitle: z.string().optional(),
});

/** `toolUseResult` of Read: `{type:'text', file:{filePath, content, startLine, numLines, totalLines}}`. */
export const readResultSchema = z.looseObject({
  type: z.string().optional(),
  file: z.looseObject({
    filePath: z.string(),
    content: z.string().optional(),
    startLine: z.number().optional(),
    numLines: z.number().optional(),
    totalLines: z.number().optional(),
  }),
});

const hunkSchema = z.looseObject({ oldStart: z.number(), oldLines: z.number() });

/** `toolUseResult` of Edit/MultiEdit/Write. */
export const writeResultSchema = z.looseObject({
  filePath: z.string(),
  type: z.enum(['create', 'update']).optional(),
  content: z.string().optional(),
  oldString: z.string().optional(),
  newString: z.string().optional(),
  replaceAll: z.boolean().optional(),
  originalFile: z.string().nullable().optional(),
  originalFileContents: z.string().nullable().optional(),
  edits: z
    .array(z.looseObject({ old_string: z.string(), new_string: z.string(), replace_all: z.boolean().optional() }))
    .optional(),
  structuredPatch: z.array(hunkSchema).optional(),
  userModified: z.boolean().optional(),
});

/** `toolUseResult` of Bash. */
export const shellResultSchema = z.looseObject({
  stdout: z.string(),
  stderr: z.string().optional(),
  interrupted: z.boolean().optional(),
});
