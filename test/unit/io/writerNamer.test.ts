/**
 * The live hosts name the writer of a stale write that another of the workspace's transcripts
 * records (WriterNamer in LiveMonitor): real folders, real chokidar, real appends.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { ClaudeTranscript } from '../support/claude';
import { LiveEnv } from '../support/liveEnv';
import { waitFor } from '../support/wait';

let env: LiveEnv;
afterEach(async () => {
  await env?.dispose();
});

const named = /Another transcript checked with this one records a write of that file in between: session sess-b, its Edit at 14:00:04 UTC \(line 2 of sess-b\.jsonl\)\.$/;

/** A reads a.txt (14:00:03), B edits its line 2 (result 14:00:04), A edits line 1 on top (14:00:05). */
function sessions(ws: string): { a: ClaudeTranscript; b: ClaudeTranscript; target: string } {
  const target = path.join(ws, 'a.txt');
  const a = new ClaudeTranscript('sess-a', ws).user('go').read('m1', 'toolu_AR', target, 'x\ny\n').edit('m2', 'toolu_AE', target, 'x\nY\n', 'x', 'X');
  const b = new ClaudeTranscript('sess-b', ws).at(Date.parse('2026-02-12T14:00:02.000Z')).user('go').edit('n1', 'toolu_BE', target, 'x\ny\n', 'y', 'Y');
  return { a, b, target };
}

void describe('WriterNamer: the live monitor names the other session that wrote in between', () => {
  void test('sessions found at start-up: the stale write found there ends up naming the other session, and a re-read keeps it named', async () => {
    env = new LiveEnv();
    const { a, b } = sessions(env.workspace);
    mkdirSync(env.projectDir, { recursive: true });
    const fa = path.join(env.projectDir, 'sess-a.jsonl');
    writeFileSync(fa, a.text());
    writeFileSync(path.join(env.projectDir, 'sess-b.jsonl'), b.text());
    const updated: string[] = [];
    await env.start({ namingDelayMs: 50 });
    env.monitor!.findings.onDidChange((c) => updated.push(...c.updated.map((f) => f.message)));
    await env.monitor!.idle();
    const stale = env.monitor!.findings.forFile(fa).filter((f) => f.rule === 'stale-write');
    assert.equal(stale.length, 1);
    assert.match(stale[0]!.message, named);
    assert.equal(stale[0]!.changedBetween, undefined, 'named: no longer open');
    assert.equal(stale[0]!.related.at(-1)!.file, path.join(env.projectDir, 'sess-b.jsonl'));
    // One finding all along: announced once, then updated with the name.
    assert.equal(env.announced.filter((f) => f.rule === 'stale-write').length, 1);

    await env.monitor!.recheck();
    const again = env.monitor!.findings.forFile(fa).filter((f) => f.rule === 'stale-write');
    assert.equal(again.length, 1);
    assert.match(again[0]!.message, named, 'named again after the re-read');
    assert.ok(env.removed.every((f) => f.rule !== 'stale-write'), 'never removed');
  });

  void test('written as the sessions run: the stale write is named once the other session wrote it', async () => {
    env = new LiveEnv();
    const { a, b } = sessions(env.workspace);
    mkdirSync(env.projectDir, { recursive: true });
    const fa = path.join(env.projectDir, 'sess-a.jsonl');
    const fb = path.join(env.projectDir, 'sess-b.jsonl');
    await env.start({ namingDelayMs: 50 });
    // B's edit lands first, then A's transcript (its read and the edit on top).
    appendFileSync(fb, b.text());
    await waitFor(() => (env.monitor!.session(fb)?.bytes ?? 0) >= Buffer.byteLength(b.text()), 15_000, "B's transcript read");
    appendFileSync(fa, a.text());
    await waitFor(() => env.monitor!.findings.forFile(fa).some((f) => f.rule === 'stale-write' && named.test(f.message)), 15_000, 'the stale write, named');
  });

  void test('a session alone in its workspace: the stale write names no one', async () => {
    env = new LiveEnv();
    const { a } = sessions(env.workspace);
    mkdirSync(env.projectDir, { recursive: true });
    const fa = path.join(env.projectDir, 'sess-a.jsonl');
    writeFileSync(fa, a.text());
    await env.start({ namingDelayMs: 50 });
    await env.monitor!.idle();
    const stale = env.monitor!.findings.forFile(fa).filter((f) => f.rule === 'stale-write');
    assert.equal(stale.length, 1);
    assert.doesNotMatch(stale[0]!.message, /Another transcript/);
    assert.ok(stale[0]!.changedBetween, 'still open: a writer may yet show up');
  });
});
