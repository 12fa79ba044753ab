import type { CallRecord } from '../engine/conversation';
import { defineRule, type ForeignChangeVerdict } from '../engine/rule';
import type { FileAccess, Span } from '../model/events';
import { clockTime, describeAuthor } from './support/author';
import { batchSiblings, isWrite, writesInOrder } from './support/batch';
import { docsUrl, formatRanges, shortPath } from './support/docs';

const writeOps = new Set(['write', 'edit', 'delete']);

/** How the session last saw what changed: the whole file, or (partial reads only) those lines. */
const seenText = { read: 'read the file', write: 'wrote the file', lines: 'read those lines' } as const;
/** The same, for a version of the file named just before ("the one this session read"). */
const didText = { read: 'read', write: 'wrote' } as const;

/**
 * Is the call a copy of one written earlier: the same call id in the same API message, answered
 * there? Claude Code 2.0.x resuming a session writes its history again as a sibling branch, with
 * the same message and call ids and each result as it was (thirty-fourth set: 2.0.53, the copy
 * hung from the result the file starts with). The call ran once; its write was judged where it
 * was first written, and the copy's `originalFile` is the file as it was then, not a change the
 * session never saw.
 */
function isCopy(withId: readonly CallRecord[], call: CallRecord): boolean {
  const key = call.call.messageKey;
  if (key === undefined) {
    return false;
  }
  for (const c of withId) {
    if (c === call || c.call.at.line >= call.call.at.line) {
      break;
    }
    if (c.call.messageKey === key && c.results.length > 0) {
      return true;
    }
  }
  return false;
}

export const staleWrite = defineRule({
  meta: {
    id: 'stale-write',
    type: 'problem',
    defaultSeverity: 'error',
    scope: 'stream',
    docs: {
      description: 'A write or edit applied to content other than what the session last read or wrote: a change it never saw.',
      url: docsUrl('stale-write'),
    },
    messages: {
      overlap:
        '{{tool}} overwrote a change to {{path}} that this session never saw: file {{unseen}} changed after the session last {{seen}} (transcript line {{seenLine}}){{who}}, and this {{verb}} replaced that region. A lost update is likely.',
      aside:
        '{{tool}} was applied to {{path}} on top of a change this session never saw: file {{unseen}} changed after the session last {{seen}} (transcript line {{seenLine}}){{who}}{{eg}}; this {{verb}} did not touch those lines.',
      kept:
        '{{tool}} was applied to {{path}} on top of a change this session never saw: file {{unseen}} changed after the session last {{seen}} (transcript line {{seenLine}}){{who}}{{eg}}; this write replaced the whole file but wrote those lines back as they were.',
      reverted:
        '{{tool}} was applied to {{path}} after the file went back to an earlier version, the one this session {{earlier}} on transcript line {{earlierLine}}{{but}}: what it {{seen}} later (line {{seenLine}}) had been undone behind its back{{who}}.',
      gap: '{{tool}} was applied to {{path}} on top of a change this transcript does not show: {{change}} after the session last {{seen}} (transcript line {{seenLine}}), but line {{gapLine}} hangs from a record the file does not hold, so the change may be the session\u2019s own, lost with that record.',
      live: '{{tool}} wrote {{path}}, which {{who}} changed at {{when}}, after this session last saw it at {{seenWhen}}: the write was based on a stale read, and the change made in between may be lost.',
    },
  },
  create(ctx) {
    return {
      onResult(rec) {
        const call = rec.call;
        if (!call || rec.result.isError || call.results[0] !== rec || isCopy(ctx.conversation.callsWithId(call.call.callId), call)) {
          return;
        }
        const w = rec.result.write;
        const tree = ctx.services.workTree;
        for (const access of call.call.accesses) {
          if (!writeOps.has(access.op)) {
            continue;
          }
          const live = tree?.judgeWrite(ctx.file, access.path, call.call.callId);
          const snapshot = w && w.path === access.path && w.type === 'update' ? w : undefined;
          const verdict = snapshot ? ctx.knowledge.judge(snapshot) : undefined;
          if (verdict && undidBatchSibling(ctx.agent, call, access.path, verdict.seenAt)) {
            continue;
          }
          // Records lost since the session last saw the file (a line hangs from one the file
          // does not hold) may hold its own write of it (Claude Code 2.1.49 dropped an `Edit` and
          // its result before a compaction; 2.1.4x, the answer of a retried request it carried
          // out): the change is not shown to be another writer's, unless the working tree saw one.
          const gap = verdict && !live ? ctx.knowledge.gapAfter(verdict.seenAt.line) : undefined;
          if (snapshot && verdict && gap) {
            const back = verdict.revertedTo;
            ctx.report({
              ...reportBase(call, access),
              messageId: 'gap',
              severity: verdict.overlaps && !back ? 'warning' : 'info',
              data: {
                tool: call.call.tool,
                path: shortPath(ctx, access.path),
                change: back ? `the file went back to the version the session ${didText[back.source]} on line ${back.at.line}` : `file ${formatRanges(verdict.unseen)} changed`,
                seen: seenText[verdict.seenBy],
                seenLine: verdict.seenAt.line,
                gapLine: gap.line,
              },
              related: [
                { at: verdict.seenAt, message: `the session last ${seenText[verdict.seenBy]} here` },
                { at: gap, message: 'this line hangs from a record the file does not hold' },
                { at: rec.result.at, message: 'the result recording what the file held before this write' },
              ],
              subject: { path: access.path, ...(back ? {} : { lines: unseenLines(verdict.unseen) }) },
            });
          } else if (snapshot && verdict?.revertedTo) {
            // The file held nothing the session never saw: only its own later view was undone.
            const who = live ? ` (by ${describeAuthor(live.by)} at ${clockTime(live.at)})` : '';
            ctx.report({
              ...reportBase(call, access),
              messageId: 'reverted',
              severity: 'warning',
              data: {
                tool: call.call.tool,
                path: shortPath(ctx, access.path),
                earlier: didText[verdict.revertedTo.source],
                earlierLine: verdict.revertedTo.at.line,
                but: verdict.revertedTo.butSeen ? ' (but for lines it has read since, as they are now)' : '',
                seen: verdict.seenBy === 'lines' ? 'read' : didText[verdict.seenBy],
                seenLine: verdict.seenAt.line,
                who,
              },
              related: [
                { at: verdict.revertedTo.at, message: `the session ${seenText[verdict.revertedTo.source]} as it is again here` },
                { at: verdict.seenAt, message: `the session last ${seenText[verdict.seenBy]} here` },
                { at: rec.result.at, message: 'the result recording what the file held before this write' },
                ...liveRelated(live, access),
              ],
              subject: { path: access.path },
            });
          } else if (snapshot && verdict) {
            // What the working tree saw first; else the agent's own note that a hook changed it.
            const hook = live ? undefined : verdict.byHook;
            const who = live
              ? ` (changed by ${describeAuthor(live.by)} at ${clockTime(live.at)})`
              : hook
                ? `: a ${hook.hook} hook changed it, as Claude Code noted on line ${hook.at.line}`
                : '';
            ctx.report({
              ...reportBase(call, access),
              // A Write that wrote the changed lines back as they were kept the change.
              messageId: verdict.overlaps ? 'overlap' : snapshot.whole ? 'kept' : 'aside',
              severity: verdict.overlaps ? 'error' : 'warning',
              data: {
                tool: call.call.tool,
                path: shortPath(ctx, access.path),
                seen: seenText[verdict.seenBy],
                seenLine: verdict.seenAt.line,
                unseen: formatRanges(verdict.unseen),
                who,
                eg: hook ? '' : ', e.g. a formatter or another writer',
                verb: call.call.category === 'write' ? 'write' : 'edit',
              },
              related: [
                { at: verdict.seenAt, message: `the session last ${seenText[verdict.seenBy]} here` },
                ...(hook ? [{ at: hook.at, message: `Claude Code's note: a ${hook.hook} hook modified the file` }] : []),
                { at: rec.result.at, message: 'the result recording what the file held before this write' },
                ...liveRelated(live, access),
              ],
              subject: { path: access.path, lines: unseenLines(verdict.unseen) },
              // Nothing here names the writer: another transcript read with this one may.
              ...(live || hook ? {} : { changedBetween: { seenLine: verdict.seenAt.line, writeLine: rec.result.at.line } }),
            });
          } else if (live && !snapshot) {
            // No record of what was replaced (Codex, Gemini, shell writes): the working tree
            // alone says the file changed behind the session's back.
            const seen = ctx.knowledge.get(access.path);
            const seenAt = seen?.lastRead ?? seen?.lastWrite;
            ctx.report({
              ...reportBase(call, access),
              messageId: 'live',
              data: {
                tool: call.call.tool,
                path: shortPath(ctx, access.path),
                who: describeAuthor(live.by),
                when: clockTime(live.at),
                seenWhen: clockTime(live.seenAt),
              },
              related: [
                ...(seenAt ? [{ at: seenAt, message: 'the session last saw the file here' }] : []),
                ...liveRelated(live, access),
              ],
              subject: { path: access.path },
            });
          }
        }
      },
    };
  },
});

/**
 * Was the session's last view of the file, which this write went back on, the write of an earlier
 * call of the same batch run side by side with this one? Then both wrote the file as it was before
 * either, the later undoing the other's change, and parallel-write-write's error says so: its
 * message names the race, where this rule's would say the file went back behind the session's
 * back (Gemini CLI ran five `replace` calls of one file at once, each recording the same original,
 * and one change stayed; a real session of April 2026).
 */
function undidBatchSibling(agent: string, call: CallRecord, path: string, seenAt: Span): boolean {
  if (writesInOrder(agent, call)) {
    return false;
  }
  return batchSiblings(call, path, isWrite).some((s) => s.sibling.results[0]?.result.at.line === seenAt.line);
}

/** Where a report of the write of `access` is, built only for a report (most writes are not stale). */
function reportBase(call: CallRecord, access: FileAccess): { at: Span; key: string; callId: string } {
  return { at: access.span ?? call.call.at, key: `${call.call.callId}:${access.path}`, callId: call.call.callId };
}

/** The lines a finding is about: a deleted line (count 0) still marks its place. */
function unseenLines(unseen: readonly { start: number; count: number }[]): { start: number; count: number }[] {
  return unseen.map((u) => ({ start: u.start, count: Math.max(u.count, 1) }));
}

function liveRelated(live: ForeignChangeVerdict | undefined, access: FileAccess): { at: { line: number; start: number; end: number }; message: string; file: string }[] {
  if (!live) {
    return [];
  }
  const out = [{ at: { line: 1, start: 0, end: 0 }, file: access.path, message: `changed on disk by ${describeAuthor(live.by)} at ${clockTime(live.at)}` }];
  if (live.by.kind === 'session' && live.by.line !== undefined) {
    out.push({ at: { line: live.by.line, start: 0, end: 0 }, file: live.by.session, message: 'the other session’s write' });
  }
  return out;
}
