/** Session integrity: overlapping executions, forks, stalled calls. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TranscriptStream } from '../../../src/core/engine/stream';
import type { Finding } from '../../../src/core/model/finding';
import type { RuleModule } from '../../../src/core/engine/rule';
import type { RuleConfig } from '../../../src/core/config/ruleConfig';
import { parseSettings, ruleConfigFromSettings } from '../../../src/core/config/settings';
import { adapters } from '../../../src/core/parse/registry';
import { inputHash } from '../../../src/core/lib/hash';
import { allRules } from '../../../src/core/rules/all';
import { misplacedResult } from '../../../src/core/rules/misplaced-result';
import { missingResult } from '../../../src/core/rules/missing-result';
import { stalledCall } from '../../../src/core/rules/stalled-call';
import { HookLedger } from '../../../src/io/guard/ledger';
import { alternateBranches, ClaudeTranscript } from '../support/claude';
import { CodexRollout } from '../support/codex';
import { run } from '../support/run';

const rules = (text: string): string[] =>
  run(text)
    .findings.filter((f) => ['overlapping-executions', 'forked-session', 'stalled-call'].includes(f.rule))
    .map((f) => `${f.rule}:${f.messageId}@${f.line}`);

function amplifierEvents(lines: [string, Record<string, unknown>?][]): string {
  let t = Date.parse('2026-03-01T09:00:00.000Z');
  return lines
    .map(([event, data]) => JSON.stringify({ ts: new Date((t += 1000)).toISOString(), lvl: 'INFO', schema: { name: 'amplifier.log', ver: '1.0.0' }, event, session_id: 'sess-amp-1', data: data ?? {} }) + '\n')
    .join('');
}

void describe('overlapping-executions and forked-session', () => {
  void test('Claude Code: two branches of one file written alternately', () => {
    const { t, y1, x2 } = alternateBranches();
    t.from(y1).user('Y again').say('m5', 'y2');
    t.from(x2).user('X once more');
    assert.deepEqual(rules(t.text()), ['forked-session:forked@7', 'overlapping-executions:interleaved@9']);
  });

  void test('Claude Code: a file forked twice, both times both branches growing: the fork is reported once, as a warning', () => {
    const { t, x2 } = alternateBranches();
    // X forks again, and both of its branches grow too.
    t.from(x2).user('X goes on').say('m5', 'x3');
    const x3 = t.uuidAt(10);
    t.from(x2).user('Z, forked from X').say('m6', 'z1');
    const z1 = t.uuidAt(12);
    t.from(x3).user('X again').say('m7', 'x4');
    t.from(z1).user('Z again');
    assert.deepEqual(
      run(t.text())
        .findings.filter((f) => ['overlapping-executions', 'forked-session'].includes(f.rule))
        .map((f) => `${f.rule}:${f.messageId}@${f.line}:${f.severity}`),
      ['forked-session:forked@7:warning', 'overlapping-executions:interleaved@15:error'],
    );
  });

  void test('Claude Code: a rewind the user chose (the old branch stops) is not a fork', () => {
    const t = new ClaudeTranscript().user('start').say('m1', 'ok');
    const a1 = t.uuidAt(2);
    t.user('first attempt').say('m2', 'b1');
    t.from(a1).user('second attempt').say('m3', 'b2').user('keep going').say('m4', 'b3');
    assert.deepEqual(rules(t.text()), []);
  });

  void test('Claude Code: a new prompt on another branch while a call is pending', () => {
    const t = new ClaudeTranscript().user('start').say('m1', 'ok');
    const fork = t.uuidAt(2);
    t.user('run the slow task').call('m2', 'toolu_SLOW', 'Task', { prompt: 'slow' });
    t.from(fork).user('meanwhile, something else');
    assert.deepEqual(rules(t.text()), ['overlapping-executions:branch@5']);
  });

  // Claude Code hangs each record from the line written before it. A record hanging from a
  // progress line of a call with no result was written while that call ran (the shape of a
  // real 2.1.42 session, Beep206/CyberVPN 67edd8f2, lines 1142–1193).
  const A = 'toolu_01AAAAAAAAAAAAAAAAAAAAAA';
  const B = 'toolu_01BBBBBBBBBBBBBBBBBBBBBB';
  const every = (text: string): string[] =>
    run(text)
      .findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`)
      .sort();

  void test('Claude Code: a prompt typed while a call ran waits for its result: nothing is missing or misplaced', () => {
    const t = new ClaudeTranscript().user('run the tests').call('m1', A, 'Bash', { command: 'npm test' });
    t.bashProgress(A).user('are you stuck?').bashProgress(A).linkedResult(A, 'ok').say('m2', 'all pass');
    assert.deepEqual(every(t.text()), []);
    // Without the progress line in between, the same prompt is written before the result.
    // Claude Code 2.0.19 and later sends them in one message, the result first: still in place.
    const plain = (version: string): string => {
      const t = new ClaudeTranscript().as(version).user('run the tests').call('m1', A, 'Bash', { command: 'npm test' });
      return t.user('are you stuck?').linkedResult(A, 'ok').say('m2', 'all pass').text();
    };
    assert.deepEqual(every(plain('2.1.71')), []);
    assert.deepEqual(every(plain('2.0.19')), []);
    // 2.0.15 and before sent the text first, which the API refuses after a call.
    assert.deepEqual(every(plain('2.0.15')), ['misplaced-result:afterText@4', 'missing-result:beforeNext@2']);
  });

  void test('Claude Code: an assistant turn written while a call still ran is one overlapping execution, not pairing errors', () => {
    const t = new ClaudeTranscript().user('run the tests').call('m1', A, 'Bash', { command: 'npm test' });
    t.bashProgress(A).user('are you stuck?').bashProgress(A);
    t.say('m2', 'not stuck, the tests are slow').call('m2', B, 'Bash', { command: 'npm test -- --bail' }).bashProgress(B);
    // The first execution goes on once its call returns; its next turn hangs from B's progress.
    t.linkedResult(A, 'ok').bashProgress(B).say('m3', 'the first run passed').linkedResult(B, 'ok').say('m4', 'both passed');
    const { findings } = run(t.text());
    // The first run's next turn hangs from its own result, the second's from the prompt: the
    // tree forks, and both branches grow (forked-session says so too).
    assert.deepEqual(
      findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`),
      ['overlapping-executions:running@6', 'forked-session:forked@13'],
    );
    assert.match(findings[0]!.message, /while tool call toolu_01A+ \(Bash, line 2\) was still running \(this line follows its progress output on line 5; a prompt typed meanwhile, on line 4, follows its progress output on line 3\)/);
    assert.deepEqual(findings[0]!.related.map((r) => r.line), [2, 5, 4]);
  });

  void test('Claude Code 2.0.x: a turn hung from a running call’s hook notes, or from a result hung from them, is a second execution, not pairing errors', () => {
    // The shape of a real 2.0.1 session (lllttt06/claude-code-cookbook, baseball-detector-web
    // 3ddcee65, lines 78–94): two queries of one session, each record hung from the last line
    // the other wrote; the running calls' only lines are their PreToolUse hooks' notes.
    const C = 'toolu_01CCCCCCCCCCCCCCCCCCCCCC';
    const t = new ClaudeTranscript().as('2.0.1').user('fix the lint errors').call('m1', A, 'Bash', { command: 'npm run lint' });
    t.hookNote(A, 'check-ai-commit.sh').hookNote(A);
    // The second query's turn, from before A: the API never saw A.
    t.say('m2', 'already fixed; lint again').call('m2', B, 'Bash', { command: 'npm run lint -- src' }).hookNote(B, 'check-ai-commit.sh').hookNote(B);
    // A returns; the first query goes on from its result, hung below B's notes.
    t.result(A, 'ok').call('m3', C, 'Bash', { command: 'npm run lint | grep index' }).hookNote(C, 'check-ai-commit.sh').hookNote(C);
    t.result(B, '').say('m4', 'lint passes').result(C, '').say('m5', 'done');
    assert.deepEqual(every(t.text()), ['overlapping-executions:running@5']);
    // Without the notes (the turn hung from the call line itself) the same turn is judged as
    // the next one of A's conversation: the notes are what say A was running.
    const bare = new ClaudeTranscript().as('2.0.1').user('fix the lint errors').call('m1', A, 'Bash', { command: 'npm run lint' });
    bare.say('m2', 'already fixed; lint again').call('m2', B, 'Bash', { command: 'npm run lint -- src' }).result(A, 'ok').result(B, '').say('m3', 'done');
    assert.deepEqual(every(bare.text()), ['misplaced-result:late@5', 'missing-result:beforeNext@2']);
  });

  void test('Claude Code: the next prompt of one execution, hung from its turn’s end, is not text before the other execution’s result', () => {
    // The shape of a real 2.1.88 session (ahmedarafa994/eq-prediction 3ecfe023, lines 286–293):
    // the prompt hangs from the other run's closing `system` record, the result from its call.
    const t = new ClaudeTranscript().user('start').call('m1', A, 'Bash', { command: 'ls' });
    // The other run's turn ends (its closing record is a chain link, like `turn_duration`).
    t.from(t.uuidAt(1)).say('m2', 'the other run is done').attachment();
    t.from(t.uuidAt(2)).result(A, 'a.txt').call('m3', B, 'Bash', { command: 'npm test' });
    t.from(t.uuidAt(4)).user('that makes sense, go on');
    t.from(t.uuidAt(6)).result(B, 'ok');
    const found = every(t.text());
    assert.ok(!found.some((f) => f.startsWith('misplaced-result')), found.join(' '));
    // The same prompt on the call's branch: a build that sends text before results (2.0.15 and
    // before) sent it before the result, which is reported; a later one sends the result first.
    const one = (version: string): string[] => {
      const t = new ClaudeTranscript().as(version).user('start').call('m1', A, 'Bash', { command: 'ls' }).result(A, 'a.txt').call('m3', B, 'Bash', { command: 'npm test' });
      return every(t.user('that makes sense, go on').from(t.uuidAt(4)).result(B, 'ok').text());
    };
    assert.ok(one('2.0.14').includes('misplaced-result:afterText@6'), one('2.0.14').join(' '));
    assert.ok(!one('2.1.88').some((f) => f.startsWith('misplaced-result')), one('2.1.88').join(' '));
  });

  void test('Claude Code: a turn hung from the progress output of a call that then died is a missing result, not an overlap', () => {
    const t = new ClaudeTranscript().user('go').call('m1', A, 'Bash', { command: 'npm test' }).bashProgress(A).bashProgress(A);
    t.say('m2', 'moving on').user('thanks').say('m3', 'ok');
    assert.deepEqual(every(t.text()), ['missing-result:beforeNext@2']);
    // A prompt typed meanwhile, and the call never answers: missing at the next turn.
    const p = new ClaudeTranscript().user('go').call('m1', A, 'Bash', { command: 'npm test' }).bashProgress(A);
    p.user('are you stuck?').say('m2', 'no');
    assert.deepEqual(every(p.text()), ['missing-result:beforeNext@2']);
  });

  void test('Claude Code: a prompt typed while a call ran, a turn, then the call returns: the result shows the overlap', () => {
    const t = new ClaudeTranscript().user('go').call('m1', A, 'Bash', { command: 'npm test' }).bashProgress(A);
    t.user('are you stuck?').say('m2', 'no, still running').linkedResult(A, 'ok').say('m3', 'passed');
    const { findings } = run(t.text());
    assert.deepEqual(
      findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`),
      ['overlapping-executions:running@5'],
    );
    assert.match(findings[0]!.message, /\(a prompt typed meanwhile, on line 4, follows its progress output on line 3\)/);
  });

  void test('live, line by line: the turn written while a call ran is an overlap once the call shows it ran on; the missing result said meanwhile is withdrawn', () => {
    const findings = new Map<string, Finding>();
    const stream = new TranscriptStream({
      file: '/tmp/live-overlap.jsonl',
      adapters,
      rules: allRules,
      mode: 'live',
      sink: { add: (f) => findings.set(f.id, f), retract: (id) => findings.delete(id) },
    });
    const t = new ClaudeTranscript().user('run the tests').call('m1', A, 'Bash', { command: 'npm test' });
    t.bashProgress(A).say('m2', 'while that runs: hello');
    const enc = new TextEncoder();
    const now = (): string[] => [...findings.values()].map((f) => `${f.rule}:${f.messageId}@${f.line}`).sort();
    let sent = 0;
    const feed = (): void => {
      stream.push(enc.encode(t.lines.slice(sent).map((l) => l + '\n').join('')));
      sent = t.lines.length;
    };
    feed();
    // The turn hangs from the call's progress output, but the call may have died there.
    assert.deepEqual(now(), ['missing-result:beforeNext@2']);
    t.bashProgress(A);
    feed();
    // More output: it ran on under the new turn, a second execution.
    assert.deepEqual(now(), ['overlapping-executions:running@4']);
    t.linkedResult(A, 'ok');
    feed();
    assert.deepEqual(now(), ['overlapping-executions:running@4']);
    assert.deepEqual(run(t.text()).findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`), ['overlapping-executions:running@4']);
  });

  void test('Claude Code: two runs hanging from one hook attachment are an overlap, and each run pairs its own calls', () => {
    // The shape of a real 2.1.112 session (dougnukem/orpheus 5bc19237): while run A's call ran,
    // a second process resumed the session from the same attachment, and the two interleave.
    const C = 'toolu_01CCCCCCCCCCCCCCCCCCCCCC';
    const D = 'toolu_01DDDDDDDDDDDDDDDDDDDDDD';
    const E = 'toolu_01EEEEEEEEEEEEEEEEEEEEEE';
    const t = new ClaudeTranscript().user('configure the app icons').call('m1', A, 'Bash', { command: 'ls' }).linkedResult(A, 'ok').attachment();
    const fork = t.uuidAt(4);
    t.call('m2', B, 'Bash', { command: 'make icons' }); // run A, line 5
    t.from(fork).user('Continue from where you left off.', { isMeta: true }).say('m3', 'No response requested.').user('continue'); // run B, 6-8
    t.linkedResult(B, 'ok'); // run A, 9
    t.from(t.uuidAt(8)).call('m4', C, 'Bash', { command: 'git status' }); // run B, 10
    t.from(t.uuidAt(9)).call('m5', D, 'Bash', { command: 'make test' }).linkedResult(D, 'ok'); // run A, 11-12
    t.linkedResult(C, 'clean').from(t.uuidAt(13)).call('m6', E, 'Bash', { command: 'git diff' }).linkedResult(E, ''); // run B, 13-15
    assert.deepEqual(every(t.text()), ['forked-session:forked@11', 'overlapping-executions:branch@7', 'overlapping-executions:interleaved@14']);
    // Without the attachment line the runs hang from the result itself: the same judgement.
    const lines = t.text().split('\n');
    const att = JSON.parse(lines[3]!) as { uuid: string; parentUuid: string };
    const direct = lines.filter((_, i) => i !== 3).map((l) => l.split(att.uuid).join(att.parentUuid)).join('\n');
    assert.deepEqual(every(direct), ['forked-session:forked@10', 'overlapping-executions:branch@6', 'overlapping-executions:interleaved@13']);
  });

  void test('Claude Code: a call the model answered past is not pending at a later fork', () => {
    // Claude Code 2.1.120 running deepseek-v4-flash (twenty-eighth set): the first call of a
    // batch got no result and the model's next turn went on; much later the person forked the
    // session by typing again from an earlier reply. No execution was waiting on the call.
    const t = new ClaudeTranscript().user('look at the quote workflow');
    t.call('m1', A, 'Read', { file_path: '/w/MEMORY.md' }).call('m1', B, 'Glob', { pattern: '/w/**/*' }).linkedResult(B, '/w/a.md'); // 2-4
    t.say('m2', 'Let me read the quote template.').user('make the PI').say('m3', 'Done.'); // 5-7
    const fork = t.uuidAt(7);
    t.user('the format is wrong').say('m4', 'API Error: 400 thinking must be passed back').from(fork).user('hello'); // 8-10
    assert.deepEqual(
      rules(t.text()).filter((r) => r.startsWith('overlapping-executions')),
      [],
    );
  });

  void test("Claude Code: the call's own next block, written between its progress lines, is not another turn", () => {
    const t = new ClaudeTranscript().user('go').call('m1', A, 'Bash', { command: 'npm test' }).bashProgress(A);
    t.call('m1', B, 'Bash', { command: 'npm run lint' }).bashProgress(A).linkedResult(A, 'ok').linkedResult(B, 'ok').say('m2', 'done');
    assert.deepEqual(every(t.text()), []);
  });

  void test('Claude Code: a turn that does not hang from the running call is still judged by the pairing rules', () => {
    const t = new ClaudeTranscript().user('go').call('m1', A, 'Bash', { command: 'npm test' }).bashProgress(A);
    t.from(t.uuidAt(2)).say('m2', 'moving on');
    assert.deepEqual(every(t.text()), ['missing-result:beforeNext@2']);
  });

  void test('Claude Code: progress written after the result (a PostToolUse hook) is not a running call', () => {
    const t = new ClaudeTranscript().user('go').call('m1', A, 'Edit', { file_path: '/home/dev/proj/new.ts', old_string: 'a', new_string: 'b' });
    t.linkedResult(A, 'File created').progress(A).say('m2', 'done');
    assert.deepEqual(
      every(t.text()).filter((f) => !f.startsWith('write-before-read')),
      [],
    );
  });

  void test('Amplifier: a second execution while a delegate is parked (events.jsonl)', () => {
    const text = amplifierEvents([
      ['session:start'],
      ['prompt:submit'],
      ['execution:start'],
      ['llm:request'],
      ['tool:pre', { tool_name: 'delegate', tool_call_id: 'toolu_DELEGATE' }],
      ['prompt:submit'],
      ['execution:start'],
      ['llm:request'],
      ['tool:post', { tool_name: 'delegate', tool_call_id: 'toolu_DELEGATE' }],
      ['orchestrator:complete'],
      ['execution:complete'],
    ]);
    const { findings, stream } = run(text, { file: '/home/u/.amplifier/projects/-w/sessions/sess-amp-1/events.jsonl' });
    assert.equal(stream.agent, 'amplifier');
    assert.deepEqual(
      findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`),
      ['overlapping-executions:amplifier@6'],
    );
    assert.match(findings[0]!.message, /while the one that started on line 2 was still running with tool call toolu_DELEGATE \(delegate\) still pending/);
    assert.deepEqual(findings[0]!.related.map((r) => r.line), [2, 5]);
  });

  /** A first process waits on a `bash` call (toolu_SLEEP) when a second takes the session up and asks the model. */
  const resumedDuringSleep: Parameters<typeof amplifierEvents>[0] = [
      ['session:start'],
      ['prompt:submit'],
      ['execution:start'],
      ['llm:request'],
      ['tool:pre', { tool_name: 'bash', tool_call_id: 'toolu_SLEEP' }],
      ['session:resume'],
      ['prompt:submit'],
      ['execution:start'],
      ['llm:request'],
  ];

  void test('Amplifier: a session resumed in a new process after its first was killed during a tool is no overlap', () => {
    // The kill -9 capture of danshapiro/freshell (amplifier 2026.07.06) joined to a resume.
    const text = amplifierEvents([
      ...resumedDuringSleep,
      ['tool:pre', { tool_name: 'bash', tool_call_id: 'toolu_LS' }],
      ['tool:post', { tool_name: 'bash', tool_call_id: 'toolu_LS' }],
      ['orchestrator:complete'],
    ]);
    assert.deepEqual(run(text, { file: '/x/sessions/s/events.jsonl' }).findings, []);
  });

  void test("Amplifier: resumed in a new process while the first still runs: reported when the first's tool ends", () => {
    const text = amplifierEvents([
      ...resumedDuringSleep,
      ['tool:post', { tool_name: 'bash', tool_call_id: 'toolu_SLEEP' }],
      ['orchestrator:complete'],
    ]);
    const { findings } = run(text, { file: '/x/sessions/s/events.jsonl' });
    assert.deepEqual(
      findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`),
      ['overlapping-executions:amplifier@7'],
    );
    assert.match(findings[0]!.message, /started on line 2 was still running with tool call toolu_SLEEP \(bash\) still pending/);
  });

  void test("Amplifier: the first's tool ends while the new process has a tool without a call id open: the end is still the first's", () => {
    // The new process's scrubbed tool:pre could account for an unnamed tool end, not for the end
    // of a call the first process started.
    const text = amplifierEvents([
      ...resumedDuringSleep,
      ['llm:response'],
      ['tool:pre', { scrubbed: '[payload removed for fixture]' }],
      ['tool:post', { tool_name: 'bash', tool_call_id: 'toolu_SLEEP' }],
      ['orchestrator:complete'],
    ]);
    assert.deepEqual(
      run(text, { file: '/x/sessions/s/events.jsonl' }).findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`),
      ['overlapping-executions:amplifier@7'],
    );
  });

  /**
   * What amplifier 2026.07 (core 1.6.0) writes for one prompt, as in danshapiro/freshell's
   * captures (`test/fixtures/coding-cli/amplifier/events/resume-append.jsonl`): the session-naming
   * `llm:request` after `prompt:complete`, answered or not before the process ends.
   */
  const resumedTurn: [string, Record<string, unknown>?][] = [
    ['session:resume'],
    ['session:config'],
    ['prompt:submit'],
    ['execution:start'],
    ['provider:request', { iteration: 1 }],
    ['llm:request'],
    ['llm:response'],
    ['content_block:start'],
    ['content_block:end'],
    ['tool:pre', { tool_name: 'bash', tool_call_id: 'toolu_LS' }],
    ['tool:post', { tool_name: 'bash', tool_call_id: 'toolu_LS' }],
    ['provider:request', { iteration: 2 }],
    ['llm:request'],
    ['llm:response'],
    ['execution:end'],
    ['orchestrator:complete'],
    ['prompt:complete'],
    ['llm:request'],
    ['provider:retry'],
    ['session:end'],
  ];
  /** The first process's turn up to its call to the model. */
  const waitingOnModel: [string, Record<string, unknown>?][] = [
    ['session:start'],
    ['session:config'],
    ['prompt:submit'],
    ['execution:start'],
    ['provider:request', { iteration: 1 }],
    ['llm:request'],
  ];
  const byLine = (text: string): Uint8Array[] => text.split(/(?<=\n)/).filter(Boolean).map((l) => new TextEncoder().encode(l));
  const eventsFile = '/x/sessions/s/events.jsonl';

  void test('Amplifier: killed while waiting on the model, then resumed in a new process: no overlap, live or in batch', () => {
    // The first process's model call never came back (no llm:response): nothing after the
    // resume is more than the new process's own requests and calls account for.
    const text = amplifierEvents([...waitingOnModel, ...resumedTurn]);
    assert.deepEqual(run(text, { file: eventsFile }).findings, []);
    assert.deepEqual(run(text, { file: eventsFile, mode: 'live', chunks: byLine(text) }).findings, []);
  });

  void test('Amplifier: resumed while the first process still waits on the model: reported when an answer comes that the new process never asked for', () => {
    const text = amplifierEvents([
      ...waitingOnModel,
      ['session:resume'],
      ['prompt:submit'],
      ['execution:start'],
      ['llm:request'],
      // The first process's answer, then its tool; then the new process's own answer.
      ['llm:response'],
      ['tool:pre', { tool_name: 'read_file', tool_call_id: 'toolu_A1' }],
      ['llm:response'],
      ['tool:post', { tool_name: 'read_file', tool_call_id: 'toolu_A1' }],
      ['orchestrator:complete'],
    ]);
    const lines = byLine(text);
    const expected = ['overlapping-executions:amplifier@8'];
    const at = (findings: Finding[]): string[] => findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`);
    // Live: nothing while each answer may still be the new process's own.
    assert.deepEqual(at(run(text, { file: eventsFile, mode: 'live', chunks: lines.slice(0, 12), end: false }).findings), []);
    assert.deepEqual(at(run(text, { file: eventsFile, mode: 'live', chunks: lines.slice(0, 13), end: false }).findings), expected);
    const { findings } = run(text, { file: eventsFile });
    assert.deepEqual(at(findings), expected);
    assert.match(findings[0]!.message, /started on line 3 was still running with its model request \(line 6\) still unanswered/);
    assert.deepEqual(findings[0]!.related.map((r) => r.line), [3, 6, 13]);
  });

  void test('Amplifier: the first process answered and ended before the new one started: no overlap', () => {
    // Alive after the resume, but done before the second prompt: one execution at a time.
    const text = amplifierEvents([...waitingOnModel, ['session:resume'], ['llm:response'], ['execution:end'], ['orchestrator:complete'], ['prompt:complete'], ...resumedTurn.slice(2)]);
    assert.deepEqual(run(text, { file: eventsFile }).findings, []);
  });

  void test('Amplifier: scrubbed captures without call ids: killed during a tool and resumed is no overlap; a tool end the new process never started is', () => {
    // freshell's kill9-orphan.jsonl joined to resume-append.jsonl: `tool:pre` without a call id.
    const killed: [string, Record<string, unknown>?][] = [...waitingOnModel, ['llm:response'], ['tool:pre', { scrubbed: '[payload removed for fixture]' }]];
    const dead = amplifierEvents([...killed, ...resumedTurn]);
    assert.deepEqual(run(dead, { file: eventsFile }).findings, []);
    const alive = amplifierEvents([...killed, ['session:resume'], ['prompt:submit'], ['execution:start'], ['llm:request'], ['tool:post', { scrubbed: '[payload removed for fixture]' }], ['llm:response']]);
    assert.deepEqual(
      run(alive, { file: eventsFile }).findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`),
      ['overlapping-executions:amplifier@10'],
    );
  });

  void test('Amplifier: execution:end, which real logs write, ends an execution', () => {
    const text = amplifierEvents([
      ['session:start'],
      ['prompt:submit'],
      ['execution:start'],
      ['llm:request'],
      ['tool:pre', { tool_name: 'bash', tool_call_id: 'c1' }],
      ['tool:post', { tool_name: 'bash', tool_call_id: 'c1' }],
      ['execution:end'],
      ['execution:start'],
      ['llm:request'],
      ['execution:end'],
    ]);
    assert.deepEqual(run(text, { file: '/x/sessions/s/events.jsonl' }).findings, []);
  });

  void test('Amplifier: one execution writing several start and end markers is one execution', () => {
    const text = amplifierEvents([
      ['prompt:submit'],
      ['execution:start'],
      ['llm:request'],
      ['tool:pre', { tool_name: 'bash', tool_call_id: 'c1' }],
      ['tool:post', { tool_name: 'bash', tool_call_id: 'c1' }],
      ['orchestrator:complete'],
      ['execution:complete'],
      ['prompt:complete'],
      ['prompt:submit'],
      ['execution:start'],
      ['llm:request'],
      ['orchestrator:complete'],
    ]);
    assert.deepEqual(run(text, { file: '/x/sessions/s/events.jsonl' }).findings, []);
  });
});

/** A live stream of `rules` on `file`, on a clock the test sets (`clock.now`), with its findings by id. */
function liveStream(file: string, rules: RuleModule[], start: number, config?: RuleConfig): { clock: { now: number }; findings: Map<string, Finding>; stream: TranscriptStream } {
  const clock = { now: start };
  const findings = new Map<string, Finding>();
  const stream = new TranscriptStream({
    file,
    adapters,
    rules,
    ...(config ? { config } : {}),
    mode: 'live',
    clock: () => clock.now,
    sink: { add: (f) => findings.set(f.id, f), retract: (id) => findings.delete(id) },
  });
  return { clock, findings, stream };
}

void describe('stalled-call', () => {
  void test('reported after the limit, withdrawn when the result lands; silent in check', () => {
    const { clock, findings, stream } = liveStream('/tmp/s.jsonl', [stalledCall], Date.parse('2026-02-12T14:00:00.000Z'));
    const enc = new TextEncoder();
    // The builder stamps lines 14:00:01, 14:00:02…: the call starts at 14:00:02.
    const t = new ClaudeTranscript().user('go').call('m1', 'toolu_SLOW', 'Bash', { command: 'sleep 3600' });
    stream.push(enc.encode(t.text()));
    clock.now = Date.parse('2026-02-12T14:09:00.000Z');
    stream.tick(clock.now);
    assert.equal(findings.size, 0, 'not yet: 9 minutes');
    clock.now = Date.parse('2026-02-12T14:10:05.000Z');
    stream.tick(clock.now);
    const f = [...findings.values()];
    assert.deepEqual(
      f.map((x) => `${x.rule}@${x.line}:${x.severity}`),
      [`stalled-call@2:info`],
    );
    assert.match(f[0]!.message, /toolu_SLOW \(Bash\) has had no result for 10 minutes and the session has been idle for 10 minutes/);
    // The result lands: the finding goes.
    const before = t.lines.length;
    t.result('toolu_SLOW', 'done');
    stream.push(enc.encode(t.lines.slice(before).map((l) => l + '\n').join('')));
    assert.equal(findings.size, 0);
    // A file read by `check` never reports stalled calls (it cannot know how long they took).
    assert.deepEqual(
      run(new ClaudeTranscript().user('go').call('m1', 'toolu_SLOW', 'Bash', { command: 'sleep' }).text(), { rules: [stalledCall] }).findings,
      [],
    );
  });

  void test('a call the session went on without is missing-result’s alone, before or after the limit', () => {
    const { clock, findings, stream } = liveStream('/tmp/s.jsonl', [stalledCall, missingResult], Date.parse('2026-02-12T14:00:00.000Z'));
    const enc = new TextEncoder();
    const shown = (): string[] => [...findings.values()].map((x) => `${x.rule}@${x.line}:${x.severity}`).sort();
    // One call stalls and is reported; then the model's next turn comes without its result.
    const t = new ClaudeTranscript().user('go').call('m1', 'toolu_SLOW', 'Bash', { command: 'sleep 3600' });
    stream.push(enc.encode(t.text()));
    clock.now = Date.parse('2026-02-12T14:10:05.000Z');
    stream.tick(clock.now);
    assert.deepEqual(shown(), ['stalled-call@2:info']);
    let before = t.lines.length;
    t.say('m2', 'moving on');
    stream.push(enc.encode(t.lines.slice(before).map((l) => l + '\n').join('')));
    assert.deepEqual(shown(), ['missing-result@2:error'], 'the stalled call became a missing result: one finding, not two');
    // A second call passed by at once, then the limit: still one finding for it.
    before = t.lines.length;
    t.call('m3', 'toolu_LOST', 'Read', { file_path: '/tmp/a' }).say('m4', 'and on');
    stream.push(enc.encode(t.lines.slice(before).map((l) => l + '\n').join('')));
    clock.now = Date.parse('2026-02-12T14:30:00.000Z');
    stream.tick(clock.now);
    // (The first is a warning by now: the model answered without its result, missing-result's own wording.)
    assert.deepEqual(
      [...findings.values()].map((x) => `${x.rule}@${x.line}`).sort(),
      ['missing-result@2', `missing-result@${t.lineOf('toolu_LOST')}`],
    );
  });

  void test('a call the session went on without on another branch: reported live once it is old, as check reports it at the end; withdrawn if its result comes', () => {
    // Claude Code 2.1.222 after the machine crashed (fifty-third set): the resumed session hangs
    // from the record before the call, so the conversation goes on without it.
    const crashed = (): ClaudeTranscript => {
      const t = new ClaudeTranscript().user('go').say('m1', 'Checking').call('m1', 'toolu_LOST', 'Bash', { command: 'make' });
      return t.from(t.uuidAt(2)).user('Continue from where you left off.').say('m2', 'Continuing.');
    };
    const t = crashed();
    const inCheck = run(t.text(), { rules: [missingResult] }).findings.map((x) => `${x.rule}@${x.line}:${x.severity}:${x.message}`);
    assert.equal(inCheck.length, 1);
    assert.match(inCheck[0]!, /^missing-result@3:warning:.*never got a result: the session went on without it from line 4, on another branch/);
    // The builder stamps the call 14:00:03.
    const { clock, findings, stream } = liveStream('/tmp/s.jsonl', [stalledCall, missingResult], Date.parse('2026-02-12T14:00:10.000Z'));
    const enc = new TextEncoder();
    stream.push(enc.encode(t.text()));
    const shown = (): string[] => [...findings.values()].map((x) => `${x.rule}@${x.line}:${x.severity}:${x.message}`);
    clock.now = Date.parse('2026-02-12T14:09:00.000Z');
    stream.tick(clock.now);
    assert.deepEqual(shown(), [], 'not yet: the session may still come back to it');
    clock.now = Date.parse('2026-02-12T14:10:05.000Z');
    stream.tick(clock.now);
    assert.deepEqual(shown(), [inCheck[0]], 'the finding check gives, once the call is ten minutes old');
    stream.tick(clock.now + 60_000);
    assert.equal(findings.size, 1, 'reported once');
    // Its result after all (the session went back to that branch): withdrawn.
    const before = t.lines.length;
    t.from(t.uuidAt(3)).result('toolu_LOST', 'done');
    stream.push(enc.encode(t.lines.slice(before).map((l) => l + '\n').join('')));
    assert.deepEqual(shown().filter((x) => x.includes('never got a result')), []);
  });

  void test('a call the session went on without waits as long as the stalled-call limit the settings give', () => {
    const t = new ClaudeTranscript().user('go').say('m1', 'Checking').call('m1', 'toolu_LOST', 'Bash', { command: 'make' });
    t.from(t.uuidAt(2)).user('Continue from where you left off.').say('m2', 'Continuing.');
    const counts = (config: RuleConfig | undefined, times: readonly string[]): number[] => {
      const { clock, findings, stream } = liveStream('/tmp/s.jsonl', [missingResult], Date.parse('2026-02-12T14:00:10.000Z'), config);
      stream.push(new TextEncoder().encode(t.text()));
      return times.map((at) => {
        clock.now = Date.parse(`2026-02-12T${at}.000Z`);
        stream.tick(clock.now);
        return [...findings.values()].filter((x) => x.message.includes('never got a result')).length;
      });
    };
    // The builder stamps the call 14:00:03.
    const settings = parseSettings((key) => (key === 'stalledCallMinutes' ? 2 : undefined)).settings;
    assert.deepEqual(counts(ruleConfigFromSettings(settings), ['14:01:50', '14:02:10']), [0, 1], 'two minutes, as set');
    assert.deepEqual(counts(undefined, ['14:02:10', '14:09:00', '14:10:05']), [0, 0, 1], 'ten minutes by default');
  });

  void test('misplaced-result, live: a late result hung from its call is reported at once, withdrawn when the session goes on elsewhere, reported again at the next prompt typed (as check finds)', () => {
    const interrupted = '[Request interrupted by user for tool use]';
    const t = new ClaudeTranscript().user('go').call('m1', 'toolu_A', 'Task', { prompt: 'a' }).call('m1', 'toolu_B', 'Task', { prompt: 'b' }).linkedResult('toolu_B', interrupted);
    t.user('now wait').call('m2', 'toolu_C', 'Bash', { command: 'sleep 40' }).linkedResult('toolu_A', interrupted);
    const { findings, stream } = liveStream('/tmp/s.jsonl', [misplacedResult], Date.parse('2026-02-12T14:10:00.000Z'));
    const enc = new TextEncoder();
    stream.push(enc.encode(t.text()));
    const shown = (): string[] => [...findings.values()].map((x) => `${x.rule}@${x.line}`);
    const atEnd = run(t.text(), { rules: [misplacedResult] }).findings.map((x) => `${x.rule}@${x.line}`);
    assert.deepEqual(atEnd, ['misplaced-result@7'], 'check, when the file ends at the late result');
    assert.deepEqual(shown(), atEnd, 'live, at once');
    // The sleep's result, hung from its own call, and the session goes on from there.
    const before = t.lines.length;
    t.linkedResult('toolu_C', 'slept').say('m3', 'Done waiting.');
    stream.push(enc.encode(t.lines.slice(before).map((l) => l + '\n').join('')));
    assert.deepEqual(shown(), [], 'withdrawn: no request carries it');
    assert.deepEqual(run(t.text(), { rules: [misplacedResult] }).findings, [], 'as check finds');
    // A prompt typed in that process: its request carries the late result after the later turns.
    const more = t.lines.length;
    t.user('and now?');
    stream.push(enc.encode(t.lines.slice(more).map((l) => l + '\n').join('')));
    assert.deepEqual(shown(), atEnd, 'reported again');
    assert.deepEqual(run(t.text(), { rules: [misplacedResult] }).findings.map((x) => `${x.rule}@${x.line}`), atEnd, 'as check finds');
  });

  void test('a call whose turn ended or was aborted is not stalled: nothing waits for it (as check finds)', () => {
    for (const end of ['turn_aborted', 'task_complete']) {
      const { clock, findings, stream } = liveStream('/tmp/rollout-2026-01-02T03-04-05-s.jsonl', [stalledCall], Date.parse('2026-01-02T03:04:00.000Z'));
      const enc = new TextEncoder();
      const r = new CodexRollout('s', '/w').user('delete the file').shell('c1', 'rm test.txt');
      stream.push(enc.encode(r.text()));
      clock.now += 11 * 60_000;
      stream.tick(clock.now);
      assert.deepEqual([...findings.values()].map((x) => `${x.rule}@${x.line}`), [`stalled-call@${r.lineOf('c1')}`], `${end}: stalled while the turn goes on`);
      const before = r.lines.length;
      r.event(end, end === 'turn_aborted' ? { reason: 'user_cancelled' } : {});
      stream.push(enc.encode(r.lines.slice(before).map((l) => l + '\n').join('')));
      assert.deepEqual([...findings.values()], [], `${end}: withdrawn when the turn ends`);
      clock.now += 60 * 60_000;
      stream.tick(clock.now);
      assert.deepEqual([...findings.values()], [], `${end}: and not reported again`);
    }
  });

  /** A live stream of one unanswered Bash call at 14:00 with the limit set to `minutes`: how many findings at each later time. */
  const stalledAt = (minutes: number, times: readonly string[]): number[] => {
    const { clock, findings, stream } = liveStream('/tmp/s.jsonl', [stalledCall], Date.parse('2026-02-12T14:00:00.000Z'), { levels: {}, options: { 'stalled-call': { minutes } } });
    stream.push(new TextEncoder().encode(new ClaudeTranscript().user('go').call('m1', 'toolu_SLOW', 'Bash', { command: 'sleep' }).text()));
    return times.map((t) => {
      clock.now = Date.parse(`2026-02-12T${t}.000Z`);
      stream.tick(clock.now);
      return findings.size;
    });
  };

  void test('the limit is a setting', () => {
    assert.deepEqual(stalledAt(2, ['14:01:50', '14:02:30']), [0, 1]);
  });

  void test('a limit that is no positive number of minutes is the default, ten', () => {
    // Not yet at 9 minutes; at 10.
    assert.deepEqual(stalledAt(0, ['14:09:00', '14:10:05']), [0, 1]);
  });
});

void describe('calls bound to what the guard hook approved', () => {
  const sid = 'aaaaaaaa-0000-4000-8000-000000000001';
  const file = '/home/dev/proj/src/app.ts';
  const approve = (ledger: HookLedger, toolUseId: string, tool: string, input: unknown): void => {
    ledger.record({ kind: 'pre', at: Date.now(), agent: 'claude', sessionId: sid, tool, toolUseId, inputHash: inputHash(input), seq: ledger.nextSeq(), paths: [{ path: file, op: 'edit' }] });
  };
  const bound = (text: string, ledger: HookLedger): string[] =>
    run(text, { services: { hookLedger: ledger } })
      .findings.filter((f) => f.rule === 'unapproved-call' || f.rule === 'unbound-result')
      .map((f) => `${f.rule}:${f.messageId}@${f.line}`);
  const edit = { file_path: file, old_string: 'a', new_string: 'b', replace_all: false };

  void test('a call the hook approved with the same input is fine; with other input it is not', () => {
    const ledger = HookLedger.memory();
    approve(ledger, 'toolu_OK', 'Edit', edit);
    approve(ledger, 'toolu_SWAP', 'Edit', { ...edit, new_string: 'what was approved' });
    const t = new ClaudeTranscript(sid)
      .user('go')
      .call('m1', 'toolu_OK', 'Edit', edit)
      .result('toolu_OK', 'ok')
      .call('m2', 'toolu_SWAP', 'Edit', { ...edit, new_string: 'something else ran' })
      .result('toolu_SWAP', 'ok');
    assert.deepEqual(bound(t.text(), ledger), [`unapproved-call:changed@${t.lineOf('toolu_SWAP')}`]);
  });

  void test('a gated tool’s call the hook never saw; ungated tools are not judged', () => {
    const ledger = HookLedger.memory();
    approve(ledger, 'toolu_OK', 'Edit', edit);
    const t = new ClaudeTranscript(sid)
      .user('go')
      .call('m1', 'toolu_OK', 'Edit', edit)
      .result('toolu_OK', 'ok')
      .call('m2', 'toolu_AROUND', 'Edit', edit)
      .result('toolu_AROUND', 'ok')
      .call('m3', 'toolu_BASH', 'Bash', { command: 'ls' })
      .result('toolu_BASH', 'ok');
    assert.deepEqual(bound(t.text(), ledger), [`unapproved-call:unseen@${t.lineOf('toolu_AROUND')}`]);
  });

  void test('a call Claude Code refused before its hooks ran (its input rejected) did not go around the hook', () => {
    // As Claude Code 2.1.332 ran it with the guard: after an edit the hook saw, an Edit whose old
    // string is absent is answered `<tool_use_error>` before any PreToolUse hook runs.
    const ledger = HookLedger.memory();
    approve(ledger, 'toolu_OK', 'Edit', edit);
    const t = new ClaudeTranscript(sid)
      .user('go')
      .call('m1', 'toolu_OK', 'Edit', edit)
      .result('toolu_OK', 'ok')
      .call('m2', 'toolu_BAD', 'Edit', { ...edit, old_string: 'zulu' })
      .result('toolu_BAD', '<tool_use_error>String to replace not found in file.\nString: zulu</tool_use_error>', { isError: true, toolUseResult: 'Error: String to replace not found in file.\nString: zulu' })
      .call('m3', 'toolu_AROUND', 'Edit', edit)
      .result('toolu_AROUND', 'ok');
    assert.deepEqual(bound(t.text(), ledger), [`unapproved-call:unseen@${t.lineOf('toolu_AROUND')}`]);
  });

  void test('a result for an id the hook never saw, and that no call in the transcript has', () => {
    const ledger = HookLedger.memory();
    approve(ledger, 'toolu_OK', 'Edit', edit);
    const t = new ClaudeTranscript(sid).user('go').call('m1', 'toolu_OK', 'Edit', edit).result('toolu_OK', 'ok').result('toolu_GHOST', 'swapped in');
    assert.deepEqual(bound(t.text(), ledger), [`unbound-result:unbound@${t.lineOf('toolu_GHOST')}`]);
    // An error, and the rules that judge calls pass the result with no call by (none fails on it).
    assert.deepEqual(
      run(t.text(), { services: { hookLedger: ledger } })
        .findings.filter((f) => f.rule === 'unbound-result' || f.rule === 'internal-error')
        .map((f) => `${f.rule}@${f.line}:${f.severity}`),
      [`unbound-result@${t.lineOf('toolu_GHOST')}:error`],
    );
  });

  void test('Gemini: the hook names no call id, so a call is bound by its input alone', () => {
    // A Gemini CLI session file: the call's line holds its result too.
    const gemini = (args: Record<string, unknown>): string =>
      [
        JSON.stringify({ sessionId: 'g1', projectHash: 'p', startTime: '2026-03-02T09:14:02.311Z', lastUpdated: '2026-03-02T09:14:02.311Z' }),
        JSON.stringify({ id: 'u1', timestamp: '2026-03-02T09:14:05.120Z', type: 'user', content: [{ text: 'go' }] }),
        JSON.stringify({
          id: 'm1',
          timestamp: '2026-03-02T09:14:09.480Z',
          type: 'gemini',
          content: '',
          toolCalls: [{ id: 'write_file-1', name: 'write_file', args, result: [{ functionResponse: { id: 'write_file-1', name: 'write_file', response: { output: 'ok' } } }], status: 'success', timestamp: '2026-03-02T09:14:09.501Z' }],
        }),
      ].join('\n') + '\n';
    const approved = { file_path: file, content: 'approved' };
    const ledger = HookLedger.memory();
    ledger.record({ kind: 'pre', at: 5, agent: 'gemini', sessionId: 'g1', tool: 'write_file', inputHash: inputHash(approved), seq: ledger.nextSeq(), paths: [{ path: file, op: 'write' }] });
    const judged = (args: Record<string, unknown>): string[] =>
      run(gemini(args), { services: { hookLedger: ledger }, agent: 'gemini', mode: 'live' })
        .findings.filter((f) => f.rule === 'unapproved-call' || f.rule === 'unbound-result')
        .map((f) => `${f.rule}:${f.messageId}@${f.line}:${f.severity}`);
    assert.deepEqual(judged(approved), []);
    assert.deepEqual(judged({ file_path: file, content: 'something else' }), ['unapproved-call:changed@3:error']);
  });

  void test('sessions without hooks are not judged, and neither is check without a ledger', () => {
    const ledger = HookLedger.memory();
    const t = new ClaudeTranscript(sid).user('go').call('m1', 'toolu_X', 'Edit', edit).result('toolu_X', 'ok').result('toolu_GHOST', 'x');
    assert.deepEqual(bound(t.text(), ledger), []);
    assert.deepEqual(
      run(t.text()).findings.filter((f) => f.rule === 'unapproved-call' || f.rule === 'unbound-result'),
      [],
    );
  });
});
