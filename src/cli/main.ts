import * as os from 'node:os';
import { Emitter, type Event } from '../core/lib/event';
import { checkUsage, runCheck } from './check';
import { hookUsage, runHookCommand } from './hook';
import { hooksUsage, runHooks } from './hooks';
import { repairUsage, runRepair } from './repair';
import { runWatch, watchUsage } from './watch';
import { currentFolder, exitCodes, UsageError, type CliIo } from './io';
import { version } from './version';
import { errorMessage } from '../core/lib/errors';

const usage = `agent-guard ${version} — keeps coding agents honest

Usage: agent-guard <command> [options]

Commands:
  check PATH...            check transcripts (files or folders) once; for CI and post-mortems
  check --workspace DIR    check the sessions of a workspace in the agents' own folders
  watch [--workspace DIR]  watch a workspace's sessions and working tree live (default: .)
  repair FILE              repair a transcript's tool call/result pairing (dry run; --write)
  hooks install|uninstall|status
                           install the guard hook into the agents' settings of a workspace
  hook                     the guard hook itself, as agents run it (reads the hook's JSON on stdin)
  help                     show this help
  --version                print the version

Run 'agent-guard <command> --help' for a command's options.
`;

function usageFor(command: string | undefined): string {
  switch (command) {
    case 'check':
      return checkUsage;
    case 'watch':
      return watchUsage;
    case 'repair':
      return repairUsage;
    case 'hooks':
      return hooksUsage;
    case 'hook':
      return hookUsage;
    default:
      return "Run 'agent-guard help' for usage.\n";
  }
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'check':
        return await runCheck(rest, io);
      case 'watch':
        return await runWatch(rest, io);
      case 'repair':
        return await runRepair(rest, io);
      case 'hook':
        return await runHookCommand(rest, io);
      case 'hooks':
        return await runHooks(rest, io);
      case undefined:
        // A usage error like any other, said on stderr: `agent-guard > out` (a script that lost
        // its command) filled `out` with the usage and said nothing on the terminal.
        io.stderr.write(`agent-guard: no command given\n${usage}`);
        return exitCodes.usage;
      case 'help':
      case '--help':
      case '-h':
        io.stdout.write(usage);
        return exitCodes.ok;
      case '--version':
      case '-v':
        io.stdout.write(version + '\n');
        return exitCodes.ok;
      default:
        throw new UsageError(`unknown command '${command}'`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`agent-guard: ${e.message}\n${usageFor(command)}`);
      return exitCodes.usage;
    }
    // Anything else is a bug or an I/O failure outside a file: one clear line, no stack.
    io.stderr.write(`agent-guard: ${errorMessage(e)}\n`);
    if (io.env['AGENT_GUARD_DEBUG']) {
      io.stderr.write(String(e instanceof Error ? e.stack : e) + '\n');
    }
    return exitCodes.usage;
  }
}

if (require.main === module) {
  // The reader may stop reading before the report ends (`agent-guard check … | head`): the
  // rest of the output has nowhere to go, which is no error. The check still finishes, so the
  // exit code still says whether it found errors.
  // A long-running command (`watch … | head`) stops instead: see CliIo.onStdoutClosed.
  let pipeClosed = false;
  // Any other failure to write the output (a full disk or quota under `check … > report.sarif`):
  // the report is lost, which is an I/O error (exit 2) and said in one line. Rethrown, it was an
  // uncaught exception: a stack trace and exit 1, which CI reads as "errors found". Set here and
  // kept below, whichever of this and the command's end comes first.
  let outputFailed = false;
  const closed = new Emitter<void>();
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (pipeClosed) {
      return;
    }
    pipeClosed = true;
    if (e.code !== 'EPIPE') {
      outputFailed = true;
      process.exitCode = exitCodes.usage;
      process.stderr.write(`agent-guard: cannot write the output: ${e.message}\n`);
    }
    // Either way nothing more can be shown: `watch` stops.
    closed.fire();
  });
  // Its diagnostics may go to the same reader (`watch 2>&1 | head`): once that is gone they have
  // nowhere to go either. Unhandled, the first of them ("the output was closed, stopping") threw
  // from the closed stderr and killed the process midway through its clean stop.
  process.stderr.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') {
      throw e;
    }
  });
  const onStdoutClosed: Event<void> = (listener) => {
    if (pipeClosed) {
      queueMicrotask(() => listener());
    }
    return closed.event(listener);
  };
  const cwd = currentFolder(process.env);
  if (cwd === undefined) {
    process.stderr.write('agent-guard: the current folder no longer exists (it was removed); run agent-guard from a folder that does\n');
    process.exitCode = exitCodes.usage;
  } else {
    const io: CliIo = { stdout: process.stdout, onStdoutClosed, stderr: process.stderr, env: process.env, cwd, home: os.homedir() };
    void main(process.argv.slice(2), io).then((code) => {
      process.exitCode = outputFailed ? exitCodes.usage : code;
    });
  }
}
