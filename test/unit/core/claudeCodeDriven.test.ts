/**
 * Transcripts written by the real Claude Code 2.1.332 (its native Linux build), driven here
 * against a scripted stand-in for the API (tools/drive-claude; how, in the folder's README).
 * The model's moves are scripted; every record is Claude Code's own. They pin down how this
 * checker reads the newest format: what each call touches, how each result is read, and the
 * findings, which were checked against what the driver did to the files.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { parseHookPayload, type HookEvent } from '../../../src/core/guard/payload';
import type { NormalizedEvent } from '../../../src/core/model/events';
import { fixture } from '../support/repo';
import { brief, run } from '../support/run';

const root = fixture('generated/claude-code-2.1.332');

/** Calls with what they touch, and results with how they were read, in file order. */
function outline(events: readonly NormalizedEvent[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.kind === 'call') {
      out.push(`${e.at.line} ${e.tool}(${e.accesses.map((a) => `${a.op} ${path.basename(a.path)}`).join(', ')})`);
    } else if (e.kind === 'result') {
      const how = [e.isError ? 'error' : '', e.refused ? 'refused' : '', e.shape ?? ''].filter(Boolean);
      out.push([String(e.at.line), '=', ...how].join(' '));
    } else if (e.kind === 'reset' || e.kind === 'file-attached' || e.kind === 'file-changed-by-hook') {
      out.push(`${e.at.line} ${e.kind}`);
    }
  }
  return out;
}

interface Expected {
  outline: string[];
  findings: string[];
  /** What each finding's message must say, in order, where it matters. */
  messages?: RegExp[];
  /** Every path the calls touch matches this (a worktree's files are not the main folder's). */
  paths?: RegExp;
}

/**
 * Per transcript, by the first `[[key]]` marker in it: the scenario's name, or the name of the
 * prompt a script gave a sub-agent or a second session.
 */
const expected: Record<string, Expected> = {
  healthy: {
    outline: [
      '22 Read(read a.txt)',
      '23 Read(read b.txt)',
      '26 = read',
      '27 = read',
      '33 Edit(edit a.txt)',
      '34 = edit',
      '37 Bash(read b.txt)',
      '38 = shell',
      '41 Write(write c.txt)',
      '42 = write',
      '44 Edit(edit a.txt)',
      '45 Edit(edit b.txt)',
      '46 = edit',
      '47 = edit',
    ],
    findings: [],
  },
  // Claude Code runs the edit alone, then the read: its results come in that order.
  'read-and-edit-together': {
    outline: ['21 Read(read a.txt)', '24 = read', '30 Edit(edit a.txt)', '31 Read(read a.txt)', '32 = edit', '33 = read'],
    findings: [],
  },
  // The driver rewrote line 2 after the read; 2.1.332 applied the edit of line 1 anyway
  // (`staleRecovered`, with a note to the model): on top of a change it never saw, elsewhere.
  'changed-after-read': {
    outline: ['21 Read(read a.txt)', '24 = read', '30 Edit(edit a.txt)', '31 = edit'],
    findings: ['stale-write@30:291-338:warning'],
  },
  // The same, but the edit replaced part of the line the driver had changed.
  'changed-where-edited': {
    outline: ['21 Read(read a.txt)', '24 = read', '30 Edit(edit a.txt)', '31 = edit'],
    findings: ['stale-write@30:291-340:error'],
  },
  // Two edits of a.txt and a `sed -i` of b.txt in one message run one at a time, in order; the
  // shell write is the session's own, so the later edit of b.txt is not stale.
  'two-edits-one-message': {
    outline: [
      '21 Read(read a.txt)',
      '22 Read(read b.txt)',
      '25 = read',
      '26 = read',
      '32 Edit(edit a.txt)',
      '33 Edit(edit a.txt)',
      '34 Bash(edit b.txt)',
      '35 = edit',
      '37 = edit',
      '38 = shell',
      '40 Edit(edit b.txt)',
      '41 = edit',
    ],
    findings: [],
  },
  // The guard's PreToolUse hook denied the stale edit (exit 2): a refused call, not a write.
  'guard-denies': {
    outline: ['21 Read(read a.txt)', '24 = read', '30 Edit(edit a.txt)', '31 = error refused', '33 Read(read a.txt)', '34 = read', '36 Edit(edit a.txt)', '37 = edit'],
    findings: [],
  },
  'failing-calls': {
    outline: ['21 Read(read a.txt)', '24 = read', '28 Edit(edit a.txt)', '29 = error refused', '34 Bash(read missing.txt)', '35 = error'],
    findings: [],
  },
  // A 529 retried (a `system` api_error record), then a 400 that ended the run (Claude Code's
  // own "API Error: 400" turn); the resumed run's edit is no write before a read.
  'api-errors': {
    outline: ['21 Read(read a.txt)', '24 = read', '32 Bash(read b.txt)', '33 = shell', '53 Edit(edit a.txt)', '54 = edit'],
    findings: [],
  },
  // SIGINT while the command ran: Claude Code answers it as a call the user rejected.
  interrupted: {
    outline: ['21 Read(read a.txt)', '24 = read', '30 Bash()', '33 = error refused', '41 Edit(edit a.txt)', '42 = edit'],
    findings: [],
  },
  // The hook stripped the blank after ALPHA on line 1 (and after beta, on the line the second
  // edit quoted as it now is): the second edit went on top of a line 1 the session never saw.
  // Claude Code told the model only that a hook changed the file (`hook_additional_context`),
  // which names the writer in the finding.
  'formatter-hook': {
    outline: ['21 Read(read a.txt)', '24 = read', '28 Edit(edit a.txt)', '31 = edit', '32 file-changed-by-hook', '35 Edit(edit a.txt)', '36 = edit'],
    findings: ['stale-write@35:291-334:warning'],
    messages: [/file line 1 changed after the session last wrote the file \(transcript line 31\): a PostToolUse:Edit hook changed it, as Claude Code noted on line 32;/],
  },
  // 2.1.332 has no Grep or Glob (ToolSearch finds neither; the calls are refused), and it
  // applied an edit of a file the session never read, where earlier builds refused one.
  'edit-unread': {
    outline: ['21 ToolSearch()', '22 = other', '27 Grep()', '28 = error refused', '29 Glob()', '30 = error refused', '34 Grep()', '35 = error refused', '38 Edit(edit a.txt)', '39 = edit'],
    findings: ['write-before-read@38:291-331:warning'],
  },
  // `-p` with no permission to write: the call never ran.
  'permission-denied': { outline: ['21 Write(write c.txt)', '22 = error refused'], findings: [] },
  'background-shell': {
    outline: ['21 Bash(write done.txt)', '24 = shell', '29 Bash()', '31 = shell', '37 Read(read done.txt)', '38 = read'],
    findings: [],
  },
  // Two sessions at once: B read and edited line 2 after A's read, then A edited line 1 on top
  // of B's change, which A never saw. (The line numbers of two sessions written at once move
  // between drives; these are the committed files'.)
  'two-sessions-a': { outline: ['21 Read(read a.txt)', '24 = read', '30 Edit(edit a.txt)', '31 = edit'], findings: ['stale-write@30:291-332:warning'] },
  'two-sessions-b': { outline: ['21 Read(read a.txt)', '24 = read', '28 Edit(edit a.txt)', '31 = edit'], findings: [] },
  // The same with the guard: it denied A's edit, naming session B as the writer.
  'two-sessions-guarded-a': { outline: ['21 Read(read a.txt)', '24 = read', '30 Edit(edit a.txt)', '31 = error refused'], findings: [] },
  'two-sessions-guarded-b': { outline: ['23 Read(read a.txt)', '24 = read', '28 Edit(edit a.txt)', '31 = edit'], findings: [] },
  subagent: { outline: ['21 Agent()', '22 = other', '28 Read(read a.txt)', '29 = read'], findings: [] },
  // 2.1.332 writes no `toolUseResult` in a sub-agent's file: its results are plain text.
  'subagent-child': { outline: ['14 Read(read a.txt)', '15 =', '20 Edit(edit a.txt)', '21 ='], findings: [] },
  // The main session read a.txt; its sub-agent (in the foreground: `run_in_background: false`)
  // read it and edited line 2. Claude Code refused the main session's whole-file Write from its
  // older read itself ("File has been modified since read"), but applied its Edit of line 1 from
  // that read on top of the sub-agent's change (`staleRecovered`).
  'subagent-lost-update': {
    outline: ['21 Read(read a.txt)', '22 = read', '28 Agent()', '30 = other', '33 Write(write a.txt)', '34 = error refused', '36 Edit(edit a.txt)', '37 = edit'],
    findings: ['stale-write@36:292-341:warning'],
    messages: [/^Edit was applied to a\.txt on top of a change this session never saw: file line 2 changed after the session last read the file \(transcript line 22\)/],
  },
  'subagent-lost-update-child': { outline: ['14 Read(read a.txt)', '15 =', '20 Edit(edit a.txt)', '21 ='], findings: [] },
  // The same with the guard: the sub-agent's hooks carried the main session's ids and its
  // agent_id; the guard took its read and edit as its own transcript's and denied the main
  // session's Edit (the Write never reached the hook: Claude Code refused it first).
  'subagent-lost-update-guarded': {
    outline: ['21 Read(read a.txt)', '24 = read', '30 Agent()', '32 = other', '35 Write(write a.txt)', '36 = error refused', '38 Edit(edit a.txt)', '39 = error refused'],
    findings: [],
  },
  'subagent-lost-update-guarded-child': { outline: ['14 Read(read a.txt)', '15 =', '20 Edit(edit a.txt)', '21 ='], findings: [] },
  // A sub-agent in its own worktree (`isolation: worktree`, launched in the background): its
  // records name the worktree as their folder, so its relative paths are the worktree's files.
  'subagent-worktree': {
    outline: ['21 Agent()', '24 = other', '28 Read(read a.txt)', '31 = read', '35 Edit(edit a.txt)', '36 = edit'],
    findings: [],
    paths: /^\/tmp\/agent-guard-drive\/subagent-worktree\/a\.txt$/,
  },
  'subagent-worktree-child': {
    outline: ['14 Bash(read a.txt)', '15 =', '20 Bash(edit a.txt)', '21 ='],
    findings: [],
    paths: /^\/tmp\/agent-guard-drive\/subagent-worktree\/\.claude\/worktrees\/agent-[0-9a-f]+\/a\.txt$/,
  },
  resumed: { outline: ['21 Read(read a.txt)', '24 = read', '37 Edit(edit a.txt)', '38 = edit'], findings: [] },
  // After `/compact`, Claude Code attached a.txt again (line 41): the edit after it is no
  // write before a read.
  compacted: {
    outline: ['21 Read(read a.txt)', '24 = read', '36 reset', '41 file-attached', '65 Edit(edit a.txt)', '69 = edit'],
    findings: [],
  },
};

function transcripts(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? transcripts(p) : p.endsWith('.jsonl') ? [p] : [];
  });
}

void describe('Claude Code 2.1.332, driven against a scripted model', () => {
  const files = transcripts(root);
  void test('every scenario is there', () => {
    const keys = files.map((f) => keyOf(f)).sort();
    assert.deepEqual(keys, Object.keys(expected).sort());
  });
  for (const file of files) {
    const key = keyOf(file);
    void test(key, () => {
      const { findings, events, stream } = run(readFileSync(file), { file });
      assert.equal(stream.agent, 'claude-code');
      const want = expected[key];
      assert.ok(want, `no expectation for ${key}`);
      assert.deepEqual(outline(events), want.outline);
      assert.deepEqual(brief(findings), want.findings, findings.map((f) => `${f.line}: ${f.message}`).join('\n'));
      (want.messages ?? []).forEach((m, i) => assert.match(findings[i]?.message ?? '', m));
      if (want.paths) {
        for (const e of events) {
          for (const a of e.kind === 'call' ? e.accesses : []) {
            assert.match(a.path, want.paths);
          }
        }
      }
    });
  }
});

function keyOf(file: string): string {
  return /\[\[([a-z0-9-]+)\]\]/.exec(readFileSync(file, 'utf8'))?.[1] ?? path.basename(file);
}

/**
 * What Claude Code 2.1.332 sent every PreToolUse and PostToolUse hook in
 * `subagent-lost-update-guarded`, as sent (a hook beside the guard's kept its stdin).
 */
void describe("Claude Code 2.1.332's hook payloads: a sub-agent's calls (subagent-lost-update-guarded)", () => {
  const payloads = readFileSync(path.join(root, 'subagent-lost-update-guarded.hook-payloads.ndjson'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const events = payloads.map((p) => {
    const r = parseHookPayload(p, 'claude');
    assert.equal(r.kind, 'event', JSON.stringify(r));
    return (r as { event: HookEvent }).event;
  });
  const folder = path.join(root, 'subagent-lost-update-guarded', '-tmp-agent-guard-drive-subagent-lost-update-guarded');
  const main = readdirSync(folder).find((n) => n.endsWith('.jsonl'))!;
  const session = main.slice(0, -'.jsonl'.length);
  const sub = readdirSync(path.join(folder, session, 'subagents'))[0]!;
  const agentId = /^agent-(.+)\.jsonl$/.exec(sub)![1]!;

  void test("every hook names the main session and its transcript; the sub-agent's also its agent_id and agent_type", () => {
    assert.deepEqual(
      payloads.map((p) => [p['hook_event_name'], p['tool_name'], p['tool_use_id'], p['agent_id'] ?? '-', p['agent_type'] ?? '-']),
      [
        ['PreToolUse', 'Read', 'toolu_01Drivelug001', '-', '-'],
        ['PostToolUse', 'Read', 'toolu_01Drivelug001', '-', '-'],
        ['PreToolUse', 'Agent', 'toolu_01Drivelug002', '-', '-'],
        ['PreToolUse', 'Read', 'toolu_01Drivelugc001', agentId, 'general-purpose'],
        ['PostToolUse', 'Read', 'toolu_01Drivelugc001', agentId, 'general-purpose'],
        ['PreToolUse', 'Edit', 'toolu_01Drivelugc002', agentId, 'general-purpose'],
        ['PostToolUse', 'Edit', 'toolu_01Drivelugc002', agentId, 'general-purpose'],
        ['PostToolUse', 'Agent', 'toolu_01Drivelug002', '-', '-'],
        // No hook for the Write (toolu_01Drivelug003): Claude Code refused it before the hooks.
        // Denied by the guard: no PostToolUse follows.
        ['PreToolUse', 'Edit', 'toolu_01Drivelug004', '-', '-'],
      ],
    );
    for (const p of payloads) {
      assert.equal(p['session_id'], session);
      assert.equal(path.basename(p['transcript_path'] as string), main);
    }
  });

  void test("the guard takes a sub-agent's call as its own transcript's, <session>/subagents/agent-<agent_id>.jsonl", () => {
    for (const [i, e] of events.entries()) {
      const p = payloads[i]!;
      const want = p['agent_id'] === undefined ? p['transcript_path'] : `${(p['transcript_path'] as string).slice(0, -'.jsonl'.length)}/subagents/agent-${agentId}.jsonl`;
      assert.equal(e.transcriptPath, want, `${e.eventName} ${e.tool} ${e.toolUseId}`);
      assert.equal(e.sessionId, session);
    }
    // That is the file Claude Code wrote the sub-agent's calls to.
    const subEvent = events.find((e) => e.toolUseId === 'toolu_01Drivelugc002')!;
    const rel = subEvent.transcriptPath!.split('/.claude/projects/')[1]!;
    assert.ok(existsSync(path.join(root, 'subagent-lost-update-guarded', rel)), rel);
    assert.match(readFileSync(path.join(root, 'subagent-lost-update-guarded', rel), 'utf8'), /"id":"toolu_01Drivelugc002"/);
  });
});
