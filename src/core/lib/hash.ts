import { createHash } from 'node:crypto';

/** SHA-256 in hex, of a text's UTF-8 or of bytes as they are (a file as the working tree hashes it). */
export function sha256(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * A short fingerprint of a text, to tell whether two versions of a file are the same without
 * keeping both (SHA-1: nothing here needs a hash that resists forgery, and it is twice as fast).
 */
export function contentHash(text: string): string {
  return createHash('sha1').update(text).digest('base64');
}

/** JSON with object keys sorted at every level, so equal inputs hash equally whatever their key order. */
function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) {
    return '[' + value.map(canonicalJson).join(',') + ']';
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return '{' + keys.map((k) => JSON.stringify(k) + ':' + canonicalJson(obj[k])).join(',') + '}';
}

/** The hash a guard hook and a transcript both compute for one tool call's input. */
export function inputHash(input: unknown): string {
  return sha256(canonicalJson(input ?? null)).slice(0, 32);
}
