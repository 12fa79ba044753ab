/**
 * The compiled guards (src/core/parse/guard.ts) must say exactly what zod says: the adapters
 * trust a guard's "yes" without asking zod. Checked for every schema the adapters export, on
 * every line of every fixture transcript, every object and array inside those lines, and
 * mutations of them (a field removed, set to null, to undefined, to a value of another type,
 * an empty string, an extra key).
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import type { z } from 'zod';
import * as claudeSchemas from '../../../src/core/parse/claude/schema';
import * as codexSchemas from '../../../src/core/parse/codex/schema';
import * as geminiSchemas from '../../../src/core/parse/gemini/schema';
import * as amplifierSchemas from '../../../src/core/parse/amplifier/schema';
import { closureGuard, compileGuard, type Guard } from '../../../src/core/parse/guard';
import { fixture } from '../support/repo';

interface Checked {
  name: string;
  schema: z.ZodType;
  compiled: Guard;
  closure: Guard | undefined;
}

function schemasOf(prefix: string, mod: Record<string, unknown>): Checked[] {
  return Object.entries(mod)
    .filter(([, s]) => typeof s === 'object' && s !== null && '_zod' in s && typeof (s as z.ZodType).safeParse === 'function')
    .map(([name, s]) => ({ name: `${prefix}.${name}`, schema: s as z.ZodType, compiled: compileGuard(s as z.ZodType), closure: closureGuard(s as z.ZodType) }));
}

const schemas: Checked[] = [
  ...schemasOf('claude', claudeSchemas),
  ...schemasOf('codex', codexSchemas),
  ...schemasOf('gemini', geminiSchemas),
  ...schemasOf('amplifier', amplifierSchemas),
];

function transcripts(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) {
      return transcripts(p);
    }
    return /\.jsonl?$/.test(p) ? [p] : [];
  });
}

/** Every JSON value of every fixture line (and whole .json documents). */
function fixtureValues(): unknown[] {
  const out: unknown[] = [];
  for (const file of [...transcripts(fixture('real')), ...transcripts(fixture('transcripts'))]) {
    const text = readFileSync(file, 'utf8');
    const docs = file.endsWith('.json') ? [text] : text.split('\n');
    for (const line of docs) {
      try {
        out.push(JSON.parse(line));
      } catch {
        // blank or broken lines: nothing to validate
      }
    }
  }
  return out;
}

/** Objects and arrays inside a value (itself first), with the path to each. */
function nodes(v: unknown, at: (string | number)[] = [], out: { path: (string | number)[]; value: unknown }[] = [], depth = 0): typeof out {
  if (typeof v !== 'object' || v === null || depth > 6) {
    return out;
  }
  out.push({ path: at, value: v });
  if (Array.isArray(v)) {
    // The first few elements stand for the rest (tool outputs can hold thousands).
    v.slice(0, 4).forEach((x, i) => nodes(x, [...at, i], out, depth + 1));
  } else {
    for (const [k, x] of Object.entries(v)) {
      nodes(x, [...at, k], out, depth + 1);
    }
  }
  return out;
}

/**
 * A shape signature: many fixture lines differ only in their text, ids and numbers. Strings
 * that look like a tag (`tool_use`, `response_item`) are kept, since literals and enums test
 * them; the empty string is kept for the min-length checks; any other string is just a string.
 */
function signature(v: unknown): string {
  return (
    JSON.stringify(v, (_k, x: unknown) =>
      typeof x === 'string'
        ? x === '' || /^[A-Za-z_-]{1,32}$/.test(x)
          ? x
          : '~'
        : typeof x === 'number'
          ? 0
          : x === undefined
            ? '(undefined)'
            : Array.isArray(x)
              ? x.slice(0, 4)
              : x,
    ) ?? 'undefined'
  );
}

/** Values of every JSON type (and undefined), the empty string, and a tag no schema knows. */
const wrongTypes: unknown[] = [undefined, null, 1, '', 'not_a_known_tag', true, [], {}];

/** Copies of `root` with one change at `at`: the node itself replaced by each wrong type, and each of its keys mutated. */
function mutations(root: unknown, at: (string | number)[], node: unknown): unknown[] {
  const variants: unknown[] = wrongTypes.map((w) => replaceAt(root, at, () => w));
  if (Array.isArray(node)) {
    variants.push(replaceAt(root, at, () => [...(node as unknown[]), null]));
    variants.push(replaceAt(root, at, () => [...(node as unknown[]), 'text']));
  } else if (typeof node === 'object' && node !== null) {
    const obj = node as Record<string, unknown>;
    variants.push(replaceAt(root, at, () => ({ ...obj, extraKeyNotInAnySchema: 1 })));
    for (const key of Object.keys(obj)) {
      variants.push(
        replaceAt(root, at, () => {
          const copy = { ...obj };
          delete copy[key];
          return copy;
        }),
      );
      for (const w of wrongTypes) {
        variants.push(replaceAt(root, at, () => ({ ...obj, [key]: w })));
      }
    }
  }
  return variants;
}

function replaceAt(root: unknown, at: (string | number)[], make: () => unknown): unknown {
  if (at.length === 0) {
    return make();
  }
  const [head, ...rest] = at;
  const copy = (Array.isArray(root) ? [...(root as unknown[])] : { ...(root as Record<string, unknown>) }) as Record<string | number, unknown>;
  copy[head!] = replaceAt((root as Record<string | number, unknown>)[head!], rest, make);
  return copy;
}

function valueAt(root: unknown, at: (string | number)[]): unknown {
  let v = root;
  for (const k of at) {
    v = (v as Record<string | number, unknown>)[k];
  }
  return v;
}

/** Checks `among` (default: every schema) on `v`; returns the disagreements. */
function disagreements(v: unknown, where: string, among: readonly Checked[] = schemas): string[] {
  const out: string[] = [];
  for (const s of among) {
    const zodSays = s.schema.safeParse(v).success;
    if (s.compiled(v) !== zodSays) {
      out.push(`${s.name} compiled guard says ${!zodSays}, zod ${zodSays}, on ${where}: ${JSON.stringify(v)?.slice(0, 300)}`);
    }
    if (s.closure && s.closure(v) !== zodSays) {
      out.push(`${s.name} closure guard says ${!zodSays}, zod ${zodSays}, on ${where}: ${JSON.stringify(v)?.slice(0, 300)}`);
    }
  }
  return out;
}

/** The schemas zod accepts `v` with. */
function accepting(v: unknown): Checked[] {
  return schemas.filter((s) => s.schema.safeParse(v).success);
}

void describe('compiled guards agree with zod', () => {
  const values = fixtureValues();

  void test('the adapters export schemas, and every one of them compiles to a guard without zod', () => {
    assert.ok(schemas.length >= 30, `found ${schemas.length} schemas`);
    const fallback = schemas.filter((s) => s.closure === undefined).map((s) => s.name);
    assert.deepEqual(fallback, [], 'schemas the guard builder does not understand (they fall back to zod, slowly)');
  });

  void test('on every fixture line and every object or array inside it', () => {
    assert.ok(values.length > 1000, `found ${values.length} lines`);
    const bad: string[] = [];
    const seen = new Set<string>();
    for (const v of values) {
      for (const n of nodes(v)) {
        const sig = signature(n.value);
        if (seen.has(sig)) {
          continue;
        }
        seen.add(sig);
        bad.push(...disagreements(n.value, `/${n.path.join('/')}`));
      }
    }
    assert.deepEqual(bad.slice(0, 20), []);
  });

  void test('on values of every JSON type', () => {
    const bad: string[] = [];
    for (const w of [...wrongTypes, 0, -1, 1.5, 'text', false, [null], [{}], { type: 'text' }, { type: 'text', text: '' }]) {
      bad.push(...disagreements(w, JSON.stringify(w) ?? 'undefined'));
    }
    assert.deepEqual(bad, []);
  });

  void test('on mutations of fixture lines (fields removed, nulls, wrong types, empty strings, extra keys)', () => {
    const bad: string[] = [];
    const seen = new Set<string>();
    /** Mutated values already checked (the same change to the same shape is not checked twice). */
    const checkedShapes = new Set<string>();
    let checked = 0;
    for (const v of values) {
      const sig = signature(v);
      if (seen.has(sig)) {
        continue;
      }
      seen.add(sig);
      const all = nodes(v).filter((n) => n.path.length <= 3);
      /** Per node of the original line, the schemas that accept it. */
      const accepted = new Map(all.map((n) => [n.path.join('/'), accepting(n.value)]));
      for (const n of all) {
        for (const m of mutations(v, n.path, n.value)) {
          // Each node on the way up to the line, the mutated node itself included, against the
          // schemas that accepted it before the change: the change alone then decides, so a
          // guard that handles one field type differently from zod shows up. (A schema that
          // rejects the original for another reason rejects its mutations as well.)
          for (let d = n.path.length; d >= 0; d--) {
            const at = n.path.slice(0, d);
            const among = accepted.get(at.join('/'))!;
            if (among.length === 0) {
              continue;
            }
            const part = valueAt(m, at);
            const shape = `${among.map((s) => s.name).join(',')}|${signature(part)}`;
            if (checkedShapes.has(shape)) {
              continue;
            }
            checkedShapes.add(shape);
            bad.push(...disagreements(part, `mutation at /${n.path.join('/')} seen from /${at.join('/')}`, among));
            checked++;
          }
        }
      }
      if (bad.length > 20) {
        break;
      }
    }
    assert.ok(checked > 10_000, `only ${checked} mutated values`);
    assert.deepEqual(bad.slice(0, 20), []);
  });
});
