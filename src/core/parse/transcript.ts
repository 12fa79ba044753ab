import { isUtf8 } from 'node:buffer';
import type { AgentKind } from '../model/agent';
import type { MalformedEvent, NormalizedEvent, Span } from '../model/events';
import type { FormatAdapter, FormatParser } from './adapter';
import { defaultMaxLineBytes, LineSplitter, type RawLine } from './lineSplitter';
import { lineSpan } from './span';
import { errorMessage } from '../lib/errors';

/** Lines held while the format is not yet known (the first lines are usually enough). */
const maxUndetectedLines = 64;
/**
 * A file with more broken lines than this and no record of a known format at all is not a
 * transcript (a pretty-printed JSON document, another tool's log): one finding says so, not one
 * per line.
 */
const maxBrokenLinesReported = 20;

/**
 * A `.json` transcript is one JSON document, usually pretty-printed over many lines (Gemini
 * CLI's legacy `session-*.json`): it is read whole at the end, not line by line.
 */
const documentPath = /\.json$/i;

/**
 * Is this transcript one JSON document (read whole, and rewritten whole by its writer) rather
 * than JSON lines?
 */
export function isDocumentTranscript(file: string): boolean {
  return documentPath.test(file);
}

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
  /** See AdapterContext.cwd. */
  cwd?: string;
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
  /** Broken lines read before the format was known, and how many there were in all. */
  private heldBroken: MalformedEvent[] = [];
  private brokenCount = 0;
  private sawContent = false;
  /** A whole-document transcript that is not valid JSON (a writer cut off mid-rewrite, most likely). */
  unreadableDocument = false;
  /** The bytes of a whole-document transcript, until `end()` (undefined: a JSONL transcript). */
  private document: Uint8Array[] | undefined;
  private documentBytes = 0;
  /** What adapters emit through: for a document, with its positions turned into lines and columns. */
  private emit: (e: NormalizedEvent) => void;
  /** The formats the content is recognised among: the forced agent's, else all. */
  private readonly candidates: readonly FormatAdapter[];

  constructor(private readonly opts: TranscriptParserOptions) {
    this.splitter = new LineSplitter(opts.maxLineBytes);
    this.emit = opts.emit;
    if (documentPath.test(opts.file)) {
      this.document = [];
    }
    // One agent can have several formats (Amplifier's transcript and its events log): the
    // path decides between them, else the content, among that agent's formats only. (The first
    // of them was taken: an Amplifier transcript under an AMPLIFIER_HOME not named `.amplifier`,
    // which its adapter does not claim, was read as an events log, and nothing in it was seen.)
    const ofAgent = opts.agent ? opts.adapters.filter((a) => a.agent === opts.agent) : [];
    this.candidates = ofAgent.length > 0 ? ofAgent : opts.adapters;
    const forced = ofAgent.length === 1 ? ofAgent[0] : ofAgent.find((a) => a.claimsPath?.(opts.file));
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
    if (this.document) {
      // Copied: the caller may reuse its read buffer. Past the line limit, only counted.
      this.documentBytes += chunk.length;
      if (this.documentBytes <= (this.opts.maxLineBytes ?? defaultMaxLineBytes)) {
        this.document.push(new Uint8Array(chunk));
      }
      return;
    }
    this.splitter.push(chunk, (l) => this.line(l));
  }

  /** End of a finished file: a last line without newline is read (and reported as truncated if broken). */
  end(): void {
    if (this.document) {
      this.endDocument(true);
    } else {
      this.splitter.end((l) => this.line(l));
    }
    this.endUnknown();
    try {
      this.parser?.end?.();
    } catch (e) {
      this.emit({ kind: 'malformed', at: { line: Math.max(1, this.splitter.linesEmitted), start: 0, end: 0 }, reason: 'internal', detail: describeThrown(e) });
    }
  }

  /**
   * Live, a whole-document transcript: what was pushed is one version of the document, read now
   * as `end()` reads it, but as a version, not the end of a finished file (its writer rewrites it
   * whole, and the next version is read by a parser of its own). Unless `settled` (the file has
   * been quiet for a while), a document that is not one complete JSON document is left unread,
   * nothing emitted, and false returned: its writer is likely mid-rewrite.
   *
   * `unreadBytes`: bytes of the document the caller did not push, knowing it is past the size
   * limit (they only count, as bytes pushed past it do).
   */
  readDocument(settled: boolean, unreadBytes = 0): boolean {
    if (!this.document) {
      return true;
    }
    this.documentBytes += unreadBytes;
    if (!this.endDocument(settled)) {
      return false;
    }
    this.endUnknown();
    return true;
  }

  /** The end of what is read: records of no known format, and broken lines held for a format that never came. */
  private endUnknown(): void {
    if (!this.parser && this.held.length > 0) {
      const first = this.held[0]!.raw;
      // Through this.emit: for a whole document, `first` is the document, and its span is
      // placed on its first line (unplaced, it ran the document's length along line 1).
      this.emit({
        kind: 'malformed',
        at: lineSpan(first),
        reason: 'unknown-format',
        detail: 'no line matches a known transcript format (Claude Code, Codex, Gemini CLI, Amplifier)',
      });
      this.held = [];
    }
    if (!this.parser) {
      this.endBroken();
    }
  }

  /** Live: the file has been quiet; see FormatParser.settle. */
  settle(): void {
    if (this.document || !this.parser?.settle) {
      return;
    }
    try {
      this.parser.settle();
    } catch (e) {
      this.emit({ kind: 'malformed', at: { line: Math.max(1, this.splitter.linesEmitted), start: 0, end: 0 }, reason: 'internal', detail: describeThrown(e) });
    }
  }

  /**
   * Live: what `end()` would report of the last line, still without its newline, were the
   * file to end now: the 'truncated' line `check` reports, or undefined (no line held, or one
   * that is complete JSON, or a file whose format is not known yet). The line stays held: its
   * newline may still come.
   */
  heldLine(): MalformedEvent | undefined {
    if (this.document || !this.parser) {
      return undefined;
    }
    const raw = this.splitter.peek();
    if (!raw || raw.tooLong || firstChar(raw.text) === -1) {
      return undefined;
    }
    try {
      JSON.parse(raw.text);
      return undefined;
    } catch (e) {
      // Records run together are each read at the end, as `line()` reads them: not truncated.
      return splitRecords(raw.text) ? undefined : truncatedLine(raw, errorMessage(e));
    }
  }

  /** A malformed line: reported now once the format is known, else held until it is (or the end). */
  private broken(e: MalformedEvent): void {
    if (this.parser) {
      this.emit(e);
      return;
    }
    this.brokenCount++;
    if (this.heldBroken.length < maxBrokenLinesReported + 1) {
      this.heldBroken.push(e);
    }
  }

  /** The end of a file whose format never became known: its broken lines, or one line for all. */
  private endBroken(): void {
    const held = this.heldBroken;
    this.heldBroken = [];
    if (held.length === 0) {
      return;
    }
    if (this.brokenCount <= maxBrokenLinesReported || this.sawContent) {
      for (const e of held) {
        this.emit(e);
      }
      return;
    }
    this.emit({
      kind: 'malformed',
      at: held[0]!.at,
      reason: 'unknown-format',
      detail: `none of its ${this.brokenCount} lines is a JSON record, so it is not a JSONL transcript (a JSON document spread over lines, or another tool's file?); the first: ${held[0]!.detail}`,
    });
  }

  private use(adapter: FormatAdapter): void {
    this.adapter = adapter;
    this.parser = adapter.create({
      file: this.opts.file,
      hashInputs: this.opts.hashInputs ?? false,
      ...(this.opts.cwd !== undefined ? { cwd: this.opts.cwd } : {}),
      emit: (e) => this.emit(e),
    });
    this.opts.onDetect?.(adapter.agent);
  }

  /**
   * One line (or a whole document, with `errorAt` placing a JSON syntax error in it, and
   * `parsed` its value when the caller has parsed it already).
   */
  private line(raw: RawLine, errorAt?: (message: string) => Span, parsed?: { value: unknown }): void {
    if (raw.tooLong) {
      this.broken({
        kind: 'malformed',
        at: { line: raw.lineNo, start: 0, end: 0 },
        reason: 'line-too-long',
        detail: `the line is ${raw.byteLength} bytes long, more than can be read; it was skipped`,
      });
      return;
    }
    if (raw.invalidUtf8) {
      this.broken({
        kind: 'malformed',
        at: lineSpan(raw),
        reason: 'invalid-utf8',
        detail: 'contains bytes that are not valid UTF-8; they were read as U+FFFD and the rest of the line was still checked',
      });
    }
    const first = firstChar(raw.text);
    if (first === -1) {
      return;
    }
    if (!this.parser && this.heldBroken.length > maxBrokenLinesReported && first !== 0x7b) {
      // A file of no known format past the broken lines its report keeps (a pretty-printed
      // document): a line that cannot start a record is only counted. Parsing it would throw,
      // and a thrown error per line cost more than all the rest of the reading.
      this.brokenCount++;
      return;
    }
    let value: unknown;
    try {
      value = parsed ? parsed.value : JSON.parse(raw.text);
    } catch (e) {
      const message = errorMessage(e);
      const records = errorAt ? undefined : splitRecords(raw.text);
      if (records) {
        this.broken({
          kind: 'malformed',
          at: lineSpan(raw),
          reason: 'concatenated',
          detail: `${records.length} JSON records with no newline between them (a writer began the next record before ending its line); each was still checked, but other readers, the agent resuming this session among them, may skip the whole line`,
        });
        for (const r of records) {
          this.record(r, raw);
        }
        return;
      }
      if (!raw.terminated) {
        this.broken(truncatedLine(raw, message));
      } else if (errorAt) {
        this.unreadableDocument = true;
        this.broken({ kind: 'malformed', at: errorAt(message), reason: 'invalid-json', detail: message, document: true });
      } else {
        this.broken({ kind: 'malformed', at: lineSpan(raw), reason: 'invalid-json', detail: `not valid JSON: ${message}` });
      }
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      this.broken({ kind: 'malformed', at: lineSpan(raw), reason: 'not-an-object', detail: 'a transcript line must be a JSON object' });
      return;
    }
    this.record(value as Record<string, unknown>, raw);
  }

  /** One JSON object record of the transcript, to the adapter (or held until the format is known). */
  private record(obj: Record<string, unknown>, raw: RawLine): void {
    this.sawContent = true;
    if (this.parser) {
      this.feed(obj, raw);
      return;
    }
    const found = this.candidates.find((a) => a.sniff(obj));
    if (!found) {
      if (this.held.length < maxUndetectedLines) {
        this.held.push({ value: obj, raw });
      }
      return;
    }
    this.use(found);
    // What was held comes out in line order: the broken lines and the records among them.
    const broken = this.heldBroken;
    this.heldBroken = [];
    const held = this.held;
    this.held = [];
    let b = 0;
    for (const h of held) {
      while (b < broken.length && broken[b]!.at.line < h.raw.lineNo) {
        this.emit(broken[b++]!);
      }
      this.feed(h.value, h.raw);
    }
    while (b < broken.length && broken[b]!.at.line <= raw.lineNo) {
      this.emit(broken[b++]!);
    }
    this.feed(obj, raw);
    while (b < broken.length) {
      this.emit(broken[b++]!);
    }
  }

  /**
   * One record to the adapter. An exception there (or in the engine, which handles the events
   * the adapter emits as it emits them) is a bug of ours that one line of hostile input must not
   * turn into a lost file: it becomes a finding on that line, and the next line is read as usual.
   */
  private feed(value: Record<string, unknown>, raw: RawLine): void {
    try {
      this.parser!.line(value, raw);
    } catch (e) {
      this.emit({ kind: 'malformed', at: lineSpan(raw), reason: 'internal', detail: describeThrown(e) });
    }
  }

  /**
   * The whole document as one record: the adapter reads it as it would one line, and every
   * position it reports (offsets into the document) is turned into a line and a column.
   * Unless `settled`, an empty document or one that is not valid JSON is left unread (false).
   */
  private endDocument(settled: boolean): boolean {
    const parts = this.document!;
    const total = this.documentBytes;
    if (total === 0) {
      // Rewritten in place, a file is empty between its truncation and the first write.
      this.document = settled ? undefined : parts;
      return settled;
    }
    const limit = this.opts.maxLineBytes ?? defaultMaxLineBytes;
    if (total > limit) {
      // A version cut short mid-rewrite is no bigger than the one being written: this is true of both.
      this.document = undefined;
      this.opts.emit({
        kind: 'malformed',
        at: { line: 1, start: 0, end: 0 },
        reason: 'line-too-long',
        detail: `the file is one JSON document of ${total} bytes, more than can be read; it was skipped`,
      });
      return true;
    }
    const bytes = new Uint8Array(total);
    let at = 0;
    for (const p of parts) {
      bytes.set(p, at);
      at += p.length;
    }
    let text = new TextDecoder().decode(bytes);
    if (text.charCodeAt(0) === 0xfeff) {
      text = text.slice(1);
    }
    let parsed: { value: unknown } | undefined;
    if (!settled) {
      try {
        parsed = { value: JSON.parse(text) };
      } catch {
        // A prefix of a JSON document is never a JSON document: a writer mid-rewrite.
        return false;
      }
    }
    this.document = undefined;
    const lines = new LineIndex(text);
    this.emit = (e) => this.opts.emit(lines.place(e));
    const raw: RawLine = { lineNo: 1, text, byteOffset: 0, byteLength: total, invalidUtf8: !isUtf8(bytes), tooLong: false, terminated: true };
    this.line(raw, (message) => lines.at(positionOf(message)), parsed);
    return true;
  }

  /** True once any JSON object line was seen. */
  get hasContent(): boolean {
    return this.sawContent;
  }
}

/** A last line without its newline that is not complete JSON (`message`: JSON.parse's complaint). */
function truncatedLine(raw: RawLine, message: string): MalformedEvent {
  return {
    kind: 'malformed',
    at: lineSpan(raw),
    reason: 'truncated',
    detail: `the last line ends without a newline and is not complete JSON (${message}); the writer may have been cut off`,
    atEnd: true,
  };
}

function describeThrown(e: unknown): string {
  return e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}

/**
 * The first character that is not blank (space, tab, CR, LF, BOM), or -1 for a blank line.
 * Without `trim()`, which would copy a line that may be megabytes long.
 */
function firstChar(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0d && c !== 0x0a && c !== 0xfeff) {
      return c;
    }
  }
  return -1;
}

/** Cuts tried before a line is judged plain broken: each costs a parse of part of it. */
const maxRecordCuts = 16;

/**
 * The JSON objects a line holds when it is two or more of them end to end (`{…}{…}`), as when
 * one writer's record was appended before another's newline; undefined when it is not that.
 */
function splitRecords(text: string): Record<string, unknown>[] | undefined {
  const out: Record<string, unknown>[] = [];
  let start = 0;
  let cuts = 0;
  for (let at = text.indexOf('}{'); at !== -1 && cuts < maxRecordCuts; at = text.indexOf('}{', at + 1)) {
    cuts++;
    let value: unknown;
    try {
      value = JSON.parse(text.slice(start, at + 1));
    } catch {
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      return undefined;
    }
    out.push(value as Record<string, unknown>);
    start = at + 1;
  }
  if (out.length === 0) {
    return undefined;
  }
  try {
    const last: unknown = JSON.parse(text.slice(start));
    if (typeof last !== 'object' || last === null || Array.isArray(last)) {
      return undefined;
    }
    out.push(last as Record<string, unknown>);
  } catch {
    return undefined;
  }
  return out;
}

/** Where V8's JSON.parse error message says the syntax error is, as an offset. */
function positionOf(message: string): number {
  const m = /position (\d+)/.exec(message);
  return m ? Number(m[1]) : 0;
}

/** Offsets in a multi-line text to 1-based lines and 0-based columns. */
class LineIndex {
  /** Offset of each line's first character. */
  private readonly starts: number[] = [0];

  constructor(private readonly text: string) {
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) {
      this.starts.push(i + 1);
    }
  }

  /** The line holding `offset`, and the span from there to `end` (cut at the end of that line). */
  at(offset: number, end = offset): Span {
    const starts = this.starts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    const lineStart = starts[lo]!;
    let lineEnd = lo + 1 < starts.length ? starts[lo + 1]! - 1 : this.text.length;
    if (lineEnd > lineStart && this.text.charCodeAt(lineEnd - 1) === 0x0d) {
      lineEnd--;
    }
    return { line: lo + 1, start: Math.min(offset, lineEnd) - lineStart, end: Math.min(Math.max(end, offset), lineEnd) - lineStart };
  }

  /** The event with its spans (offsets into the document, all on "line 1") placed on their lines. */
  place(e: NormalizedEvent): NormalizedEvent {
    const move = (s: Span): Span => (s.line === 1 ? this.at(s.start, s.end) : s);
    e.at = move(e.at);
    if (e.kind === 'call') {
      for (const a of e.accesses) {
        if (a.span) {
          a.span = move(a.span);
        }
      }
    }
    return e;
  }
}
