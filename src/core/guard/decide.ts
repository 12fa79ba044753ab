import { displayPath } from '../classify/paths';
import { loadedByClaudeCode } from '../engine/knowledge';
import type { AccessOp } from '../model/events';
import { clockTime, describeAuthor } from '../rules/support/author';
import {
  defaultGuardPolicy,
  type GuardDecision,
  type GuardFileState,
  type GuardHit,
  type GuardPolicy,
  type GuardRequest,
  type GuardState,
  type Verdict,
} from './types';

const writeOps: ReadonlySet<AccessOp> = new Set(['write', 'edit', 'create', 'delete']);

/**
 * The guard's judgement of one pre-tool call: pure, from what the service gathered. Every
 * objection is kept (each becomes a finding); the verdict is the strictest level among them.
 * Per path the checks run in this order: unsaved editor changes, another session's write in
 * flight, a change since the session last saw the file, a write to a file it never saw.
 * "Stale" and "never read" exclude each other.
 */
export function decide(request: GuardRequest, state: GuardState, policy: GuardPolicy = defaultGuardPolicy): Verdict {
  const hits: GuardHit[] = [];
  for (const p of request.paths) {
    if (!writeOps.has(p.op)) {
      continue;
    }
    const f = state.files.find((x) => x.path === p.path);
    if (!f) {
      continue;
    }
    const add = (decision: GuardDecision, reason: string): void => {
      const level = policy[decision];
      if (level !== 'off') {
        hits.push({ decision, action: level, path: p.path, reason });
      }
    };
    const name = displayPath(p.path, request.cwd);
    const redo = redoPhrase(p.op);
    if (f.dirty) {
      add(
        'dirty-buffer',
        `${name} has unsaved changes in the editor: writing it now would conflict with them. Ask the user to save or discard them, then read ${name} again and ${redo}.`,
      );
    }
    const other = f.inflight[0];
    if (other) {
      add(
        'concurrent-write',
        `${other.bySubAgent ? `Your sub-agent (${subAgentName({ session: other.label })})` : `Another session (${other.label})`} is writing ${name} right now (since ${clockTime(other.since)}). Wait until it is done, read ${name} again, then ${redo}.`,
      );
    }
    const stale = staleness(f);
    if (stale) {
      const seen = f.seen!.how === 'read' ? 'read' : 'wrote';
      const who = stale.by ? `by ${stale.bySubAgent && stale.by.kind === 'session' ? `your sub-agent (${subAgentName(stale.by)})` : describeAuthor(stale.by)} at ${clockTime(stale.at)}` : 'by a writer the guard did not see';
      const more = stale.count > 1 ? `, after ${stale.count - 1} earlier change${stale.count > 2 ? 's' : ''}` : '';
      add(
        'stale-write',
        f.current === null
          ? `${name} was deleted after you last ${seen} it (${who}${more}). Check whether it should still exist, then ${redo}.`
          : `${name} changed on disk after you last ${seen} it (${who}${more}). Read it again, then ${redo}.`,
      );
    } else if (!f.seen && f.current !== null && p.op !== 'delete' && !(request.agent === 'claude' && loadedByClaudeCode(p.path, request.cwd))) {
      add('unread-write', `${name} already exists and you have not read it in this session. Read it first, then ${redo}.`);
    }
  }
  const deny = hits.filter((h) => h.action === 'deny');
  const top = deny.length > 0 ? deny : hits;
  if (top.length === 0) {
    return { action: 'allow', reason: '', hits };
  }
  return {
    action: deny.length > 0 ? 'deny' : 'warn',
    decision: top[0]!.decision,
    reason: top.map((h) => h.reason).join(' '),
    hits,
  };
}

/**
 * Did the file change behind the session's back since it last saw it? Content decides:
 * the same bytes as seen is fresh whatever happened in between (changed and changed back).
 * Different bytes are stale when someone else changed the file, or when the change was
 * never observed at all; different bytes that only the session's own writes explain are
 * its own work (its write landed before the transcript or hook said so).
 */
function staleness(f: GuardFileState): { by: GuardFileState['changes'][number]['by'] | undefined; bySubAgent?: boolean; at: number; count: number } | undefined {
  const seen = f.seen;
  if (!seen) {
    return undefined;
  }
  if (seen.hash !== undefined && f.current === seen.hash) {
    return undefined;
  }
  const foreign = f.changes.filter((c) => !c.mine);
  const last = foreign[foreign.length - 1];
  if (last) {
    return { by: last.by, ...(last.bySubAgent ? { bySubAgent: true } : {}), at: last.at, count: foreign.length };
  }
  if (seen.hash !== undefined && f.changes.length === 0) {
    return { by: undefined, at: seen.at, count: 1 };
  }
  return undefined;
}

function redoPhrase(op: AccessOp): string {
  switch (op) {
    case 'edit':
      return 'redo the edit';
    case 'delete':
      return 'decide again whether to delete it';
    default:
      return 'redo the write';
  }
}

/**
 * A sub-agent's name as the model knows it: its own id (`<session>/agent-<id>`: the part after the
 * slash). Without an id, the change is known only by its transcript's path (on Windows with
 * backslashes): its file name without `.jsonl`, as describeAuthor names another session's.
 */
function subAgentName(by: { session: string; sessionId?: string | undefined }): string {
  const id = by.sessionId ?? by.session.replace(/\.jsonl$/, '');
  return id.slice(Math.max(id.lastIndexOf('/'), id.lastIndexOf('\\')) + 1);
}
