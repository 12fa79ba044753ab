import type { AgentKind } from '../model/agent';
import type { NormalizedEvent } from '../model/events';
import type { FormatAdapter, FormatParser } from './adapter';
import { LineSplitter, type RawLine } from './lineSplitter';
import { lineSpan } from './span';

/** Lines held while the format is not yet known (the first lines are usually enough). */
const maxUndetectedLines = 64;

export interface TranscriptParserOptions {
  file: string;
  adapters: readonly FormatAdapter[];
  emit: (e: NormalizedEvent) => void;
  /** Called once the format is known. */
  onDetect?: (agent: AgentKind) => void;
  /** Force a format (e.g. from discovery) instead of sniffing. */
  agent?: AgentKind;
  maxLineBytes?: number;
  /** See AdapterContext.hashInputs. */
  hashInputs?: boolean;
}

/**
 * Bytes in, normalized events out: splits lines, decodes JSON, picks the format adapter
 * (by path, else by the first recognisable line) and reports every line it cannot read
 * as a `malformed` event with its line number — then goes on with the next line.
 */
export class TranscriptParser {
  private readonly splitter: LineSplitter;
  private adapter: FormatAdapter | undefined;
  private parser: FormatParser | undefined;
  private held: { value: Record<string, unknown>; raw: RawLine }[] = [];
  private sawContent = false;

  constructor(private readonly opts: TranscriptParserOptions) {
    this.splitter = new LineSplitter(opts.maxLineBytes);
    // One agent can have several formats (Amplifier's transcript and its events log): the
    // path decides between them, then the agent.
    const ofAgent = opts.agent ? opts.adapters.filter((a) => a.agent === opts.agent) : [];
    const forced = ofAgent.find((a) => a.claimsPath?.(opts.file)) ?? ofAgent[0];
    const byPath = forced ?? opts.adapters.find((a) => a.claimsPath?.(opts.file));
    if (byPath) {
      this.use(byPath);
    }
  }

  get agent(): AgentKind | undefined {
    return this.adapter?.agent;
  }

  get consumedBytes(): number {
    return this.splitter.consumedBytes;
  }

  push(chunk: Uint8Array): void {
    this.splitter.push(chunk, (l) => this.line(l));
  }

  /** End of a finished file: a last line without newline is read (and reported as truncated if broken). */
  end(): void {
    this.splitter.end((l) => this.line(l));
    if (!this.parser && this.held.length > 0) {
      const first = this.held[0]!.raw;
      this.opts.emit({
        kind: 'malformed',
        at: lineSpan(first),
        reason: 'unknown-format',
        detail: 'no line matches a known transcript format (Claude Code, Codex, Gemini CLI, Amplifier)',
      });
      this.held = [];
    }
    this.parser?.end?.();
  }

  private use(adapter: FormatAdapter): void {
    this.adapter = adapter;
    this.parser = adapter.create({ file: this.opts.file, hashInputs: this.opts.hashInputs ?? false, emit: this.opts.emit });
    this.opts.onDetect?.(adapter.agent);
  }

  private line(raw: RawLine): void {
    const emit = this.opts.emit;
    if (raw.tooLong) {
      emit({
        kind: 'malformed',
        at: { line: raw.lineNo, start: 0, end: 0 },
        reason: 'line-too-long',
        detail: `the line is ${raw.byteLength} bytes long, more than can be read; it was skipped`,
      });
      return;
    }
    if (raw.invalidUtf8) {
      emit({
        kind: 'malformed',
        at: lineSpan(raw),
        reason: 'invalid-utf8',
        detail: 'contains bytes that are not valid UTF-8; they were read as U+FFFD and the rest of the line was still checked',
      });
    }
    if (isBlank(raw.text)) {
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(raw.text);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (!raw.terminated) {
        emit({
          kind: 'malformed',
          at: lineSpan(raw),
          reason: 'truncated',
          detail: `the last line ends without a newline and is not complete JSON (${message}); the writer may have been cut off`,
          atEnd: true,
        });
      } else {
        emit({ kind: 'malformed', at: lineSpan(raw), reason: 'invalid-json', detail: `not valid JSON: ${message}` });
      }
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      emit({ kind: 'malformed', at: lineSpan(raw), reason: 'not-an-object', detail: 'a transcript line must be a JSON object' });
      return;
    }
    const obj = value as Record<string, unknown>;
    this.sawContent = true;
    if (this.parser) {
      this.parser.line(obj, raw);
      return;
    }
    const found = this.opts.adapters.find((a) => a.sniff(obj));
    if (!found) {
      if (this.held.length < maxUndetectedLines) {
        this.held.push({ value: obj, raw });
      }
      return;
    }
    this.use(found);
    const held = this.held;
    this.held = [];
    for (const h of held) {
      this.parser!.line(h.value, h.raw);
    }
    this.parser!.line(obj, raw);
  }

  /** True once any JSON object line was seen. */
  get hasContent(): boolean {
    return this.sawContent;
  }
}

/** Whitespace only? Without `trim()`, which would copy a line that may be megabytes long. */
function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a && c !== 0xfeff) {
      return false;
    }
  }
  return true;
}
