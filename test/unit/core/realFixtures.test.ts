/**
 * The real transcripts in test/fixtures/real (copied from public projects, see SOURCES.md).
 * Healthy sessions give no error; every finding below was checked by hand against the file.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { fixture } from '../support/repo';
import { brief, run } from '../support/run';

const root = fixture('real');

/** Expected findings per file (relative to test/fixtures/real), with why each is true. */
const expected: Record<string, string[]> = {
  // A PostToolUse hook (post-edit.sh, a formatter) rewrote `with_span(...) do` to
  // `with_span ... do` after the session's previous edit: each of these edits was applied on
  // top of lines the session never saw, outside the region it replaced — warnings. (The
  // formatter change before the edit at line 1306 fell inside the partial read at line 1302,
  // so the session did see it: no finding there.)
  'claude-code/spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl': [
    'stale-write@1061:527-624:warning',
    'stale-write@1073:527-624:warning',
    'stale-write@1139:527-631:warning',
    'stale-write@1151:527-624:warning',
    'stale-write@1221:527-626:warning',
  ],
  // call_esc_002 has no output before the next user message; call_esc_004 none before turn_aborted.
  'codex/kvsankar-agent-history/rejections-codex_with_escalation.jsonl': ['missing-result@11:380-392:error', 'missing-result@19:303-315:error'],
  // The file has no session_meta: it is the sample's "malformed" case.
  'codex/sessions-chronicle/codex_sessions/2026/01/18/rollout-2026-01-18T02-03-00-malformed.jsonl': ['unparseable-line@1:1-129:error'],
};

function transcripts(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) {
      return transcripts(p);
    }
    return p.endsWith('.jsonl') ? [p] : [];
  });
}

void describe('real transcripts', () => {
  const files = transcripts(root);
  void test('the fixture set is there', () => {
    assert.ok(files.length >= 17, `found ${files.length}`);
  });
  for (const file of files) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    void test(rel, () => {
      const { findings, stream } = run(readFileSync(file), { file });
      assert.deepEqual(brief(findings), expected[rel] ?? [], findings.map((f) => `${f.line}: ${f.message}`).join('\n'));
      const agent = rel.split('/')[0] === 'claude-code' ? 'claude-code' : rel.split('/')[0];
      assert.equal(stream.agent, agent, 'detected the right format');
    });
  }
});
