/**
 * The guard hook: `agent-guard hook`, and bundled on its own as dist/hook.js, which agents run
 * before every file write (and after every read): `node dist/hook.js --agent claude`.
 *
 * It reads the hook payload on stdin, finds the guard service of the workspace the file is
 * in, asks it "may this session write these files now?" within a deadline, and answers in
 * the agent's format (core/guard/answer.ts). After a read or write it reports the sha256 of
 * the file as it is on disk at that moment: what the session really saw. A write it cannot
 * have checked (no service within the deadline, an error instead of a verdict, a payload it
 * cannot read): allow with a note the agent shows, or deny with AGENT_GUARD_FAIL_CLOSED=1 /
 * `--fail-closed`. Other input that is not a hook payload (not a write's, or not JSON): a
 * message and a non-blocking exit 1 (denied too when failing closed, unless it is no write).
 *
 * It must start fast: node built-ins only, no zod, no chokidar, no rules engine (see
 * esbuild.config.mjs, and the bundle test in test/unit/guard).
 */
import { fstatSync, readFileSync } from 'node:fs';
import { allowAnswer, answerFor, answerInvalid, answerNoService, answerRefused, type HookAnswer } from '../core/guard/answer';
import { guardPaths, mayWriteFiles, parseHookPayload, transcriptInput, type HookEvent } from '../core/guard/payload';
import type { GuardWireRequest } from '../core/guard/protocol';
import { hookAgents, type HookAgent } from '../core/guard/types';
import { displayPath } from '../core/classify/paths';
import { writeOps } from '../core/model/events';
import { currentFolder, type CliIo } from './io';
import { errorMessage } from '../core/lib/errors';

/** Default deadline of the question to the service (ms); AGENT_GUARD_TIMEOUT_MS overrides it. */
const defaultTimeoutMs = 1500;

export interface HookIo extends CliIo {
  /** The payload (tests); default: the process's stdin. */
  stdin?: string | AsyncIterable<Buffer | string>;
}

interface HookArgs {
  agent: HookAgent | undefined;
  failClosed: boolean;
}


export const hookUsage = `Usage: agent-guard hook --agent claude|codex|gemini|copilot [--fail-closed] < PAYLOAD

The guard hook itself, as the agents run it before and after each tool call (\`agent-guard hooks
install\` puts it in their settings). It reads the agent's hook payload (JSON) on stdin, asks the
guard service of the file's workspace (the extension, or \`agent-guard watch\`) whether the
session may write the files now, and answers in the agent's own format.

Options:
  --agent NAME     the agent whose payload and answer format to use
  --fail-closed    deny a write the guard could not check: no guard service answered in
                   time, it answered with an error, or the payload could not be read (also
                   input that is not JSON); default: allow it, with a note to the agent and
                   the user; also AGENT_GUARD_FAIL_CLOSED=1
  -h, --help       show this help

Environment: AGENT_GUARD_TIMEOUT_MS, how long to wait for the service (default ${defaultTimeoutMs});
AGENT_GUARD_DIR, the folder of the guard's sockets and ledgers.

Exit status: 0 allowed (or a warning, or a note that it went unchecked, for the model and the
user), 2 denied (the reason on stderr and, in the agent's format, on stdout), 1 the input was not
a hook payload of a write (the agents go on; with --fail-closed, input that may be a write's is
denied instead).
`;

export async function runHookCommand(argv: string[], io: HookIo): Promise<number> {
  // Only these exact words: any other argument is ignored, since a hook must never fail on its argv.
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(hookUsage);
    return 0;
  }
  const answer = await hook(argv, io);
  if (answer.stdout) {
    io.stdout.write(answer.stdout);
  }
  if (answer.stderr) {
    io.stderr.write(answer.stderr);
  }
  return answer.exitCode;
}

async function hook(argv: string[], io: HookIo): Promise<HookAnswer> {
  const args = parseArgs(argv);
  const env = io.env;
  const failClosed = args.failClosed || /^(1|true|yes)$/i.test(env['AGENT_GUARD_FAIL_CLOSED'] ?? '');
  const timeoutMs = positiveInt(env['AGENT_GUARD_TIMEOUT_MS']) ?? defaultTimeoutMs;
  // Input the hook cannot read may be a write it cannot check: denied when failing closed.
  const agent = args.agent ?? 'claude';
  const unreadable = (error: string): HookAnswer => answerInvalid(error, { agent, failClosed, mayWrite: true, payload: false });
  let text: string;
  try {
    text = await readInput(io.stdin, timeoutMs);
  } catch (e) {
    return unreadable(errorMessage(e));
  }
  if (text.trim() === '') {
    return unreadable('stdin was empty');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return unreadable(`stdin is not JSON: ${errorMessage(e)}`);
  }
  const parsed = parseHookPayload(value, args.agent);
  if (parsed.kind === 'invalid') {
    // A JSON object is an agent's payload the hook cannot read (a field missing or of another
    // type: the agent changed its format?); only a write tool's before it runs can be stopped.
    const payload = typeof value === 'object' && value !== null && !Array.isArray(value);
    return answerInvalid(parsed.error, { agent, failClosed, mayWrite: parsed.phase !== 'post' && mayWriteFiles(parsed.tool), payload });
  }
  if (parsed.kind === 'ignore') {
    return allowAnswer;
  }
  const e = parsed.event;
  const all = guardPaths(e);
  const paths = e.phase === 'pre' ? all.filter((p) => writeOps.has(p.op)) : all;
  if (paths.length === 0) {
    // Not a file tool (VS Code runs every hook for every tool), or nothing we can name.
    return allowAnswer;
  }
  const target = describeTargets(paths.map((p) => displayPath(p.path, e.cwd)));
  // Loaded only for calls the guard judges: VS Code runs the hook for every tool call, and
  // most of those leave above without loading crypto or net. (Modules of this bundle, started
  // when first imported; a built-in is required by them, not imported here: a dynamic import
  // of a built-in goes through Node's ESM loader, a few milliseconds of every judged call.)
  const [{ checkGuardDir, findServiceSocket, guardDir }, { askService }, { inputHash, sha256 }] = await Promise.all([
    import('../io/guard/socketPath'),
    import('../io/guard/client'),
    import('../core/lib/hash'),
  ]);
  const dir = guardDir(env);
  const problem = checkGuardDir(dir);
  if (problem) {
    if (e.phase === 'post') {
      return allowAnswer;
    }
    const why =
      problem.problem === 'does not exist'
        ? `no guard service is running for ${e.cwd}`
        : `the guard directory ${problem.dir} ${problem.problem}, so no service in it can be trusted`;
    return answerNoService(e.agent, failClosed, why, target);
  }
  const locate = (): ReturnType<typeof findServiceSocket> => findServiceSocket(dirOf(paths[0]!.path), dir) ?? findServiceSocket(e.cwd, dir);
  let found = locate();
  const handoverMs = positiveInt(env['AGENT_GUARD_HANDOVER_MS']) ?? defaultHandoverMs;
  if (!found && e.phase === 'pre' && (await handedOver(handoverMs))) {
    found = locate();
  }
  if (!found) {
    return e.phase === 'post' ? allowAnswer : answerNoService(e.agent, failClosed, `no guard service is running for ${e.cwd}`, target);
  }
  const hash = (path: string): string | null => {
    try {
      return sha256(readFileSync(path));
    } catch {
      return null;
    }
  };
  const common = { ...callFields(e), inputHash: inputHash(transcriptInput(e)) };
  const request: GuardWireRequest =
    e.phase === 'pre'
      ? { ...common, type: 'pre', paths }
      : // After the tool: the content each file has now, hashed as the working tree hashes it.
        { ...common, type: 'post', ...(e.failed ? { failed: true } : {}), paths: paths.map((p) => ({ ...p, hash: e.failed ? null : hash(p.path) })) };
  let r = await askService(found.socket, request, timeoutMs);
  if (e.phase === 'post') {
    return allowAnswer;
  }
  if (r.kind === 'unavailable' && (await handedOver(handoverMs))) {
    const again = locate();
    r = again ? await askService(again.socket, request, timeoutMs) : r;
  }
  switch (r.kind) {
    case 'timeout':
      return answerNoService(e.agent, failClosed, `the guard service for ${found.workspace} did not answer within ${r.ms} ms`, target);
    case 'unavailable':
      return answerNoService(e.agent, failClosed, r.why, target);
    case 'unreadable':
      return answerRefused(e.agent, failClosed, r.why, target);
    case 'answer':
      // The service runs and answered, with an error instead of a verdict.
      if (!r.response.ok) {
        return answerRefused(e.agent, failClosed, `the guard service answered with an error (${r.response.error})`, target);
      }
      if (r.response.type !== 'verdict') {
        return answerRefused(e.agent, failClosed, 'the guard service gave no verdict', target);
      }
      return answerFor(e.agent, r.response.verdict);
  }
}

function callFields(e: HookEvent): Omit<Extract<GuardWireRequest, { type: 'pre' }>, 'type' | 'paths'> {
  return {
    v: 1,
    agent: e.agent,
    sessionId: e.sessionId,
    ...(e.transcriptPath !== undefined ? { transcriptPath: e.transcriptPath } : {}),
    cwd: e.cwd,
    tool: e.tool,
    ...(e.toolUseId !== undefined ? { toolUseId: e.toolUseId } : {}),
  };
}

/** The files of a call as its messages name them: a patch of a thousand files names a few. */
function describeTargets(names: string[]): string {
  const shown = 3;
  return names.length <= shown + 1 ? names.join(', ') : `${names.slice(0, shown).join(', ')} and ${names.length - shown} more files`;
}

function dirOf(path: string): string {
  const i = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return i > 0 ? path.slice(0, i) : path;
}

function parseArgs(argv: string[]): HookArgs {
  const out: HookArgs = { agent: undefined, failClosed: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = a.startsWith('--agent=') ? a.slice('--agent='.length) : a === '--agent' ? argv[++i] : undefined;
    if (value !== undefined) {
      out.agent = (hookAgents as readonly string[]).includes(value) ? (value as HookAgent) : undefined;
    } else if (a === '--fail-closed') {
      out.failClosed = true;
    }
    // Anything else (the `--agent-guard` marker that identifies our entries in settings
    // files, options of newer versions) is ignored: a hook must never fail on its own argv.
  }
  return out;
}

function positiveInt(v: string | undefined): number | undefined {
  const n = v === undefined ? NaN : Number(v);
  return Number.isInteger(n) && n > 0 ? n : undefined;
}

/**
 * A host hands the service over by closing its socket and binding a new one a few milliseconds
 * later (a settings change in the extension; another host taking over): a hook that finds no
 * service waits this long once and looks again, before it answers without one.
 */
const defaultHandoverMs = 150;

function handedOver(ms: number): Promise<true> {
  return new Promise((resolve) => setTimeout(() => resolve(true), ms));
}

/**
 * All of stdin. The process's own stdin is read synchronously from fd 0 (the agent writes the
 * payload and closes the pipe; no stream machinery to start); other sources, and a stdin
 * that cannot be read that way, asynchronously within the deadline.
 */
async function readInput(source: HookIo['stdin'], timeoutMs: number): Promise<string> {
  if (typeof source === 'string') {
    return source;
  }
  if (source === undefined) {
    // Asked of node:tty only for a character device: loading it loads net and streams, ~7 ms of
    // every hook run, and the agents pipe the payload in.
    if (isCharacterDevice(0) && (await import('node:tty')).isatty(0)) {
      throw new Error('stdin is a terminal; the agent pipes the payload in');
    }
    try {
      return readFileSync(0, 'utf8');
    } catch {
      // EAGAIN (a non-blocking pipe) and the like: read it as a stream below.
    }
  }
  const input = source ?? process.stdin;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`stdin did not end within ${timeoutMs} ms`)), timeoutMs);
  });
  const read = (async () => {
    const chunks: Buffer[] = [];
    for await (const c of input as AsyncIterable<Buffer | string>) {
      chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
    }
    return Buffer.concat(chunks).toString('utf8');
  })();
  try {
    return await Promise.race([read, deadline]);
  } finally {
    clearTimeout(timer);
    if (source === undefined) {
      process.stdin.destroy();
    }
  }
}

// In dist/cli.js this module is bundled together with main.ts, and `require.main === module`
// holds there too: run only when the script itself is the hook bundle (`agent-guard hook`
// goes through main.ts).
if (require.main === module && /(^|[\\/])hook\.js$/.test(process.argv[1] ?? '')) {
  void runHookCommand(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    // The hook works in the payload's folder; this one only must not crash it (a folder removed
    // under the agent).
    cwd: currentFolder(process.env) ?? '/',
    home: '',
  }).then((code) => {
    process.exitCode = code;
  });
}

function isCharacterDevice(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    // No stdin at all: reading it fails below, with its own message.
    return false;
  }
}
