/**
 * The guard's decisions outlive a read of their transcript from its start: a re-check, the file
 * truncated or replaced (a repair renames over it), a new monitor on the same ledger (the
 * extension's, after a settings change). A denial whose call the transcript does not hold was
 * reported only by the guard service, when it decided: the re-read reported it nowhere, so it
 * was taken back for good. Real hook processes, a real service and monitor on temp folders.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, renameSync, truncateSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import type { RuleConfig } from '../../../src/core/config/ruleConfig';
import type { Finding } from '../../../src/core/model/finding';
import { LiveMonitor } from '../../../src/io/liveMonitor';
import { ClaudeTranscript } from '../support/claude';
import { waitFor } from '../support/wait';
import { GuardEnv, payloads } from './support/guardEnv';

let env: GuardEnv | undefined;
const extra: LiveMonitor[] = [];
afterEach(async () => {
  await Promise.all(extra.splice(0).map((m) => m.close()));
  await env?.dispose();
  env = undefined;
});

const guardOn = (findings: readonly Finding[]): string[] =>
  findings.filter((f) => f.rule === 'guard').map((f) => `${f.line}:${f.messageId}:${f.severity}:${f.subject?.path ?? ''}`);

/**
 * A Claude Code session that has not read README.md, read by the monitor up to `lines`
 * lines, and the guard's denial of its Edit of README.md.
 */
async function deniedEdit(
  config?: RuleConfig,
): Promise<{ g: GuardEnv; t: ClaudeTranscript; transcript: string; readme: string; write: (lines: number) => Promise<void>; edit: Record<string, unknown> }> {
  env = new GuardEnv();
  const g = env;
  const readme = g.file('README.md', '# demo\n');
  await g.start(config ? { monitor: { config } } : {});
  const monitor = g.live.monitor!;
  mkdirSync(g.live.projectDir, { recursive: true });
  const transcript = path.join(g.live.projectDir, 'c1.jsonl');
  const t = new ClaudeTranscript('c1', g.workspace).at(Date.now()).user('fix the readme').say('m1', 'Looking at it.');
  const write = async (lines: number): Promise<void> => {
    const text = t.lines.slice(0, lines).map((l) => l + '\n').join('');
    writeFileSync(transcript, text);
    await waitFor(() => monitor.session(transcript)?.bytes === Buffer.byteLength(text), 10_000, `the transcript read up to line ${lines}`);
    await monitor.idle();
  };
  await write(2);
  const edit = { file_path: readme, old_string: 'demo', new_string: 'Demo' };
  const r = await g.hook(payloads.claude('PreToolUse', { sessionId: 'c1', transcript, cwd: g.workspace }, 'Edit', edit, 'toolu_E'), ['--agent', 'claude']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /^README\.md already exists and you have not read it in this session/);
  return { g, t, transcript, readme, write, edit };
}

void describe('the guard’s decisions and a transcript read again', () => {
  void test('a re-check keeps a denial whose call the transcript does not hold, where it was; Clear Findings then a re-check brings it back', async () => {
    const { g, t, transcript, readme, write } = await deniedEdit();
    const monitor = g.live.monitor!;
    assert.deepEqual(guardOn(monitor.findings.forFile(transcript)), [`2:unread-write:error:${readme}`], 'on the last line read');
    // The session goes on (the call itself never reaches the transcript).
    t.say('m2', 'I will read it first.');
    await write(3);

    await monitor.recheck();
    assert.deepEqual(guardOn(monitor.findings.forFile(transcript)), [`2:unread-write:error:${readme}`], 'kept, where it was');
    assert.deepEqual(guardOn(g.live.removed), [], 'never taken back');
    assert.equal(guardOn(g.live.announced).length, 1, 'announced once');

    monitor.findings.clear();
    await monitor.recheck();
    assert.deepEqual(guardOn(monitor.findings.forFile(transcript)), [`3:unread-write:error:${readme}`], 'rebuilt from the ledger, on the last line');
    const f = monitor.findings.forFile(transcript).find((x) => x.rule === 'guard')!;
    assert.equal(f.message, 'The guard denied Edit of README.md: the session had never read the existing file. The agent was told: README.md already exists and you have not read it in this session. Read it first, then redo the edit.');
    assert.deepEqual([f.session, f.agent, f.callId], ['c1', 'claude-code', 'toolu_E']);
  });

  void test('replaced by a rename (as a repair writes it), then truncated: a denial whose call the transcript never held stays', async () => {
    const { g, t, transcript, readme, write } = await deniedEdit();
    const monitor = g.live.monitor!;
    t.say('m2', 'Reading it.').say('m3', 'Done.');
    await write(4);
    assert.deepEqual(guardOn(monitor.findings.forFile(transcript)), [`2:unread-write:error:${readme}`]);

    // Another second line (a repair rewrites what follows its first change).
    const repaired = [t.lines[0]!, t.lines[1]!.replace('Looking at it.', 'Looking at it now.'), ...t.lines.slice(2)];
    const temp = path.join(g.live.projectDir, '.c1.repair');
    writeFileSync(temp, repaired.map((l) => l + '\n').join(''));
    renameSync(temp, transcript);
    await waitFor(() => g.live.logs.some((l) => l.includes(`${transcript} was replaced`)), 10_000, () => `the replacement seen: ${g.live.logs.join(' | ')}`);
    await waitFor(() => monitor.session(transcript)?.bytes === Buffer.byteLength(repaired.map((l) => l + '\n').join('')), 10_000, 'the new file read');
    await monitor.idle();
    assert.deepEqual(guardOn(monitor.findings.forFile(transcript)), [`2:unread-write:error:${readme}`], 'where it was');

    // Cut back to its first line: the line the finding was on is gone.
    truncateSync(transcript, Buffer.byteLength(repaired[0]! + '\n'));
    appendFileSync(transcript, '');
    await waitFor(() => g.live.logs.some((l) => l.includes(`${transcript} was truncated`)), 10_000, () => `the truncation seen: ${g.live.logs.join(' | ')}`);
    await waitFor(() => monitor.session(transcript)?.bytes === Buffer.byteLength(repaired[0]! + '\n'), 10_000, 'the truncated transcript read');
    await monitor.idle();
    assert.deepEqual(guardOn(monitor.findings.forFile(transcript)), [`1:unread-write:error:${readme}`], 'on the last line there is');
    assert.deepEqual(guardOn(g.live.removed), [], 'never taken back');
  });

  void test('a denial whose call is in the transcript stays on the call through a re-check, a truncation and a replacement that keep it', async () => {
    const { g, t, transcript, readme, write, edit } = await deniedEdit();
    const monitor = g.live.monitor!;
    t.call('m2', 'toolu_E', 'Edit', edit).result('toolu_E', 'README.md already exists and you have not read it in this session.', { isError: true }).say('m3', 'Reading it first.');
    await write(5);
    const call = t.lineOf('"toolu_E","name"');
    const onCall = [`${call}:unread-write:error:${readme}`];
    await waitFor(() => guardOn(monitor.findings.forFile(transcript)).join() === onCall.join(), 10_000, 'the finding on its call');

    await monitor.recheck();
    assert.deepEqual(guardOn(monitor.findings.forFile(transcript)), onCall);

    const kept = t.lines.slice(0, 4).map((l) => l + '\n').join('');
    truncateSync(transcript, Buffer.byteLength(kept));
    appendFileSync(transcript, '');
    await waitFor(() => monitor.session(transcript)?.bytes === Buffer.byteLength(kept) && monitor.lastLine(transcript) === 4, 10_000, 'the truncated transcript read');
    await monitor.idle();
    assert.deepEqual(guardOn(monitor.findings.forFile(transcript)), onCall);

    const repaired = [t.lines[0]!, t.lines[1]!.replace('Looking at it.', 'Looking at it now.'), ...t.lines.slice(2)].map((l) => l + '\n').join('');
    const temp = path.join(g.live.projectDir, '.c1.repair');
    writeFileSync(temp, repaired);
    renameSync(temp, transcript);
    await waitFor(() => g.live.logs.some((l) => l.includes(`${transcript} was replaced`)), 10_000, () => `the replacement seen: ${g.live.logs.join(' | ')}`);
    await waitFor(() => monitor.session(transcript)?.bytes === Buffer.byteLength(repaired), 10_000, 'the new file read');
    await monitor.idle();
    assert.deepEqual(guardOn(monitor.findings.forFile(transcript)), onCall);
    assert.deepEqual(guardOn(g.live.removed), [], 'never taken back');
  });

  void test('a new monitor on the same ledger (the extension’s after a settings change) reports the denial again; with the rule off it does not', async () => {
    const { g, transcript, readme } = await deniedEdit();
    const start = async (config?: RuleConfig): Promise<LiveMonitor> => {
      const m = new LiveMonitor({
        workspace: g.workspace,
        environment: { home: g.live.root, env: { CLAUDE_CONFIG_DIR: g.live.claudeDir, CODEX_HOME: g.live.codexHome } },
        pendingPollMs: 50,
        hookLedger: g.ledger,
        ...(config ? { config } : {}),
      });
      extra.push(m);
      await m.start();
      return m;
    };
    const next = await start();
    assert.deepEqual(guardOn(next.findings.forFile(transcript)), [`2:unread-write:error:${readme}`]);
    const off = await start({ levels: { guard: 'off' }, options: {} });
    assert.deepEqual(guardOn(off.findings.forFile(transcript)), []);
  });

  void test('the guard rule’s configured severity applies from the moment the service decides, not only once the call’s line is read; off reports nothing', async () => {
    const { g, t, transcript, readme, write, edit } = await deniedEdit({ levels: { guard: 'warning' }, options: {} });
    const monitor = g.live.monitor!;
    assert.deepEqual(guardOn(monitor.findings.forFile(transcript)), [`2:unread-write:warning:${readme}`], 'at decision time');
    t.call('m2', 'toolu_E', 'Edit', edit).result('toolu_E', 'README.md already exists and you have not read it in this session.', { isError: true });
    await write(4);
    const call = t.lineOf('"toolu_E","name"');
    await waitFor(() => guardOn(monitor.findings.forFile(transcript)).join() === `${call}:unread-write:warning:${readme}`, 10_000, () => `moved to its call: ${guardOn(monitor.findings.forFile(transcript)).join()}`);
    assert.deepEqual(guardOn(g.live.announced).map((x) => x.split(':')[2]), ['warning'], 'never announced as an error');
    await env!.dispose();

    const off = await deniedEdit({ levels: { guard: 'off' }, options: {} });
    assert.deepEqual(guardOn(off.g.live.monitor!.findings.forFile(off.transcript)), [], 'the hook still denied (deniedEdit checks it), but nothing is reported');
    assert.deepEqual(guardOn(off.g.live.announced), []);
  });
});
