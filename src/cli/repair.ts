import { promises as fsp, type Stats } from 'node:fs';
import * as nodePath from 'node:path';
import { AgentGuardError, errnoCode, errorMessage } from '../core/lib/errors';
import { agentLabels } from '../core/model/agent';
import { applyRepairPlan } from '../core/repair/apply';
import { changesFor, editLine, summarize, type RepairPlan } from '../core/repair/plan';
import { planRepair } from '../core/repair/planner';
import { describeLive, isLive, liveness, writeRepaired, type Liveness } from '../io/repairFile';
import { exitCodes, UsageError, parseCommandArgs, type CliIo } from './io';
import { displayFile, paletteFor, printable, type Palette } from './output/text';

export const repairUsage = `Usage: agent-guard repair [options] FILE

Repairs the tool call / result pairing of a Claude Code or Amplifier transcript, so that the
session can be resumed. It drops a duplicate result (keeping the real one over a placeholder)
and a result that answers no call, moves a misplaced result back to directly after its call's
message, and adds an explicit error result ("no result was recorded") for a call that never
got one. It never invents tool output, and never drops a result whose call may be in a file
the session went on from (its line hangs from a record this file does not hold, as after a
resume): that is left for a person. Without --write it only prints what it would change.

Options:
  --write              write the repaired transcript; the original is first saved beside it
                       as FILE.bak-<time>, byte for byte
  --backup-dir DIR     save the backup in DIR instead
  --close-open-calls   also close the calls still open at the end of the file (off by
                       default: at the end of the file the session may still be running them)
  --force              write even if the session looks live
  --live-seconds N     a file written less than N seconds ago is live (default: 120)
  --format text|json   output format (default: text)
  -h, --help           show this help

A session is live when its file changed in the last --live-seconds, or when the guard service
of its workspace (the extension or \`agent-guard watch\`, if one runs) has a write of it in
flight: allowed by the guard and not ended, such as an edit waiting for the user's permission.
--write refuses a live session unless --force is given. Calls the guard does not judge (shell
commands, reads) are not known to it: stop the agent's session before writing.

Exit status: 0 nothing to repair, 1 changes needed (dry run) or written, 2 usage or I/O error,
or a repair that was refused.
`;

/** A session whose file changed this recently may still be running (seconds). */
const defaultLiveSeconds = 120;

export async function runRepair(argv: string[], io: CliIo): Promise<number> {
  const options = {
    write: { type: 'boolean', default: false },
    force: { type: 'boolean', default: false },
    'close-open-calls': { type: 'boolean', default: false },
    'backup-dir': { type: 'string' },
    'live-seconds': { type: 'string' },
    format: { type: 'string', default: 'text' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  const args = parseCommandArgs(argv, options, true);
  const v = args.values;
  if (v.help) {
    io.stdout.write(repairUsage);
    return exitCodes.ok;
  }
  const format = v.format;
  if (format !== 'text' && format !== 'json') {
    throw new UsageError(`unknown --format '${format}' (expected text or json)`);
  }
  const liveSeconds = v['live-seconds'] === undefined ? defaultLiveSeconds : Number(v['live-seconds']);
  if (!Number.isFinite(liveSeconds) || liveSeconds < 0) {
    throw new UsageError(`--live-seconds expects a number of seconds, got '${v['live-seconds']}'`);
  }
  if (args.positionals.length !== 1) {
    throw new UsageError(args.positionals.length === 0 ? 'give the transcript file to repair' : 'repair takes one transcript file at a time');
  }
  const shown = nodePath.resolve(io.cwd, args.positionals[0]!);
  const fail = (what: string, e: unknown): number => {
    io.stderr.write(`agent-guard: ${what} ${displayFile(shown, io.cwd)}: ${describeIoError(e)}\n`);
    return exitCodes.usage;
  };

  // A symlinked transcript is repaired where it really lives (a rename would replace the link).
  let file: string;
  let source: Uint8Array;
  let stat: Stats;
  try {
    file = await fsp.realpath(shown);
    stat = await fsp.stat(file);
    if (!stat.isFile()) {
      io.stderr.write(`agent-guard: ${displayFile(shown, io.cwd)} is not a file\n`);
      return exitCodes.usage;
    }
    source = await fsp.readFile(file);
  } catch (e) {
    return fail('cannot read', e);
  }

  let plan: RepairPlan;
  try {
    plan = planRepair(source, { file, closeOpenCalls: v['close-open-calls'] });
  } catch (e) {
    if (AgentGuardError.is(e)) {
      io.stderr.write(`agent-guard: cannot repair ${displayFile(shown, io.cwd)}: ${e.message}\n`);
      return exitCodes.usage;
    }
    throw e;
  }
  const live = await liveness(file, stat, liveSeconds, plan.cwd);
  const p = paletteFor(io.stdout, io.env);
  const report = (extra: { written: boolean; backup?: string }): void => {
    io.stdout.write(format === 'json' ? renderJson(plan, live, !v.write, extra) : renderPlan(plan, p, io.cwd, shown));
  };

  if (!v.write) {
    report({ written: false });
    if (format === 'text') {
      io.stdout.write(dryRunFooter(plan, live, p));
    }
    return plan.edits.length > 0 || plan.left.some((l) => !l.deliberate) ? exitCodes.findings : exitCodes.ok;
  }
  if (plan.edits.length === 0 && plan.complete) {
    report({ written: false });
    return exitCodes.ok;
  }
  if (!plan.complete) {
    report({ written: false });
    io.stderr.write(`agent-guard: refusing to write ${displayFile(shown, io.cwd)}: ${incompleteReason(plan)}; nothing was written\n`);
    return exitCodes.usage;
  }
  if (isLive(live) && !v.force) {
    io.stderr.write(`agent-guard: refusing to repair ${displayFile(shown, io.cwd)}: ${describeLive(live, plan.cwd)}; the agent may still be writing it. Stop the session first, or use --force if it is not running\n`);
    return exitCodes.usage;
  }

  const repaired = applyRepairPlan(source, plan.edits);
  let backup: string;
  try {
    backup = await writeRepaired(file, source, repaired, stat, v['backup-dir'] === undefined ? undefined : nodePath.resolve(io.cwd, v['backup-dir']));
  } catch (e) {
    return fail(AgentGuardError.is(e, 'refused') ? 'refusing to write' : 'cannot write', e);
  }
  report({ written: true, backup });
  if (format === 'text') {
    io.stdout.write(`Wrote ${displayFile(shown, io.cwd)}; the original is saved as ${displayFile(backup, io.cwd)}.\n`);
  }
  return exitCodes.findings;
}

function incompleteReason(plan: RepairPlan): string {
  const needed = plan.left.filter((l) => !l.deliberate);
  if (needed.length > 0) {
    return `${needed.length} pairing problem${needed.length === 1 ? '' : 's'} cannot be repaired automatically (${needed.map((l) => `line ${l.line}: ${l.rule}`).join(', ')})`;
  }
  const rest = plan.remaining.map((f) => `line ${f.line}: ${f.rule}`).join(', ');
  return `the repaired transcript would still have pairing problems (${rest}), and a half repair is never written`;
}

function renderPlan(plan: RepairPlan, p: Palette, cwd: string, shown: string): string {
  const out: string[] = [p.underline(displayFile(shown, cwd))];
  out.push(p.dim(`  ${agentLabels[plan.agent]} session ${printable(plan.session)}`));
  const rows: { line: number; text: string }[] = [];
  for (const e of plan.edits) {
    const where = e.kind === 'insert' ? `after line ${e.after}` : e.kind === 'move' ? `line ${e.line} → after line ${e.after}` : `line ${e.line}`;
    rows.push({ line: editLine(e), text: `  ${where}: ${printable(e.reason)}  ${p.dim(e.rule)}` });
  }
  for (const l of plan.left) {
    const mark = l.deliberate ? p.dim('left as is') : p.yellow('not repaired');
    rows.push({ line: l.line, text: `  line ${l.line}: ${mark}: ${printable(l.reason)}  ${p.dim(l.rule)}` });
  }
  rows.sort((a, b) => a.line - b.line);
  out.push(...rows.map((r) => r.text));
  const s = summarize(plan.edits);
  if (plan.edits.length === 0) {
    out.push(
      plan.left.length === 0
        ? 'Nothing to repair: no pairing problems.'
        : plan.left.every((l) => l.deliberate)
          ? 'Nothing to repair; calls still open at the end of the file were left as they are.'
          : 'Nothing that repair can change: the problems above need a person.',
    );
  } else {
    const parts = [
      `${s.dropped} dropped`,
      `${s.moved} moved`,
      `${s.added} added`,
      ...(s.relinked > 0 || plan.agent === 'claude-code' ? [`${s.relinked} re-linked`] : []),
      ...(s.rewritten > 0 ? [`${s.rewritten} rewritten`] : []),
    ];
    out.push(`${changesFor(plan)}: lines ${parts.join(', ')}.`);
  }
  return out.join('\n') + '\n';
}

function dryRunFooter(plan: RepairPlan, live: Liveness, p: Palette): string {
  if (plan.edits.length === 0) {
    return '';
  }
  const lines = ['Dry run: nothing was written. Run again with --write to apply it (the original is saved as a backup first).'];
  if (!plan.complete) {
    lines.push(p.yellow(`--write will refuse: ${incompleteReason(plan)}.`));
  }
  if (isLive(live)) {
    lines.push(p.yellow(`--write will refuse without --force: ${describeLive(live, plan.cwd)}.`));
  }
  return lines.join('\n') + '\n';
}

function renderJson(plan: RepairPlan, live: Liveness, dryRun: boolean, extra: { written: boolean; backup?: string }): string {
  return (
    JSON.stringify(
      {
        file: plan.file,
        agent: plan.agent,
        session: plan.session,
        dryRun,
        written: extra.written,
        backup: extra.backup ?? null,
        complete: plan.complete,
        live: isLive(live) ? live : null,
        summary: { problems: plan.findings.length, ...summarize(plan.edits) },
        edits: plan.edits,
        left: plan.left,
        remaining: plan.remaining.map((f) => ({ rule: f.rule, line: f.line, callId: f.callId ?? null, message: f.message })),
      },
      null,
      2,
    ) + '\n'
  );
}

/** `ENOENT: no such file or directory` without the path Node repeats in its message. */
function describeIoError(e: unknown): string {
  if (AgentGuardError.is(e)) {
    return e.message;
  }
  const code = errnoCode(e);
  const message = errorMessage(e);
  const m = /^[A-Z]+: ([^,]+)/.exec(message);
  return code !== undefined && m ? `${code}: ${m[1]}` : message;
}
