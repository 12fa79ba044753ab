/**
 * Real records, damaged: every value of a real transcript line may come back as any JSON type,
 * lose a key, take a value from elsewhere in the file, or be cut; lines may repeat; bytes may be
 * lost or foreign. Whatever the damage, `check` must not throw, must not fail inside itself (an
 * `internal-error` finding), and must find the same things fed whole or in pieces.
 *
 * Two ways: a sweep that gives every field (to depth 3) of every distinct record shape each wrong
 * JSON type in turn, and random damage of whole files. Deterministic: random case N uses the PRNG
 * seeded with N, so a failure names the case that replays it. (Random damage of larger real sets
 * found `toolUseResult: null` reaching an `in` test in the Claude Code adapter; the sweep finds it
 * every time.)
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { ruleCrashedId } from '../../../src/core/engine/engine';
import { fixture } from '../support/repo';
import { brief, prng, run, splitAt } from '../support/run';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const cases = 400;

/** Values no writer produces where they land: wrong types, empty and huge, hostile strings, other records' shapes. */
const strange: readonly Json[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e308,
  '',
  'x',
  '../../../../etc/passwd',
  '/',
  'a'.repeat(5000),
  '\u0000',
  '\ud800',
  '*',
  '{a,b}',
  '$(touch /tmp/pwned)',
  [],
  {},
  [null],
  { type: null },
  [{}],
  { '0': 1 },
  'toolu_X',
  'call_X',
  { type: 'tool_use', id: 'toolu_Z', name: 'Write', input: { file_path: '/x' } },
  { type: 'tool_result', tool_use_id: 'toolu_Z', content: null },
];

function transcripts(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      out.push(...transcripts(p));
    } else if (/\.jsonl?$/.test(e.name)) {
      out.push(p);
    }
  }
  return out.sort();
}

/** Every path to a value inside `v` (the root is the empty path). */
function valuePaths(v: Json, at: string[] = [], out: string[][] = []): string[][] {
  out.push(at);
  if (v !== null && typeof v === 'object') {
    for (const k of Object.keys(v)) {
      valuePaths((v as Record<string, Json>)[k]!, [...at, k], out);
    }
  }
  return out;
}

function valueAt(v: Json, at: readonly string[]): Json {
  let cur = v;
  for (const k of at) {
    cur = (cur as Record<string, Json>)[k]!;
  }
  return cur;
}

/** One damage to one record, in place (the root itself may be swapped: the new value is returned). */
function damage(record: Json, others: readonly Json[], rnd: () => number): Json {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  // Mostly a field near the top, where record kinds and tool metadata live: picked uniformly,
  // the deep content of a large record would take nearly every hit.
  const all = valuePaths(record);
  const depth = rnd();
  const near = all.filter((p) => p.length === (depth < 0.4 ? 1 : 2));
  const at = pick(depth < 0.7 && near.length > 0 ? near : all);
  if (at.length === 0) {
    return rnd() < 0.5 ? pick(strange) : record;
  }
  const parent = valueAt(record, at.slice(0, -1)) as Record<string, Json> | Json[];
  const key = at[at.length - 1]!;
  const op = rnd();
  if (op < 0.15) {
    if (Array.isArray(parent)) {
      parent.splice(Number(key), 1);
    } else {
      delete parent[key];
    }
  } else if (op < 0.7) {
    (parent as Record<string, Json>)[key] = structuredClone(pick(strange));
  } else if (op < 0.85) {
    const donor = pick(others);
    (parent as Record<string, Json>)[key] = structuredClone(valueAt(donor, pick(valuePaths(donor))));
  } else {
    const cur = (parent as Record<string, Json>)[key]!;
    if (typeof cur === 'string' && cur.length > 0) {
      const i = Math.floor(rnd() * cur.length);
      (parent as Record<string, Json>)[key] = cur.slice(0, i) + cur.slice(i + 1 + Math.floor(rnd() * 3));
    } else {
      (parent as Record<string, Json>)[key] = [cur, cur];
    }
  }
  return record;
}

/** The damaged transcript of case `seed`. */
function damaged(files: readonly string[], seed: number): { file: string; bytes: Uint8Array; rnd: () => number } {
  const rnd = prng(seed);
  const file = files[Math.floor(rnd() * files.length)]!;
  const lines = readFileSync(file, 'utf8').split('\n');
  const records = lines.map((l): Json | undefined => {
    try {
      return JSON.parse(l) as Json;
    } catch {
      return undefined;
    }
  });
  const others = records.filter((r): r is Json => r !== undefined);
  const hits = 1 + Math.floor(rnd() * 4);
  for (let h = 0; h < hits; h++) {
    const i = Math.floor(rnd() * lines.length);
    const rec = records[i];
    if (rec === undefined) {
      continue;
    }
    lines[i] = JSON.stringify(damage(structuredClone(rec), others, rnd)) ?? 'null';
    if (rnd() < 0.1) {
      // A replayed line, as an ack-loss retry writes it.
      lines.splice(Math.floor(rnd() * lines.length), 0, lines[i]);
    }
  }
  let text = lines.join('\n');
  if (rnd() < 0.2) {
    const i = Math.floor(rnd() * text.length);
    const r = rnd();
    text = r < 0.3 ? text.slice(0, i) : r < 0.6 ? text.slice(0, i) + String.fromCharCode(Math.floor(rnd() * 0x80)) + text.slice(i) : text.slice(0, i) + '\n' + text.slice(i);
  }
  let bytes: Uint8Array = new TextEncoder().encode(text);
  if (rnd() < 0.05) {
    const mid = bytes.length >> 1;
    bytes = new Uint8Array([...bytes.subarray(0, mid), 0xff, 0xc3, ...bytes.subarray(mid)]);
  }
  return { file, bytes, rnd };
}

/** What tells one record shape from another: its kinds, its first block's, its metadata's keys. */
function shapeOf(v: Json): string {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    return typeof v;
  }
  const r = v as Record<string, Json>;
  const inner = (x: Json | undefined): Record<string, Json> => (x !== null && typeof x === 'object' && !Array.isArray(x) ? x : {});
  const content = inner(r['message'])['content'];
  const block = Array.isArray(content) ? inner(content[0]) : {};
  const kind = (x: Json | undefined): string => (typeof x === 'string' ? x : '');
  return [kind(r['type']), kind(inner(r['payload'])['type']), kind(block['type']), Object.keys(inner(r['toolUseResult'])).sort().join(',')].join('/');
}

const wrongTypes: readonly Json[] = [null, true, 0, '', [], {}];

/**
 * The fields the sweep damages: those of the record to depth 3, and those of a Codex call's
 * arguments to depth 2 (a JSON document inside a string, which damage to the record never
 * reaches: `{"command": []}` there threw in the shell reader).
 */
function fieldsOf(record: Json): { at: string[]; inArguments: boolean }[] {
  const out = valuePaths(record)
    .filter((p) => p.length >= 1 && p.length <= 3)
    .map((at) => ({ at, inArguments: false }));
  const payload = record !== null && typeof record === 'object' && !Array.isArray(record) ? record['payload'] : undefined;
  const args = payload !== null && typeof payload === 'object' && !Array.isArray(payload) ? payload?.['arguments'] : undefined;
  if (typeof args === 'string') {
    let doc: Json;
    try {
      doc = JSON.parse(args) as Json;
    } catch {
      return out;
    }
    out.push(...valuePaths(doc).filter((p) => p.length >= 1 && p.length <= 2).map((at) => ({ at, inArguments: true })));
  }
  return out;
}

void describe('damaged real records', () => {
  const files = transcripts(fixture('real'));

  void test('every field of every record shape, as each wrong JSON type: no throw, no internal error', () => {
    const failures: string[] = [];
    let runs = 0;
    for (const file of files) {
      const lines = readFileSync(file, 'utf8').split('\n').slice(0, 300);
      const seen = new Set<string>();
      lines.forEach((line, i) => {
        let record: Json;
        try {
          record = JSON.parse(line) as Json;
        } catch {
          return;
        }
        const shape = shapeOf(record);
        if (seen.has(shape)) {
          return;
        }
        seen.add(shape);
        for (const { at, inArguments } of fieldsOf(record)) {
          for (const wrong of wrongTypes) {
            const copy = structuredClone(record);
            if (inArguments) {
              // A field of a Codex call's arguments, a JSON document of its own inside a string.
              const payload = (copy as Record<string, Record<string, Json>>)['payload']!;
              const args = JSON.parse(payload['arguments'] as string) as Json;
              (valueAt(args, at.slice(0, -1)) as Record<string, Json>)[at[at.length - 1]!] = structuredClone(wrong);
              payload['arguments'] = JSON.stringify(args);
            } else {
              const parent = valueAt(copy, at.slice(0, -1)) as Record<string, Json>;
              parent[at[at.length - 1]!] = structuredClone(wrong);
            }
            // The first line (a rollout's session_meta), the 20 before it (its call) and two
            // after (what pairs with it).
            const before = i > 21 ? [lines[0]!, ...lines.slice(i - 20, i)] : lines.slice(0, i);
            const text = [...before, JSON.stringify(copy), ...lines.slice(i + 1, i + 3)].join('\n');
            runs++;
            const field = `${inArguments ? 'payload.arguments→' : ''}${at.join('.')}`;
            try {
              const internal = run(text, { file }).findings.filter((f) => f.rule === ruleCrashedId);
              if (internal.length > 0) {
                failures.push(`${path.basename(file)}:${i + 1} ${field} = ${JSON.stringify(wrong)}: ${internal[0]!.message}`);
              }
            } catch (e) {
              failures.push(`${path.basename(file)}:${i + 1} ${field} = ${JSON.stringify(wrong)} threw: ${e instanceof Error ? e.message : String(e)}`);
            }
          }
        }
      });
    }
    assert.deepEqual(failures, []);
    assert.ok(runs > 1000, `${runs} runs`);
  });

  void test(`${cases} damaged copies of the real fixtures: no throw, no internal error, whole = in pieces (batch and live)`, () => {
    assert.ok(files.length >= 20, `the real fixtures (${files.length})`);
    const failures: string[] = [];
    let withFindings = 0;
    for (let seed = 1; seed <= cases; seed++) {
      const { file, bytes, rnd } = damaged(files, seed);
      const mode = seed % 2 === 0 ? 'live' : 'batch';
      const name = path.basename(file);
      // The session's own path: the adapters pick the format from it (a rollout, a sub-agent).
      const opts = { file, mode, clock: () => 0 } as const;
      try {
        const whole = run(bytes, opts).findings;
        const pieces = run(bytes, { ...opts, chunks: splitAt(bytes, [rnd(), rnd(), rnd()].map((r) => Math.floor(r * bytes.length))) }).findings;
        const internal = whole.filter((f) => f.rule === ruleCrashedId);
        if (internal.length > 0) {
          failures.push(`case ${seed} (${name}, ${mode}): ${internal.map((f) => `line ${f.line}: ${f.message}`).join('; ')}`);
        } else if (JSON.stringify(brief(whole)) !== JSON.stringify(brief(pieces))) {
          failures.push(`case ${seed} (${name}, ${mode}): whole ${JSON.stringify(brief(whole))} ≠ in pieces ${JSON.stringify(brief(pieces))}`);
        }
        withFindings += whole.length > 0 ? 1 : 0;
      } catch (e) {
        failures.push(`case ${seed} (${name}, ${mode}) threw: ${e instanceof Error ? e.stack : String(e)}`);
      }
    }
    assert.deepEqual(failures, []);
    // The damage is real: most copies break something a rule or the parser reports.
    assert.ok(withFindings > cases / 2, `${withFindings} of ${cases} damaged copies gave findings`);
  });
});
