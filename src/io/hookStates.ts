/**
 * The guard hooks installed in a workspace folder, as its agents' settings files hold them: what
 * the status of the extension and `agent-guard hooks status` show, and what the extension checks
 * before it offers to install, repair or update them.
 */
import { existsSync } from 'node:fs';
import * as nodePath from 'node:path';
import { hookSpecs, installAgents, type AgentHookSpec, type InstallAgent } from '../core/hooks/install';
import { hookState, type HookState } from '../core/hooks/state';
import { errorMessage } from '../core/lib/errors';
import { readSettings } from './settingsFile';

/** An agent's hook settings file in a workspace folder (the spec names it relative, with `/`). */
export function hookSettingsPath(workspace: string, spec: AgentHookSpec): string {
  return nodePath.join(workspace, ...spec.file.split('/'));
}

/** One agent's hook settings file, read: its text (undefined: there is none), or why it could not be read. */
export type HookSettings = { agent: InstallAgent; spec: AgentHookSpec; file: string } & ({ text: string | undefined } | { error: unknown });

/** Each agent's hook settings file in a workspace folder; one that cannot be read is said so, never thrown. */
export async function readHookSettings(workspace: string, agents: readonly InstallAgent[] = installAgents): Promise<HookSettings[]> {
  const out: HookSettings[] = [];
  for (const agent of agents) {
    const spec = hookSpecs[agent];
    const file = hookSettingsPath(workspace, spec);
    try {
      out.push({ agent, spec, file, text: await readSettings(file) });
    } catch (e) {
      out.push({ agent, spec, file, error: e });
    }
  }
  return out;
}

export interface InstalledHooks {
  agent: InstallAgent;
  spec: AgentHookSpec;
  /** The settings file's absolute path. */
  file: string;
  /** Its text; undefined when there is none or it cannot be read. */
  text: string | undefined;
  state: HookState;
}

/** What each agent's hook settings in a workspace folder hold, compared with what `script` would install. */
export async function readHookStates(workspace: string, script: string, agents: readonly InstallAgent[] = installAgents): Promise<InstalledHooks[]> {
  return (await readHookSettings(workspace, agents)).map((s) =>
    'error' in s
      ? { agent: s.agent, spec: s.spec, file: s.file, text: undefined, state: { kind: 'unreadable', error: errorMessage(s.error) } }
      : { agent: s.agent, spec: s.spec, file: s.file, text: s.text, state: hookState(s.text, s.spec, { script, exists: existsSync }) },
  );
}
