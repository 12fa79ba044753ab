import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { TranscriptStream } from '../../../src/core/engine/stream';
import type { ExecutionEvent, NormalizedEvent, Span } from '../../../src/core/model/events';
import type { Finding } from '../../../src/core/model/finding';
import { sessionIdFromPath } from '../../../src/core/model/sessionId';
import { amplifierAdapter } from '../../../src/core/parse/amplifier/parser';
import { parseAmplifierEventLine } from '../../../src/core/parse/amplifier/events';
import { claudeAdapter } from '../../../src/core/parse/claude/parser';
import { codexAdapter } from '../../../src/core/parse/codex/parser';
import { geminiAdapter } from '../../../src/core/parse/gemini/parser';
import { streamRules } from '../../../src/core/rules/registry';
import { adapters } from '../../../src/core/parse/registry';
import { TranscriptParser } from '../../../src/core/parse/transcript';
import { checkFile } from '../../../src/io/checkFile';

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

const fixtures = join(repoRoot(), 'test', 'fixtures', 'transcripts', 'amplifier');

interface Run {
  events: NormalizedEvent[];
  findings: Finding[];
  lines: string[];
}

function runBytes(file: string, chunks: readonly Uint8Array[], cwd?: string): Run {
  const events: NormalizedEvent[] = [];
  const findings: Finding[] = [];
  const stream = new TranscriptStream({
    file,
    adapters: [amplifierAdapter],
    rules: streamRules,
    mode: 'batch',
    sink: { add: (f) => findings.push(f), retract: () => undefined },
    observe: (e) => events.push(e),
    ...(cwd !== undefined ? { cwd } : {}),
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

function runLines(lines: readonly object[], cwd?: string): Run {
  return runBytes('/tmp/transcript.jsonl', [Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n')], cwd);
}

function project(e: NormalizedEvent): string {
  switch (e.kind) {
    case 'text':
      return `text ${e.at.line} ${e.role}${e.prompt ? ' prompt' : ''}${e.messageKey ? ' ' + e.messageKey : ''}`;
    case 'call':
      return `call ${e.at.line} ${e.callId} ${e.tool} [${e.accesses.map((a) => `${a.op} ${a.path}`).join(', ')}]`;
    case 'result':
      return `result ${e.at.line} ${e.callId}${e.isError ? ' error' : ''}${e.placeholder ? ' placeholder' : ''}${e.tool ? ' ' + e.tool : ''}`;
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

void describe('amplifierAdapter.sniff / claimsPath', () => {
  void test('claims chat messages, not the lines of the other formats', () => {
    assert.ok(amplifierAdapter.sniff({ role: 'user', content: 'hi' }));
    assert.ok(amplifierAdapter.sniff({ role: 'assistant', content: [], tool_calls: [] }));
    assert.ok(amplifierAdapter.sniff({ role: 'tool', tool_call_id: 'x', content: 'ok' }));
    assert.ok(!amplifierAdapter.sniff({ role: 'system', content: 'You are…' }));
    assert.ok(!amplifierAdapter.sniff({ type: 'response_item', payload: { type: 'message', role: 'user' } }));
    assert.ok(!amplifierAdapter.sniff({ type: 'user', uuid: 'u', message: { role: 'user', content: 'x' } }));
    assert.ok(!amplifierAdapter.sniff({ id: 'm', type: 'user', content: 'x' }));
  });

  void test("Cursor's agent transcript (the message under `message`) is no Amplifier session", () => {
    // The shape of .cursor/projects/<p>/agent-transcripts/*.jsonl: a role, and the message beside it.
    const lines = [
      { role: 'user', message: { content: [{ type: 'text', text: '<user_query>\nfix the build\n</user_query>' }] } },
      { role: 'assistant', message: { content: [{ type: 'text', text: 'Looking at the build script.' }] } },
    ];
    for (const line of lines) {
      assert.ok(!amplifierAdapter.sniff(line), JSON.stringify(line));
    }
    const events: NormalizedEvent[] = [];
    const stream = new TranscriptStream({
      file: '/tmp/agent-transcript.jsonl',
      adapters,
      rules: streamRules,
      mode: 'batch',
      sink: { add: () => undefined, retract: () => undefined },
      observe: (e) => events.push(e),
    });
    stream.push(Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n'));
    stream.end();
    assert.equal(stream.agent, undefined);
    assert.deepEqual(events.map(project), ['malformed 1 unknown-format']);
  });

  void test('no earlier adapter claims an Amplifier line', () => {
    for (const line of [{ role: 'user', content: 'hi' }, { role: 'tool', tool_call_id: 'x', name: 'bash', content: '{}' }]) {
      for (const other of [codexAdapter, geminiAdapter, claudeAdapter]) {
        assert.ok(!other.sniff(line), `${other.agent} must not claim ${JSON.stringify(line)}`);
      }
    }
  });

  void test('claims …/.amplifier/projects/<slug>/sessions/<id>/transcript.jsonl only', () => {
    assert.ok(amplifierAdapter.claimsPath?.('/home/u/.amplifier/projects/-home-u-app/sessions/a2f9c4d1/transcript.jsonl'));
    assert.ok(amplifierAdapter.claimsPath?.('C:\\Users\\u\\.amplifier\\projects\\C-Users-u-app\\sessions\\a2f9_reviewer\\transcript.jsonl'));
    assert.ok(!amplifierAdapter.claimsPath?.('/home/u/.amplifier/projects/-home-u-app/sessions/a2f9c4d1/events.jsonl'));
    assert.ok(!amplifierAdapter.claimsPath?.('/home/u/.amplifier/projects/-home-u-app/sessions/a2f9c4d1/transcript.jsonl.backup'));
  });
});

void describe('Amplifier under an AMPLIFIER_HOME of any name', () => {
  void test('read as the monitor reads it (its agent known from the folder): its transcript is a transcript, its events log a log', () => {
    // The transcript adapter claims only …/.amplifier/…; the monitor forces the agent for any
    // …/sessions/<id>/transcript.jsonl, and the first Amplifier format, the events log, was
    // taken: nothing of the transcript was read live (no findings, an empty timeline).
    const dir = '/srv/amp-home/projects/-srv-app/sessions/b8c9';
    const lines = [
      { role: 'user', content: 'Tidy the readme' },
      { role: 'assistant', content: [{ type: 'text', text: 'Looking first.' }], tool_calls: [{ id: 'call_1', tool: 'bash', arguments: { command: 'ls' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'README.md' },
    ];
    const events: NormalizedEvent[] = [];
    const parser = new TranscriptParser({ file: join(dir, 'transcript.jsonl'), adapters, agent: 'amplifier', emit: (e) => events.push(e) });
    parser.push(new TextEncoder().encode(lines.map((l) => JSON.stringify(l) + '\n').join('')));
    parser.end();
    assert.equal(parser.agent, 'amplifier');
    assert.deepEqual(events.map((e) => `${e.kind} ${e.at.line}`), ['text 1', 'text 2', 'call 2', 'result 3']);
    const log: NormalizedEvent[] = [];
    const logParser = new TranscriptParser({ file: join(dir, 'events.jsonl'), adapters, agent: 'amplifier', emit: (e) => log.push(e) });
    logParser.push(new TextEncoder().encode(JSON.stringify({ ts: '2026-03-01T09:00:00.000Z', lvl: 'INFO', schema: { name: 'amplifier.log', ver: '1.0.0' }, event: 'execution:start', session_id: 'b8c9', data: {} }) + '\n'));
    logParser.end();
    assert.deepEqual(log.map((e) => e.kind), ['session', 'execution']);
  });
});

void describe('Amplifier healthy session', () => {
  const run = runFile(join(fixtures, 'healthy.jsonl'));

  void test('one message per line; a call listed both as a block and in tool_calls counts once', () => {
    assert.deepEqual(run.events.map(project), [
      'text 1 user prompt',
      'text 2 assistant line-2',
      'call 2 toolu_01Read read_file [read /home/dev/app/util.py]',
      'result 3 toolu_01Read read_file',
      'text 4 assistant line-4',
      'call 4 toolu_01Edit edit_file [edit /home/dev/app/util.py]',
      'result 5 toolu_01Edit edit_file',
      'text 6 assistant line-6',
      // A <system-reminder> user message is injected context, not a prompt.
      'text 7 user',
      'text 8 user prompt',
      'text 9 assistant line-9',
      'call 9 toolu_01Bash bash []',
      'result 10 toolu_01Bash bash',
      'text 11 assistant line-11',
    ]);
    assertSpans(run);
  });

  void test('the full rule set finds nothing', () => {
    assert.deepEqual(run.findings.map(brief), []);
  });
});

void describe('Amplifier pairing problems', () => {
  void test('a call left without result before a new user turn: missing-result', () => {
    const run = runFile(join(fixtures, 'missing-result.jsonl'));
    assertSpans(run);
    assert.deepEqual(run.findings.map(brief), ['missing-result 2:194-203']);
    assert.equal(run.findings[0]?.callId, 'toolu_02B');
    assert.match(run.findings[0]?.message ?? '', /before the user prompt on line 4/);
  });

  void test('placeholder from the orphan repair, then the real result: duplicate-result (afterPlaceholder)', () => {
    const run = runFile(join(fixtures, 'placeholder.jsonl'));
    assert.deepEqual(run.events.filter((e) => e.kind === 'call' || e.kind === 'result').map(project), [
      'call 2 toolu_03D delegate []',
      'result 3 toolu_03D error placeholder delegate',
      'result 7 toolu_03D delegate',
    ]);
    assertSpans(run);
    // Both true: the call now has two results, and the real one also sits turns away from its call.
    assert.deepEqual(run.findings.map(brief), ['duplicate-result 7:35-44', 'misplaced-result 7:35-44']);
    assert.match(run.findings[0]?.message ?? '', /arrived after a placeholder result was already recorded on line 3/);
  });

  void test('two assistant lines in a row are two messages: the first one’s calls are unanswered', () => {
    const run = runLines([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"file_path": "/r/a.py"}' } }] },
      { role: 'assistant', content: 'done' },
    ]);
    assert.deepEqual(run.findings.map((f) => `${f.rule} ${f.line} ${f.callId ?? ''}`), ['missing-result 2 call_1']);
  });
});

void describe('Amplifier file tools and write-before-read', () => {
  const ok = '{"error": null, "output": {}, "success": true}';
  /** One assistant call and its result, in the shape of transcript_P (microsoft/amplifier, 2026.09). */
  const step = (id: string, tool: string, args: object): object[] => [
    { role: 'assistant', content: [], tool_calls: [{ id, tool, arguments: args }] },
    { role: 'tool', tool_call_id: id, name: tool, content: ok },
  ];
  const unread = (lines: object[]): string[] =>
    runLines([{ role: 'user', content: 'go' }, ...lines])
      .findings.filter((f) => f.rule === 'write-before-read')
      .map((f) => `${f.line} ${f.callId ?? ''}`);
  const edit = (id: string): object[] => step(id, 'edit_file', { file_path: '/w/a.py', old_string: 'x', new_string: 'y' });

  void test('a read_file of some lines, or a grep of the file alone, is a look at it before the edit', () => {
    assert.deepEqual(unread([...step('t1', 'read_file', { file_path: '/w/a.py', offset: 40, limit: 20 }), ...edit('t2')]), []);
    assert.deepEqual(unread([...step('t1', 'grep', { pattern: 'x', path: '/w/a.py', output_mode: 'content' }), ...edit('t2')]), []);
    // A grep of the folder shows lines of some files, not a look at this one.
    assert.deepEqual(unread([...step('t1', 'grep', { pattern: 'x', path: '/w', output_mode: 'content' }), ...edit('t2')]), ['4 t2']);
  });

  void test('apply_patch updates and deletes existing files: blind unless read', () => {
    const update = (id: string): object[] => step(id, 'apply_patch', { type: 'update_file', path: '/w/a.py', diff: '@@\n-x\n+y' });
    assert.deepEqual(unread(update('t1')), ['2 t1']);
    assert.deepEqual(unread([...step('t1', 'read_file', { file_path: '/w/a.py' }), ...update('t2')]), []);
    const envelope = (id: string): object[] => step(id, 'apply_patch', { patch: '*** Begin Patch\n*** Add File: /w/new.py\n+n\n*** Delete File: /w/old.py\n*** End Patch' });
    assert.deepEqual(unread(envelope('t1')), ['2 t1']);
  });
});

void describe('Amplifier working folder (handed in from the files beside the transcript)', () => {
  const ok = '{"error": null, "output": {}, "success": true}';
  const step = (id: string, tool: string, args: object): object[] => [
    { role: 'assistant', content: [], tool_calls: [{ id, tool, arguments: args }] },
    { role: 'tool', tool_call_id: id, name: tool, content: ok },
  ];
  const calls = (run: Run): string[] => run.events.filter((e) => e.kind === 'call').map(project);
  const unread = (lines: object[], cwd?: string): string[] =>
    runLines([{ role: 'user', content: 'go' }, ...lines], cwd)
      .findings.filter((f) => f.rule === 'write-before-read')
      .map((f) => `${f.line} ${f.callId ?? ''}`);

  void test('relative paths resolve against it, an @mention does not; without it they name no file, as before', () => {
    const lines = [
      { role: 'user', content: 'go' },
      ...step('t1', 'read_file', { file_path: 'src/a.py' }),
      ...step('t2', 'read_file', { file_path: '@foundation:context/KERNEL.md' }),
      ...step('t3', 'write_file', { file_path: './out/../b.py', content: 'x' }),
    ];
    const run = runLines(lines, '/w/app');
    assert.deepEqual(calls(run), ['call 2 t1 read_file [read /w/app/src/a.py]', 'call 4 t2 read_file []', 'call 6 t3 write_file [write /w/app/b.py]']);
    // The access's span is the path as the call spells it.
    const read = run.events.find((e) => e.kind === 'call' && e.callId === 't1');
    assert.ok(read?.kind === 'call' && read.accesses[0]?.span);
    assert.equal(slice(run, read.accesses[0].span), 'src/a.py');
    // The folder is the session's, as a Codex or Claude Code session's is.
    const sessions = run.events.filter((e) => e.kind === 'session');
    assert.deepEqual(sessions.map((e) => `${e.at.line} ${e.kind === 'session' ? `${e.agent} ${e.cwd}` : ''}`), ['1 amplifier /w/app']);

    const alone = runLines(lines);
    assert.deepEqual(calls(alone), ['call 2 t1 read_file []', 'call 4 t2 read_file []', 'call 6 t3 write_file []']);
    assert.equal(alone.events.filter((e) => e.kind === 'session').length, 0);
  });

  void test('a relative write-before-read is found with the folder, and nothing is claimed without it', () => {
    const edit = (id: string, path: string): object[] => step(id, 'edit_file', { file_path: path, old_string: 'x', new_string: 'y' });
    // An edit of a file never looked at, named relative to the folder.
    assert.deepEqual(unread(edit('t1', 'src/a.py'), '/w'), ['2 t1']);
    assert.deepEqual(unread(edit('t1', 'src/a.py')), []);
    // A relative read, then the edit spelled absolute (or the other way round): one file, read first.
    assert.deepEqual(unread([...step('t1', 'read_file', { file_path: 'src/a.py' }), ...edit('t2', '/w/src/a.py')], '/w'), []);
    assert.deepEqual(unread([...step('t1', 'read_file', { file_path: '/w/src/a.py' }), ...edit('t2', 'src/a.py')], '/w'), []);
    // A look through bash, which runs each command in the same folder (amplifier-module-tool-bash).
    assert.deepEqual(unread([...step('t1', 'bash', { command: 'cat src/a.py' }), ...edit('t2', 'src/a.py')], '/w'), []);
    // A read of another file is no read of this one.
    assert.deepEqual(unread([...step('t1', 'read_file', { file_path: 'src/b.py' }), ...edit('t2', 'src/a.py')], '/w'), ['4 t2']);
  });
});

void describe('Amplifier line semantics', () => {
  void test('JSON-string arguments are parsed; the path span is found inside the escaped string', () => {
    const run = runLines([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'write_file', arguments: '{"file_path": "/r/new.py", "content": "x"}' } }] },
    ]);
    const call = run.events.find((e) => e.kind === 'call');
    assert.equal(call?.kind, 'call');
    assert.deepEqual(call.kind === 'call' ? call.accesses.map((a) => [a.op, a.path, a.span ? slice(run, a.span) : '']) : [], [['write', '/r/new.py', '/r/new.py']]);
  });

  void test('tool_result blocks (in user or tool messages) are results; system lines are skipped', () => {
    const run = runLines([
      { role: 'system', content: 'You are a coding agent' },
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_1', name: 'bash', input: { command: 'ls' } }, { type: 'tool_call', id: 'tc_2', name: 'bash', input: { command: 'pwd' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_call_id: 'tu_1', output: 'a.py' }] },
      { role: 'tool', content: [{ type: 'tool_result', tool_call_id: 'tc_2', output: '/r' }] },
    ]);
    assert.deepEqual(run.events.map(project), [
      'text 2 user prompt',
      'text 3 assistant line-3',
      'call 3 tu_1 bash []',
      'call 3 tc_2 bash []',
      'result 4 tu_1',
      'result 5 tc_2',
    ]);
    assertSpans(run);
    assert.deepEqual(run.findings.map(brief), []);
  });

  void test('error-shaped short outputs are errors; file contents that mention "error" are not', () => {
    const run = runLines([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', tool_calls: ['a', 'b', 'c'].map((id) => ({ id, tool: 'bash', arguments: { command: 'true' } })) },
      { role: 'tool', tool_call_id: 'a', name: 'bash', content: JSON.stringify({ success: false, error: { message: 'exit 1' } }) },
      // `cat fixtures/port-error.json`: a file that happens to have an "error" key.
      { role: 'tool', tool_call_id: 'b', name: 'bash', content: JSON.stringify({ error: 'E_PORT', port: 9000, retries: 3 }) },
      // Foundation's fork repair writes this one (`messages.py`): a placeholder, not a real output.
      { role: 'tool', tool_call_id: 'c', name: 'bash', content: '{"error": "Tool execution interrupted by session fork", "forked": true, "message": "…"}' },
    ]);
    assert.deepEqual(run.events.filter((e) => e.kind === 'result').map(project), ['result 3 a error bash', 'result 4 b bash', 'result 5 c error placeholder bash']);
  });

  void test('hook reminders Amplifier persists as user messages (2026.09) are not prompts', () => {
    // Shapes of microsoft/amplifier tests/reminder_regression_proof/results/transcript_P.jsonl
    // (Amplifier 2026.09.12, `ephemeral_injection_mode: "persist"`): every changed hook injection
    // is written as a `role: user` message wrapped in <system-reminders>, marked ephemeral.
    const reminders = '<system-reminders>\n<system-reminder source="hooks-status-context">\nToday\'s date: 2026-09-14\n</system-reminder>\n</system-reminders>';
    const run = runLines([
      { role: 'user', content: reminders, metadata: { ephemeral: true, persisted: true, reminder_placement: 'pre_user', _seq: 0 } },
      { role: 'user', content: 'Read every file under ./sample', metadata: { _seq: 1 } },
      { role: 'assistant', content: [{ type: 'tool_call', id: 'toolu_1', name: 'read_file', input: { file_path: '/r/a.py' } }], tool_calls: [{ id: 'toolu_1', tool: 'read_file', arguments: { file_path: '/r/a.py' } }] },
      { role: 'tool', name: 'read_file', tool_call_id: 'toolu_1', content: '{"error": null, "output": {"content": "     1\\tx = 1", "file_path": "/r/a.py"}, "success": true}' },
      { role: 'user', content: reminders, metadata: { ephemeral: true, persisted: true, reminder_placement: 'tail', _seq: 4 } },
      // Marked ephemeral without the wrapper, and the wrapper without the mark: neither is typed by a person.
      { role: 'user', content: 'Budget warning: 80% of the context used', metadata: { ephemeral: true, persisted: true } },
      { role: 'user', content: '<system-reminder source="mode-status">\nNo mode is active.\n</system-reminder>' },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    ]);
    assert.deepEqual(
      run.events.filter((e) => e.kind === 'text').map(project),
      ['text 1 user', 'text 2 user prompt', 'text 3 assistant line-3', 'text 5 user', 'text 6 user', 'text 7 user', 'text 8 assistant line-8'],
    );
    assert.deepEqual(run.findings.map(brief), []);
  });

  void test('lines that are not messages, and tool messages without an id, are reported', () => {
    const run = runLines([
      { role: 'user', content: 'go' },
      { content: 'no role' },
      { role: 'tool', name: 'bash', content: 'orphaned text' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'x' }] },
    ]);
    assert.deepEqual(run.events.filter((e) => e.kind === 'malformed').map(project), ['malformed 2 invalid-shape', 'malformed 3 invalid-shape', 'malformed 4 invalid-shape']);
    assert.deepEqual(run.findings.map((f) => `${f.rule} ${f.line}`), ['unparseable-line 2', 'unparseable-line 3', 'unparseable-line 4']);
  });
});

void describe('parseAmplifierEventLine (events.jsonl)', () => {
  void test('process, start, model request and answer, tool and end markers; everything else is ignored', () => {
    const text = readFileSync(join(fixtures, 'events.jsonl'), 'utf8');
    const lines = text.split('\n').filter((l) => l !== '');
    const out: ExecutionEvent[] = [];
    lines.forEach((line, i) => {
      const e = parseAmplifierEventLine(JSON.parse(line) as Record<string, unknown>, { lineNo: i + 1, text: line });
      if (e) {
        out.push(e);
        assert.equal(line.slice(e.at.start, e.at.end), (JSON.parse(line) as { event: string }).event, `span on line ${i + 1}`);
      }
    });
    const sid = 'a2f9c4d1-6e3b-4c8a-9d7f-1b2e3c4d5e6f';
    assert.deepEqual(
      out.map((e) => `${e.at.line} ${e.phase} ${e.sessionId === sid ? 'sid' : e.sessionId} ${e.timestamp ?? ''}`),
      [
        // session:start: a process took the session up.
        '1 process sid 2026-03-05T10:00:00.001+00:00',
        '2 start sid 2026-03-05T10:00:00.120+00:00',
        '3 start sid 2026-03-05T10:00:00.121+00:00',
        '5 llm-request sid 2026-03-05T10:00:00.130+00:00',
        '6 llm-response sid 2026-03-05T10:00:03.410+00:00',
        '7 tool-start sid 2026-03-05T10:00:03.420+00:00',
        // line 8 is an llm:request without session_id: no event.
        '9 start sid 2026-03-05T19:02:11.000+00:00',
        '10 llm-request sid 2026-03-05T19:02:11.300+00:00',
        '12 end sid 2026-03-05T19:02:12.200+00:00',
        '13 tool-end sid 2026-03-05T19:02:12.300+00:00',
        '14 end sid 2026-03-05T19:02:12.310+00:00',
        '15 end sid 2026-03-05T19:02:12.320+00:00',
        '16 end sid 2026-03-05T19:02:12.330+00:00',
      ],
    );
  });

  void test('exact shape of one event; malformed lines give nothing', () => {
    const line = '{"ts":"2026-03-05T10:00:00.120Z","lvl":"INFO","event":"execution:start","session_id":"s1","data":{}}';
    assert.deepEqual(parseAmplifierEventLine(JSON.parse(line) as Record<string, unknown>, { lineNo: 7, text: line }), {
      kind: 'execution',
      at: { line: 7, start: 55, end: 70 },
      phase: 'start',
      sessionId: 's1',
      timestamp: '2026-03-05T10:00:00.120Z',
    });
    assert.equal(line.slice(55, 70), 'execution:start');
    assert.equal(parseAmplifierEventLine({ event: 'execution:start', session_id: 42 }, { lineNo: 1, text: '' }), undefined);
    assert.equal(parseAmplifierEventLine({ event: 'constructor', session_id: 's1' }, { lineNo: 1, text: '' }), undefined);
    assert.equal(parseAmplifierEventLine({ event: 'provider:response', session_id: 's1' }, { lineNo: 1, text: '' }), undefined);
    const pre = '{"ts":"t","event":"tool:pre","session_id":"s1","data":{"tool_name":"delegate","tool_call_id":"toolu_D"}}';
    assert.deepEqual(parseAmplifierEventLine(JSON.parse(pre) as Record<string, unknown>, { lineNo: 3, text: pre }), {
      kind: 'execution',
      at: { line: 3, start: 19, end: 27 },
      phase: 'tool-start',
      sessionId: 's1',
      timestamp: 't',
      callId: 'toolu_D',
      tool: 'delegate',
    });
  });
});

void describe('chunking', () => {
  void test('splitting the bytes in two at every position gives the same events and findings', () => {
    const path = join(fixtures, 'placeholder.jsonl');
    const bytes = readFileSync(path);
    const whole = runBytes(path, [bytes]);
    assert.ok(whole.findings.length > 0);
    const expectedEvents = JSON.stringify(whole.events);
    const expectedFindings = JSON.stringify(whole.findings);
    for (let i = 0; i <= bytes.length; i++) {
      const split = runBytes(path, [bytes.subarray(0, i), bytes.subarray(i)]);
      assert.equal(JSON.stringify(split.findings), expectedFindings, `split at byte ${i}`);
      assert.equal(JSON.stringify(split.events), expectedEvents, `split at byte ${i}`);
    }
  });
});

void describe('Amplifier session names in check', () => {
  void test('a transcript.jsonl is named by its session folder, not "transcript"', async () => {
    const root = mkdtempSync(join(tmpdir(), 'amp-name-'));
    try {
      const dir = join(root, '.amplifier', 'projects', '-home-dev-app', 'sessions', 'c37652eb-ec4c-4cb5-9d3e-f0b1445ac643');
      mkdirSync(dir, { recursive: true });
      const file = join(dir, 'transcript.jsonl');
      writeFileSync(
        file,
        [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: [], tool_calls: [{ id: 'toolu_1', tool: 'bash', arguments: { command: 'ls' } }] },
          { role: 'user', content: 'never mind' },
        ]
          .map((l) => JSON.stringify(l))
          .join('\n') + '\n',
      );
      const checked = await checkFile(file, { adapters, rules: streamRules });
      assert.equal(checked.agent, 'amplifier');
      assert.equal(checked.session, 'c37652eb-ec4c-4cb5-9d3e-f0b1445ac643');
      assert.deepEqual(
        checked.findings.map((f) => `${f.rule} ${f.session}`),
        ['missing-result c37652eb-ec4c-4cb5-9d3e-f0b1445ac643'],
      );
      // Any other file keeps its own name (Claude Code's `<uuid>.jsonl`, a copy named by hand).
      const other = join(root, 'session-copy.jsonl');
      writeFileSync(other, readFileSync(file));
      assert.equal((await checkFile(other, { adapters, rules: streamRules })).session, 'session-copy');
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

void describe('sessionIdFromPath', () => {
  void test('an Amplifier session folder names both its files; other agents are named by the file', () => {
    const dir = '/home/u/.amplifier/projects/-home-u-app/sessions/a2f9c4d1';
    assert.equal(sessionIdFromPath(`${dir}/transcript.jsonl`), 'a2f9c4d1');
    assert.equal(sessionIdFromPath(`${dir}/events.jsonl`), 'a2f9c4d1');
    assert.equal(sessionIdFromPath(`${dir}/events.jsonl`, 'amplifier'), 'a2f9c4d1');
    assert.equal(sessionIdFromPath('/h/.claude/projects/-w/7f1e.jsonl', 'claude-code'), '7f1e');
    assert.equal(sessionIdFromPath('C:\\Users\\u\\.gemini\\tmp\\p\\chats\\session-1.json'), 'session-1');
  });
});
