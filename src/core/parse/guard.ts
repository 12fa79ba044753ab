import type { z } from 'zod';

/**
 * A plain predicate compiled from a zod schema: true exactly when `schema.safeParse(v)`
 * would succeed. Transcripts are validated line by line, and zod's general machinery
 * (result objects, unknown-key handling) costs as much as JSON.parse itself on real
 * records; the compiled guard costs a few property reads. The zod schema stays the one
 * definition of each shape: the guard is derived from it, zod still produces the error
 * when a guard says no, and a test checks that both agree on every fixture line.
 */
export type Guard = (v: unknown) => boolean;

interface Def {
  type: string;
  shape?: Record<string, { _zod: { def: Def } }>;
  innerType?: { _zod: { def: Def } };
  element?: { _zod: { def: Def } };
  options?: { _zod: { def: Def } }[];
  values?: unknown[];
  entries?: Record<string, unknown>;
  checks?: { _zod: { def: { check: string; minimum?: number; maximum?: number } } }[];
  fn?: (v: unknown) => unknown;
}

const cache = new WeakMap<object, Guard>();

export function compileGuard(schema: z.ZodType): Guard {
  const cached = cache.get(schema);
  if (cached) {
    return cached;
  }
  const g = build((schema as unknown as { _zod: { def: Def } })._zod.def) ?? ((v: unknown) => schema.safeParse(v).success);
  cache.set(schema, g);
  return g;
}

/** Undefined when a node is not understood: the caller then falls back to zod for the whole schema. */
function build(def: Def): Guard | undefined {
  switch (def.type) {
    case 'unknown':
    case 'any':
      return () => true;
    case 'string':
      return withLength(def, (v) => typeof v === 'string');
    case 'number':
      // zod rejects NaN and infinities; JSON cannot produce them, but a guard must not drift.
      return noChecks(def) ? (v) => typeof v === 'number' && Number.isFinite(v) : undefined;
    case 'boolean':
      return noChecks(def) ? (v) => typeof v === 'boolean' : undefined;
    case 'null':
      return (v) => v === null;
    case 'literal': {
      const values = def.values ?? [];
      return values.length === 1 ? (v) => v === values[0] : (v) => values.includes(v);
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
        for (const x of v) {
          if (!el(x)) {
            return false;
          }
        }
        return true;
      };
    }
    case 'union': {
      const opts = (def.options ?? []).map((o) => build(o._zod.def));
      if (opts.some((o) => o === undefined)) {
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
      const fields: [string, Guard][] = [];
      for (const [key, s] of Object.entries(def.shape)) {
        const g = build(s._zod.def);
        if (!g) {
          return undefined;
        }
        fields.push([key, g]);
      }
      return (v) => {
        if (typeof v !== 'object' || v === null || Array.isArray(v)) {
          return false;
        }
        const o = v as Record<string, unknown>;
        for (const [key, g] of fields) {
          if (!g(o[key])) {
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

function noChecks(def: Def): boolean {
  return !def.checks || def.checks.length === 0;
}

function withLength(def: Def, base: Guard): Guard | undefined {
  if (noChecks(def)) {
    return base;
  }
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
  return (v) => base(v) && (v as string).length >= min && (v as string).length <= max;
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
