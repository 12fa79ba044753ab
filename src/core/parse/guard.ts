import type { z } from 'zod';

/**
 * A plain predicate compiled from a zod schema: true exactly when `schema.safeParse(v)`
 * would succeed. Transcripts are validated line by line, and zod's general machinery
 * (result objects, unknown-key handling) costs as much as JSON.parse itself on real
 * records; the compiled guard costs a few property reads. The zod schema stays the one
 * definition of each shape: the guard is derived from it, zod still produces the error
 * when a guard says no, and a test (test/unit/core/guard.test.ts) checks that both agree
 * on every fixture line and on mutations of them.
 */
export type Guard = (v: unknown) => boolean;

interface Def {
  type: string;
  /** `optin` is zod's own mark of a field that may be absent (optional, default). */
  shape?: Record<string, { _zod: { def: Def; optin?: string } }>;
  innerType?: { _zod: { def: Def } };
  element?: { _zod: { def: Def } };
  options?: { _zod: { def: Def } }[];
  values?: unknown[];
  entries?: Record<string, unknown>;
  checks?: { _zod: { def: { check: string; minimum?: number; maximum?: number } } }[];
  fn?: (v: unknown) => unknown;
}

const cache = new WeakMap<object, Guard>();

/**
 * The guard of a schema (compiled once per schema object). Adapters call this at module
 * load and keep the result, so the per-line cost is the guard alone.
 */
export function compileGuard(schema: z.ZodType): Guard {
  const cached = cache.get(schema);
  if (cached) {
    return cached;
  }
  const def = (schema as unknown as { _zod: { def: Def } })._zod.def;
  const g = generate(def) ?? build(def) ?? ((v: unknown) => schema.safeParse(v).success);
  cache.set(schema, g);
  return g;
}

// ---------------------------------------------------------------------------------------------
// Code generation: one small function per object or array node, with the property names
// written out, so V8 sees named property loads (inline caches per field) rather than keyed
// loads through a shared loop. Falls back to the closure builder below where `new Function`
// is not allowed.

/** Undefined when a node is not understood (the closure builder, then zod, take over) or eval is unavailable. */
function generate(def: Def): Guard | undefined {
  const refs: unknown[] = [];
  const fns: string[] = [];
  const ref = (x: unknown): string => {
    refs.push(x);
    return `R[${refs.length - 1}]`;
  };
  /** A boolean expression testing the variable `v` (a plain identifier), or undefined. */
  const expr = (d: Def, v: string): string | undefined => {
    switch (d.type) {
      case 'unknown':
      case 'any':
        return 'true';
      case 'string': {
        const len = lengthBounds(d);
        if (!len) {
          return undefined;
        }
        let e = `typeof ${v} === "string"`;
        if (len.min > 0) {
          e += ` && ${v}.length >= ${len.min}`;
        }
        if (len.max !== Infinity) {
          e += ` && ${v}.length <= ${len.max}`;
        }
        return `(${e})`;
      }
      case 'number':
        // zod rejects NaN and infinities (x - x is 0 only for finite numbers).
        return noChecks(d) ? `(typeof ${v} === "number" && ${v} - ${v} === 0)` : undefined;
      case 'boolean':
        return noChecks(d) ? `(typeof ${v} === "boolean")` : undefined;
      case 'null':
        return `(${v} === null)`;
      case 'literal':
      case 'enum': {
        const values = d.type === 'literal' ? (d.values ?? []) : Object.values(d.entries ?? {});
        if (values.length > 0 && values.length <= 8 && values.every((x) => typeof x === 'string' || typeof x === 'boolean' || (typeof x === 'number' && Number.isFinite(x)))) {
          return `(${values.map((x) => `${v} === ${JSON.stringify(x)}`).join(' || ')})`;
        }
        return `${ref(new Set(values))}.has(${v})`;
      }
      case 'optional': {
        const inner = d.innerType && expr(d.innerType._zod.def, v);
        return inner && `(${v} === undefined || ${inner})`;
      }
      case 'nullable': {
        const inner = d.innerType && expr(d.innerType._zod.def, v);
        return inner && `(${v} === null || ${inner})`;
      }
      case 'union': {
        const opts = (d.options ?? []).map((o) => expr(o._zod.def, v));
        if (opts.length === 0 || opts.some((o) => o === undefined)) {
          return undefined;
        }
        return `(${opts.join(' || ')})`;
      }
      case 'custom':
        return d.fn && noChecks(d) ? `!!${ref(d.fn)}(${v})` : undefined;
      case 'array': {
        const el = d.element && noChecks(d) ? expr(d.element._zod.def, 'x') : undefined;
        if (el === undefined) {
          return undefined;
        }
        const slot = fns.push('') - 1;
        const name = `f${slot}`;
        fns[slot] =
          `function ${name}(a) { if (!Array.isArray(a)) return false; ` +
          `for (let i = 0; i < a.length; i++) { const x = a[i]; if (!${el}) return false; } return true; }`;
        return `${name}(${v})`;
      }
      case 'object': {
        if (!noChecks(d) || !d.shape) {
          return undefined;
        }
        const slot = fns.push('') - 1;
        const name = `f${slot}`;
        let body = `function ${name}(o) { if (typeof o !== "object" || o === null || Array.isArray(o)) return false; let x;`;
        for (const [key, s] of Object.entries(d.shape)) {
          const e = expr(s._zod.def, 'x');
          if (e === undefined) {
            return undefined;
          }
          const k = JSON.stringify(key);
          // zod requires the key itself unless the field is optional, even when its schema
          // accepts undefined (z.unknown(), z.any()): `{}` fails `z.object({a: z.unknown()})`.
          const mustHaveKey = s._zod.optin === undefined && acceptsUndefined(s._zod.def);
          if (e !== 'true' || mustHaveKey) {
            body += ` x = o[${k}];`;
            if (mustHaveKey) {
              body += ` if (x === undefined && !(${k} in o)) return false;`;
            }
            if (e !== 'true') {
              body += ` if (!${e}) return false;`;
            }
          }
        }
        fns[slot] = `${body} return true; }`;
        return `${name}(${v})`;
      }
      default:
        return undefined;
    }
  };
  const root = expr(def, 'v');
  if (root === undefined) {
    return undefined;
  }
  const source = `"use strict";\n${fns.join('\n')}\nreturn function guard(v) { return ${root}; };`;
  try {
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- the source is built from the schema's structure only, never from input
    return (new Function('R', source) as (r: unknown[]) => Guard)(refs);
  } catch {
    return undefined;
  }
}

function lengthBounds(def: Def): { min: number; max: number } | undefined {
  let min = 0;
  let max = Infinity;
  for (const c of def.checks ?? []) {
    const d = c._zod.def;
    if (d.check === 'min_length' && d.minimum !== undefined) {
      min = Math.max(min, d.minimum);
    } else if (d.check === 'max_length' && d.maximum !== undefined) {
      max = Math.min(max, d.maximum);
    } else {
      return undefined;
    }
  }
  return { min, max };
}

// ---------------------------------------------------------------------------------------------
// Closure builder: the same predicate without code generation.

/** Undefined when a node is not understood: the caller then falls back to zod for the whole schema. */
function build(def: Def): Guard | undefined {
  switch (def.type) {
    case 'unknown':
    case 'any':
      return () => true;
    case 'string': {
      const len = lengthBounds(def);
      if (!len) {
        return undefined;
      }
      const { min, max } = len;
      return (v) => typeof v === 'string' && v.length >= min && v.length <= max;
    }
    case 'number':
      // zod rejects NaN and infinities; JSON cannot produce them, but a guard must not drift.
      return noChecks(def) ? (v) => typeof v === 'number' && Number.isFinite(v) : undefined;
    case 'boolean':
      return noChecks(def) ? (v) => typeof v === 'boolean' : undefined;
    case 'null':
      return (v) => v === null;
    case 'literal': {
      const values = new Set(def.values ?? []);
      return (v) => values.has(v);
    }
    case 'enum': {
      const values = new Set(Object.values(def.entries ?? {}));
      return (v) => values.has(v);
    }
    case 'optional': {
      const inner = def.innerType && build(def.innerType._zod.def);
      return inner && ((v) => v === undefined || inner(v));
    }
    case 'nullable': {
      const inner = def.innerType && build(def.innerType._zod.def);
      return inner && ((v) => v === null || inner(v));
    }
    case 'array': {
      const el = def.element && build(def.element._zod.def);
      if (!el || !noChecks(def)) {
        return undefined;
      }
      return (v) => {
        if (!Array.isArray(v)) {
          return false;
        }
        for (let i = 0; i < v.length; i++) {
          if (!el(v[i])) {
            return false;
          }
        }
        return true;
      };
    }
    case 'union': {
      const opts = (def.options ?? []).map((o) => build(o._zod.def));
      if (opts.length === 0 || opts.some((o) => o === undefined)) {
        return undefined;
      }
      const all = opts as Guard[];
      return (v) => all.some((o) => o(v));
    }
    case 'custom': {
      const fn = def.fn;
      return fn && noChecks(def) ? (v) => Boolean(fn(v)) : undefined;
    }
    case 'object': {
      if (!noChecks(def) || !def.shape) {
        return undefined;
      }
      const keys: string[] = [];
      const guards: Guard[] = [];
      const required: boolean[] = [];
      for (const [key, s] of Object.entries(def.shape)) {
        const g = build(s._zod.def);
        if (!g) {
          return undefined;
        }
        keys.push(key);
        guards.push(g);
        required.push(s._zod.optin === undefined && g(undefined));
      }
      return (v) => {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) {
          return false;
        }
        const o = v as Record<string, unknown>;
        for (let i = 0; i < keys.length; i++) {
          const x = o[keys[i]!];
          if (!guards[i]!(x) || (x === undefined && required[i] && !(keys[i]! in o))) {
            return false;
          }
        }
        return true;
      };
    }
    default:
      return undefined;
  }
}

/** Does the node's guard accept `undefined` (so an absent key would pass it)? */
function acceptsUndefined(def: Def): boolean {
  const g = build(def);
  return g !== undefined && g(undefined);
}

function noChecks(def: Def): boolean {
  return !def.checks || def.checks.length === 0;
}

/** The closure-built guard alone (no code generation), for the equivalence test. */
export function closureGuard(schema: z.ZodType): Guard | undefined {
  return build((schema as unknown as { _zod: { def: Def } })._zod.def);
}

export type ParseResult<T> = { success: true; data: T } | { success: false; error: z.ZodError };

/**
 * Validates with the compiled guard and, when it passes, returns the value itself typed as
 * the schema's output (unknown keys are still there, just not typed). Only a value the guard
 * rejects goes through zod, which explains what is wrong.
 */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown): ParseResult<z.output<S>> {
  if (compileGuard(schema)(value)) {
    return { success: true, data: value as z.output<S> };
  }
  const r = schema.safeParse(value);
  return r.success ? { success: true, data: r.data } : { success: false, error: r.error };
}

/**
 * A type predicate for a schema: `is(v)` narrows `v` to the schema's output when the guard
 * passes. For the hot paths, which need no error report: no result object per line.
 */
export function guardOf<S extends z.ZodType>(schema: S): (v: unknown) => v is z.output<S> {
  return compileGuard(schema) as (v: unknown) => v is z.output<S>;
}
