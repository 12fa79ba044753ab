/**
 * The hook's side of the guard socket: one request, one response line, within a deadline.
 * Loaded by dist/hook.js, so node built-ins only; the hook loads this module (and so node:net)
 * only for the calls it asks about.
 */
import { createConnection } from 'node:net';
import { readResponse, type GuardWireRequest, type GuardWireResponse } from '../../core/guard/protocol';

export type AskResult =
  | { kind: 'answer'; response: GuardWireResponse }
  /** Nothing listens (no socket, refused, reset), or it closed the connection without an answer. */
  | { kind: 'unavailable'; why: string }
  /** The service answered, in a form this hook cannot read (another version's). */
  | { kind: 'unreadable'; why: string }
  | { kind: 'timeout'; ms: number };

export async function askService(socket: string, request: GuardWireRequest, timeoutMs: number): Promise<AskResult> {
  return new Promise((resolve) => {
    let settled = false;
    let buf = '';
    const conn = createConnection(socket);
    const finish = (r: AskResult): void => {
      if (settled) {
        return;
      }
      settled = true;
      clearTimeout(timer);
      conn.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout', ms: timeoutMs }), timeoutMs);
    conn.setEncoding('utf8');
    conn.on('connect', () => {
      conn.write(JSON.stringify(request) + '\n');
    });
    conn.on('data', (chunk: string) => {
      buf += chunk;
      const nl = buf.indexOf('\n');
      if (nl < 0) {
        return;
      }
      const response = readResponse(buf.slice(0, nl));
      finish(response ? { kind: 'answer', response } : { kind: 'unreadable', why: 'the guard service sent an answer this hook cannot read' });
    });
    conn.on('error', (e: NodeJS.ErrnoException) => {
      finish({ kind: 'unavailable', why: `the guard service did not accept the connection (${e.code ?? e.message})` });
    });
    conn.on('close', () => finish({ kind: 'unavailable', why: 'the guard service closed the connection without answering' }));
  });
}
