/**
 * What a workspace's hook settings hold, compared with what would be installed now (by the
 * extension, or by `agent-guard hooks install`): both status commands ask this. "Some entry of
 * ours exists" is not enough: an entry naming a hook script that is gone lets every write
 * through.
 */
import { findOurHooks, hookCommand, planInstall, type AgentHookSpec } from './install';
import { errorMessage } from '../lib/errors';

export type HookState =
  | { kind: 'not-installed' }
  /** As this version installs it (with or without `--fail-closed`). */
  | { kind: 'current' }
  /** Ours, but its script is missing: the agents run it, it fails, and they write unchecked. */
  | { kind: 'missing-script'; script: string }
  /** Ours, naming a versioned extension folder that the next update deletes. */
  | { kind: 'versioned'; script: string }
  /** Ours, installed another way (e.g. `agent-guard hooks install` from the npm package). */
  | { kind: 'other'; command: string }
  | { kind: 'unreadable'; error: string };

export interface HookStateContext {
  /** The hook script that would be installed (the extension's shim, or the CLI's dist/hook.js). */
  script: string;
  exists(path: string): boolean;
}

/** The script a hook command of ours runs: `node "<script>" --agent-guard …`. */
export function scriptOf(command: string): string | undefined {
  return /^\s*node\s+"([^"]+)"/.exec(command)?.[1];
}

/** A dist/hook.js inside one version's extension folder (`<publisher>.<name>-<version>`). */
function isVersionedScript(script: string): boolean {
  return /[\\/]agent-session-guard\.agent-session-guard-[^\\/]+[\\/]dist[\\/]hook\.js$/i.test(script);
}

export function hookState(text: string | undefined, spec: AgentHookSpec, ctx: HookStateContext): HookState {
  let ours;
  try {
    ours = findOurHooks(text);
  } catch (e) {
    return { kind: 'unreadable', error: errorMessage(e) };
  }
  if (ours.length === 0) {
    return { kind: 'not-installed' };
  }
  let current = false;
  try {
    current = [false, true].some((failClosed) => !planInstall(text, spec, hookCommand(ctx.script, spec.agent, { failClosed })).changed);
  } catch {
    // This version's script cannot be named in a hook command (see hookCommand): not current.
  }
  if (current) {
    return { kind: 'current' };
  }
  for (const o of ours) {
    const script = scriptOf(o.command);
    // A path the shell expands ($, `) names another file when the agent runs the command.
    if (script !== undefined && (!ctx.exists(script) || /[$`]/.test(script))) {
      return { kind: 'missing-script', script };
    }
  }
  for (const o of ours) {
    const script = scriptOf(o.command);
    if (script !== undefined && isVersionedScript(script)) {
      return { kind: 'versioned', script };
    }
  }
  return { kind: 'other', command: ours[0]!.command };
}

/** An entry the extension should offer to repair (re-install through the shim). */
export function needsRepair(s: HookState): s is Extract<HookState, { kind: 'missing-script' | 'versioned' }> {
  return s.kind === 'missing-script' || s.kind === 'versioned';
}

/** An action the hooks status offers: each only where it would change something. */
export type HookStatusAction = 'Repair…' | 'Install…' | 'Remove…';

/**
 * What the status of a window's hook settings offers: Repair… for a broken entry of ours (it
 * installs, so it stands for Install… too), Install… where an agent has none, Remove… where
 * some entry of ours is. A file that cannot be read offers nothing: neither would touch it.
 */
export function hookStatusActions(states: readonly HookState[]): HookStatusAction[] {
  const actions: HookStatusAction[] = [];
  if (states.some(needsRepair)) {
    actions.push('Repair…');
  } else if (states.some((s) => s.kind === 'not-installed')) {
    actions.push('Install…');
  }
  if (states.some((s) => s.kind !== 'not-installed' && s.kind !== 'unreadable')) {
    actions.push('Remove…');
  }
  return actions;
}

export function describeHookState(s: HookState): string {
  switch (s.kind) {
    case 'not-installed':
      return 'not installed';
    case 'current':
      return 'installed';
    case 'missing-script':
      return `installed, but its script ${s.script} is missing: the agents write unchecked — repair it`;
    case 'versioned':
      return `installed, but through ${s.script}, which the next update of the extension deletes — repair it`;
    case 'other':
      return `installed another way: ${s.command}`;
    case 'unreadable':
      return `cannot read: ${s.error}`;
  }
  return s satisfies never;
}

/**
 * Do the hook entries of ours in a settings file deny a write when no guard service answers
 * (`--fail-closed`)? Undefined when none is there (or the file is not JSON with comments).
 */
export function installedFailClosed(text: string | undefined): boolean | undefined {
  let ours: ReturnType<typeof findOurHooks>;
  try {
    ours = findOurHooks(text);
  } catch {
    return undefined;
  }
  return ours.length === 0 ? undefined : ours.some((o) => o.command.split(/\s+/).includes('--fail-closed'));
}
