/** Bad input never crashes and never hides the rest of the file. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { TranscriptStream } from '../../../src/core/engine/stream';
import { nullLogger } from '../../../src/core/lib/logger';
import type { Finding } from '../../../src/core/model/finding';
import type { FormatAdapter } from '../../../src/core/parse/adapter';
import { claudeAdapter } from '../../../src/core/parse/claude/parser';
import { allRules } from '../../../src/core/rules/all';
import { ClaudeTranscript } from '../support/claude';
import { run } from '../support/run';

const enc = new TextEncoder();

function concat(...parts: (string | Uint8Array)[]): Uint8Array {
  const bytes = parts.map((p) => (typeof p === 'string' ? enc.encode(p) : p));
  const out = new Uint8Array(bytes.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of bytes) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

/** A session whose last lines hold an orphan result: proof that checking went on past the bad line. */
function withTail(bad: string | Uint8Array): { bytes: Uint8Array; orphanLine: number; badLine: number } {
  const head = new ClaudeTranscript().user('go').call('m1', 'toolu_A', 'Bash', { command: 'ls' }).result('toolu_A', 'ok');
  const tail = new ClaudeTranscript('bbbbbbbb-0000-4000-8000-000000000002').result('toolu_ZZZ', 'stray');
  const bytes = concat(head.text(), bad, '\n', tail.text());
  return { bytes, badLine: head.lines.length + 1, orphanLine: head.lines.length + 2 };
}

void describe('bad input', () => {
  void test('invalid JSON: a finding with its line, the rest still checked', () => {
    const { bytes, badLine, orphanLine } = withTail('{"type":"user", oops');
    const { findings } = run(bytes);
    assert.deepEqual(
      findings.map((f) => `${f.rule}@${f.line}`),
      [`unparseable-line@${badLine}`, `orphan-result@${orphanLine}`],
    );
    assert.match(findings[0]!.message, /not valid JSON/);
  });

  void test('two records on one line (no newline between them): one finding, and both records are checked', () => {
    // As in real Claude Code files: a `summary` record appended to an assistant record's line.
    const t = new ClaudeTranscript().user('go').call('m1', 'toolu_A', 'Bash', { command: 'ls' });
    const glued = t.lines.pop()! + JSON.stringify({ type: 'summary', summary: 'Listing files', leafUuid: 'x' });
    t.raw(glued).result('toolu_A', 'ok').say('m2', 'done');
    const { findings } = run(t.text());
    // The call on the glued line was read: its result is no orphan, and nothing is missing.
    assert.deepEqual(
      findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`),
      ['unparseable-line:concatenated@2'],
    );
    assert.match(findings[0]!.message, /^Line 2 holds 2 JSON records with no newline between them/);
  });

  void test('a broken line with }{ inside a string is still plain invalid JSON', () => {
    const { bytes, badLine } = withTail('{"type":"user","text":"a}{b", oops');
    const { findings } = run(bytes);
    assert.equal(findings.find((f) => f.line === badLine)?.messageId, 'malformed');
  });

  void test('NUL bytes', () => {
    const { bytes, badLine, orphanLine } = withTail('\u0000\u0000{"type":\u0000"user"}');
    assert.deepEqual(
      run(bytes).findings.map((f) => `${f.rule}@${f.line}`),
      [`unparseable-line@${badLine}`, `orphan-result@${orphanLine}`],
    );
  });

  void test('invalid UTF-8 inside a record: reported, and the record is still read', () => {
    // A lone continuation byte and a truncated 3-byte sequence inside a prompt string.
    const bad = concat('{"type":"user","uuid":"u-bad","sessionId":"s","message":{"role":"user","content":"caf', Uint8Array.of(0x80, 0xe2, 0x82), '"}}');
    const { bytes, badLine, orphanLine } = withTail(bad);
    const { findings } = run(bytes);
    assert.deepEqual(
      findings.map((f) => `${f.rule}@${f.line}`),
      [`unparseable-line@${badLine}`, `orphan-result@${orphanLine}`],
    );
    assert.match(findings[0]!.message, /UTF-8/);
  });

  void test('an empty file gives nothing', () => {
    assert.deepEqual(run(new Uint8Array(0)).findings, []);
    assert.deepEqual(run('\n\n  \n').findings, []);
  });

  void test('a truncated last line is reported at lower severity', () => {
    const t = new ClaudeTranscript().user('go').call('m1', 'toolu_A', 'Bash', { command: 'ls' }).result('toolu_A', 'ok');
    const text = t.text() + '{"parentUuid":"x","type":"assistant","message":{"id":"m2","content":[{"type":"te';
    const { findings } = run(text);
    assert.deepEqual(
      findings.map((f) => `${f.rule}:${f.messageId}@${f.line}:${f.severity}`),
      [`unparseable-line:truncated@${t.lines.length + 1}:warning`],
    );
    // Live, the same bytes are a line still being written: nothing to say yet.
    assert.deepEqual(run(text, { mode: 'live', end: false }).findings, []);
  });

  void test('a 64 MB line is read like any other', () => {
    const huge = 'x'.repeat(64 * 1024 * 1024);
    const t = new ClaudeTranscript().user('go').call('m1', 'toolu_A', 'Read', { file_path: '/tmp/big.txt' }).result('toolu_A', huge).result('toolu_A', 'again');
    const { findings } = run(t.text());
    assert.deepEqual(
      findings.map((f) => `${f.rule}@${f.line}`),
      ['duplicate-result@4'],
    );
  });

  void test('JSON that is not an object, and records of unknown kinds', () => {
    const t = new ClaudeTranscript().user('go').raw('[1,2,3]').raw('"just a string"').raw('{"type":"future-record","uuid":"z","sessionId":"s","payload":{"x":1}}').say('m1', 'hi');
    assert.deepEqual(
      run(t.text()).findings.map((f) => `${f.rule}@${f.line}`),
      ['unparseable-line@2', 'unparseable-line@3'],
    );
  });

  void test('a known record with the wrong shape is a finding; unknown fields are fine', () => {
    const t = new ClaudeTranscript()
      .user('go', { someNewField: { nested: true } })
      .raw('{"type":"assistant","uuid":"bad-1","sessionId":"s","message":{"id":"m1","content":"not an array"}}')
      .say('m2', 'fine');
    assert.deepEqual(
      run(t.text()).findings.map((f) => `${f.rule}@${f.line}`),
      ['unparseable-line@2'],
    );
  });

  void test('a JSON document spread over many lines (another tool\'s session): one finding, not one per line', () => {
    const doc = JSON.stringify({ id: 'ses_1', title: 'x', parts: Array.from({ length: 30 }, (_, i) => ({ id: `p${i}`, type: 'text', text: `line ${i}` })) }, null, 2) + '\n';
    const { findings } = run(doc);
    assert.deepEqual(findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`), ['unparseable-line:session@1']);
    // Every line counted, also those past the ones the report keeps (which are not parsed).
    const lines = doc.trimEnd().split('\n').length;
    assert.ok(lines > 100);
    assert.match(findings[0]!.message, new RegExp(`none of its ${lines} lines is a JSON record`));
  });

  void test('a transcript whose first lines are broken: each broken line is still reported once the format is known', () => {
    const t = new ClaudeTranscript().user('go');
    const text = '{"broken\n' + t.text() + 'oops\n';
    const { findings } = run(text);
    assert.deepEqual(findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`), ['unparseable-line:malformed@1', 'unparseable-line:malformed@3']);
  });

  void test('toolUseResult of any JSON type is read without a crash, and the next result still pairs', () => {
    // Found by mutating real records: a `null` (or `true`, a number) here reached an `in` test.
    for (const meta of [null, true, 0, 3.5, [], [{ file: {} }], 'Error: x', { file: null }, { filePath: 7 }, { stdout: null }]) {
      const t = new ClaudeTranscript()
        .user('go')
        .call('m1', 'toolu_A', 'Read', { file_path: '/w/a.ts' })
        .result('toolu_A', 'x', { toolUseResult: meta })
        .call('m2', 'toolu_B', 'Bash', { command: 'ls' })
        .result('toolu_B', 'ok')
        .result('toolu_Q', 'stray');
      const { findings } = run(t.text());
      assert.deepEqual(
        findings.map((f) => `${f.rule}@${f.line}`),
        ['orphan-result@6'],
        `toolUseResult ${JSON.stringify(meta)}`,
      );
    }
  });

  void test('a line the adapter fails on is an internal-error finding on that line; the rest is still checked', () => {
    // Any exception in an adapter (or the engine behind it) is our bug; it must not cost the file.
    const failing: FormatAdapter = {
      ...claudeAdapter,
      create(ctx) {
        const inner = claudeAdapter.create(ctx);
        return {
          line(value, raw) {
            if (raw.text.includes('BOOM')) {
              throw new TypeError('boom');
            }
            inner.line(value, raw);
          },
          end: () => inner.end?.(),
        };
      },
    };
    const t = new ClaudeTranscript().user('go').user('BOOM').call('m1', 'toolu_A', 'Bash', { command: 'ls' }).result('toolu_A', 'ok').result('toolu_Q', 'stray');
    const findings: Finding[] = [];
    const stream = new TranscriptStream({
      file: '/tmp/s.jsonl',
      adapters: [failing],
      rules: allRules,
      mode: 'batch',
      sink: { add: (f) => findings.push(f), retract: () => undefined },
      logger: nullLogger,
    });
    stream.push(new TextEncoder().encode(t.text()));
    stream.end();
    assert.deepEqual(
      findings.map((f) => `${f.rule}:${f.severity}@${f.line}`),
      ['internal-error:warning@2', 'orphan-result:error@5'],
    );
    assert.match(findings[0]!.message, /^Agent Session Guard failed to read line 2 \(TypeError: boom\); this is a bug in Agent Session Guard, not in the transcript\./);
  });

  void test('a file in no known format', () => {
    const { findings } = run('{"hello":"world"}\n{"another":1}\n');
    assert.deepEqual(findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`), ['unparseable-line:session@1']);
  });
});
