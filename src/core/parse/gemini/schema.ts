import { z } from 'zod';

/*
 * Gemini CLI session lines (FORMATS.md §3.2, `chatRecordingTypes.ts` in google-gemini/gemini-cli):
 * a metadata line, MessageRecords (re-appended whole whenever they change), `{$set}` metadata
 * updates and `{$rewindTo}` truncations. Unknown fields are tolerated (stripped) and only the fields we read are
 * checked, so a 50 KB tool output is never walked by the schema.
 */

/** Message types a MessageRecord can have; only `user` and `gemini` are conversation turns. */
export const geminiMessageTypes = ['user', 'gemini', 'info', 'error', 'warning'] as const;

/** Tool call statuses after which the call will not change any more (`scheduler/types.ts`). */
export const terminalStatuses: ReadonlySet<string> = new Set(['success', 'error', 'cancelled']);

export const geminiMetadataSchema = z.object({
  sessionId: z.string().min(1),
  projectHash: z.string(),
  startTime: z.string().optional(),
  lastUpdated: z.string().optional(),
  kind: z.string().optional(),
  directories: z.array(z.string()).optional(),
  summary: z.string().optional(),
});

/**
 * One record of the conversation. `toolCalls` elements are checked one by one
 * (`geminiToolCallSchema`) so that one broken call does not hide its siblings.
 */
export const geminiMessageSchema = z.object({
  id: z.string().min(1),
  timestamp: z.string().optional(),
  type: z.enum(geminiMessageTypes),
  content: z.unknown().optional(),
  displayContent: z.unknown().optional(),
  toolCalls: z.array(z.unknown()).nullable().optional(),
});

export const geminiToolCallSchema = z.object({
  id: z.string().min(1),
  name: z.string().min(1),
  args: z.unknown().optional(),
  /** A PartListUnion: usually `[{functionResponse:{…}}]`, null until the tool finished. */
  result: z.unknown().optional(),
  status: z.string().optional(),
  timestamp: z.string().optional(),
  /**
   * What the CLI showed of the result; for a file tool a FileDiff (`fileDiff`, `filePath`,
   * `originalContent`, `newContent`, `isNewFile`), read only for what a `write_file` replaced.
   */
  resultDisplay: z.unknown().optional(),
});

/** `{functionResponse:{id, name, response:{output}|{error}}}`, one Part of a tool call's result. */
export const functionResponsePartSchema = z.object({
  functionResponse: z.object({
    id: z.string().min(1).optional(),
    name: z.string().optional(),
    response: z.unknown().optional(),
  }),
});

/**
 * `{functionCall:{id, name, args}}`, one Part of a model turn as the API took it. Gemini CLI writes
 * model turns this way when it rebuilds the record from its history (a checkpoint), without `toolCalls`.
 */
export const functionCallPartSchema = z.object({
  functionCall: z.object({
    id: z.string().min(1),
    name: z.string().min(1),
    args: z.unknown().optional(),
  }),
});

export const geminiSetSchema = z.object({
  $set: z.object({
    sessionId: z.string().optional(),
    summary: z.string().optional(),
    directories: z.array(z.string()).optional(),
    /** A checkpoint: the whole message list, replacing everything before it. */
    messages: z.array(z.unknown()).optional(),
  }),
});

export const geminiRewindSchema = z.object({ $rewindTo: z.string() });

export type GeminiMessage = z.infer<typeof geminiMessageSchema>;
export type GeminiToolCall = z.infer<typeof geminiToolCallSchema>;
export type FunctionResponse = z.infer<typeof functionResponsePartSchema>['functionResponse'];
