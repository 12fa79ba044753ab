/**
 * The guard socket's wire format: newline-delimited JSON, one request per line, one response
 * line per request, every message versioned (`"v":1`). The hook sends one request per
 * connection; the service answers requests in the order they arrive on a connection.
 * Types only (the hook bundle stays zod-free); the service validates with protocolSchema.ts.
 */
import type { AccessOp } from '../model/events';
import type { GuardHit, HookAgent, Verdict } from './types';

const protocolVersion = 1;

/** Longest request line the service reads (a Write's content is not sent, only paths and hashes). */
export const maxRequestBytes = 1 << 20;

export interface PingRequest {
  v: 1;
  id?: string;
  type: 'ping';
}

interface CallFields {
  v: 1;
  id?: string;
  agent: HookAgent;
  sessionId: string;
  transcriptPath?: string;
  cwd: string;
  tool: string;
  toolUseId?: string;
  inputHash?: string;
}

/** Before the tool runs: may it write these paths? */
export interface PreRequest extends CallFields {
  type: 'pre';
  paths: { path: string; op: AccessOp }[];
}

/**
 * After the tool ran: what it read or wrote, with the sha256 of each file as the hook found
 * it on disk at that moment (null: absent) — what the session really saw.
 */
export interface PostRequest extends CallFields {
  type: 'post';
  /** The tool failed: nothing was read or written (its write, if any, is over). */
  failed?: boolean;
  paths: { path: string; op: AccessOp; hash: string | null }[];
}

/**
 * Which writes of a session are in flight (the guard allowed them and neither the hook's
 * post-tool report nor the transcript's result has come): `repair --write` asks before it
 * rewrites a transcript, since a running call's result is yet to be appended.
 */
export interface InflightRequest {
  v: 1;
  id?: string;
  type: 'inflight';
  /** The transcript, absolute: the service keys sessions by it. */
  transcriptPath: string;
}

export type GuardWireRequest = PingRequest | PreRequest | PostRequest | InflightRequest;

/** A write in flight: its file, its call (when the agent names it) and since when (epoch ms). */
export interface InflightWrite {
  path: string;
  callId?: string;
  since: number;
}

export interface ServiceInfo {
  pid: number;
  workspace: string;
  version: string;
  startedAt: number;
}

export type GuardWireResponse =
  | { v: 1; id?: string; ok: true; type: 'pong'; service: ServiceInfo }
  | { v: 1; id?: string; ok: true; type: 'verdict'; verdict: Verdict }
  | { v: 1; id?: string; ok: true; type: 'recorded' }
  | { v: 1; id?: string; ok: true; type: 'inflight'; writes: InflightWrite[] }
  | { v: 1; id?: string; ok: false; error: string };

/**
 * Checks a response line by hand (the hook side): anything unexpected is "no usable answer",
 * which the hook treats like no service at all.
 */
export function readResponse(line: string): GuardWireResponse | undefined {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null || (v as { v?: unknown }).v !== protocolVersion) {
    return undefined;
  }
  const r = v as Record<string, unknown>;
  if (r['ok'] === false) {
    return { v: 1, ok: false, error: typeof r['error'] === 'string' ? r['error'] : 'unknown error' };
  }
  if (r['ok'] !== true) {
    return undefined;
  }
  if (r['type'] === 'verdict') {
    const verdict = r['verdict'];
    return isVerdict(verdict) ? { v: 1, ok: true, type: 'verdict', verdict } : undefined;
  }
  if (r['type'] === 'recorded') {
    return { v: 1, ok: true, type: 'recorded' };
  }
  if (r['type'] === 'inflight') {
    const writes = r['writes'];
    return Array.isArray(writes) && writes.every(isInflightWrite) ? { v: 1, ok: true, type: 'inflight', writes } : undefined;
  }
  if (r['type'] === 'pong' && typeof r['service'] === 'object' && r['service'] !== null) {
    return { v: 1, ok: true, type: 'pong', service: r['service'] as ServiceInfo };
  }
  return undefined;
}

function isVerdict(v: unknown): v is Verdict {
  if (typeof v !== 'object' || v === null) {
    return false;
  }
  const o = v as Record<string, unknown>;
  return (
    (o['action'] === 'allow' || o['action'] === 'warn' || o['action'] === 'deny') &&
    typeof o['reason'] === 'string' &&
    Array.isArray(o['hits']) &&
    (o['hits'] as unknown[]).every(isHit)
  );
}

function isInflightWrite(v: unknown): v is InflightWrite {
  if (typeof v !== 'object' || v === null) {
    return false;
  }
  const w = v as Record<string, unknown>;
  return typeof w['path'] === 'string' && typeof w['since'] === 'number' && (w['callId'] === undefined || typeof w['callId'] === 'string');
}

function isHit(v: unknown): v is GuardHit {
  return typeof v === 'object' && v !== null && typeof (v as GuardHit).reason === 'string' && typeof (v as GuardHit).path === 'string';
}
