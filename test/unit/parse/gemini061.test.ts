import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { TranscriptStream } from '../../../src/core/engine/stream';
import type { NormalizedEvent } from '../../../src/core/model/events';
import type { Finding } from '../../../src/core/model/finding';
import { geminiAdapter } from '../../../src/core/parse/gemini/parser';
import { sha256 } from '../../../src/core/lib/hash';
import { streamRules } from '../../../src/core/rules/registry';

/**
 * Record shapes of Gemini CLI 0.61.0 as it wrote them here (test/fixtures/generated/gemini-0.61),
 * trimmed: the metadata line, a `$set.messages` checkpoint opening with the session context, a
 * `gemini` record re-appended with its toolCalls (call and result in one), the user turn that
 * sends the result back, and `$set.lastUpdated` after each message.
 */
const ws = '/w/proj';
const app = `${ws}/src/app.ts`;
const original = 'export const port = 3000;\nexport const host = "localhost";\n';

function run(lines: readonly object[]): { events: NormalizedEvent[]; findings: Finding[] } {
  const events: NormalizedEvent[] = [];
  const findings: Finding[] = [];
  const stream = new TranscriptStream({
    file: '/home/u/.gemini/tmp/proj/chats/session-2026-12-01T05-53-ed45f7ae.jsonl',
    adapters: [geminiAdapter],
    rules: streamRules,
    mode: 'batch',
    sink: { add: (f) => findings.push(f), retract: () => undefined },
    observe: (e) => events.push(e),
  });
  stream.push(Buffer.from(lines.map((l) => JSON.stringify(l)).join('\n') + '\n'));
  stream.end();
  return { events, findings };
}

const brief = (f: Finding): string => `${f.rule} ${f.severity} @${f.line}`;

const meta = { sessionId: 'ed45f7ae-a79d-414e-9660-ce342d6fc54f', projectHash: sha256(ws), startTime: '2026-12-01T05:53:54.418Z', lastUpdated: '2026-12-01T05:53:54.418Z', kind: 'main' };
const context = {
  $set: {
    messages: [
      {
        id: 'd04923d38bb0f6017037e74183378ef4',
        timestamp: '2026-12-01T05:53:54.421Z',
        type: 'user',
        content: [{ text: `<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n- **Workspace Directories:**\n  - ${ws}\n- **Directory Structure:**\n\n${ws}/\n└───src/\n    └───app.ts\n</session_context>` }],
      },
    ],
    lastUpdated: '2026-12-01T05:53:54.421Z',
  },
};
const prompt = { id: '191f150e', timestamp: '2026-12-01T05:53:54.457Z', type: 'user', content: [{ text: 'Make the port 8080' }] };

interface Call {
  id: string;
  name: string;
  args: Record<string, unknown>;
  output?: string;
  error?: string;
  display?: unknown;
  timestamp?: string;
}

/** A model turn's record with its calls finished, and the user turn that sends their results back. */
function turn(msgId: string, calls: readonly Call[]): object[] {
  const responses = calls.map((c) => ({ functionResponse: { id: c.id, name: c.name, response: c.error !== undefined ? { error: c.error } : { output: c.output ?? '' } } }));
  return [
    { id: msgId, timestamp: '2026-12-01T05:53:54.697Z', type: 'gemini', content: '', thoughts: [], model: 'gemini-2.5-flash' },
    {
      id: msgId,
      timestamp: '2026-12-01T05:53:54.697Z',
      type: 'gemini',
      content: '',
      thoughts: [],
      model: 'gemini-2.5-flash',
      toolCalls: calls.map((c, i) => ({
        id: c.id,
        name: c.name,
        args: c.args,
        result: [responses[i]],
        status: c.error !== undefined ? 'error' : 'success',
        timestamp: c.timestamp ?? '2026-12-01T05:53:54.742Z',
        resultDisplay: c.display ?? '',
      })),
    },
    { id: `${msgId}-r`, timestamp: '2026-12-01T05:53:54.743Z', type: 'user', content: responses },
    { $set: { lastUpdated: '2026-12-01T05:53:54.743Z' } },
  ];
}

const read = (id: string, args: Record<string, unknown> = {}, output = original): Call => ({ id, name: 'read_file', args: { file_path: app, ...args }, output });
const overwrite = (id: string, before: string): Call => ({
  id,
  name: 'write_file',
  args: { file_path: app, content: original.replace('3000', '8080') },
  output: `Successfully overwrote file: ${app}. Here is the updated code:\n${original.replace('3000', '8080')}`,
  display: { fileDiff: '…', fileName: 'app.ts', filePath: app, originalContent: before, newContent: original.replace('3000', '8080'), isNewFile: false },
});

void describe('Gemini CLI 0.61: what a read showed, and what an edit replaced', () => {
  /** The file after the user changed line 2. */
  const changed = original.replace('"localhost"', '"0.0.0.0"');

  /** A replace of the port, applied to the file after the user changed line 2. */
  const portEdit = (id: string): Call => ({
    id,
    name: 'replace',
    args: { file_path: app, old_string: 'port = 3000', new_string: 'port = 8080', instruction: 'Set the port' },
    output: `Successfully modified file: ${app} (1 replacements).`,
    display: { fileDiff: '…', fileName: 'app.ts', filePath: app, originalContent: changed, newContent: changed.replace('3000', '8080'), isNewFile: false },
  });

  void test('a write_file over a change made since the whole-file read_file is a stale write (it was before: no finding)', () => {
    const r = run([meta, context, prompt, ...turn('m1', [read('read_file__read_file_1796104434525_0')]), ...turn('m2', [overwrite('write_file__write_file_1796104434784_0', changed)])]);
    assert.deepEqual(r.findings.map(brief), ['stale-write error @9']);
  });

  void test('a write_file over the file as read is not', () => {
    const r = run([meta, context, prompt, ...turn('m1', [read('read_file__read_file_1_0')]), ...turn('m2', [overwrite('write_file__write_file_2_0', original)])]);
    assert.deepEqual(r.findings.map(brief), []);
  });

  void test('a replace of line 1 after line 2 changed: the stale-write warning, from its originalContent and newContent', () => {
    const r = run([meta, context, prompt, ...turn('m1', [read('read_file__read_file_1_0')]), ...turn('m2', [portEdit('replace__replace_1796104434784_0')])]);
    assert.deepEqual(r.findings.map(brief), ['stale-write warning @9']);
  });

  void test('a replace over a change made since the read, then a write_file from the read: the write_file overwrote the change (it was before: only the warning)', () => {
    const r = run([meta, context, prompt, ...turn('m1', [read('read_file__read_file_1_0')]), ...turn('m2', [portEdit('replace__replace_2_0')]), ...turn('m3', [overwrite('write_file__write_file_3_0', changed.replace('3000', '8080'))])]);
    assert.deepEqual(r.findings.map(brief), ['stale-write warning @9', 'stale-write error @13']);
    assert.match(r.findings[1]!.message, /^write_file overwrote a change to src\/app\.ts that this session never saw: file line 2 changed after the session last read the file/);
  });

  void test('a read of some lines, a truncated read, or one with project context appended is not taken for the whole file', () => {
    // Each shows `original`, or part of it, and the file was `changed` when it was overwritten:
    // taken for the whole file, each would be a stale write.
    const truncated = `\nIMPORTANT: The file content has been truncated.\nStatus: Showing lines 1-1 of 2 total lines.\nAction: To read more of the file, you can use the 'start_line' and 'end_line' parameters in a subsequent 'read_file' call. For example, to read the next section of the file, use start_line: 2.\n\n--- FILE CONTENT (truncated) ---\nexport const port = 3000;`;
    const withContext = `${original}\n\n--- Newly Discovered Project Context ---\nUse tabs.\n--- End Project Context ---`;
    for (const r1 of [
      read('read_file__read_file_1_0', { start_line: 1, end_line: 1 }, truncated),
      read('read_file__read_file_1_0', {}, truncated),
      read('read_file__read_file_1_0', {}, withContext),
      // Not from the first line (0.61 would have said it was cut; an older build might not).
      read('read_file__read_file_1_0', { start_line: 2, end_line: 50 }, original),
      read('read_file__read_file_1_0', { offset: 1, limit: 50 }, original),
    ]) {
      const r = run([meta, context, prompt, ...turn('m1', [r1]), ...turn('m2', [overwrite('write_file__write_file_2_0', changed)])]);
      assert.deepEqual(r.findings.map(brief), [], r1.output);
    }
  });

  void test('a read from line 1 with an end past the file’s (later builds send a range with every read) is the whole file when it does not say it was cut', () => {
    for (const args of [{ start_line: 1, end_line: 150 }, { offset: 0, limit: 2000 }, { start_line: null, end_line: 150 }]) {
      const r = run([meta, context, prompt, ...turn('m1', [read('read_file__read_file_1_0', args)]), ...turn('m2', [overwrite('write_file__write_file_2_0', changed)])]);
      assert.deepEqual(r.findings.map(brief), ['stale-write error @9'], JSON.stringify(args));
    }
  });
});

void describe('Gemini CLI 0.61: the project folder', () => {
  void test('is the folder of the opening checkpoint whose hash the metadata holds: a shell command’s relative path is read there', () => {
    const cat: Call = { id: 'run_shell_command__run_shell_command_1_0', name: 'run_shell_command', args: { command: 'cat src/app.ts' }, output: `<untrusted_context>\nOutput: ${original}</untrusted_context>` };
    const r = run([meta, context, prompt, ...turn('m1', [cat])]);
    const call = r.events.find((e) => e.kind === 'call');
    assert.ok(call?.kind === 'call');
    assert.deepEqual(call.accesses.map((a) => `${a.op} ${a.path}`), [`read ${app}`]);
    assert.ok(r.events.some((e) => e.kind === 'session' && e.cwd === ws));
  });

  void test('is not taken from a folder the checkpoint names whose hash is another', () => {
    const r = run([{ ...meta, projectHash: sha256('/elsewhere') }, context, prompt]);
    assert.ok(!r.events.some((e) => e.kind === 'session' && e.cwd !== undefined));
  });
});

void describe('Gemini CLI 0.61: a write runs alone', () => {
  const batch = (timestamp: string): object[] =>
    turn('m1', [
      { ...read('read_file__read_file_1796104393234_0'), timestamp },
      { ...overwrite('write_file__write_file_1796104393235_1', original), timestamp },
    ]);

  void test('a read and a write of one file in one response are not a race since 0.49 (the scheduler runs the write by itself, in order)', () => {
    assert.deepEqual(run([meta, context, prompt, ...batch('2026-12-01T06:13:32.110Z')]).findings.map(brief), []);
  });

  void test('before it, the parallel scheduler could run them side by side: still reported', () => {
    assert.deepEqual(run([meta, context, prompt, ...batch('2026-04-20T10:00:00.000Z')]).findings.map(brief), ['parallel-read-write warning @5']);
  });
});

void describe('Gemini CLI 0.61: a resumed session sends a result twice', () => {
  const callId = 'read_file__read_file_1796104733884_0';
  const response = { functionResponse: { id: callId, name: 'read_file', response: { output: original } } };
  const history = (copies: number): object => ({
    $set: {
      messages: [
        context.$set.messages[0],
        { id: '26822f97', timestamp: '2026-12-01T05:54:32.397Z', type: 'user', content: [{ text: 'Read app.ts' }] },
        { id: '8eb0e895', timestamp: '2026-12-01T05:54:32.710Z', type: 'gemini', content: [{ functionCall: { id: callId, name: 'read_file', args: { file_path: app } } }] },
        ...(copies === 2 ? [{ id: '8eb0e895_response', timestamp: '2026-12-01T05:54:41.500Z', type: 'user', content: [response] }] : []),
        { id: '0427a9f2', timestamp: '2026-12-01T05:54:32.786Z', type: 'user', content: [response] },
        { id: '65d5677d', timestamp: '2026-12-01T05:54:32.865Z', type: 'gemini', content: [{ text: 'Read it.' }] },
      ],
      lastUpdated: '2026-12-01T05:54:41.500Z',
    },
  });

  void test('a checkpoint whose two user turns hold one response: duplicate-result (it was before: no finding)', () => {
    assert.deepEqual(run([meta, history(2)]).findings.map(brief), ['duplicate-result error @2']);
  });

  void test('one user turn holding it, besides the call’s own toolCalls entry, is one response', () => {
    assert.deepEqual(run([meta, history(1)]).findings.map(brief), []);
    assert.deepEqual(run([meta, context, prompt, ...turn('m1', [read(callId)])]).findings.map(brief), []);
  });

  void test('copies of the history appended under new ids before a checkpoint (Gemini CLI 0.4x) are not sent twice', () => {
    const copy = { id: 'c0ffee', timestamp: '2026-12-01T05:55:00.000Z', type: 'user', content: [response] };
    assert.deepEqual(run([meta, context, prompt, ...turn('m1', [read(callId)]), copy, { $set: { lastUpdated: 't' } }]).findings.map(brief), []);
  });
});
