import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, lstatSync, renameSync, unlinkSync, type BigIntStats } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { maxRequestBytes, type GuardWireRequest, type GuardWireResponse } from '../../core/guard/protocol';
import { parseGuardRequest } from '../../core/guard/protocolSchema';
import { AgentGuardError, errnoCode, errorMessage } from '../../core/lib/errors';
import { describeError, nullLogger, type Logger } from '../../core/lib/logger';
import { ensureGuardDir, isWindows } from './socketPath';

export interface GuardServerOptions {
  socketPath: string;
  /** The per-user directory holding the socket (Unix); created 0700 or refused if unsafe. */
  dir: string;
  handle: (request: GuardWireRequest) => Promise<GuardWireResponse>;
  logger?: Logger;
}

/** Longest a Unix socket path can be (sun_path is 108 bytes on Linux, 104 on macOS). */
const maxSocketPathBytes = 103;
/** A connection that sends nothing for this long is dropped (hooks send at once). */
const idleMs = 30_000;

/**
 * The socket side of the guard: listens where the hook looks, frames newline-delimited JSON,
 * validates every request and hands it to the service. Refuses to start in a directory
 * another user could enter; replaces a socket file left by a crashed run (nothing answers
 * on it), never a live one.
 */
export class GuardServer {
  private readonly connections = new Set<Socket>();
  private inode: number | undefined;

  private constructor(
    private readonly server: Server,
    private readonly opts: GuardServerOptions,
    private readonly logger: Logger,
  ) {}

  static async listen(opts: GuardServerOptions): Promise<GuardServer> {
    const logger = opts.logger ?? nullLogger;
    const path = opts.socketPath;
    if (!isWindows()) {
      const problem = ensureGuardDir(opts.dir);
      if (problem) {
        throw new AgentGuardError('permission', `refusing to use ${problem.dir} for the guard socket: it ${problem.problem}`);
      }
      if (Buffer.byteLength(path) > maxSocketPathBytes) {
        throw new AgentGuardError('io', `the guard socket path ${path} is longer than a Unix socket path may be; set AGENT_GUARD_DIR to a shorter directory`);
      }
      const found = statOf(path);
      if (found) {
        if (await serviceAnswers(path)) {
          throw refusedAt(path);
        }
        removeStale(path, found, logger);
      }
    }
    const server = createServer();
    const guard = new GuardServer(server, opts, logger);
    server.on('connection', (c) => guard.onConnection(c));
    await new Promise<void>((resolve, reject) => {
      const onError = (e: Error): void => {
        reject(
          errnoCode(e) === 'EADDRINUSE'
            ? refusedAt(path, e)
            : e,
        );
      };
      server.once('error', onError);
      server.listen(path, () => {
        server.off('error', onError);
        resolve();
      });
    });
    server.on('error', (e) => logger.error(`[guard] socket error: ${describeError(e)}`));
    if (!isWindows()) {
      // The directory already keeps other users out; the mode says so on the socket too.
      chmodSync(path, 0o600);
      guard.inode = lstatSync(path).ino;
    }
    return guard;
  }

  get socketPath(): string {
    return this.opts.socketPath;
  }

  private onConnection(conn: Socket): void {
    this.connections.add(conn);
    conn.setEncoding('utf8');
    conn.setTimeout(idleMs, () => conn.destroy());
    let buf = '';
    let queue = Promise.resolve();
    conn.on('data', (chunk: string) => {
      buf += chunk;
      for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.trim() === '') {
          continue;
        }
        queue = queue.then(() => this.answer(conn, line));
      }
      if (buf.length > maxRequestBytes) {
        this.reply(conn, { v: 1, ok: false, error: `request longer than ${maxRequestBytes} bytes` });
        conn.end();
        buf = '';
      }
    });
    conn.on('error', () => undefined);
    conn.on('close', () => this.connections.delete(conn));
  }

  private async answer(conn: Socket, line: string): Promise<void> {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      this.reply(conn, { v: 1, ok: false, error: 'request is not JSON' });
      return;
    }
    const id = typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string' ? (value as { id: string }).id : undefined;
    const parsed = parseGuardRequest(value);
    if (!parsed.ok) {
      this.logger.warn(`[guard] rejected a request: ${parsed.error}`);
      this.reply(conn, { v: 1, ...(id !== undefined ? { id } : {}), ok: false, error: parsed.error });
      return;
    }
    try {
      const response = await this.opts.handle(parsed.request);
      this.reply(conn, { ...response, ...(id !== undefined ? { id } : {}) });
    } catch (e) {
      this.logger.error(`[guard] request failed: ${describeError(e)}`);
      this.reply(conn, { v: 1, ...(id !== undefined ? { id } : {}), ok: false, error: errorMessage(e) });
    }
  }

  private reply(conn: Socket, r: GuardWireResponse): void {
    if (!conn.destroyed) {
      conn.write(JSON.stringify(r) + '\n');
    }
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const c of this.connections) {
      c.destroy();
    }
    await closed;
    // Node removes the socket file on close; make sure, but only if it is still ours.
    if (!isWindows() && this.inode !== undefined) {
      try {
        if (lstatSync(this.opts.socketPath).ino === this.inode) {
          unlinkSync(this.opts.socketPath);
        }
      } catch {
        // already gone
      }
    }
  }
}

/** Does something answer on this socket? (A crashed run's file refuses connections.) */
export function serviceAnswers(path: string, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const c = createConnection(path);
    const done = (v: boolean): void => {
      clearTimeout(t);
      c.destroy();
      resolve(v);
    };
    const t = setTimeout(() => done(true), timeoutMs);
    c.once('connect', () => done(true));
    c.once('error', () => done(false));
  });
}

function refusedAt(path: string, cause?: unknown): AgentGuardError {
  return new AgentGuardError('refused', `another guard service is already listening for this workspace on ${path}`, cause !== undefined ? { cause } : undefined);
}

function statOf(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true });
  } catch {
    return undefined;
  }
}

/**
 * Removes the socket file a crashed run left (`probed`: what was there when nothing answered
 * on it). Hosts waiting to take the service over all find the same dead file at once, and a
 * plain unlink could delete the live socket one of them has bound there since its probe:
 * both would then serve, the first one unreachable. So the file is renamed aside (atomic:
 * one host gets it) and checked to be the very file probed (inode and mtime: an inode number
 * is soon reused); a live socket taken by mistake is linked back, and this host gives way.
 */
function removeStale(path: string, probed: BigIntStats, logger: Logger): void {
  const aside = `${path}.${process.pid}-${randomBytes(4).toString('hex')}.stale`;
  try {
    renameSync(path, aside);
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') {
      // Another host removed it first: the bind decides which of us serves.
      return;
    }
    throw e;
  }
  const moved = lstatSync(aside, { bigint: true });
  if (moved.ino !== probed.ino || moved.mtimeNs !== probed.mtimeNs) {
    try {
      linkSync(aside, path);
    } catch (e) {
      logger.warn(`[guard] could not put back the socket of the service that took ${path} over: ${describeError(e)}`);
    }
    unlinkSync(aside);
    throw refusedAt(path);
  }
  unlinkSync(aside);
  logger.info(`[guard] removed a stale socket left by an earlier run: ${path}`);
}
