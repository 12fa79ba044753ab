import { realpathSync } from 'node:fs';
import * as nodePath from 'node:path';
import type { RuleConfig, RuleLevel } from '../core/config/ruleConfig';
import { settleAcrossFiles } from '../core/engine/acrossFiles';
import { groupBy } from '../core/lib/group';
import { allRules } from '../core/rules/all';
import type { Finding } from '../core/model/finding';
import type { CheckedFile } from '../io/checkFile';
import { checkFiles, defaultJobs } from '../io/checkPool';
import { findBlindWrites, nameWriters } from '../io/writersAcross';
import { adapters } from '../core/parse/registry';
import { guardDir, ledgerPathFor } from '../io/guard/socketPath';
import { findTranscripts, findWorkspaceSessions, maxFolderDepth, type Found } from '../io/discovery';
import { allRoots } from '../core/discovery/locations';
import { exitCodes, isDirectory, UsageError, parseCommandArgs, type CliIo } from './io';
import { renderJson, type CheckSummary } from './output/json';
import { renderSarif } from './output/sarif';
import { displayFile, paletteFor, printable, renderText } from './output/text';
import { version } from './version';

export const checkUsage = `Usage: agent-guard check [options] PATH...
       agent-guard check [options] --workspace DIR

Checks agent session transcripts (Claude Code, Codex CLI, Gemini CLI, Amplifier).
A PATH is a transcript file or a folder searched for transcripts.

Options:
  --format text|json|sarif   output format (default: text)
  --workspace DIR            check the sessions of this workspace in the agents' own folders
                             (~/.claude and ~/.config/claude, ~/.codex, ~/.gemini, ~/.amplifier;
                             CLAUDE_CONFIG_DIR, XDG_CONFIG_HOME, CODEX_HOME, GEMINI_CLI_HOME and
                             AMPLIFIER_HOME are honoured)
  --rule ID=LEVEL            set a rule's severity: error, warning, info or off (repeatable)
  -j, --jobs N               check up to N files at once, each in its own thread
                             (default: about 3 for every 4 CPU cores, at least 1 and at most 8,
                             since each thread also keeps V8's collector busy on another core;
                             1 checks one file at a time)
  -h, --help                 show this help

Exit status: 0 no error findings, 1 error findings, 2 usage or I/O error, or no
transcript found in any PATH given.
`;

export async function runCheck(argv: string[], io: CliIo): Promise<number> {
  const options = {
    format: { type: 'string', default: 'text' },
    workspace: { type: 'string' },
    rule: { type: 'string', multiple: true },
    jobs: { type: 'string', short: 'j' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const args = parseCommandArgs(argv, options, true);
  if (args.values.help) {
    io.stdout.write(checkUsage);
    return exitCodes.ok;
  }
  const format = args.values.format;
  if (format !== 'text' && format !== 'json' && format !== 'sarif') {
    throw new UsageError(`unknown --format '${format}' (expected text, json or sarif)`);
  }
  const config = ruleConfigFromFlags(args.values.rule ?? []);
  const jobs = args.values.jobs === undefined ? defaultJobs() : jobsFromFlag(args.values.jobs);
  const targets = args.positionals;
  if (targets.length === 0 && args.values.workspace === undefined) {
    throw new UsageError('nothing to check: give transcript files or folders, or --workspace DIR');
  }

  const found: Found = { transcripts: [], problems: [], tooDeep: [] };
  // A file named twice, by itself and in a folder also named (`check a.jsonl .`), through a
  // link beside its own name, or found both in a folder and in the workspace's sessions, is one
  // transcript, known by its real path and reported under the first spelling given. Checked
  // twice, each of its findings was reported and counted twice (and the file listed twice in
  // the JSON's `files`).
  const realPaths = new Map<string, string>();
  const realOf = (file: string): string => {
    let real = realPaths.get(file);
    if (real === undefined) {
      real = realPathOr(file);
      realPaths.set(file, real);
    }
    return real;
  };
  const seenFiles = new Set<string>();
  const seenProblems = new Set<string>();
  const seenTooDeep = new Set<string>();
  const add = (more: Found): void => {
    appendNew(found.transcripts, more.transcripts, seenFiles, (t) => realOf(t.file));
    appendNew(found.problems, more.problems, seenProblems, (p) => p.path);
    appendNew(found.tooDeep, more.tooDeep, seenTooDeep, (d) => d);
  };
  const explicitFiles = new Set<string>();
  // What each path given found (by real path), to name a path that held no transcript.
  const perTarget: { path: string; files: string[]; unreadable: boolean }[] = [];
  for (const t of targets) {
    const abs = nodePath.resolve(io.cwd, t);
    const more = await findTranscripts(abs);
    if (more.transcripts.length === 1 && more.transcripts[0]!.file === abs) {
      explicitFiles.add(abs);
    }
    perTarget.push({ path: abs, files: more.transcripts.map((x) => realOf(x.file)), unreadable: more.problems.some((p) => p.path === abs) });
    add(more);
  }
  // How many sessions --workspace found, when given.
  let workspaceSessions: number | undefined;
  if (args.values.workspace !== undefined) {
    const ws = nodePath.resolve(io.cwd, args.values.workspace);
    // A mistyped folder (or a wrong HOME in CI) must not pass as a workspace without problems.
    if (!isDirectory(ws)) {
      throw new UsageError(`the workspace ${ws} is not a folder`);
    }
    const sessions = await findWorkspaceSessions(ws, { home: io.home, env: io.env });
    workspaceSessions = sessions.transcripts.length;
    add(sessions);
  }

  // With --workspace, the guard hook's ledger of that workspace binds calls to approvals.
  const ledgerFile = args.values.workspace !== undefined ? ledgerPathFor(nodePath.resolve(io.cwd, args.values.workspace), guardDir(io.env)) : undefined;

  const results: CheckedFile[] = [];
  const notTranscripts = new Set<string>();
  const run = await checkFiles(
    found.transcripts.map((t) => t.file),
    // The Codex transcripts' timed accesses, for findBlindWrites below: not kept when it is off.
    { config, jobs, accessLog: config.levels['stale-write'] !== 'off', ...(ledgerFile ? { ledgerFile } : {}) },
  );
  if (run.threadProblem) {
    io.stderr.write(`agent-guard: checked one file at a time: ${run.threadProblem}\n`);
  }
  for (const o of run.outcomes) {
    if ('error' in o) {
      found.problems.push({ path: o.file, code: o.error.code, message: `${o.file}: ${o.error.message}` });
      continue;
    }
    // A folder may hold JSONL that is not a transcript: only files named on the command
    // line are reported as being of an unknown format. A Gemini CLI session document that does
    // not parse was cut off mid-rewrite, wherever it was found (in a copy of ~/.gemini's chats
    // no path names the agent). A file named that holds nothing at all is no transcript either:
    // "1 transcript checked" of an empty file passed for one found clean.
    const named = explicitFiles.has(o.file);
    const nothing = !o.result.hasContent && o.result.findings.length === 0;
    if (o.result.agent === undefined && o.result.unreadableDocument !== true && (!named || nothing)) {
      notTranscripts.add(realOf(o.file));
      continue;
    }
    results.push(o.result);
  }

  // What one file cannot settle alone: a plan approval answered at the start of the next session's file.
  const settled = settleAcrossFiles(results.map((r) => ({ file: r.file, folder: nodePath.dirname(r.file), findings: r.findings, carriedIn: r.carriedIn })));
  results.forEach((r, i) => (r.findings = settled[i]!));
  // A change a session never saw, made by another session (or sub-agent) checked here: named.
  const named = await nameWriters(results, adapters);
  results.forEach((r) => (r.findings = r.findings.map((f) => named.get(f.id) ?? f)));
  // A Codex session's write over another transcript's write it never saw (Codex records no file
  // content, so its own file cannot show it).
  const blind = await findBlindWrites(results, adapters, config);
  // By file, once: a folder of busy sessions may give a finding for most of their writes.
  const blindByFile = groupBy(blind, (f) => f.file);
  for (const r of results) {
    const mine = blindByFile.get(r.file) ?? [];
    if (mine.length > 0) {
      r.findings = [...r.findings, ...mine].sort((a, b) => a.line - b.line || a.column - b.column || a.rule.localeCompare(b.rule));
    }
  }
  // A path given that held no transcript (a typo'd folder in a CI job, the wrong level of a
  // tree) is named, else it passes for one checked and found clean. When no path given held any,
  // the run checked nothing it was asked to: a failure, as ESLint fails on an unmatched pattern.
  const holdsNone = (t: (typeof perTarget)[number]): boolean => t.files.every((f) => notTranscripts.has(f));
  const emptyTargets = perTarget.filter((t) => !t.unreadable && holdsNone(t));
  const noneFound = targets.length > 0 && perTarget.every(holdsNone);
  const nothingFound = noneFound ? emptyTargets.map(({ path }) => ({ path, message: `${path}: no transcripts found here` })) : [];
  const findings: Finding[] = results.flatMap((r) => r.findings);
  const errors = findings.filter((f) => f.severity === 'error').length;
  const warnings = findings.filter((f) => f.severity === 'warning').length;
  const summary: CheckSummary = {
    files: results.map((r) => ({ file: r.file, agent: r.agent ?? null, session: r.session, findings: r.findings.length })),
    errors,
    warnings,
    infos: findings.length - errors - warnings,
    problems: [...found.problems.map((p) => ({ path: p.path, message: p.message })), ...nothingFound],
    notSearched: found.tooDeep,
  };
  switch (format) {
    case 'json':
      io.stdout.write(renderJson(findings, summary));
      break;
    case 'sarif':
      io.stdout.write(renderSarif(
          findings,
          allRules,
          version,
          summary.problems,
          io.cwd,
          found.tooDeep.map((path) => ({ path, message: `${path}: not searched: folders more than ${maxFolderDepth} levels below the folder named are not searched` })),
        ));
      break;
    case 'text':
      io.stdout.write(renderText(findings, paletteFor(io.stdout, io.env), io.cwd, results.length, found.problems.length, nothingFound.length));
      break;
  }
  for (const p of found.problems) {
    io.stderr.write(`agent-guard: cannot read ${displayFile(p.path, io.cwd)}: ${printable(p.message.slice(p.path.length + 2))}\n`);
  }
  if (found.tooDeep.length > 0) {
    // Once, not a line per folder: a deep tree named by mistake may cut off thousands.
    const first = displayFile(found.tooDeep[0]!, io.cwd);
    const more = found.tooDeep.length - 1;
    io.stderr.write(
      `agent-guard: did not search ${first}${more > 0 ? ` and ${more} other folder${more === 1 ? '' : 's'}` : ''}: folders more than ${maxFolderDepth} levels below the folder named are not searched (name a deeper folder to check it)\n`,
    );
  }
  for (const t of emptyTargets) {
    // Files it did hold, that were not transcripts, are counted: "looked for *.jsonl" about a
    // folder of .jsonl files read as if none had been found.
    const n = t.files.length;
    const why = explicitFiles.has(t.path)
      ? 'the file is empty'
      : n === 0
        ? `looked for *.jsonl and Gemini CLI's chats/session-*.json`
        : `${n === 1 ? 'the one file' : `the ${n} files`} named like one ${n === 1 ? 'is' : 'are'} empty or in no format agent-guard reads`;
    io.stderr.write(`agent-guard: no transcripts found in ${displayFile(t.path, io.cwd)} (${why})\n`);
  }
  if (workspaceSessions === 0) {
    // Said, not failed: a project may have no session yet. But a wrong HOME or
    // CLAUDE_CONFIG_DIR in CI looks exactly like this, so say where it looked.
    const where = allRoots({ home: io.home, env: io.env }).flatMap((r) => r.roots.map((d) => displayFile(d, io.cwd)));
    io.stderr.write(`agent-guard: no sessions of ${displayFile(nodePath.resolve(io.cwd, args.values.workspace ?? '.'), io.cwd)} found (looked in ${where.join(', ')})\n`);
  }
  if (found.problems.length > 0 || noneFound) {
    return exitCodes.usage;
  }
  return errors > 0 ? exitCodes.findings : exitCodes.ok;
}


function jobsFromFlag(flag: string): number {
  const n = Number(flag);
  if (!Number.isInteger(n) || n < 1) {
    throw new UsageError(`--jobs expects a whole number of at least 1, got '${flag}'`);
  }
  return n;
}

const levels = new Set(['error', 'warning', 'info', 'off']);

export function ruleConfigFromFlags(flags: readonly string[]): RuleConfig {
  const levelsById: Record<string, RuleLevel> = {};
  for (const flag of flags) {
    const m = /^([a-z-]+)=(\w+)$/.exec(flag);
    if (!m || !levels.has(m[2]!)) {
      throw new UsageError(`--rule expects ID=error|warning|info|off, got '${flag}'`);
    }
    if (!allRules.some((r) => r.meta.id === m[1])) {
      throw new UsageError(`unknown rule '${m[1]}' (rules: ${allRules.map((r) => r.meta.id).join(', ')})`);
    }
    levelsById[m[1]!] = m[2] as RuleLevel;
  }
  return { levels: levelsById, options: {} };
}

/** The file's real path, or the path itself when it cannot be resolved (its read then says why). */
function realPathOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/** Appends the items of `more` whose key is not in `seen` yet (and adds their keys). */
function appendNew<T>(to: T[], more: readonly T[], seen: Set<string>, key: (item: T) => string): void {
  for (const item of more) {
    const k = key(item);
    if (!seen.has(k)) {
      seen.add(k);
      to.push(item);
    }
  }
}
