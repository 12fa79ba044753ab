import type { CallRecord } from '../engine/conversation';
import { defineRule } from '../engine/rule';
import type { CallRunningEvent, ExecutionEvent, Span } from '../model/events';
import { type BranchGrowth, followsCall, hangsBeforeCall, sharedBranchTracker } from './support/branches';
import { docsUrl } from './support/docs';

interface OpenExecution {
  at: Span;
  /** An LLM request or a tool ran since the start: a further start is another execution. */
  active: boolean;
  /** Tool calls started and not finished, by call id. */
  tools: Map<string, { at: Span; tool: string | undefined }>;
  /** Its last request to the model, while no answer has come. */
  awaiting?: Span;
  /** A process took the session up since this execution started: this one's may be dead. */
  since?: NewProcessTally;
}

/**
 * What a process that took the session up (`session:resume`) has written since, as far as the
 * log can tell whose it is. Lines carry no process id, and a process killed while waiting on
 * the model or a tool (`kill -9`, its terminal closed) writes nothing more, so the earlier
 * process is known to be alive only by a line the new one cannot have written: one process
 * writes each `llm:response` after its own `llm:request` and each `tool:post` after its own
 * `tool:pre` (hooks-logging appends each event as it is emitted), so an answer or a tool end
 * with none of its own open since is the earlier process's.
 */
interface NewProcessTally {
  /** Requests to the model written since, not yet answered. */
  requests: number;
  /** Tool calls started since and not ended, by call id. */
  tools: Set<string>;
  /** Tool calls started since without a call id (scrubbed captures), not ended. */
  anonymousTools: number;
  /** The earlier process's line that showed it alive, once one came. */
  alive?: { at: Span; what: 'answer' | 'tool'; callId?: string };
}

/** The line the tally cannot put down to the new process, if this one is. */
function tally(t: NewProcessTally, e: ExecutionEvent, earlierTools: ReadonlyMap<string, unknown>): NewProcessTally['alive'] {
  switch (e.phase) {
    case 'llm-request':
      t.requests++;
      return undefined;
    case 'llm-response':
      if (t.requests > 0) {
        t.requests--;
        return undefined;
      }
      return { at: e.at, what: 'answer' };
    case 'tool-start':
      if (e.callId !== undefined) {
        t.tools.add(e.callId);
      } else {
        t.anonymousTools++;
      }
      return undefined;
    case 'tool-end':
      if (e.callId !== undefined && t.tools.delete(e.callId)) {
        return undefined;
      }
      if ((e.callId === undefined || !earlierTools.has(e.callId)) && t.anonymousTools > 0) {
        t.anonymousTools--;
        return undefined;
      }
      return { at: e.at, what: 'tool', ...(e.callId !== undefined ? { callId: e.callId } : {}) };
    default:
      return undefined;
  }
}

/**
 * A second execution, started by a new process while the first one was in flight: reported
 * only once a line shows the first process still running (see NewProcessTally). A session
 * resumed after its process died is no overlap.
 */
interface SuspectedOverlap {
  at: Span;
  first: OpenExecution;
  since: NewProcessTally;
}

/**
 * Signs of two executions closer together than this (in lines) are one stretch of them, and
 * one finding: two executions interleaving give a sign at nearly every turn.
 */
const overlapGapLines = 200;

export const overlappingExecutions = defineRule({
  meta: {
    id: 'overlapping-executions',
    type: 'problem',
    defaultSeverity: 'error',
    scope: 'stream',
    docs: {
      description: 'Two executions (turns) of one session in flight at once: the cause of late, duplicate and placeholder results.',
      url: docsUrl('overlapping-executions'),
    },
    messages: {
      amplifier:
        'A second execution of session {{session}} started here while the one that started on line {{firstLine}} was still running{{pending}}. Two executions on one session rewrite its history under each other; stop one before the session becomes unresumable.',
      branch:
        'A new {{what}} started on another branch of this session (forked at line {{forkLine}}) while tool call {{callId}} ({{tool}}, line {{callLine}}) of the earlier turn had no result yet: two executions of one session are in flight.',
      running:
        'An assistant turn was written here while tool call {{callId}} ({{tool}}, line {{callLine}}) was still running ({{evidence}}): a second execution of this session is in flight, and the two write their calls and results in between each other.',
      interleaved:
        'Two branches of this session are being written alternately (this line continues the branch that started on line {{otherLine}}): two executions of one session are appending to the same transcript.',
    },
  },
  create(ctx) {
    const executions = new Map<string, OpenExecution>();
    const branches = sharedBranchTracker(ctx.conversation);
    const switches = new Map<string, number>();
    let forked = false;
    /** The last fork reported, until its branch shows what it is. */
    let reportedFork: { key: string; branch: number } | undefined;
    /**
     * Forks that started the conversation over from its root prompt (see BranchTracker.restart),
     * or answered again the request of the older branch's one message (BranchTracker.replaced),
     * while calls of the older branch were pending: Claude Code dropped that run or message, so
     * each is reported only once its older branch grows again, which shows it alive. By that
     * branch.
     */
    const held = new Map<number, () => void>();
    /** Records hung from the progress output of calls still without a result. */
    let hungFrom: { call: CallRecord; e: CallRunningEvent }[] = [];
    /**
     * Assistant turns written after a record was hung from a pending call's progress output,
     * by that call: a second execution if the call then shows it ran on (more progress output,
     * or its real result); if it died there, the turn was the same execution going on.
     */
    const turnsWhileRunning = new Map<CallRecord, Span>();
    /** Line of the last turn reported or covered: one finding per stretch of overlap. */
    let lastOverlapLine = -Infinity;
    /**
     * Calls without a result that the next assistant turn went on from, on their own branch and
     * not from their progress output: the model answered past them (a result Claude Code never
     * wrote; another provider took the history). They wait on nothing, so a fork later is no
     * second execution beside them. Each call is judged once, at the first assistant message
     * after its own.
     */
    const passed = new Set<CallRecord>();
    let unjudged: CallRecord[] = [];

    const confirm = (call: CallRecord): void => {
      const at = turnsWhileRunning.get(call);
      if (at === undefined) {
        return;
      }
      turnsWhileRunning.delete(call);
      const quiet = at.line - lastOverlapLine > overlapGapLines;
      lastOverlapLine = Math.max(lastOverlapLine, at.line);
      if (!quiet) {
        return;
      }
      const c = call.call;
      const signs = hungFrom.filter((x) => x.call === call);
      // What shows the call was running: this turn hanging from its progress output, and a
      // prompt typed meanwhile that did.
      const own = signs.find((x) => x.e.by === 'assistant' && x.e.at.line === at.line);
      const prompt = signs.find((x) => x.e.by === 'user');
      const evidence: string[] = [];
      const related = [{ at: c.at, message: `the ${c.tool} call, still running` }];
      if (own) {
        evidence.push(`this line follows its progress output on line ${own.e.progressAt.line}`);
        related.push({ at: own.e.progressAt, message: 'its progress output, which this turn follows' });
      }
      if (prompt) {
        evidence.push(`a prompt typed meanwhile, on line ${prompt.e.at.line}, follows its progress output on line ${prompt.e.progressAt.line}`);
        related.push({ at: prompt.e.at, message: 'the prompt typed while it ran' });
      }
      ctx.report({
        messageId: 'running',
        at,
        key: `running@${at.line}`,
        callId: c.callId,
        data: { callId: c.callId, tool: c.tool, callLine: c.at.line, evidence: evidence.join('; ') },
        related,
      });
    };

    /** By session: second executions of new processes, until a line shows the first one alive. */
    const suspected = new Map<string, SuspectedOverlap[]>();
    const reportExecution = (sessionId: string, at: Span, first: OpenExecution, alive: NewProcessTally['alive']): void => {
      // What the first execution was waiting on: the tool whose end showed it alive, the model
      // whose answer did, or (reported at once) its oldest pending tool.
      let pendingTool: readonly [string, { at: Span; tool: string | undefined }] | undefined;
      if (!alive) {
        pendingTool = [...first.tools.entries()][0];
      } else if (alive.callId !== undefined) {
        const tool = first.tools.get(alive.callId);
        pendingTool = tool ? [alive.callId, tool] : undefined;
      }
      const awaiting = alive?.what === 'answer' ? first.awaiting : undefined;
      let pending = '';
      if (pendingTool) {
        pending = ` with tool call ${pendingTool[0]}${pendingTool[1].tool ? ` (${pendingTool[1].tool})` : ''} still pending`;
      } else if (awaiting) {
        pending = ` with its model request (line ${awaiting.line}) still unanswered`;
      }
      const related = [{ at: first.at, message: 'the first execution starts here' }];
      if (pendingTool) {
        related.push({ at: pendingTool[1].at, message: 'the tool call still pending' });
      } else if (awaiting) {
        related.push({ at: awaiting, message: 'its request to the model' });
      }
      if (alive && !pendingTool) {
        related.push({ at: alive.at, message: alive.what === 'answer' ? 'an answer the new process never asked for: the first one was still running' : 'a tool end the new process never started: the first one was still running' });
      }
      ctx.report({
        messageId: 'amplifier',
        at,
        key: `exec@${at.line}`,
        data: { session: sessionId, firstLine: first.at.line, pending },
        related,
      });
    };

    /** Feeds the line to every tally of the session; reports the suspicions it confirms. */
    const tallyAll = (e: ExecutionEvent, open: OpenExecution | undefined): void => {
      if (open?.since && !open.since.alive) {
        open.since.alive = tally(open.since, e, open.tools);
      }
      const list = suspected.get(e.sessionId);
      if (!list) {
        return;
      }
      const left = list.filter((s) => {
        const alive = tally(s.since, e, s.first.tools);
        if (alive) {
          reportExecution(e.sessionId, s.at, s.first, alive);
        }
        return !alive;
      });
      if (left.length > 0) {
        suspected.set(e.sessionId, left);
      } else {
        suspected.delete(e.sessionId);
      }
    };

    const onExecution = (e: ExecutionEvent): void => {
      const open = executions.get(e.sessionId);
      tallyAll(e, open);
      switch (e.phase) {
        case 'process':
          if (open) {
            open.since = { requests: 0, tools: new Set(), anonymousTools: 0 };
          }
          return;
        case 'start': {
          if (open?.active) {
            if (open.since && !open.since.alive) {
              const list = suspected.get(e.sessionId) ?? [];
              list.push({ at: e.at, first: { ...open, tools: new Map(open.tools) }, since: open.since });
              suspected.set(e.sessionId, list);
            } else {
              reportExecution(e.sessionId, e.at, open, open.since?.alive);
            }
            // From here on, judge the newer execution.
            executions.set(e.sessionId, { at: e.at, active: false, tools: open.tools });
          } else if (!open) {
            executions.set(e.sessionId, { at: e.at, active: false, tools: new Map() });
          }
          return;
        }
        case 'llm-request':
          if (open) {
            open.active = true;
            open.awaiting = e.at;
          }
          return;
        case 'llm-response':
          if (open) {
            delete open.awaiting;
          }
          return;
        case 'tool-start':
          if (open) {
            open.active = true;
            if (e.callId !== undefined) {
              open.tools.set(e.callId, { at: e.at, tool: e.tool });
            }
          }
          return;
        case 'tool-end':
          if (e.callId !== undefined) {
            for (const x of executions.values()) {
              x.tools.delete(e.callId);
            }
          }
          return;
        case 'end':
          if (open && open.tools.size === 0) {
            executions.delete(e.sessionId);
          } else if (open) {
            // Ended with a tool still parked: the next start is not an overlap of this one.
            open.active = false;
          }
          return;
      }
    };

    /** The oldest call of an earlier message still without a result. */
    const pendingBefore = (index: number): CallRecord | undefined => {
      // (Over the map itself, oldest first: a copy of every pending call per question made a
      // session of many unanswered calls cost the square of their number.)
      for (const c of ctx.conversation.pending.values()) {
        if (c.message.epoch === ctx.conversation.epoch && c.message.index < index && !passed.has(c)) {
          return c;
        }
      }
      return undefined;
    };

    /**
     * A line of a Claude Code file, once added to the tree (`g`, what adding it returned). The
     * callers ask for the agent first and add the line themselves: passing the adding as a
     * closure allocated one per event, in every file of every agent.
     */
    const note = (g: BranchGrowth | undefined, at: Span, what: string, messageIndex: number, synthetic = false): void => {
      if (held.size > 0) {
        // A held fork whose older branch grew again, took a result, or turned out to be one of
        // many answers side by side: it was a second writer after all.
        for (const [older, release] of held) {
          if (!branches.branchDropped(older)) {
            held.delete(older);
            release();
          }
        }
      }
      if (!g) {
        return;
      }
      if (reportedFork && g.branch === reportedFork.branch && !g.forkedAt && what === 'assistant turn') {
        // The new branch's first assistant message is one already written: the history written
        // again (Claude Code 2.0.x resuming a session whose process died, as a sibling branch),
        // not a second execution.
        if (g.copy) {
          ctx.retract(reportedFork.key);
        }
        reportedFork = undefined;
      }
      if (g.forkedAt) {
        forked = true;
        // Claude Code's own note at a fork ("No response requested.", when it resumed a session
        // whose process died, from before the call that was running): no second execution.
        const pending = synthetic ? undefined : pendingBefore(messageIndex);
        // Within a stretch of overlap already reported (a turn written while a call ran), the
        // fork it makes in the tree is the same overlap.
        if (pending && at.line - lastOverlapLine > overlapGapLines) {
          lastOverlapLine = at.line;
          const forkAt = g.forkedAt.at;
          const report = (): void =>
            ctx.report({
              messageId: 'branch',
              at,
              key: `branch@${at.line}`,
              callId: pending.call.callId,
              data: { what, forkLine: forkAt.line, callId: pending.call.callId, tool: pending.call.tool, callLine: pending.call.at.line },
              related: [
                { at: forkAt, message: 'where the branches split' },
                { at: pending.call.at, message: 'the call still pending' },
              ],
            });
          if (g.restart && g.switchedFrom !== undefined) {
            held.set(g.switchedFrom, report);
          } else {
            reportedFork = { key: `branch@${at.line}`, branch: g.branch };
            report();
          }
        }
      }
      if (g.switchedFrom !== undefined && forked) {
        // Writes switching between the same two branches: the fork itself (1), the older
        // branch growing again (2: forked-session says so), and back again (3): by now two
        // writers are clearly appending alternately.
        const pair = `${Math.min(g.branch, g.switchedFrom)}-${Math.max(g.branch, g.switchedFrom)}`;
        const n = (switches.get(pair) ?? 0) + 1;
        switches.set(pair, n);
        if (n === 3) {
          const other = branches.firstAt(g.switchedFrom);
          ctx.report({
            messageId: 'interleaved',
            at,
            key: `interleaved@${pair}`,
            data: { otherLine: other?.line ?? 0 },
            related: other ? [{ at: other, message: 'the other branch starts here' }] : [],
          });
        }
      }
    };

    return {
      onExecution,
      onRunning(call, e) {
        if (e.by === 'progress') {
          confirm(call);
        } else {
          hungFrom.push({ call, e });
        }
      },
      onMessage(msg) {
        if (msg.role === 'assistant' && unjudged.length > 0 && ctx.agent === 'claude-code') {
          const later: CallRecord[] = [];
          for (const c of unjudged) {
            if (c.message.epoch !== msg.epoch || c.message.index >= msg.index) {
              later.push(c);
            } else if (c.results.length === 0 && c.runningAt === undefined && followsCall(branches, msg.parentUuid, c.call) && !hangsBeforeCall(branches, msg.parentUuid, c.call)) {
              passed.add(c);
            }
          }
          unjudged = later;
        }
        if (msg.role !== 'assistant' || hungFrom.length === 0) {
          return;
        }
        hungFrom = hungFrom.filter((x) => x.call.results.length === 0);
        for (const x of hungFrom) {
          if (x.call.message.epoch === msg.epoch && x.call.message.index < msg.index && !turnsWhileRunning.has(x.call)) {
            turnsWhileRunning.set(x.call, msg.at);
          }
        }
      },
      onCall(rec) {
        if (ctx.agent === 'claude-code') {
          note(branches.addCall(rec), rec.call.at, 'assistant turn', rec.message.index);
          unjudged.push(rec);
        }
      },
      onText(e, msg) {
        if (ctx.agent === 'claude-code') {
          note(branches.addText(e), e.at, e.role === 'assistant' ? 'assistant turn' : 'user prompt', msg.index, e.synthetic === true);
        }
        if (e.synthetic === true && e.role === 'assistant' && ctx.agent === 'claude-code') {
          // Claude Code's own note of a session it resumed ("No response requested."), hung on a
          // branch that leaves a pending call behind (from before the call's message): the
          // process that made the call died, and the session went on without it. The call waits
          // on nothing from here, so a later fork is no second execution beside it (2.1.143: an
          // ExitPlanMode left waiting two days, then two processes resumed the session).
          for (const c of ctx.conversation.pending.values()) {
            if (c.message.epoch === msg.epoch && c.message.index < msg.index && (!followsCall(branches, e.parentUuid, c.call) || hangsBeforeCall(branches, e.parentUuid, c.call))) {
              passed.add(c);
            }
          }
        }
      },
      onResult(rec) {
        if (rec.call && turnsWhileRunning.size > 0 && !rec.result.placeholder) {
          confirm(rec.call);
        }
        if (ctx.agent === 'claude-code') {
          note(branches.addResult(rec), rec.result.at, '', rec.message.index);
        }
      },
      onRetry(e) {
        branches.addRetry(e);
      },
      onReset() {
        branches.reset();
        hungFrom = [];
        turnsWhileRunning.clear();
        unjudged = [];
        passed.clear();
      },
    };
  },
});
