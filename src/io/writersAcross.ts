import * as nodePath from 'node:path';
import { attributeChange, type OpenChange, type RecordedWrite } from '../core/engine/attributeAcross';
import type { NormalizedEvent } from '../core/model/events';
import type { FormatAdapter } from '../core/parse/adapter';
import { checkFile, type CheckedFile } from './checkFile';

const writeOps = new Set(['write', 'edit', 'create', 'delete']);

/**
 * `check`, after every file was checked: a stale write whose transcript does not name the writer
 * (Finding.changedBetween) is given the writer another of the checked transcripts records, if
 * one wrote that file in between (see core/engine/attributeAcross.ts). Replaces those findings
 * in `results`.
 *
 * It reads transcripts a second time, without rules, but only when there is such a finding, and
 * then only the finding's own file (for the times of its two lines) and those of the other
 * transcripts whose working folder holds one of the files concerned (or names none): a
 * project's sessions, not every session of a large check. What it keeps is the writes of those
 * files, nothing else.
 */
export async function nameWritersAcross(results: CheckedFile[], adapters: readonly FormatAdapter[]): Promise<void> {
  const open = results.flatMap((r) => r.findings.filter((f) => f.changedBetween !== undefined && f.subject !== undefined));
  if (open.length === 0 || results.length < 2) {
    return;
  }
  const paths = new Set(open.map((f) => f.subject!.path));
  const owners = new Set(open.map((f) => f.file));
  const writes: RecordedWrite[] = [];
  const times = new Map<string, Map<number, number>>();
  for (const r of results) {
    const concerned = r.cwd === undefined || [...paths].some((p) => isInside(p, r.cwd!));
    if (!concerned && !owners.has(r.file)) {
      continue;
    }
    const lines = new Set(open.filter((f) => f.file === r.file).flatMap((f) => [f.changedBetween!.seenLine, f.changedBetween!.writeLine]));
    const found = await readWrites(r, paths, lines, adapters);
    writes.push(...found.writes);
    times.set(r.file, found.times);
  }
  for (const r of results) {
    r.findings = r.findings.map((f) => {
      if (f.changedBetween === undefined || f.subject === undefined) {
        return f;
      }
      const at = times.get(f.file);
      const seenTime = at?.get(f.changedBetween.seenLine);
      const writeTime = at?.get(f.changedBetween.writeLine);
      if (seenTime === undefined || writeTime === undefined) {
        return f;
      }
      const change: OpenChange = { finding: f, seenTime, writeTime };
      return attributeChange(change, writes) ?? f;
    });
  }
}

function isInside(path: string, folder: string): boolean {
  const rel = nodePath.relative(folder, path);
  return rel !== '' && !rel.startsWith('..') && !nodePath.isAbsolute(rel);
}

/** One transcript's successful writes of `paths`, and the times of its events on `lines`. */
async function readWrites(
  r: CheckedFile,
  paths: ReadonlySet<string>,
  lines: ReadonlySet<number>,
  adapters: readonly FormatAdapter[],
): Promise<{ writes: RecordedWrite[]; times: Map<number, number> }> {
  const pending = new Map<string, { path: string; line: number; tool: string }[]>();
  const writes: RecordedWrite[] = [];
  const times = new Map<number, number>();
  const observe = (e: NormalizedEvent): void => {
    if (e.kind === 'call') {
      const mine = e.accesses.filter((a) => writeOps.has(a.op) && paths.has(a.path));
      if (mine.length > 0) {
        pending.set(
          e.callId,
          mine.map((a) => ({ path: a.path, line: a.span?.line ?? e.at.line, tool: e.tool })),
        );
      }
    }
    const time = 'timestamp' in e && e.timestamp !== undefined ? Date.parse(e.timestamp) : NaN;
    if (lines.has(e.at.line) && !times.has(e.at.line) && Number.isFinite(time)) {
      times.set(e.at.line, time);
    }
    if (e.kind === 'result') {
      const calls = pending.get(e.callId);
      if (calls !== undefined && !e.isError && Number.isFinite(time)) {
        pending.delete(e.callId);
        for (const c of calls) {
          writes.push({ file: r.file, session: r.session, path: c.path, line: c.line, tool: c.tool, callId: e.callId, time });
        }
      }
    }
  };
  try {
    await checkFile(r.file, { adapters, rules: [], observe });
  } catch {
    // Read once already; if it cannot be read again (gone, moved), it names nobody.
  }
  return { writes, times };
}
