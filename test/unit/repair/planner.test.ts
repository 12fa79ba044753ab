/**
 * Repair round-trips: for every broken case, plan → apply → the pairing rules `check` runs
 * report nothing; the parent chain of Claude Code entries stays whole; repairing the result
 * again changes nothing. Real fixtures give an empty plan.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { AgentGuardError } from '../../../src/core/lib/errors';
import { planRepair } from '../../../src/core/repair/planner';
import { ClaudeTranscript } from '../support/claude';
import { CodexRollout } from '../support/codex';
import { fixture } from '../support/repo';
import { A, B, brokenCases, C, seedsRace } from './cases';
import type { RepairPlan } from '../../../src/core/repair/plan';
import { AmplifierTranscript, brief, chainEntries, conversationUuids, danglingParents, pairingFindings, repair, walkFromNewestLeaf, walkWithout } from './support';

function resultLines(text: string, id: string): number[] {
  return text
    .split('\n')
    .map((l, i) => (l.includes(`"tool_use_id":"${id}"`) || l.includes(`"tool_call_id": "${id}"`) ? i + 1 : 0))
    .filter((n) => n > 0);
}

void describe('repair round-trips every broken case', () => {
  for (const c of brokenCases) {
    void test(c.name, () => {
      const before = pairingFindings(c.text);
      assert.deepEqual(before.map((f) => `${f.rule}@${f.line}`), c.findings, 'the case is broken the way it says');

      const { plan, text } = repair(c.text, { closeOpenCalls: c.closeOpenCalls ?? false });
      assert.equal(plan.agent, c.agent);
      assert.deepEqual(brief(plan), c.edits, plan.edits.map((e) => e.reason).join('\n'));
      assert.ok(plan.complete, JSON.stringify(plan.left));
      assert.deepEqual(plan.remaining, []);
      for (const e of plan.edits) {
        assert.ok(e.reason.length > 20 && /^(drop|move|add|re-link|take out)/.test(e.reason), e.reason);
      }

      // check's own pipeline (every rule) on the repaired text: no pairing finding left.
      assert.deepEqual(pairingFindings(text).map((f) => `${f.rule}@${f.line}: ${f.message}`), []);

      // Repairing again is a no-op: applying the plan twice is applying it once.
      const again = repair(text, { closeOpenCalls: c.closeOpenCalls ?? false });
      assert.deepEqual(again.plan.edits, []);
      assert.equal(again.text, text);

      // Every result appears once per call, and nothing was invented: each line of the repair
      // is an original line (maybe re-linked) or an explicit "no result was recorded".
      const original = new Set(c.text.split('\n').map(withoutParent));
      for (const line of text.split('\n')) {
        assert.ok(original.has(withoutParent(line)) || line.includes('no result was recorded for this call (added by agent-guard repair)'), line);
      }
      for (const id of c.resultOrder ?? []) {
        assert.equal(text.split('\n').filter((l) => l.includes(id)).length, 1, `exactly one line holds ${id}`);
      }

      if (c.agent === 'claude-code') {
        assertChainKept(c.text, text, plan);
      }
    });
  }
});

/** A line with its parentUuid blanked, to compare re-linked lines with their originals. */
function withoutParent(line: string): string {
  return line.replace(/^\{"parentUuid":(null|"[^"]*")/, '{"parentUuid":_');
}

/**
 * One parent chain: no dangling parent, no loop, and the walk from the newest leaf reaches
 * every conversation entry it reached before (with the dropped and moved lines taken out,
 * since a late line may itself have been the newest leaf), every moved result that stays in
 * the same history, and every added result.
 */
function assertChainKept(beforeText: string, afterText: string, plan: RepairPlan): void {
  assert.deepEqual(danglingParents(afterText), []);
  const uuidOf = (n: number): string => (JSON.parse(beforeText.split('\n')[n - 1]!) as { uuid: string }).uuid;
  const dropped = new Set(plan.edits.flatMap((e) => (e.kind === 'drop' ? [uuidOf(e.line)] : [])));
  const moved = new Set(plan.edits.flatMap((e) => (e.kind === 'move' ? [uuidOf(e.line)] : [])));
  const reachedAfter = walkFromNewestLeaf(afterText);
  for (const uuid of conversationUuids(beforeText, walkWithout(beforeText, new Set([...dropped, ...moved])))) {
    assert.ok(reachedAfter.has(uuid), `entry ${uuid} is still on the chain from the newest leaf`);
  }
  // A result moved back behind a compaction boundary leaves the chain the walk follows.
  const compacted = chainEntries(afterText).some((e) => e.parentUuid === null && e.type === 'system');
  const byUuid = new Map(chainEntries(afterText).map((e) => [e.uuid, e] as const));
  for (const uuid of compacted ? [] : moved) {
    // On the chain, or beside it hanging from its own tool_use entry as Claude Code writes
    // parallel results (a real result taking over such a placeholder's place keeps its links).
    const e = byUuid.get(uuid) as { parentUuid?: string; sourceToolAssistantUUID?: string } | undefined;
    const beside = e?.sourceToolAssistantUUID !== undefined && e.parentUuid === e.sourceToolAssistantUUID && reachedAfter.has(e.parentUuid);
    assert.ok(reachedAfter.has(uuid) || beside, `the moved result ${uuid} is on the chain`);
  }
  for (const e of chainEntries(afterText)) {
    if (JSON.stringify(e).includes('added by agent-guard repair')) {
      assert.ok(reachedAfter.has(e.uuid), 'the added result is on the chain');
    }
  }
}

void describe('repair details', () => {
  void test("the seeds' race: the real results take the placeholders' places, the late copies go", () => {
    const t = seedsRace();
    const { text } = repair(t.text());
    const lines = text.trimEnd().split('\n');
    assert.equal(lines.length, t.lines.length - 2);
    assert.deepEqual(resultLines(text, A), [4]);
    assert.deepEqual(resultLines(text, B), [5]);
    assert.match(lines[3]!, /real result A/);
    assert.match(lines[4]!, /real result B/);
    assert.match(lines[5]!, /are you there\?/);
    // Re-linked: A's result hangs from the last tool_use entry, B's from A's, the prompt from B's.
    const [, , callB, resA, resB, prompt] = lines.map((l) => JSON.parse(l) as { uuid: string; parentUuid: string });
    assert.equal(resA!.parentUuid, callB!.uuid);
    assert.equal(resB!.parentUuid, resA!.uuid);
    assert.equal(prompt!.parentUuid, resB!.uuid);
  });

  void test('untouched lines keep their bytes and CRLF terminators', () => {
    const t = seedsRace();
    const { text } = repair(t.lines.map((l) => l + '\r\n').join(''));
    const out = text.split('\r\n');
    assert.equal(out.pop(), '', 'ends with CRLF');
    assert.equal(out.length, t.lines.length - 2);
    assert.equal(out[0], t.lines[0]);
    assert.equal(out[6], t.lines[6], 'the assistant turn is untouched');
    assert.ok(!/[^\r]\n/.test(text), 'every line ends with CRLF');
  });

  void test('a last line without newline stays so; moved elsewhere, it gets one', () => {
    const t = new ClaudeTranscript().user('go').call('m1', A, 'Bash', { command: 'ls' }).say('m2', 'next');
    const { text } = repair(t.lines.join('\n'));
    assert.ok(text.endsWith('"requestId":"req_m2"}'), 'the (re-linked) last line is still last and unterminated');
    assert.equal(text.split('\n').length, 4);
    const race = seedsRace();
    const moved = repair(race.lines.join('\n')).text;
    assert.ok(moved.endsWith('\n'), 'the moved last line was terminated, and the new last line keeps its newline');
    assert.equal(moved.split('\n').length, race.lines.length - 2 + 1);
  });

  void test('an added Claude Code result has the exact shape, the call envelope and timestamp', () => {
    const text = new ClaudeTranscript()
      .user('go')
      .call('m1', A, 'Bash', { command: 'ls' })
      .say('m2', 'next')
      .text();
    const { plan } = repair(text);
    const insert = plan.edits.find((e) => e.kind === 'insert');
    assert.ok(insert && insert.kind === 'insert');
    const call = JSON.parse(text.split('\n')[1]!) as Record<string, unknown>;
    const added = JSON.parse(insert.text) as Record<string, unknown>;
    assert.deepEqual(Object.keys(added), ['parentUuid', 'isSidechain', 'userType', 'cwd', 'sessionId', 'version', 'gitBranch', 'type', 'message', 'uuid', 'timestamp', 'sourceToolAssistantUUID']);
    assert.deepEqual(added, {
      parentUuid: call['uuid'],
      isSidechain: false,
      userType: 'external',
      cwd: call['cwd'],
      sessionId: call['sessionId'],
      version: call['version'],
      gitBranch: call['gitBranch'],
      type: 'user',
      message: {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: A, content: '<tool_use_error>no result was recorded for this call (added by agent-guard repair)</tool_use_error>', is_error: true }],
      },
      uuid: '99999999-0000-4000-8000-000000000001',
      timestamp: call['timestamp'],
      sourceToolAssistantUUID: call['uuid'],
    });
    assert.match(String(added['uuid']), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // The default uuid source is a real v4 uuid.
    const real = planRepair(new TextEncoder().encode(text), { file: '/tmp/s.jsonl' }).edits.find((e) => e.kind === 'insert');
    assert.match(JSON.parse(real!.kind === 'insert' ? real!.text : '{}').uuid as string, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  void test('an added Amplifier result is written in the transcript\'s own JSON style', () => {
    const text = '{"role": "user", "content": "go"}\n{"role": "assistant", "content": [], "tool_calls": [{"id": "t1", "tool": "bash", "arguments": {"command": "ls"}}]}\n{"role": "assistant", "content": "next"}\n';
    const { plan } = repair(text);
    const insert = plan.edits[0];
    assert.ok(insert?.kind === 'insert');
    assert.equal(insert.text, '{"role": "tool", "tool_call_id": "t1", "name": "bash", "content": "{\\"error\\": \\"unknown_error\\", \\"message\\": \\"no result was recorded for this call (added by agent-guard repair)\\"}"}');
  });

  void test('a result among other content is taken out of its line, which keeps the rest', () => {
    const t = new ClaudeTranscript().user('go').call('m1', A, 'Bash', { command: 'ls' });
    const two = JSON.parse(new ClaudeTranscript().result(A, 'a').lines[0]!) as { message: { content: unknown[] } };
    two.message.content.push({ tool_use_id: C, type: 'tool_result', content: 'stray' });
    t.push({ ...two, parentUuid: 'aaaaaaaa-0000-4000-8000-000000000002', uuid: 'aaaaaaaa-0000-4000-8000-000000000003' }).say('m2', 'ok');
    const { plan, text } = repair(t.text());
    assert.deepEqual(brief(plan), ['rewrite 3']);
    assert.match(plan.edits[0]!.reason, /^take out the result for toolu_01C+: it answers no tool call in this session \(the line keeps its other content\)$/);
    const line = JSON.parse(text.split('\n')[2]!) as { message: { content: { tool_use_id: string }[] } };
    assert.deepEqual(line.message.content.map((b) => b.tool_use_id), [A]);
    assert.deepEqual(pairingFindings(text), []);
  });

  void test('a result taken out of its line leaves the rest of the line byte for byte, numbers too', () => {
    // Python writes integers of any size and keeps 1.0 a float: output parsed and written
    // again by JavaScript would come back as 12345678901234567000 and 1.
    const kept = `{"type": "tool_result", "tool_call_id": "${B}", "output": {"size": 12345678901234567890, "ratio": 1.0, "mtime": 1.7e+18, "name": "caf\\u00e9"}}`;
    const t = new AmplifierTranscript().user('go').calls({ id: A, tool: 'bash' }, { id: B, tool: 'stat' }).result(A, 'bash', 'ok');
    t.lines.push(`{"role": "user", "content": [{"type": "tool_result", "tool_call_id": "${A}", "output": "ok"}, ${kept}]}`);
    t.say('done');
    const file = '/tmp/amplifier/sessions/s1/transcript.jsonl';
    const { plan, text } = repair(t.text(), { file });
    assert.deepEqual(brief(plan), ['rewrite 4']);
    assert.equal(text.split('\n')[3], `{"role": "user", "content": [${kept}]}`);
    assert.deepEqual(pairingFindings(text, file), []);

    // The same cut in a Claude Code line, the result in the middle of three blocks.
    const cc = new ClaudeTranscript().user('go').call('m1', A, 'Bash', { command: 'ls' }).call('m1', B, 'Bash', { command: 'pwd' }).result(A, 'a');
    const line = JSON.parse(new ClaudeTranscript().result(B, 'b').lines[0]!) as { message: { content: unknown[] } };
    line.message.content = [{ type: 'text', text: 'before' }, { type: 'tool_result', tool_use_id: A, content: 'a' }, ...line.message.content];
    cc.push({ ...line, parentUuid: cc.uuidAt(4), uuid: 'aaaaaaaa-0000-4000-8000-0000000000b5' }).say('m2', 'ok');
    const original = cc.lines[4]!;
    const fixed = repair(cc.text());
    assert.deepEqual(brief(fixed.plan), ['rewrite 5']);
    assert.equal(fixed.text.split('\n')[4], original.replace(`,{"type":"tool_result","tool_use_id":"${A}","content":"a"}`, ''));
  });

  void test('a line that loses a result and is re-linked gets both changes in its one edit', () => {
    // Line 6 holds a duplicate of A's result beside B's, and hangs from the orphan on line 5.
    const t = new ClaudeTranscript().user('go').call('m1', A, 'Bash', { command: 'ls' }).call('m1', B, 'Bash', { command: 'pwd' }).result(A, 'a').result(C, 'stray');
    const line = JSON.parse(new ClaudeTranscript().result(B, 'b').lines[0]!) as { message: { content: unknown[] } };
    line.message.content = [{ type: 'tool_result', tool_use_id: A, content: 'a' }, ...line.message.content];
    t.push({ ...line, parentUuid: t.uuidAt(5), uuid: 'aaaaaaaa-0000-4000-8000-0000000000b6' });
    t.push({ ...(JSON.parse(new ClaudeTranscript().say('m2', 'ok').lines[0]!) as object), parentUuid: 'aaaaaaaa-0000-4000-8000-0000000000b6', uuid: 'aaaaaaaa-0000-4000-8000-0000000000b7' });
    assert.deepEqual(pairingFindings(t.text()).map((f) => `${f.rule}@${f.line}`), ['orphan-result@5', 'duplicate-result@6']);

    const { plan, text } = repair(t.text());
    assert.ok(plan.complete, JSON.stringify(plan.remaining.map((f) => `${f.rule}@${f.line}`)));
    assert.deepEqual(brief(plan), ['drop 5', 'relink 6']);
    const fixed = JSON.parse(text.split('\n')[4]!) as { parentUuid: string; message: { content: { tool_use_id: string }[] } };
    assert.equal(fixed.parentUuid, t.uuidAt(4));
    assert.deepEqual(fixed.message.content.map((b) => b.tool_use_id), [B]);
    assert.deepEqual(pairingFindings(text), []);
    assert.deepEqual(danglingParents(text), []);
  });

  void test('a line that repeats its parentUuid key is re-linked where it is read: the last one', () => {
    const t = new ClaudeTranscript().user('go').call('m1', A, 'Bash', { command: 'ls' }).result(A, 'a').result(A, 'a').say('m2', 'done');
    const lines = [...t.lines];
    // JSON.parse, like the agent, keeps the last of a repeated key: line 5 hangs from line 4.
    lines[4] = lines[4]!.replace('{"parentUuid":', '{"parentUuid":"00000000-0000-4000-8000-0000000000ff","parentUuid":');
    const broken = lines.join('\n') + '\n';
    assert.equal((JSON.parse(lines[4]) as { parentUuid: string }).parentUuid, t.uuidAt(4));

    const { plan, text } = repair(broken);
    assert.deepEqual(brief(plan), ['drop 4', 'relink 5']);
    const relinked = JSON.parse(text.split('\n')[3]!) as { parentUuid: string };
    assert.equal(relinked.parentUuid, t.uuidAt(3), 'the dropped line\u2019s child hangs from its parent');
    assert.deepEqual(danglingParents(text), []);
  });

  void test('a late result that shares its line with other content is not moved: the plan is incomplete', () => {
    const t = new ClaudeTranscript().user('go').call('m1', A, 'Bash', { command: 'ls' }).say('m2', 'moving on');
    const mixed = JSON.parse(new ClaudeTranscript().result(A, 'late').lines[0]!) as { message: { content: unknown[] } };
    mixed.message.content.push({ type: 'text', text: 'and one more thing' });
    t.push({ ...mixed, parentUuid: 'aaaaaaaa-0000-4000-8000-000000000003', uuid: 'aaaaaaaa-0000-4000-8000-000000000004' });
    const { plan } = repair(t.text());
    assert.equal(plan.complete, false);
    assert.deepEqual(plan.left.map((l) => `${l.rule}@${l.line}`), ['misplaced-result@4']);
    assert.match(plan.left[0]!.reason, /holds other content besides this result; move the result by hand/);
  });

  void test('a call still open at the end of the file is left alone unless asked', () => {
    const text = new ClaudeTranscript().user('go').call('m1', A, 'Bash', { command: 'sleep 100' }).text();
    const { plan } = repair(text);
    assert.deepEqual(plan.edits, []);
    assert.ok(plan.complete);
    assert.equal(plan.left.length, 1);
    assert.equal(plan.left[0]!.deliberate, true);
    assert.match(plan.left[0]!.reason, /--close-open-calls/);
  });

  void test('a plan approval still open at the end of the file is left alone unless asked', () => {
    // The person may be reading the plan (the file stays quiet, and the guard does not see it):
    // an error result written now would answer the call before they do.
    const P = 'toolu_01PPPPPPPPPPPPPPPPPPPPPP';
    const text = new ClaudeTranscript().user('plan it').call('m1', P, 'ExitPlanMode', { plan: 'do x' }).text();
    const { plan } = repair(text);
    assert.deepEqual(brief(plan), []);
    assert.ok(plan.complete);
    assert.deepEqual(plan.left.map((l) => `${l.rule}@${l.line}:${l.deliberate}`), ['missing-result@2:true']);
    assert.match(plan.left[0]!.reason, /--close-open-calls/);

    const closed = repair(text, { closeOpenCalls: true });
    assert.deepEqual(brief(closed.plan), ['insert >2']);
    assert.match(closed.plan.edits[0]!.reason, /by the end of the file/);
    assert.ok(closed.plan.complete);
  });

  void test('a call whose result may be in a line that cannot be read is left for a person, not answered "no result was recorded"', () => {
    const t = new ClaudeTranscript().user('go').call('m1', A, 'Bash', { command: 'make' }).result(A, 'built').say('m2', 'done');
    const lines = t.text().split('\n');
    // The result's line, cut short: a writer cut off, or a disk that lost the rest.
    lines[2] = lines[2]!.slice(0, 120);
    const { plan } = repair(lines.join('\n'));
    assert.deepEqual(brief(plan), []);
    assert.equal(plan.complete, false);
    assert.deepEqual(plan.left.map((l) => `${l.rule}@${l.line}:${l.deliberate}`), ['missing-result@2:false']);
    assert.match(plan.left[0]!.reason, /may have its result in line 3, which cannot be read; mend or remove that line first/);
  });

  void test('a continuation chunk: a result whose call may be in the file before is left for a person, not dropped', () => {
    // Claude Code continued the session in a new file (a resume): its first record hangs from the
    // last record of the file before, which holds the call this result answers.
    const before = 'ffffffff-0000-4000-8000-0000000000aa';
    const t = new ClaudeTranscript('bbbbbbbb-0000-4000-8000-000000000002').from(before).result(A, 'the build output').say('m2', 'the build passed').user('thanks');
    t.say('m3', 'you are welcome').result(C, 'stray');
    assert.deepEqual(pairingFindings(t.text()).map((f) => `${f.rule}@${f.line}`), ['orphan-result@1', 'orphan-result@5']);
    const { plan, text } = repair(t.text());
    assert.deepEqual(brief(plan), []);
    assert.equal(text, t.text(), 'nothing dropped');
    assert.equal(plan.complete, false);
    assert.deepEqual(plan.left.map((l) => `${l.rule}@${l.line}:${l.deliberate}`), ['orphan-result@1:false', 'orphan-result@5:false']);
    assert.match(plan.left[0]!.reason, /hangs from a record this file does not hold .*its call may be there; this needs a person/);
    // The same results in a file that holds the whole session answer no call: dropped.
    const whole = new ClaudeTranscript('bbbbbbbb-0000-4000-8000-000000000003').user('go').result(A, 'the build output').say('m2', 'the build passed');
    assert.deepEqual(brief(repair(whole.text()).plan), ['drop 2', 'relink 3']);
  });

  void test('a result after a compaction whose history is in another file is left for a person, not dropped', () => {
    // A file that starts at a compaction: the boundary's logicalParentUuid names the record it
    // continues, in the file before, which may hold the call.
    const t = new ClaudeTranscript('bbbbbbbb-0000-4000-8000-000000000004').user('go').compact();
    const boundary = JSON.parse(t.lines[1]!) as Record<string, unknown>;
    assert.equal(boundary['subtype'], 'compact_boundary');
    const head = JSON.stringify({ ...boundary, logicalParentUuid: 'ffffffff-0000-4000-8000-0000000000bb' }) + '\n';
    const rest = new ClaudeTranscript('cccccccc-0000-4000-8000-000000000004').from(t.uuidAt(2)).user('continue').result(A, 'late').say('m2', 'ok');
    const all = head + rest.text();
    assert.deepEqual(pairingFindings(all).map((f) => `${f.rule}@${f.line}`), ['orphan-result@3']);
    const { plan } = repair(all);
    assert.deepEqual(brief(plan), []);
    assert.deepEqual(plan.left.map((l) => `${l.rule}@${l.line}`), ['orphan-result@3']);
  });

  void test('two calls with one id cannot be repaired: the plan is incomplete', () => {
    const t = new ClaudeTranscript().user('go').call('msg_1', A, 'Bash', { command: 'make' }).result(A, 'built');
    t.call('msg_1', A, 'Bash', { command: 'make' }).result(A, 'built').say('msg_2', 'done');
    const { plan } = repair(t.text());
    assert.equal(plan.complete, false);
    assert.deepEqual(plan.left.map((l) => `${l.rule}@${l.line}:${l.deliberate}`), ['duplicate-call-id@4:false']);
  });

  void test('Codex and Gemini transcripts are refused with a clear message', () => {
    const codex = new CodexRollout().user('go').exec('call_1', 'ls').output('call_1', 'a').output('call_1', 'a').text();
    assert.throws(
      () => planRepair(new TextEncoder().encode(codex), { file: '/tmp/rollout.jsonl' }),
      (e: unknown) => AgentGuardError.is(e, 'refused') && /repair supports Claude Code and Amplifier transcripts; this is a Codex CLI transcript/.test(e.message),
    );
    const gemini = readFileSync(fixture('transcripts', 'gemini', 'late-result.jsonl'));
    assert.throws(() => planRepair(gemini, { file: '/tmp/g.jsonl' }), (e: unknown) => AgentGuardError.is(e, 'refused') && /Gemini CLI/.test(e.message));
    assert.throws(() => planRepair(new TextEncoder().encode('{"x":1}\n'), { file: '/tmp/x.jsonl' }), (e: unknown) => AgentGuardError.is(e, 'invalid-input'));
  });

  void test('Amplifier: the placeholder fixture (the 9 h delegate) round-trips', () => {
    const text = readFileSync(fixture('transcripts', 'amplifier', 'placeholder.jsonl'), 'utf8');
    const { plan, text: out } = repair(text, { file: '/home/u/.amplifier/projects/-home-u-app/sessions/s1/transcript.jsonl' });
    assert.deepEqual(brief(plan), ['drop 3', 'move 7>2']);
    assert.deepEqual(pairingFindings(out, '/home/u/.amplifier/projects/-home-u-app/sessions/s1/transcript.jsonl'), []);
    assert.match(out.split('\n')[2]!, /LGTM/);
  });
});

void describe('golden repairs (test/fixtures/transcripts/repair)', () => {
  const dir = fixture('transcripts', 'repair');
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.jsonl') && !n.endsWith('.repaired.jsonl'))) {
    void test(name, () => {
      const { plan, text } = repair(readFileSync(path.join(dir, name), 'utf8'));
      assert.ok(plan.complete);
      assert.equal(text, readFileSync(path.join(dir, name.replace(/\.jsonl$/, '.repaired.jsonl')), 'utf8'));
      assert.deepEqual(pairingFindings(text), []);
    });
  }
});

void describe('real transcripts need no repair', () => {
  const root = fixture('real', 'claude-code');
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((n) => {
      const p = path.join(dir, n);
      return statSync(p).isDirectory() ? files(p) : p.endsWith('.jsonl') ? [p] : [];
    });
  for (const file of files(root)) {
    void test(path.relative(root, file), () => {
      const plan = planRepair(readFileSync(file), { file });
      assert.deepEqual(plan.edits, []);
      assert.deepEqual(plan.left, []);
      assert.ok(plan.complete);
    });
  }
  void test('Amplifier fixtures without pairing problems need no repair', () => {
    const file = fixture('transcripts', 'amplifier', 'healthy.jsonl');
    assert.deepEqual(planRepair(readFileSync(file), { file }).edits, []);
  });
});
