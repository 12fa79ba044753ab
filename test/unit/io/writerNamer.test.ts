/**
 * The live hosts name the writer of a stale write that another of the workspace's transcripts
 * records (WriterNamer in LiveMonitor): real folders, real chokidar, real appends.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { Emitter } from '../../../src/core/lib/event';
import type { Finding } from '../../../src/core/model/finding';
import { adapters } from '../../../src/core/parse/registry';
import { FindingStore } from '../../../src/io/findingStore';
import { WriterNamer } from '../../../src/io/writersAcross';
import { ClaudeTranscript } from '../support/claude';
import { LiveEnv } from '../support/liveEnv';
import { sleep, waitFor } from '../support/wait';

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

  void test('the other transcript turns up after the stale write was looked up: its writer is named then', async () => {
    env = new LiveEnv();
    const { a, b } = sessions(env.workspace);
    mkdirSync(env.projectDir, { recursive: true });
    const fa = path.join(env.projectDir, 'sess-a.jsonl');
    const fb = path.join(env.projectDir, 'sess-b.jsonl');
    writeFileSync(fa, a.text());
    await env.start({ namingDelayMs: 50 });
    await env.monitor!.idle();
    const first = env.monitor!.findings.forFile(fa).filter((f) => f.rule === 'stale-write');
    assert.equal(first.length, 1);
    assert.ok(first[0]!.changedBetween, 'looked up alone: unnamed');
    // B's transcript is known only now (copied in, its folder found late), its edit long done.
    writeFileSync(fb, b.text());
    await waitFor(() => env.monitor!.findings.forFile(fa).some((f) => f.rule === 'stale-write' && named.test(f.message)), 15_000, 'the stale write, named');
    await env.monitor!.idle();
    const stale = env.monitor!.findings.forFile(fa).filter((f) => f.rule === 'stale-write');
    assert.equal(stale.length, 1);
    assert.equal(stale[0]!.related.at(-1)!.file, fb);
    assert.equal(env.announced.filter((f) => f.rule === 'stale-write').length, 1, 'updated in place, not announced again');
  });

  void test('a stale write no transcript names is looked up again once per transcript that appears, not at each append', async () => {
    env = new LiveEnv();
    const { a, target } = sessions(env.workspace);
    const other = path.join(env.workspace, 'b.txt');
    // C reads a.txt in the window and writes another file: it names no one.
    const c = new ClaudeTranscript('sess-c', env.workspace).at(Date.parse('2026-02-12T14:00:02.000Z')).user('go').read('n1', 'toolu_CR', target, 'x\ny\n');
    c.write('n2', 'toolu_CW', other, 'b\n', null);
    mkdirSync(env.projectDir, { recursive: true });
    const fa = path.join(env.projectDir, 'sess-a.jsonl');
    const fc = path.join(env.projectDir, 'sess-c.jsonl');
    writeFileSync(fa, a.text());
    const lookups: string[] = [];
    const log = (m: string | Error): void => {
      if (String(m).startsWith('[writers] looking up')) {
        lookups.push(String(m));
      }
    };
    await env.start({ namingDelayMs: 20, logger: { trace: () => {}, debug: log, info: () => {}, warn: () => {}, error: () => {} } });
    await env.monitor!.idle();
    assert.equal(lookups.length, 1, 'looked up once, alone');

    writeFileSync(fc, c.text());
    await waitFor(() => lookups.length >= 2, 15_000, 'a second lookup, with C');
    await env.monitor!.idle();
    assert.match(lookups[1]!, /in 2 transcript/);

    // Both sessions go on, C writing again: nothing that could name the change A's write shows.
    const appendNew = (t: ClaudeTranscript, file: string, more: (t: ClaudeTranscript) => void): void => {
      const from = t.lines.length;
      more(t);
      appendFileSync(file, t.lines.slice(from).map((l) => l + '\n').join(''));
    };
    for (let i = 0; i < 3; i++) {
      appendNew(c, fc, (t) => t.user(`more ${i}`));
      appendNew(a, fa, (t) => t.user(`more ${i}`));
      await waitFor(() => env.monitor!.lastLine(fc) === c.lines.length && env.monitor!.lastLine(fa) === a.lines.length, 15_000, 'the appends read');
    }
    appendNew(c, fc, (t) => t.write('n3', 'toolu_CW2', other, 'c\n', 'b\n'));
    await waitFor(() => env.monitor!.lastLine(fc) === c.lines.length, 15_000, "C's write read");
    await sleep(200);
    await env.monitor!.idle();
    assert.equal(lookups.length, 2, `no lookup after the appends: ${lookups.join('; ')}`);
    const stale = env.monitor!.findings.forFile(fa).filter((f) => f.rule === 'stale-write');
    assert.equal(stale.length, 1);
    assert.doesNotMatch(stale[0]!.message, /Another transcript/);
    assert.ok(stale[0]!.changedBetween, 'still open');
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

void describe('WriterNamer: the stale writes it left unnamed', () => {
  void test('the newest 256 are kept to look up again, less those the store dropped or that changed', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'ag-namer-'));
    const store = new FindingStore();
    const transcriptsChanged = new Emitter<{ file: string } | undefined>();
    const fa = path.join(root, 'sess-a.jsonl');
    const fc = path.join(root, 'sess-c.jsonl');
    const { a } = sessions(root);
    writeFileSync(fa, a.text());
    const known = [{ file: fa, session: 'sess-a', cwd: root }];
    const lookups: number[] = [];
    const namer = new WriterNamer({
      store,
      adapters,
      transcripts: () => known,
      busy: () => false,
      onDidChangeTranscripts: transcriptsChanged.event,
      delayMs: 5,
      logger: {
        trace: () => {},
        debug: (m) => {
          const n = /looking up the writers of (\d+)/.exec(String(m));
          if (n) {
            lookups.push(Number(n[1]));
          }
        },
        info: () => {},
        warn: () => {},
        error: () => {},
      },
    });
    try {
      const open = (i: number): Finding => ({
        id: `stale-write:${fa}:${i}`,
        rule: 'stale-write',
        severity: 'warning',
        file: fa,
        line: 5,
        column: 1,
        endLine: 5,
        endColumn: 2,
        message: `stale ${i}`,
        agent: 'claude-code',
        session: 'sess-a',
        related: [],
        subject: { path: path.join(root, `f${i}.txt`) },
        changedBetween: { seenLine: 3, writeLine: 5 },
      });
      for (let i = 0; i < 300; i++) {
        store.add(open(i));
      }
      await namer.idle();
      assert.deepEqual(lookups, [300], 'looked up alone: none named');

      // Kept: 44..299. Two of them go, one is named by the working tree meanwhile.
      store.retract(open(299).id);
      store.retract(open(298).id);
      store.add({ ...open(297), message: 'stale 297 (changed by you at 14:00:04)', changedBetween: undefined });
      writeFileSync(fc, new ClaudeTranscript('sess-c', root).user('go').text());
      known.push({ file: fc, session: 'sess-c', cwd: root });
      transcriptsChanged.fire({ file: fc });
      await namer.idle();
      assert.deepEqual(lookups, [300, 253], 'a transcript appeared: the kept ones looked up again');

      // Known now: its growth, or a transcript going, looks up nothing again.
      transcriptsChanged.fire({ file: fc });
      transcriptsChanged.fire(undefined);
      await namer.idle();
      assert.deepEqual(lookups, [300, 253]);
    } finally {
      namer.dispose();
      store.dispose();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
