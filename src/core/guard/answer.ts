/**
 * The hook's answer in each agent's own format. Deny is always exit 2 with the reason on
 * stderr (the one block every agent honours: HOOKS-AND-VSCODE.md §3.6), plus the JSON the
 * agent documents, for agents that read stdout even on exit 2 or show it to the user:
 * - Claude Code / Copilot: `hookSpecificOutput.permissionDecision: "deny"` + reason (§3.1, §3.5).
 * - Gemini CLI: `{"decision":"deny","reason":…}` (§3.2).
 * - Codex: `hookSpecificOutput.permissionDecision: "deny"` (only deny is enforced; §3.4).
 * Allow is exit 0 with no stdout: never an explicit "allow", which would skip the agent's
 * own permission prompt. A warning, or a write let through unchecked (no guard service),
 * goes through with a note where the agent shows one on an allowed call (see `allowWithNote`).
 */
import type { HookAgent, Verdict } from './types';

export interface HookAnswer {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export const allowAnswer: HookAnswer = { exitCode: 0, stdout: '', stderr: '' };

const prefix = 'agent-guard: ';

export function answerFor(agent: HookAgent, verdict: Verdict): HookAnswer {
  switch (verdict.action) {
    case 'allow':
      return allowAnswer;
    case 'deny':
      return deny(agent, verdict.reason);
    case 'warn':
      return warn(agent, verdict.reason);
  }
}

export function deny(agent: HookAgent, reason: string): HookAnswer {
  const stderr = reason + '\n';
  switch (agent) {
    case 'claude':
    case 'copilot':
    case 'codex':
      return {
        exitCode: 2,
        stdout: JSON.stringify({
          hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason },
        }) + '\n',
        stderr,
      };
    case 'gemini':
      return { exitCode: 2, stdout: JSON.stringify({ decision: 'deny', reason }) + '\n', stderr };
  }
}

function warn(agent: HookAgent, reason: string): HookAnswer {
  return allowWithNote(agent, `${prefix}warning: ${reason}`);
}

/**
 * Lets the call through (exit 0) and says `text` where the agent shows a hook's message on a
 * call it allows: on exit 0 no agent shows stderr (Claude Code only for exit 2 or another
 * failure, HOOKS-AND-VSCODE.md §3.1), so a note there was seen by no one.
 * - Claude Code / Copilot: `systemMessage` for the user, `hookSpecificOutput.additionalContext`
 *   for the model (§3.1, §3.5).
 * - Gemini CLI: `systemMessage` (§3.2).
 * - Codex: the same fields. It reads stdout alone on exit 0 and shows `systemMessage` as the
 *   hook's warning (openai/codex `codex-rs/hooks/src/events/pre_tool_use.rs`); builds older than
 *   that parse and ignore both (§3.4). Neither makes it block.
 * stderr says it too: for a person running the hook by hand, and the agents' hook logs.
 */
function allowWithNote(agent: HookAgent, text: string): HookAnswer {
  const stderr = text + '\n';
  switch (agent) {
    case 'claude':
    case 'copilot':
    case 'codex':
      return {
        exitCode: 0,
        stdout: JSON.stringify({ systemMessage: text, hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: text } }) + '\n',
        stderr,
      };
    case 'gemini':
      return { exitCode: 0, stdout: JSON.stringify({ systemMessage: text }) + '\n', stderr };
  }
}

/** No service answered: allow with a note (default), or deny when the guard must fail closed. */
export function answerNoService(agent: HookAgent, failClosed: boolean, why: string, target: string): HookAnswer {
  if (failClosed) {
    return deny(
      agent,
      `agent-guard could not check this write of ${target}: ${why}. The guard is set to fail closed, so the write was blocked. Ask the user to start the guard (the Agent Session Guard extension or \`agent-guard watch\`), then retry.`,
    );
  }
  return allowWithNote(
    agent,
    `${prefix}${why}; allowing the write of ${target} unchecked (start the Agent Session Guard extension or \`agent-guard watch\` in the workspace; set AGENT_GUARD_FAIL_CLOSED=1 to block instead).`,
  );
}

/**
 * The service answered, but with an error instead of a verdict (a call past its limits: more
 * files than it judges at once, an id longer than it takes): it runs, so the way out is not to
 * start it. Allow with a note, or deny when the guard must fail closed.
 */
export function answerRefused(agent: HookAgent, failClosed: boolean, why: string, target: string): HookAnswer {
  if (failClosed) {
    return deny(
      agent,
      `agent-guard could not check this write of ${target}: ${why}. The guard is set to fail closed, so the write was blocked, and the same call would be blocked again: make the change in smaller calls, or tell the user.`,
    );
  }
  return allowWithNote(agent, `${prefix}could not check the write of ${target}: ${why}; allowing it unchecked (set AGENT_GUARD_FAIL_CLOSED=1 to block instead).`);
}

/**
 * Stdin was not a hook payload the hook can read. `mayWrite`: it may be a write the guard
 * would judge (a pre-tool payload of a write tool, or input that says nothing of what it is);
 * `payload`: it is an agent's payload (a JSON object with a tool event), whose agent shows a note.
 * - may be a write, failing closed: denied (exit 2), as a write the guard cannot check;
 * - an agent's write, failing open: allowed with a note where the agent shows one;
 * - anything else: a message and exit 1, a non-blocking error for every agent (input that is
 *   not an agent's payload at all: a hook run by hand, with a terminal or garbage on stdin).
 */
export function answerInvalid(error: string, o: { agent: HookAgent; failClosed: boolean; mayWrite: boolean; payload: boolean }): HookAnswer {
  if (o.mayWrite && o.failClosed) {
    return deny(
      o.agent,
      `agent-guard could not read this call's hook input (${error}), so it could not check it. The guard is set to fail closed, so the call was blocked. Tell the user: the agent may send its hook input in a form this version of Agent Session Guard does not know.`,
    );
  }
  if (o.mayWrite && o.payload) {
    return allowWithNote(
      o.agent,
      `${prefix}could not read this call's hook input (${error}); allowing it unchecked (update Agent Session Guard if the agent was updated; set AGENT_GUARD_FAIL_CLOSED=1 to block instead).`,
    );
  }
  return {
    exitCode: 1,
    stdout: '',
    stderr: `${prefix}hook input is not a hook payload (${error}); the tool call was not checked. Run the hook only from an agent's hook configuration (agent-guard hooks install).\n`,
  };
}
