/**
 * Every failure the seed incidents showed, as a transcript, with the exact findings the
 * product must give for it (rule, line, and the column span of the offending id or path).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ClaudeTranscript } from '../support/claude';
import { CodexRollout } from '../support/codex';
import { run } from '../support/run';
import { columnOf } from '../support/ruleTester';

const A = 'toolu_01AAAAAAAAAAAAAAAAAAAAAA';
const B = 'toolu_01BBBBBBBBBBBBBBBBBBBBBB';
const C = 'toolu_01CCCCCCCCCCCCCCCCCCCCCC';
const file = '/home/dev/proj/src/app.ts';
const other = '/home/dev/proj/src/util.ts';
const body = 'export const a = 1;\nexport const b = 2;\n';

function summary(text: string): string[] {
  return run(text).findings.map((f) => `${f.rule}:${f.messageId}@${f.line}:${f.severity}`);
}

void describe('seed failures', () => {
  void test('a read and a write of one file dispatched together (and completed in reverse order)', () => {
    // Codex runs the shell commands of one batch side by side: the read may see either version.
    const t = new CodexRollout()
      .user('rename a')
      .exec('call_read', 'cat src/app.ts')
      .exec('call_write', "sed -i 's/a = 1/x = 1/' src/app.ts")
      .output('call_write', 'Exit code: 0')
      .output('call_read', 'Exit code: 0\nexport const x = 1;\nexport const b = 2;')
      .say('done');
    const { findings } = run(t.text());
    assert.deepEqual(
      findings.map((f) => `${f.rule}@${f.line}`),
      [`parallel-read-write@${t.lineOf('call_write')}`],
    );
    const f = findings[0]!;
    assert.equal(f.column, columnOf(t.lines[f.line - 1]!, 'src/app.ts'));
    assert.equal(f.endColumn, f.column + 'src/app.ts'.length);
    assert.equal(f.related[0]!.line, t.lineOf('call_read'));
    assert.deepEqual(f.subject, { path: file });
    // Claude Code never runs them side by side: a write runs alone, in the message's order (an
    // Edit is not concurrency-safe in its executor), so the read saw the file before the edit.
    const c = new ClaudeTranscript()
      .user('rename a')
      .call('msg_1', A, 'Read', { file_path: file })
      .call('msg_1', B, 'Edit', { file_path: file, old_string: 'a = 1', new_string: 'x = 1', replace_all: false })
      .readResult(A, file, body)
      .editResult(B, file, body, 'a = 1', 'x = 1')
      .say('msg_2', 'done');
    assert.deepEqual(run(c.text()).findings, []);
  });

  void test('a duplicate completion: one call, two results', () => {
    const t = new ClaudeTranscript()
      .user('go')
      .call('msg_1', A, 'Bash', { command: 'npm test' })
      .result(A, 'ok')
      .result(A, 'ok')
      .say('msg_2', 'done');
    assert.deepEqual(summary(t.text()), [`duplicate-result:duplicate@${t.lineOf(A, 3)}:error`]);
    const f = run(t.text()).findings[0]!;
    const line = t.lines[f.line - 1]!;
    assert.equal(line.slice(f.column - 1, f.endColumn - 1), A, 'the span is exactly the tool_use_id');
  });

  void test('an unknown id: a result that answers no call', () => {
    const t = new ClaudeTranscript().user('go').call('msg_1', A, 'Bash', { command: 'ls' }).result(A, 'x').result(C, 'stray').say('msg_2', 'ok');
    assert.deepEqual(summary(t.text()), [`orphan-result:unknown@${t.lineOf(C)}:error`]);
  });

  void test('an ack-loss replay: the result re-sent because its acknowledgement was lost', () => {
    const t = new ClaudeTranscript().user('go').call('msg_1', A, 'Bash', { command: 'make' }).result(A, 'built').result(A, 'built').say('msg_2', 'done');
    assert.deepEqual(summary(t.text()), [`duplicate-result:duplicate@${t.lineOf(A, 3)}:error`]);
  });

  void test('an ack-loss replay: the whole call and result written again under new uuids', () => {
    const t = new ClaudeTranscript().user('go').call('msg_1', A, 'Bash', { command: 'make' }).result(A, 'built');
    t.call('msg_1', A, 'Bash', { command: 'make' }).result(A, 'built').say('msg_2', 'done');
    // The replayed call takes the replayed result: one finding, at the second use of the id.
    assert.deepEqual(summary(t.text()), [`duplicate-call-id:duplicate@${t.lineOf(A, 3)}:error`]);
  });

  void test('a resume that replays lines with their own uuids is not a problem', () => {
    const t = new ClaudeTranscript().user('go').call('msg_1', A, 'Bash', { command: 'make' }).result(A, 'built').say('msg_2', 'done');
    const replayed = t.lines.join('\n') + '\n' + t.lines.join('\n') + '\n';
    assert.deepEqual(run(replayed).findings, []);
  });

  void test('a partial fan-out: three calls, two results, then the next turn', () => {
    const t = new ClaudeTranscript()
      .user('look around')
      .call('msg_1', A, 'Bash', { command: 'ls' })
      .call('msg_1', B, 'Bash', { command: 'pwd' })
      .call('msg_1', C, 'Bash', { command: 'whoami' })
      .result(A, 'a')
      .result(B, 'b')
      .say('msg_2', 'next');
    const { findings } = run(t.text());
    assert.deepEqual(
      findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`),
      [`missing-result:beforeNext@${t.lineOf(C)}`],
    );
    assert.equal(findings[0]!.related[0]!.line, t.lineOf('msg_2'));
  });

  void test('placeholders, a concurrent second execution, then the real results land late', () => {
    // The Amplifier "9 h delegate" shape, as Claude Code lines: a repair step answered the
    // parked calls with placeholders, a second turn ran, then the real results arrived.
    const placeholder = 'Tool execution was interrupted and no result was captured.';
    const t = new ClaudeTranscript()
      .user('delegate both')
      .call('msg_1', A, 'Task', { prompt: 'slow one', subagent_type: 'general' })
      .call('msg_1', B, 'Task', { prompt: 'slow two', subagent_type: 'general' })
      .result(A, placeholder, { isError: true })
      .result(B, placeholder, { isError: true })
      .user('are you there?')
      .say('msg_2', 'yes, still working')
      .result(A, 'real result A')
      .result(B, 'real result B');
    const got = summary(t.text());
    assert.deepEqual(got, [
      `duplicate-result:afterPlaceholder@${t.lineOf('real result A')}:error`,
      `misplaced-result:late@${t.lineOf('real result A')}:error`,
      `duplicate-result:afterPlaceholder@${t.lineOf('real result B')}:error`,
      `misplaced-result:late@${t.lineOf('real result B')}:error`,
    ]);
  });

  void test('a swapped result: each result names the other call’s file', () => {
    const t = new ClaudeTranscript()
      .user('read both')
      .call('msg_1', A, 'Read', { file_path: file })
      .call('msg_1', B, 'Read', { file_path: other })
      .readResult(A, other, 'export const u = 1;\n')
      .readResult(B, file, body)
      .say('msg_2', 'read');
    const { findings } = run(t.text());
    assert.deepEqual(
      findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`),
      [`mismatched-result:file@${t.lineOf(A, 2)}`, `mismatched-result:file@${t.lineOf(B, 2)}`],
    );
    assert.match(findings[0]!.message, /src\/util\.ts/);
  });

  void test('a lost update seen in the transcript: a write over lines changed behind the session', () => {
    // (An Edit could not do it unseen: its old_string must quote the changed line as it is.)
    const original = 'line one\nline two\nline three\n';
    const changed = 'line one\nline 2 (changed by the user)\nline three\n';
    const t = new ClaudeTranscript()
      .user('fix line two')
      .read('msg_1', A, file, original)
      .write('msg_2', B, file, 'line one\nline two, fixed\nline three\n', changed)
      .say('msg_3', 'done');
    const { findings } = run(t.text());
    assert.deepEqual(
      findings.map((f) => `${f.rule}:${f.messageId}@${f.line}:${f.severity}`),
      [`stale-write:overlap@${t.lineOf(B)}:error`],
    );
    assert.deepEqual(findings[0]!.subject, { path: file, lines: [{ start: 2, count: 1 }] });
    assert.equal(findings[0]!.related[0]!.line, t.lineOf(A, 2), 'links the read');
  });

  void test('a formatter ran between two edits, elsewhere in the file: a warning, not an error', () => {
    const v1 = 'fn(a)\nkeep\nlast\n';
    const t = new ClaudeTranscript()
      .user('edit')
      .read('msg_1', A, file, v1)
      .edit('msg_2', B, file, v1, 'last', 'final');
    // The formatter rewrote line 1 after the first edit; the second edit touches line 2.
    const formatted = 'fn a\nkeep\nfinal\n';
    t.edit('msg_3', C, file, formatted, 'keep', 'kept').say('msg_4', 'ok');
    assert.deepEqual(summary(t.text()), [`stale-write:aside@${t.lineOf(C)}:warning`]);
  });

  void test('Codex: calls left without output before the next prompt and at an aborted turn', () => {
    const r = new CodexRollout()
      .user('make a file')
      .shell('call_1', "echo hi > a.txt")
      .user('never mind')
      .say('ok')
      .user('delete it')
      .shell('call_2', 'rm a.txt')
      .event('turn_aborted', { reason: 'interrupted' });
    const { findings } = run(r.text());
    assert.deepEqual(
      findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`),
      [`missing-result:beforeNext@${r.lineOf('call_1')}`, `missing-result:aborted@${r.lineOf('call_2')}`],
    );
    const f = findings[0]!;
    assert.equal(r.lines[f.line - 1]!.slice(f.column - 1, f.endColumn - 1), 'call_1');
  });

  void test('Codex: an output for an unknown call id and a second output for one call', () => {
    const r = new CodexRollout().user('go').exec('call_1', 'ls').output('call_1', 'a').output('call_9', 'b').output('call_1', 'a').say('done');
    assert.deepEqual(summary(r.text()), [
      `orphan-result:unknown@${r.lineOf('call_9')}:error`,
      `duplicate-result:duplicate@${r.lineOf('call_1', 3)}:error`,
    ]);
  });
});
