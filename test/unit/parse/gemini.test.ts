import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { TranscriptStream } from '../../../src/core/engine/stream';
import type { NormalizedEvent, Span } from '../../../src/core/model/events';
import type { Finding } from '../../../src/core/model/finding';
import { claudeAdapter } from '../../../src/core/parse/claude/parser';
import { codexAdapter } from '../../../src/core/parse/codex/parser';
import { geminiAdapter } from '../../../src/core/parse/gemini/parser';
import { TranscriptParser } from '../../../src/core/parse/transcript';
import { sha256 } from '../../../src/core/lib/hash';
import { streamRules } from '../../../src/core/rules/registry';

/** The directory holding package.json and test/fixtures (tests run from out/test/unit/parse). */
function repoRoot(): string {
  for (const start of [__dirname, process.cwd()]) {
    let dir = start;
    for (;;) {
      if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'test', 'fixtures'))) {
        return dir;
      }
      const up = dirname(dir);
      if (up === dir) {
        break;
      }
      dir = up;
    }
  }
  throw new Error('cannot find the repository root');
}

const fixtures = join(repoRoot(), 'test', 'fixtures', 'transcripts', 'gemini');
const sharedSample = '/work/shared/fixtures/real/gemini/kvsankar-agent-history/rejections-gemini_with_tool_error.jsonl';

interface Run {
  events: NormalizedEvent[];
  findings: Finding[];
  lines: string[];
}

function runBytes(file: string, chunks: readonly Uint8Array[]): Run {
  const events: NormalizedEvent[] = [];
  const findings: Finding[] = [];
  const stream = new TranscriptStream({
    file,
    adapters: [geminiAdapter],
    rules: streamRules,
    mode: 'batch',
    sink: { add: (f) => findings.push(f), retract: () => undefined },
    observe: (e) => events.push(e),
  });
  for (const c of chunks) {
    stream.push(c);
  }
  stream.end();
  const text = Buffer.concat(chunks.map((c) => Buffer.from(c))).toString('utf8');
  return { events, findings, lines: text.split('\n') };
}

function runFile(path: string): Run {
  return runBytes(path, [readFileSync(path)]);
}

function runLines(lines: readonly object[], file = '/tmp/session.jsonl'): Run {
  return runBytes(file, [Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n')]);
}

/** One readable line per event: kind, transcript line, and what identifies it. */
function project(e: NormalizedEvent): string {
  switch (e.kind) {
    case 'text':
      return `text ${e.at.line} ${e.role}${e.prompt ? ' prompt' : ''}${e.messageKey ? ' ' + e.messageKey : ''}`;
    case 'call':
      return `call ${e.at.line} ${e.callId} ${e.tool} [${e.accesses.map((a) => `${a.op} ${a.path}`).join(', ')}]`;
    case 'result':
      return `result ${e.at.line} ${e.callId}${e.isError ? ' error' : ''}${e.placeholder ? ' placeholder' : ''}${e.tool ? ' ' + e.tool : ''}`;
    case 'reset':
      return `reset ${e.at.line} ${e.reason}`;
    case 'malformed':
      return `malformed ${e.at.line} ${e.reason}`;
    default:
      return `${e.kind} ${e.at.line}`;
  }
}

function slice(run: Run, at: Span): string {
  return (run.lines[at.line - 1] ?? '').slice(at.start, at.end);
}

function brief(f: Finding): string {
  return `${f.rule} ${f.line}:${f.column}-${f.endColumn}`;
}

/** Every call and result span covers exactly its id; every access span exactly the path as written. */
function assertSpans(run: Run): void {
  for (const e of run.events) {
    if (e.kind === 'call') {
      assert.equal(slice(run, e.at), e.callId, `span of call ${e.callId}`);
      for (const a of e.accesses) {
        assert.ok(a.span, `access span of ${a.path}`);
        assert.equal(slice(run, a.span), a.path);
      }
    } else if (e.kind === 'result') {
      assert.equal(slice(run, e.at), e.callId, `span of result ${e.callId}`);
    }
  }
}

const R1 = 'read_file-1772442849501-6f1e2d3c4b5a';
const E1 = 'replace-1772442853920-7a8b9c0d1e2f';
const S1 = 'run_shell_command-1772442858330-8b9c0d1e2f3a';
const R2 = 'read_file-1772442858331-9c0d1e2f3a4b';
const E2 = 'replace-1772442944140-0d1e2f3a4b5c';
const E3 = 'replace-1772442994030-1e2f3a4b5c6d';
const CFG = '/home/dev/app/config.json';

void describe('geminiAdapter.sniff / claimsPath', () => {
  void test('claims the four Gemini line kinds and nothing of Claude Code or Codex', () => {
    assert.ok(geminiAdapter.sniff({ sessionId: 's', projectHash: 'h', startTime: 't', lastUpdated: 't' }));
    assert.ok(geminiAdapter.sniff({ id: 'm1', timestamp: 't', type: 'gemini', content: 'hi' }));
    assert.ok(geminiAdapter.sniff({ id: 'm1', type: 'info', content: 'note' }));
    assert.ok(geminiAdapter.sniff({ $set: { lastUpdated: 't' } }));
    assert.ok(geminiAdapter.sniff({ $rewindTo: 'm1' }));
    // Claude Code user lines carry type:'user' and a sessionId too, but always a uuid.
    assert.ok(!geminiAdapter.sniff({ type: 'user', uuid: 'u', sessionId: 's', message: { role: 'user', content: 'x' } }));
    assert.ok(!geminiAdapter.sniff({ timestamp: 't', type: 'session_meta', payload: { id: 'x' } }));
    assert.ok(!geminiAdapter.sniff({ role: 'user', content: 'hi' }));
  });

  void test('claims chats/*.jsonl under ~/.gemini/tmp, sub-agent files included, and legacy chats/*.json', () => {
    assert.ok(geminiAdapter.claimsPath?.('/home/u/.gemini/tmp/my-app/chats/session-2026-03-02T09-14-3f2b8c1e.jsonl'));
    assert.ok(geminiAdapter.claimsPath?.('/home/u/.gemini/tmp/my-app/chats/3f2b8c1e-aaaa/9d1c.jsonl'));
    assert.ok(geminiAdapter.claimsPath?.('C:\\Users\\u\\.gemini\\tmp\\a41c9e0f\\chats\\session-2026-03-02T09-14-3f2b8c1e.jsonl'));
    assert.ok(geminiAdapter.claimsPath?.('/home/u/.gemini/tmp/my-app/chats/session-2026-03-02T09-14-3f2b8c1e.json'));
    assert.ok(geminiAdapter.claimsPath?.('/home/u/.gemini/tmp/my-app/chats/3f2b8c1e-aaaa/xb7gtb.json'));
    assert.ok(!geminiAdapter.claimsPath?.('/home/u/.gemini/tmp/my-app/logs.json'));
    assert.ok(!geminiAdapter.claimsPath?.('/home/u/.claude/projects/-home-u-app/3f2b8c1e.jsonl'));
  });
});

void describe('Gemini healthy session (re-appends, $set after each message, $rewindTo)', () => {
  const run = runFile(join(fixtures, 'healthy.jsonl'));

  void test('emits each message, call and result once, at the copy where it first appears', () => {
    assert.deepEqual(run.events.map(project), [
      'session 1',
      'text 2 user prompt',
      'text 4 assistant c8f5a1b3-2d4e-4f60-9bac-1d2e3f4a5b6c',
      // line 6 re-appends g1 with tokens only: nothing new. line 7 adds the executing call.
      `call 7 ${R1} read_file [read ${CFG}]`,
      `result 8 ${R1} read_file`,
      'text 9 assistant d9a6b2c4-3e5f-4071-acbd-2e3f4a5b6c7d',
      `call 11 ${E1} replace [edit ${CFG}]`,
      `result 12 ${E1} replace`,
      'text 13 assistant e0b7c3d5-4f60-4182-bdce-3f4a5b6c7d8e',
      `call 15 ${S1} run_shell_command []`,
      `call 15 ${R2} read_file [read /home/dev/app/README.md]`,
      // The two parallel calls finish in two later copies: one new result each.
      `result 16 ${S1} run_shell_command`,
      `result 17 ${R2} read_file`,
      'text 18 assistant f1c8d4e6-5061-4293-cedf-4a5b6c7d8e9f',
      'text 20 user prompt',
      'text 22 assistant 1b2c3d4e-5f6a-4b7c-9d8e-0f1a2b3c4d5e',
      `call 24 ${E2} replace [edit ${CFG}]`,
      `result 25 ${E2} replace`,
      'reset 26 rewind',
      'text 27 user prompt',
      'text 29 assistant 3d4e5f6a-7b8c-4d9e-9f0a-2b3c4d5e6f7a',
      `call 31 ${E3} replace [edit ${CFG}]`,
      `result 32 ${E3} replace`,
      'session 33',
    ]);
  });

  void test('spans: ids, paths, and the functionResponse id rather than the toolCall id', () => {
    assertSpans(run);
    for (const e of run.events) {
      if (e.kind === 'result') {
        const before = (run.lines[e.at.line - 1] ?? '').slice(0, e.at.start);
        assert.ok(before.endsWith('"functionResponse":{"id":"'), `result ${e.callId} points into its functionResponse`);
      }
    }
    const rewind = run.events.find((e) => e.kind === 'reset');
    assert.ok(rewind);
    assert.equal(slice(run, rewind.at), '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d');
  });

  void test('session info: id and start from the metadata line, title from $set.summary', () => {
    const sessions = run.events.filter((e) => e.kind === 'session');
    assert.deepEqual(
      sessions.map(({ at: _at, ...rest }) => rest),
      [
        { kind: 'session', agent: 'gemini', sessionId: '3f2b8c1e-7d4a-4b9e-9c2f-5a1d6e8b0c47', startedAt: '2026-03-02T09:14:02.311Z' },
        { kind: 'session', agent: 'gemini', title: 'Change the port to 9000 and turn debug off in config.json' },
      ],
    );
  });

  void test('the full rule set finds nothing', () => {
    assert.deepEqual(run.findings.map(brief), []);
  });
});

void describe('Gemini $set.messages checkpoint', () => {
  const run = runFile(join(fixtures, 'checkpoint.jsonl'));

  void test('resets, then emits the checkpoint records afresh at the $set line', () => {
    assert.deepEqual(run.events.map(project), [
      'session 1',
      'text 2 user prompt',
      'text 4 assistant c8f5a1b3-2d4e-4f60-9bac-1d2e3f4a5b6c',
      `call 6 ${R1} read_file [read ${CFG}]`,
      `result 7 ${R1} read_file`,
      'reset 8 replace',
      'text 8 user prompt',
      'text 8 assistant c8f5a1b3-2d4e-4f60-9bac-1d2e3f4a5b6c',
      `call 8 ${R1} read_file [read ${CFG}]`,
      `result 8 ${R1} read_file`,
      'text 9 assistant d9a6b2c4-3e5f-4071-acbd-2e3f4a5b6c7d',
      `call 11 ${E1} replace [edit ${CFG}]`,
      `result 12 ${E1} replace`,
    ]);
    assertSpans(run);
    // Inside the $set line, the text events point at their own record's id.
    const texts = run.events.filter((e) => e.kind === 'text' && e.at.line === 8);
    assert.deepEqual(
      texts.map((e) => slice(run, e.at)),
      ['b7e4f0a2-1c3d-4e5f-8a9b-0c1d2e3f4a5b', 'c8f5a1b3-2d4e-4f60-9bac-1d2e3f4a5b6c'],
    );
  });

  void test('the rules accept a checkpoint that restates the history', () => {
    assert.deepEqual(run.findings.map(brief), []);
  });

  void test('apart from duplicate-call-id, nothing is reported', () => {
    assert.deepEqual(run.findings.filter((f) => f.rule !== 'duplicate-call-id').map(brief), []);
  });
});

void describe('Gemini pairing problems', () => {
  void test('a result that arrives in a re-append after a later message: missing-result, then misplaced-result', () => {
    const run = runFile(join(fixtures, 'late-result.jsonl'));
    const SH = 'run_shell_command-1772535724010-2f3a4b5c6d7e';
    assert.deepEqual(run.events.map(project), [
      'session 1',
      'text 2 user prompt',
      'text 4 assistant 5f6a7b8c-9d0e-4f1a-9b2c-4d5e6f7a8b9c',
      `call 6 ${SH} run_shell_command []`,
      'text 7 assistant 6a7b8c9d-0e1f-4a2b-8c3d-5e6f7a8b9c0d',
      `result 9 ${SH} run_shell_command`,
    ]);
    assertSpans(run);
    // The call is unanswered when the next assistant turn opens (true, as sent live), and its
    // result then lands after that turn (true). Gemini's loader would put the record back in its
    // first position on resume; the findings describe the order the requests saw.
    assert.deepEqual(run.findings.map(brief), ['missing-result 6:218-262', 'misplaced-result 9:396-440']);
    assert.match(run.findings[1]?.message ?? '', /after a later assistant turn \(line 7\)/);
  });

  void test('a functionResponse id that matches no call: orphan-result, and the call stays unanswered', () => {
    const run = runFile(join(fixtures, 'orphan-result.jsonl'));
    assert.deepEqual(run.events.filter((e) => e.kind === 'call' || e.kind === 'result').map(project), [
      `call 6 read_file-1772611203010-3a4b5c6d7e8f read_file [read ${CFG}]`,
      'result 7 read_file-1772611203011-4b5c6d7e8f9a read_file',
    ]);
    assertSpans(run);
    assert.deepEqual(run.findings.map(brief), ['orphan-result 7:341-377', 'missing-result 6:198-234']);
    assert.equal(run.findings[0]?.callId, 'read_file-1772611203011-4b5c6d7e8f9a');
  });

  void test('a functionResponse naming another tool: mismatched-result', () => {
    const run = runFile(join(fixtures, 'mismatched-result.jsonl'));
    assert.deepEqual(run.findings.map(brief), ['mismatched-result 7:341-377']);
    assert.match(run.findings[0]?.message ?? '', /output of write_file, but the call was read_file/);
  });

  void test('an edit of a file the session never read: write-before-read on the path', () => {
    const run = runLines([
      { sessionId: 's1', projectHash: 'h', startTime: '2026-01-01T00:00:00.000Z', lastUpdated: '2026-01-01T00:00:00.000Z' },
      { id: 'u1', timestamp: '2026-01-01T00:00:01.000Z', type: 'user', content: [{ text: 'fix it' }] },
      {
        id: 'g1',
        timestamp: '2026-01-01T00:00:02.000Z',
        type: 'gemini',
        content: '',
        toolCalls: [
          {
            id: 'replace-1',
            name: 'replace',
            args: { file_path: '/repo/a.ts', old_string: 'a', new_string: 'b' },
            result: [{ functionResponse: { id: 'replace-1', name: 'replace', response: { output: 'Successfully modified file' } } }],
            status: 'success',
          },
        ],
      },
    ]);
    assert.deepEqual(run.findings.map((f) => f.rule), ['write-before-read']);
    const f = run.findings[0]!;
    assert.equal(slice(run, { line: f.line, start: f.column - 1, end: f.endColumn - 1 }), '/repo/a.ts');
  });
});

void describe('Gemini record semantics', () => {
  const meta = { sessionId: 's1', projectHash: 'h', startTime: '2026-01-01T00:00:00.000Z', lastUpdated: '2026-01-01T00:00:00.000Z' };
  const user = { id: 'u1', timestamp: '2026-01-01T00:00:01.000Z', type: 'user', content: 'go' };
  const call = (id: string, extra: object = {}) => ({ id, name: 'read_file', args: { file_path: '/r/a' }, status: 'executing', ...extra });
  const response = (id: string, name = 'read_file', response: object = { output: 'x' }) => ({ functionResponse: { id, name, response } });

  void test('a finished call without a recorded response is answered by its status; a later response is not a second result', () => {
    const run = runLines([
      meta,
      user,
      { id: 'g1', type: 'gemini', content: '', toolCalls: [call('c1', { status: 'cancelled', result: null }), call('c2', { status: 'error' })] },
      { id: 'g1', type: 'gemini', content: '', toolCalls: [call('c1', { status: 'cancelled', result: null }), call('c2', { status: 'error', result: [response('c2', 'read_file', { error: 'boom' })] })] },
    ]);
    assert.deepEqual(run.events.filter((e) => e.kind === 'call' || e.kind === 'result').map(project), [
      'call 3 c1 read_file [read /r/a]',
      'call 3 c2 read_file [read /r/a]',
      'result 3 c1 error',
      'result 3 c2 error',
    ]);
    const statusSpans = run.events.filter((e) => e.kind === 'result').map((e) => slice(run, e.at));
    assert.deepEqual(statusSpans, ['cancelled', 'error']);
    assert.deepEqual(run.findings.map(brief), []);
  });

  void test('a checkpoint that copies the whole user turn into each call gives one result per response', () => {
    const both = [response('c1'), response('c2')];
    const run = runLines([
      meta,
      { $set: { messages: [user, { id: 'g1', type: 'gemini', content: '', toolCalls: [call('c1', { status: 'success', result: both }), call('c2', { status: 'success', result: both })] }] } },
    ]);
    assert.deepEqual(run.events.filter((e) => e.kind === 'call' || e.kind === 'result').map(project), [
      'call 2 c1 read_file [read /r/a]',
      'call 2 c2 read_file [read /r/a]',
      'result 2 c1 read_file',
      'result 2 c2 read_file',
    ]);
    assertSpans(run);
    assert.deepEqual(run.findings.map(brief), []);
  });

  void test('$rewindTo forgets the dropped ids: a re-append of one is a new message; an unknown id drops everything', () => {
    const run = runLines([
      meta,
      user,
      { id: 'g1', type: 'gemini', content: 'a' },
      { $rewindTo: 'g1' },
      { id: 'g1', type: 'gemini', content: 'b' },
      { id: 'u1', type: 'user', content: 'go' },
      { $rewindTo: 'no-such-id' },
      { id: 'u1', type: 'user', content: 'go again' },
    ]);
    assert.deepEqual(run.events.map(project), [
      'session 1',
      'text 2 user prompt',
      'text 3 assistant g1',
      'reset 4 rewind',
      'text 5 assistant g1',
      'reset 7 rewind',
      'text 8 user prompt',
    ]);
  });

  void test('info/error/warning records and unknown shapes are skipped; broken records are reported once', () => {
    const badCall = { id: 'c1', args: {} };
    const run = runLines([
      meta,
      { id: 'i1', type: 'info', content: 'Switched model' },
      { id: 'w1', type: 'warning', content: 'Slow response' },
      { something: 'new', version: 2 },
      { id: 'g1', type: 'gemini', toolCalls: 'not a list' },
      { id: 'g2', type: 'gemini', content: '', toolCalls: [badCall] },
      { id: 'g2', type: 'gemini', content: '', toolCalls: [badCall] },
    ]);
    assert.deepEqual(run.events.map(project), ['session 1', 'malformed 5 invalid-shape', 'text 6 assistant g2', 'malformed 6 invalid-shape']);
    assert.deepEqual(run.findings.map((f) => `${f.rule} ${f.line}`), ['unparseable-line 5', 'unparseable-line 6']);
  });

  void test('a sub-agent file: cwd from directories, parent from the folder, relative paths resolved', () => {
    const run = runLines(
      [
        { ...meta, kind: 'subagent', directories: ['/home/dev/app'] },
        { id: 'g1', type: 'gemini', content: '', toolCalls: [{ id: 'c1', name: 'read_file', args: { file_path: 'src/a.ts' }, status: 'executing' }] },
      ],
      '/home/dev/.gemini/tmp/app/chats/3f2b8c1e-parent/9d1c.jsonl',
    );
    const session = run.events[0];
    assert.equal(session?.kind, 'session');
    assert.equal(session.kind === 'session' ? session.cwd : undefined, '/home/dev/app');
    assert.equal(session.kind === 'session' ? session.parentSessionId : undefined, '3f2b8c1e-parent');
    const c = run.events.find((e) => e.kind === 'call');
    assert.deepEqual(c?.kind === 'call' ? c.accesses.map((a) => a.path) : [], ['/home/dev/app/src/a.ts']);
    assert.equal(c?.kind === 'call' && c.accesses[0]?.span ? slice(run, c.accesses[0].span) : '', 'src/a.ts');
  });

  void test('registry order: a Gemini user record (which has a sessionId) is not taken for Claude Code', () => {
    const line = { id: 'u1', timestamp: 't', type: 'user', content: 'hi', sessionId: 's1' };
    const found = [codexAdapter, geminiAdapter, claudeAdapter].find((a) => a.sniff(line));
    assert.equal(found?.agent, 'gemini');
    assert.ok(claudeAdapter.sniff(line), 'Claude Code would claim it if it came first');
  });
});

/*
 * Gemini CLI 0.4x (kalu668/MY-SITE, June 2026, thirty-sixth set): results are user records of
 * functionResponse parts, and when the CLI syncs the history it sends back to the record it writes
 * every turn again under a new id, as the API's parts (a model turn's calls are functionCall parts,
 * no toolCalls), then a `$set.messages` checkpoint of those turns; the call in flight is answered
 * after it. The shapes below are the real lines, trimmed.
 */
void describe('Gemini history synced back to the record (functionCall parts, 0.4x)', () => {
  const meta = { sessionId: '295bad61', projectHash: 'ce4f', startTime: '2026-06-15T15:56:51.307Z', lastUpdated: '2026-06-15T15:56:51.307Z' };
  const U = 'update_topic__update_topic_1781539065365_0';
  const G = 'grep_search__grep_search_1781540521711_0';
  const prompt = (id: string) => ({ id, timestamp: '2026-06-15T15:57:40.759Z', type: 'user', content: [{ text: 'go to the my site folder and check for undone works' }] });
  const topicArgs = { title: 'Researching Incomplete Tasks', strategic_intent: 'find the undone work' };
  const grepArgs = { pattern: 'Insufficient balance', include_pattern: 'my site/investments/views.py' };
  const answer = (id: string, callId: string, name: string) => ({
    id,
    timestamp: '2026-06-15T15:57:45.546Z',
    type: 'user',
    content: [{ functionResponse: { id: callId, name, response: { output: 'ok' } } }],
  });
  const asPart = (id: string, callId: string, name: string, args: object) => ({
    id,
    timestamp: '2026-06-15T16:22:02.003Z',
    type: 'gemini',
    content: [{ thoughtSignature: 'AY89a18F', functionCall: { name, args, id: callId } }],
    thoughts: [],
    tokens: null,
  });
  const synced = [prompt('d5711f7b'), asPart('4ce68cde', U, 'update_topic', topicArgs), answer('76b81af4', U, 'update_topic'), asPart('d033835a', G, 'grep_search', grepArgs)];

  void test('the synced turns are the same calls, answered in the checkpoint or by the user record after it: nothing is reported', () => {
    const run = runLines([
      meta,
      prompt('2c4d69c4'),
      { id: '4496bd39', type: 'gemini', content: '', toolCalls: [{ id: U, name: 'update_topic', args: topicArgs, result: [{ functionResponse: { id: U, name: 'update_topic', response: { output: 'ok' } } }], status: 'success' }] },
      answer('2eb615be', U, 'update_topic'),
      // (Its record already holds the result; the user record of it is written after the checkpoint.)
      { id: 'a2de2155', type: 'gemini', content: '', toolCalls: [{ id: G, name: 'grep_search', args: grepArgs, result: [{ functionResponse: { id: G, name: 'grep_search', response: { output: 'No matches found' } } }], status: 'success' }] },
      ...synced,
      { $set: { messages: synced, lastUpdated: '2026-06-15T16:22:02.015Z' } },
      answer('b97d3588', G, 'grep_search'),
      { id: 'cc464578', type: 'gemini', content: 'The logging is now active.' },
    ]);
    assert.deepEqual(run.events.filter((e) => e.kind === 'call' || e.kind === 'result' || e.kind === 'reset').map(project), [
      `call 3 ${U} update_topic []`,
      `result 3 ${U} update_topic`,
      `call 5 ${G} grep_search []`,
      `result 5 ${G} grep_search`,
      'reset 10 replace',
      `call 10 ${U} update_topic []`,
      `result 10 ${U} update_topic`,
      `call 10 ${G} grep_search []`,
      `result 11 ${G} grep_search`,
    ]);
    assertSpans(run);
    assert.deepEqual(run.findings.map(brief), []);
  });

  void test('a call id dropped by $rewindTo is no call of the history any more: made again as a part, it is a new call', () => {
    const run = runLines([
      meta,
      prompt('2c4d69c4'),
      { id: 'a2de2155', type: 'gemini', content: '', toolCalls: [{ id: G, name: 'grep_search', args: grepArgs, status: 'executing' }] },
      { $rewindTo: 'a2de2155' },
      asPart('d033835a', G, 'grep_search', grepArgs),
    ]);
    assert.deepEqual(run.events.filter((e) => e.kind === 'call' || e.kind === 'reset').map(project), [`call 3 ${G} grep_search []`, 'reset 4 rewind', `call 5 ${G} grep_search []`]);
  });

  void test('a call written only as a functionCall part is still a call: unanswered before the next prompt, it is reported', () => {
    const run = runLines([meta, { $set: { messages: [prompt('d5711f7b'), asPart('d033835a', G, 'grep_search', grepArgs)] } }, prompt('9674e0e2')]);
    assert.deepEqual(run.events.filter((e) => e.kind === 'call').map(project), [`call 2 ${G} grep_search []`]);
    assert.deepEqual(run.findings.map((f) => f.rule), ['missing-result']);
  });
});

void describe('write_file: only its result says whether the file was there', () => {
  // Shapes of kun1gund3's e44d4888 (Termux, May 2026; thirty-sixth set), trimmed: the call names
  // the file and its content, the result says "overwrote" or "created", and `resultDisplay` keeps
  // the file as it was (`originalContent`, '' for a new file).
  const home = '/data/data/com.termux/files/home';
  const readme = `${home}/docs/README.md`;
  const meta = { sessionId: 'e44d4888-56b5-49a9-861b-6b3bf2cc129c', projectHash: sha256(home), startTime: '2026-05-17T12:04:54.550Z', lastUpdated: '2026-05-17T12:04:54.550Z', kind: 'main', directories: [home] };
  const prompt = { id: 'de887e1f', timestamp: '2026-05-17T12:05:08.596Z', type: 'user', content: [{ text: 'Führe die Umstrukturierung durch' }] };
  const W = 'synth_e44d4888-56b5-49a9-861b-6b3bf2cc129c_1779022230404_42';
  const R = 'read_file_1779022200000_0';
  const original = '# 🛡️ Google Gemini Sentinel Bridge v1.0\n\n**The Gold Standard for Hybrid AI Ecosystems on Android Termux.**\n';
  const written = '# Sentinel Bridge (v1.1)\n\n## Architecture\n';
  const write = (output: string, before: string, isNewFile: boolean) => ({
    id: W,
    name: 'write_file',
    args: { content: written, file_path: 'docs/README.md' },
    result: [{ functionResponse: { id: W, name: 'write_file', response: { output: `${output}: ${readme}. Here is the updated code:\n${written}` } } }],
    status: 'success',
    timestamp: '2026-05-17T12:50:30.453Z',
    resultDisplay: {
      fileDiff: 'Index: README.md\n===================================================================\n--- README.md\tOriginal\n+++ README.md\tWritten\n@@ -1,3 +1,3 @@\n',
      fileName: 'README.md',
      filePath: readme,
      originalContent: before,
      newContent: written,
      diffStat: { model_added_lines: 3, model_removed_lines: 3 },
      isNewFile,
    },
    displayName: 'WriteFile',
  });
  const overwrite = write('Successfully overwrote file', original, false);
  const created = write('Successfully created and wrote to new file', '', true);
  const turn = (id: string, call: object) => ({ id, timestamp: '2026-05-17T12:50:30.406Z', type: 'gemini', content: '', thoughts: [], model: 'gemini-2.5-flash-lite', toolCalls: [call] });
  const read = {
    id: R,
    name: 'read_file',
    args: { file_path: 'docs/README.md' },
    result: [{ functionResponse: { id: R, name: 'read_file', response: { output: original } } }],
    status: 'success',
    timestamp: '2026-05-17T12:50:00.000Z',
  };
  /** What each result of `lines` said a write replaced, taken while it is handled (the stream drops it after). */
  const writesOf = (lines: readonly object[]): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    const stream = new TranscriptStream({
      file: '/tmp/session.jsonl',
      adapters: [geminiAdapter],
      rules: streamRules,
      mode: 'batch',
      sink: { add: () => undefined, retract: () => undefined },
      observe: (e) => {
        if (e.kind === 'result') {
          out[e.callId] = e.write && { ...e.write };
        }
      },
    });
    stream.push(Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n'));
    stream.end();
    return out;
  };

  void test('an overwrite of a file the session never read: write-before-read on the path, with what the file held', () => {
    const run = runLines([meta, prompt, turn('68cdfc37', overwrite)]);
    assert.deepEqual(run.findings.map((f) => f.rule), ['write-before-read']);
    const f = run.findings[0]!;
    assert.equal(slice(run, { line: f.line, start: f.column - 1, end: f.endColumn - 1 }), 'docs/README.md');
    assert.deepEqual(writesOf([meta, prompt, turn('68cdfc37', overwrite)]), { [W]: { path: readme, type: 'update', before: original, replaced: [{ start: 1, count: 4 }] } });
  });

  void test('the same overwrite after a read_file of the file: nothing is reported', () => {
    const run = runLines([meta, prompt, turn('5f0c1a2b', read), turn('68cdfc37', overwrite)]);
    assert.deepEqual(run.findings.map(brief), []);
  });

  void test('a new file ("created and wrote to new file"), or an overwrite of an empty one: nothing is reported', () => {
    const run = runLines([meta, prompt, turn('68cdfc37', created)]);
    assert.deepEqual(run.findings.map(brief), []);
    assert.deepEqual(writesOf([meta, prompt, turn('68cdfc37', created)]), { [W]: undefined });
    // An empty file held nothing to lose, as Claude Code's Write of a file whose original is "".
    assert.deepEqual(runLines([meta, prompt, turn('68cdfc37', write('Successfully overwrote file', '', false))]).findings.map(brief), []);
  });

  void test('words other than Gemini CLI\'s own: `isNewFile` says whether the file was there', () => {
    const reworded = (isNewFile: boolean) => {
      const w = write('Wrote', isNewFile ? '' : original, isNewFile);
      return turn('68cdfc37', { ...w, result: [{ functionResponse: { id: W, name: 'write_file', response: { output: 'Wrote docs/README.md' } } }] });
    };
    assert.deepEqual(runLines([meta, prompt, reworded(false)]).findings.map((f) => f.rule), ['write-before-read']);
    assert.deepEqual(runLines([meta, prompt, reworded(true)]).findings.map(brief), []);
  });

  void test('a write refused (plan mode) is no write', () => {
    const refused = { ...overwrite, status: 'error', result: [{ functionResponse: { id: W, name: 'write_file', response: { error: 'Tool execution denied by policy. You are in Plan Mode and cannot modify source code.' } } }], resultDisplay: 'Tool execution denied by policy.' };
    assert.deepEqual(runLines([meta, prompt, turn('68cdfc37', refused)]).findings.map(brief), []);
  });

  void test('an overwrite of a file whose whole content an earlier read had shown (the template of the script that made it): nothing is reported', () => {
    // metaphi-agent's harness session (January 2026, thirty-sixth set): it read scaffold.py, ran it,
    // and overwrote the src/App.tsx the script had written from its REACT_APP_TSX template.
    const template = 'export default function App() {\n  return (\n    <div className="min-h-screen bg-white">\n      Building from Figma...\n    </div>\n  )\n}\n';
    const S = 'read_file-1769753461958-2876c6c764625';
    const script = `(src / "App.tsx").write_text(REACT_APP_TSX)\n\nREACT_APP_TSX = '''${template}'''\n`;
    const readScript = { ...read, id: S, args: { file_path: '.gemini/skills/figma-to-code/scripts/scaffold.py' }, result: [{ functionResponse: { id: S, name: 'read_file', response: { output: script } } }] };
    const over = (before: string) => turn('68cdfc37', write('Successfully overwrote file', before, false));
    assert.deepEqual(runLines([meta, prompt, turn('5f0c1a2b', readScript), over(template)]).findings.map(brief), []);
    assert.equal((writesOf([meta, prompt, turn('5f0c1a2b', readScript), over(template)])[W] as { shown?: true }).shown, true);
    // Content the read did not show, or too little of it to tell (two lines are in many files), is not known.
    assert.deepEqual(runLines([meta, prompt, turn('5f0c1a2b', readScript), over(`${template}// edited\n`)]).findings.map((f) => f.rule), ['write-before-read']);
    assert.deepEqual(runLines([meta, prompt, turn('5f0c1a2b', readScript), over('  )\n}\n')]).findings.map((f) => f.rule), ['write-before-read']);
    // Only what reads returned is looked in, not a shell command's output (which may be cut short or filtered).
    const shell = { ...readScript, name: 'run_shell_command', args: { command: 'python scaffold.py' }, result: [{ functionResponse: { id: S, name: 'run_shell_command', response: { output: script } } }] };
    assert.deepEqual(runLines([meta, prompt, turn('5f0c1a2b', shell), over(template)]).findings.map((f) => f.rule), ['write-before-read']);
  });

  void test('a legacy session (session-*.json) keeps no resultDisplay: the result\'s words alone say it overwrote', () => {
    // mischa-thisness/M-Gemini, December 2025 (twenty-ninth set): "delete all content of all gemini.md".
    const file = '/home/mischa/.gemini/tmp/7a1c/chats/session-2025-12-31T04-53-1d4abdfd.json';
    const id = 'write_file-1767156878946-4a2c9e1b7d3f';
    const doc = (output: string) =>
      JSON.stringify(
        {
          sessionId: '1d4abdfd-2b7e-4c1a-9d3f-6e5a4b3c2d1e',
          projectHash: sha256('/home/mischa'),
          startTime: '2025-12-31T04:53:30.000Z',
          lastUpdated: '2025-12-31T04:54:40.000Z',
          messages: [
            { id: 'm1', timestamp: '2025-12-31T04:54:30.000Z', type: 'user', content: [{ text: 'delete all content of all gemini.md' }] },
            {
              id: 'm2',
              timestamp: '2025-12-31T04:54:38.000Z',
              type: 'gemini',
              content: '',
              toolCalls: [
                {
                  id,
                  name: 'write_file',
                  args: { file_path: 'Gemini-Playground/GEMINI.md', content: '' },
                  result: [{ functionResponse: { id, name: 'write_file', response: { output } } }],
                  status: 'success',
                  timestamp: '2025-12-31T04:54:38.946Z',
                },
              ],
            },
          ],
        },
        null,
        2,
      ) + '\n';
    const check = (output: string) => runBytes(file, [new TextEncoder().encode(doc(output))]).findings.map((f) => f.rule);
    assert.deepEqual(check('Successfully overwrote file: /home/mischa/Gemini-Playground/GEMINI.md.'), ['write-before-read']);
    assert.deepEqual(check('Successfully created and wrote to new file: /home/mischa/Gemini-Playground/GEMINI.md.'), []);
  });

  void test('a write answered by a user record of functionResponse parts (history synced back, 0.4x): its words say it overwrote', () => {
    const lines = [
      meta,
      prompt,
      { id: '4ce68cde', timestamp: '2026-05-17T12:50:30.406Z', type: 'gemini', content: [{ functionCall: { id: W, name: 'write_file', args: overwrite.args } }] },
      { id: '76b81af4', timestamp: '2026-05-17T12:50:30.460Z', type: 'user', content: overwrite.result },
    ];
    assert.deepEqual(runLines(lines).findings.map((f) => f.rule), ['write-before-read']);
    // No resultDisplay there: what the file held is not known, only that it was there.
    assert.deepEqual(writesOf(lines), { [W]: { path: readme, type: 'update', before: null, replaced: [] } });
  });
});

void describe('the shared synthetic sample (kvsankar/agent-history, read in place)', () => {
  void test('pairs every call with its own response; relative paths stay unresolved without a cwd', { skip: !existsSync(sharedSample) }, () => {
    const run = runFile(sharedSample);
    assert.deepEqual(run.events.filter((e) => e.kind === 'call' || e.kind === 'result').map(project), [
      'call 3 edit_file-001 edit_file []',
      'result 3 edit_file-001 edit_file',
      'call 5 edit_file-002 edit_file []',
      'result 5 edit_file-002 error edit_file',
      'call 7 read_file-001 read_file []',
      'result 7 read_file-001 read_file',
      'call 8 edit_file-003 edit_file []',
      'result 8 edit_file-003 edit_file',
    ]);
    assertSpans(run);
    // No finding, and rightly so for pairing: each record answers its own calls, the failed
    // edit is an error result (still an answer), two gemini turns in a row are two messages.
    // The first edit of config.json without a read is a write-before-read the rules cannot see:
    // the sample has no `directories` and relative paths, so no access can be resolved.
    assert.deepEqual(run.findings.map(brief), []);
  });
});

void describe('chunking', () => {
  void test('splitting the bytes in two at every position gives the same events and findings', () => {
    const path = join(fixtures, 'late-result.jsonl');
    const bytes = readFileSync(path);
    const whole = runBytes(path, [bytes]);
    const expectedEvents = JSON.stringify(whole.events);
    const expectedFindings = JSON.stringify(whole.findings);
    assert.ok(whole.findings.length > 0);
    for (let i = 0; i <= bytes.length; i++) {
      const split = runBytes(path, [bytes.subarray(0, i), bytes.subarray(i)]);
      assert.equal(JSON.stringify(split.findings), expectedFindings, `split at byte ${i}`);
      assert.equal(JSON.stringify(split.events), expectedEvents, `split at byte ${i}`);
    }
  });
});

void describe('legacy sessions: one JSON document (session-*.json)', () => {
  /** A legacy session as Gemini CLI wrote it: pretty-printed, two-space indent. */
  const legacy = (status: string, result: unknown): string =>
    JSON.stringify(
      {
        sessionId: '0f0e0d0c-1111-2222-3333-444455556666',
        projectHash: '7e89',
        startTime: '2026-01-15T20:51:48.582Z',
        lastUpdated: '2026-01-15T20:52:29.285Z',
        messages: [
          { id: 'm1', timestamp: '2026-01-15T20:51:48.582Z', type: 'user', content: 'create a file in docs' },
          {
            id: 'm2',
            timestamp: '2026-01-15T20:51:52.837Z',
            type: 'gemini',
            content: '',
            toolCalls: [{ id: 'write_file-1', name: 'write_file', args: { file_path: '/repo/docs/c.txt', content: 'blue' }, result, status, displayName: 'WriteFile' }],
          },
        ],
      },
      null,
      2,
    ) + '\n';
  const file = '/home/dev/.gemini/tmp/7e89/chats/session-2026-01-15T20-51-0f0e0d0c.json';

  void test('read whole: an unfinished call is found, at its line and column in the document', () => {
    const text = legacy('executing', null);
    const lines = text.split('\n');
    const r = runBytes(file, [new TextEncoder().encode(text)]);
    assert.deepEqual(r.findings.map((f) => `${f.rule}:${f.severity}`), ['missing-result:warning']);
    const f = r.findings[0]!;
    const callLine = lines.findIndex((l) => l.includes('"id": "write_file-1"')) + 1;
    assert.equal(f.line, callLine);
    assert.equal(lines[f.line - 1]!.slice(f.column - 1, f.endColumn - 1), 'write_file-1');
    const session = r.events.find((e) => e.kind === 'session');
    assert.equal(session?.kind === 'session' ? session.sessionId : undefined, '0f0e0d0c-1111-2222-3333-444455556666');
  });

  void test('a finished session gives nothing, whatever the chunks', () => {
    const bytes = new TextEncoder().encode(legacy('success', [{ functionResponse: { id: 'write_file-1', name: 'write_file', response: { output: 'Created /repo/docs/c.txt' } } }]));
    for (const at of [1, 100, bytes.length - 1]) {
      const r = runBytes(file, [bytes.subarray(0, at), bytes.subarray(at)]);
      assert.deepEqual(r.findings, []);
      assert.equal(r.events.filter((e) => e.kind === 'call').length, 1);
      assert.equal(r.events.filter((e) => e.kind === 'result').length, 1);
    }
  });

  void test('a broken document is one finding at the line of the syntax error, not one per line', () => {
    const text = legacy('success', null).replace('"type": "gemini",', '"type": "gemini"');
    const r = runBytes(file, [new TextEncoder().encode(text)]);
    assert.deepEqual(r.findings.map((f) => f.rule), ['unparseable-line']);
    const broken = text.split('\n').findIndex((l) => l.includes('"content": ""')) + 1;
    assert.equal(r.findings[0]!.line, broken, r.findings[0]!.message);
  });

  void test('live, one version at a time: a document cut short (mid-rewrite) is left unread unless settled', () => {
    const bytes = new TextEncoder().encode(legacy('executing', null));
    const read = (chunk: Uint8Array, settled: boolean, unread = 0): { read: boolean; events: string[] } => {
      const events: string[] = [];
      const parser = new TranscriptParser({ file, adapters: [geminiAdapter], emit: (e) => events.push(e.kind === 'malformed' ? `malformed:${e.reason}@${e.at.line}` : `${e.kind}@${e.at.line}`) });
      parser.push(chunk);
      return { read: parser.readDocument(settled, unread), events };
    };
    assert.deepEqual(read(bytes.subarray(0, 200), false), { read: false, events: [] });
    assert.deepEqual(read(new Uint8Array(0), false), { read: false, events: [] }, 'truncated, nothing written yet');
    // Whole: what `check` reads (bar the end of the file, which a version is not).
    const whole = read(bytes, false);
    assert.equal(whole.read, true);
    assert.deepEqual(whole.events, runBytes(file, [bytes]).events.map((e) => `${e.kind}@${e.at.line}`));
    // Settled, a cut document is what there is: broken, as `check` reports it.
    const cut = read(bytes.subarray(0, 200), true);
    assert.equal(cut.read, true);
    assert.deepEqual(cut.events, runBytes(file, [bytes.subarray(0, 200)]).events.map((e) => (e.kind === 'malformed' ? `malformed:${e.reason}@${e.at.line}` : `${e.kind}@${e.at.line}`)));
    assert.deepEqual(cut.events.map((e) => e.split('@')[0]), ['malformed:invalid-json']);
    // Past the size limit, read or not, it is reported as such.
    assert.deepEqual(read(new Uint8Array(0), false, 300 * 1024 * 1024), { read: true, events: ['malformed:line-too-long@1'] });
  });

  /** Three records, each with a call left running: `write_file-1`, `write_file-2`, `write_file-3` (all unanswered). */
  const running = (): string =>
    JSON.stringify(
      {
        sessionId: '0f0e0d0c-1111-2222-3333-444455556666',
        projectHash: '7e89',
        startTime: '2026-01-15T20:51:48.582Z',
        messages: [1, 2, 3].map((n) => ({
          id: `m${n}`,
          type: 'gemini',
          content: '',
          toolCalls: [{ id: `write_file-${n}`, name: 'write_file', args: { file_path: `/repo/${n}.txt`, content: 'x' }, result: null, status: 'executing' }],
        })),
      },
      null,
      2,
    ) + '\n';
  /** Each finding as `rule line:column`, and the text it underlines read back as JSON does. */
  const placed = (text: string): string[] => {
    const lines = text.split('\n');
    return runBytes(file, [new TextEncoder().encode(text)]).findings.map((f) => {
      const spelled = lines[f.line - 1]!.slice(f.column - 1, f.endColumn - 1);
      return `${f.rule} ${f.line}:${f.column} ${JSON.parse(`"${spelled}"`) as string}`;
    });
  };

  void test('ids are placed at their line and column, whether plain or spelled with JSON escapes', () => {
    const plain = running();
    const lines = plain.split('\n');
    const at = (id: string): string => {
      const line = lines.findIndex((l) => l.includes(`"id": "${id}"`));
      return `missing-result ${line + 1}:${lines[line]!.indexOf(id) + 1} ${id}`;
    };
    assert.deepEqual(placed(plain), [at('write_file-1'), at('write_file-2'), at('write_file-3')]);
    // The same document with a record's id, a call's id and a key spelled with escapes: the same
    // lines, and each finding underlines the id as spelled (`\u0077rite_file-1` is `write_file-1`).
    const escaped = plain
      .replace('"id": "m1"', '"id": "\\u006d1"')
      .replace('"id": "write_file-1"', '"id": "\\u0077rite_file-1"')
      .replace('"id": "m2"', '"\\u0069d": "m2"')
      .replace('"id": "write_file-2"', '"\\u0069d":"write_file-2"');
    const escapedLines = escaped.split('\n');
    const first = lines.findIndex((l) => l.includes('"id": "write_file-1"'));
    const second = lines.findIndex((l) => l.includes('"id": "write_file-2"'));
    assert.deepEqual(placed(escaped), [
      `missing-result ${first + 1}:${escapedLines[first]!.indexOf('\\u0077') + 1} write_file-1`,
      `missing-result ${second + 1}:${escapedLines[second]!.indexOf('write_file-2') + 1} write_file-2`,
      at('write_file-3'),
    ]);
    assert.equal(escapedLines[second], '          "\\u0069d":"write_file-2",');
  });

  void test('a path spelled with escapes is underlined where it is spelled', () => {
    const text = running().replace('"file_path": "/repo/2.txt"', '"file_path": "\\/repo\\/2.txt"');
    const r = runBytes(file, [new TextEncoder().encode(text)]);
    const lines = text.split('\n');
    const writes = r.events.flatMap((e) => (e.kind === 'call' ? e.accesses : []));
    assert.deepEqual(
      writes.map((a) => (a.span ? (JSON.parse(`"${lines[a.span.line - 1]!.slice(a.span.start, a.span.end)}"`) as string) : undefined)),
      ['/repo/1.txt', '/repo/2.txt', '/repo/3.txt'],
    );
  });

  void test('on one line in a .jsonl file, its messages are read too', () => {
    const line = JSON.stringify(JSON.parse(legacy('executing', null))) + '\n';
    const r = runBytes('/tmp/x/session.jsonl', [new TextEncoder().encode(line)]);
    assert.deepEqual(r.findings.map((f) => `${f.rule}@${f.line}`), ['missing-result@1']);
  });
});

void describe('legacy sessions of tool-heavy runs (shapes of the nineteenth real set)', () => {
  const file = '/home/jules/.gemini/tmp/446d/chats/session-2026-02-23T19-20-a27c5d52.json';
  interface Call {
    id: string;
    name: string;
    args: Record<string, unknown>;
    output: string;
    at: string;
  }
  const call = (id: string, name: string, args: Record<string, unknown>, at: string, output = 'ok'): Call => ({ id, name, args, output, at });
  /** A legacy session with one prompt and one `gemini` record holding `calls`, all answered. */
  const session = (calls: readonly Call[], projectHash = sha256('/home/jules')): string =>
    JSON.stringify(
      {
        sessionId: 'a27c5d52-e41d-451b-a2e9-caf69739f137',
        projectHash,
        startTime: calls[0]!.at,
        lastUpdated: calls[calls.length - 1]!.at,
        messages: [
          { id: 'm1', timestamp: calls[0]!.at, type: 'user', content: [{ text: 'fix the bot' }] },
          {
            id: 'm2',
            timestamp: calls[0]!.at,
            type: 'gemini',
            content: '',
            toolCalls: calls.map((c) => ({
              id: c.id,
              name: c.name,
              args: c.args,
              result: [{ functionResponse: { id: c.id, name: c.name, response: { output: c.output } } }],
              status: 'success',
              timestamp: c.at,
            })),
          },
        ],
      },
      null,
      2,
    ) + '\n';
  const check = (text: string): string[] => runBytes(file, [new TextEncoder().encode(text)]).findings.map((f) => `${f.rule}:${f.severity}`);

  void test('tool-only turns appended to one record are turns of their own, not one parallel batch', () => {
    // Gemini CLI appends a tool-only turn's calls to the last `gemini` record; the index that ends
    // a call id restarts at 0 with each response. (April 2026: a build that runs batches in parallel.)
    const turns = [
      call('run_shell_command_1775000000000_0', 'run_shell_command', { command: 'nohup python3 bot.py > /tmp/pi_bot.log 2>&1 &' }, '2026-04-01T10:00:00.000Z'),
      call('read_file_1775000010000_0', 'read_file', { file_path: '/home/jules/bot.py' }, '2026-04-01T10:00:10.000Z'),
      call('run_shell_command_1775000019000_0', 'run_shell_command', { command: 'cat /tmp/pi_bot.log' }, '2026-04-01T10:00:19.000Z'),
    ];
    assert.deepEqual(check(session(turns)), []);
    // The same three calls as one response (indexes 0, 1, 2) are one batch: the log is read while written.
    const batch = turns.map((c, i) => ({ ...c, id: c.id.replace(/_0$/, `_${i}`) }));
    assert.deepEqual(check(session(batch)), ['parallel-read-write:warning']);
  });

  void test('two replaces of one file in one batch: ordered where Gemini CLI ran batches one call at a time', () => {
    const pair = (at: string, wait?: boolean): Call[] => [
      call('replace_1771881219998_0', 'replace', { file_path: '/home/jules/scripts/pi_bot.py', old_string: "'get', ", new_string: '' }, at),
      call('replace_1771881220069_1', 'replace', { file_path: '/home/jules/scripts/pi_bot.py', old_string: 'def main', new_string: 'def handle_get_command():\n    pass\n\ndef main', ...(wait ? { wait_for_previous: true } : {}) }, at),
    ];
    const read = call('read_file_1771881114396_0', 'read_file', { file_path: '/home/jules/scripts/pi_bot.py' }, '2026-02-23T21:11:00.000Z');
    // February 2026: the sequential scheduler; the second replace applies to what the first left.
    assert.deepEqual(check(session([read, ...pair('2026-02-23T21:13:40.000Z')])), []);
    // April 2026: the parallel scheduler runs them side by side, unless the model made the second wait.
    const later = { ...read, at: '2026-04-01T10:00:00.000Z' };
    assert.deepEqual(check(session([later, ...pair('2026-04-01T10:00:05.000Z')])), ['parallel-write-write:error']);
    assert.deepEqual(check(session([later, ...pair('2026-04-01T10:00:05.000Z', true)])), []);
  });

  void test('a sub-agent file: its ids `<agent>#<turn>-<index>` say where one model response ends', () => {
    const replace = (id: string, old: string): Call => call(id, 'replace', { file_path: '/home/jules/a.md', old_string: old, new_string: `${old}!` }, '2026-04-16T22:45:22.519Z');
    const read = call('xb7gtb#0-0', 'read_file', { file_path: '/home/jules/a.md' }, '2026-04-16T22:45:00.000Z');
    // One response (turn 5), run by the parallel scheduler: both edits started from the same file.
    assert.deepEqual(check(session([read, replace('xb7gtb#5-0', 'a'), replace('xb7gtb#5-1', 'b')])), ['parallel-write-write:error']);
    // Two responses appended to one record: the second ran after the first's result.
    assert.deepEqual(check(session([read, replace('xb7gtb#5-0', 'a'), replace('xb7gtb#6-0', 'b')])), []);
  });

  void test('older ids `<tool>-<ms>-<hex>`: a call made after one of its record had finished is a later turn', () => {
    // mischa-thisness/M-Gemini, December 2025: the `replace` of /etc/pam.d/sudo is refused (outside
    // the workspace) at once; 3 s later the model copies the file into the workspace, edits the
    // copy and copies it back. One record holds the four turns.
    const etc = '/etc/pam.d/sudo';
    const tmp = '/home/jules/.gemini/tmp/sudo_modify';
    const calls = [
      call('replace-1766614807237-7d29a4a4d9e07', 'replace', { file_path: etc, old_string: 'required', new_string: 'sufficient' }, '2025-12-24T22:20:07.238Z'),
      call('run_shell_command-1766614810605-ea09a2e16d89c', 'run_shell_command', { command: `cp ${etc} ${tmp}` }, '2025-12-24T22:22:18.107Z'),
      call('replace-1766614941885-93c88372c062', 'replace', { file_path: tmp, old_string: 'required', new_string: 'sufficient' }, '2025-12-24T22:22:21.892Z'),
      call('run_shell_command-1766614944936-d615573eb5a048', 'run_shell_command', { command: `sudo cp ${tmp} ${etc}` }, '2025-12-24T22:22:42.291Z'),
    ];
    const refused = (text: string): string => {
      const doc = JSON.parse(text) as { messages: { toolCalls?: { status: string; result: { functionResponse: { response: unknown } }[] }[] }[] };
      const first = doc.messages[1]!.toolCalls![0]!;
      first.status = 'error';
      first.result[0]!.functionResponse.response = { error: 'File path must be within one of the workspace directories: /home/jules' };
      return JSON.stringify(doc, null, 2);
    };
    assert.deepEqual(check(refused(session(calls))), []);
    // Both made before either finished (the same millisecond): one response, one batch.
    const batch = [calls[0]!, { ...calls[3]!, id: 'run_shell_command-1766614807237-d615573eb5a048' }];
    assert.deepEqual(check(refused(session(batch))), ['parallel-write-write:error']);
  });

  void test('`npm init -y` in `dir_path` writes that folder\'s package.json: the session\'s own file', () => {
    // mischa-thisness/M-Gemini, December 2025: npm prints the package.json it wrote; the model then
    // adds scripts to it.
    const init = (command: string, dir?: string): Call =>
      call('run_shell_command-1767077750814-40bb7462e604c', 'run_shell_command', { command, ...(dir !== undefined ? { dir_path: dir } : {}) }, '2025-12-30T06:57:29.841Z');
    const edit = call('replace-1767077857634-ff9d77c9ebffe', 'replace', { file_path: '/home/jules/Gemini-Playground/package.json', old_string: '"scripts": {', new_string: '"scripts": {\n    "dev": "vite",' }, '2025-12-30T06:57:37.670Z');
    assert.deepEqual(check(session([init('npm init -y && npm install vite --save-dev', 'Gemini-Playground'), edit])), []);
    // Run in the project's folder, it wrote another package.json; an initializer writes what it writes.
    assert.deepEqual(check(session([init('npm init -y'), edit])), ['write-before-read:warning']);
    assert.deepEqual(check(session([init('npm init vite', 'Gemini-Playground'), edit])), ['write-before-read:warning']);
  });

  void test('files Gemini CLI put into the prompt (memory files, `@` references) were seen: writing them is no unread write', () => {
    const memory = '/home/jules/.gemini/GEMINI.md';
    const edit = (path: string): Call => call('replace_1776379522519_0', 'replace', { file_path: path, old_string: 'x', new_string: 'y' }, '2026-04-16T22:45:22.519Z');
    const prompted = (text: string[], calls: Call[]): string => {
      const doc = JSON.parse(session(calls, sha256('/home/jules'))) as { messages: { content: unknown }[] };
      doc.messages[0]!.content = text.map((t) => ({ text: t }));
      return JSON.stringify(doc, null, 2);
    };
    const context = ['\n# Initial Context\n\n--- Global ---\n', `--- Context from: ${memory} ---\n## Gemini Added Memories\n- x\n--- End of Context from: ${memory} ---\n`];
    assert.deepEqual(check(prompted(context, [edit(memory)])), []);
    // `@notes.md` resolves against the session's folder, like a tool's relative path.
    const at = ['@notes.md fix the typo', '\n--- Content from referenced files ---', '\nContent from @notes.md:\n', 'x marks the spot\n'];
    assert.deepEqual(check(prompted(at, [edit('/home/jules/notes.md')])), []);
    // Only the files named so: another file is still an unread write, and so is a mere mention.
    assert.deepEqual(check(prompted(at, [edit('/home/jules/other.md')])), ['write-before-read:warning']);
    assert.deepEqual(check(prompted([`please update ${memory}`], [edit(memory)])), ['write-before-read:warning']);
  });

  void test('no `directories`: relative paths are resolved against the folder whose hash the session records', () => {
    const calls = [
      call('read_file_1771880000000_0', 'read_file', { file_path: 'docker-compose.yml' }, '2026-04-01T10:00:00.000Z', 'services: {}'),
      call('replace_1771880100000_0', 'replace', { file_path: '/home/jules/infra/ai/docker-compose.yml', old_string: 'services: {}', new_string: 'services: {a: 1}' }, '2026-04-01T10:01:40.000Z'),
    ];
    const r = runBytes(file, [new TextEncoder().encode(session(calls, sha256('/home/jules/infra/ai')))]);
    assert.deepEqual(r.findings, []);
    const s = r.events.find((e) => e.kind === 'session');
    assert.equal(s?.kind === 'session' ? s.cwd : undefined, '/home/jules/infra/ai');
    // Another folder's hash (no folder of the session matches): the read is not placed, as before.
    assert.deepEqual(check(session(calls, sha256('/srv/elsewhere'))), ['write-before-read:warning']);
  });
});

void describe('replace calls of one file sent together: run side by side, each on the file as it was', () => {
  // Shapes of LAF-US/IDAHO-VAULT's sub-agent chat xb7gtb (Gemini CLI, April 2026), trimmed: one
  // turn sent five `replace` calls, two of them of agents.md; both recorded the same
  // `originalContent`, and a search after the turn still found the line the first one replaced.
  const home = '/home/logan';
  const file = `${home}/vault/agents.md`;
  const meta = { sessionId: 'xb7gtb', projectHash: sha256(home), startTime: '2026-04-16T22:43:49.820Z', lastUpdated: '2026-04-16T22:47:04.418Z', kind: 'subagent', directories: [home] };
  const prompt = { id: '7d99ca44', timestamp: '2026-04-16T22:43:49.821Z', type: 'user', content: [{ text: 'Rename the Architect everywhere' }] };
  const original = '| Serena | **The Architect** | - |\n| **Serena** (Architect) | Instrument |\n';
  const read = {
    id: 'xb7gtb#4-0',
    name: 'read_file',
    args: { file_path: file },
    result: [{ functionResponse: { id: 'xb7gtb#4-0', name: 'read_file', response: { output: original } } }],
    status: 'success',
    timestamp: '2026-04-16T22:44:28.702Z',
  };
  const replace = (n: number, from: string, to: string) => {
    const id = `xb7gtb#5-${n}`;
    const after = original.replace(from, to);
    return {
      id,
      name: 'replace',
      args: { file_path: file, old_string: from, new_string: to, instruction: 'Rename the persona' },
      result: [{ functionResponse: { id, name: 'replace', response: { output: `Successfully modified file: ${file} (1 replacements).` } } }],
      status: 'success',
      timestamp: '2026-04-16T22:45:22.519Z',
      resultDisplay: { fileDiff: 'Index: agents.md\n', fileName: 'agents.md', filePath: file, originalContent: original, newContent: after, diffStat: { model_added_lines: 1, model_removed_lines: 1 }, isNewFile: false },
      displayName: 'Edit',
    };
  };
  const turn = (id: string, calls: object[]) => ({ id, timestamp: '2026-04-16T22:44:58.380Z', type: 'gemini', content: '', thoughts: [], model: 'gemini-3-flash-preview', toolCalls: calls });

  void test('the race is parallel-write-write’s error, not also a stale write "undone behind its back"', () => {
    const run = runLines([meta, prompt, turn('g1', [read]), turn('g2', [replace(0, 'The Architect', 'The Tapestry'), replace(1, '(Architect)', '(Tapestry)')])]);
    assert.deepEqual(run.findings.map((f) => `${f.rule}:${f.severity}`), ['parallel-write-write:error']);
  });
});
