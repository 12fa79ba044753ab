import { readdir, stat } from 'node:fs/promises';
import * as nodePath from 'node:path';

/** A sub-agent's transcript and session id, beside its main session's. */
export interface SubAgentTranscript {
  file: string;
  sessionId: string;
}

/**
 * The Gemini CLI sub-agent running now under the main session whose transcript is `mainFile`,
 * if any: the hook that named `mainFile` is most likely that sub-agent's.
 *
 * Gemini CLI (0.61) runs a sub-agent's `BeforeTool`/`AfterTool` hooks with its main session's
 * `session_id` and `transcript_path` (the hook system's base input comes from the main client's
 * recording service), and the payload names no call or agent; taken at its word, the guard
 * credited the main session with the sub-agent's reads and writes, and let the main session's
 * write from an older read through over the sub-agent's edit (a lost update). While a
 * sub-agent runs, its main session writes nothing to its own file: the main session records a
 * batch's calls once the whole batch, `invoke_agent` included, is done. The sub-agent appends to
 * `chats/<main session id>/<its id>.jsonl` as it goes. So a sub-agent file written after the
 * main session's file is one running now; once it is done the main session records the batch,
 * and its file is the newer again.
 *
 * What this cannot tell apart: a main-session read in the same batch as `invoke_agent`, whose
 * `AfterTool` comes while the sub-agent runs, is credited to the sub-agent (the main session's
 * transcript records that read when the batch is done, which is what its next write is judged
 * on); and of two sub-agents running at once, the one that wrote last is taken.
 */
export async function runningGeminiSubAgent(mainFile: string, sessionId: string): Promise<SubAgentTranscript | undefined> {
  if (sessionId === '' || sessionId.includes('/') || sessionId.includes('\\') || sessionId === '.' || sessionId === '..') {
    return undefined;
  }
  const dir = nodePath.join(nodePath.dirname(mainFile), sessionId);
  let names: string[];
  let mainTime: number;
  try {
    [names, mainTime] = await Promise.all([readdir(dir), stat(mainFile).then((s) => s.mtimeMs)]);
  } catch {
    // No sub-agent folder (the usual case), or no main file yet: the hook is the main session's.
    return undefined;
  }
  let newest: { file: string; time: number } | undefined;
  for (const name of names) {
    if (!name.endsWith('.jsonl')) {
      continue;
    }
    const file = nodePath.join(dir, name);
    try {
      const s = await stat(file);
      if (s.isFile() && s.mtimeMs > mainTime && (newest === undefined || s.mtimeMs > newest.time)) {
        newest = { file, time: s.mtimeMs };
      }
    } catch {
      // Gone since the listing.
    }
  }
  return newest ? { file: newest.file, sessionId: nodePath.basename(newest.file, '.jsonl') } : undefined;
}
