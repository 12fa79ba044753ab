/**
 * Hook payloads as the agents send them on stdin, checked by hand: this module runs in
 * dist/hook.js before every file tool call, and loading zod would add ~50–100 ms to every
 * start (the `zod` row of bench/hook.bench.ts). The service validates its wire format with zod.
 *
 * Shapes (FORMATS.md §1.7, §2.6, §3.4; HOOKS-AND-VSCODE.md §3):
 * - Claude Code PreToolUse/PostToolUse: session_id, transcript_path, cwd, hook_event_name,
 *   tool_name, tool_input, tool_use_id (+ tool_response after).
 * - Copilot agent mode in VS Code: the same tool fields, but camelCase common fields
 *   (sessionId, hookEventName) and its own tool names (`editFiles` with `files: [...]`).
 * - Gemini CLI BeforeTool/AfterTool: session_id, transcript_path, cwd, hook_event_name,
 *   timestamp, tool_name, tool_input; no tool_use_id.
 * - Codex PreToolUse/PostToolUse: session_id, turn_id, transcript_path (nullable), cwd, model,
 *   tool_name, tool_input, tool_use_id; `apply_patch` carries its envelope in
 *   tool_input.command (or .input). 0.171 names exec_command `Bash`, its command line in
 *   tool_input.command, and sends no PostToolUse for a patch that was denied or failed
 *   (test/fixtures/generated/codex-0.171/guarded.hook-payloads.ndjson). A sub-agent's carry its
 *   own rollout and turn_id, agent_id and agent_type, and the root thread's session_id
 *   (subagent-lost-update-guarded.hook-payloads.ndjson there): its transcript is already its own.
 */
import { classifyToolCall, hasToolSpec, isRecord, toolTables } from '../classify/tools';
import { parseApplyPatch } from '../classify/applyPatch';
import { resolveAgainst } from '../classify/paths';
import type { AccessOp } from '../model/events';
import type { GuardPath, HookAgent } from './types';

export interface HookEvent {
  agent: HookAgent;
  /** pre = before the tool runs (may deny); post = after it ran (records what was read or written). */
  phase: 'pre' | 'post';
  /** The tool failed (Claude's PostToolUseFailure): nothing was read or written. */
  failed: boolean;
  eventName: string;
  sessionId: string;
  transcriptPath?: string;
  cwd: string;
  tool: string;
  toolInput: Record<string, unknown>;
  toolUseId?: string;
}

export type PayloadResult =
  | { kind: 'event'; event: HookEvent }
  /** A well-formed payload of an event the guard has nothing to do with (SessionStart, …). */
  | { kind: 'ignore'; why: string }
  /** Not a payload the hook can read; with what it did say: the event's phase, and the tool. */
  | { kind: 'invalid'; error: string; phase?: HookEvent['phase']; tool?: string };

const preEvents = new Set(['PreToolUse', 'BeforeTool', 'preToolUse']);
const postEvents = new Set(['PostToolUse', 'AfterTool', 'postToolUse']);
const failureEvents = new Set(['PostToolUseFailure', 'postToolUseFailure']);

/**
 * Recognises the agent and the event. `hint` is the `--agent` of the hook's command line:
 * it names the settings file the hook was installed in, which Copilot shares with Claude
 * Code, so the payload itself has the last word (Gemini's event names, Codex's `turn_id`,
 * Copilot's camelCase fields).
 */
export function parseHookPayload(value: unknown, hint?: HookAgent): PayloadResult {
  if (!isRecord(value)) {
    return { kind: 'invalid', error: `expected a JSON object, got ${describe(value)}` };
  }
  const eventName = str(value['hook_event_name']) ?? str(value['hookEventName']);
  const named = str(value['tool_name']) ?? str(value['toolName']);
  if (eventName === undefined) {
    return { kind: 'invalid', error: 'no hook_event_name (or hookEventName) field', ...(named !== undefined ? { tool: named } : {}) };
  }
  const pre = preEvents.has(eventName);
  const failed = failureEvents.has(eventName);
  if (!pre && !failed && !postEvents.has(eventName)) {
    return { kind: 'ignore', why: `the ${eventName} event is not a tool event` };
  }
  const phase = pre ? 'pre' : 'post';
  const tool = named;
  if (tool === undefined) {
    return { kind: 'invalid', error: `a ${eventName} payload without tool_name`, phase };
  }
  const invalid = (error: string): PayloadResult => ({ kind: 'invalid', error, phase, tool });
  const cwd = str(value['cwd']);
  if (cwd === undefined) {
    return invalid(`a ${eventName} payload without cwd`);
  }
  const transcriptPath = str(value['transcript_path']) ?? str(value['transcriptPath']);
  const sessionId = str(value['session_id']) ?? str(value['sessionId']) ?? transcriptPath;
  if (sessionId === undefined) {
    return invalid(`a ${eventName} payload without session_id`);
  }
  const rawInput = value['tool_input'] ?? value['toolInput'] ?? value['toolArgs'];
  let toolInput: Record<string, unknown>;
  if (isRecord(rawInput)) {
    toolInput = rawInput;
  } else if (typeof rawInput === 'string') {
    // A freeform tool's text (an apply_patch envelope) passed as is.
    toolInput = { command: rawInput };
  } else if (rawInput === undefined || rawInput === null) {
    toolInput = {};
  } else {
    return invalid(`tool_input is ${describe(rawInput)}, not an object`);
  }
  const toolUseId = str(value['tool_use_id']) ?? str(value['toolUseId']) ?? str(value['toolCallId']);
  const agent = detectAgent(value, eventName, hint);
  const sub = agent === 'claude' ? claudeSubAgent(transcriptPath, str(value['agent_id'])) : undefined;
  return {
    kind: 'event',
    event: {
      agent,
      phase,
      failed,
      eventName,
      sessionId,
      ...(transcriptPath !== undefined ? { transcriptPath: sub ?? transcriptPath } : {}),
      cwd,
      tool,
      toolInput,
      ...(toolUseId !== undefined ? { toolUseId } : {}),
    },
  };
}

/**
 * The transcript of a Claude Code sub-agent's call. Its hooks carry the main session's
 * `session_id` and `transcript_path`, and `agent_id` (the hooks reference's common input
 * fields); the call is recorded in the sub-agent's own transcript,
 * `<session>/subagents/agent-<agent_id>.jsonl` beside the main one, which is how the service keys
 * sessions (the session id stays the main one: the ledger files a sub-agent's calls under it, as
 * the hooks do). Taken as the main session's, the sub-agent's reads and writes were credited to
 * the main session: its later write from an older read passed over the sub-agent's edit, and the
 * sub-agent's own edit looked like another session's write racing the main session's. An id that
 * could leave the folder is not followed.
 */
function claudeSubAgent(transcriptPath: string | undefined, agentId: string | undefined): string | undefined {
  if (transcriptPath === undefined || agentId === undefined || !/^[A-Za-z0-9_-]{1,128}$/.test(agentId) || !/\.jsonl$/.test(transcriptPath)) {
    return undefined;
  }
  // Windows paths keep their separator (the service resolves the path with the platform's rules).
  const sep = transcriptPath.includes('\\') && !transcriptPath.includes('/') ? '\\' : '/';
  const main = transcriptPath.slice(0, -'.jsonl'.length);
  return [main, 'subagents', `agent-${agentId}.jsonl`].join(sep);
}

function detectAgent(value: Record<string, unknown>, eventName: string, hint: HookAgent | undefined): HookAgent {
  if (eventName === 'BeforeTool' || eventName === 'AfterTool') {
    return 'gemini';
  }
  if (hint === 'codex' || 'turn_id' in value) {
    return 'codex';
  }
  if ('hookEventName' in value || 'sessionId' in value || hint === 'copilot') {
    return 'copilot';
  }
  return hint === 'gemini' ? 'gemini' : 'claude';
}

/**
 * Copilot agent mode's file tools (the VS Code hooks reference names `editFiles` with
 * `files: [...]`; the model-facing names of its built-in edit tools take `filePath`).
 * Claude Code's table in classify/tools.ts already knows `editFiles`, `createFile`, `readFile`.
 */
const copilotTools: Record<string, { op: AccessOp; field?: string; list?: { field: string; item: string } }> = {
  create_file: { op: 'create', field: 'filePath' },
  replace_string_in_file: { op: 'edit', field: 'filePath' },
  insert_edit_into_file: { op: 'edit', field: 'filePath' },
  multi_replace_string_in_file: { op: 'edit', list: { field: 'replacements', item: 'filePath' } },
  edit_notebook_file: { op: 'edit', field: 'filePath' },
  read_file: { op: 'read', field: 'filePath' },
};

/**
 * Could a call of `tool` be a write the guard judges (a file tool of any agent's that writes, or
 * a patch)? Asked of a payload the hook cannot read, to deny it when the guard must fail
 * closed; `undefined` (no tool named) could be anything. A tool the guard never judges (a
 * shell, a read, one it does not know) goes on as it would with a readable payload.
 */
export function mayWriteFiles(tool: string | undefined): boolean {
  if (tool === undefined || tool === 'apply_patch') {
    return true;
  }
  const spec = Object.hasOwn(copilotTools, tool) ? copilotTools[tool] : undefined;
  if (spec) {
    return spec.op !== 'read';
  }
  return (['claude-code', 'gemini', 'codex'] as const).some((agent) => {
    const category = hasToolSpec(agent, tool) ? toolTables[agent][tool]?.category : undefined;
    return category === 'write' || category === 'edit';
  });
}

/**
 * The files a hooked tool call reads or writes, absolute. Shell commands are left to the
 * transcripts: their paths are guesses, and a guard that blocks on guesses gets uninstalled.
 */
export function guardPaths(e: HookEvent): GuardPath[] {
  const input = e.toolInput;
  if (e.agent === 'codex' || (e.agent === 'copilot' && e.tool === 'apply_patch')) {
    const patch = patchText(input);
    if (patch !== undefined) {
      return patchPaths(patch, e.cwd);
    }
    if (e.agent === 'codex') {
      // Not a patch: Codex's own table, else a Claude-style file tool (Codex matches
      // apply_patch by the aliases Edit and Write; third-party tools take their names).
      const own = fileToolPaths('codex', e);
      return own.length > 0 ? own : fileToolPaths('claude-code', e);
    }
  }
  if (e.agent === 'copilot') {
    const spec = Object.hasOwn(copilotTools, e.tool) ? copilotTools[e.tool] : undefined;
    if (spec) {
      const raw: unknown[] = [];
      if (spec.field) {
        raw.push(input[spec.field]);
      }
      if (spec.list && Array.isArray(input[spec.list.field])) {
        for (const item of input[spec.list.field] as unknown[]) {
          raw.push(isRecord(item) ? item[spec.list.item] : undefined);
        }
      }
      return dedupe(
        raw.flatMap((r) => {
          const p = typeof r === 'string' ? resolveAgainst(r, e.cwd) : undefined;
          return p === undefined ? [] : [{ path: p, op: spec.op }];
        }),
      );
    }
  }
  return fileToolPaths(e.agent === 'gemini' ? 'gemini' : 'claude-code', e);
}

function fileToolPaths(kind: 'claude-code' | 'gemini' | 'codex', e: HookEvent): GuardPath[] {
  const cls = classifyToolCall(kind, e.tool, e.toolInput, e.cwd);
  return dedupe(cls.accesses.filter((a) => !a.viaShell).map((a) => ({ path: a.path, op: a.op })));
}

/** Codex passes the envelope in `command`; older builds and the transcript use `input`. */
function patchText(input: Record<string, unknown>): string | undefined {
  for (const k of ['command', 'input', 'patch']) {
    const v = input[k];
    if (typeof v === 'string' && v.includes('*** ')) {
      return v;
    }
  }
  return undefined;
}

function patchPaths(patch: string, cwd: string): GuardPath[] {
  const out: GuardPath[] = [];
  for (const t of parseApplyPatch(patch)) {
    const from = resolveAgainst(t.path, cwd);
    if (from !== undefined) {
      out.push({ path: from, op: t.op });
    }
    const to = t.moveTo !== undefined ? resolveAgainst(t.moveTo, cwd) : undefined;
    if (to !== undefined) {
      out.push({ path: to, op: 'create' });
    }
  }
  return dedupe(out);
}

/**
 * The input the transcript records for this call, so the hook's input hash equals the one
 * the transcript parser computes (core/lib/hash.ts `inputHash`): Codex's rollout records an
 * apply_patch as a custom tool call whose input the parser wraps as `{input: <patch>}`.
 */
export function transcriptInput(e: HookEvent): unknown {
  if (e.agent === 'codex' && e.tool === 'apply_patch') {
    const patch = patchText(e.toolInput);
    if (patch !== undefined) {
      return { input: patch };
    }
  }
  return e.toolInput;
}

function dedupe(paths: GuardPath[]): GuardPath[] {
  const seen = new Set<string>();
  return paths.filter((p) => {
    const k = `${p.op}\0${p.path}`;
    if (seen.has(k)) {
      return false;
    }
    seen.add(k);
    return true;
  });
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

function describe(v: unknown): string {
  if (v === null) {
    return 'null';
  }
  if (Array.isArray(v)) {
    return 'an array';
  }
  return `a ${typeof v}`;
}
