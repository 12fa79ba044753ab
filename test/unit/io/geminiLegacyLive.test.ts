/**
 * Gemini CLI's legacy sessions live: one JSON document (`chats/session-*.json`) that Gemini CLI
 * rewrites whole, in place, on every change. Real folders, real chokidar, real rewrites.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { geminiProjectHash } from '../../../src/core/discovery/locations';
import { hashText } from '../../../src/io/workTree';
import { LiveEnv } from '../support/liveEnv';
import { brief, run, sortFindings } from '../support/run';
import { sleep, waitFor } from '../support/wait';

let env: LiveEnv;
afterEach(async () => {
  await env?.dispose();
});

interface Call {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** Undefined: still running (no result yet). */
  output: string | undefined;
}

/** A message of a legacy session: a prompt, or a `gemini` record with its calls. */
type Message = { prompt: string } | { calls: Call[] } | { say: string };

const sessionId = '0f0e0d0c-1111-2222-3333-444455556666';

/** The document as Gemini CLI writes it: JSON.stringify(conversation, null, 2), no newline at the end. */
function legacyDocument(ws: string, messages: readonly Message[], lastUpdated = '2026-03-20T10:05:00.000Z'): string {
  let minute = 0;
  const at = (): string => `2026-03-20T10:${String(minute++).padStart(2, '0')}:00.000Z`;
  return JSON.stringify(
    {
      sessionId,
      projectHash: geminiProjectHash(ws),
      startTime: '2026-03-20T10:00:00.000Z',
      lastUpdated,
      messages: messages.map((m, i) => {
        const base = { id: `m${i + 1}`, timestamp: at() };
        if ('prompt' in m) {
          return { ...base, type: 'user', content: m.prompt };
        }
        if ('say' in m) {
          return { ...base, type: 'gemini', content: m.say };
        }
        return {
          ...base,
          type: 'gemini',
          content: '',
          toolCalls: m.calls.map((c) => ({
            id: c.id,
            name: c.name,
            args: c.args,
            result: c.output === undefined ? null : [{ functionResponse: { id: c.id, name: c.name, response: { output: c.output } } }],
            status: c.output === undefined ? 'executing' : 'success',
            timestamp: base.timestamp,
          })),
        };
      }),
    },
    null,
    2,
  );
}

/** Gemini CLI's chats folder of the workspace (legacy builds: the project's hash). */
function chatsDir(e: LiveEnv): string {
  return path.join(e.root, '.gemini', 'tmp', geminiProjectHash(e.workspace), 'chats');
}

function checkFindings(file: string): string[] {
  return brief(run(readFileSync(file), { file }).findings);
}

function liveFindings(e: LiveEnv, file: string): string[] {
  return brief(sortFindings(e.monitor!.findings.forFile(file)));
}

/**
 * Rewrites the document in place, as Gemini CLI does, and waits until the monitor has read this
 * version (a version read says so, with its size, even when the last one had the same size).
 */
async function rewrite(file: string, text: string, what: string): Promise<void> {
  let read = false;
  const listening = env.monitor!.onDidChangeSessions((s) => {
    read ||= s?.file === file && s.bytes === Buffer.byteLength(text);
  });
  try {
    writeFileSync(file, text);
    await waitFor(() => read, 15_000, () => `${what}: read (${env.logs.join(' | ')})`);
  } finally {
    listening.dispose();
  }
  await env.monitor!.idle();
}

void describe('Gemini CLI legacy sessions, live', () => {
  void test('a re-check of a document that cannot be read keeps its findings until it is read again', async () => {
    env = new LiveEnv();
    await env.start({ watchTree: false });
    mkdirSync(chatsDir(env), { recursive: true });
    const file = path.join(chatsDir(env), 'session-2026-03-20T10-00-0f0e0d0c.json');
    const app = path.join(env.workspace, 'src', 'app.ts');
    const edit: Message = { calls: [{ id: 'replace_1774000020000_0', name: 'replace', args: { file_path: app, old_string: '80', new_string: 'env.PORT' }, output: 'Edited' }] };
    const text = legacyDocument(env.workspace, [{ prompt: 'Make the port configurable' }, edit]);
    await rewrite(file, text, 'the document');
    const found = checkFindings(file);
    assert.deepEqual(found.map((f) => f.split('@')[0]), ['write-before-read']);
    assert.deepEqual(liveFindings(env, file), found);
    // As root every file is readable: a FIFO renamed over the document cannot be read either.
    const fifo = path.join(env.root, 'fifo');
    execFileSync('mkfifo', [fifo]);
    renameSync(fifo, file);
    await sleep(300);
    await env.monitor!.recheck();
    assert.deepEqual(liveFindings(env, file), found, 'the findings stand while the document cannot be read');
    assert.deepEqual(env.removed, []);
    const back = path.join(env.root, 'back.json');
    writeFileSync(back, text);
    renameSync(back, file);
    await waitFor(() => env.monitor!.session(file)?.bytes === Buffer.byteLength(text), 15_000, 'the document read again');
    await env.monitor!.idle();
    assert.deepEqual(liveFindings(env, file), found);
    assert.deepEqual(env.removed, []);
    assert.deepEqual(brief(env.announced), found, 'announced once');
  });

  void test('each rewrite replaces the findings: new ones added, standing ones not announced again, gone ones retracted', async () => {
    env = new LiveEnv();
    await env.start({ watchTree: false });
    mkdirSync(chatsDir(env), { recursive: true });
    const file = path.join(chatsDir(env), 'session-2026-03-20T10-00-0f0e0d0c.json');
    const app = path.join(env.workspace, 'src', 'app.ts');
    const prompt: Message = { prompt: 'Make the port configurable' };
    const listing: Message = { calls: [{ id: 'list_directory_1774000000000_0', name: 'list_directory', args: { dir_path: env.workspace }, output: 'src/' }] };
    const read: Message = { calls: [{ id: 'read_file_1774000010000_0', name: 'read_file', args: { file_path: app }, output: 'const port = 80;\n' }] };
    const edit: Message = { calls: [{ id: 'replace_1774000020000_0', name: 'replace', args: { file_path: app, old_string: '80', new_string: 'env.PORT' }, output: 'Edited' }] };

    const v1 = legacyDocument(env.workspace, [prompt, listing]);
    await rewrite(file, v1, 'the first version');
    assert.deepEqual(liveFindings(env, file), []);
    const s = env.monitor!.session(file)!;
    assert.equal(s.agent, 'gemini');
    assert.equal(s.sessionId, sessionId);
    assert.equal(s.firstPrompt, 'Make the port configurable');

    // An edit of a file the session never read.
    const v2 = legacyDocument(env.workspace, [prompt, listing, edit], '2026-03-20T10:06:00.000Z');
    await rewrite(file, v2, 'the version with the edit');
    const found = checkFindings(file);
    assert.deepEqual(found.map((f) => f.split('@')[0]), ['write-before-read']);
    assert.deepEqual(liveFindings(env, file), found);
    assert.deepEqual(brief(env.announced), found);

    // Gemini CLI rewrites the whole document for the next message: the finding still stands, and is no news.
    const v3 = legacyDocument(env.workspace, [prompt, listing, edit, { say: 'Done.' }], '2026-03-20T10:07:00.000Z');
    await rewrite(file, v3, 'the version with one more message');
    assert.deepEqual(liveFindings(env, file), found);
    assert.deepEqual(brief(env.announced), found, 'not announced again');
    assert.deepEqual(env.removed, []);

    // The document rewritten with the read before the edit: the finding goes.
    const v4 = legacyDocument(env.workspace, [prompt, listing, read, edit, { say: 'Done.' }], '2026-03-20T10:08:00.000Z');
    await rewrite(file, v4, 'the version with the read');
    assert.deepEqual(checkFindings(file), []);
    assert.deepEqual(liveFindings(env, file), []);
    assert.deepEqual(brief(env.removed), found, 'retracted');
    assert.equal(env.announced.length, 1);
  });

  void test('a document caught mid-rewrite keeps the last findings; once it settles, what it holds is reported', async () => {
    env = new LiveEnv();
    // Quiet for 30 s before it settles by itself, so a slow machine cannot settle the half
    // document before the check that it is held; the tick a minute on settles it.
    await env.start({ watchTree: false, settleAfterMs: 30_000 });
    mkdirSync(chatsDir(env), { recursive: true });
    const file = path.join(chatsDir(env), 'session-2026-03-20T10-00-0f0e0d0c.json');
    const app = path.join(env.workspace, 'src', 'app.ts');
    const prompt: Message = { prompt: 'Make the port configurable' };
    const edit: Message = { calls: [{ id: 'replace_1774000020000_0', name: 'replace', args: { file_path: app, old_string: '80', new_string: 'env.PORT' }, output: 'Edited' }] };
    const v1 = legacyDocument(env.workspace, [prompt, edit]);
    await rewrite(file, v1, 'the version with the edit');
    const found = checkFindings(file);
    assert.deepEqual(found.map((f) => f.split('@')[0]), ['write-before-read']);
    await waitFor(() => liveFindings(env, file).join() === found.join(), 15_000, 'the finding');

    // Gemini CLI truncates the file, then writes the new document: a reader in between sees a prefix.
    const v2 = legacyDocument(env.workspace, [prompt, edit, { say: 'Done.' }], '2026-03-20T10:06:00.000Z');
    writeFileSync(file, v2.slice(0, Math.floor(v2.length / 2)));
    await sleep(600);
    await env.monitor!.idle();
    assert.deepEqual(liveFindings(env, file), found, 'the last whole version still stands');
    assert.deepEqual(env.removed, []);
    assert.ok(!env.announced.some((f) => f.rule === 'unparseable-line'), 'no truncation reported while it may be mid-rewrite');

    // It stays so: once the file has been quiet, the broken document is what there is.
    env.monitor!.tick(Date.now() + 60_000);
    await env.monitor!.idle();
    assert.deepEqual(liveFindings(env, file), checkFindings(file));
    assert.deepEqual(liveFindings(env, file).map((f) => f.split('@')[0]), ['unparseable-line']);

    // The writer is back: the whole document replaces the report of the broken one.
    await rewrite(file, v2, 'the whole new version');
    assert.deepEqual(liveFindings(env, file), found);
    assert.deepEqual(liveFindings(env, file), checkFindings(file));
  });

  void test('a rewrite by temp file and rename, a sub-agent document, and deletion', async () => {
    env = new LiveEnv();
    await env.start({ watchTree: false });
    const chats = chatsDir(env);
    mkdirSync(path.join(chats, sessionId), { recursive: true });
    const sub = path.join(chats, sessionId, 'xb7gtb.json');
    const app = path.join(env.workspace, 'src', 'app.ts');
    const edit = (id: string): Message => ({ calls: [{ id, name: 'replace', args: { file_path: app, old_string: 'a', new_string: 'b' }, output: 'Edited' }] });
    const text = legacyDocument(env.workspace, [{ prompt: 'review app.ts' }, edit('xb7gtb#0-0')]);
    writeFileSync(sub + '.tmp', text);
    renameSync(sub + '.tmp', sub);
    await waitFor(() => liveFindings(env, sub).length === 1, 15_000, () => `the sub-agent's finding (${env.logs.join(' | ')})`);
    assert.deepEqual(liveFindings(env, sub), checkFindings(sub));

    const fixed = legacyDocument(env.workspace, [{ prompt: 'review app.ts' }, { calls: [{ id: 'xb7gtb#0-0', name: 'read_file', args: { file_path: app }, output: 'a' }] }, edit('xb7gtb#1-0')]);
    writeFileSync(sub + '.tmp', fixed);
    renameSync(sub + '.tmp', sub);
    await waitFor(() => liveFindings(env, sub).length === 0, 15_000, 'the finding to go with the rewrite');

    rmSync(sub);
    await waitFor(() => env.monitor!.session(sub) === undefined, 15_000, 'the session to go');
  });

  void test('the working tree hears of each read and write once, however often the document is rewritten', async () => {
    env = new LiveEnv();
    const app = path.join(env.workspace, 'src', 'app.ts');
    mkdirSync(path.dirname(app), { recursive: true });
    const original = 'const port = 80;\n';
    writeFileSync(app, original);
    await env.start();
    mkdirSync(chatsDir(env), { recursive: true });
    const file = path.join(chatsDir(env), 'session-2026-03-20T10-00-0f0e0d0c.json');
    const prompt: Message = { prompt: 'Make the port configurable' };
    const read: Message = { calls: [{ id: 'read_file_1774000010000_0', name: 'read_file', args: { file_path: app }, output: original }] };
    await rewrite(file, legacyDocument(env.workspace, [prompt, read]), 'the read');
    await env.monitor!.tree!.settle(app);

    // Someone else changes the file after the session read it.
    const changed = 'const port = 8080; // by hand\n';
    writeFileSync(app, changed);
    await waitFor(() => env.monitor!.tree!.history(app).at(-1)?.hash === hashText(changed), 15_000, 'the foreign change');
    await sleep(400);
    // The document is rewritten for a message that has nothing to do with the file: its read,
    // read again, is not a new look at the file.
    await rewrite(file, legacyDocument(env.workspace, [prompt, read, { say: 'Thinking.' }], '2026-03-20T10:06:00.000Z'), 'a later message');
    const write: Message = { calls: [{ id: 'write_file_1774000030000_0', name: 'write_file', args: { file_path: app, content: 'const port = env.PORT;\n' }, output: 'Written' }] };
    await rewrite(file, legacyDocument(env.workspace, [prompt, read, { say: 'Thinking.' }, write], '2026-03-20T10:07:00.000Z'), 'the write');
    const stale = env.monitor!.findings.forFile(file).map((f) => `${f.rule}:${f.messageId}`);
    assert.deepEqual(stale, ['stale-write:live']);

    // And the verdict stands through the next rewrite, though the session has now written the file itself.
    const announced = env.announced.length;
    await rewrite(file, legacyDocument(env.workspace, [prompt, read, { say: 'Thinking.' }, write, { say: 'Done.' }], '2026-03-20T10:08:00.000Z'), 'the last message');
    assert.deepEqual(env.monitor!.findings.forFile(file).map((f) => `${f.rule}:${f.messageId}`), stale);
    assert.equal(env.announced.length, announced, 'not announced again');
    assert.deepEqual(env.removed, []);
  });

  void test('a call that has been running for long: reported once, standing through rewrites, gone with its result', async () => {
    env = new LiveEnv();
    await env.start({ watchTree: false });
    mkdirSync(chatsDir(env), { recursive: true });
    const file = path.join(chatsDir(env), 'session-2026-03-20T10-00-0f0e0d0c.json');
    const prompt: Message = { prompt: 'Run the tests' };
    // The document's times are March 2026, long before now: the call has run for long.
    const running: Message = { calls: [{ id: 'run_shell_command_1774000000000_0', name: 'run_shell_command', args: { command: 'npm test' }, output: undefined }] };
    await rewrite(file, legacyDocument(env.workspace, [prompt, running]), 'the running call');
    const stalled = (): string[] => liveFindings(env, file).map((f) => f.split('@')[0]!);
    await waitFor(() => stalled().includes('stalled-call'), 15_000, 'the stalled call');
    assert.deepEqual(stalled(), ['stalled-call']);
    // Gemini CLI rewrites the document (its token counts, a thought) while the call runs.
    await rewrite(file, legacyDocument(env.workspace, [prompt, running], '2026-03-20T10:30:00.000Z'), 'a rewrite while it runs');
    env.monitor!.tick();
    assert.deepEqual(stalled(), ['stalled-call']);
    assert.equal(env.announced.length, 1, 'not announced again');
    assert.deepEqual(env.removed, []);
    const done: Message = { calls: [{ id: 'run_shell_command_1774000000000_0', name: 'run_shell_command', args: { command: 'npm test' }, output: 'ok' }] };
    await rewrite(file, legacyDocument(env.workspace, [prompt, done], '2026-03-20T10:31:00.000Z'), 'the result');
    assert.deepEqual(stalled(), []);
    assert.deepEqual(brief(env.removed).map((f) => f.split('@')[0]), ['stalled-call']);
  });

  void test('other .json files are no sessions: not watched, not read', async () => {
    env = new LiveEnv();
    await env.start({ watchTree: false });
    const project = path.dirname(chatsDir(env));
    mkdirSync(chatsDir(env), { recursive: true });
    mkdirSync(env.projectDir, { recursive: true });
    const doc = legacyDocument(env.workspace, [{ prompt: 'x' }, { calls: [{ id: 'replace_1774000020000_0', name: 'replace', args: { file_path: path.join(env.workspace, 'a'), old_string: 'a', new_string: 'b' }, output: 'Edited' }] }]);
    const others = [path.join(project, 'logs.json'), path.join(project, 'checkpoint-x.json'), path.join(chatsDir(env), 'notes.json'), path.join(env.projectDir, 'session-1.json')];
    for (const f of others) {
      writeFileSync(f, doc);
    }
    const session = path.join(chatsDir(env), 'session-2026-03-20T10-00-0f0e0d0c.json');
    writeFileSync(session, doc);
    await waitFor(() => env.monitor!.session(session), 15_000, 'the session');
    await sleep(500);
    await env.monitor!.idle();
    assert.deepEqual(
      env.monitor!.sessionList().map((x) => x.file),
      [session],
    );
    assert.deepEqual(env.monitor!.findings.all().map((f) => f.file), [session]);
  });
});
