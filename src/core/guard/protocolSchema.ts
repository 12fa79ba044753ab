import { z } from 'zod';
import type { GuardWireRequest } from './protocol';
import { hookAgents } from './types';

/*
 * The service's check of what arrives on its socket (protocol.ts). Only the service loads
 * this module: the hook must start without zod.
 */

const op = z.enum(['read', 'write', 'edit', 'create', 'delete']);
const id = z.string().max(200).optional();
const text = z.string().min(1).max(8192);

const callFields = {
  v: z.literal(1),
  id,
  agent: z.enum(hookAgents),
  sessionId: text,
  transcriptPath: text.optional(),
  cwd: text,
  tool: z.string().min(1).max(200),
  toolUseId: z.string().min(1).max(200).optional(),
  inputHash: z.string().regex(/^[0-9a-f]{8,64}$/).optional(),
};

const absolute = text.refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\'), 'paths must be absolute');

const guardRequestSchema = z.discriminatedUnion('type', [
  z.object({ v: z.literal(1), id, type: z.literal('ping') }),
  z.object({ v: z.literal(1), id, type: z.literal('inflight'), transcriptPath: absolute }),
  z.object({ ...callFields, type: z.literal('pre'), paths: z.array(z.object({ path: absolute, op })).max(1000) }),
  z.object({
    ...callFields,
    type: z.literal('post'),
    failed: z.boolean().optional(),
    paths: z
      .array(z.object({ path: absolute, op, hash: z.string().regex(/^[0-9a-f]{64}$/).nullable() }))
      .max(1000),
  }),
]);

/** Compile-time check that the schema and the wire types agree. */
export type CheckedRequest = z.output<typeof guardRequestSchema>;
const _sameShape: (r: CheckedRequest) => GuardWireRequest = (r) => r;
void _sameShape;

/** A request from the socket, or why it is not one (version first: a newer hook gets a clear answer). */
export function parseGuardRequest(value: unknown): { ok: true; request: GuardWireRequest } | { ok: false; error: string } {
  if (typeof value === 'object' && value !== null && 'v' in value && value.v !== 1) {
    return { ok: false, error: `unsupported protocol version ${JSON.stringify(value.v)} (this service speaks 1)` };
  }
  const r = guardRequestSchema.safeParse(value);
  if (!r.success) {
    return { ok: false, error: r.error.issues.map((i) => `${i.path.join('.') || '(request)'}: ${i.message}`).join('; ') };
  }
  return { ok: true, request: r.data };
}
