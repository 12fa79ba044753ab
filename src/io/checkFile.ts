import { createReadStream } from 'node:fs';
import type { RuleConfig } from '../core/config/ruleConfig';
import type { FindingSink } from '../core/engine/engine';
import type { RuleModule, RuleServices } from '../core/engine/rule';
import { TranscriptStream } from '../core/engine/stream';
import type { Logger } from '../core/lib/logger';
import type { AgentKind } from '../core/model/agent';
import type { NormalizedEvent } from '../core/model/events';
import type { Finding } from '../core/model/finding';
import { sessionIdFromPath } from '../core/model/sessionId';
import type { FormatAdapter } from '../core/parse/adapter';
import type { TimedAccess } from '../core/engine/blindAcross';
import { AccessLog } from './accessLog';
import { amplifierWorkingFolder } from './amplifierFolder';

export interface CheckFileOptions {
  adapters: readonly FormatAdapter[];
  rules: readonly RuleModule[];
  config?: RuleConfig;
  services?: RuleServices;
  logger?: Logger;
  observe?: (e: NormalizedEvent) => void;
  /** Read size; large enough that a 2 GB corpus is a few thousand reads. */
  chunkBytes?: number;
  /**
   * Keep a Codex transcript's timed file accesses (`CheckedFile.log`), which `check` sets beside
   * the other transcripts' (see writersAcross.ts findBlindWrites) without reading the file again.
   */
  accessLog?: boolean;
}

/** A transcript's file accesses with their times, and the session it is a sub-agent of (see AccessLog). */
export interface TranscriptLog {
  parentSession: string | undefined;
  accesses: TimedAccess[];
}

export interface CheckedFile {
  file: string;
  agent: AgentKind | undefined;
  session: string;
  findings: Finding[];
  /** The file had at least one JSON object line. */
  hasContent: boolean;
  /** The file is one JSON document (a Gemini CLI legacy session) that does not parse. */
  unreadableDocument?: true;
  /** Another session's calls answered at the start of the file (see ForeignResultEvent). */
  carriedIn: string[];
  /** The session's working folder, where the transcript (or the files beside it) names it. */
  cwd?: string;
  /** With `accessLog`, for a Codex transcript: its accesses of the files it wrote, and when (AccessLog.ofWrittenFiles). */
  log?: TranscriptLog;
}

/** Streams one transcript through the rules (batch mode): memory stays flat whatever its size. */
export async function checkFile(file: string, opts: CheckFileOptions): Promise<CheckedFile> {
  const findings = new Map<string, Finding>();
  const sink: FindingSink = {
    add: (f) => findings.set(f.id, f),
    retract: (id) => findings.delete(id),
  };
  // An Amplifier transcript names no working folder; the files beside it may.
  const cwd = await amplifierWorkingFolder(file);
  const log = opts.accessLog ? new AccessLog() : undefined;
  const outer = opts.observe;
  // Only a Codex transcript's log is kept (see `log` below): another's accesses would be
  // collected for every call of the file and dropped (3 % of checking a Claude Code file).
  const observe = log
    ? (e: NormalizedEvent): void => {
        if (stream.agent === 'codex') {
          log.observe(e);
        }
        outer?.(e);
      }
    : outer;
  const stream = new TranscriptStream({
    file,
    adapters: opts.adapters,
    rules: opts.rules,
    mode: 'batch',
    sink,
    ...(opts.config ? { config: opts.config } : {}),
    ...(opts.services ? { services: opts.services } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
    ...(observe ? { observe } : {}),
    fallbackSessionId: sessionIdFromPath(file),
    ...(cwd !== undefined ? { cwd } : {}),
  });
  const input = createReadStream(file, { highWaterMark: opts.chunkBytes ?? 1 << 20 });
  for await (const chunk of input) {
    stream.push(chunk as Buffer);
  }
  stream.end();
  const workingFolder = stream.engine.sessionInfo?.cwd ?? cwd;
  const checked: CheckedFile = {
    file,
    agent: stream.agent,
    session: stream.engine.sessionId,
    findings: [...findings.values()].sort((a, b) => a.line - b.line || a.column - b.column || a.rule.localeCompare(b.rule)),
    hasContent: stream.engine.sessionInfo !== undefined || stream.agent !== undefined,
    carriedIn: stream.engine.carriedIn,
    ...(stream.unreadableDocument ? { unreadableDocument: true as const } : {}),
    ...(workingFolder !== undefined ? { cwd: workingFolder } : {}),
    ...(log && stream.agent === 'codex' ? { log: { parentSession: log.parentSession, accesses: log.ofWrittenFiles() } } : {}),
  };
  // The next file's records would otherwise be copied into the old generation (RuleEngine.release).
  stream.release();
  return checked;
}

