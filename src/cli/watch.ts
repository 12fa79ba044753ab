import { existsSync } from 'node:fs';
import * as nodePath from 'node:path';
import { encodeClaudeProject } from '../core/discovery/locations';
import { AgentGuardError, errorMessage } from '../core/lib/errors';
import { describeError, type Logger } from '../core/lib/logger';
import { agentLabels } from '../core/model/agent';
import type { Finding } from '../core/model/finding';
import { guardDecisions, guardLevels, type GuardDecision, type GuardLevel } from '../core/guard/types';
import { HookLedger } from '../io/guard/ledger';
import { GuardService, servedLedgerView } from '../io/guard/service';
import { guardDir, ledgerPathFor } from '../io/guard/socketPath';
import { GuardStandby } from '../io/guard/standby';
import { LiveMonitor } from '../io/liveMonitor';
import { ruleConfigFromFlags } from './check';
import { exitCodes, isDirectory, UsageError, parseCommandArgs, type CliIo } from './io';
import { watchFindingToJson, watchGoneToJson } from './output/json';
import { displayFile, paletteFor, printable, renderFindingLine, renderGoneLine } from './output/text';
import { version } from './version';

export const watchUsage = `Usage: agent-guard watch [options]

Watches the agent sessions of a workspace and its working tree, and prints each problem
once, as soon as it is found (those of a session's history once it is read), and also when
one printed is no longer reported (a stalled call
got its result, a rewrite fixed it, its transcript was deleted). Runs until interrupted
(Ctrl-C), or until its output is closed (as by 'watch | head'; it notices at the next finding
it prints).

Options:
  --workspace DIR          the workspace (default: the current folder)
  --format text|jsonl      output format (default: text); jsonl = one record per line: a
                           finding, with the fields of 'check --format json' and its 'id',
                           or {"gone":true,"id":...} when the finding with that id printed
                           before is no longer reported
  --folder DIR             also watch this folder for transcripts: the files 'check DIR'
                           reads there (repeatable)
  --rule ID=LEVEL          set a rule's severity: error, warning, info or off (repeatable)
  --no-tree                do not watch the working tree (transcript rules only; no guard)
  --no-guard               do not run the guard service the hooks ask (agent-guard hooks install)
  --guard DECISION=LEVEL   set a guard decision to deny, warn or off (repeatable); decisions:
                           stale-write, dirty-buffer, unread-write, concurrent-write
  --verbose                log what is watched and read to stderr
  -h, --help               show this help
`;

export interface WatchHandle {
  monitor: LiveMonitor;
  /** The guard service the hooks ask, while this watch runs it (from the start, or since it took it over). */
  readonly guard: GuardService | undefined;
  stop(): Promise<void>;
}

/**
 * Starts watching; `runWatch` keeps the process alive until SIGINT, SIGTERM or SIGHUP. `stop`
 * ends the start-up itself (its first reads of every transcript, minutes with thousands of
 * them): then nothing is left running and the exit code comes back.
 */
export async function startWatch(argv: string[], io: CliIo, stop?: AbortSignal): Promise<WatchHandle | number> {
  const options = {
    workspace: { type: 'string' },
    format: { type: 'string', default: 'text' },
    folder: { type: 'string', multiple: true },
    rule: { type: 'string', multiple: true },
    'no-tree': { type: 'boolean' },
    'no-guard': { type: 'boolean' },
    guard: { type: 'string', multiple: true },
    verbose: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const args = parseCommandArgs(argv, options, false);
  if (args.values.help) {
    io.stdout.write(watchUsage);
    return exitCodes.ok;
  }
  const format = args.values.format;
  if (format !== 'text' && format !== 'jsonl') {
    throw new UsageError(`unknown --format '${format}' (expected text or jsonl)`);
  }
  const workspace = nodePath.resolve(io.cwd, args.values.workspace ?? '.');
  // As in \`check\`: a mistyped folder must not start a watch (and a guard service) on nothing.
  if (!isDirectory(workspace)) {
    throw new UsageError(`the workspace ${workspace} is not a folder`);
  }
  const folders = (args.values.folder ?? []).map((f) => nodePath.resolve(io.cwd, f));
  for (const f of folders) {
    // A folder not there yet is waited for; a file in its place would be, for ever.
    if (existsSync(f) && !isDirectory(f)) {
      throw new UsageError(`--folder expects a folder of transcripts: ${f} is a file (give the folder it is in)`);
    }
  }
  const config = ruleConfigFromFlags(args.values.rule ?? []);
  const p = paletteFor(io.stdout, io.env);
  const logger = stderrLogger(io, args.values.verbose === true);
  const policy = guardPolicyFromFlags(args.values.guard ?? []);
  const guarded = args.values['no-guard'] !== true && args.values['no-tree'] !== true;
  const dir = guardDir(io.env);
  const ledger = guarded ? await HookLedger.open(ledgerPathFor(workspace, dir), logger) : undefined;
  // Only the host serving the workspace keeps the ledger current (see ServedLedgerView).
  const rulesLedger = ledger ? await servedLedgerView(ledger, workspace, dir) : undefined;
  const monitor = new LiveMonitor({
    workspace,
    environment: { home: io.home, env: io.env },
    config,
    logger,
    watchTree: args.values['no-tree'] !== true,
    extraFolders: folders,
    ...(rulesLedger ? { hookLedger: rulesLedger } : {}),
  });
  const print = (f: Finding): void => {
    if (stop?.aborted === true) {
      // Asked to stop: what the reads still under way find is not what was asked for.
      return;
    }
    io.stdout.write(format === 'jsonl' ? JSON.stringify(watchFindingToJson(f)) + '\n' : renderFindingLine(f, p, io.cwd) + '\n');
  };
  const printGone = (f: Finding): void => {
    io.stdout.write(format === 'jsonl' ? JSON.stringify(watchGoneToJson(f)) + '\n' : renderGoneLine(f, p, io.cwd) + '\n');
  };
  /**
   * The findings printed and still reported, so one that goes is said to have gone (a stalled
   * call that got its result, a transcript deleted). In jsonl too: a transcript deleted and
   * written again reports its findings again, and without the gone record in between a consumer
   * saw each twice, with nothing to tell it that the first had gone.
   */
  const shown = new Set<string>();
  /**
   * Findings of a transcript read for the first time, held until that read caught up: a later line
   * of the same history may revise one (a missing result the model then answered: an error, then
   * a warning), which was printed as found, gone, and found again. Each transcript's are printed
   * as soon as it is read, so a long start-up still shows what it finds as it goes.
   */
  const held = new Map<string, Map<string, Finding>>();
  const release = (file: string): void => {
    const list = held.get(file);
    held.delete(file);
    for (const f of [...(list?.values() ?? [])].sort((a, b) => a.line - b.line || a.column - b.column)) {
      print(f);
      shown.add(f.id);
    }
  };
  monitor.findings.onDidChange((c) => {
    for (const f of c.added) {
      if (monitor.isFirstRead(f.file)) {
        let list = held.get(f.file);
        if (!list) {
          list = new Map();
          held.set(f.file, list);
        }
        list.set(f.id, f);
        continue;
      }
      print(f);
      shown.add(f.id);
    }
    for (const f of c.updated) {
      // (A finding printed is not printed again for a new wording; one held is printed as it is last.)
      held.get(f.file)?.set(f.id, f);
    }
    for (const f of c.removed) {
      if (held.get(f.file)?.delete(f.id) === true) {
        continue;
      }
      if (shown.delete(f.id)) {
        printGone(f);
      }
    }
  });
  monitor.onDidFinishFirstRead((file) => release(file));
  if (!(await startUnlessStopped(monitor, stop))) {
    await monitor.close();
    return exitCodes.ok;
  }
  const info = io.stderr;
  let guard: GuardService | undefined;
  let standby: GuardStandby | undefined;
  let guardLine = args.values['no-tree'] ? 'off (--no-tree)' : 'off (--no-guard)';
  if (ledger && rulesLedger) {
    const startGuard = (l: HookLedger): Promise<GuardService> => GuardService.start({ workspace, monitor, ledger: l, logger, policy, dir, version });
    try {
      guard = await startGuard(ledger);
      guardLine = guard.socketPath ?? '';
    } catch (e) {
      rulesLedger.withdraw();
      guardLine = `not started: ${errorMessage(e)}`;
      if (AgentGuardError.is(e, 'refused')) {
        // Another host serves the workspace; once it stops, this one answers the hooks.
        guardLine += ' (taking over when it stops)';
        standby = new GuardStandby({
          workspace,
          dir,
          logger,
          start: startGuard,
          onServe: (service, fresh) => {
            standby = undefined;
            guard = service;
            rulesLedger.serve(fresh);
            info.write(`agent-guard: the other guard service stopped; this one now answers the hooks on ${service.socketPath ?? ''}\n`);
          },
        });
      }
    }
  }
  info.write(`agent-guard watching ${displayFile(workspace, io.cwd)}${args.values['no-tree'] ? '' : ' (and its working tree)'}\n`);
  const counts = new Map<string, number>();
  for (const s of monitor.sessionList()) {
    counts.set(s.agent, (counts.get(s.agent) ?? 0) + 1);
  }
  // A --folder is watched as a root of its own, which the watcher files under Claude Code while
  // it tells each transcript's agent by the file: listed as what the user named, not as a Claude
  // Code folder (a folder of Codex rollouts was listed as one).
  const extraFolders = new Set(folders);
  for (const r of monitor.watchedRoots) {
    const label = extraFolders.has(r.path) ? 'folder' : agentLabels[r.agent];
    const where = r.agent === 'claude-code' && !extraFolders.has(r.path) && nodePath.basename(r.path) === 'projects' ? nodePath.join(r.path, encodeClaudeProject(workspace)) : r.path;
    info.write(`  ${label.padEnd(12)} ${where}${r.exists ? '' : ' (not there yet; waiting for it)'}\n`);
  }
  info.write(`  ${'guard'.padEnd(12)} ${guardLine}\n`);
  const total = monitor.sessionList().length;
  info.write(`  found ${total} session${total === 1 ? '' : 's'}${total > 0 ? ' (' + [...counts].map(([a, n]) => `${agentLabels[a as keyof typeof agentLabels]} ${n}`).join(', ') + ')' : ''}; ${monitor.findings.size} finding${monitor.findings.size === 1 ? '' : 's'} so far. Press Ctrl-C to stop.\n`);
  return {
    monitor,
    get guard() {
      return guard;
    },
    stop: async () => {
      await standby?.close();
      await guard?.close();
      await monitor.close();
    },
  };
}

export async function runWatch(argv: string[], io: CliIo): Promise<number> {
  // The handlers go in before anything starts. Until a listener exists, SIGINT and SIGTERM keep
  // their default action and the kernel kills the process outright; a parent that signals as soon
  // as it reads "Press Ctrl-C" could otherwise win that race and lose the clean stop.
  let requested: string | undefined;
  // A signal during start-up ends it: start-up reads every transcript of the workspace, and a
  // Ctrl-C waiting for all of them (minutes, with thousands) looked ignored, as did a second one.
  const startUp = new AbortController();
  let onSignal = (signal: string): void => {
    if (requested === undefined) {
      requested = signal;
      io.stderr.write(signal === 'EPIPE' ? 'agent-guard: the output was closed, stopping\n' : `agent-guard: ${signal}, stopping\n`);
      startUp.abort();
    } else if (signal !== 'EPIPE') {
      io.stderr.write(`agent-guard: ${signal} again, exiting without waiting\n`);
      process.exit(exitCode(signal));
    }
  };
  const onSigint = (): void => onSignal('SIGINT');
  const onSigterm = (): void => onSignal('SIGTERM');
  // Closing the terminal watch runs in: a clean stop too, so the guard socket is freed for
  // another host and the ledger written out, rather than a socket file left for nobody.
  const onSighup = (): void => onSignal('SIGHUP');
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigterm);
  process.on('SIGHUP', onSighup);
  // `watch | head`: once the reader is gone nothing watch finds can be shown, and a watch
  // left running would hold the workspace's guard socket for nobody. Node ignores SIGPIPE,
  // so the closed pipe is seen at the next write; it stops watch like a signal.
  const piped = io.onStdoutClosed?.(() => onSignal('EPIPE'));
  try {
    const started = await startWatch(argv, io, startUp.signal);
    if (typeof started === 'number') {
      return started;
    }
    // The watchers' timers do not hold the process up (the extension host, and tests, decide
    // how long a monitor lives). With no agent folder there yet and no guard socket, nothing
    // else would, and watch would end the moment it said it was waiting: it holds on itself
    // until it is stopped.
    const keepAlive = setInterval(() => undefined, 1 << 30);
    return await new Promise<number>((resolve) => {
      let stopping = false;
      const stop = (): void => {
        stopping = true;
        started.stop().then(
          () => resolve(exitCodes.ok),
          (e: unknown) => {
            io.stderr.write(`agent-guard: error while stopping: ${describeError(e)}\n`);
            resolve(exitCodes.usage);
          },
        );
      };
      onSignal = (signal: string): void => {
        if (stopping && signal === 'EPIPE') {
          return;
        }
        if (stopping) {
          // A second Ctrl-C while a stop hangs is the user insisting: leave now.
          io.stderr.write(`agent-guard: ${signal} again, exiting without waiting\n`);
          process.exit(exitCode(signal));
        }
        io.stderr.write(signal === 'EPIPE' ? 'agent-guard: the output was closed, stopping\n' : `agent-guard: ${signal}, stopping\n`);
        stop();
      };
      if (requested !== undefined) {
        // Asked (and said so) as start-up ended: past the monitor's reads, which it ends.
        stop();
      }
    }).finally(() => clearInterval(keepAlive));
  } finally {
    piped?.dispose();
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigterm);
    process.off('SIGHUP', onSighup);
  }
}

/**
 * Starts the monitor; false if `stop` fires first. The start is then left behind, not awaited:
 * a watcher closed before it was ready never says it is, and the start would wait on it for ever.
 */
async function startUnlessStopped(monitor: LiveMonitor, stop: AbortSignal | undefined): Promise<boolean> {
  const started = monitor.start().then(() => true);
  if (!stop) {
    return started;
  }
  // Left behind once stopped: its failure (the monitor closed under it) is no one's to hear.
  started.catch(() => undefined);
  let onAbort = (): void => undefined;
  const stopped = new Promise<boolean>((resolve) => {
    onAbort = () => resolve(false);
    if (stop.aborted) {
      onAbort();
    }
    stop.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([started, stopped]);
  } finally {
    stop.removeEventListener('abort', onAbort);
  }
}

/** The exit code of a process killed by the signal: what a stop that does not wait says. */
function exitCode(signal: string): number {
  return signal === 'SIGINT' ? 130 : signal === 'SIGHUP' ? 129 : 143;
}

function guardPolicyFromFlags(flags: readonly string[]): Partial<Record<GuardDecision, GuardLevel>> {
  const policy: Partial<Record<GuardDecision, GuardLevel>> = {};
  for (const f of flags) {
    const [decision, level] = f.split('=');
    if (!(guardDecisions as readonly string[]).includes(decision ?? '') || !(guardLevels as readonly string[]).includes(level ?? '')) {
      throw new UsageError(`--guard ${f}: expected DECISION=LEVEL with DECISION one of ${guardDecisions.join(', ')} and LEVEL one of ${guardLevels.join(', ')}`);
    }
    policy[decision as GuardDecision] = level as GuardLevel;
  }
  return policy;
}

/** The frames of a stack that a message quotes (describeError gives the stack). */
const stackFrames = /(?:\n[ \t]+at [^\n]*)+/g;

function stderrLogger(io: CliIo, verbose: boolean): Logger {
  const line = (level: string, m: string | Error, frames = true): void => {
    const text = typeof m === 'string' ? m : describeError(m);
    io.stderr.write(`[${level}] ${printable(frames ? text : text.replace(stackFrames, ''))}\n`);
  };
  return {
    trace: () => {},
    debug: (m) => (verbose ? line('debug', m) : undefined),
    info: (m) => (verbose ? line('info', m) : undefined),
    // Warnings are always shown: a permission error or a vanished folder must not be silent.
    // They are about the user's files, not a fault of ours: the frames of our bundle a stack
    // names (printed as one line, escaped, several hundred characters) tell them nothing, and
    // --verbose keeps them. An error keeps its stack: it is a bug to report.
    warn: (m) => line('warn', m, verbose),
    error: (m) => line('error', m),
  };
}
