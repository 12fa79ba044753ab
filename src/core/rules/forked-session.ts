import { defineRule } from '../engine/rule';
import type { Span } from '../model/events';
import { type BranchGrowth, sharedBranchTracker } from './support/branches';
import { docsUrl } from './support/docs';

export const forkedSession = defineRule({
  meta: {
    id: 'forked-session',
    type: 'problem',
    defaultSeverity: 'warning',
    scope: 'stream',
    docs: {
      description: "A Claude Code transcript whose parentUuid chain splits into two branches that both keep growing (not a rewind the user chose and left).",
      url: docsUrl('forked-session'),
    },
    messages: {
      forked:
        'This session forked at line {{forkLine}}: the branch that started on line {{newLine}} and the older one both keep growing (this line continues the older one). Two writers are appending to one transcript; on resume Claude Code follows one branch and the other\u2019s results are lost.',
    },
  },
  create(ctx) {
    // The same lines as overlapping-executions feeds it: one tracker for both.
    const branches = sharedBranchTracker(ctx.conversation);
    /** Branches created by a fork, with where they forked, until the older branch grows again. */
    const forks = new Map<number, { from: number; forkAt: Span; firstAt: Span }>();
    let reported = false;
    /**
     * Is the line worth adding to the tree? Asked before the line is added (not by passing the
     * adding as a closure: a closure per event, in every file of every agent).
     */
    const listening = (): boolean => ctx.agent === 'claude-code' && !reported;
    const note = (g: BranchGrowth | undefined, at: Span): void => {
      if (!g) {
        return;
      }
      if (g.forkedAt && g.switchedFrom !== undefined) {
        forks.set(g.branch, { from: g.switchedFrom, forkAt: g.forkedAt.at, firstAt: at });
        return;
      }
      // The older branch grew after the fork: both are live. (A rewind leaves the old one dead.)
      for (const [newer, f] of forks) {
        if (f.from === g.branch && g.switchedFrom === newer) {
          reported = true;
          ctx.report({
            messageId: 'forked',
            at,
            key: `fork@${f.forkAt.line}`,
            data: { forkLine: f.forkAt.line, newLine: f.firstAt.line },
            related: [
              { at: f.forkAt, message: 'the entry both branches continue' },
              { at: f.firstAt, message: 'the first entry of the newer branch' },
            ],
          });
          return;
        }
      }
    };
    return {
      onCall(rec) {
        if (listening()) {
          note(branches.addCall(rec), rec.call.at);
        }
      },
      onText(e) {
        if (listening()) {
          note(branches.addText(e), e.at);
        }
      },
      onResult(rec) {
        if (listening()) {
          note(branches.addResult(rec), rec.result.at);
        }
      },
      onRetry(e) {
        branches.addRetry(e);
      },
      onReset() {
        branches.reset();
      },
    };
  },
});
