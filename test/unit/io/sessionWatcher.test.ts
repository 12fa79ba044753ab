/**
 * Session discovery details that the live monitor's tests do not pin down.
 */
import assert from 'node:assert/strict';
import { appendFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { encodeClaudeProject, geminiProjectHash } from '../../../src/core/discovery/locations';
import { findWorkspaceSessions, sameFile } from '../../../src/io/discovery';
import { SessionWatcher, type SessionFileEvent, type SessionWatcherOptions } from '../../../src/io/sessionWatcher';
import { sleep, waitFor } from '../support/wait';

let cleanup: (() => Promise<void>) | undefined;
afterEach(async () => {
  await cleanup?.();
  cleanup = undefined;
});

/** A watcher of `opts`, started, with the events it reports; the test's cleanup closes it and removes `root`. */
async function started(root: string, opts: SessionWatcherOptions): Promise<{ watcher: SessionWatcher; events: SessionFileEvent[] }> {
  const watcher = new SessionWatcher(opts);
  const events: SessionFileEvent[] = [];
  watcher.onDidChange((e) => events.push(e));
  cleanup = async () => {
    await watcher.close();
    rmSync(root, { recursive: true, force: true });
  };
  await watcher.start();
  return { watcher, events };
}

/**
 * A workspace at `real` opened through `link` (a symbolic link to it), in a temp `root`, and
 * Claude Code's (empty) project folder for it, named after the real path as Claude Code names it.
 */
function linkedWorkspace(): { root: string; real: string; link: string; claudeDir: string; project: string } {
  const root = realpathSync.native(mkdtempSync(path.join(os.tmpdir(), 'ag-sw-')));
  const real = path.join(root, 'disk', 'app');
  const link = path.join(root, 'app');
  mkdirSync(real, { recursive: true });
  symlinkSync(real, link, 'dir');
  const claudeDir = path.join(root, 'claude');
  const project = path.join(claudeDir, 'projects', encodeClaudeProject(real));
  mkdirSync(project, { recursive: true });
  return { root, real, link, claudeDir, project };
}

void describe('session watcher', () => {
  void test('sameFile: one file named through a link and by its real path, existing or not yet', () => {
    const root = realpathSync.native(mkdtempSync(path.join(os.tmpdir(), 'ag-sf-')));
    try {
      const real = path.join(root, 'disk', 'app');
      mkdirSync(real, { recursive: true });
      const link = path.join(root, 'app');
      symlinkSync(real, link, 'dir');
      writeFileSync(path.join(real, 'a.ts'), 'x');
      assert.equal(sameFile(path.join(link, 'a.ts'), path.join(real, 'a.ts')), true);
      assert.equal(sameFile(path.join(link, 'new.ts'), path.join(real, 'new.ts')), true, 'a file not written yet');
      assert.equal(sameFile(path.join(link, 'a.ts'), path.join(real, 'b.ts')), false);
      assert.equal(sameFile('/no/such/dir/a.ts', '/no/such/dir/a.ts'), true);
      assert.equal(sameFile('/no/such/dir/a.ts', '/no/such/other/a.ts'), false);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  void test('a workspace opened through a symbolic link: the sessions the agents filed under its real path are found, live and by check', async () => {
    // Claude Code names its project folder after the real path; Codex records the real cwd.
    const { root, real, link, claudeDir, project } = linkedWorkspace();
    const claudeFile = path.join(project, '11111111-2222-4333-8444-555555555555.jsonl');
    writeFileSync(claudeFile, JSON.stringify({ type: 'user', uuid: 'u1', parentUuid: null, sessionId: '11111111-2222-4333-8444-555555555555', cwd: real, message: { role: 'user', content: 'go' } }) + '\n');
    const codexHome = path.join(root, 'codex');
    const day = path.join(codexHome, 'sessions', '2026', '01', '02');
    mkdirSync(day, { recursive: true });
    const rollout = path.join(day, 'rollout-2026-01-02T03-04-05-s1.jsonl');
    writeFileSync(rollout, JSON.stringify({ timestamp: '2026-01-02T03:04:05.000Z', type: 'session_meta', payload: { id: 's1', cwd: path.join(real, 'sub') } }) + '\n');
    const environment = { home: root, env: { CODEX_HOME: codexHome, CLAUDE_CONFIG_DIR: claudeDir } };
    const expected = [
      { file: claudeFile, agent: 'claude-code' },
      { file: rollout, agent: 'codex' },
    ];

    const found = await findWorkspaceSessions(link, environment);
    assert.deepEqual(
      found.transcripts.map((t) => ({ file: t.file, agent: t.agent })).sort((a, b) => a.file.localeCompare(b.file)),
      [...expected].sort((a, b) => a.file.localeCompare(b.file)),
    );

    const { events } = await started(root, { workspace: link, environment, agents: { gemini: false, amplifier: false } });
    await waitFor(() => events.length >= 2, 10_000, 'both sessions to be found');
    assert.deepEqual(
      events.map((e) => ({ file: e.file, agent: e.agent })).sort((a, b) => a.file.localeCompare(b.file)),
      [...expected].sort((a, b) => a.file.localeCompare(b.file)),
    );
  });

  void test('disposed while it starts: it sets no poll that nothing would clear', async (t) => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'ag-sw-'));
    const workspace = path.join(root, 'ws');
    mkdirSync(path.join(root, 'claude', 'projects', encodeClaudeProject(workspace)), { recursive: true });
    const watcher = new SessionWatcher({ workspace, environment: { home: root, env: { CLAUDE_CONFIG_DIR: path.join(root, 'claude') } }, pendingPollMs: 5 });
    cleanup = async () => {
      await watcher.close();
      rmSync(root, { recursive: true, force: true });
    };
    const intervals = t.mock.method(globalThis, 'setInterval');
    const starting = watcher.start();
    watcher.dispose();
    await starting;
    assert.equal(intervals.mock.callCount(), 0);
  });

  void test('a Codex rollout whose session_meta was not complete when first seen is asked about again without another file event', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'ag-sw-'));
    const workspace = path.join(root, 'ws');
    const codexHome = path.join(root, 'codex');
    const day = path.join(codexHome, 'sessions', '2026', '01', '02');
    mkdirSync(workspace, { recursive: true });
    mkdirSync(day, { recursive: true });
    const rollout = path.join(day, 'rollout-2026-01-02T03-04-05-s1.jsonl');
    const meta = JSON.stringify({ timestamp: '2026-01-02T03:04:05.000Z', type: 'session_meta', payload: { id: 's1', cwd: workspace } });
    // Half of the first record: not yet a rollout of this workspace, nor of any other.
    writeFileSync(rollout, meta.slice(0, 40));

    // chokidar polls only once a minute here, so the rest of the record arriving makes no event
    // it would report within the test: only the watcher's own looking again can find it.
    const { events } = await started(root, {
      workspace,
      environment: { home: root, env: { CODEX_HOME: codexHome, CLAUDE_CONFIG_DIR: path.join(root, 'claude') } },
      agents: { 'claude-code': false, gemini: false, amplifier: false },
      usePolling: true,
      pollIntervalMs: 60_000,
      pendingPollMs: 200,
    });
    assert.deepEqual(events, [], 'not judged yet: nothing reported');

    appendFileSync(rollout, meta.slice(40) + '\n');
    await waitFor(() => events.length > 0, 10_000, 'the rollout to be taken up');
    assert.deepEqual(events, [{ type: 'add', file: rollout, agent: 'codex' }]);
  });

  void test('a rollout that cannot be judged (legacy, no session_meta) is no longer read on every poll; a change still brings it back', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'ag-sw-'));
    const workspace = path.join(root, 'ws');
    const codexHome = path.join(root, 'codex');
    const day = path.join(codexHome, 'sessions', '2025', '05', '01');
    mkdirSync(workspace, { recursive: true });
    mkdirSync(day, { recursive: true });
    const legacy = (id: string): string =>
      [
        JSON.stringify({ id, timestamp: '2025-05-01T10:00:00.000Z', instructions: null }),
        JSON.stringify({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] }),
      ].join('\n') + '\n';
    const meta = (id: string): string => JSON.stringify({ timestamp: '2025-05-01T10:00:00.000Z', type: 'session_meta', payload: { id, cwd: workspace } }) + '\n';
    const polled = path.join(day, 'rollout-2025-05-01T10-00-00-p1.jsonl');
    const watched = path.join(day, 'rollout-2025-05-01T10-00-00-w1.jsonl');
    writeFileSync(polled, legacy('p1'));
    writeFileSync(watched, legacy('w1'));
    const env = { home: root, env: { CODEX_HOME: codexHome, CLAUDE_CONFIG_DIR: path.join(root, 'claude') } };
    const agents = { 'claude-code': false, gemini: false, amplifier: false };
    // Both look again every 5 ms: their 60 tries are over well within the 1.5 s waited below.
    // One watcher whose chokidar polls only once a minute: only its own retries could see a change.
    const quiet = new SessionWatcher({ workspace, environment: env, agents, usePolling: true, pollIntervalMs: 60_000, pendingPollMs: 5 });
    // One with native file events: a change is seen.
    const live = new SessionWatcher({ workspace, environment: env, agents, pendingPollMs: 5 });
    const quietEvents: SessionFileEvent[] = [];
    const liveEvents: SessionFileEvent[] = [];
    quiet.onDidChange((e) => quietEvents.push(e));
    live.onDidChange((e) => liveEvents.push(e));
    cleanup = async () => {
      await Promise.all([quiet.close(), live.close()]);
      rmSync(root, { recursive: true, force: true });
    };
    await Promise.all([quiet.start(), live.start()]);
    await sleep(1500);

    // The file becomes judgeable without an event the quiet watcher would see: were it still
    // polled, the next poll would take it up.
    writeFileSync(polled, meta('p1'));
    await sleep(500);
    assert.deepEqual(quietEvents, [], 'given up on: no longer read on every poll');

    writeFileSync(watched, meta('w1'));
    await waitFor(() => liveEvents.some((e) => e.file === watched), 10_000, 'the changed rollout taken up');
    assert.deepEqual(liveEvents.filter((e) => e.file === watched), [{ type: 'add', file: watched, agent: 'codex' }]);
  });

  void test('Gemini CLI legacy sessions (one JSON document) are watched; other .json files are not', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'ag-sw-'));
    const workspace = path.join(root, 'ws');
    const project = path.join(root, '.gemini', 'tmp', geminiProjectHash(workspace));
    const chats = path.join(project, 'chats');
    const claudeProject = path.join(root, 'claude', 'projects');
    const extra = path.join(root, 'extra');
    for (const d of [workspace, path.join(chats, 'parent-id'), claudeProject, path.join(extra, 'chats', 'parent-id')]) {
      mkdirSync(d, { recursive: true });
    }
    const { watcher, events } = await started(root, {
      workspace,
      environment: { home: root, env: { CODEX_HOME: path.join(root, 'codex'), CLAUDE_CONFIG_DIR: path.join(root, 'claude') } },
      extraFolders: [extra],
      pendingPollMs: 50,
    });
    const doc = '{"sessionId":"s","projectHash":"h","startTime":"t","lastUpdated":"t","messages":[]}';
    // An extra folder takes the files `check` reads in a folder: a copied chats/ folder's too.
    const sessions = [path.join(chats, 'session-2026-03-20T10-00-0f0e0d0c.json'), path.join(chats, 'parent-id', 'xb7gtb.json'), path.join(extra, 'chats', 'session-2026-03-21T09-00-1a2b3c4d.json'), path.join(extra, 'chats', 'parent-id', 'c4d5e6.json')];
    const others = [path.join(project, 'logs.json'), path.join(project, 'checkpoint-x.json'), path.join(chats, 'notes.json'), path.join(claudeProject, 'a.json'), path.join(extra, 'b.json')];
    for (const f of [...others, ...sessions]) {
      writeFileSync(f, doc);
    }
    await waitFor(() => events.length >= sessions.length, 10_000, 'the sessions to be taken up');
    await sleep(500);
    await watcher.idle();
    assert.deepEqual(
      events.map((e) => e.file).sort(),
      [...sessions].sort(),
    );
    assert.ok(events.every((e) => e.type === 'add' && e.agent === 'gemini'));
  });
  // check took a slug folder with no `.project_root` (older layouts) for another project's, which
  // the watcher took for the workspace's; the watcher did not read projects.json, which check did.
  void test('Gemini CLI project folders: check and the watcher take the same ones', async () => {
    const root = realpathSync.native(mkdtempSync(path.join(os.tmpdir(), 'ag-sw-')));
    const workspace = path.join(root, 'My App');
    mkdirSync(workspace);
    const tmp = path.join(root, '.gemini', 'tmp');
    const folders: Record<string, { marker?: string; ours: boolean }> = {
      [geminiProjectHash(workspace)]: { ours: true },
      'my-app': { ours: true },
      'my-app-1': { marker: path.join(root, 'elsewhere', 'My App'), ours: false },
      'my-app-2': { marker: workspace, ours: true },
      custom: { ours: true },
      other: { ours: false },
    };
    const wanted: string[] = [];
    for (const [name, f] of Object.entries(folders)) {
      mkdirSync(path.join(tmp, name, 'chats'), { recursive: true });
      if (f.marker !== undefined) {
        writeFileSync(path.join(tmp, name, '.project_root'), f.marker + '\n');
      }
      if (f.ours) {
        wanted.push(path.join(tmp, name, 'chats', 'session-2026-03-20T10-00-0f0e0d0c.jsonl'));
      }
    }
    writeFileSync(path.join(root, '.gemini', 'projects.json'), JSON.stringify({ projects: { [workspace]: 'custom' } }));
    const environment = { home: root, env: { CODEX_HOME: path.join(root, 'codex'), CLAUDE_CONFIG_DIR: path.join(root, 'claude') } };
    const { watcher, events } = await started(root, { workspace, environment, pendingPollMs: 50 });
    for (const name of Object.keys(folders)) {
      writeFileSync(path.join(tmp, name, 'chats', 'session-2026-03-20T10-00-0f0e0d0c.jsonl'), '{"sessionId":"s"}\n');
    }
    await waitFor(() => events.length >= wanted.length, 10_000, 'the sessions to be taken up');
    await sleep(500);
    await watcher.idle();
    assert.deepEqual(events.map((e) => e.file).sort(), [...wanted].sort(), 'watched');
    const found = await findWorkspaceSessions(workspace, environment);
    assert.deepEqual(found.transcripts.map((t) => t.file).sort(), [...wanted].sort(), 'found by check');
  });
  void test("an extra folder is searched as check searches it: below node_modules and .git nothing is watched, and 12 levels down is", async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'ag-sw-'));
    const workspace = path.join(root, 'ws');
    const extra = path.join(root, 'extra');
    const deep = path.join(extra, ...'abcdefghij'.split(''));
    for (const d of [workspace, path.join(extra, 'node_modules', 'pkg'), path.join(extra, '.git'), deep]) {
      mkdirSync(d, { recursive: true });
    }
    const line = '{"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}\n';
    const hidden = [path.join(extra, 'node_modules', 'pkg', 'fixture.jsonl'), path.join(extra, '.git', 'log.jsonl')];
    const wanted = [path.join(extra, 'top.jsonl'), path.join(deep, 'deep.jsonl')];
    for (const f of [...hidden, ...wanted]) {
      writeFileSync(f, line);
    }
    const { watcher, events } = await started(root, {
      workspace,
      environment: { home: root, env: { CODEX_HOME: path.join(root, 'codex'), CLAUDE_CONFIG_DIR: path.join(root, 'claude') } },
      extraFolders: [extra],
      pendingPollMs: 50,
    });
    await waitFor(() => wanted.every((f) => events.some((e) => e.file === f)), 10_000, 'the transcripts to be taken up');
    // Written after the start too, and a node_modules made after it: still not entered.
    mkdirSync(path.join(deep, 'node_modules'));
    const late = path.join(deep, 'node_modules', 'late.jsonl');
    writeFileSync(late, line);
    for (const f of [...hidden, ...wanted]) {
      appendFileSync(f, line);
    }
    await waitFor(() => wanted.every((f) => events.filter((e) => e.file === f).length >= 2), 10_000, 'the appends to the transcripts');
    await sleep(1500);
    await watcher.idle();
    assert.deepEqual([...new Set(events.map((e) => e.file))].sort(), [...wanted].sort());
  });
  void test('a transcript reached through links (a linked project folder, a linked file beside its target) is one session, under one path, live and by check', async () => {
    // The workspace opened through its link has two spellings, and Claude Code's project folder
    // of the one is a link to that of the other: every session in it is there under both names.
    const { root, real, link, claudeDir, project } = linkedWorkspace();
    symlinkSync(project, path.join(claudeDir, 'projects', encodeClaudeProject(link)), 'dir');
    const line = (id: string): string => JSON.stringify({ type: 'user', uuid: 'u1', parentUuid: null, sessionId: id, cwd: real, message: { role: 'user', content: 'go' } }) + '\n';
    const session = path.join(project, '11111111-2222-4333-8444-555555555555.jsonl');
    writeFileSync(session, line('11111111-2222-4333-8444-555555555555'));
    // A link to a session beside it (a folder of links to sessions also holds the sessions).
    const other = path.join(project, '22222222-2222-4333-8444-555555555555.jsonl');
    writeFileSync(other, line('22222222-2222-4333-8444-555555555555'));
    symlinkSync(other, path.join(project, 'alias.jsonl'), 'file');
    const environment = { home: root, env: { CLAUDE_CONFIG_DIR: claudeDir } };
    const agents = { codex: false, gemini: false, amplifier: false };

    const found = await findWorkspaceSessions(link, environment);
    assert.deepEqual(found.transcripts.map((t) => realpathSync.native(t.file)).sort(), [other, session].sort(), 'check: each real file once');

    const { watcher, events } = await started(root, { workspace: link, environment, agents });
    await waitFor(() => events.length >= 2, 10_000, 'both sessions to be found');
    // Each watcher reports a link's files in its own time: give a second name time to come.
    await sleep(1500);
    await watcher.idle();
    const added = events.filter((e) => e.type === 'add').map((e) => e.file);
    assert.deepEqual(added.map((f) => realpathSync.native(f)).sort(), [other, session].sort(), 'live: each real file added once');
    assert.deepEqual([...watcher.files.keys()].sort(), [...added].sort());

    // A write through the link is the session's change, under the name it was reported by.
    const before = events.length;
    appendFileSync(path.join(project, 'alias.jsonl'), line('22222222-2222-4333-8444-555555555555'));
    await waitFor(() => events.length > before, 10_000, 'the change');
    await sleep(500);
    assert.ok(events.slice(before).every((e) => e.type === 'change' && added.includes(e.file)), JSON.stringify(events.slice(before)));

    // The link removed: the session stays, under a path that is still there (whichever it was reported by).
    rmSync(path.join(project, 'alias.jsonl'));
    await sleep(1500);
    await watcher.idle();
    const now = [...watcher.files.keys()];
    assert.deepEqual(now.map((f) => realpathSync.native(f)).sort(), [other, session].sort(), JSON.stringify(now));
  });
  void test('the path a linked transcript was reported by goes while another still reaches it: the session is reported again under that one', async () => {
    const root = realpathSync.native(mkdtempSync(path.join(os.tmpdir(), 'ag-sw-')));
    const workspace = path.join(root, 'ws');
    mkdirSync(workspace, { recursive: true });
    const claudeDir = path.join(root, 'claude');
    const project = path.join(claudeDir, 'projects', encodeClaudeProject(workspace));
    mkdirSync(project, { recursive: true });
    // The transcript itself lives outside the watched folders; two links to it inside.
    const stored = path.join(root, 'store', '33333333-2222-4333-8444-555555555555.jsonl');
    mkdirSync(path.dirname(stored), { recursive: true });
    writeFileSync(stored, JSON.stringify({ type: 'user', uuid: 'u1', parentUuid: null, sessionId: '33333333-2222-4333-8444-555555555555', cwd: workspace, message: { role: 'user', content: 'go' } }) + '\n');
    const first = path.join(project, 'a.jsonl');
    const second = path.join(project, 'b.jsonl');
    symlinkSync(stored, first, 'file');
    const { watcher, events } = await started(root, { workspace, environment: { home: root, env: { CLAUDE_CONFIG_DIR: claudeDir } }, agents: { codex: false, gemini: false, amplifier: false } });
    await waitFor(() => events.length >= 1, 10_000, 'the session');
    symlinkSync(stored, second, 'file');
    await sleep(1500);
    await watcher.idle();
    assert.deepEqual(events.map((e) => [e.type, e.file]), [['add', first]], 'the second link is the same session');

    rmSync(first);
    await waitFor(() => events.length >= 3, 10_000, 'the session under its other path');
    await watcher.idle();
    assert.deepEqual(events.map((e) => [e.type, e.file]), [
      ['add', first],
      ['unlink', first],
      ['add', second],
    ]);
    assert.deepEqual([...watcher.files.keys()], [second]);
  });
});
