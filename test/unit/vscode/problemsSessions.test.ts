/**
 * agentGuard.problems.sessions: with `current`, the findings of sessions that are not current
 * (as the status bar decides it) are not diagnostics, on their transcript or on the workspace
 * file they are about; a session that becomes current shows them again.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseSettings, viewOnlySettings } from '../../../src/core/config/settings';
import type { Finding } from '../../../src/core/model/finding';
import { isCurrent, pastSessions } from '../../../src/vscode/currentSessions';
import { FindingTargets } from '../../../src/vscode/findingTargets';
import { countStatus } from '../../../src/vscode/statusSummary';

const now = 1_000_000_000;
const since = now - 60 * 60_000;
const liveMs = 5 * 60_000;

function finding(id: string, file: string, subject?: string): Finding {
  return {
    id,
    rule: 'stale-write',
    severity: 'error',
    file,
    line: 1,
    column: 1,
    endLine: 1,
    endColumn: 2,
    message: 'm',
    agent: 'claude-code',
    session: file,
    related: [],
    ...(subject !== undefined ? { subject: { path: subject } } : {}),
  };
}

/** What takeChanges says, as `target: finding ids` (sorted, for stable comparisons). */
function changes(t: FindingTargets): Record<string, string[]> {
  return Object.fromEntries(t.takeChanges().map(([target, list]) => [target, list.map((f) => f.id).sort()]));
}

void describe('current sessions', () => {
  const sessions = [
    { file: '/old.jsonl', lastActivity: since - 24 * 60 * 60_000 },
    { file: '/liveFromBefore.jsonl', lastActivity: since - 1000 },
    { file: '/today.jsonl', lastActivity: since + 60_000 },
    { file: '/live.jsonl', lastActivity: now - 1000 },
  ];

  void test('past sessions are neither live nor written since the window opened', () => {
    // Opened 2 s ago: a session written 3 s ago is live, though written before.
    assert.deepEqual([...pastSessions(sessions, since + 2000, liveMs, since)], ['/old.jsonl']);
    assert.deepEqual([...pastSessions(sessions, now, liveMs, since)], ['/old.jsonl', '/liveFromBefore.jsonl']);
    assert.equal(isCurrent({ file: '/x', lastActivity: since }, now, liveMs, since), true, 'written the moment the window opened');
  });

  void test('the status bar counts the findings of exactly the sessions the Problems panel shows', () => {
    const findings = sessions.map((s, i) => finding(`f${i}`, s.file));
    const past = pastSessions(sessions, now, liveMs, since);
    const counts = countStatus(sessions, findings, now, liveMs, since);
    assert.equal(counts.errors, findings.filter((f) => !past.has(f.file)).length);
    assert.equal(counts.allErrors, findings.length);
  });
});

void describe('FindingTargets', () => {
  void test("VS Code's lower-case drive letter finds the findings of a Windows file", () => {
    const t = new FindingTargets();
    t.apply({ added: [finding('stale', 'C:\\Users\\u\\.claude\\projects\\C--ws\\s.jsonl', 'C:\\ws\\a.ts')], removed: [], updated: [] });
    // Uri.file(...).fsPath on Windows: c:\ws\a.ts.
    assert.deepEqual([...t.on('c:\\ws\\a.ts')].map((f) => f.id), ['stale']);
    assert.deepEqual([...t.on('c:\\Users\\u\\.claude\\projects\\C--ws\\s.jsonl')].map((f) => f.id), ['stale']);
    // A finding on its own transcript, named with either case, is put there once.
    t.apply({ added: [finding('self', 'C:\\t.jsonl', 'c:\\t.jsonl')], removed: [], updated: [] });
    assert.deepEqual([...t.on('c:\\t.jsonl')].map((f) => f.id), ['self']);
    t.apply({ added: [], removed: [finding('stale', 'C:\\Users\\u\\.claude\\projects\\C--ws\\s.jsonl', 'c:\\ws\\a.ts')], updated: [] });
    assert.deepEqual([...t.on('C:\\ws\\a.ts')], [], 'removed, whichever case its subject was named in');
  });

  void test('a hidden session has no diagnostics, on its transcript or on the workspace file it is about', () => {
    const t = new FindingTargets();
    t.apply({ added: [finding('old', '/old.jsonl', '/ws/a.ts'), finding('new', '/new.jsonl', '/ws/a.ts')], removed: [], updated: [] });
    t.hideSessions(new Set(['/old.jsonl']));
    assert.deepEqual(changes(t), { '/old.jsonl': [], '/new.jsonl': ['new'], '/ws/a.ts': ['new'] });
    assert.equal(t.hasChanges, false);
    // Kept, for the quick fixes and for showing it again.
    assert.deepEqual([...t.on('/old.jsonl')].map((f) => f.id), ['old']);
  });

  void test('a session shown again (written to, or the setting changed) updates only its files', () => {
    const t = new FindingTargets();
    t.apply({ added: [finding('old', '/old.jsonl', '/ws/a.ts'), finding('other', '/other.jsonl', '/ws/b.ts')], removed: [], updated: [] });
    t.hideSessions(new Set(['/old.jsonl', '/other.jsonl']));
    changes(t);
    t.hideSessions(new Set(['/other.jsonl']));
    assert.deepEqual(changes(t), { '/old.jsonl': ['old'], '/ws/a.ts': ['old'] });
    t.hideSessions(new Set());
    assert.deepEqual(changes(t), { '/other.jsonl': ['other'], '/ws/b.ts': ['other'] });
  });

  void test('asking again with the same sessions changes nothing', () => {
    const t = new FindingTargets();
    t.apply({ added: [finding('old', '/old.jsonl')], removed: [], updated: [] });
    t.hideSessions(new Set(['/old.jsonl']));
    changes(t);
    t.hideSessions(new Set(['/old.jsonl']));
    t.hideSessions(new Set());
    t.hideSessions(new Set(['/old.jsonl']));
    assert.deepEqual(changes(t), { '/old.jsonl': [] }, 'hidden, shown and hidden again before a flush: the file is set once');
    t.hideSessions(new Set(['/old.jsonl']));
    assert.equal(t.hasChanges, false);
  });

  void test('a finding that arrives for a hidden session stays hidden; one on no known session is shown', () => {
    const t = new FindingTargets();
    t.hideSessions(new Set(['/old.jsonl']));
    // A guard decision whose hook named no transcript sits on the file it protected.
    t.apply({ added: [finding('late', '/old.jsonl'), finding('guard', '/ws/a.ts')], removed: [], updated: [] });
    assert.deepEqual(changes(t), { '/old.jsonl': [], '/ws/a.ts': ['guard'] });
  });

  void test('removing and resetting findings clear their files, hidden or not', () => {
    const t = new FindingTargets();
    const old = finding('old', '/old.jsonl', '/ws/a.ts');
    t.apply({ added: [old, finding('new', '/new.jsonl')], removed: [], updated: [] });
    t.hideSessions(new Set(['/old.jsonl']));
    changes(t);
    t.apply({ added: [], removed: [old], updated: [] });
    assert.deepEqual(changes(t), { '/old.jsonl': [], '/ws/a.ts': [] });
    t.reset([finding('old2', '/old.jsonl')]);
    assert.deepEqual(changes(t), { '/old.jsonl': [], '/new.jsonl': [], '/ws/a.ts': [] }, 'the hidden sessions stay hidden across a restart');
    t.hideSessions(new Set());
    assert.deepEqual(changes(t), { '/old.jsonl': ['old2'] });
  });
});

void describe('the setting', () => {
  void test('defaults to current, accepts all, and applies without re-reading the sessions', () => {
    assert.equal(parseSettings(() => undefined).settings['problems.sessions'], 'current');
    assert.equal(parseSettings((k) => (k === 'problems.sessions' ? 'all' : undefined)).settings['problems.sessions'], 'all');
    const bad = parseSettings((k) => (k === 'problems.sessions' ? 'recent' : undefined));
    assert.equal(bad.settings['problems.sessions'], 'current');
    assert.deepEqual(bad.problems.map((p) => p.key), ['agentGuard.problems.sessions']);
    assert.ok(viewOnlySettings.has('problems.sessions'));
  });
});
