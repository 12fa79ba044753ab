import { createReadStream } from 'node:fs';
import type { AgentKind } from '../../core/model/agent';
import type { NormalizedEvent } from '../../core/model/events';
import { adapters } from '../../core/parse/registry';
import { TranscriptParser } from '../../core/parse/transcript';

export interface ReadEventsOptions {
  /** Read the first this many bytes only (where a live follow takes over); default: all. */
  upTo?: number;
  /** The format to read it as (else it is recognised from the content, as the monitor does). */
  agent?: AgentKind;
  /** The file is read to its end: a last line without newline counts. */
  end: boolean;
  /** The session's working folder where the transcript does not name it (see AdapterContext.cwd). */
  cwd?: string | undefined;
}

/**
 * A transcript's normalized events, read again from disk (the timeline builds its model from
 * them when it opens, so the monitor need not keep any event in memory). Returns the format it
 * was read as (undefined: none recognised).
 */
export async function readEvents(file: string, opts: ReadEventsOptions, emit: (e: NormalizedEvent) => void): Promise<AgentKind | undefined> {
  const parser = new TranscriptParser({ file, adapters, emit, ...(opts.agent ? { agent: opts.agent } : {}), ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}) });
  if (opts.upTo === undefined || opts.upTo > 0) {
    const input = createReadStream(file, { highWaterMark: 1 << 20, ...(opts.upTo !== undefined ? { end: opts.upTo - 1 } : {}) });
    for await (const chunk of input) {
      parser.push(chunk as Buffer);
    }
  }
  if (opts.end) {
    parser.end();
  }
  return parser.agent;
}
