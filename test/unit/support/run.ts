import type { RuleConfig } from '../../../src/core/config/ruleConfig';
import type { RuleModule, RuleServices } from '../../../src/core/engine/rule';
import { TranscriptStream } from '../../../src/core/engine/stream';
import type { AgentKind } from '../../../src/core/model/agent';
import type { NormalizedEvent } from '../../../src/core/model/events';
import type { Finding } from '../../../src/core/model/finding';
import { adapters } from '../../../src/core/parse/registry';
import { allRules } from '../../../src/core/rules/all';

export interface RunOptions {
  file?: string;
  rules?: readonly RuleModule[];
  config?: RuleConfig;
  mode?: 'batch' | 'live';
  agent?: AgentKind;
  /** Byte chunks to feed instead of one buffer (to test incremental parsing). */
  chunks?: Uint8Array[];
  services?: RuleServices;
  clock?: () => number;
  end?: boolean;
}

export interface RunResult {
  findings: Finding[];
  events: NormalizedEvent[];
  stream: TranscriptStream;
}

/** Runs text (or bytes) through the full pipeline — adapters, engine, rules — like `check` does. */
export function run(input: string | Uint8Array, opts: RunOptions = {}): RunResult {
  const findings = new Map<string, Finding>();
  const events: NormalizedEvent[] = [];
  const stream = new TranscriptStream({
    file: opts.file ?? '/tmp/session.jsonl',
    adapters,
    rules: opts.rules ?? allRules,
    mode: opts.mode ?? 'batch',
    sink: { add: (f) => findings.set(f.id, f), retract: (id) => findings.delete(id) },
    observe: (e) => events.push(e),
    ...(opts.config ? { config: opts.config } : {}),
    ...(opts.agent ? { agent: opts.agent } : {}),
    ...(opts.services ? { services: opts.services } : {}),
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  const chunks = opts.chunks ?? [typeof input === 'string' ? new TextEncoder().encode(input) : input];
  for (const c of chunks) {
    stream.push(c);
  }
  if (opts.end !== false) {
    stream.end();
  }
  return { findings: sortFindings([...findings.values()]), events, stream };
}

export function sortFindings(list: Finding[]): Finding[] {
  return list.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column || a.rule.localeCompare(b.rule) || a.id.localeCompare(b.id));
}

/** The comparable essence of findings: rule, severity, line and span. */
export function brief(findings: readonly Finding[]): string[] {
  return findings.map((f) => `${f.rule}@${f.line}:${f.column}-${f.endColumn}:${f.severity}`);
}

/** Splits bytes at the given offsets. */
export function splitAt(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const sorted = [...new Set(cuts.filter((c) => c > 0 && c < bytes.length))].sort((a, b) => a - b);
  const out: Uint8Array[] = [];
  let prev = 0;
  for (const c of sorted) {
    out.push(bytes.subarray(prev, c));
    prev = c;
  }
  out.push(bytes.subarray(prev));
  return out;
}

/** Deterministic PRNG (mulberry32) so a failing random split can be replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
