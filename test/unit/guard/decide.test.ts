/** decide(): the pure verdict, as a table of states (rule-tester style: decisions and actions, plus the wording the model sees). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decide } from '../../../src/core/guard/decide';
import { defaultGuardPolicy, type GuardFileState, type GuardPolicy, type GuardRequest } from '../../../src/core/guard/types';

const cwd = '/home/dev/proj';
const file = `${cwd}/src/app.ts`;
const t0 = Date.parse('2026-03-01T14:02:07');
const h = (c: string): string => c.repeat(64);

function req(op: 'edit' | 'write' | 'create' | 'delete' | 'read' = 'edit', path = file): GuardRequest {
  return { agent: 'claude', sessionId: 's1', transcriptPath: '/t/s1.jsonl', cwd, tool: 'Edit', paths: [{ path, op }], toolUseId: 'toolu_1' };
}

function state(f: Partial<GuardFileState>): { files: GuardFileState[] } {
  return { files: [{ path: file, current: h('a'), changes: [], dirty: false, inflight: [], ...f }] };
}

const seenA = { at: t0 - 60_000, hash: h('a'), how: 'read' as const };

interface Row {
  name: string;
  s: Partial<GuardFileState>;
  op?: 'edit' | 'write' | 'create' | 'delete' | 'read';
  policy?: Partial<GuardPolicy>;
  action: 'allow' | 'warn' | 'deny';
  decisions: string[];
  reason?: RegExp;
}

const rows: Row[] = [
  { name: 'fresh read, same content', s: { seen: seenA }, action: 'allow', decisions: [] },
  { name: 'new file (does not exist), never read', s: { current: null }, op: 'write', action: 'allow', decisions: [] },
  {
    name: 'changed by the user after the read',
    s: { seen: seenA, current: h('b'), changes: [{ at: t0, by: { kind: 'user' }, mine: false, hash: h('b') }] },
    action: 'deny',
    decisions: ['stale-write'],
    reason: /^src\/app\.ts changed on disk after you last read it \(by the user at 14:02:07\)\. Read it again, then redo the edit\.$/,
  },
  {
    name: 'changed by another session, twice',
    s: {
      seen: seenA,
      current: h('c'),
      changes: [
        { at: t0 - 1000, by: { kind: 'session', session: '/t/s2.jsonl', sessionId: 's2' }, mine: false, hash: h('b') },
        { at: t0, by: { kind: 'session', session: '/t/s2.jsonl', sessionId: 's2' }, mine: false, hash: h('c') },
      ],
    },
    action: 'deny',
    decisions: ['stale-write'],
    reason: /by another session \(s2\) at 14:02:07, after 1 earlier change\)/,
  },
  {
    name: 'changed and changed back: the content is what the session saw',
    s: { seen: seenA, current: h('a'), changes: [{ at: t0 - 1, by: { kind: 'user' }, mine: false, hash: h('b') }, { at: t0, by: { kind: 'user' }, mine: false, hash: h('a') }] },
    action: 'allow',
    decisions: [],
  },
  {
    name: 'only the session’s own write changed it',
    s: { seen: seenA, current: h('b'), changes: [{ at: t0, by: { kind: 'session', session: '/t/s1.jsonl' }, mine: true, hash: h('b') }] },
    action: 'allow',
    decisions: [],
  },
  {
    name: 'different content and no change observed: stale, author unknown',
    s: { seen: seenA, current: h('b') },
    action: 'deny',
    decisions: ['stale-write'],
    reason: /by a writer the guard did not see/,
  },
  {
    name: 'seen without a hash (transcript, untracked) and a foreign change',
    s: { seen: { ...seenA, hash: undefined }, current: h('b'), changes: [{ at: t0, by: { kind: 'unknown' }, mine: false, hash: h('b') }] },
    action: 'deny',
    decisions: ['stale-write'],
    reason: /by an unattributed process at 14:02:07/,
  },
  {
    name: 'deleted after the read',
    s: { seen: seenA, current: null, changes: [{ at: t0, by: { kind: 'user' }, mine: false, hash: null }] },
    action: 'deny',
    decisions: ['stale-write'],
    reason: /^src\/app\.ts was deleted after you last read it \(by the user at 14:02:07\)/,
  },
  {
    name: 'after the session’s own write, "wrote" in the reason',
    s: { seen: { ...seenA, how: 'write' }, current: h('b'), changes: [{ at: t0, by: { kind: 'user' }, mine: false, hash: h('b') }] },
    op: 'write',
    action: 'deny',
    decisions: ['stale-write'],
    reason: /after you last wrote it .* Read it again, then redo the write\.$/,
  },
  {
    name: 'existing file never read',
    s: {},
    action: 'deny',
    decisions: ['unread-write'],
    reason: /^src\/app\.ts already exists and you have not read it in this session\. Read it first, then redo the edit\.$/,
  },
  { name: 'delete of a file never read: not a write-before-read', s: {}, op: 'delete', action: 'allow', decisions: [] },
  {
    name: 'dirty buffer',
    s: { seen: seenA, dirty: true },
    action: 'deny',
    decisions: ['dirty-buffer'],
    reason: /^src\/app\.ts has unsaved changes in the editor: writing it now would conflict with them\. Ask the user to save or discard them, then read src\/app\.ts again and redo the edit\.$/,
  },
  {
    name: 'another session writing it now',
    s: { seen: seenA, inflight: [{ label: 's2', since: t0 }] },
    action: 'deny',
    decisions: ['concurrent-write'],
    reason: /^Another session \(s2\) is writing src\/app\.ts right now \(since 14:02:07\)\. Wait until it is done, read src\/app\.ts again, then redo the edit\.$/,
  },
  {
    name: 'changed by its own sub-agent: named as the sub-agent, by its id',
    s: { seen: seenA, current: h('b'), changes: [{ at: t0, by: { kind: 'session', session: '/p/s1/subagents/agent-a1.jsonl', sessionId: 's1/agent-a1' }, mine: false, bySubAgent: true, hash: h('b') }] },
    action: 'deny',
    decisions: ['stale-write'],
    reason: /^src\/app\.ts changed on disk after you last read it \(by your sub-agent \(agent-a1\) at 14:02:07\)\. Read it again, then redo the edit\.$/,
  },
  {
    // A change the work tree credits to a transcript without an id (no hook opened the write).
    name: 'changed by its own sub-agent known only by its transcript: the transcript’s name, without folder or extension',
    s: { seen: seenA, current: h('b'), changes: [{ at: t0, by: { kind: 'session', session: 'C:\\Users\\dev\\.claude\\projects\\C--proj\\s1\\subagents\\agent-a1.jsonl' }, mine: false, bySubAgent: true, hash: h('b') }] },
    action: 'deny',
    decisions: ['stale-write'],
    reason: /^src\/app\.ts changed on disk after you last read it \(by your sub-agent \(agent-a1\) at 14:02:07\)\./,
  },
  {
    name: 'its own sub-agent writing it now: named as the sub-agent, not as another session',
    s: { seen: seenA, inflight: [{ label: 's1/agent-a1', since: t0, bySubAgent: true }] },
    action: 'deny',
    decisions: ['concurrent-write'],
    reason: /^Your sub-agent \(agent-a1\) is writing src\/app\.ts right now \(since 14:02:07\)\. Wait until it is done, read src\/app\.ts again, then redo the edit\.$/,
  },
  {
    name: 'everything at once: every hit kept, in order',
    s: { dirty: true, inflight: [{ label: 's2', since: t0 }] },
    action: 'deny',
    decisions: ['dirty-buffer', 'concurrent-write', 'unread-write'],
  },
  { name: 'stale set to warn', s: { seen: seenA, current: h('b') }, policy: { 'stale-write': 'warn' }, action: 'warn', decisions: ['stale-write'] },
  { name: 'stale set to off', s: { seen: seenA, current: h('b') }, policy: { 'stale-write': 'off' }, action: 'allow', decisions: [] },
  {
    name: 'warn and deny together: deny wins, the warning is still a hit',
    s: { dirty: true, seen: seenA, current: h('b') },
    policy: { 'dirty-buffer': 'warn' },
    action: 'deny',
    decisions: ['dirty-buffer', 'stale-write'],
  },
  { name: 'a read is never judged', s: { dirty: true }, op: 'read', action: 'allow', decisions: [] },
  {
    name: 'delete of a file changed since the read: stale, and the model is asked to decide again',
    s: { seen: seenA, current: h('b'), changes: [{ at: t0, by: { kind: 'user' }, mine: false, hash: h('b') }] },
    op: 'delete',
    action: 'deny',
    decisions: ['stale-write'],
    reason: /^src\/app\.ts changed on disk after you last read it \(by the user at 14:02:07\)\. Read it again, then decide again whether to delete it\.$/,
  },
  {
    // The transcript says the file was read, but not what it held, and the tree saw no change
    // since: there is nothing to tell a change by, so the write is not taken as stale.
    name: 'seen without a hash and no change observed: not stale',
    s: { seen: { ...seenA, hash: undefined }, current: h('b') },
    action: 'allow',
    decisions: [],
  },
  {
    // Codex CLI keeps a sub-agent in a rollout of its own, named by time and thread id: the
    // model knows the sub-agent by its thread id, not by the rollout's name.
    name: 'changed by its own Codex sub-agent: named by its thread id, not by its rollout',
    s: {
      seen: seenA,
      current: h('b'),
      changes: [
        {
          at: t0,
          by: { kind: 'session', session: '/home/dev/.codex/sessions/2026/03/01/rollout-2026-03-01T14-00-00-019bce9f-0a40-79e2-8351-8818e8487fb7.jsonl', sessionId: '019bce9f-0a40-79e2-8351-8818e8487fb7' },
          mine: false,
          bySubAgent: true,
          hash: h('b'),
        },
      ],
    },
    action: 'deny',
    decisions: ['stale-write'],
    reason: /\(by your sub-agent \(019bce9f-0a40-79e2-8351-8818e8487fb7\) at 14:02:07\)/,
  },
];

void describe('decide', () => {
  for (const r of rows) {
    void test(r.name, () => {
      const v = decide(req(r.op), state(r.s), { ...defaultGuardPolicy, ...r.policy });
      assert.equal(v.action, r.action);
      assert.deepEqual(
        v.hits.map((x) => x.decision),
        r.decisions,
      );
      if (r.action !== 'allow') {
        const top = v.hits.filter((x) => x.action === r.action);
        assert.equal(v.decision, top[0]!.decision);
        assert.equal(v.reason, top.map((x) => x.reason).join(' '));
      } else {
        assert.equal(v.reason, '');
      }
      if (r.reason) {
        assert.match(v.hits[0]!.reason, r.reason);
      }
    });
  }

  void test('several paths (a Codex patch): each judged, hits name their path', () => {
    const other = `${cwd}/src/b.ts`;
    const v = decide(
      { ...req(), paths: [{ path: file, op: 'edit' }, { path: other, op: 'create' }] },
      { files: [state({ seen: seenA }).files[0]!, { path: other, current: h('z'), changes: [], dirty: false, inflight: [] }] },
    );
    assert.equal(v.action, 'deny');
    assert.deepEqual(
      v.hits.map((x) => [x.decision, x.path]),
      [['unread-write', other]],
    );
    assert.match(v.reason, /^src\/b\.ts already exists/);
  });

  void test("Claude Code's own context files (the project's CLAUDE.md) are not unread writes; for other agents they are", () => {
    const claudeMd = `${cwd}/CLAUDE.md`;
    const files = [{ path: claudeMd, current: h('a'), changes: [], dirty: false, inflight: [] }];
    const edit = { ...req('edit', claudeMd) };
    assert.equal(decide(edit, { files }).action, 'allow');
    assert.deepEqual(
      decide({ ...edit, agent: 'gemini' }, { files }).hits.map((x) => x.decision),
      ['unread-write'],
    );
    // A CLAUDE.md of a subfolder is not loaded at start.
    const sub = `${cwd}/docs/CLAUDE.md`;
    assert.deepEqual(
      decide(req('edit', sub), { files: [{ ...files[0]!, path: sub }] }).hits.map((x) => x.decision),
      ['unread-write'],
    );
  });
});
