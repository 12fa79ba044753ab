import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { cli } from '../support/cli';
import { repoRoot } from '../support/repo';

/**
 * Sessions the real Gemini CLI 0.61.0 wrote here, driven by a scripted fake of the Gemini API
 * (tools/drive-gemini; how in the fixtures' README.md). Each scenario's findings, exactly: none for
 * the healthy ones, and for the others the one finding that is true (checked by hand against the
 * session, the workspace and the requests the fake API was sent).
 */
const root = path.join(repoRoot(), 'test', 'fixtures', 'generated', 'gemini-0.61');

const expected: Record<string, string[]> = {
  healthy: [],
  'parallel-reads': [],
  // A read and a write of one file in one response, in both orders: 0.61 runs a write alone, in
  // the response's order (the reads saw the file before and after the write, as ordered).
  'parallel-read-write': [],
  // The user changed line 2 between the read and the edit of line 1.
  'stale-edit': ['stale-write warning @12'],
  // The user changed line 2, then the model wrote the whole file from what it had read: lost.
  'stale-write': ['stale-write error @12'],
  // An edit whose old string is absent, a failing shell command, a read of a missing file.
  'failing-calls': [],
  // README.md was never read (read_many_files is not a tool of 0.61: that call failed); util.ts
  // was, by `cat src/util.ts` in a shell command.
  'other-tools': ['write-before-read warning @37'],
  // The resumed history sends the first run's read result twice (`<id>_response` and the user
  // turn that held it), as the fake API received it.
  resumed: ['duplicate-result error @13'],
  // The guard denied the stale write (its hook's reason is the call's error): nothing landed.
  'guarded-stale-write': [],
  // Compressed (interactive mode, 900,000 prompt tokens reported): the checkpoint of a summary
  // replaced the read; the edit after it is no finding.
  compressed: [],
  // `/compress`, then the user changed line 2 and the model wrote the whole file from its read of
  // before the compression: lost.
  'compressed-stale-write': ['stale-write error @20'],
  // Compressed mid-turn on --resume: the checkpoint keeps the prompt and a call whose result comes
  // after it (no finding); the error is the resumed history's, as in `resumed`.
  'resumed-compressed': ['duplicate-result error @15'],
  // A sub-agent (generalist, by invoke_agent) read and edited the file, in its own session file.
  'sub-agent': [],
  // The main session read the file, its sub-agent edited line 1, then the main session wrote the
  // whole file from its own read: the sub-agent's change was lost.
  'sub-agent-lost-update': ['stale-write error @17'],
  // The same with the guard and `watch`: the sub-agent's hooks come with the main session's id and
  // transcript, and are taken as the sub-agent's while its file is the newer; the main session's
  // write from its older read was denied (its result is the guard's reason), so nothing was lost.
  // (Before that, the guard credited the main session with the sub-agent's edit and let the write
  // through: the transcripts then held the same lost update as above.)
  'guarded-sub-agent-lost-update': [],
};

/** The session files of a scenario, relative to its chats folder. */
function sessionFiles(scenario: string): string[] {
  const chats = path.join(root, scenario, '.gemini', 'tmp', 'proj', 'chats');
  return readdirSync(chats, { recursive: true, encoding: 'utf8' })
    .filter((n) => n.endsWith('.jsonl'))
    .map((n) => n.split(path.sep).join('/'))
    .sort();
}

void describe('Gemini CLI 0.61 sessions, run here against a scripted model', () => {
  void test('every scenario is checked', () => {
    assert.deepEqual(readdirSync(root).filter((n) => n !== 'README.md').sort(), Object.keys(expected).sort());
  });

  void test('the compressed sessions hold a checkpoint of the summary', () => {
    for (const scenario of ['compressed', 'compressed-stale-write', 'resumed-compressed']) {
      const [file] = sessionFiles(scenario);
      const text = readFileSync(path.join(root, scenario, '.gemini', 'tmp', 'proj', 'chats', file!), 'utf8');
      assert.ok(text.split('\n').some((l) => l.startsWith('{"$set":{"messages":') && l.includes('<state_snapshot>')), scenario);
    }
  });

  void test("a sub-agent's session file, chats/<main session id>/<its id>.jsonl, is checked too", () => {
    for (const scenario of ['sub-agent', 'sub-agent-lost-update', 'guarded-sub-agent-lost-update']) {
      const files = sessionFiles(scenario);
      assert.equal(files.length, 2, scenario);
      const r = cli(['check', '--format', 'json', path.join(root, scenario)]);
      const out = JSON.parse(r.stdout) as { files: { file: string; session: string }[] };
      const sub = out.files.find((f) => /[\\/]chats[\\/][^\\/]+[\\/][^\\/]+\.jsonl$/.test(f.file));
      assert.ok(sub, `${scenario}: the sub-agent's file is checked`);
      assert.equal(out.files.length, 2, scenario);
    }
  });

  for (const [scenario, findings] of Object.entries(expected)) {
    void test(`${scenario}: ${findings.length === 0 ? 'no finding' : findings.join(', ')}`, () => {
      const r = cli(['check', '--format', 'json', path.join(root, scenario)]);
      assert.equal(r.code, findings.some((f) => f.includes(' error ')) ? 1 : 0, r.stderr);
      const out = JSON.parse(r.stdout) as { findings: { rule: string; severity: string; line: number }[]; files: { agent: string }[] };
      assert.ok(out.files.length > 0 && out.files.every((f) => f.agent === 'gemini'), 'every file read as a Gemini CLI session');
      assert.deepEqual(
        out.findings.map((f) => `${f.rule} ${f.severity} @${f.line}`),
        findings,
      );
    });
  }
});
