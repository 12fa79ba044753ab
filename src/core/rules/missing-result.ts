import type { CallRecord, MessageRecord } from '../engine/conversation';
import { defineRule } from '../engine/rule';
import type { Span } from '../model/events';
import { followsCall, hangsBeforeCall, hangsFromLost, inDroppedRun, sharedBranchTracker } from './support/branches';
import { docsUrl, isAnthropicModel, providerError } from './support/docs';

/** Malformed lines that lose the record written there (a line read despite bad bytes loses nothing). */
const lostRecord = new Set(['invalid-json', 'not-an-object', 'invalid-shape', 'line-too-long', 'truncated']);

/**
 * Calls the conversation passed by that stay open, each judged again at every later message in
 * case the session comes back to its branch (the newest). A session resumed from an earlier
 * point leaves a few; a file whose every call is on a branch of its own would make every
 * message judge every call before it. Past this many, the oldest is judged only at the end of
 * the file (as abandoned, which it was, for that long).
 */
const maxPassedByOpen = 64;

/**
 * Live: how long after it was made a call the conversation went on without is reported as
 * abandoned (in `check`, at the end of the file), unless the `minutes` option says otherwise.
 * The settings give it stalled-call's limit: both answer "how long before a call without a
 * result is worth telling", and one setting that moved only one of them would surprise. A
 * session resumed from before a call that never returned comes back minutes later at least.
 */
const defaultPassedByMinutes = 10;

/** Unreadable lines remembered (the newest): a call's result is due within a few lines of it. */
const maxUnreadableKept = 64;

/** What a call reported before its result waits on: what came first (and where), and whether that was a turn of another provider's model. */
interface Waiting {
  next: string;
  at: Span;
  turn?: true;
  /** Not reported yet: the text came first, but its agent sends the results before it (see TextEvent.resultsFirst). */
  deferred?: true;
}

export const missingResult = defineRule({
  meta: {
    id: 'missing-result',
    type: 'problem',
    defaultSeverity: 'error',
    scope: 'stream',
    docs: {
      description: 'A tool call with no result in the message right after it.',
      url: docsUrl('missing-result'),
    },
    messages: {
      beforeNext: 'Tool call {{id}} ({{tool}}) got no result before the {{next}} on line {{nextLine}}; {{provider}}.',
      aborted: 'Tool call {{id}} ({{tool}}) got no result: the turn was aborted on line {{nextLine}}; {{provider}} on the next request.',
      atEnd: 'Tool call {{id}} ({{tool}}) has no result at the end of the file; if the session is not still running, {{provider}} when it resumes.',
      planAtEnd:
        'Tool call {{id}} ({{tool}}) has no result at the end of the file: it asks the person to approve the plan. If they chose to clear the context, Claude Code wrote the answer at the start of the new session\u2019s file and this one ends here; otherwise the session is waiting for them.',
      abandoned:
        'Tool call {{id}} ({{tool}}) never got a result: the session went on without it from line {{nextLine}}, on another branch of its history, so the model never learned what the call did.',
      gap: 'Tool call {{id}} ({{tool}}) has no result in this file: line {{nextLine}} hangs from a record the file does not hold, and the result may have been lost with it.',
      detached:
        'Tool call {{id}} ({{tool}}) never got a result, and the session went on without it from line {{nextLine}}; but its message hangs from a record the file does not hold, so the file does not show where the call stood. (When a stream fails, Claude Code keeps the blocks it wrote and sends the request again: the calls of the message cut short never ran.)',
      answered:
        'Tool call {{id}} ({{tool}}) got no result before the {{next}} on line {{nextLine}}, yet the model answered on line {{replyLine}}: the request went through without the call\u2019s real result (Claude Code 2.1.20 and later puts "[Tool result missing due to internal error]" in its place), so the model never learned what the call did.',
      answeredTurn:
        'Tool call {{id}} ({{tool}}) got no result before the next assistant turn on line {{nextLine}}, which {{model}} wrote: its provider took the history without the call\u2019s result (the Anthropic API refuses it), so the model never learned what the call did.',
      unreadable:
        'Tool call {{id}} ({{tool}}) has no readable result before {{theNext}}{{nextAt}}, but line {{unreadableLine}} between them cannot be read and may hold it.',
    },
  },
  create(ctx) {
    const minutes = ctx.options['minutes'];
    const passedByAfterMs = (typeof minutes === 'number' && minutes > 0 ? minutes : defaultPassedByMinutes) * 60_000;
    // Claude Code's parentUuid tree, shared with the branch rules: a message on another branch
    // (a second run of the session) is not what came after a call in its conversation.
    const branches = sharedBranchTracker(ctx.conversation);
    /**
     * Calls that may still be reported: each call enters once and leaves when it is answered,
     * reported, or forgiven by a history reset — so a session with many unanswered calls costs
     * no more per message than one with none.
     */
    let open: CallRecord[] = [];
    /**
     * Calls reported after a record was hung from their progress output (`runningAt`), by the
     * finding's key. If the call then shows it ran on — more progress output, or its real
     * result — the next turn came from a second execution: the finding is withdrawn, and
     * overlapping-executions reports the overlap instead.
     */
    const tentative = new Map<CallRecord, string>();
    const withdraw = (call: CallRecord): void => {
      const key = tentative.get(call);
      if (key !== undefined) {
        tentative.delete(call);
        ctx.retract(key);
      }
    };
    /**
     * Open calls the conversation went on without: a later message that does not follow them in
     * Claude Code's tree (a resume from an earlier record, a chain broken by lost records).
     */
    const passedBy = new Map<CallRecord, { at: Span; gap: boolean; since: number }>();
    /**
     * Live: passed-by calls reported before the end of the file (see onTick), by the finding's
     * key: withdrawn if the session comes back to the call's branch and its result lands.
     */
    const reportedPassed = new Map<CallRecord, string>();
    /** The calls passed by while open, oldest first, and those no longer judged at each message (see maxPassedByOpen). */
    let passedOpen: CallRecord[] = [];
    const parked = new Set<CallRecord>();
    const park = (): void => {
      if (passedOpen.length <= maxPassedByOpen) {
        return;
      }
      const drop = new Set(passedOpen.slice(0, passedOpen.length - maxPassedByOpen));
      passedOpen = passedOpen.slice(passedOpen.length - maxPassedByOpen);
      open = open.filter((c) => {
        if (drop.has(c) && c.results.length === 0) {
          parked.add(c);
          return false;
        }
        return true;
      });
    };
    /**
     * Does a record hung from `parentUuid` follow `c`? Where it does not, the conversation passed
     * the call by: it went on on another branch, or from a block of the call's own message written
     * before the call (Claude Code 2.1.87 resumed a session from the text before an MCP call that
     * never returned, and the model answered).
     */
    const follows = (c: CallRecord, parentUuid: string | null | undefined, at: Span): boolean => {
      if (followsCall(branches, parentUuid, c.call) && !hangsBeforeCall(branches, parentUuid, c.call)) {
        return true;
      }
      if (!passedBy.has(c) && c.results.length === 0) {
        // A parent the tree never saw: records lost from the file, not another branch. (A line
        // the file holds outside any node, a slash command's the session starts with, is none.)
        passedBy.set(c, { at, gap: typeof parentUuid === 'string' && !branches.holdsLine(parentUuid), since: ctx.now() });
        passedOpen.push(c);
      }
      return false;
    };
    /**
     * Claude Code calls reported at the prompt that came before their result, with that prompt's
     * message: if the model answers it, the API took the history (Claude Code stands a
     * placeholder in for a missing result), and the finding says so instead.
     */
    const beforePrompt = new Map<CallRecord, Waiting & { msg: MessageRecord }>();
    /**
     * The assistant message right after such a prompt, and the calls waiting on it: judged at its
     * first block, since Claude Code writes its own note there when the request failed (a
     * `<synthetic>` "API Error: 400 …" message), which is no answer of the model.
     */
    let reply: { msg: MessageRecord; calls: [CallRecord, Waiting][] } | undefined;
    /**
     * Claude Code calls reported at the next assistant turn, until a later message of the model on
     * their branch: its request carried the call (Claude Code builds the history from the chain),
     * so if the model answered it the API took the history without the result, and the finding
     * says so instead (see `answered`). That turn itself may answer a request sent again without
     * the call (a stream cut short, then retried: the same call written twice, eight seconds
     * apart, Claude Code 2.1.47), so it tells nothing.
     */
    const sentOn = new Map<CallRecord, { msg: MessageRecord; waiting: Waiting }>();
    const answered = (msg: MessageRecord, synthetic: boolean, unsent: boolean, writer: string | undefined): void => {
      if (reply?.msg !== msg) {
        return;
      }
      const { calls } = reply;
      reply = undefined;
      if (synthetic || unsent) {
        // No answer of the model: nothing stood in for the missing result. The calls the prompt
        // left waiting are reported as any prompt before a result is.
        for (const [call, p] of calls) {
          if (p.deferred && call.results.length === 0) {
            report(call, 'beforeNext', p.next, p.at);
          }
        }
      }
      if (unsent) {
        // Claude Code's own "No response requested.": no request yet; the next prompt's carries them.
        unsentTurn = { msg, calls: calls.filter(([, p]) => p.turn !== true) };
        return;
      }
      for (const [call, p] of synthetic ? [] : calls) {
        // (A result written after the prompt, in its message, went with it: misplaced-result's.)
        if (call.results.length === 0) {
          ctx.retract(call.call.callId + '@' + call.call.at.line);
          if (p.turn) {
            // The turn's own model: Claude Code behind a router may send the retry of a request
            // cut short to another model than the call's (kimi-k2.5's call, glm-5's next turn).
            // (A turn that names an Anthropic model, or none, names the call's.)
            report(call, 'answeredTurn', p.next, p.at, false, undefined, 'warning', writer !== undefined && !isAnthropicModel(writer) ? writer : undefined);
          } else {
            report(call, 'answered', p.next, p.at, false, msg.at);
          }
        }
      }
    };
    /**
     * The calls reported at the assistant message just opened, and, once its first block shows it
     * is Claude Code's own "No response requested." (written without a request: a resumed
     * session), those calls again: the request that carries them is the one after the next
     * prompt, which the model may answer (see beforePrompt).
     */
    let lastTurn: { msg: MessageRecord; calls: CallRecord[] } | undefined;
    let unsentTurn: { msg: MessageRecord; calls: [CallRecord, Waiting][] } | undefined;
    /** Lines that could not be read (a record lost there), the newest last. */
    const unreadable: number[] = [];
    /** Reports one call; returns the message it was reported with. */
    const report = (call: CallRecord, messageId: string, next: string, nextAt: Span | undefined, demote = false, replyAt?: Span, severity?: 'warning' | 'info', writer?: string): string => {
      const key = call.call.callId + '@' + call.call.at.line;
      if (call.runningAt !== undefined) {
        tentative.set(call, key);
      }
      // A line that could not be read, after the call and before what came first, may be its
      // result (a transcript with blocks overwritten by other data): that is all that is known.
      const lost = unreadable.find((line) => line > call.call.at.line && (nextAt === undefined || line < nextAt.line));
      const data = {
        id: call.call.callId,
        tool: call.call.tool,
        next,
        // Some of what comes next is named with its article already ("the session going on without it").
        theNext: next.startsWith('the ') ? next : `the ${next}`,
        nextLine: nextAt?.line ?? 0,
        nextAt: nextAt ? ` on line ${nextAt.line}` : '',
        unreadableLine: lost ?? 0,
        replyLine: replyAt?.line ?? 0,
        model: writer ?? call.call.model ?? '',
        provider: providerError(ctx.agent, 'missing-result'),
      };
      ctx.report({
        messageId: lost !== undefined ? 'unreadable' : messageId,
        at: call.call.at,
        key,
        callId: call.call.callId,
        demote,
        ...(lost !== undefined || replyAt !== undefined ? { severity: 'warning' as const } : severity ? { severity } : {}),
        data,
        related: [
          ...(nextAt ? [{ at: nextAt, message: next }] : []),
          ...(replyAt ? [{ at: replyAt, message: 'the model’s answer' }] : []),
          ...(lost !== undefined ? [{ at: { line: lost, start: 0, end: 0 }, message: 'the line that cannot be read' }] : []),
        ],
      });
      return lost !== undefined ? 'unreadable' : messageId;
    };
    /** A call the conversation went on without, reported as what it is (see onEnd). */
    const reportPassed = (c: CallRecord, at: Span, gap: boolean): void => {
      if (gap) {
        report(c, 'gap', 'the session going on without it', at, true);
      } else if (hangsFromLost(branches, c.call)) {
        report(c, 'detached', 'the session going on without it', at, false, undefined, 'info');
      } else {
        report(c, 'abandoned', 'the session going on without it', at, true);
      }
    };
    /**
     * Reports the open calls `pick` selects (and drops answered ones); the rest stay open.
     * Returns the calls reported with `messageId` itself.
     */
    const sweep = (pick: (c: CallRecord) => boolean, messageId: string, next: string, nextAt: Span | undefined, demote = false, severity?: 'info'): CallRecord[] => {
      const still: CallRecord[] = [];
      const reported: CallRecord[] = [];
      for (const c of open) {
        if (c.results.length > 0) {
          continue;
        }
        if (pick(c)) {
          if (report(c, messageId, next, nextAt, demote, undefined, severity) === messageId) {
            reported.push(c);
          }
        } else {
          still.push(c);
        }
      }
      open = still;
      return reported;
    };
    return {
      onCall(rec) {
        answered(rec.message, false, false, rec.call.model);
        branches.addCall(rec);
        open.push(rec);
      },
      onMessage(msg, previous) {
        reply = undefined;
        for (const [call, p] of beforePrompt) {
          // The message after the prompt: the model's answer to it, or not.
          beforePrompt.delete(call);
          if (msg.role === 'assistant' && previous === p.msg) {
            reply ??= { msg, calls: [] };
            reply.calls.push([call, { next: p.next, at: p.at, ...(p.deferred ? { deferred: true as const } : {}) }]);
          } else if (p.deferred && call.results.length === 0) {
            report(call, 'beforeNext', p.next, p.at);
          }
        }
        lastTurn = undefined;
        if (msg.role === 'assistant') {
          unsentTurn = undefined;
        }
        if (msg.role === 'assistant' && sentOn.size > 0) {
          for (const [call, p] of sentOn) {
            if (call.results.length > 0) {
              sentOn.delete(call);
            } else if (p.msg !== msg && p.msg.key !== msg.key && followsCall(branches, msg.parentUuid, call.call) && !hangsBeforeCall(branches, msg.parentUuid, call.call)) {
              sentOn.delete(call);
              reply ??= { msg, calls: [] };
              reply.calls.push([call, p.waiting]);
            }
          }
        }
        if (msg.role === 'assistant' && open.length > 0) {
          // A later block of the call's own API message (same id, hung below the call) is no next
          // turn: Claude Code writes a message block by block, and another branch's line can come
          // between them (a run it dropped, answered late).
          const reported = sweep(
            (c) => c.message !== msg && !(msg.key !== undefined && c.message.key === msg.key && followsCall(branches, msg.parentUuid, c.call)) && follows(c, msg.parentUuid, msg.at),
            'beforeNext',
            'next assistant turn',
            msg.at,
          );
          park();
          if (ctx.agent === 'claude-code' && reported.length > 0) {
            lastTurn = { msg, calls: reported };
            // Claude Code running another provider's model (DeepSeek, through its Anthropic-style
            // endpoint): a turn the model wrote shows the provider took the history without the
            // result. Judged at the turn's first block (Claude Code's own API error is none).
            for (const c of reported) {
              if (!isAnthropicModel(c.call.model)) {
                reply ??= { msg, calls: [] };
                reply.calls.push([c, { next: 'next assistant turn', at: msg.at, turn: true }]);
              } else if (c.runningAt === undefined) {
                // (A turn hung from the call's progress output came while it ran: that finding is
                // tentative, an overlap if the call shows it ran on, and is judged so.)
                sentOn.set(c, { msg, waiting: { next: 'next assistant turn', at: msg.at } });
              }
            }
          }
        }
      },
      onRunning(call, e) {
        if (e.by === 'progress') {
          withdraw(call);
        }
      },
      onResult(rec) {
        branches.addResult(rec);
        const passedKey = rec.call && reportedPassed.size > 0 ? reportedPassed.get(rec.call) : undefined;
        if (passedKey !== undefined) {
          // The session came back to the call's branch after all, and its result landed.
          reportedPassed.delete(rec.call!);
          ctx.retract(passedKey);
        }
        if (rec.call && beforePrompt.get(rec.call)?.deferred) {
          // Answered after text its agent sends after the results: in place.
          beforePrompt.delete(rec.call);
        }
        if (rec.call && !rec.result.placeholder && tentative.size > 0) {
          withdraw(rec.call);
        }
      },
      onText(e, msg) {
        answered(msg, e.synthetic === true, e.unsent === true, e.model);
        branches.addText(e);
        if (e.unsent === true && lastTurn?.msg === msg) {
          // Calls reported at this reply itself.
          unsentTurn ??= { msg, calls: [] };
          for (const c of lastTurn.calls) {
            unsentTurn.calls.push([c, { next: 'next assistant turn', at: msg.at }]);
          }
        }
        lastTurn = undefined;
        if (e.role === 'user' && !e.attached && unsentTurn !== undefined) {
          // The prompt after Claude Code's own reply: its request is the first to carry the
          // calls reported at that reply or at the prompt before it.
          if (unsentTurn.msg.index === msg.index - 1 && unsentTurn.msg.epoch === msg.epoch) {
            for (const [c, p] of unsentTurn.calls) {
              if (c.results.length === 0) {
                beforePrompt.set(c, { msg, next: p.next, at: p.at });
              }
            }
          }
          unsentTurn = undefined;
        }
        if (e.role === 'user' && !e.attached && open.length > 0) {
          // A prompt typed while the call ran (hung from its progress output) goes to the model
          // after the call's result: nothing is missing yet; the next assistant turn judges.
          const next = e.prompt ? 'user prompt' : 'user message';
          const pick = (c: CallRecord): boolean => c.message.index === msg.index - 1 && c.message.epoch === msg.epoch && c.runningAt === undefined && follows(c, e.parentUuid, e.at);
          if (e.resultsFirst) {
            // Its agent sends the results first, wherever the file has this text: a result still
            // to come is in its place. What follows the text judges (the result, the model's
            // answer, Claude Code's own API error, or the end of the file).
            open = open.filter((c) => {
              if (c.results.length === 0 && pick(c)) {
                beforePrompt.set(c, { msg, next, at: e.at, deferred: true });
                return false;
              }
              return true;
            });
          } else {
            const reported = sweep(pick, 'beforeNext', next, e.at);
            if (ctx.agent === 'claude-code') {
              for (const c of reported) {
                beforePrompt.set(c, { msg, next, at: e.at });
              }
            }
          }
          park();
        }
      },
      onMalformed(e) {
        // (A provisional one is a line still being written, or not: no record is lost yet.)
        if (lostRecord.has(e.reason) && e.provisional === undefined && open.length > 0) {
          unreadable.push(e.at.line);
          if (unreadable.length > maxUnreadableKept) {
            unreadable.shift();
          }
        }
      },
      onTurnEnd(at, aborted) {
        sweep(() => true, aborted ? 'aborted' : 'beforeNext', aborted ? 'aborted turn' : 'end of the turn', at);
      },
      onRetry(e) {
        branches.addRetry(e);
      },
      onTick(now) {
        // Live only: in `check` the end of the file says the conversation is done with a call it
        // went on without; a watched session has no end, and nothing else reported such a call
        // (stalled-call stops waiting once the model's next turn comes). A session resumed from
        // before a call that never returned (Claude Code 2.1.222 after the machine crashed, in
        // the fifty-third set) was reported by `check` and never by the extension or `watch`.
        if (ctx.mode !== 'live' || passedBy.size === 0) {
          return;
        }
        const stillOpen = new Set([...parked, ...open]);
        const done = new Set<CallRecord>();
        for (const [c, { at, gap, since }] of passedBy) {
          if (!stillOpen.has(c) || c.results.length > 0 || inDroppedRun(branches, c.call)) {
            continue;
          }
          const stamped = c.call.timestamp !== undefined ? Date.parse(c.call.timestamp) : NaN;
          const made = Number.isFinite(stamped) ? Math.min(stamped, since) : since;
          if (now - made < passedByAfterMs) {
            continue;
          }
          reportPassed(c, at, gap);
          reportedPassed.set(c, c.call.callId + '@' + c.call.at.line);
          done.add(c);
        }
        if (done.size > 0) {
          for (const c of done) {
            passedBy.delete(c);
            parked.delete(c);
          }
          open = open.filter((c) => !done.has(c));
          passedOpen = passedOpen.filter((c) => !done.has(c));
        }
      },
      onReset() {
        branches.reset();
        reportedPassed.clear();
        // The calls of the old history are no longer sent: nothing is missing any more.
        open = [];
        passedBy.clear();
        passedOpen = [];
        parked.clear();
        tentative.clear();
        beforePrompt.clear();
        sentOn.clear();
        reply = undefined;
        lastTurn = undefined;
        unsentTurn = undefined;
      },
      onEnd() {
        // A call the conversation went on without is not waiting for its result: it was dropped.
        // (In the order they were passed by; one pass over the open calls, not one per call.)
        // The calls of a run Claude Code dropped when it started the conversation over never ran,
        // and nothing goes on from them: no result is due at all.
        // Calls the last text left waiting for their results (see resultsFirst) are as open.
        for (const [c, p] of beforePrompt) {
          if (p.deferred && c.results.length === 0) {
            open.push(c);
          }
        }
        beforePrompt.clear();
        const stillOpen = new Set([...parked, ...open].filter((c) => !inDroppedRun(branches, c.call)));
        for (const [c, { at, gap }] of passedBy) {
          if (stillOpen.delete(c) && c.results.length === 0) {
            reportPassed(c, at, gap);
          }
        }
        open = open.filter((c) => stillOpen.has(c));
        // Claude Code's plan approval left open: the person's to answer, and when they choose to
        // clear the context, Claude Code writes the refused result as the first record of the new
        // session's file (its first prompt "Implement the following plan:"), and this session is
        // done with. 38 such endings in the thirty-first and thirty-third sets, none broken.
        if (ctx.agent === 'claude-code') {
          sweep((c) => c.call.tool === 'ExitPlanMode', 'planAtEnd', 'end of file', undefined, false, 'info');
        }
        sweep(() => true, 'atEnd', 'end of file', undefined, true);
      },
    };
  },
});
