import type { AgentKind } from '../model/agent';
import type { NormalizedEvent } from '../model/events';
import type { RawLine } from './lineSplitter';

export interface AdapterContext {
  /** The transcript's path (used for display and as a fallback session id). */
  readonly file: string;
  /**
   * Hash each call's input (for the hook-bound rules). Off unless a hook ledger is in use:
   * hashing every input of a large corpus is pure cost otherwise.
   */
  readonly hashInputs: boolean;
  /**
   * The session's working folder, for a format whose lines do not name it (Amplifier's
   * transcript): the I/O layer reads it from the files beside the transcript, where they name
   * it for certain. Undefined when nothing does; formats that name their own folder ignore it.
   */
  readonly cwd?: string;
  emit(e: NormalizedEvent): void;
}

/** Turns one format's decoded JSON lines into normalized events, for one stream. */
export interface FormatParser {
  line(value: Record<string, unknown>, raw: RawLine): void;
  /** End of a finished file. */
  end?(): void;
  /**
   * Live only: the file has been quiet for a while. What the parser holds for lines that may
   * still come (Claude Code's results written ahead of their call) is read now, as `end` would
   * read it; a later line is still read as usual.
   */
  settle?(): void;
}

export interface FormatAdapter {
  readonly agent: AgentKind;
  /** Does this decoded line belong to this format? Called until some adapter claims a line. */
  sniff(value: Record<string, unknown>): boolean;
  /** Does the path alone say so (e.g. `…/.codex/sessions/…/rollout-*.jsonl`)? */
  claimsPath?(path: string): boolean;
  create(ctx: AdapterContext): FormatParser;
}
