import type { AgentKind } from '../model/agent';
import type {
  CallRunningEvent,
  ExecutionEvent,
  MalformedEvent,
  RequestRetriedEvent,
  ResetEvent,
  SessionInfo,
  Span,
  TextEvent,
} from '../model/events';
import type { FindingSubject, Severity } from '../model/finding';
import type { CallRecord, Conversation, MessageRecord, ResultRecord } from './conversation';
import type { FileKnowledge } from './knowledge';

export interface RuleMeta {
  /** Equals the rule's file name (kebab-case). */
  id: string;
  type: 'problem' | 'suggestion';
  defaultSeverity: Severity;
  docs: { description: string; url: string };
  /** Message templates; `{{name}}` is replaced from the report's `data`. */
  messages: Record<string, string>;
  /**
   * 'stream' rules judge one transcript from its own lines (they run in `check`).
   * 'live' rules also need the clock or state outside the transcript (the working tree,
   * hook records) and only judge what they can see.
   */
  scope: 'stream' | 'live';
}

export interface RelatedSpan {
  at: Span;
  message: string;
  /** Another file (a workspace file, another transcript); default: this transcript. */
  file?: string;
}

export interface ReportDescriptor {
  messageId: string;
  data?: Record<string, string | number>;
  at: Span;
  /** Identity of the problem within this file; repeated reports with one key are dropped. Default: line + messageId. */
  key?: string;
  related?: RelatedSpan[];
  subject?: FindingSubject;
  callId?: string;
  /** One level below the configured severity (e.g. a call unanswered at the end of a file still being written). */
  demote?: boolean;
  /** Overrides the configured severity (never above it) for findings whose gravity depends on the data. */
  severity?: Severity;
  /** See Finding.changedBetween. */
  changedBetween?: { seenLine: number; writeLine: number };
}

/** A rule's view of one transcript stream. */
export interface RuleContext {
  readonly file: string;
  readonly agent: AgentKind | 'unknown';
  readonly sessionId: string;
  readonly session: SessionInfo | undefined;
  readonly conversation: Conversation;
  readonly knowledge: FileKnowledge;
  /** 'batch' = check of a finished file; 'live' = tailing a file that may still grow. */
  readonly mode: 'batch' | 'live';
  readonly options: Readonly<Record<string, unknown>>;
  now(): number;
  report(d: ReportDescriptor): void;
  /** Withdraws a finding this rule reported with `key` (e.g. a stalled call that got its result). */
  retract(key: string): void;
  /** Services the host provides to live rules (hook records, the working tree); absent in `check`. */
  readonly services: RuleServices;
}

/** Optional hooks into state outside the transcript; every member may be absent. */
export interface RuleServices {
  /** The guard hook's record of approved calls for this session, when hooks are installed. */
  hookLedger?: HookLedgerView;
  /** The working tree as the live monitor sees it (absent in `check`). */
  workTree?: WorkTreeView;
}

/** Who changed a file: a session (by its transcript), the user (an editor save), or nobody known. */
export type ChangeAuthor =
  | { kind: 'session'; session: string; sessionId?: string; line?: number }
  | { kind: 'user' }
  | { kind: 'unknown' };

export interface ForeignChangeVerdict {
  by: ChangeAuthor;
  /** Wall-clock ms of the (latest) foreign change. */
  at: number;
  /** Wall-clock ms when the session last saw the file. */
  seenAt: number;
  changes: number;
  /**
   * The latest change by each other session among them (a later save by the user does not
   * hide that another session wrote the file first), oldest first.
   */
  sessions?: { by: Extract<ChangeAuthor, { kind: 'session' }>; at: number }[];
}

export interface WorkTreeView {
  /** Sessions are keyed by their transcript file. */
  judgeWrite(session: string, path: string, callId: string): ForeignChangeVerdict | undefined;
}

export interface HookLedgerView {
  /** The hook saw at least one call of this session: the binding rules apply. */
  covers(sessionId: string): boolean;
  lookup(sessionId: string, callId: string): { tool: string; inputHash: string; at: number } | undefined;
  /** Did the hook see any call of this tool in this session (is the tool gated by the hook)? */
  sawTool?(sessionId: string, tool: string): boolean;
  /** For hooks that name no call id (Gemini): did the hook approve a call with this input? */
  sawInput?(sessionId: string, inputHash: string): boolean;
  /**
   * Did a guard service answer the hooks over all of [from, to] (epoch ms)? A call made while
   * none did was never recorded (the hook records nothing then), so its absence is no sign.
   */
  servedThrough?(from: number, to: number): boolean;
  /**
   * The guard's objections (deny or warn) to one call of this session, matched by call id,
   * else (hooks that name no call id: Gemini) by input hash, each record to one call only.
   * Absent where no guard runs (`check`).
   */
  decisionsFor?(session: { sessionId: string; transcript: string }, call: { callId: string; tool: string; inputHash?: string }): readonly GuardDecisionRecord[];
  /**
   * Every objection the guard made to a call of one transcript (the hook named it), with the
   * call it is about: the hook's call id, else the transcript call an id-less one was matched to
   * (none yet: undefined). The guard service reports one whose call the transcript does not
   * hold on a line of its own; a read of the transcript from its start reports it again from here.
   */
  decisionsIn?(transcript: string): readonly FiledGuardDecision[];
}

/** One objection of the guard, filed under the transcript of the call it was about. */
export interface FiledGuardDecision {
  record: GuardDecisionRecord;
  callId: string | undefined;
}

/** One objection of the guard to one path of a call, as the guard rule reports it. */
export interface GuardDecisionRecord {
  /** Stable per call, path and decision: the finding's key, so a re-report updates it in place. */
  key: string;
  decision: string;
  action: 'deny' | 'warn';
  tool: string;
  path: string;
  /** What the model was told. */
  reason: string;
  at: number;
}

export interface RuleListener {
  onSession?(e: SessionInfo): void;
  /** A new API message opened; `previous` is the message before it, if any. */
  onMessage?(msg: MessageRecord, previous: MessageRecord | undefined): void;
  onText?(e: TextEvent, msg: MessageRecord): void;
  onCall?(call: CallRecord): void;
  onResult?(result: ResultRecord): void;
  onReset?(e: ResetEvent): void;
  onTurnEnd?(at: Span, aborted: boolean): void;
  onMalformed?(e: MalformedEvent): void;
  onExecution?(e: ExecutionEvent): void;
  /** A sign that this call, still without a result, is running (`CallRunningEvent`). */
  onRunning?(call: CallRecord, e: CallRunningEvent): void;
  /** A request the agent could not send, sent again (`RequestRetriedEvent`). */
  onRetry?(e: RequestRetriedEvent): void;
  /** End of a finished file (check only). */
  onEnd?(): void;
  /** Live only: time passed (for rules that judge by elapsed time). */
  onTick?(now: number): void;
}

export interface RuleModule {
  meta: RuleMeta;
  create(context: RuleContext): RuleListener;
}

export function defineRule(rule: RuleModule): RuleModule {
  return rule;
}
