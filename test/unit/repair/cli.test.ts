/** `agent-guard repair` as a real process (dist/cli.js) on temporary copies of transcripts. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { cli } from '../support/cli';
import { CodexRollout } from '../support/codex';
import { fixture, repoRoot } from '../support/repo';
import { A, amplifierRace, C, seedsRace } from './cases';
import { ClaudeTranscript } from '../support/claude';
import { pairingFindings } from './support';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ag-repair-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

let n = 0;
/** A fresh folder holding `name` with this content, last written an hour ago (not live). */
function copy(content: string | Buffer, name = 'session.jsonl', opts: { fresh?: boolean } = {}): string {
  const dir = path.join(tmp, `case-${++n}`);
  mkdirSync(dir);
  const file = path.join(dir, name);
  writeFileSync(file, content);
  if (!opts.fresh) {
    const old = new Date(Date.now() - 3600_000);
    utimesSync(file, old, old);
  }
  return file;
}

function backups(file: string): string[] {
  const base = path.basename(file);
  return readdirSync(path.dirname(file)).filter((f) => f.startsWith(`${base}.bak-`));
}

const race = seedsRace().text();
/** A private temp dir for each run, so in-flight markers of other runs never matter. */
const env = (): Record<string, string> => {
  const t = path.join(tmp, `tmpdir-${++n}`);
  mkdirSync(t);
  return { TMPDIR: t };
};

void describe('agent-guard repair (dry run)', () => {
  void test("the seeds' race: every change with its line, a summary, exit 1, nothing written", () => {
    const file = copy(race);
    const r = cli(['repair', file], { env: env() });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, '');
    const out = r.stdout;
    assert.match(out, /\n {2}line 4: drop the placeholder result for toolu_01A+: the real result on line 8 replaces it {2}duplicate-result\n/);
    assert.match(out, /\n {2}line 8 → after line 3: move the real result for toolu_01A+ to where the placeholder on line 4 was; it came after the assistant turn on line 7 {2}misplaced-result\n/);
    assert.match(out, /\n {2}line 9 → after line 8: move the real result for toolu_01B+ /);
    assert.match(out, /\n {2}line 6: re-link parentUuid to line 9, which moves \(it was line 5, which is dropped\)/);
    assert.match(out, /6 changes for 4 pairing problems: lines 2 dropped, 2 moved, 0 added, 2 re-linked\./);
    assert.match(out, /Dry run: nothing was written/);
    assert.equal(readFileSync(file, 'utf8'), race);
    assert.deepEqual(backups(file), []);
  });

  void test('a healthy transcript: nothing to repair, exit 0', () => {
    const file = copy(readFileSync(fixture('real', 'claude-code', 'spotter', 'tool_heavy.jsonl')));
    const r = cli(['repair', file], { env: env() });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Nothing to repair: no pairing problems\./);
  });

  void test('--format json: the plan as data', () => {
    const file = copy(race);
    const r = cli(['repair', '--format', 'json', file], { env: env() });
    assert.equal(r.code, 1);
    const out = JSON.parse(r.stdout) as { agent: string; dryRun: boolean; written: boolean; complete: boolean; summary: Record<string, number>; edits: { kind: string; line?: number; after?: number; rule: string }[] };
    assert.equal(out.agent, 'claude-code');
    assert.equal(out.dryRun, true);
    assert.equal(out.written, false);
    assert.equal(out.complete, true);
    assert.deepEqual(out.summary, { problems: 4, dropped: 2, moved: 2, added: 0, relinked: 2, rewritten: 0 });
    assert.deepEqual(out.edits.slice(0, 2).map((e) => [e.kind, e.line, e.after, e.rule]), [['drop', 4, undefined, 'duplicate-result'], ['move', 8, 3, 'misplaced-result']]);
  });

  void test('a live session is only noted in a dry run', () => {
    const file = copy(race, 'session.jsonl', { fresh: true });
    const r = cli(['repair', file], { env: env() });
    assert.equal(r.code, 1);
    assert.match(r.stdout, /--write will refuse without --force: the session looks live: the file was written \d+ s ago/);
  });
});

void describe('agent-guard repair --write', () => {
  void test('saves the original byte for byte, then writes the repair; check is clean after', () => {
    const file = copy(race);
    chmodSync(file, 0o640);
    const r = cli(['repair', '--write', file], { env: env() });
    assert.equal(r.code, 1, r.stderr);
    const [bak, ...more] = backups(file);
    assert.ok(bak !== undefined && more.length === 0, 'one backup');
    assert.match(bak, /^session\.jsonl\.bak-\d{8}T\d{9}Z$/);
    assert.ok(Buffer.from(race).equals(readFileSync(path.join(path.dirname(file), bak))), 'the backup equals the original');
    assert.match(r.stdout, new RegExp(`Wrote .*session\\.jsonl; the original is saved as .*${bak.replace(/\./g, '\\.')}\\.`));
    const repaired = readFileSync(file, 'utf8');
    assert.notEqual(repaired, race);
    assert.deepEqual(pairingFindings(repaired, file), []);
    assert.equal(statSync(file).mode & 0o777, 0o640, 'mode kept');
    assert.deepEqual(readdirSync(path.dirname(file)).filter((f) => f.endsWith('.tmp')), [], 'no temp file left');
    const check = cli(['check', file], { env: env() });
    assert.equal(check.code, 0, check.stdout);
    // Repairing again: nothing to do.
    assert.equal(cli(['repair', '--write', file], { env: env() }).code, 0);
    assert.equal(backups(file).length, 1);
  });

  void test('a UTF-8 BOM stays at the start of the file when the first line is rewritten or dropped', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    // Line 1 holds the prompt and a result that answers no call: the result is taken out of it.
    const t = new ClaudeTranscript().user('go').call('m1', A, 'Bash', { command: 'ls' }).result(A, 'a').say('m2', 'done');
    const first = JSON.parse(t.lines[0]!) as { message: { content: unknown } };
    const stray = { type: 'tool_result', tool_use_id: C, content: 'stray' };
    const mixed = [JSON.stringify({ ...first, message: { role: 'user', content: [{ type: 'text', text: 'go' }, stray] } }), ...t.lines.slice(1)];
    const file = copy(Buffer.concat([bom, Buffer.from(mixed.join('\n') + '\n')]));
    const r = cli(['repair', '--write', file], { env: env() });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /line 1: take out the result for toolu_01C+/);
    const out = readFileSync(file);
    assert.ok(out.subarray(0, 3).equals(bom), `the BOM is kept: ${JSON.stringify(out.subarray(0, 8).toString('latin1'))}`);
    const expected = [JSON.stringify({ ...first, message: { role: 'user', content: [{ type: 'text', text: 'go' }] } }), ...t.lines.slice(1)].join('\n') + '\n';
    assert.equal(out.subarray(3).toString('utf8'), expected, 'only the result is gone');

    // Line 1 is only the stray result: dropped, and the BOM stays where it was, before line 2.
    const lone = new ClaudeTranscript().result(C, 'stray').user('go').call('m1', A, 'Bash', { command: 'ls' }).result(A, 'a').say('m2', 'done');
    const dropped = copy(Buffer.concat([bom, Buffer.from(lone.text())]));
    assert.equal(cli(['repair', '--write', dropped], { env: env() }).code, 1);
    const after = readFileSync(dropped);
    assert.ok(after.subarray(0, 3).equals(bom), 'the BOM is kept');
    assert.equal(after.indexOf(bom, 3), -1, 'once');
    assert.match(after.subarray(3).toString('utf8'), /^\{"parentUuid":null,.*"content":"go"/);
  });

  void test('copies of the real transcripts: nothing to do, nothing written, no backup', () => {
    const root = fixture('real', 'claude-code');
    const all = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => {
        const p = path.join(dir, name);
        return statSync(p).isDirectory() ? all(p) : p.endsWith('.jsonl') ? [p] : [];
      });
    const files = [...all(root), fixture('transcripts', 'amplifier', 'healthy.jsonl')];
    assert.ok(files.length >= 11);
    for (const src of files) {
      const bytes = readFileSync(src);
      const file = copy(bytes, path.basename(src));
      const r = cli(['repair', '--write', file], { env: env() });
      assert.equal(r.code, 0, `${src}: ${r.stdout}${r.stderr}`);
      assert.match(r.stdout, /Nothing to repair: no pairing problems\./);
      assert.ok(bytes.equals(readFileSync(file)), `${src} is unchanged`);
      assert.deepEqual(backups(file), []);
    }
  });

  void test('Amplifier: the race, repaired in place', () => {
    const text = amplifierRace().text();
    const file = copy(text, 'transcript.jsonl');
    const r = cli(['repair', '--write', file], { env: env() });
    assert.equal(r.code, 1, r.stderr);
    assert.ok(Buffer.from(text).equals(readFileSync(path.join(path.dirname(file), backups(file)[0]!))));
    assert.deepEqual(pairingFindings(readFileSync(file, 'utf8'), file), []);
  });

  void test('--backup-dir puts the backup elsewhere', () => {
    const file = copy(race);
    const dir = path.join(tmp, `backups-${++n}`);
    const r = cli(['repair', '--write', '--backup-dir', dir, file], { env: env() });
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(backups(file), []);
    const saved = readdirSync(dir);
    assert.equal(saved.length, 1);
    assert.ok(Buffer.from(race).equals(readFileSync(path.join(dir, saved[0]!))));
  });

  void test('refuses a session written to recently, unless --force', () => {
    const file = copy(race, 'session.jsonl', { fresh: true });
    const r = cli(['repair', '--write', file], { env: env() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^agent-guard: refusing to repair .*session\.jsonl: the session looks live: the file was written \d+ s ago; .*--force/);
    assert.equal(readFileSync(file, 'utf8'), race);
    assert.deepEqual(backups(file), []);
    const forced = cli(['repair', '--write', '--force', file], { env: env() });
    assert.equal(forced.code, 1, forced.stderr);
    assert.equal(backups(file).length, 1);
  });

  void test('--backup-dir naming a file: refused, naming that file, and nothing written', () => {
    const file = copy(race);
    const notDir = path.join(path.dirname(file), 'afile');
    writeFileSync(notDir, 'x');
    const r = cli(['repair', '--write', '--backup-dir', notDir, file], { env: env() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^agent-guard: refusing to write .*session\.jsonl: the backup folder .*afile is not a folder\n$/);
    assert.equal(readFileSync(file, 'utf8'), race);
  });

  void test('--live-seconds sets the window', () => {
    const file = copy(race);
    const r = cli(['repair', '--write', '--live-seconds', '7200', file], { env: env() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /looks live/);
  });

  void test('the help promises only the checks it makes: the file’s age, and the guard service’s writes in flight', () => {
    // It once claimed a guard-hook "in flight" marker that nothing ever wrote; the guard
    // service's answer is tested in guard/e2e.test.ts.
    const help = cli(['repair', '--help']).stdout;
    assert.match(help, /A session is live when its file changed in the last --live-seconds, or when the guard service\nof its workspace/);
    assert.match(help, /Calls the guard does not judge \(shell\ncommands, reads\) are not known to it/);
    assert.doesNotMatch(help, /marker/);
  });

  void test('never writes a half repair', () => {
    // Two calls with one id in one history (the call written again at the end, under a new uuid):
    // repair cannot tell the results apart.
    const text = readFileSync(fixture('real', 'claude-code', 'spotter', 'short.jsonl'), 'utf8');
    const lines = text.trimEnd().split('\n');
    const call = lines.findIndex((l) => l.includes('"tool_use"'));
    assert.ok(call >= 0);
    const lastUuid = (JSON.parse([...lines].reverse().find((l) => l.includes('"uuid"'))!) as { uuid: string }).uuid;
    const replayed = lines[call]!.replace(/"uuid":"[^"]+"/, '"uuid":"11111111-2222-4333-8444-555555555555"').replace(/"parentUuid":"[^"]+"/, `"parentUuid":"${lastUuid}"`);
    const file = copy([...lines, replayed].join('\n') + '\n');
    const before = readFileSync(file);
    const r = cli(['repair', '--write', file], { env: env() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /refusing to write .*cannot be repaired automatically \(line \d+: duplicate-call-id\); nothing was written/);
    assert.ok(before.equals(readFileSync(file)));
    assert.deepEqual(backups(file), []);
  });

  void test('a symlink is repaired where it points, and stays a link', () => {
    const target = copy(race);
    const link = path.join(path.dirname(target), 'link.jsonl');
    symlinkSync(target, link);
    const r = cli(['repair', '--write', link], { env: env() });
    assert.equal(r.code, 1, r.stderr);
    assert.ok(lstatSync(link).isSymbolicLink());
    assert.deepEqual(pairingFindings(readFileSync(target, 'utf8'), target), []);
  });
});

void describe('agent-guard repair: refusals and errors', () => {
  void test('Codex transcripts are refused', () => {
    const file = copy(new CodexRollout().user('go').exec('call_1', 'ls').output('call_1', 'a').output('call_1', 'a').text(), 'rollout.jsonl');
    const r = cli(['repair', '--write', file], { env: env() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^agent-guard: cannot repair .*rollout\.jsonl: repair supports Claude Code and Amplifier transcripts; this is a Codex CLI transcript\n$/);
    assert.deepEqual(backups(file), []);
  });

  void test('a missing file: one clear line, no stack', () => {
    const r = cli(['repair', path.join(tmp, 'nope.jsonl')], { env: env() });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^agent-guard: cannot read .*nope\.jsonl: ENOENT: no such file or directory\n$/);
    assert.equal(r.stdout, '');
  });

  void test('an unwritable folder: the write fails cleanly and the file is untouched', { skip: process.platform === 'win32' }, () => {
    const file = copy(race);
    const dir = path.dirname(file);
    chmodSync(tmp, 0o755);
    chmodSync(dir, 0o555);
    try {
      // Root ignores permission bits: run as nobody to see what a user would see.
      const r = cli(['repair', '--write', file], { env: env(), ...(process.getuid?.() === 0 ? { asUser: 65534 } : {}) });
      assert.equal(r.code, 2, r.stdout);
      assert.match(r.stderr, /^agent-guard: cannot write .*session\.jsonl: EACCES: permission denied\n$/);
    } finally {
      chmodSync(dir, 0o755);
    }
    assert.equal(readFileSync(file, 'utf8'), race);
    assert.deepEqual(backups(file), []);
  });

  void test('a backup that cannot be written whole is not left behind', { skip: process.platform === 'win32' }, () => {
    // A file size limit (as a disk filling up) cuts the backup short: 4 blocks of 512 bytes.
    const big = race + JSON.stringify({ type: 'summary', summary: 'x'.repeat(4000), leafUuid: 'none' }) + '\n';
    const file = copy(big);
    const r = spawnSync('sh', ['-c', 'ulimit -f 4 && exec "$0" "$@"', process.execPath, path.join(repoRoot(), 'dist', 'cli.js'), 'repair', '--write', file], {
      env: { ...process.env, ...env(), NO_COLOR: '1' },
      encoding: 'utf8',
    });
    assert.equal(r.status, 2, r.stdout);
    assert.match(r.stderr, /^agent-guard: cannot write .*session\.jsonl: EFBIG: file too large\n$/);
    assert.equal(readFileSync(file, 'utf8'), big);
    assert.deepEqual(backups(file), [], 'no cut copy under a backup\u2019s name');
  });

  void test('usage errors', () => {
    assert.equal(cli(['repair'], { env: env() }).code, 2);
    const two = cli(['repair', 'a.jsonl', 'b.jsonl'], { env: env() });
    assert.equal(two.code, 2);
    assert.match(two.stderr, /one transcript file at a time/);
    assert.match(cli(['repair', '--format', 'xml', 'a.jsonl'], { env: env() }).stderr, /unknown --format 'xml'/);
    assert.match(cli(['repair', '--live-seconds', 'soon', 'a.jsonl'], { env: env() }).stderr, /--live-seconds expects a number/);
    const help = cli(['repair', '--help'], { env: env() });
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--close-open-calls/);
  });

  void test('the repair is copied exactly: a repaired copy equals the planner output', () => {
    const file = copy(race);
    const copyOf = path.join(path.dirname(file), 'copy.jsonl');
    copyFileSync(file, copyOf);
    assert.equal(cli(['repair', '--write', '--force', file], { env: env() }).code, 1);
    assert.equal(cli(['repair', '--write', '--force', copyOf], { env: env() }).code, 1);
    assert.ok(readFileSync(file).equals(readFileSync(copyOf)), 'deterministic except for added uuids (none here)');
  });
});
