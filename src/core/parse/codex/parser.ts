import { type Classification, type SessionContext, classifyToolCall, hasToolSpec, isRecord } from '../../classify/tools';
import { homeOf, resolveAgainst } from '../../classify/paths';
import { inputHash } from '../../lib/hash';
import type { FileAccess, Span } from '../../model/events';
import type { AdapterContext, FormatAdapter, FormatParser } from '../adapter';
import type { RawLine } from '../lineSplitter';
import { isPlaceholderText, resultText } from '../placeholder';
import { lineSpan, preview, valueSpan } from '../span';
import {
  callOutputSchema,
  customToolCallSchema,
  eventMsgSchema,
  functionCallSchema,
  localShellCallSchema,
  messageItemSchema,
  responseItemSchema,
  legacyMetaSchema,
  rolloutLineSchema,
  sessionMetaSchema,
  turnContextSchema,
} from './schema';
import { guardOf } from '../guard';

// The compiled guards, once: a line costs the checks alone (no lookup, no result object).
// Each is exactly its schema's safeParse(...).success (test/unit/core/guard.test.ts).
const isRolloutLine = guardOf(rolloutLineSchema);
const isLegacyMeta = guardOf(legacyMetaSchema);
const isSessionMeta = guardOf(sessionMetaSchema);
const isTurnContext = guardOf(turnContextSchema);
const isEventMsg = guardOf(eventMsgSchema);
const isResponseItem = guardOf(responseItemSchema);
const isMessageItem = guardOf(messageItemSchema);
const isFunctionCall = guardOf(functionCallSchema);
const isCustomToolCall = guardOf(customToolCallSchema);
const isLocalShellCall = guardOf(localShellCallSchema);
const isCallOutput = guardOf(callOutputSchema);

/** The response items a legacy rollout writes bare, one per line. */
const legacyItemTypes = new Set(['message', 'reasoning', 'function_call', 'function_call_output', 'local_shell_call', 'custom_tool_call', 'custom_tool_call_output', 'web_search_call']);

/** `{id, timestamp, instructions, …}` with no `type`: the first line of a legacy rollout. */
function isLegacyFirstLine(v: Record<string, unknown>): boolean {
  return v['type'] === undefined && typeof v['id'] === 'string' && typeof v['timestamp'] === 'string' && 'instructions' in v;
}

const rolloutTypes = new Set([
  'session_meta',
  'response_item',
  'event_msg',
  'turn_context',
  'compacted',
  'inter_agent_communication',
  'world_state',
  'rollout_reference',
]);

/**
 * Injected context Codex sends as user messages; not something a person typed. The project's
 * AGENTS.md comes as "# AGENTS.md instructions for <folder>" (0.4x to 1.19 at least): taken for a
 * prompt, it became the session's title in the sessions view.
 */
const injectedUserText = /^\s*(<(environment_context|user_instructions|permissions instructions|user_shell_command|turn_aborted)|# AGENTS\.md instructions for )/;
/**
 * Codex's own warning, written as a user message when the model ran `apply_patch` through a
 * shell tool: Codex intercepts the command, writes this note, then the call's output. Like a
 * developer message, it is not a turn (real rollouts go on with the next request, which the
 * API took).
 */
const codexUserNote = /^Warning: apply_patch was requested via \w+/;
/**
 * The IDE extension's context before a prompt: the active file, and the lines selected in it,
 * shown to the model (`## Active selection of the file:` then the text). The file named alone,
 * or among the open tabs, was not shown.
 */
const ideSelection = /^# Context from my IDE setup:\s*\n## Active file: ([^\n]+)\n+## Active selection of the file:\n(?!\s*(?:## |$))/;

export const codexAdapter: FormatAdapter = {
  agent: 'codex',
  sniff(v) {
    return (typeof v['type'] === 'string' && rolloutTypes.has(v['type']) && 'payload' in v) || isLegacyFirstLine(v);
  },
  claimsPath(p) {
    return /[\\/]rollout-[^\\/]*\.jsonl$/.test(p);
  },
  create(ctx) {
    return new CodexParser(ctx);
  },
};

class CodexParser implements FormatParser {
  private cwd: string | undefined;
  /** What the session's instructions say about where paths lead (see homeFromSkills). */
  private readonly session: SessionContext = {};
  private sawMeta = false;
  /** The threads this file's session was forked from: their copied session_meta names no new session. */
  private readonly forkedFrom = new Set<string>();
  /** A legacy rollout (see legacyMetaSchema). */
  private legacy = false;
  private reportedNoMeta = false;
  /** apply_patch calls, whose failure is read from their output text. */
  private readonly patchCalls = new Set<string>();
  /** Code-mode scripts (`exec`), whose output says `Script completed` or `Script failed`. */
  private readonly scriptCalls = new Set<string>();
  /** Commands that run a scaffolding script (see classify/scaffolds): its output's fields to read, and where it ran. */
  private readonly scaffoldCalls = new Map<string, NonNullable<Classification['scaffold']>>();

  constructor(private readonly ctx: AdapterContext) {}

  line(value: Record<string, unknown>, raw: RawLine): void {
    if (value['payload'] === undefined && this.legacyLine(value, raw)) {
      return;
    }
    if (!isRolloutLine(value)) {
      this.ctx.emit({ kind: 'malformed', at: lineSpan(raw), reason: 'invalid-shape', detail: 'a rollout line without type (Codex)' });
      return;
    }
    const { type, payload, timestamp } = value;
    if (!this.sawMeta && type !== 'session_meta' && !this.reportedNoMeta) {
      // Every rollout starts with session_meta; without it the session has no id or cwd,
      // and Codex itself cannot resume it.
      this.reportedNoMeta = true;
      this.ctx.emit({
        kind: 'malformed',
        at: lineSpan(raw),
        reason: 'no-session-meta',
        detail: 'the rollout does not start with a session_meta record, so it has no session id or working directory',
      });
    }
    switch (type) {
      case 'session_meta':
        return this.sessionMeta(payload, raw);
      case 'turn_context': {
        if (isTurnContext(payload) && payload.cwd && payload.cwd !== this.cwd) {
          this.cwd = payload.cwd;
          this.ctx.emit({ kind: 'session', at: lineSpan(raw), agent: 'codex', cwd: this.cwd });
        }
        return;
      }
      case 'compacted':
        this.ctx.emit({ kind: 'reset', at: lineSpan(raw), reason: 'compaction' });
        return;
      case 'event_msg': {
        if (isEventMsg(payload) && (payload.type === 'turn_aborted' || payload.type === 'task_complete')) {
          this.ctx.emit({ kind: 'turn-end', at: lineSpan(raw), aborted: payload.type === 'turn_aborted' });
        } else if (isEventMsg(payload) && payload.type === 'patch_apply_end') {
          this.patchApplied(payload, raw);
        } else if (isEventMsg(payload) && payload.type === 'item_completed') {
          this.itemCompleted(payload, raw);
        }
        return;
      }
      case 'response_item':
        return this.responseItem(payload, raw, timestamp);
      default:
        return;
    }
  }

  /**
   * A line of a legacy rollout (see legacyMetaSchema): its first line, a state snapshot, or a
   * response item written bare. False when the line is none of those.
   */
  private legacyLine(value: Record<string, unknown>, raw: RawLine): boolean {
    const type = value['type'];
    if (typeof type === 'string') {
      if (!legacyItemTypes.has(type)) {
        return false;
      }
      this.responseItem(value, raw, undefined);
      return true;
    }
    if (type !== undefined) {
      return false;
    }
    if ('record_type' in value) {
      // The recorder's state snapshots: nothing of the conversation.
      return true;
    }
    if (!this.sawMeta && isLegacyFirstLine(value) && isLegacyMeta(value)) {
      this.sawMeta = true;
      this.legacy = true;
      this.ctx.emit({
        kind: 'session',
        at: lineSpan(raw),
        agent: 'codex',
        sessionId: value.id,
        ...(value.timestamp !== undefined ? { startedAt: value.timestamp } : {}),
      });
      return true;
    }
    return false;
  }

  /**
   * A legacy rollout names no cwd in its first line: Codex wrote it in the environment context it
   * gives the model, a user message starting `<environment_context>` with `<cwd>…</cwd>` (again
   * when it changed). Only at the start of the message: a prompt may quote such text.
   */
  private legacyCwd(text: string, raw: RawLine): void {
    const cwd = /^<environment_context>\s*(?:<[^>]+>[^<]*<\/[^>]+>\s*)*?<cwd>([^<]+)<\/cwd>/.exec(text)?.[1]?.trim();
    if (cwd && cwd !== this.cwd) {
      this.cwd = cwd;
      this.ctx.emit({ kind: 'session', at: lineSpan(raw), agent: 'codex', cwd });
    }
  }

  /**
   * A patch applied inside a code-mode script (its `call_id` is the script's inner call, not a
   * call of the rollout): the files it created, which a patch the script built at run time
   * (`addFile(path, data)`) does not spell out. Only successful creations: an update here would
   * say nothing about whether the session had read the file. `payload` is a patch_apply_end, or
   * 0.171's FileChange item in those fields (`id` as call_id, status `completed` as success).
   */
  private patchApplied(payload: Record<string, unknown>, raw: RawLine): void {
    const changes = payload['changes'];
    if (payload['success'] !== true || typeof payload['call_id'] !== 'string' || this.patchCalls.has(payload['call_id']) || !isRecord(changes)) {
      return;
    }
    for (const [file, change] of Object.entries(changes)) {
      const path = resolveAgainst(file, this.cwd);
      if (path !== undefined && isRecord(change) && change['type'] === 'add' && typeof change['content'] === 'string') {
        this.ctx.emit({ kind: 'file-created', at: lineSpan(raw), path, content: change['content'] });
      }
    }
  }

  /**
   * 0.171 reports a patch as a completed FileChange item (its id the call's, or a code-mode
   * script's inner call) where earlier builds wrote patch_apply_end.
   */
  private itemCompleted(payload: Record<string, unknown>, raw: RawLine): void {
    const item = payload['item'];
    if (isRecord(item) && item['type'] === 'FileChange') {
      this.patchApplied({ call_id: item['id'], success: item['status'] === 'completed', changes: item['changes'] }, raw);
    }
  }

  private sessionMeta(payload: unknown, raw: RawLine): void {
    if (!isSessionMeta(payload)) {
      this.ctx.emit({ kind: 'malformed', at: lineSpan(raw), reason: 'invalid-shape', detail: 'session_meta without an id (Codex)' });
      return;
    }
    const m = payload;
    const parent = m.parent_thread_id ?? m.forked_from_id ?? undefined;
    if (this.sawMeta && this.forkedFrom.has(m.id)) {
      // A forked thread's file (a sub-agent, 0.154) copies its parent's history, the parent's
      // session_meta first: this file is still the fork's own session.
      return;
    }
    this.sawMeta = true;
    if (parent) {
      this.forkedFrom.add(parent);
    }
    this.cwd = m.cwd ?? this.cwd;
    this.ctx.emit({
      kind: 'session',
      at: lineSpan(raw),
      agent: 'codex',
      sessionId: m.id,
      ...(m.cwd !== undefined ? { cwd: m.cwd } : {}),
      ...(m.timestamp !== undefined ? { startedAt: m.timestamp } : {}),
      ...(parent ? { parentSessionId: parent } : {}),
    });
    const base = m.history_base;
    if (isRecord(base) && typeof base['thread_id'] === 'string' && base['thread_id'] !== m.id) {
      // 0.171's paginated history: a forked thread's file holds none of the history it was
      // forked with (`history_base` names the thread and the end of what it takes from that
      // thread's file), though the model is sent all of it. What the session read there is
      // not here.
      this.ctx.emit({ kind: 'reset', at: lineSpan(raw), reason: 'partway', elsewhere: true });
    }
  }

  private responseItem(payload: unknown, raw: RawLine, timestamp: string | undefined): void {
    if (!isResponseItem(payload)) {
      this.ctx.emit({ kind: 'malformed', at: lineSpan(raw), reason: 'invalid-shape', detail: 'a response_item without type (Codex)' });
      return;
    }
    switch (payload.type) {
      case 'message': {
        if (!isMessageItem(payload)) {
          return;
        }
        const role = payload.role;
        if (role !== 'assistant' && this.session.home === undefined && raw.text.includes('.system')) {
          const home = homeFromSkills(resultText(payload.content) ?? '');
          if (home !== undefined) {
            this.session.home = home;
          }
        }
        if (role === 'assistant') {
          this.ctx.emit({ kind: 'text', at: lineSpan(raw), role: 'assistant', prompt: false, timestamp });
        } else if (role === 'user') {
          // Only a user message can be a prompt, and only a prompt needs its text.
          const text = resultText(payload.content) ?? '';
          if (codexUserNote.test(text)) {
            return;
          }
          if (this.legacy && text.startsWith('<environment_context>')) {
            this.legacyCwd(text, raw);
          }
          const prompt = !injectedUserText.test(text);
          this.ctx.emit({ kind: 'text', at: lineSpan(raw), role: 'user', prompt, preview: prompt ? preview(text) : undefined, timestamp });
          const selected = ideSelection.exec(text)?.[1]?.trim();
          const path = selected ? resolveAgainst(selected, this.cwd, this.session.home) : undefined;
          if (path !== undefined) {
            // Lines of the file as the editor had them: seen, not a read of known content.
            this.ctx.emit({ kind: 'file-attached', at: lineSpan(raw), path });
          }
        }
        // A developer message is Codex's own note to the model, not a turn of the conversation:
        // it is written wherever Codex has something to say, even between a call and its output
        // (after the user approves a command prefix while the command runs, real rollouts show
        // `function_call`, `developer` message, `function_call_output`, and the session went
        // on). As a message it would split a call from its output.
        return;
      }
      case 'function_call': {
        if (!isFunctionCall(payload)) {
          return this.invalid(raw, 'a function_call without name or call_id');
        }
        let input: unknown = {};
        const known = classifiedName(payload.name, payload.namespace);
        // The arguments are a second JSON document: read them only when something needs them
        // (a tool whose files we can name, or the hook-bound rules' input hash).
        if (payload.arguments !== undefined && (this.ctx.hashInputs || hasToolSpec('codex', known))) {
          try {
            input = JSON.parse(payload.arguments);
          } catch {
            // Arguments the model produced that are not JSON: the call still exists.
            input = payload.arguments;
          }
        }
        return this.call(payload.call_id, payload.name, input, raw, timestamp, known);
      }
      case 'custom_tool_call': {
        if (!isCustomToolCall(payload)) {
          return this.invalid(raw, 'a custom_tool_call without name or call_id');
        }
        return this.call(payload.call_id, payload.name, { input: payload.input ?? '' }, raw, timestamp);
      }
      case 'local_shell_call': {
        const ok = isLocalShellCall(payload);
        const id = ok ? (payload.call_id ?? payload.id) : undefined;
        if (!ok || id === undefined) {
          return this.invalid(raw, 'a local_shell_call without call_id');
        }
        const action = payload.action;
        return this.call(
          id,
          'local_shell',
          action?.working_directory ? { command: action.command ?? [], workdir: action.working_directory } : { command: action?.command ?? [] },
          raw,
          timestamp,
        );
      }
      case 'function_call_output':
      case 'custom_tool_call_output':
      case 'local_shell_call_output': {
        if (!isCallOutput(payload)) {
          return this.invalid(raw, 'a tool output without call_id');
        }
        const callId = payload.call_id;
        const text = outputText(payload.output);
        const envelope = shellEnvelope(text);
        const isError = this.scriptCalls.has(callId) ? text !== undefined && scriptFailed(text) : outputFailed(text, envelope, this.patchCalls.has(callId));
        this.ctx.emit({
          kind: 'result',
          at: valueSpan(raw, callId, 'call_id'),
          callId,
          isError,
          ...(isError && text !== undefined && refusedOutput.test(text) ? { refused: true as const } : {}),
          placeholder: isPlaceholderText(text),
          timestamp,
        });
        const scaffold = this.scaffoldCalls.get(callId);
        if (scaffold) {
          this.scaffoldCalls.delete(callId);
          const printed = envelope?.output ?? text;
          for (const path of isError || printed === undefined ? [] : scaffold.of.files(printed, scaffold.cwd)) {
            this.ctx.emit({ kind: 'file-created', at: lineSpan(raw), path });
          }
        }
        return;
      }
      case 'compaction':
        this.ctx.emit({ kind: 'reset', at: lineSpan(raw), reason: 'compaction' });
        return;
      default:
        // reasoning, web_search_call, ghost_snapshot and future kinds: not pairing-relevant.
        return;
    }
  }

  /** `known`: the name the tool table knows the tool by, when it is not the recorded name. */
  private call(callId: string, name: string, input: unknown, raw: RawLine, timestamp: string | undefined, known = name): void {
    const cls = classifyToolCall('codex', known, input, this.cwd, this.session);
    if (name === 'apply_patch') {
      this.patchCalls.add(callId);
    } else if (name === 'exec') {
      this.scriptCalls.add(callId);
    }
    if (cls.scaffold) {
      this.scaffoldCalls.set(callId, cls.scaffold);
    }
    const accesses: FileAccess[] = cls.accesses;
    for (let i = 0; i < accesses.length; i++) {
      const a = accesses[i]!;
      a.span = pathSpan(raw, a.path, this.cwd);
    }
    this.ctx.emit({
      kind: 'call',
      at: valueSpan(raw, callId, 'call_id'),
      callId,
      tool: name,
      category: cls.category,
      ...(cls.rewrites ? { rewrites: cls.rewrites } : {}),
      accesses,
      inputHash: this.ctx.hashInputs ? inputHash(input) : undefined,
      timestamp,
    });
  }

  private invalid(raw: RawLine, what: string): void {
    this.ctx.emit({ kind: 'malformed', at: lineSpan(raw), reason: 'invalid-shape', detail: `${what} (Codex)` });
  }
}

/**
 * The user's home folder, from the skills list Codex gives the model (a developer message, in
 * older builds a user message): its system skills are `(file: $CODEX_HOME/skills/.system/NAME/SKILL.md)`
 * (codex-rs `system_cache_root_dir`), and a CODEX_HOME that is the folder `.codex` right in a home
 * folder (`C:\Users\NAME`, `/home/NAME`, `/Users/NAME`, `/root`) is the default `~/.codex` of
 * the user Codex runs as, whose shell it runs.
 */
function homeFromSkills(text: string): string | undefined {
  const m = /\(file: ([^()\n]+?)[\\/]\.codex[\\/]skills[\\/]\.system[\\/]/.exec(text);
  const dir = m ? resolveAgainst(m[1]!, undefined) : undefined;
  return dir !== undefined && homeOf(dir) === dir ? dir : undefined;
}

/**
 * The name an MCP tool is known by: Codex 0.14x records `extract_code` in the namespace
 * `mcp__probe`, where code-mode scripts and Claude Code call it `mcp__probe__extract_code`. Only
 * that qualified name identifies the server: another server may have a tool of the same name.
 */
function classifiedName(name: string, namespace: string | undefined): string {
  return namespace !== undefined && namespace.startsWith('mcp__') ? `${namespace}__${name}` : name;
}

/** Where a path appears in the line: the absolute path, else its cwd-relative spelling. */
function pathSpan(raw: RawLine, absolute: string, cwd: string | undefined): Span {
  const found = raw.text.indexOf(absolute);
  if (found !== -1) {
    return { line: raw.lineNo, start: found, end: found + absolute.length };
  }
  if (cwd && absolute.startsWith(cwd)) {
    const rel = absolute.slice(cwd.length).replace(/^[\\/]/, '');
    const at = rel ? raw.text.indexOf(rel) : -1;
    if (at !== -1) {
      return { line: raw.lineNo, start: at, end: at + rel.length };
    }
  }
  return lineSpan(raw);
}

/**
 * The header of a unified-exec output (`exec_command`, Codex 0.15x): `Chunk ID: …`, `Wall time: …`,
 * then `Process exited with code N` once the process ended (`Process running with session ID …`
 * while it runs, which is no failure).
 */
const unifiedExecExit = /^(?:Chunk ID: [^\n]*\n)?(?:Wall time: [^\n]*\n)?Process exited with code (\d+)/;

/**
 * Outputs of calls that never ran, which Codex writes in place of the tool's output (strings of
 * codex-rs/core in the 0.171 binary; all but the two the user declines were written in its runs
 * here, test/fixtures/generated/codex-0.171):
 * - the user declined the command: `exec command rejected by user`, `patch rejected by user`;
 * - the approval policy or sandbox forbade it: `patch rejected: writing is blocked by read-only
 *   sandbox; rejected by user approval settings` (also `writing outside of the project; …`),
 *   `approval policy is Never; reject command — you cannot ask for escalated permissions …`;
 * - a PreToolUse hook denied it: `Command blocked by PreToolUse hook: <reason>. Command:
 *   <input>` (shell commands and apply_patch), `Tool call blocked by …` (other tools);
 * - the session has no such tool: `unsupported call: shell` (the classic shell tool, which
 *   0.171 does not offer next to exec_command, called all the same).
 * Such a call failed, and a patch among them wrote nothing, though the text has no exit code
 * and no apply_patch error.
 */
const refusedOutput = /^exec command rejected\b|^patch rejected\b|^approval policy is [^;\n]*; reject command\b|^(?:Command|Tool call) blocked by PreToolUse hook: |^unsupported call: /i;

function outputText(output: unknown): string | undefined {
  if (typeof output === 'string') {
    return output;
  }
  return resultText(output);
}

/**
 * Older Codex (0.4x) wrote a shell call's output as JSON, `{"output": "…", "metadata":
 * {"exit_code": N, …}}`: what the command printed, and how it ended. Parsed only when it can be
 * one (the key spelled out, or escapes that could spell it).
 */
function shellEnvelope(text: string | undefined): { output?: string; exitCode?: number } | undefined {
  if (text === undefined || !text.startsWith('{') || !(text.includes('"exit_code"') || text.includes('\\u'))) {
    return undefined;
  }
  try {
    const v = JSON.parse(text) as { output?: unknown; metadata?: { exit_code?: unknown } };
    if (typeof v.metadata?.exit_code !== 'number') {
      return undefined;
    }
    return typeof v.output === 'string' ? { output: v.output, exitCode: v.metadata.exit_code } : { exitCode: v.metadata.exit_code };
  } catch {
    // plain text after all
    return undefined;
  }
}

/**
 * Codex does not serialise a success flag (FORMATS.md §2.3): failure is read from the
 * output text of shell tools and apply_patch.
 */
function outputFailed(text: string | undefined, envelope: ReturnType<typeof shellEnvelope>, isPatch: boolean): boolean {
  if (text === undefined) {
    return false;
  }
  if (refusedOutput.test(text)) {
    return true;
  }
  if (envelope?.exitCode !== undefined) {
    return envelope.exitCode !== 0;
  }
  const exit = /^Exit code: (\d+)/.exec(text) ?? unifiedExecExit.exec(text);
  if (exit) {
    return exit[1] !== '0';
  }
  if ((isPatch && /apply_patch verification failed|^error:/i.test(text)) || interceptedPatchFailed.test(text)) {
    return true;
  }
  return text === 'aborted' || abortedByUser.test(text);
}

/**
 * An `apply_patch` heredoc run through a shell tool, which Codex intercepts and applies itself:
 * a patch that does not apply is answered with the verification error alone, where a command's
 * output (0.171) always starts with its header (`Chunk ID:`, `Wall time:`, `Exit code:`).
 */
const interceptedPatchFailed = /^apply_patch verification failed\b/;

/** A call the user interrupted; 0.171 writes `Wall time: 2.8 seconds` before it. */
const abortedByUser = /^(?:Wall time: [^\n]*\n)?aborted by user/i;

/** A unified-exec chunk a code-mode script prints for each command it ran: its exit code, once it has one. */
const execChunk = /\{"chunk_id":"[^"]*","wall_time_seconds":[-+.\deE]+,(?:"exit_code":(-?\d+))?/g;

/**
 * A code-mode script failed: it says so (`Script failed`), or every command it ran exited non-zero
 * (0.154: "Script completed", then `"exit_code":1` when the sandbox never started the command).
 * When some command succeeded, the script is taken as a success, as a shell command line is
 * whose last step succeeded; a command still running (no exit code yet) is no failure.
 */
function scriptFailed(text: string): boolean {
  // Interrupted, it is answered as any call is (1.19.2: the bare string "aborted by user after
  // 14.0s", not the script's parts): what it ran by then is not known to have finished.
  if (/^Script failed\b/.test(text) || text === 'aborted' || abortedByUser.test(text)) {
    return true;
  }
  if (!text.includes('"chunk_id"')) {
    return false;
  }
  let chunks = 0;
  execChunk.lastIndex = 0;
  for (let m = execChunk.exec(text); m !== null; m = execChunk.exec(text)) {
    chunks++;
    if (m[1] === undefined || m[1] === '0') {
      return false;
    }
  }
  return chunks > 0;
}
