import type { ChangeAuthor } from '../engine/rule';
import type { AccessOp } from '../model/events';

/**
 * The agents whose hooks call the guard. Copilot agent mode in VS Code runs the hooks in
 * `.claude/settings*.json` with Claude Code's payload and answer shapes, but its own tool
 * names (`editFiles`, …) and camelCase common fields (HOOKS-AND-VSCODE.md §3.5).
 */
export const hookAgents = ['claude', 'copilot', 'gemini', 'codex'] as const;
export type HookAgent = (typeof hookAgents)[number];

/** What the guard can object to in a write; each can be set to deny, warn or off. */
export const guardDecisions = ['stale-write', 'dirty-buffer', 'unread-write', 'concurrent-write'] as const;
export type GuardDecision = (typeof guardDecisions)[number];

export type GuardLevel = 'deny' | 'warn' | 'off';
export const guardLevels: readonly GuardLevel[] = ['deny', 'warn', 'off'];

export type GuardPolicy = Readonly<Record<GuardDecision, GuardLevel>>;

export const defaultGuardPolicy: GuardPolicy = {
  'stale-write': 'deny',
  'dirty-buffer': 'deny',
  'unread-write': 'deny',
  'concurrent-write': 'deny',
};

/** One file a tool call touches, absolute. */
export interface GuardPath {
  path: string;
  op: AccessOp;
}

/** "May session S write these paths now?" — what the hook asks, agent-neutral. */
export interface GuardRequest {
  agent: HookAgent;
  sessionId: string;
  transcriptPath?: string;
  cwd: string;
  tool: string;
  paths: readonly GuardPath[];
  toolUseId?: string;
  inputHash?: string;
}

/** One objection to one path. `reason` is written for the model: it says what to do next. */
export interface GuardHit {
  decision: GuardDecision;
  action: 'deny' | 'warn';
  path: string;
  reason: string;
}

export interface Verdict {
  action: 'allow' | 'warn' | 'deny';
  /** The decision behind the action (the first hit at that level); absent for allow. */
  decision?: GuardDecision;
  /** The reasons of every hit at the verdict's level, joined; empty for allow. */
  reason: string;
  /** Every objection, deny and warn alike (each becomes a finding). */
  hits: GuardHit[];
}

/** A change of the file after the session last saw it, oldest first. */
export interface ObservedChange {
  at: number;
  by: ChangeAuthor;
  /** This session made it (its own write, observed on disk). */
  mine: boolean;
  /** One of this session's sub-agents made it: the model is told so, not "another session". */
  bySubAgent?: boolean;
  /** sha256 of the new content; null = deleted. */
  hash: string | null;
}

/** Another session's write to the path that was allowed (or is in its transcript) and has not ended. */
export interface WriteInFlight {
  /** How to name the other session to the model: its id, else its transcript's name. */
  label: string;
  since: number;
  /** One of this session's sub-agents is writing: the model is told so, not "another session". */
  bySubAgent?: boolean;
}

/** Everything the guard knows about one target path at decision time. */
export interface GuardFileState {
  path: string;
  /** sha256 of the file on disk now; null when it does not exist. */
  current: string | null;
  /**
   * What this session last saw of the file (by reading or by writing it), from its hooks or
   * its transcript, whichever is newer. `hash` undefined: the transcript says it saw the file
   * but not what it held (the file was not tracked yet).
   */
  seen?: { at: number; hash: string | null | undefined; how: 'read' | 'write' };
  /** Changes of the file observed after `seen.at`, oldest first (empty when never seen). */
  changes: readonly ObservedChange[];
  /** The file has unsaved changes in an editor. */
  dirty: boolean;
  /** Other sessions' writes to the file in flight (not expired). */
  inflight: readonly WriteInFlight[];
}

export interface GuardState {
  files: readonly GuardFileState[];
}
