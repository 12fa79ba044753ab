import { existsSync } from 'node:fs';
import * as nodePath from 'node:path';
import { hookCommand, hookSpecs, installAgents, planInstall, planUninstall, findOurHooks, type InstallAgent, type InstallPlan } from '../core/hooks/install';
import { JsoncError } from '../core/hooks/jsoncEdit';
import { AgentGuardError, errorMessage } from '../core/lib/errors';
import { describeHookState, installedFailClosed } from '../core/hooks/state';
import { unifiedDiff } from '../core/hooks/preview';
import { askService } from '../io/guard/client';
import { hookSettingsPath, readHookStates } from '../io/hookStates';
import { plannedText, readSettings, writeSettings } from '../io/settingsFile';
import { guardDir, socketPathFor } from '../io/guard/socketPath';
import { exitCodes, isDirectory, UsageError, parseCommandArgs, type CliIo } from './io';
import { printable } from './output/text';

export const hooksUsage = `Usage: agent-guard hooks install|uninstall|status [options]

Installs the guard hook into the agents' project settings of a workspace (merging into what
is there: comments, order and other entries are kept), removes only its own entries again,
or shows where it is installed and whether a guard service is running.

  Claude Code (and Copilot agent mode)  .claude/settings.local.json
  Gemini CLI                            .gemini/settings.json
  Codex CLI                             .codex/hooks.json

Options:
  --workspace DIR     the workspace (default: the current folder)
  --agents LIST       comma-separated: claude, gemini, codex (default: all three)
  --dry-run           print the change as a diff and write nothing
  --fail-closed       (install) the hook denies writes when no guard service answers
  -h, --help          show this help

Exit status: 0 done; 1 (status) a hook is installed but its script is missing, so the
agents write unchecked; 2 usage error, or a settings file that cannot be read or parsed.
`;

export interface HooksOptions {
  /** The hook script to install (default: dist/hook.js of this package). */
  hookScript?: string;
}

export async function runHooks(argv: string[], io: CliIo, opts: HooksOptions = {}): Promise<number> {
  const options = {
    workspace: { type: 'string' },
    agents: { type: 'string' },
    'dry-run': { type: 'boolean' },
    'fail-closed': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const args = parseCommandArgs(argv, options, true);
  if (args.values.help) {
    io.stdout.write(hooksUsage);
    return exitCodes.ok;
  }
  const [action, ...extra] = args.positionals;
  if (action !== 'install' && action !== 'uninstall' && action !== 'status') {
    throw new UsageError(action === undefined ? 'hooks needs install, uninstall or status' : `unknown hooks action '${action}'`);
  }
  if (extra.length > 0) {
    throw new UsageError(`unexpected argument '${extra[0]}'`);
  }
  const workspace = nodePath.resolve(io.cwd, args.values.workspace ?? '.');
  if (!existsSync(workspace)) {
    throw new UsageError(`the workspace ${workspace} does not exist`);
  }
  if (!isDirectory(workspace)) {
    throw new UsageError(`the workspace ${workspace} is not a folder`);
  }
  const agents = parseAgents(args.values.agents);
  const dryRun = args.values['dry-run'] === true;
  if (action === 'status') {
    return status(workspace, agents, io, opts);
  }
  const script = opts.hookScript ?? hookScriptPath();
  let failed = false;
  for (const agent of agents) {
    const spec = hookSpecs[agent];
    const file = hookSettingsPath(workspace, spec);
    let before: string | undefined;
    try {
      before = await readSettings(file);
    } catch (e) {
      io.stderr.write(`agent-guard: ${spec.label}: cannot read ${spec.file}: ${printable(errorMessage(e))}; left as it is\n`);
      failed = true;
      continue;
    }
    let plan: InstallPlan;
    try {
      plan = action === 'install' ? planInstall(before, spec, hookCommand(script, agent, { failClosed: args.values['fail-closed'] === true })) : planUninstall(before);
    } catch (e) {
      // A settings file that is no JSONC, or a hook script at a path no hook command can name.
      if (e instanceof JsoncError || AgentGuardError.is(e, 'invalid-input')) {
        io.stderr.write(`agent-guard: ${spec.file}: ${e.message}; left as it is\n`);
        failed = true;
        continue;
      }
      throw e;
    }
    const after = await plannedText(file, plan);
    if (!plan.changed) {
      io.stdout.write(action === 'install' ? `${spec.label}: already installed in ${spec.file}\n` : `${spec.label}: nothing to remove from ${spec.file}\n`);
      continue;
    }
    const verb = action === 'install' ? 'install the guard hook in' : 'remove the guard hook from';
    if (!dryRun) {
      // Written first, reported after: a file that cannot be written is never reported as done.
      let outcome;
      try {
        outcome = await writeSettings(file, before, after);
      } catch (e) {
        io.stderr.write(`agent-guard: ${spec.label}: cannot ${action === 'install' ? 'write' : 'change'} ${spec.file}: ${errorMessage(e)}; nothing was changed there\n`);
        failed = true;
        continue;
      }
      if (outcome === 'changed-meanwhile') {
        io.stderr.write(`agent-guard: ${spec.label}: ${spec.file} changed while it was read; nothing was changed there (run the command again)\n`);
        failed = true;
        continue;
      }
    }
    io.stdout.write(`${spec.label}: ${dryRun ? 'would ' + verb : verb.replace(/^install/, 'installed').replace(/^remove/, 'removed')} ${spec.file}${after === undefined ? ' (the file held nothing else and goes)' : ''}\n`);
    io.stdout.write(unifiedDiff(spec.file, before, after));
    if (dryRun) {
      continue;
    }
    if (action === 'install') {
      io.stdout.write(`  ${spec.note}\n`);
    }
  }
  return failed ? exitCodes.usage : exitCodes.ok;
}

async function status(workspace: string, agents: readonly InstallAgent[], io: CliIo, opts: HooksOptions): Promise<number> {
  const script = opts.hookScript ?? hookScriptPath();
  let unreadable = false;
  let broken = false;
  for (const { spec, file, text: before, state } of await readHookStates(workspace, script, agents)) {
    let line: string;
    switch (state.kind) {
      case 'current':
        // Which way it fails is in the command: say it, as a reinstall is what changes it.
        line = `installed (${findOurHooks(before).map((o) => o.event).join(', ')}; ${installedFailClosed(before) ? 'denies' : 'allows'} writes when no guard service answers)`;
        break;
      case 'missing-script':
        line = `installed, but its script ${state.script} is missing: the agents write unchecked (run 'agent-guard hooks install' to repair it)`;
        // A script reading only the exit code must not take this for installed.
        broken = true;
        break;
      case 'versioned':
      case 'other':
        line = `installed, but not as this version would (run 'agent-guard hooks install' to update): ${findOurHooks(before)[0]!.command}`;
        break;
      case 'unreadable':
        // A file the agent cannot read either may hold the hook or not: not a state to pass
        // a script (or a person reading only the exit code) as fine.
        io.stderr.write(`agent-guard: ${spec.label}: cannot tell whether the hook is installed in ${file}: ${printable(state.error)}; left as it is\n`);
        unreadable = true;
        line = describeHookState(state);
        break;
      default:
        line = describeHookState(state);
    }
    io.stdout.write(`${spec.label.padEnd(38)} ${spec.file.padEnd(28)} ${line}\n`);
  }
  const socket = socketPathFor(workspace, guardDir(io.env));
  const r = await askService(socket, { v: 1, type: 'ping' }, 1000);
  if (r.kind === 'answer' && r.response.ok && r.response.type === 'pong') {
    io.stdout.write(`guard service: running (pid ${r.response.service.pid}, version ${r.response.service.version}) on ${socket}\n`);
  } else {
    io.stdout.write(`guard service: not running for ${workspace} (start the Agent Session Guard extension or 'agent-guard watch'); hooks allow every write until it runs\n`);
  }
  return unreadable ? exitCodes.usage : broken ? exitCodes.findings : exitCodes.ok;
}

function parseAgents(list: string | undefined): InstallAgent[] {
  if (list === undefined) {
    return [...installAgents];
  }
  const out: InstallAgent[] = [];
  for (const raw of list.split(',')) {
    const a = raw.trim();
    if (!(installAgents as readonly string[]).includes(a)) {
      throw new UsageError(`unknown agent '${a}' (expected ${installAgents.join(', ')})`);
    }
    if (!out.includes(a as InstallAgent)) {
      out.push(a as InstallAgent);
    }
  }
  return out;
}


/**
 * dist/hook.js of this package: next to dist/cli.js when run from the bundle, else found by
 * walking up to the package root (tests run the transpiled sources from out/).
 */
function hookScriptPath(): string {
  const beside = nodePath.join(__dirname, 'hook.js');
  if (nodePath.basename(__dirname) === 'dist' && existsSync(beside)) {
    return beside;
  }
  for (let d = __dirname; ; d = nodePath.dirname(d)) {
    const candidate = nodePath.join(d, 'dist', 'hook.js');
    if (existsSync(nodePath.join(d, 'package.json')) && existsSync(candidate)) {
      return candidate;
    }
    if (nodePath.dirname(d) === d) {
      return beside;
    }
  }
}

