import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
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
};

void describe('Gemini CLI 0.61 sessions, run here against a scripted model', () => {
  void test('every scenario is checked', () => {
    assert.deepEqual(readdirSync(root).filter((n) => n !== 'README.md').sort(), Object.keys(expected).sort());
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
