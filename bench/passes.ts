/**
 * One workload of bench:check over one family's files of its corpus, from memory: a warm pass,
 * then N more. `bench/instructions.sh` runs it under valgrind twice (N = 1 and N = 3) and halves
 * the difference, to count the instructions of one pass without start-up or warm-up: a figure
 * that does not move with the machine's load, where timed ratios move by ±25 % (bench/README.md).
 *
 *   node out/bench/passes.js --corpus DIR --family codex --workload check --passes 3 --mb 2 [--rules=SPEC] [--no-release]
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { TranscriptStream } from '../src/core/engine/stream';
import { LineSplitter, type RawLine } from '../src/core/parse/lineSplitter';
import { adapters } from '../src/core/parse/registry';
import type { RuleModule } from '../src/core/engine/rule';
import { allRules } from '../src/core/rules/all';

const workloads = ['baseline', 'lines', 'engine', 'check'] as const;
type Workload = (typeof workloads)[number];

const { values } = parseArgs({
  options: {
    corpus: { type: 'string' },
    family: { type: 'string', default: 'codex' },
    workload: { type: 'string', default: 'check' },
    passes: { type: 'string', default: '1' },
    mb: { type: 'string', default: '2' },
    rules: { type: 'string' },
    /** A finished file's state not emptied, as before RuleEngine.release (to see what it buys). */
    'no-release': { type: 'boolean', default: false },
  },
});
const workload = values.workload as Workload;
if (values.corpus === undefined || !workloads.includes(workload)) {
  process.stderr.write(`usage: passes.js --corpus DIR [--family claude|subagent|codex] [--workload ${workloads.join('|')}] [--passes N] [--mb MB] [--rules=ID,...|-ID,...|empty] [--no-release]\n`);
  process.exit(2);
}
const corpus = values.corpus;
const manifest = JSON.parse(fs.readFileSync(path.join(corpus, 'manifest.json'), 'utf8')) as { files: { path: string; family: string; bytes: number }[] };
const limit = Number(values.mb) * 1e6;

/** The family's first files, in generation order (the corpus's mix of sizes), up to the limit. */
const files: { file: string; bytes: Buffer }[] = [];
let total = 0;
for (const f of manifest.files) {
  if (f.family === values.family && total < limit) {
    const file = path.join(corpus, f.path);
    files.push({ file, bytes: fs.readFileSync(file) });
    total += f.bytes;
  }
}

/** The reads `check` makes: 1 MiB chunks. */
const chunk = 1 << 20;

/** What bench:check's baseline does, from a buffer: split at \n, decode each line, JSON.parse. */
function baseline(buf: Buffer): void {
  let start = 0;
  for (;;) {
    const nl = buf.indexOf(0x0a, start);
    const end = nl === -1 ? buf.length : nl;
    if (end > start) {
      JSON.parse(buf.toString('utf8', start, end));
    }
    if (nl === -1) {
      return;
    }
    start = nl + 1;
  }
}

function lines(buf: Buffer): void {
  const splitter = new LineSplitter();
  const onLine = (l: RawLine): void => {
    if (l.text.length > 0) {
      try {
        JSON.parse(l.text);
      } catch {
        // counted as a malformed line by the real parser
      }
    }
  };
  for (let i = 0; i < buf.length; i += chunk) {
    splitter.push(buf.subarray(i, i + chunk), onLine);
  }
  splitter.end(onLine);
}

/**
 * The `check` workload's rules. `--rules=a,b`: only those (what one rule costs); `--rules=-a,b`:
 * all but those; `--rules=empty`: one rule that listens to nothing (what having any rule costs:
 * it is how the collector's nepotism, RuleEngine.release, was found).
 */
function chooseRules(spec: string | undefined): RuleModule[] {
  if (spec === undefined) {
    return [...allRules];
  }
  if (spec === 'empty') {
    return [{ meta: { ...allRules[0]!.meta, id: 'empty' }, create: () => ({}) }];
  }
  const except = spec.startsWith('-');
  const ids = (except ? spec.slice(1) : spec).split(',');
  return allRules.filter((r) => ids.includes(r.meta.id) !== except);
}
const ruleList = chooseRules(values.rules);

let findings = 0;
function stream(file: string, buf: Buffer, withRules: boolean): void {
  const s = new TranscriptStream({ file, adapters, rules: withRules ? ruleList : [], mode: 'batch', sink: { add: () => void findings++, retract: () => undefined } });
  for (let i = 0; i < buf.length; i += chunk) {
    s.push(buf.subarray(i, i + chunk));
  }
  s.end();
  if (!values['no-release']) {
    s.release(); // as checkFile does
  }
}

const run: Record<Workload, (file: string, buf: Buffer) => void> = {
  baseline: (_file, buf) => baseline(buf),
  lines: (_file, buf) => lines(buf),
  engine: (file, buf) => stream(file, buf, false),
  check: (file, buf) => stream(file, buf, true),
};
for (let p = 0; p <= Number(values.passes); p++) {
  for (const f of files) {
    run[workload](f.file, f.bytes);
  }
}
process.stderr.write(`${values.family} ${workload}: ${files.length} files, ${(total / 1e6).toFixed(1)} MB, ${Number(values.passes) + 1} passes, ${findings} findings\n`);
