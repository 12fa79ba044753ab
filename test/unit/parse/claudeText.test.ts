/** Claude Code: which user text is the person's prompt, and which Claude Code wrote itself. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ClaudeTranscript } from '../support/claude';
import { run } from '../support/run';

const summary = 'This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis: …';

const prompts = (text: string): string[] =>
  run(text)
    .events.filter((e) => e.kind === 'text' && e.role === 'user' && e.prompt)
    .map((e) => (e.kind === 'text' ? (e.preview ?? '') : ''));

void describe('Claude Code: the compaction summary is not a prompt', () => {
  void test('as a string, and as a list of text blocks (isCompactSummary on either)', () => {
    for (const content of [summary, [{ type: 'text', text: summary }]]) {
      const t = new ClaudeTranscript().user('', { message: { role: 'user', content }, isCompactSummary: true }).user('go on');
      assert.deepEqual(prompts(t.text()), ['go on'], JSON.stringify(content).slice(0, 40));
    }
  });
});
