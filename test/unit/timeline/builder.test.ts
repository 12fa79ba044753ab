/** The timeline model: rows, lanes, statuses, edges and findings, from real pipeline events. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { NormalizedEvent } from '../../../src/core/model/events';
import type { Finding } from '../../../src/core/model/finding';
import { sessionTitle, tabTitle } from '../../../src/core/model/sessionTitle';
import { relativeTo, TimelineBuilder } from '../../../src/core/timeline/builder';
import type { BatchRow, ResultsRow, TimelineLane, TimelineRow } from '../../../src/core/timeline/model';
import { hostMessageSchema, rowSchema, webviewMessageSchema } from '../../../src/protocol/timeline';
import { ClaudeTranscript } from '../support/claude';
import { CodexRollout } from '../support/codex';
import { repoRoot } from '../support/repo';
import { run } from '../support/run';

const A = 'toolu_01AAAAAAAAAAAAAAAAAAAAAA';
const B = 'toolu_01BBBBBBBBBBBBBBBBBBBBBB';
const C = 'toolu_01CCCCCCCCCCCCCCCCCCCCCC';
const cwd = '/home/dev/proj';
const f = `${cwd}/src/app.ts`;
const v1 = 'one\ntwo\nthree\nfour\nfive\n';
const cc = (): ClaudeTranscript => new ClaudeTranscript().user('go');

function build(text: string): { b: TimelineBuilder; findings: Finding[]; events: NormalizedEvent[] } {
  const { events, findings } = run(text);
  const b = new TimelineBuilder();
  for (const e of events) {
    b.add(e);
  }
  return { b, findings, events };
}

/** Every lane of every row, with where it sits. */
function lanes(b: TimelineBuilder): { row: number; lane: number; kind: TimelineRow['kind']; l: TimelineLane }[] {
  return b.rows().flatMap((r, row) => (r.kind === 'batch' || r.kind === 'results' ? r.lanes.map((l, lane) => ({ row, lane, kind: r.kind, l })) : []));
}

function shape(b: TimelineBuilder): string[] {
  return b.rows().map((r) => {
    switch (r.kind) {
      case 'batch':
      case 'results':
        return `${r.kind}[${r.lanes.map((l) => `${l.tool}:${l.status}`).join(',')}]`;
      case 'text':
        return `text:${r.role}`;
      default:
        return r.kind;
    }
  });
}

void describe('TimelineBuilder', () => {
  void it('a parallel batch is one row with a lane per call, paths relative to the cwd', () => {
    const t = cc()
      .call('m1', A, 'Read', { file_path: f })
      .call('m1', B, 'Bash', { command: 'npm test' })
      .readResult(A, f, v1)
      .result(B, 'ok')
      .say('m2', 'done');
    const { b } = build(t.text());
    assert.deepEqual(shape(b), ['prompt', 'batch[Read:ok,Bash:ok]', 'text:assistant']);
    const batch = b.row(1) as BatchRow;
    assert.equal(batch.lanes[0]!.path, 'src/app.ts');
    assert.equal(batch.lanes[0]!.line, t.lineOf(`"id":"${A}"`));
    assert.deepEqual(batch.lanes[0]!.results, [t.lineOf(`"tool_use_id":"${A}"`)]);
    assert.equal(batch.lanes[1]!.path, undefined);
    assert.equal(b.header.sessionId, t.sessionId);
    assert.equal(b.header.cwd, cwd);
    assert.equal(b.header.stats.calls, 2);
    assert.equal(b.header.stats.turns, 1);
  });

  void it('streamed blocks (a result before the next block of the same message) stay one batch, in place', () => {
    const t = cc().call('m1', A, 'Read', { file_path: f }).result(A, 'a').call('m1', B, 'Bash', { command: 'pwd' }).result(B, 'b').say('m2', 'ok');
    const { b, findings } = build(t.text());
    assert.deepEqual(shape(b), ['prompt', 'batch[Read:ok,Bash:ok]', 'text:assistant']);
    assert.deepEqual(findings, []);
  });

  void it('text typed while the tools ran, delivered with a result, leaves the other result in place', () => {
    const t = cc()
      .call('m1', A, 'Bash', { command: 'ls' })
      .call('m1', B, 'Bash', { command: 'git status' })
      .resultWithText(A, 'a', 'and the timestamps?')
      .result(B, 'b')
      .say('m2', 'ok');
    const { b, findings } = build(t.text());
    assert.deepEqual(shape(b), ['prompt', 'batch[Bash:ok,Bash:ok]', 'text:user', 'text:assistant']);
    assert.deepEqual(findings, []);
  });

  void it('a prompt typed while a call ran (hung from its progress output) leaves its result in place', () => {
    const t = cc().call('m1', A, 'Bash', { command: 'npm test' }).bashProgress(A).user('are you stuck?').bashProgress(A).linkedResult(A, 'ok').say('m2', 'passed');
    const { b, findings } = build(t.text());
    assert.deepEqual(shape(b), ['prompt', 'batch[Bash:ok]', 'prompt', 'text:assistant']);
    assert.deepEqual(findings, []);
    // The same prompt without the progress line before it: Claude Code 2.0.19 and later sends it
    // after the result, in one message, so the result is in place; 2.0.15 and before sent the
    // text first, and the result is late.
    const plain = (version: string): ClaudeTranscript =>
      new ClaudeTranscript().as(version).user('go').call('m1', A, 'Bash', { command: 'npm test' }).user('are you stuck?').linkedResult(A, 'ok').say('m2', 'passed');
    assert.deepEqual(shape(build(plain('2.1.39').text()).b), ['prompt', 'batch[Bash:ok]', 'prompt', 'text:assistant']);
    assert.deepEqual(shape(build(plain('2.0.14').text()).b), ['prompt', 'batch[Bash:late]', 'prompt', 'results[Bash:late]', 'text:assistant']);
  });

  void it('a late result: the call lane says late, a result lane where it landed, an edge back to the call', () => {
    const t = cc().call('m1', A, 'Bash', { command: 'ls' }).say('m2', 'moving on').result(A, 'late');
    const { b, findings } = build(t.text());
    assert.deepEqual(shape(b), ['prompt', 'batch[Bash:late]', 'text:assistant', 'results[Bash:late]']);
    const stray = (b.row(3) as ResultsRow).lanes[0]!;
    assert.equal(stray.kind, 'result');
    assert.equal(stray.line, t.lineOf(`"tool_use_id":"${A}"`));
    assert.equal(stray.callLine, t.lineOf(`"id":"${A}"`));
    assert.deepEqual(b.edges, [{ kind: 'late', from: { row: 3, lane: 0 }, to: { row: 1, lane: 0 } }]);
    // The findings land on the elements: missing-result on the call, misplaced-result on the result.
    const placed = b.attach(findings);
    assert.deepEqual(
      placed.map((p) => [p.rule, p.row, p.lane]),
      [
        ['missing-result', 1, 0],
        ['misplaced-result', 3, 0],
      ],
    );
  });

  void it('late statuses agree with misplaced-result (after text, across a reset)', () => {
    for (const t of [
      new ClaudeTranscript().as('2.0.14').user('go').call('m1', A, 'Bash', { command: 'ls' }).user('hurry up').result(A, 'late'),
      cc().call('m1', A, 'Bash', { command: 'ls' }).user('hurry up').result(A, 'in place'),
      cc().call('m1', A, 'Bash', { command: 'ls' }).compact().user('continue').result(A, 'late'),
      cc().call('m1', A, 'Bash', { command: 'ls' }).say('m2', 'on').result(A, 'x').call('m3', B, 'Bash', { command: 'ls' }).result(B, 'y'),
    ]) {
      const { b, findings } = build(t.text());
      const late = lanes(b)
        .filter((x) => x.l.kind === 'result' && x.l.status === 'late')
        .map((x) => x.l.line);
      assert.deepEqual(
        late,
        findings.filter((x) => x.rule === 'misplaced-result').map((x) => x.line),
        shape(b).join(' '),
      );
    }
  });

  void it('a duplicate result: the call lane says duplicate, with a result lane and an edge', () => {
    const t = cc().call('m1', A, 'Bash', { command: 'ls' }).result(A, 'a').result(A, 'a');
    const { b, findings } = build(t.text());
    assert.deepEqual(shape(b), ['prompt', 'batch[Bash:duplicate]', 'results[Bash:duplicate]']);
    assert.deepEqual((b.row(1) as BatchRow).lanes[0]!.results, [3, 4]);
    assert.deepEqual(b.edges, [{ kind: 'duplicate', from: { row: 2, lane: 0 }, to: { row: 1, lane: 0 } }]);
    assert.deepEqual(
      b.attach(findings).map((p) => [p.rule, p.row, p.lane]),
      [['duplicate-result', 2, 0]],
    );
  });

  void it('a reused call id: the second call lane says duplicate', () => {
    const t = cc().call('m1', A, 'Bash', { command: 'ls' }).result(A, 'a').call('m2', A, 'Bash', { command: 'ls' }).result(A, 'a');
    const { b, findings } = build(t.text());
    assert.deepEqual(shape(b), ['prompt', 'batch[Bash:ok]', 'batch[Bash:duplicate]']);
    assert.deepEqual(
      b.attach(findings).map((p) => [p.rule, p.row, p.lane]),
      [['duplicate-call-id', 2, 0]],
    );
  });

  void it('a missing result: pending until the conversation moves on, then missing', () => {
    const t = cc().call('m1', A, 'Bash', { command: 'ls' }).call('m1', B, 'Read', { file_path: f }).result(A, 'ok');
    const { b } = build(t.text());
    assert.deepEqual(shape(b), ['prompt', 'batch[Bash:ok,Read:pending]']);
    b.markSent();
    const more = run(t.say('m2', 'moving on').text()).events.slice(-1);
    b.add(more[0]!);
    assert.deepEqual(shape(b), ['prompt', 'batch[Bash:ok,Read:missing]', 'text:assistant']);
    // The batch row changed after it was sent: the delta carries it, and the new row.
    const delta = b.takeDelta();
    assert.ok(delta);
    assert.deepEqual(
      delta.rows.map((r) => r.index),
      [1, 2],
    );
    assert.equal(b.takeDelta(), undefined);
  });

  void it('a missing result reported by the rule sits on the call lane', () => {
    const t = cc().call('m1', A, 'Bash', { command: 'ls' }).say('m2', 'moving on');
    const { b, findings } = build(t.text());
    assert.deepEqual(shape(b), ['prompt', 'batch[Bash:missing]', 'text:assistant']);
    assert.deepEqual(
      b.attach(findings).map((p) => [p.rule, p.row, p.lane]),
      [['missing-result', 1, 0]],
    );
  });

  void it('a stale write: the finding on the write lane, a happens-before edge from the read', () => {
    // Line 5 changed behind the session; the edit (of line 2) was applied on top of it.
    const changed = 'one\ntwo\nthree\nfour\nFIVE!\n';
    const t = cc().read('m1', A, f, v1).edit('m2', B, f, changed, 'two', '2').say('m3', 'done');
    const { b, findings } = build(t.text());
    assert.deepEqual(shape(b), ['prompt', 'batch[Read:ok]', 'batch[Edit:ok]', 'text:assistant']);
    assert.deepEqual(b.edges, [{ kind: 'hb', from: { row: 1, lane: 0 }, to: { row: 2, lane: 0 } }]);
    const stale = b.attach(findings).filter((p) => p.rule === 'stale-write');
    assert.equal(stale.length, 1);
    assert.deepEqual([stale[0]!.row, stale[0]!.lane], [2, 0]);
  });

  void it('happens-before: no edge inside a parallel batch (the read had not returned); only the read that gated the write', () => {
    const race = cc()
      .call('m1', A, 'Read', { file_path: f })
      .call('m1', B, 'Edit', { file_path: f, old_string: 'two', new_string: '2' })
      .readResult(A, f, v1)
      .editResult(B, f, v1, 'two', '2');
    assert.deepEqual(build(race.text()).b.edges, []);
    // read, edit, edit: the second edit is based on the session's own write, not the read.
    const chain = cc().read('m1', A, f, v1).edit('m2', B, f, v1, 'two', '2').edit('m3', C, f, v1.replace('two', '2'), 'four', '4');
    assert.deepEqual(build(chain.text()).b.edges, [{ kind: 'hb', from: { row: 1, lane: 0 }, to: { row: 2, lane: 0 } }]);
  });

  void it('compaction: a reset row is a turn boundary; unanswered calls of the old history are missing', () => {
    const t = cc().call('m1', A, 'Bash', { command: 'sleep 9' }).compact().user('continue').say('m2', 'ok');
    const { b } = build(t.text());
    assert.deepEqual(shape(b), ['prompt', 'batch[Bash:missing]', 'reset', 'prompt', 'text:assistant']);
    assert.deepEqual(
      b.rows().map((r) => r.turn),
      [1, 1, 2, 3, 3],
    );
    const reset = b.row(2)!;
    assert.equal(reset.kind === 'reset' && reset.reason, 'compaction');
  });

  void it('Codex: calls without message keys batch by role; an aborted turn makes its calls missing', () => {
    const t = new CodexRollout().user('go').shell('c1', 'ls').shell('c2', 'pwd').output('c1', 'a').output('c2', 'b').shell('c3', 'sleep 5').event('turn_aborted');
    const { b } = build(t.text());
    assert.deepEqual(shape(b), ['prompt', 'batch[shell:ok,shell:ok]', 'batch[shell:missing]', 'note']);
  });

  void it('an orphan result and a malformed line', () => {
    const t = cc().result(A, 'x').raw('{not json');
    const { b, findings } = build(t.text());
    assert.deepEqual(shape(b), ['prompt', 'results[unknown tool:orphan]', 'note']);
    assert.deepEqual(
      b.attach(findings).map((p) => [p.rule, p.row]),
      [
        ['orphan-result', 1],
        ['unparseable-line', 2],
      ],
    );
  });

  void it('incremental: feeding events one at a time and applying deltas gives the same rows as one pass', () => {
    const t = cc()
      .call('m1', A, 'Read', { file_path: f })
      .call('m1', B, 'Bash', { command: 'ls' })
      .readResult(A, f, v1)
      .say('m2', 'on')
      .result(B, 'late')
      .edit('m3', C, f, v1, 'two', '2')
      .compact()
      .user('again');
    const { events, b: whole } = build(t.text());
    const b = new TimelineBuilder();
    const mirror: TimelineRow[] = [];
    const edges: unknown[] = [];
    for (const e of events) {
      b.add(e);
      const d = b.takeDelta();
      for (const { index, row } of d?.rows ?? []) {
        mirror[index] = structuredClone(row);
      }
      edges.push(...(d?.edges ?? []));
      assert.equal(mirror.length, d?.total ?? mirror.length);
    }
    assert.deepEqual(mirror, whole.rows());
    assert.deepEqual(edges, whole.edges);
  });

  void it('every row fits the protocol schema; the messages validate', () => {
    const t = cc().read('m1', A, f, v1).call('m2', B, 'Bash', { command: 'ls' }).say('m3', 'x').result(B, 'late').result(B, 'dup').compact().raw('{oops');
    const { b, findings } = build(t.text());
    for (const r of b.rows()) {
      assert.ok(rowSchema.safeParse(r).success, JSON.stringify(r));
    }
    const init = {
      type: 'init',
      path: '/home/dev/.claude/projects/-home-dev-proj/x.jsonl',
      header: { ...b.header, file: 'x.jsonl', live: true },
      total: b.total,
      from: 0,
      rows: b.rows(),
      edges: b.edges,
      findings: b.attach(findings),
    };
    assert.ok(hostMessageSchema.safeParse(init).success);
    assert.ok(webviewMessageSchema.safeParse({ type: 'open', line: 3 }).success);
    assert.ok(!webviewMessageSchema.safeParse({ type: 'open', line: 0 }).success);
    assert.ok(!webviewMessageSchema.safeParse({ type: 'open', line: '3' }).success);
    assert.ok(!webviewMessageSchema.safeParse({ type: 'requestRows', from: 10, to: 5 }).success);
    assert.ok(!webviewMessageSchema.safeParse({ type: 'requestRows', from: 0, to: 1e6 }).success);
    assert.ok(!webviewMessageSchema.safeParse({ type: 'eval', code: 'x' }).success);
  });

  void it('a call id and a finding longer than the protocol carries still make valid messages (the webview drops an invalid one whole)', () => {
    // Transcript text is unbounded: one id of 10,000 characters, in a lane, a finding's id and its
    // message, left the timeline blank ("Reading the session…"), every message failing validation.
    const long = `toolu_${'x'.repeat(10_000)}`;
    const t = cc().call('m1', long, 'Bash', { command: 'ls' }).say('m2', 'moved on').call('m3', long, 'Bash', { command: 'ls' }).result(long, 'ok');
    const { b, findings } = build(t.text());
    assert.ok(findings.some((x) => x.callId === long && x.message.length > 8_000), findings.map((x) => `${x.rule} ${x.message.length}`).join(', '));
    const placed = b.attach(findings);
    assert.ok(placed.some((x) => x.row !== undefined));
    const init = { type: 'init', path: '/tmp/session.jsonl', header: { ...b.header, file: 'session.jsonl', live: true }, total: b.total, from: 0, rows: b.rows(), edges: b.edges, findings: placed };
    const parsed = hostMessageSchema.safeParse(init);
    assert.ok(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues.map((i) => i.path)));
  });

  void it('a session over the protocol\'s bounds still makes valid messages, and says what it left out', () => {
    // 10,001 results for one call, and a message of 10,001 parallel calls: every message over the
    // protocol's bounds (10,000 result lines a lane, 10,000 lanes a row) was dropped whole by the
    // webview, and the timeline stayed blank.
    const t = cc().call('m1', A, 'Bash', { command: 'ls' });
    for (let i = 0; i < 10_001; i++) {
      t.result(A, `answer ${i}`);
    }
    t.say('m2', 'many at once');
    for (let i = 0; i < 10_001; i++) {
      t.call('m3', `toolu_P${String(i).padStart(6, '0')}`, 'Bash', { command: `echo ${i}` });
    }
    const { b, findings } = build(t.text());
    const init = (fs: ReturnType<TimelineBuilder['attachBounded']>) => ({
      type: 'init',
      path: '/tmp/session.jsonl',
      header: { ...b.header, file: 'session.jsonl', live: true },
      total: b.total,
      from: 0,
      rows: b.rows(),
      edges: b.edges,
      findings: fs.findings,
      ...(fs.leftOut > 0 ? { findingsLeftOut: fs.leftOut } : {}),
    });
    const parsed = hostMessageSchema.safeParse(init(b.attachBounded(findings)));
    assert.ok(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues.slice(0, 3)));
    // Shown: the call with its first results listed and the rest counted; every parallel call, over rows of at most a hundred lanes.
    const answered = lanes(b).find((x) => x.l.callId === A)!.l;
    assert.equal(answered.status, 'duplicate');
    assert.equal(answered.results.length + (answered.moreResults ?? 0), 10_001);
    assert.ok(answered.results.length <= 10_000);
    const parallel = b.rows().filter((r): r is BatchRow => r.kind === 'batch' && r.lanes.some((l) => l.callId.startsWith('toolu_P')));
    assert.deepEqual(parallel.map((r) => r.lanes.length).reduce((x, y) => x + y, 0), 10_001);
    // At most a hundred lanes a row, for the results too: a row of 10,000 lanes is two million
    // pixels wide, every lane and arrow of it in the DOM, and left the window unresponsive.
    assert.ok(parallel.every((r) => r.lanes.length <= 100), `parallel rows of ${parallel.map((r) => r.lanes.length).join(', ')} lanes`);
    const results = b.rows().filter((r): r is ResultsRow => r.kind === 'results');
    assert.equal(results.map((r) => r.lanes.length).reduce((x, y) => x + y, 0), 10_000, 'every duplicate result has its lane');
    assert.ok(results.every((r) => r.lanes.length <= 100), `results rows of up to ${Math.max(...results.map((r) => r.lanes.length))} lanes`);
    // 100,001 findings: the most severe 100,000 are shown, and the one left out is counted.
    const many: Finding[] = [];
    for (let i = 0; i <= 100_000; i++) {
      const severity = i === 0 ? 'info' : i % 2 === 0 ? 'error' : 'warning';
      many.push({ ...findings[0]!, id: `x|${i}`, severity, line: 1 + (i % b.lastLine) });
    }
    const bounded = b.attachBounded(many);
    assert.equal(bounded.leftOut, 1);
    assert.ok(!bounded.findings.some((x) => x.severity === 'info'), 'the least severe is the one left out');
    const withMany = hostMessageSchema.safeParse(init(bounded));
    assert.ok(withMany.success && withMany.data.type === 'init' && withMany.data.findingsLeftOut === 1);
  });

  void it('10,000 events: builds in linear work, compact, and locates every call line', () => {
    const t = new ClaudeTranscript();
    let n = 0;
    for (let turn = 0; t.lines.length < 10_000; turn++) {
      t.user(`prompt ${turn}`);
      const ids = [0, 1, 2].map(() => `toolu_${String(++n).padStart(8, '0')}`);
      t.call(`m${turn}a`, ids[0]!, 'Read', { file_path: `${cwd}/src/f${turn % 50}.ts` });
      t.call(`m${turn}a`, ids[1]!, 'Bash', { command: 'ls' });
      t.call(`m${turn}a`, ids[2]!, 'Grep', { pattern: 'x' });
      t.readResult(ids[0]!, `${cwd}/src/f${turn % 50}.ts`, 'a\nb\n');
      t.result(ids[1]!, 'ok');
      if (turn % 10 === 0) {
        t.say(`m${turn}b`, 'moving on');
      }
      t.result(ids[2]!, 'ok');
      t.edit(`m${turn}c`, `toolu_e${turn}`, `${cwd}/src/f${turn % 50}.ts`, 'a\nb\n', 'a', 'A');
      t.say(`m${turn}d`, 'done');
    }
    const { events, findings } = run(t.text());
    assert.ok(events.length >= 10_000, `${events.length} events`);
    const build = (count: number): { b: TimelineBuilder; placed: ReturnType<TimelineBuilder['attach']>; ms: number } => {
      const started = performance.now();
      const b = new TimelineBuilder();
      for (let i = 0; i < count; i++) {
        b.add(events[i]!);
      }
      const placed = b.attach(findings);
      return { b, placed, ms: performance.now() - started };
    };
    // Work, not wall-clock time (this machine's speed is not the builder's): a tenth of the
    // events and all of them, best of seven each, interleaved, after two builds that let the JIT
    // settle. Linear work is about 10x; a builder that looks back over the rows it has for each
    // event is about 100x. (Timings of a few milliseconds swing by 2-3x here, hence the margin.)
    build(events.length);
    build(events.length);
    const tenth: number[] = [];
    const whole: number[] = [];
    for (let round = 0; round < 7; round++) {
      tenth.push(build(Math.floor(events.length / 10)).ms);
      whole.push(build(events.length).ms);
    }
    const ratio = Math.min(...whole) / Math.min(...tenth);
    assert.ok(ratio < 40, `all the events took ${ratio.toFixed(1)}x as long as a tenth of them (${Math.min(...whole).toFixed(1)} ms)`);
    const { b, placed } = build(events.length);
    assert.ok(b.total < events.length / 2, `${b.total} rows for ${events.length} events`);
    assert.ok(placed.every((p) => p.row !== undefined));
    const late = lanes(b).filter((x) => x.l.kind === 'result' && x.l.status === 'late');
    assert.equal(late.length, findings.filter((x) => x.rule === 'misplaced-result').length);
    assert.ok(late.length > 0);
    assert.equal(b.edges.filter((e) => e.kind === 'hb').length, lanes(b).filter((x) => x.l.tool === 'Edit').length);
    for (const x of lanes(b).filter((l) => l.kind === 'batch')) {
      assert.deepEqual(b.locate(x.l.line, x.l.callId), { row: x.row, lane: x.lane });
    }
  });
});

void describe('relativeTo', () => {
  void it('shortens paths inside the dir only', () => {
    assert.equal(relativeTo('/a/b/c.ts', '/a/b'), 'c.ts');
    assert.equal(relativeTo('/a/b/c.ts', '/a/b/'), 'c.ts');
    assert.equal(relativeTo('/a/bc/d.ts', '/a/b'), '/a/bc/d.ts');
    assert.equal(relativeTo('/a/b', '/a/b'), '.');
    assert.equal(relativeTo('C:\\w\\x.ts', 'C:\\w'), 'x.ts');
    assert.equal(relativeTo('javascript:alert(1)', '/a/b'), 'javascript:alert(1)');
  });
});

void describe('the session title', () => {
  void it('the timeline names a session as the sessions view does: its title, else its first prompt, else its id', () => {
    const { b } = build(new ClaudeTranscript('d4e5f6a7-0000-4000-8000-000000000004', cwd).user('Refactor the app\n\nand run the tests').user('and then this').say('m1', 'ok').text());
    assert.equal(b.header.firstPrompt, 'Refactor the app and run the tests', 'the first prompt, not a later one');
    assert.equal(sessionTitle(b.header), 'Refactor the app and run the tests');
    assert.equal(sessionTitle({ title: 'Fix the flaky test', firstPrompt: 'hi', sessionId: 'abc' }), 'Fix the flaky test');
    assert.equal(sessionTitle({ title: '  ', firstPrompt: undefined, sessionId: 'abc' }), 'abc');
    assert.equal(sessionTitle({}), undefined);
  });

  void it('an editor tab gets a short title on one line', () => {
    assert.equal(tabTitle('Refactor the app and run the tests'), 'Refactor the app and run the tests');
    assert.equal(tabTitle('Refactor the whole application, then run every single test we have'), 'Refactor the whole application, then ru…');
    assert.equal(tabTitle('Refactor the whole application, then run every single test we have').length, 40);
    assert.equal(tabTitle('two\nlines'), 'two lines');
  });
});

void describe('Gemini CLI 0.61 sessions (test/fixtures/generated/gemini-0.61)', () => {
  const chats = (scenario: string): string => {
    const dir = path.join(repoRoot(), 'test', 'fixtures', 'generated', 'gemini-0.61', scenario, '.gemini', 'tmp', 'proj', 'chats');
    const name = readdirSync(dir).find((n) => n.startsWith('session-') && n.endsWith('.jsonl'));
    assert.ok(name, dir);
    return path.join(dir, name);
  };
  const timeline = (file: string): TimelineBuilder => {
    const { events } = run(readFileSync(file), { file });
    const b = new TimelineBuilder();
    for (const e of events) {
      b.add(e);
    }
    return b;
  };
  const prompts = (b: TimelineBuilder): string[] => b.rows().flatMap((r) => (r.kind === 'prompt' ? [r.text] : []));

  void it('are named by the person’s first prompt, not by the <session_context> Gemini CLI opens them with', () => {
    const b = timeline(chats('healthy'));
    assert.equal(b.header.firstPrompt, 'Make the port 8080');
    assert.deepEqual(prompts(b), ['Make the port 8080']);
  });

  void it('open with their first turn, not with a history reset: the checkpoint of their first messages resets nothing', () => {
    const b = timeline(chats('healthy'));
    assert.notEqual(b.row(0)?.kind, 'reset');
    assert.deepEqual(b.rows().filter((r) => r.kind === 'prompt').map((r) => r.turn), [1]);
    assert.equal(b.header.stats.turns, 1);
    // A checkpoint later on is one (the history compressed).
    assert.ok(timeline(chats('resumed-compressed')).rows().some((r, i) => i > 0 && r.kind === 'reset'));
    // Compressed and resumed, it sends its context again, and the summary of the history: no
    // prompt of the person's either.
    assert.deepEqual(prompts(timeline(chats('resumed-compressed'))), ['Read app.ts', 'Read app.ts', 'Now make the port 8080', 'Now make the port 8080']);
  });
});
