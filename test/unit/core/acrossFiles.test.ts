/** Findings settled across the files `check` reads together (see acrossFiles.ts). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { settleAcrossFiles, type FileOutcome } from '../../../src/core/engine/acrossFiles';
import type { Finding } from '../../../src/core/model/finding';

const planId = 'toolu_01PLANPLANPLANPLANPLANPL';

function finding(file: string, rule: string, messageId: string, callId?: string): Finding {
  return {
    id: `${rule}:${file}:${messageId}`,
    rule,
    severity: 'info',
    file,
    line: 9,
    column: 1,
    endLine: 9,
    endColumn: 2,
    message: 'm',
    agent: 'claude-code',
    session: 's',
    related: [],
    messageId,
    ...(callId !== undefined ? { callId } : {}),
  };
}

const open = (file: string, folder = '/p/a'): FileOutcome => ({ file, folder, findings: [finding(file, 'missing-result', 'planAtEnd', planId), finding(file, 'missing-result', 'atEnd', 'toolu_other')], carriedIn: [] });
const answer = (file: string, folder = '/p/a', ids = [planId]): FileOutcome => ({ file, folder, findings: [], carriedIn: ids });
const messages = (fs: Finding[]): string[] => fs.map((f) => f.messageId!);

void describe('settleAcrossFiles', () => {
  void test('a plan approval left open, answered at the start of another file of the same folder: settled; nothing else is', () => {
    const [old, next] = settleAcrossFiles([open('/p/a/old.jsonl'), answer('/p/a/new.jsonl')]);
    assert.deepEqual(messages(old!), ['atEnd']);
    assert.deepEqual(next, []);
  });

  void test('the answer in another folder, for another call, or in the same file: the finding stays', () => {
    assert.deepEqual(messages(settleAcrossFiles([open('/p/a/old.jsonl'), answer('/p/b/new.jsonl', '/p/b')])[0]!), ['planAtEnd', 'atEnd']);
    assert.deepEqual(messages(settleAcrossFiles([open('/p/a/old.jsonl'), answer('/p/a/new.jsonl', '/p/a', ['toolu_elsewhere'])])[0]!), ['planAtEnd', 'atEnd']);
    const self = { ...open('/p/a/old.jsonl'), carriedIn: [planId] };
    assert.deepEqual(messages(settleAcrossFiles([self])[0]!), ['planAtEnd', 'atEnd']);
  });

  void test('only the plan approval is settled so: any other open call with that id stays', () => {
    const other: FileOutcome = { file: '/p/a/old.jsonl', folder: '/p/a', findings: [finding('/p/a/old.jsonl', 'missing-result', 'atEnd', planId)], carriedIn: [] };
    assert.deepEqual(messages(settleAcrossFiles([other, answer('/p/a/new.jsonl')])[0]!), ['atEnd']);
  });
});
