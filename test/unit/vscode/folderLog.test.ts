/**
 * What the extension's output channel shows of a folder's parts, built as the extension builds
 * them (folderParts) on temp folders, with a real hook process. Each part tags its own lines;
 * the extension tagged them again, and every line read `[guard] [guard] deny …`,
 * `[monitor] [monitor] … was replaced`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { defaultSettings } from '../../../src/core/config/settings';
import type { Logger } from '../../../src/core/lib/logger';
import { ServedLedgerView } from '../../../src/io/guard/ledger';
import type { GuardService } from '../../../src/io/guard/service';
import type { LiveMonitor } from '../../../src/io/liveMonitor';
import { newFolderMonitor, openFolderLedger, startFolderGuard, type FolderContext } from '../../../src/vscode/folderParts';
import { payloads, runHook } from '../guard/support/guardEnv';
import { ClaudeTranscript } from '../support/claude';
import { LiveEnv } from '../support/liveEnv';
import { waitFor } from '../support/wait';

/**
 * The lines a LogOutputChannel writes after its time stamp: the level, then the message and its
 * arguments joined by spaces (VS Code's log format).
 */
function outputChannel(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const entry =
    (level: string) =>
    (message: string | Error, ...args: unknown[]): void => {
      const text = [message instanceof Error ? message.message : message, ...args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a)))];
      lines.push(`[${level}] ${text.join(' ')}`);
    };
  return { lines, trace: entry('trace'), debug: entry('debug'), info: entry('info'), warn: entry('warn'), error: entry('error') };
}

const live = new LiveEnv();
let monitor: LiveMonitor | undefined;
let service: GuardService | undefined;
after(async () => {
  await service?.close();
  await monitor?.close();
  rmSync(live.root, { recursive: true, force: true });
});

void describe('the extension’s log of a folder', () => {
  void test('a denial and a transcript replaced: each line tagged once, the reason given once', async () => {
    const log = outputChannel();
    const dir = path.join(live.root, 'gd');
    const context: FolderContext = {
      folder: live.workspace,
      settings: defaultSettings,
      log,
      host: { isUserSave: () => false, userSavePending: () => undefined, dirtyBuffers: { isDirty: () => false }, version: 'test' },
      environment: { home: live.root, env: { CLAUDE_CONFIG_DIR: live.claudeDir, CODEX_HOME: live.codexHome } },
    };
    const readme = path.join(live.workspace, 'README.md');
    writeFileSync(readme, '# demo\n');
    mkdirSync(live.projectDir, { recursive: true });
    const ledger = await openFolderLedger(context, dir);
    monitor = newFolderMonitor(context, new ServedLedgerView(ledger));
    await monitor.start();
    service = await startFolderGuard(context, monitor, ledger, dir);

    const transcript = path.join(live.projectDir, 'c1.jsonl');
    const t = new ClaudeTranscript('c1', live.workspace).at(Date.now()).user('fix the readme');
    writeFileSync(transcript, t.text());
    await waitFor(() => monitor!.session(transcript)?.bytes === Buffer.byteLength(t.text()), 10_000, 'the transcript read');
    const edit = { file_path: readme, old_string: 'demo', new_string: 'Demo' };
    const r = await runHook(payloads.claude('PreToolUse', { sessionId: 'c1', transcript, cwd: live.workspace }, 'Edit', edit, 'toolu_E'), ['--agent', 'claude'], { AGENT_GUARD_DIR: dir });
    assert.equal(r.code, 2, r.stderr);
    assert.ok(
      log.lines.includes(
        '[info] [guard] deny Edit of README.md by claude session c1: unread-write: README.md already exists and you have not read it in this session. Read it first, then redo the edit.',
      ),
      log.lines.join('\n'),
    );

    const other = new ClaudeTranscript('c1', live.workspace).at(Date.now()).user('start over');
    const temp = path.join(live.projectDir, '.c1.tmp');
    writeFileSync(temp, other.text());
    renameSync(temp, transcript);
    const replaced = `[info] [monitor] ${transcript} was replaced; reading it again`;
    await waitFor(() => log.lines.includes(replaced), 10_000, () => `"${replaced}" in\n${log.lines.join('\n')}`);

    for (const line of log.lines) {
      assert.match(line, /^\[\w+\] \[[\w-]+\] (?!\[)/, 'one tag');
    }
  });
});
