/** runningGeminiSubAgent(): which Gemini CLI sub-agent a hook naming its main session comes from, by the files' times. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { runningGeminiSubAgent } from '../../../src/io/guard/geminiSubAgent';

const id = '6d867077-ff73-4df8-a5ec-6c4e31187807';
let tmp: string | undefined;
afterEach(() => {
  if (tmp) {
    rmSync(tmp, { recursive: true, force: true });
    tmp = undefined;
  }
});

/** A chats folder with the main session's file, written `secondsAgo`. */
function chats(secondsAgo: number): { main: string; sub: (name: string, lines: unknown[], secondsAgo: number) => string } {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'ag-gemini-sub-'));
  const dir = path.join(tmp, 'chats');
  mkdirSync(path.join(dir, id), { recursive: true });
  const main = path.join(dir, 'session-2026-12-02T01-12-6d867077.jsonl');
  const write = (file: string, lines: unknown[], ago: number): string => {
    writeFileSync(file, lines.map((l) => JSON.stringify(l) + '\n').join(''));
    const t = new Date(Date.now() - ago * 1000);
    utimesSync(file, t, t);
    return file;
  };
  write(main, [{ sessionId: id, kind: 'main' }], secondsAgo);
  return { main, sub: (name, lines, ago) => write(path.join(dir, id, `${name}.jsonl`), lines, ago) };
}

const meta = (sessionId: string): unknown => ({ sessionId, kind: 'subagent' });
const call = (name: string): unknown => ({ id: 'm1', type: 'gemini', content: '', toolCalls: [{ id: 'x#0-0', name, args: {}, status: 'success' }] });
/** How Gemini CLI 0.61 ends a sub-agent's file once it is done (test/fixtures/generated/gemini-0.61/sub-agent). */
const done = { $set: { summary: '{\n  "response": "The port in src/app.ts is now 8080."\n}' } };

void describe('the running Gemini CLI sub-agent', () => {
  void test('a sub-agent file written after the main session’s is the running sub-agent’s; an older one is not', async () => {
    const c = chats(30);
    const old = c.sub('a1', [meta('a1'), call('read_file'), done], 40);
    assert.equal(await runningGeminiSubAgent(c.main, id), undefined);
    const running = c.sub('a2', [meta('a2'), call('read_file')], 10);
    assert.deepEqual(await runningGeminiSubAgent(c.main, id), { file: running, sessionId: 'a2' });
    assert.notEqual(running, old);
  });

  void test('a sub-agent that is done is not the running one, though the main session has not recorded its batch yet', async () => {
    // Gemini CLI runs a write alone, in the response's order, and records the batch once all of it
    // is done: after `invoke_agent` returns, the main session's next call of the same response
    // (a write_file) runs while the sub-agent's file is still the newer.
    const c = chats(30);
    c.sub('a1', [meta('a1'), call('replace'), call('complete_task'), done], 5);
    assert.equal(await runningGeminiSubAgent(c.main, id), undefined);
    // Another sub-agent that still runs is found behind it.
    const running = c.sub('a2', [meta('a2'), call('read_file')], 10);
    assert.deepEqual(await runningGeminiSubAgent(c.main, id), { file: running, sessionId: 'a2' });
  });

  void test('a transcript path that is no Gemini CLI session’s is not looked beside', async () => {
    // The payload is untrusted: its transcript_path and session_id name the folder that is listed,
    // and the newest file found there is read.
    const c = chats(30);
    c.sub('a1', [meta('a1')], 10);
    const elsewhere = path.join(path.dirname(path.dirname(c.main)), 'notes.jsonl');
    writeFileSync(elsewhere, '');
    const t = new Date(Date.now() - 30_000);
    utimesSync(elsewhere, t, t);
    mkdirSync(path.join(path.dirname(elsewhere), id));
    writeFileSync(path.join(path.dirname(elsewhere), id, 'x.jsonl'), '{}\n');
    assert.equal(await runningGeminiSubAgent(elsewhere, id), undefined);
    assert.equal(await runningGeminiSubAgent(path.join(path.dirname(c.main), 'notes.jsonl'), id), undefined);
  });

  void test('ids that could name another folder are not followed', async () => {
    const c = chats(30);
    c.sub('a1', [meta('a1')], 10);
    for (const bad of ['', '.', '..', '../x', 'a/b', 'a\\b', 'a\0b']) {
      assert.equal(await runningGeminiSubAgent(c.main, bad), undefined, JSON.stringify(bad));
    }
  });
});
