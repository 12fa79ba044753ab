import type { CallRecord } from '../../engine/conversation';
import type { FileAccess } from '../../model/events';

const writeOps = new Set(['write', 'edit', 'create', 'delete']);

export function isWrite(a: FileAccess): boolean {
  return writeOps.has(a.op);
}

/**
 * Does this call run alone, after the calls of its batch dispatched before it and before those
 * after it? Codex runs a tool that is not marked safe to run in parallel under an exclusive lock,
 * in the order the calls stream in, and apply_patch is never marked safe (codex-rs
 * `tools/spec.rs`: `push_spec`, not `push_spec_with_parallel_support`). Other agents' adapters
 * mark such a call `alone` (see ToolCall.alone).
 */
export function runsAlone(agent: string, call: CallRecord): boolean {
  return call.call.alone === true || (agent === 'codex' && call.call.tool === 'apply_patch');
}

/** Did this call run after the calls before it in its batch had finished? */
export function runsAfterEarlier(agent: string, call: CallRecord): boolean {
  return runsAlone(agent, call) || call.call.inOrder === true;
}

/**
 * Does the agent run a read and a write of one batch one after the other, in the batch's order?
 * Claude Code runs a message's calls in groups, in order: each run of calls it deems safe to run
 * side by side (`isConcurrencySafe`: Read, Glob, Grep, read-only Bash commands) together, every
 * other call alone (Edit, Write, any other Bash command). Read in its builds on npm, 1.0.24 to
 * 2.1.71 and the native build of 2.1.332, both where it partitions a message's calls and in its
 * streaming executor, which starts a call only when none is running or all that run are safe, as
 * it is. A write is never safe, so it never runs beside a read: the read sees the file as the
 * calls before it in the message left it.
 */
export function readsAndWritesInOrder(agent: string): boolean {
  return agent === 'claude-code';
}

/**
 * Do this call's writes happen after those dispatched before it in its batch, one at a time?
 * Claude Code runs every call that changes something alone, in the order of the message
 * (only read-only tools run side by side); Codex its apply_patch; Gemini CLI the calls the
 * adapter marks `inOrder`.
 */
export function writesInOrder(agent: string, call: CallRecord): boolean {
  return agent === 'claude-code' || runsAfterEarlier(agent, call);
}

/**
 * Calls of a batch looked back over for one touching the same file. A model sends a few, at most
 * a few dozen, calls in one message; a message of 50,000 calls made every call look at every
 * call before it (the square of their number). Past this many, an earlier call is not claimed.
 */
const maxBatchLookBack = 256;

/** Earlier calls of the same assistant message (one parallel batch) touching `path`: the nearest `maxBatchLookBack`, in order. */
export function batchSiblings(call: CallRecord, path: string, pick: (a: FileAccess) => boolean): { sibling: CallRecord; access: FileAccess }[] {
  const out: { sibling: CallRecord; access: FileAccess }[] = [];
  const calls = call.message.calls;
  const end = batchEnd(call);
  for (let i = Math.max(0, end - maxBatchLookBack); i < end; i++) {
    const other = calls[i]!;
    const access = other.call.accesses.find((x) => x.path === path && pick(x));
    if (access) {
      out.push({ sibling: other, access });
    }
  }
  return out;
}

/**
 * The first of `batchSiblings` that `accept`s, found without building their list: every call
 * asks it of each file it touches, and most find none.
 */
export function firstBatchSibling(
  call: CallRecord,
  path: string,
  pick: (a: FileAccess) => boolean,
  accept?: (sibling: CallRecord) => boolean,
): { sibling: CallRecord; access: FileAccess } | undefined {
  const calls = call.message.calls;
  const end = batchEnd(call);
  for (let i = Math.max(0, end - maxBatchLookBack); i < end; i++) {
    const other = calls[i]!;
    if (accept !== undefined && !accept(other)) {
      continue;
    }
    for (const access of other.call.accesses) {
      if (access.path === path && pick(access)) {
        return { sibling: other, access };
      }
    }
  }
  return undefined;
}

/** Where the calls of `call`'s batch made before it end. */
function batchEnd(call: CallRecord): number {
  const calls = call.message.calls;
  // (A call is judged as it arrives: the message's last, found from the end.)
  const at = calls.lastIndexOf(call);
  return at === -1 ? calls.length : at;
}
