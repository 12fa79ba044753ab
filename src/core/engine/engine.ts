import { demote as demoteSeverity, milder, type RuleConfig, emptyRuleConfig, ruleLevel } from '../config/ruleConfig';
import { describeError, nullLogger, type Logger } from '../lib/logger';
import type { AgentKind } from '../model/agent';
import type { NormalizedEvent, SessionInfo, Span, TextEvent, ToolCall, ToolResult } from '../model/events';
import type { Finding, FindingSubject, RelatedLocation, Severity } from '../model/finding';
import { Conversation, messageToJoin, type MessageRecord } from './conversation';
import { maxCarriedIn } from './acrossFiles';
import { FileKnowledge } from './knowledge';
import type { ReportDescriptor, RuleContext, RuleListener, RuleModule, RuleServices } from './rule';
import { errorMessage } from '../lib/errors';

export interface FindingSink {
  add(finding: Finding): void;
  retract(id: string): void;
}

export interface EngineOptions {
  file: string;
  rules: readonly RuleModule[];
  config?: RuleConfig;
  mode: 'batch' | 'live';
  sink: FindingSink;
  clock?: () => number;
  services?: RuleServices;
  logger?: Logger;
  /** Session id to use until the transcript names its own (e.g. the file name). */
  fallbackSessionId?: string;
}

/** Id of the internal finding that reports a rule which crashed and was disabled. */
export const ruleCrashedId = 'internal-error';

interface ActiveRule {
  rule: RuleModule;
  severity: Severity;
  listener: RuleListener;
  reported: Set<string>;
  disabled: boolean;
}

/**
 * One rule's handler for a per-event kind, read off its listener once. Every rule's listener is
 * an object of its own shape: reading `listener.onCall` on each event was a megamorphic load per
 * rule per event, where this record always has the one shape.
 */
interface BoundHandler<F> {
  entry: ActiveRule;
  fn: F;
}

/**
 * Runs the rules over one transcript's normalized events, in arrival order. It owns the
 * rebuilt conversation and the session's file knowledge, and turns rule reports into
 * findings as soon as the rules are certain of them.
 */
export class RuleEngine {
  readonly conversation = new Conversation();
  readonly knowledge = new FileKnowledge();
  /** Another session's calls answered at the start of the file (see ForeignResultEvent), at most `maxCarriedIn`. */
  readonly carriedIn: string[] = [];
  private readonly active: ActiveRule[] = [];
  private readonly listeners = new Map<keyof RuleListener, ActiveRule[]>();
  /** The rules with each per-event handler, looked up once (a transcript has millions of events). */
  private textRules: BoundHandler<NonNullable<RuleListener['onText']>>[] | undefined;
  private callRules: BoundHandler<NonNullable<RuleListener['onCall']>>[] | undefined;
  private resultRules: BoundHandler<NonNullable<RuleListener['onResult']>>[] | undefined;
  private messageRules: BoundHandler<NonNullable<RuleListener['onMessage']>>[] | undefined;
  private session: SessionInfo | undefined;
  private agent: AgentKind | 'unknown' = 'unknown';
  private readonly logger: Logger;
  private readonly clock: () => number;

  constructor(private readonly opts: EngineOptions) {
    this.logger = opts.logger ?? nullLogger;
    this.clock = opts.clock ?? Date.now;
    const config = opts.config ?? emptyRuleConfig;
    for (const rule of opts.rules) {
      const level = ruleLevel(config, rule.meta);
      if (level === 'off') {
        continue;
      }
      const reported = new Set<string>();
      const entry: ActiveRule = { rule, severity: level, listener: {}, reported, disabled: false };
      const context = this.contextFor(entry, config.options[rule.meta.id] ?? {});
      try {
        entry.listener = rule.create(context);
      } catch (e) {
        this.crash(entry, e, { line: 1, start: 0, end: 0 }, 'create');
      }
      this.active.push(entry);
    }
  }

  get sessionId(): string {
    return this.session?.sessionId ?? this.opts.fallbackSessionId ?? this.opts.file;
  }

  get sessionInfo(): SessionInfo | undefined {
    return this.session;
  }

  get agentKind(): AgentKind | 'unknown' {
    return this.agent;
  }

  setAgent(agent: AgentKind): void {
    this.agent = agent;
  }

  /**
   * Empties what the engine kept of the session — the conversation, the file knowledge, the
   * rules — once nothing will ask it again (the session info and `carriedIn` stay readable).
   * Dropping the engine is not enough for the garbage collector: a container that lived through
   * a long file sits in V8's old generation, and until the next full collection each young-
   * generation collection treats what that dead container still points at as live, copying the
   * next file's records out of the young generation, where they would have died cheaply, into the
   * old one (nepotism). Measured on the bench:check corpus (bench/README.md, "A finished
   * file's state, and the collector"): `check` of Codex rollouts promoted 49 MB per 11 passes
   * instead of 16 and took 1.3x as long. Emptied in place, the dead containers point at nothing.
   */
  release(): void {
    this.conversation.release();
    this.knowledge.release();
    this.active.length = 0;
    this.listeners.clear();
    this.textRules = [];
    this.callRules = [];
    this.resultRules = [];
    this.messageRules = [];
  }

  handle(e: NormalizedEvent): void {
    switch (e.kind) {
      case 'session': {
        // Claude Code repeats the envelope on every line, and a copied Codex session repeats
        // its session_meta: only a change is news.
        const prev = this.session;
        const merged: SessionInfo = {
          kind: 'session',
          at: e.at,
          agent: e.agent,
          sessionId: e.sessionId ?? prev?.sessionId,
          cwd: e.cwd ?? prev?.cwd,
          title: e.title ?? prev?.title,
          startedAt: e.startedAt ?? prev?.startedAt,
          parentSessionId: e.parentSessionId ?? prev?.parentSessionId,
        };
        const changed =
          prev === undefined ||
          prev.agent !== merged.agent ||
          prev.sessionId !== merged.sessionId ||
          prev.cwd !== merged.cwd ||
          prev.title !== merged.title ||
          prev.startedAt !== merged.startedAt ||
          prev.parentSessionId !== merged.parentSessionId;
        this.session = merged;
        this.agent = e.agent;
        if (changed) {
          this.dispatch(e.at, 'onSession', (l) => l.onSession?.(merged));
        }
        return;
      }
      case 'text':
        return this.onText(e);
      case 'call':
        return this.onCall(e);
      case 'result':
        return this.onResult(e);
      case 'reset':
        this.conversation.reset();
        this.dispatch(e.at, 'onReset', (l) => l.onReset?.(e));
        return;
      case 'turn-end':
        this.dispatch(e.at, 'onTurnEnd', (l) => l.onTurnEnd?.(e.at, e.aborted));
        return;
      case 'malformed':
        if (e.reason === 'internal') {
          return this.internalError(e.at, e.detail);
        }
        this.dispatch(e.at, 'onMalformed', (l) => l.onMalformed?.(e));
        return;
      case 'execution':
        this.dispatch(e.at, 'onExecution', (l) => l.onExecution?.(e));
        return;
      case 'call-running': {
        const rec = this.conversation.noteRunning(e);
        if (rec) {
          this.dispatch(e.at, 'onRunning', (l) => l.onRunning?.(rec, e));
        }
        return;
      }
      case 'file-created':
        this.knowledge.noteWrite(e.path, e.at, e.content);
        return;
      case 'paths-aliased':
        this.knowledge.link(e.from, e.to);
        return;
      case 'history-gap':
        this.knowledge.noteGap(e.at);
        return;
      case 'request-retried':
        this.dispatch(e.at, 'onRetry', (l) => l.onRetry?.(e));
        return;
      case 'foreign-result':
        // Another session's answer: nothing of this conversation, only kept for `check` to pair
        // with the other file's call (see ForeignResultEvent).
        if (this.carriedIn.length < maxCarriedIn) {
          this.carriedIn.push(e.callId);
        }
        return;
      case 'worktree-entered':
        for (const path of this.knowledge.copiesInto(e.from, e.to)) {
          this.knowledge.noteSeen(path, e.at);
        }
        return;
      case 'file-attached':
        if (e.read) {
          this.knowledge.noteRead(e.path, e.at, e.read);
        } else {
          this.knowledge.noteSeen(e.path, e.at);
        }
        return;
      case 'file-changed-by-hook':
        this.knowledge.noteHookChange(e.path, e.at, e.hook);
        return;
      case 'file-shown':
        for (const v of e.views) {
          this.knowledge.noteShown(e.path, e.at, v.start, v.lines, e.glimpse === true);
        }
        if (e.searched) {
          this.knowledge.noteAttempted(e.path, e.at);
        }
        return;
    }
  }

  /** End of a finished file: rules may now judge what never came. */
  end(): void {
    this.dispatch(undefined, 'onEnd', (l) => l.onEnd?.());
  }

  tick(now: number): void {
    this.dispatch(undefined, 'onTick', (l) => l.onTick?.(now));
  }

  // The per-event handlers call the rules in a plain loop rather than through `dispatch`:
  // no closure per event. Same order, same crash handling.

  private onText(e: TextEvent): void {
    // Claude Code's own note written amid the model's message, before its calls' results ("API
    // Error: Request was aborted." when the person pressed Esc, model `<synthetic>`), is no turn
    // of the model: it opens no message, so the results written after it still answer the calls
    // before it (the next request's cached prefix shows the API took them). The rules still see
    // it, in that message. (Its reply to a prompt, "No response requested.", stays a turn.)
    const current = this.conversation.current;
    const note = e.synthetic === true && e.role === 'assistant' && current?.role === 'assistant';
    const msg = note ? current : this.messageFor(e.role, e.messageKey, e.at, e.parentUuid);
    if (!note) {
      this.conversation.noteText(e, msg);
    }
    if (e.mentions) {
      for (const path of e.mentions) {
        this.knowledge.noteSeen(path, e.at);
      }
    }
    const list = (this.textRules ??= this.handlersOf('onText'));
    for (let i = 0; i < list.length; i++) {
      const { entry, fn } = list[i]!;
      if (!entry.disabled) {
        try {
          fn.call(entry.listener, e, msg);
        } catch (err) {
          this.crash(entry, err, e.at, 'handler');
        }
      }
    }
  }

  private onCall(e: ToolCall): void {
    const msg = this.messageFor('assistant', e.messageKey, e.at, e.parentUuid);
    const rec = this.conversation.addCall(e, msg);
    const list = (this.callRules ??= this.handlersOf('onCall'));
    for (let i = 0; i < list.length; i++) {
      const { entry, fn } = list[i]!;
      if (!entry.disabled) {
        try {
          fn.call(entry.listener, rec);
        } catch (err) {
          this.crash(entry, err, e.at, 'handler');
        }
      }
    }
  }

  private onResult(e: ToolResult): void {
    const msg = this.messageFor('user', undefined, e.at, e.parentUuid);
    const rec = this.conversation.addResult(e, msg);
    const list = (this.resultRules ??= this.handlersOf('onResult'));
    for (let i = 0; i < list.length; i++) {
      const { entry, fn } = list[i]!;
      if (!entry.disabled) {
        try {
          fn.call(entry.listener, rec);
        } catch (err) {
          this.crash(entry, err, e.at, 'handler');
        }
      }
    }
    // Knowledge changes only after every rule judged the result against what came before.
    const call = rec.call;
    if (call?.call.rewrites && call.results.length === 1 && !e.refused) {
      // Failed or not (a pull that stopped at a conflict has rewritten files all the same), as
      // long as it ran.
      for (const dir of call.call.rewrites) {
        this.knowledge.noteRewrite(dir, e.at);
      }
    }
    if (call && !e.isError && call.results.length === 1) {
      this.learn(call.call, e);
      if (e.saved) {
        this.knowledge.noteWrite(e.saved.path, e.at, e.saved.content);
      }
    } else if (call && e.isError && call.results.length === 1) {
      // `rg x && sed -n '1,80p' a.ts && rg y` exits 1 when the last search finds nothing, after
      // the read ran: the exit code does not say which command failed.
      for (const a of call.call.accesses) {
        // A file the failed call set out to create may exist all the same (a multi-file patch
        // stops at its first failure, after the files before it): the session wrote what is there.
        if ((a.op === 'read' && a.followed && !a.glob) || a.op === 'create') {
          this.knowledge.noteAttempted(a.path, e.at);
        } else if ((a.op === 'write' || a.op === 'edit') && !a.glob && a.viaShell && !e.refused && (a.fixer || a.followed)) {
          // A formatter or fixer exits non-zero after rewriting files (`ruff check --fix` with
          // errors left), and in `sed -i … f && make` the make may be what failed: what the
          // session knew of the file is no longer sure. (A failed Edit or Write tool wrote
          // nothing, and neither did a command refused before it ran, nor, most likely, a write
          // that was the command's last step.)
          this.knowledge.noteRewrite(a.path, e.at);
        }
      }
    }
  }

  /**
   * The message an event belongs to. A role change opens a message; so does an assistant
   * event naming a new message key. Claude Code writes each content block of one API
   * message as its own line and may record a tool's result before the message's next
   * block: such a block still belongs to the assistant message it continues.
   */
  private messageFor(role: 'user' | 'assistant', key: string | undefined, at: Span, parentUuid: string | null | undefined): MessageRecord {
    const conv = this.conversation;
    const cur = conv.current;
    const joined = messageToJoin(cur, cur ? conv.messages[cur.index - 1] : undefined, role, key, cur?.textAt !== undefined);
    if (joined) {
      return joined;
    }
    const msg = conv.openMessage(role, at, key, parentUuid);
    const previous = conv.messages[msg.index - 1];
    const list = (this.messageRules ??= this.handlersOf('onMessage'));
    for (let i = 0; i < list.length; i++) {
      const { entry, fn } = list[i]!;
      if (!entry.disabled) {
        try {
          fn.call(entry.listener, msg, previous);
        } catch (err) {
          this.crash(entry, err, at, 'handler');
        }
      }
    }
    return msg;
  }

  private learn(call: ToolCall, result: ToolResult): void {
    for (const a of call.accesses) {
      switch (a.op) {
        case 'read': {
          if (a.glob) {
            this.knowledge.noteSeenGlob(a.path, result.at, a.lines !== undefined);
            break;
          }
          const snapshot = result.read?.path === a.path ? result.read : undefined;
          if (snapshot === undefined && a.lines === undefined) {
            // A whole-file read whose content the transcript does not hold (`cat`): the session
            // now knows the file as it is, not as it last saw it.
            this.knowledge.noteSeen(a.path, result.at);
          } else {
            this.knowledge.noteRead(a.path, result.at, snapshot);
          }
          break;
        }
        case 'write':
        case 'edit':
        case 'create':
          if (a.from !== undefined) {
            this.knowledge.noteMove(a.from, a.path, result.at);
          } else {
            const w = result.write?.path === a.path ? result.write : undefined;
            this.knowledge.noteWrite(a.path, result.at, w?.after, w);
          }
          break;
        case 'delete':
          this.knowledge.noteDelete(a.path, result.at);
          break;
      }
    }
  }

  /**
   * Calls one handler of every rule that has it. The rules listening for each handler are
   * looked up once, not on every event: a transcript has millions of events.
   */
  private dispatch<K extends keyof RuleListener>(at: Span | undefined, handler: K, call: (l: RuleListener) => void): void {
    let list = this.listeners.get(handler);
    if (!list) {
      list = this.rulesWith(handler);
      this.listeners.set(handler, list);
    }
    for (const entry of list) {
      if (entry.disabled) {
        continue;
      }
      try {
        call(entry.listener);
      } catch (e) {
        this.crash(entry, e, at ?? { line: 1, start: 0, end: 0 }, 'handler');
      }
    }
  }

  private rulesWith(handler: keyof RuleListener): ActiveRule[] {
    return this.active.filter((e) => typeof e.listener[handler] === 'function');
  }

  /** The rules with this per-event handler, each with the handler itself (see BoundHandler). */
  private handlersOf<K extends 'onText' | 'onCall' | 'onResult' | 'onMessage'>(handler: K): BoundHandler<NonNullable<RuleListener[K]>>[] {
    return this.rulesWith(handler).map((entry) => ({ entry, fn: entry.listener[handler]! }));
  }

  /** A throwing rule is disabled for this stream and reported once; the others go on. */
  private crash(entry: ActiveRule, e: unknown, at: Span, where: string): void {
    entry.disabled = true;
    this.logger.error(`rule ${entry.rule.meta.id} threw in ${where} at ${this.opts.file}:${at.line}: ${describeError(e)}`);
    const message = errorMessage(e);
    this.reportOwnBug(
      entry.rule.meta.id,
      at,
      `Rule ${entry.rule.meta.id} failed on this line and was turned off for this file (${message}). Other rules still ran; please report this.`,
    );
  }

  /** A line the adapter (or this engine) failed on: our bug, reported on its line, never a lost file. */
  private internalError(at: Span, detail: string): void {
    this.logger.error(`reading ${this.opts.file}:${at.line} failed: ${detail}`);
    this.reportOwnBug(
      `line:${at.line}`,
      at,
      `Agent Session Guard failed to read line ${at.line} (${detail}); this is a bug in Agent Session Guard, not in the transcript. The rest of the file was still checked; please report this.`,
    );
  }

  /** An `internal-error` finding at the start of the line; `key` makes it one per rule, or per line. */
  private reportOwnBug(key: string, at: Span, message: string): void {
    this.opts.sink.add({
      id: `${ruleCrashedId}|${this.opts.file}|${key}`,
      rule: ruleCrashedId,
      severity: 'warning',
      file: this.opts.file,
      line: at.line,
      column: 1,
      endLine: at.line,
      endColumn: 1,
      message,
      agent: this.agent,
      session: this.sessionId,
      related: [],
    });
  }

  private contextFor(entry: ActiveRule, options: Readonly<Record<string, unknown>>): RuleContext {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the context is a view of this engine
    const engine = this;
    const file = this.opts.file;
    return {
      file,
      get agent() {
        return engine.agent;
      },
      get sessionId() {
        return engine.sessionId;
      },
      get session() {
        return engine.session;
      },
      conversation: this.conversation,
      knowledge: this.knowledge,
      mode: this.opts.mode,
      options,
      services: this.opts.services ?? {},
      now: () => this.clock(),
      report: (d) => this.report(entry, d),
      retract: (key) => {
        if (entry.reported.delete(key)) {
          this.opts.sink.retract(findingId(entry.rule.meta.id, file, key));
        }
      },
    };
  }

  private report(entry: ActiveRule, d: ReportDescriptor): void {
    if (entry.disabled) {
      return;
    }
    const meta = entry.rule.meta;
    const key = d.key ?? `${d.at.line}:${d.messageId}`;
    if (entry.reported.has(key)) {
      return;
    }
    const template = meta.messages[d.messageId];
    if (template === undefined) {
      throw new Error(`rule ${meta.id} reported unknown messageId '${d.messageId}'`);
    }
    entry.reported.add(key);
    let severity = entry.severity;
    if (d.severity) {
      severity = milder(severity, d.severity);
    }
    if (d.demote) {
      severity = demoteSeverity(severity);
    }
    const file = this.opts.file;
    const related: RelatedLocation[] = [];
    if (d.related) {
      for (const r of d.related) {
        related.push(
          r.at.end > r.at.start
            ? { file: r.file ?? file, line: r.at.line, column: r.at.start + 1, endColumn: r.at.end + 1, message: r.message }
            : { file: r.file ?? file, line: r.at.line, message: r.message },
        );
      }
    }
    // The optional fields are added in the finding's own field order (its JSON follows it),
    // not spread from conditional literals: a rule may report once per call.
    const finding: Finding = {
      id: findingId(meta.id, file, key),
      rule: meta.id,
      severity,
      file,
      line: d.at.line,
      column: d.at.start + 1,
      endLine: d.at.line,
      endColumn: Math.max(d.at.end, d.at.start) + 1,
      message: format(template, d.data ?? {}),
      agent: this.agent,
      session: this.sessionId,
      related,
    };
    if (d.subject) {
      finding.subject = boundedSubject(d.subject);
    }
    if (d.callId !== undefined) {
      finding.callId = d.callId;
    }
    finding.messageId = d.messageId;
    if (d.changedBetween) {
      finding.changedBetween = d.changedBetween;
    }
    this.opts.sink.add(finding);
  }
}

export function findingId(rule: string, file: string, key: string): string {
  return `${rule}|${file}|${key}`;
}

/** Message templates split once into literal text and `{{name}}` slots (every finding formats one). */
const compiledTemplates = new Map<string, (string | { slot: string })[]>();

function format(template: string, data: Record<string, string | number>): string {
  let parts = compiledTemplates.get(template);
  if (!parts) {
    parts = [];
    let last = 0;
    for (const m of template.matchAll(/\{\{\s*(\w+)\s*\}\}/g)) {
      parts.push(template.slice(last, m.index), { slot: m[1]! });
      last = m.index + m[0].length;
    }
    parts.push(template.slice(last));
    compiledTemplates.set(template, parts);
  }
  let out = '';
  for (const p of parts) {
    out += typeof p === 'string' ? p : p.slot in data ? String(data[p.slot]) : `{{${p.slot}}}`;
  }
  return out;
}

/**
 * A finding names at most this many line ranges of its file. Its message says how many lines in
 * all; the editor goes to the first range. A write over a file changed at every other line named
 * 160,000 ranges: 12 MB of JSON for one finding, kept in memory as long as the finding is.
 */
const maxSubjectRanges = 1000;

function boundedSubject(subject: FindingSubject): FindingSubject {
  return subject.lines !== undefined && subject.lines.length > maxSubjectRanges ? { ...subject, lines: subject.lines.slice(0, maxSubjectRanges) } : subject;
}
