/** TranscriptStream.release: a finished session's state emptied in place (see RuleEngine.release). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TranscriptStream } from '../../../src/core/engine/stream';
import { adapters } from '../../../src/core/parse/registry';
import { allRules } from '../../../src/core/rules/all';
import { ClaudeTranscript } from '../support/claude';
import { run } from '../support/run';

const A = 'toolu_01AAAAAAAAAAAAAAAAAAAAAA';
const B = 'toolu_01BBBBBBBBBBBBBBBBBBBBBB';
const f = '/home/dev/proj/src/app.ts';
const v1 = 'one\ntwo\nthree\n';

/** A session that read `f`, then left an edit of it unanswered. */
const session = (): ClaudeTranscript => new ClaudeTranscript().user('go').read('m1', A, f, v1);

void describe('release', () => {
  void test('empties the conversation and the file knowledge in place, and keeps the session readable', () => {
    const { stream } = run(session().text());
    const { conversation, knowledge } = stream.engine;
    const messages = conversation.messages;
    assert.ok(messages.length > 0, 'the session has messages before release');
    assert.ok(conversation.call(A), 'the read call is known before release');
    assert.ok(knowledge.get(f)?.lastRead, 'the read is known before release');
    const sessionId = stream.engine.sessionId;

    stream.release();

    // The same containers, emptied: a dead container the collector has moved to its old
    // generation must point at nothing, or it keeps the next file's records alive.
    assert.equal(stream.engine.conversation, conversation);
    assert.equal(conversation.messages, messages);
    assert.equal(messages.length, 0);
    assert.equal(conversation.call(A), undefined);
    assert.equal(conversation.pending.size, 0);
    assert.equal(knowledge.get(f), undefined);
    assert.equal(stream.engine.sessionId, sessionId);
  });

  void test('ignores bytes that come after it: no events, no findings', () => {
    const t = session();
    const first = t.text();
    // An edit of a file never read: a finding, were it read.
    const rest = t.edit('m2', B, '/home/dev/proj/src/other.ts', v1, 'two', '2').text().slice(first.length);
    const read = (released: boolean): { events: number; findings: string[] } => {
      const findings: string[] = [];
      let events = 0;
      const stream = new TranscriptStream({
        file: '/tmp/session.jsonl',
        adapters,
        rules: allRules,
        mode: 'batch',
        sink: { add: (x) => findings.push(x.rule), retract: () => undefined },
        observe: () => void events++,
      });
      stream.push(new TextEncoder().encode(first));
      if (released) {
        stream.release();
      }
      const before = events;
      stream.push(new TextEncoder().encode(rest));
      stream.end();
      return { events: events - before, findings };
    };
    assert.deepEqual(read(true), { events: 0, findings: [] });
    // Not released, the same bytes give events and a finding: the assertion above could fail.
    const live = read(false);
    assert.ok(live.events > 0);
    assert.ok(live.findings.includes('write-before-read'), live.findings.join());
  });

  void test('twice is harmless', () => {
    const { stream } = run(session().text());
    stream.release();
    stream.release();
    assert.equal(stream.engine.conversation.messages.length, 0);
  });
});
