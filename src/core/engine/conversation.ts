import type { CallRunningEvent, Role, Span, TextEvent, ToolCall, ToolResult } from '../model/events';

/** One API-visible message, rebuilt from transcript lines. */
export interface MessageRecord {
  /** Position in the current history (epoch); 0-based. */
  index: number;
  epoch: number;
  role: Role;
  key?: string;
  /** The line that opened the message. */
  at: Span;
  /** The message's calls and results, in arrival order (replaced, not grown, by the first one). */
  calls: CallRecord[];
  results: ResultRecord[];
  /** User text (a prompt, meta or an interrupt note) arrived in this message. */
  textAt?: Span;
  /** What that text hangs from (Claude Code's `parentUuid`), which may be another branch than the message's results. */
  textParentUuid?: string | null;
  /** The agent sends that text after the message's results, wherever the file has them (see TextEvent.resultsFirst). */
  textResultsFirst?: true;
  /** A prompt a person sent, as opposed to tool chatter. */
  promptAt?: Span;
  /** What the line that opened it hangs from (Claude Code's `parentUuid`): where in the tree it is. */
  parentUuid?: string | null;
}

export interface CallRecord {
  call: ToolCall;
  message: MessageRecord;
  /** In arrival order (replaced, not grown, by the first one). */
  results: ResultRecord[];
  /** Sequence number of the event, for "happened before" questions. */
  seq: number;
  /**
   * The first later record hung from this call's progress output (see `CallRunningEvent`):
   * written while the call ran, unless the call died there. A prompt there waits for the
   * result; a result that comes after it shows the call ran on.
   */
  runningAt?: Span;
}

export interface ResultRecord {
  result: ToolResult;
  message: MessageRecord;
  call: CallRecord | undefined;
  seq: number;
}

/**
 * The conversation as the provider would see it, maintained by the engine and read by rules.
 * Rules never mutate it.
 */
export class Conversation {
  epoch = 0;
  private seq = 0;
  /** Messages of the current epoch. */
  readonly messages: MessageRecord[] = [];
  /** Calls of every epoch by id, newest record last (a duplicate id keeps both). */
  private readonly calls = new Map<string, CallRecord[]>();
  /**
   * Per id with more than one call, how many of its calls (the oldest) have a result: a result
   * binds to the first one after them. A list only gains results, so this only grows, and a
   * transcript of thousands of calls with one id binds each result without a walk over the list.
   */
  private readonly answeredPrefix = new Map<string, number>();
  /**
   * Per id, where in its list the calls of the last message a result answered begin, and the
   * first of them with no result yet (see `resolve`). Both only move forward while the message
   * stays the same, so binding a batch of results walks each call once.
   */
  private readonly answeredTail = new Map<string, { message: MessageRecord; next: number }>();
  /** Calls that have no result yet. */
  readonly pending = new Map<string, CallRecord>();

  get current(): MessageRecord | undefined {
    return this.messages[this.messages.length - 1];
  }

  /** The assistant message the current user message answers, if the current one is a user message. */
  get answeredAssistant(): MessageRecord | undefined {
    const cur = this.current;
    if (!cur) {
      return undefined;
    }
    if (cur.role === 'assistant') {
      return cur;
    }
    const prev = this.messages[cur.index - 1];
    return prev?.role === 'assistant' ? prev : undefined;
  }

  nextSeq(): number {
    return ++this.seq;
  }

  callsWithId(id: string): readonly CallRecord[] {
    return this.calls.get(id) ?? [];
  }

  /** The newest call with this id, in any epoch. */
  call(id: string): CallRecord | undefined {
    const list = this.calls.get(id);
    return list?.[list.length - 1];
  }

  openMessage(role: Role, at: Span, key: string | undefined, parentUuid?: string | null): MessageRecord {
    const msg: MessageRecord = {
      index: this.messages.length,
      epoch: this.epoch,
      role,
      key,
      at,
      calls: noRecords,
      results: noRecords,
      // Every field a message may get, from the start: one hidden class for all of them, where
      // fields added later gave the rules' reads of messages several shapes to tell apart.
      textAt: undefined,
      textParentUuid: undefined,
      textResultsFirst: undefined,
      promptAt: undefined,
      parentUuid,
    };
    this.messages.push(msg);
    return msg;
  }

  addCall(call: ToolCall, message: MessageRecord): CallRecord {
    const rec: CallRecord = { call, message, results: noRecords, seq: this.nextSeq(), runningAt: undefined };
    message.calls = withRecord(message.calls, rec);
    const list = this.calls.get(call.callId);
    if (!list) {
      // (A call pending under an id is in `calls` under it: a new id has none.)
      this.calls.set(call.callId, [rec]);
      this.pending.set(call.callId, rec);
    } else {
      list.push(rec);
      if (!this.pending.has(call.callId)) {
        this.pending.set(call.callId, rec);
      }
    }
    return rec;
  }

  addResult(result: ToolResult, message: MessageRecord): ResultRecord {
    const before = message.epoch === this.epoch ? this.messages[message.index - 1] : undefined;
    const call = this.resolve(result.callId, message.role === 'user' && before?.role === 'assistant' ? before : undefined);
    const rec: ResultRecord = { result, message, call, seq: this.nextSeq() };
    message.results = withRecord(message.results, rec);
    if (call) {
      call.results = withRecord(call.results, rec);
      if (this.pending.get(result.callId) === call) {
        this.pending.delete(result.callId);
      }
    }
    return rec;
  }

  /** A sign the call is running; the call's record, when it is still waiting for its result. */
  noteRunning(e: CallRunningEvent): CallRecord | undefined {
    const rec = this.pending.get(e.callId);
    if (rec && e.by !== 'progress') {
      rec.runningAt ??= e.at;
    }
    return rec;
  }

  noteText(e: TextEvent, message: MessageRecord): void {
    if (e.attached) {
      // Delivered with the results: the results that follow are still in place.
      return;
    }
    if (message.textAt === undefined) {
      message.textAt = e.at;
      message.textParentUuid = e.parentUuid;
      if (e.resultsFirst) {
        message.textResultsFirst = true;
      }
    }
    if (e.prompt) {
      message.promptAt ??= e.at;
    }
  }

  /**
   * A result binds to the oldest call with its id that has no result yet, else the newest one;
   * but a call of the message the result answers (`answers`, the assistant message right before
   * it) comes first, as the API pairs them. Kimi numbers its calls by place in the conversation
   * (`functions.Bash:12`): when a streamed answer is cut short after a call and the request is
   * sent again, the retry's answer, hung below it, holds a call under the same id, and that one
   * ran (the result hangs from it; Claude Code 2.1.66–2.1.79, lyraqin/claude-my-project,
   * forty-third set). The call cut short keeps no result.
   */
  private resolve(id: string, answers: MessageRecord | undefined): CallRecord | undefined {
    const list = this.calls.get(id);
    if (!list) {
      return undefined;
    }
    let i = this.answeredPrefix.get(id) ?? 0;
    while (i < list.length && list[i]!.results.length > 0) {
      i++;
    }
    if (list.length > 1) {
      this.answeredPrefix.set(id, i);
    }
    if (i >= list.length) {
      return list[list.length - 1];
    }
    const oldest = list[i]!;
    if (answers === undefined || oldest.message === answers || list[list.length - 1]!.message !== answers) {
      return oldest;
    }
    // The answered message is the newest one with calls, so its calls with this id end the
    // list. Find where they begin once per message (each call is passed once), then walk past
    // those already answered from where the last result of this message left off.
    let tail = this.answeredTail.get(id);
    if (tail?.message !== answers) {
      let start = list.length - 1;
      while (start > i && list[start - 1]!.message === answers) {
        start--;
      }
      tail = { message: answers, next: start };
      this.answeredTail.set(id, tail);
    }
    while (tail.next < list.length && list[tail.next]!.results.length > 0) {
      tail.next++;
    }
    return tail.next < list.length ? list[tail.next] : oldest;
  }

  /** The API-visible history restarts; calls stay known so late results can still be named. */
  reset(): void {
    this.epoch++;
    this.messages.length = 0;
  }

  /** Forgets every record: the file is done with (see RuleEngine.release). */
  release(): void {
    this.messages.length = 0;
    this.calls.clear();
    this.answeredPrefix.clear();
    this.answeredTail.clear();
    this.pending.clear();
  }

  /** Drops the record of a call that will never be answered in the new history. */
  forgetPending(id: string): void {
    this.pending.delete(id);
  }

  pendingCalls(): CallRecord[] {
    return [...this.pending.values()];
  }

  /** Convenience for rules: did a result of this call arrive in the message right after the call's message? */
  static answeredInPlace(call: CallRecord, result: ResultRecord): boolean {
    return (
      result.message.epoch === call.message.epoch &&
      result.message.index === call.message.index + 1 &&
      result.message.role === 'user'
    );
  }

  static isError(result: ToolResult | undefined): boolean {
    return result?.isError ?? false;
  }
}

/**
 * The message an event of `role` joins: the current one, the one before it, or none (open a
 * new one). A role change opens a message; so does an assistant event naming a new message
 * key. Claude Code writes each content block of one API message as its own line and may record
 * a tool's result before the message's next block: such a block still belongs to the assistant
 * message it continues. One rule for the engine and the session timeline, so both group lines
 * alike. Joining the current message gives it `key` when it had none.
 */
export function messageToJoin<M extends { role: Role; key?: string }>(cur: M | undefined, prev: M | undefined, role: Role, key: string | undefined, curHasText: boolean): M | undefined {
  if (cur && cur.role === role && (role === 'user' || key === undefined || cur.key === undefined || cur.key === key)) {
    if (key !== undefined && cur.key === undefined) {
      cur.key = key;
    }
    return cur;
  }
  if (role === 'assistant' && key !== undefined && cur?.role === 'user' && !curHasText && prev?.role === 'assistant' && prev.key === key) {
    return prev;
  }
  return undefined;
}

/**
 * The list of a message or call that has no record yet: one shared empty array (frozen, so a
 * push into it fails loudly), replaced by `withRecord` on the first add.
 */
const noRecords = Object.freeze([]) as readonly never[] as never[];

/**
 * `list` with `item` appended. The first item replaces the empty list with a one-item array
 * rather than growing it: a push onto `[]` reserves room for 16, and a session keeps every
 * message's and call's lists (most hold one or two records) until its end. The reserve was a
 * fifth of the heap a Codex session retains, all of it copied by the young-generation GC.
 * So a record's list may be a new array after an add: read it, do not keep it.
 */
function withRecord<T>(list: T[], item: T): T[] {
  if (list.length === 0) {
    return [item];
  }
  list.push(item);
  return list;
}

export type { ToolCall, ToolResult };
