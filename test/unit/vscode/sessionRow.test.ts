/**
 * A session's row in the sessions view: the finding count used to end a long description
 * ("live · 2/12/2026 · 3 findings") and was the first thing cut off; it is a badge now.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Severity } from '../../../src/core/model/finding';
import { findingRowText, markdownCode, sessionRowText, SessionRows } from '../../../src/vscode/sessionRow';

const now = 1_000_000_000;
const liveMs = 5 * 60_000;
const when = (): string => '2/12/2026';
const of = (...s: Severity[]): { severity: Severity }[] => s.map((severity) => ({ severity }));

void test('the count is a badge, not the end of the description', () => {
  const row = sessionRowText({ lastActivity: now - 1000, startedAt: '2026-02-12T10:00:00Z' }, of('error', 'warning', 'warning'), now, liveMs, when);
  assert.equal(row.description, 'live · 2/12/2026');
  assert.equal(row.badge, '3');
  assert.equal(row.counts, '3 findings: 1 error, 2 warnings');
  assert.equal(row.worst, 'error');
});

void test('a badge holds two characters: more than 9 findings read 9+, the tooltip has the number', () => {
  const row = sessionRowText({ lastActivity: 0 }, of(...Array<Severity>(120).fill('info')), now, liveMs, when);
  assert.equal(row.description, 'idle');
  assert.equal(row.badge, '9+');
  assert.equal(row.counts, '120 findings: 120 info');
});

void test('no findings: no badge', () => {
  const row = sessionRowText({ lastActivity: 0 }, [], now, liveMs, when);
  assert.equal(row.badge, undefined);
  assert.equal(row.counts, 'no findings');
  assert.equal(row.worst, undefined);
});

void test('a finding row says what and where (rule, then the file or call), the line apart; the message is its tooltip', () => {
  const base = { line: 1073, message: 'Edit was applied to lib/spotter_web/controllers/hooks_controller.ex on top of a change this session never saw' };
  assert.deepEqual(findingRowText({ ...base, rule: 'stale-write', subject: { path: '/w/lib/spotter_web/controllers/hooks_controller.ex' } }), {
    label: 'stale-write · hooks_controller.ex',
    description: 'line 1073',
  });
  assert.equal(findingRowText({ ...base, rule: 'stale-write', subject: { path: 'C:\\w\\src\\app.ts' } }).label, 'stale-write · app.ts');
  assert.equal(findingRowText({ ...base, rule: 'missing-result', callId: 'toolu_01DDDDDDDDDDDDDDDDDDDDDDDD' }).label, 'missing-result · toolu_01DDDD…');
  assert.equal(findingRowText({ ...base, rule: 'missing-result', callId: 'call_esc_002' }).label, 'missing-result · call_esc_002');
  // Nothing to name: the message follows the rule.
  assert.equal(findingRowText({ line: 1, message: 'This transcript is malformed', rule: 'unparseable-line' }).label, 'unparseable-line · This transcript is malformed');
});

void test("a transcript's session id stays one code span in the tooltip's Markdown", () => {
  // A Claude line's sessionId is whatever the transcript says; a blank line in it used to end the span.
  const hostile = 'd4e5\n\n![x](https://evil.example/beacon.png) [Sign in](https://evil.example/)\r\n\r\n`<img src=x>`';
  const md = markdownCode(hostile);
  assert.match(md, /^`[^`\r\n]*`$/);
  assert.equal(md, '`d4e5 ![x](https://evil.example/beacon.png) [Sign in](https://evil.example/) <img src=x>`');
  assert.equal(markdownCode('0c1f-42'), '`0c1f-42`');
});

void test("the rows' bookkeeping holds the sessions there are now: a session gone takes its row and its badge with it, and one that comes or goes is named", () => {
  const rows = new SessionRows();
  const uri = (f: string): string => `file://${f}?agent-guard-session`;
  const of = (...files: string[]): { file: string; uri: string }[] => files.map((file) => ({ file, uri: uri(file) }));
  assert.deepEqual(rows.sync(of('/s/a.jsonl', '/s/b.jsonl', '/s/c.jsonl')), ['/s/a.jsonl', '/s/b.jsonl', '/s/c.jsonl']);
  for (const f of ['/s/a.jsonl', '/s/b.jsonl', '/s/c.jsonl']) {
    rows.row(uri(f), f);
    rows.showed(f, '1|1 finding|error');
  }
  assert.deepEqual(rows.sync(of('/s/b.jsonl')), ['/s/a.jsonl', '/s/c.jsonl']);
  assert.equal(rows.fileOf(uri('/s/a.jsonl')), undefined);
  assert.equal(rows.fileOf(uri('/s/c.jsonl')), undefined);
  assert.equal(rows.fileOf(uri('/s/b.jsonl')), '/s/b.jsonl');
  // Only the remaining row's badge is compared: the others are not told to VS Code as changed.
  const asked: string[] = [];
  assert.deepEqual(
    rows.changed((f) => (asked.push(f), '')),
    ['/s/b.jsonl'],
  );
  assert.deepEqual(asked, ['/s/b.jsonl']);
  // A badge that changed is forgotten until VS Code asks for it again.
  assert.deepEqual(
    rows.changed(() => ''),
    [],
  );
  // A session back (the monitors read again): named, so that VS Code asks for its badge again.
  assert.deepEqual(rows.sync(of('/s/a.jsonl', '/s/b.jsonl')), ['/s/a.jsonl']);
  assert.equal(rows.fileOf(uri('/s/a.jsonl')), '/s/a.jsonl');
  assert.deepEqual(rows.sync(of('/s/a.jsonl', '/s/b.jsonl')), []);
});
