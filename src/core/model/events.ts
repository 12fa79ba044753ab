import type { AgentKind } from './agent';

/**
 * Where something sits in a transcript: 1-based line, and a 0-based [start, end) range of
 * UTF-16 code units inside that line (what VS Code's `Position.character` counts).
 * start = end = 0 when nothing narrower than the line is known.
 */
export interface Span {
  line: number;
  start: number;
  end: number;
}

export type Role = 'user' | 'assistant';

/** What a tool does, as far as files are concerned. */
export type ToolCategory = 'read' | 'write' | 'edit' | 'exec' | 'other';

export type AccessOp = 'read' | 'write' | 'edit' | 'create' | 'delete';

/** The operations that change a file (every one but `read`). */
export const writeOps: ReadonlySet<AccessOp> = new Set(['write', 'edit', 'create', 'delete']);

/** One file a tool call touches. Paths are absolute and normalised against the session's cwd. */
export interface FileAccess {
  path: string;
  op: AccessOp;
  /** Where the path string sits in the call's line, when it appears there literally. */
  span?: Span;
  /** A read of part of a file: 1-based first line and line count. */
  lines?: { start: number; count: number };
  /** The transcript proves the file existed before this call (an edit, an update patch). */
  existed?: boolean;
  /** Recognised from a shell command rather than a file tool (less certain). */
  viaShell?: boolean;
  /**
   * Written by a formatter or fixer the command ran (`ruff check --fix`, `prettier --write`):
   * such tools exit non-zero after writing when problems are left, so a failed call may have
   * written the file all the same.
   */
  fixer?: true;
  /**
   * A shell append (`>>`): what the command wrote went after what the file held, whatever that
   * was, rather than replacing it.
   */
  append?: true;
  /**
   * Written by a package manager saving a dependency (`pnpm add x`, `npm install x`): it read
   * package.json when it ran and wrote it back with the one entry changed, so what an earlier
   * write had put there stays, as after an append.
   */
  amend?: true;
  /**
   * `path` is a shell pathname pattern, made absolute (`/w/src/*.json`; a quoted wildcard is
   * escaped with a backslash), or a Windows one, which has no escapes (`C:\w\src\*.lua`, see
   * shellPattern): the call read every file it matched then, whichever they were.
   */
  glob?: boolean;
  /**
   * A shell command ran after this one's command (`cat a.ts && rg x`, `cat a.ts; make`,
   * `cat a.ts | head`): when the call fails, the failure may be that later command's, and this
   * access may well have happened.
   */
  followed?: boolean;
  /** A move (`mv`, `git mv`) wrote `path`: the path it moved, whose file (or folder) it now is. */
  from?: string;
}

export interface SessionInfo {
  kind: 'session';
  at: Span;
  agent: AgentKind;
  sessionId?: string;
  cwd?: string;
  title?: string;
  startedAt?: string;
  parentSessionId?: string;
}

/**
 * Content of the API-visible conversation. The engine opens a new message when the role
 * changes, or when an assistant event names a message key different from the current one.
 */
export interface TextEvent {
  kind: 'text';
  at: Span;
  role: Role;
  /** A user turn typed or sent by a person (as opposed to meta or tool chatter). */
  prompt: boolean;
  messageKey?: string;
  timestamp?: string;
  /** The first characters of the text, for titles and the timeline (never the whole prompt). */
  preview?: string;
  /**
   * User text that came in the same record as tool results: a message the person typed while
   * the tools ran, which the agent delivers along with the results. Part of the results'
   * message, not a turn: it does not close the window for the results still to come.
   */
  attached?: boolean;
  /**
   * User text whose agent, when it sends this text and tool results in one message, puts the
   * results first: Claude Code 2.0.19 and later merges consecutive user messages into one and
   * moves its `tool_result` blocks to the front (the API refuses a message that follows calls
   * and does not begin with their results). A result written after such text is still in its
   * place, and the text is no turn that left the calls unanswered: the next assistant turn is.
   */
  resultsFirst?: true;
  /**
   * Files a person named with `@` in a prompt (absolute paths). Claude Code puts their content
   * before the model and counts them as read, without a Read call in the transcript.
   */
  mentions?: string[];
  /** Claude Code chain fields, for the branch rules. */
  uuid?: string;
  parentUuid?: string | null;
  /** The model that wrote this assistant text, where the transcript names it (Claude Code's `message.model`). */
  model?: string;
  /**
   * Claude Code wrote this assistant text itself (model `<synthetic>`: "No response requested."
   * when it resumes a session whose process died, an API error it reports), not the model.
   */
  synthetic?: true;
  /**
   * Claude Code's "No response requested.": it wrote this reply itself without sending a
   * request (a resumed session, nothing to ask). What it holds reached no provider yet.
   */
  unsent?: true;
}

export interface ToolCall {
  kind: 'call';
  at: Span;
  callId: string;
  tool: string;
  category: ToolCategory;
  accesses: FileAccess[];
  /**
   * Directories whose files the call may rewrite, which ones unknown (`git checkout main`,
   * `git pull`, `git stash`): what the session knew of any file in them is no longer sure.
   */
  rewrites?: string[];
  /**
   * The agent ran this call only after the calls before it in its batch had finished (Gemini
   * CLI's builds that ran a batch one call at a time, or a call the model marked
   * `wait_for_previous`).
   */
  inOrder?: true;
  /**
   * The agent ran this call by itself: after the calls before it in its batch had finished, and
   * before any after it started (Gemini CLI's `write_file` and `replace` since 0.48).
   */
  alone?: true;
  messageKey?: string;
  timestamp?: string;
  /** The model that made the call, where the transcript names it (Claude Code's `message.model`). */
  model?: string;
  /** sha256 of the canonical JSON of the call's input (for the hook-bound rules). */
  inputHash?: string;
  uuid?: string;
  parentUuid?: string | null;
}

/** What a read returned, when the agent records it. */
export interface ReadSnapshot {
  path: string;
  content: string;
  /** 1-based */
  startLine: number;
  numLines: number;
  totalLines: number;
}

/** What a write replaced, when the agent records it (Claude Code's `originalFile`). */
export interface WriteSnapshot {
  path: string;
  type: 'create' | 'update';
  /** The whole file before the write; null when it did not exist. */
  before: string | null;
  /** The whole file after the write, when it can be known exactly. */
  after?: string;
  /** 1-based line ranges of `before` the write replaced. */
  replaced: { start: number; count: number }[];
  /**
   * The call wrote the whole file (Claude Code's `Write`): `replaced` is every line of `before`,
   * and `after` (always set then) says which of them it wrote back as they were.
   */
  whole?: true;
  /**
   * 1-based line ranges of `before` the call's own input quoted verbatim (an edit's `old_string`,
   * which must match exactly for the edit to apply): the session stated them as they were.
   */
  quoted?: { start: number; count: number }[];
  /**
   * The session had been shown all of `before`, verbatim, in what an earlier read of another
   * file returned (Gemini CLI: the script that made the file from a template it holds): it knew
   * what the write replaced, though it never read the file itself.
   */
  shown?: true;
}

export interface ToolResult {
  kind: 'result';
  at: Span;
  callId: string;
  isError: boolean;
  /**
   * The call never ran: the person refused it, a hook blocked it, or the tool rejected its
   * input. (Absent when unknown: a failed call may have run, or run in part.)
   */
  refused?: true;
  /** A synthetic result written by a repair step, not the tool's real output. */
  placeholder: boolean;
  /** Tool name the result names itself, where the format records one. */
  tool?: string;
  /** File the result's own metadata names, where the format records one. */
  filePath?: string;
  /** Shape of the result's metadata, e.g. 'read' for Claude's `{file:{…}}`. */
  shape?: 'read' | 'edit' | 'write' | 'shell' | 'other';
  /**
   * What the result shows of the file. Both are whole files: they are there while the event is
   * handled (rules, observers) and dropped after it (TranscriptStream), so a result kept in the
   * conversation has neither.
   */
  read?: ReadSnapshot | undefined;
  write?: WriteSnapshot | undefined;
  /**
   * A file the tool wrote that its call did not name, with the content the session gave it
   * (Claude Code's `Workflow` saves the script it was passed and says where only in its result).
   * Dropped after the event is handled, like the snapshots.
   */
  saved?: { path: string; content: string } | undefined;
  timestamp?: string;
  uuid?: string;
  parentUuid?: string | null;
}

/** The API-visible history restarts (compaction, a Gemini checkpoint or rewind). */
export interface ResetEvent {
  kind: 'reset';
  at: Span;
  /**
   * `restart`: Claude Code began a new `parentUuid` tree (a root line after the model had spoken),
   * writing the history again from its start. `partway`: the file starts partway through a
   * session (its first record hangs from one the file does not hold, or, Codex 0.171, it is a
   * forked thread's file whose session_meta names its `history_base`), its history before that
   * kept elsewhere (always with `elsewhere`).
   */
  reason: 'compaction' | 'rewind' | 'replace' | 'restart' | 'partway';
  /**
   * The history before the reset is in another file (Claude Code's compaction helper copies a
   * session from its last compaction on): what the session knew before is not here.
   */
  elsewhere?: true;
  /**
   * The line the history continues from (Claude Code's `logicalParentUuid` on a
   * `compact_boundary`): the branch of the `parentUuid` tree this reset cut. Two executions of
   * one session each compact their own branch.
   */
  continues?: string;
}

export type MalformedReason =
  | 'invalid-json'
  /** Several JSON records on one line, with no newline between them: each was still read. */
  | 'concatenated'
  | 'invalid-utf8'
  | 'not-an-object'
  | 'invalid-shape'
  | 'line-too-long'
  | 'truncated'
  | 'no-session-meta'
  | 'unknown-format'
  /**
   * Reading the line failed inside agent-guard (an adapter, or the engine behind it, threw): a
   * bug of ours, not of the transcript. Reported as `internal-error`, not by the rules.
   */
  | 'internal';

export interface MalformedEvent {
  kind: 'malformed';
  at: Span;
  reason: MalformedReason;
  detail: string;
  /** A truncated last line at end of input: the writer may still be writing it. */
  atEnd?: boolean;
  /**
   * Live only, a 'truncated' line: the last line of a transcript quiet for a while, still
   * without its newline (see TranscriptStream.settle). 'report': said now as `check` says it at
   * the end of the file; 'withdraw': more of the line came, and what was said is taken back (it
   * is judged again once the file is quiet again). Either way no record was lost (yet), and the
   * line is read as any other once its newline comes.
   */
  provisional?: 'report' | 'withdraw';
  /** The file is one JSON document (Gemini CLI's legacy session) that does not parse: nothing in it was read. */
  document?: boolean;
}

/** Amplifier `events.jsonl` and other execution lifecycle markers. */
export interface ExecutionEvent {
  kind: 'execution';
  at: Span;
  /**
   * 'tool-start'/'tool-end': a tool call inside the execution (`tool:pre`/`tool:post`);
   * 'llm-request'/'llm-response': a call to the model and its answer, which one process writes
   * only after its request;
   * 'process': a process took the session up (`session:start`, `session:resume`), which an
   * earlier one may or may not still be running.
   */
  phase: 'start' | 'llm-request' | 'llm-response' | 'tool-start' | 'tool-end' | 'end' | 'process';
  sessionId: string;
  timestamp?: string;
  callId?: string;
  tool?: string;
}

/** The agent closed a turn (Codex `task_complete` / `turn_aborted`): unanswered calls stay unanswered. */
export interface TurnEndEvent {
  kind: 'turn-end';
  at: Span;
  aborted: boolean;
}

/**
 * Parts of a file the agent showed the model without a tool call: Claude Code tells the model
 * about a file that changed under it (a formatter, the user) with numbered lines of it
 * (`attachment` `edited_text_file`). Each view is lines as they were then, from `start` (1-based).
 */
export interface FileShownEvent {
  kind: 'file-shown';
  at: Span;
  path: string;
  views: { start: number; lines: string[] }[];
  /**
   * Lines a search printed (Claude Code's Grep with line numbers): they show the session saw
   * those lines as they were then, but are not a read of the file (write-before-read still
   * wants one, or `searched`), and output may be cut short.
   */
  glimpse?: boolean;
  /**
   * The search was of this file alone (a Grep whose path is the file): as a shell `grep PAT
   * file` is, it counts as having looked at the file for write-before-read.
   */
  searched?: true;
}

/**
 * Signs that a tool call with no result yet was still running. Claude Code hangs each record
 * from the line written just before it; when that line is `progress` output of the call, the
 * record (a prompt typed meanwhile, or an assistant turn of another message) was written while
 * the call ran — or after the call died without a result, which only what comes next tells:
 * more progress output of the call (`by: 'progress'`, sent once a record has hung from it) or
 * its result. Emitted before the record's own events.
 */
export interface CallRunningEvent {
  kind: 'call-running';
  /** The record that hangs from the progress line; for `progress`, the progress line itself. */
  at: Span;
  callId: string;
  by: Role | 'progress';
  /** The progress line the record hangs from (for `progress`, the line itself). */
  progressAt: Span;
}

/**
 * The agent put a file in front of the model without a tool call (Claude Code, after a
 * compaction: an `attachment` of type `file` with the content it showed, or a
 * `compact_file_reference`, a file read before the compaction whose content the transcript
 * does not hold). With `read`, a read of that content; without, the file was seen as it was.
 */
export interface FileAttachedEvent {
  kind: 'file-attached';
  at: Span;
  path: string;
  read?: ReadSnapshot;
}

/**
 * Claude Code's own note that a hook changed a file after the session's call (2.1.332's
 * `hook_additional_context` attachment: "PostToolUse hook modified <path> after your edit
 * (likely a formatter)"). It names the writer of a change the session did not see; it does
 * not show the change.
 */
export interface FileChangedByHookEvent {
  kind: 'file-changed-by-hook';
  at: Span;
  path: string;
  /** The hook, as Claude Code names it: `PostToolUse:Edit`. */
  hook: string;
}

/**
 * The session created a file that no call's input names (Codex `patch_apply_end` of a patch a
 * code-mode script built at run time; a scaffolding script that names the file it made only in its
 * output): the session wrote it, with this content when the transcript holds it.
 */
export interface FileCreatedEvent {
  kind: 'file-created';
  at: Span;
  path: string;
  content?: string;
}

/**
 * The session moved into a git worktree of its repository (Claude Code's `EnterWorktree`,
 * recorded as a `worktree-state` record). The worktree holds a checkout of the files the session
 * knew under `from`, at the same place under `to`: it has seen them, though not necessarily as
 * the worktree's branch has them.
 */
export interface WorktreeEnteredEvent {
  kind: 'worktree-entered';
  at: Span;
  /** The session's folder before (`originalCwd`): the repository's root or a folder inside it. */
  from: string;
  /** The worktree's root. */
  to: string;
}

/**
 * Paths under `from` and under `to` name the same files, for the rest of the session (Claude
 * Desktop's local-agent VM shows the host folder `to` as `from`; Claude Code's file history
 * names the real folder `to` of a file the session reached through a symbolic link `from`):
 * what the session knew under `from` holds under `to`, and so does what it learns there later.
 */
export interface PathsAliasedEvent {
  kind: 'paths-aliased';
  at: Span;
  from: string;
  to: string;
}

/**
 * A record of the conversation hangs from one the file does not hold, past the file's start, not
 * even a few lines later: records were lost in between (Claude Code 2.1.4x whose stream failed
 * carried out the non-streaming fallback's answer and never wrote it; 2.1.49 dropped an `Edit`
 * and its result before a compaction). What the session did there, its own reads and writes
 * among it, is not in the transcript.
 */
export interface HistoryGapEvent {
  kind: 'history-gap';
  at: Span;
}

/**
 * Claude Code could not send a request and sends it again (its `system` record of subtype
 * `api_error`, with the attempt and the wait). `parentUuid` is the last record of the history
 * sent (past chain-only lines): an assistant message hung from that same record before it is the
 * answer whose stream failed, cut short, which the retry's answer replaces.
 */
export interface RequestRetriedEvent {
  kind: 'request-retried';
  at: Span;
  parentUuid: string;
}

/**
 * A result at the start of the file that answers another session's call, which the conversation
 * never sends: Claude Code's plan mode, when the person approves the plan and clears the context,
 * writes the old session's `ExitPlanMode` result first in the new session's file (hung from the
 * call, in the old file), then starts the conversation from a root. Only `check` pairs it with
 * that call, across the files it checks (see acrossFiles.ts).
 */
export interface ForeignResultEvent {
  kind: 'foreign-result';
  at: Span;
  callId: string;
}

export type NormalizedEvent =
  | FileChangedByHookEvent
  | ForeignResultEvent
  | RequestRetriedEvent
  | HistoryGapEvent
  | PathsAliasedEvent
  | WorktreeEnteredEvent
  | FileCreatedEvent
  | FileAttachedEvent
  | CallRunningEvent
  | FileShownEvent
  | TurnEndEvent
  | SessionInfo
  | TextEvent
  | ToolCall
  | ToolResult
  | ResetEvent
  | MalformedEvent
  | ExecutionEvent;
