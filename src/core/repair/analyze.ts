import type { CallRecord, MessageRecord, ResultRecord } from '../engine/conversation';
import { defineRule, type RuleModule } from '../engine/rule';
import { TranscriptStream } from '../engine/stream';
import type { AgentKind } from '../model/agent';
import type { Finding } from '../model/finding';
import { sessionIdFromPath } from '../model/sessionId';
import { adapters } from '../parse/registry';
import { duplicateCallId } from '../rules/duplicate-call-id';
import { duplicateResult } from '../rules/duplicate-result';
import { misplacedResult } from '../rules/misplaced-result';
import { missingResult } from '../rules/missing-result';
import { orphanResult } from '../rules/orphan-result';

/**
 * The rule modules `check` runs for pairing, used as they are: what repair fixes is exactly
 * what these rules report, decided in one place.
 */
const pairingRules: readonly RuleModule[] = [orphanResult, duplicateResult, misplacedResult, missingResult, duplicateCallId];

/** The transcript as the engine rebuilt it, with the pairing findings on it. */
export interface Analysis {
  agent: AgentKind | undefined;
  sessionId: string;
  cwd: string | undefined;
  /** Sorted by line. */
  findings: Finding[];
  /** Every call and result the engine saw, in arrival order. */
  calls: CallRecord[];
  results: ResultRecord[];
  /** The lines each API message was rebuilt from (text blocks, calls), ascending. */
  messageLines: Map<MessageRecord, number[]>;
  /** The message before each one, in its history. */
  previous: Map<MessageRecord, MessageRecord | undefined>;
}

/** Runs the transcript through the same adapters, engine and pairing rules as `check`. */
export function analyze(source: Uint8Array, file: string, agent?: AgentKind): Analysis {
  const findings = new Map<string, Finding>();
  const calls: CallRecord[] = [];
  const results: ResultRecord[] = [];
  const messageLines = new Map<MessageRecord, number[]>();
  const previous = new Map<MessageRecord, MessageRecord | undefined>();
  const note = (msg: MessageRecord, line: number): void => {
    const list = messageLines.get(msg);
    if (!list) {
      messageLines.set(msg, [line]);
    } else if (list[list.length - 1] !== line) {
      list.push(line);
    }
  };
  // A listener that reports nothing: it keeps the engine's own records of calls, results
  // and messages, so the planner works on the conversation the rules judged.
  const recorder = defineRule({
    meta: {
      id: 'repair-recorder',
      type: 'suggestion',
      defaultSeverity: 'info',
      scope: 'stream',
      docs: { description: 'Records the rebuilt conversation for the repair planner.', url: '' },
      messages: {},
    },
    create: () => ({
      onMessage: (msg, prev) => previous.set(msg, prev),
      onText: (e, msg) => note(msg, e.at.line),
      onCall: (rec) => {
        calls.push(rec);
        note(rec.message, rec.call.at.line);
      },
      onResult: (rec) => {
        results.push(rec);
      },
    }),
  });
  const stream = new TranscriptStream({
    file,
    adapters,
    rules: [...pairingRules, recorder],
    mode: 'batch',
    sink: { add: (f) => findings.set(f.id, f), retract: (id) => findings.delete(id) },
    fallbackSessionId: sessionIdFromPath(file),
    ...(agent ? { agent } : {}),
  });
  stream.push(source);
  stream.end();
  return {
    agent: stream.agent,
    sessionId: stream.engine.sessionId,
    cwd: stream.engine.sessionInfo?.cwd,
    findings: [...findings.values()].sort((a, b) => a.line - b.line || a.column - b.column || a.rule.localeCompare(b.rule)),
    calls,
    results,
    messageLines,
    previous,
  };
}

