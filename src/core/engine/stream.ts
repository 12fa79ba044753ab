import type { RuleConfig } from '../config/ruleConfig';
import type { Logger } from '../lib/logger';
import type { AgentKind } from '../model/agent';
import type { MalformedEvent, NormalizedEvent } from '../model/events';
import type { FormatAdapter } from '../parse/adapter';
import { TranscriptParser } from '../parse/transcript';
import { RuleEngine, type FindingSink } from './engine';
import type { RuleModule, RuleServices } from './rule';

export interface TranscriptStreamOptions {
  file: string;
  adapters: readonly FormatAdapter[];
  rules: readonly RuleModule[];
  config?: RuleConfig;
  mode: 'batch' | 'live';
  sink: FindingSink;
  agent?: AgentKind;
  clock?: () => number;
  services?: RuleServices;
  logger?: Logger;
  fallbackSessionId?: string;
  /** Hash call inputs for the hook-bound rules (default: when a hook ledger is given). */
  hashInputs?: boolean;
  /** The session's working folder where the transcript does not name it (see AdapterContext.cwd). */
  cwd?: string;
  /** Sees every normalized event before the rules do (the live monitor notes wall-clock times). */
  before?: (e: NormalizedEvent) => void;
  /** Sees every normalized event after the rules did (the sessions view, the timeline). */
  observe?: (e: NormalizedEvent) => void;
}

/**
 * One transcript file from bytes to findings. Batch (`check`) and live (`watch`) use the
 * same object; batch just pushes the whole file and calls `end()`.
 */
export class TranscriptStream {
  readonly engine: RuleEngine;
  private readonly parser: TranscriptParser;
  private released = false;
  /** The last line reported as truncated while its newline may still come (see `settle`). */
  private heldLine: MalformedEvent | undefined;
  /**
   * Bytes came since the last line was last judged by `settle`: a quiet session is settled at
   * every tick, and a long last line (complete JSON, only its newline missing) was parsed again
   * at each.
   */
  private grown = true;

  constructor(opts: TranscriptStreamOptions) {
    this.engine = new RuleEngine({
      file: opts.file,
      rules: opts.rules,
      mode: opts.mode,
      sink: opts.sink,
      ...(opts.config ? { config: opts.config } : {}),
      ...(opts.clock ? { clock: opts.clock } : {}),
      ...(opts.services ? { services: opts.services } : {}),
      ...(opts.logger ? { logger: opts.logger } : {}),
      ...(opts.fallbackSessionId ? { fallbackSessionId: opts.fallbackSessionId } : {}),
    });
    const { before, observe } = opts;
    this.parser = new TranscriptParser({
      file: opts.file,
      adapters: opts.adapters,
      hashInputs: opts.hashInputs ?? opts.services?.hookLedger !== undefined,
      ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
      ...(opts.agent ? { agent: opts.agent } : {}),
      onDetect: (agent) => this.engine.setAgent(agent),
      emit:
        before || observe
          ? (e) => {
              before?.(e);
              this.engine.handle(e);
              observe?.(e);
              releaseSnapshots(e);
            }
          : (e) => {
              this.engine.handle(e);
              releaseSnapshots(e);
            },
    });
  }

  get agent(): AgentKind | undefined {
    return this.parser.agent;
  }

  /** The transcript is one JSON document that does not parse (see TranscriptParser.unreadableDocument). */
  get unreadableDocument(): boolean {
    return this.parser.unreadableDocument;
  }

  get consumedBytes(): number {
    return this.parser.consumedBytes;
  }

  push(chunk: Uint8Array): void {
    if (this.released) {
      return;
    }
    this.grown ||= chunk.length > 0;
    if (this.heldLine && chunk.length > 0) {
      // More of the line reported as truncated: its writer was not done with it after all.
      const held = this.heldLine;
      this.heldLine = undefined;
      this.engine.handle({ ...held, provisional: 'withdraw' });
    }
    this.parser.push(chunk);
  }

  /** Events that did not come from transcript bytes (Amplifier's events.jsonl, hook records). */
  inject(e: NormalizedEvent): void {
    this.engine.handle(e);
  }

  end(): void {
    this.parser.end();
    this.engine.end();
  }

  /**
   * The stream is done with: its session's state is emptied (see RuleEngine.release for why
   * that matters to the collector) and later bytes are ignored. Read what is wanted first.
   */
  release(): void {
    this.released = true;
    this.engine.release();
  }

  tick(now: number): void {
    this.engine.tick(now);
  }

  /**
   * Live, a whole-document transcript: what was pushed is one version of it, read now (see
   * TranscriptParser.readDocument). False, with nothing reported, for a document its writer is
   * still writing, unless `settled`. The engine does not end: this is a version, not the end.
   */
  readDocument(settled: boolean, unreadBytes = 0): boolean {
    return this.parser.readDocument(settled, unreadBytes);
  }

  /**
   * Live: the file has been quiet; what the parser held for lines to come is read (see
   * FormatParser.settle), and a last line still without its newline that is not complete JSON
   * is reported as `check` reports it at the end of the file, on the same line. It is only
   * provisional: the rules keep no state from it, and more bytes of the line withdraw it.
   * (The observers do not see it: the timeline shows the finding, not a row for a line that
   * may yet be read.)
   */
  settle(): void {
    this.parser.settle();
    if (this.heldLine || this.released || !this.grown) {
      return;
    }
    this.grown = false;
    const held = this.parser.heldLine();
    if (held) {
      this.heldLine = held;
      this.engine.handle({ ...held, provisional: 'report' });
    }
  }
}

/**
 * A result's read and write snapshots are whole files. Once the event has been handled — the
 * rules judged it, the session's file knowledge took what it keeps, the observers saw it —
 * nothing reads them again, but the conversation keeps the result for the rest of the session:
 * keeping the snapshots too made every file a session read or edited live as long as it, and
 * the garbage collector copy them from generation to generation.
 */
function releaseSnapshots(e: NormalizedEvent): void {
  if (e.kind === 'result' && (e.read !== undefined || e.write !== undefined || e.saved !== undefined)) {
    e.read = undefined;
    e.write = undefined;
    e.saved = undefined;
  }
}
