/**
 * How repair counts what it does: each count with its own plural, and only the problems the
 * changes repair (a problem left for a person is not one of them).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { changesFor, repairedProblems, type RepairPlan } from '../../../src/core/repair/plan';
import { cli } from '../support/cli';
import { ClaudeTranscript } from '../support/claude';
import { A, C } from './cases';
import { repair } from './support';

type Counts = Pick<RepairPlan, 'edits' | 'findings' | 'remaining'>;

/** A plan of these many edits and findings, of which `remaining` are still there after it. */
function counts(edits: number, findings: number, remaining: number): Counts {
  const some = <T>(n: number): T[] => Array.from({ length: n }, () => ({}) as T);
  return { edits: some(edits), findings: some(findings), remaining: some(remaining) };
}

/** A late result that shares its line with text (left for a person), then a stray result (repaired). */
function partlyRepairable(): string {
  const t = new ClaudeTranscript().user('go').call('m1', A, 'Bash', { command: 'ls' }).say('m2', 'moving on');
  const mixed = JSON.parse(new ClaudeTranscript().result(A, 'late').lines[0]!) as { message: { content: unknown[] } };
  mixed.message.content.push({ type: 'text', text: 'and one more thing' });
  t.push({ ...mixed, parentUuid: 'aaaaaaaa-0000-4000-8000-000000000003', uuid: 'aaaaaaaa-0000-4000-8000-000000000004' });
  t.say('m3', 'done').result(C, 'stray').say('m4', 'really done');
  return t.text();
}

void describe('repair wording', () => {
  void test('each count takes its own plural', () => {
    assert.equal(changesFor(counts(2, 1, 0)), '2 changes for 1 pairing problem');
    assert.equal(changesFor(counts(1, 1, 0)), '1 change for 1 pairing problem');
    assert.equal(changesFor(counts(6, 4, 0)), '6 changes for 4 pairing problems');
  });

  void test('only the problems the changes repair are counted, out of all', () => {
    assert.equal(repairedProblems(counts(3, 3, 1)), 2);
    assert.equal(changesFor(counts(3, 3, 1)), '3 changes for 2 of the 3 pairing problems');
    assert.equal(changesFor(counts(1, 2, 1)), '1 change for 1 of the 2 pairing problems');
  });

  void test('a transcript with a problem repair leaves for a person', () => {
    const { plan } = repair(partlyRepairable());
    assert.deepEqual(plan.left.map((l) => `${l.rule}@${l.line}:${l.deliberate}`), ['misplaced-result@4:false']);
    // The late result is two problems (its call went unanswered, and it came late), both left;
    // only the stray result is repaired (dropped, and the next line re-linked).
    assert.deepEqual(plan.findings.map((f) => f.rule).sort(), ['misplaced-result', 'missing-result', 'orphan-result']);
    assert.deepEqual(plan.remaining.map((f) => f.rule).sort(), ['misplaced-result', 'missing-result']);
    assert.equal(changesFor(plan), '2 changes for 1 of the 3 pairing problems');
  });

  void test('agent-guard repair says so too', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'ag-repair-wording-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'session.jsonl');
    writeFileSync(file, partlyRepairable());
    const r = cli(['repair', file], { env: { TMPDIR: dir } });
    assert.match(r.stdout, /\n2 changes for 1 of the 3 pairing problems: lines 1 dropped, 0 moved, 0 added, 1 re-linked\.\n/, r.stdout + r.stderr);
    assert.match(r.stdout, /not repaired/);
  });
});
