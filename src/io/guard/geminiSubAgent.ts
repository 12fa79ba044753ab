import { open, readdir, stat } from 'node:fs/promises';
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
 * and its file is the newer again. Until then a sub-agent that is done (its file ends with the
 * `summary` it returned) is not taken: Gemini CLI runs a write alone, in the response's order,
 * so a main-session write_file after `invoke_agent` in the same response comes while the
 * finished sub-agent's file is still the newer, and taken as the sub-agent's it was judged on
 * the sub-agent's reads (its write over the sub-agent's edit went through).
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
  // Only beside a Gemini CLI session's own file (`chats/session-<time>-<id>.jsonl`): both names come
  // from the untrusted payload, and the newest file of the folder they name is read.
  if (nodePath.basename(nodePath.dirname(mainFile)) !== 'chats' || !/^session-.*\.jsonl$/.test(nodePath.basename(mainFile))) {
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
  const newer: { file: string; time: number }[] = [];
  for (const name of names) {
    if (!name.endsWith('.jsonl')) {
      continue;
    }
    const file = nodePath.join(dir, name);
    try {
      const s = await stat(file);
      if (s.isFile() && s.mtimeMs > mainTime) {
        newer.push({ file, time: s.mtimeMs });
      }
    } catch {
      // Gone since the listing.
    }
  }
  newer.sort((a, b) => b.time - a.time);
  for (const { file } of newer) {
    if (!(await finished(file))) {
      return { file, sessionId: nodePath.basename(file, '.jsonl') };
    }
  }
  return undefined;
}

/** How much of a sub-agent file's end is read to find its last line. */
const tailBytes = 64 * 1024;

/**
 * Is the sub-agent done? Gemini CLI 0.61 ends its file with `{"$set":{"summary":…}}`, the result
 * it handed back (test/fixtures/generated/gemini-0.61/sub-agent). A last line that does not fit
 * the tail read, or cannot be read, counts as running, as every newer file did before.
 */
async function finished(file: string): Promise<boolean> {
  let text: string;
  let whole: boolean;
  try {
    const handle = await open(file, 'r');
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, tailBytes);
      whole = length === size;
      const buf = Buffer.alloc(length);
      const { bytesRead } = await handle.read(buf, 0, length, size - length);
      text = buf.toString('utf8', 0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch {
    return false;
  }
  const lines = text.trimEnd().split('\n');
  if (lines.length < 2 && !whole) {
    // The last line starts before the tail: its start is not in hand.
    return false;
  }
  try {
    const last = JSON.parse(lines[lines.length - 1] ?? '') as unknown;
    const set = typeof last === 'object' && last !== null ? (last as Record<string, unknown>)['$set'] : undefined;
    return typeof set === 'object' && set !== null && 'summary' in set;
  } catch {
    // Half-written: still running.
    return false;
  }
}
