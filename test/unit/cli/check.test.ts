import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, closeSync, cpSync, existsSync, mkdirSync, openSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, describe, test } from 'node:test';
import { encodeClaudeProject } from '../../../src/core/discovery/locations';
import { inputHash } from '../../../src/core/lib/hash';
import { paletteFor } from '../../../src/cli/output/text';
import { HookLedger } from '../../../src/io/guard/ledger';
import { ledgerPathFor } from '../../../src/io/guard/socketPath';
import { ClaudeTranscript } from '../support/claude';
import { cli } from '../support/cli';
import { CodexRollout } from '../support/codex';
import { fixture, repoRoot } from '../support/repo';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ag-cli-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

const healthy = fixture('real', 'claude-code', 'spotter', 'tool_heavy.jsonl');
const codexBroken = fixture('real', 'codex', 'kvsankar-agent-history', 'rejections-codex_with_escalation.jsonl');

/** `check --format json` of `target`, which must find no error (exit 0): its findings as `rule@line`. */
function findingsAt(target: string): string[] {
  const r = cli(['check', '--format', 'json', target]);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { findings: { rule: string; line: number }[] }).findings.map((f) => `${f.rule}@${f.line}`);
}

void describe('agent-guard check', () => {
  void test('a healthy transcript: exit 0', () => {
    const r = cli(['check', healthy]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /no problems \(1 transcript checked\)/);
    assert.equal(r.stderr, '');
  });

  void test('errors: exit 1, grouped by file with line:column', () => {
    const r = cli(['check', codexBroken, healthy]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /rejections-codex_with_escalation\.jsonl\n/);
    assert.match(r.stdout, /\n {2}11:380 +error +Tool call call_esc_002 \(shell\) got no result/);
    assert.match(r.stdout, /2 problems \(2 errors, 0 warnings, 0 info\) — 2 transcripts checked/);
  });

  void test('--format json: the documented fields', () => {
    const r = cli(['check', '--format', 'json', codexBroken]);
    assert.equal(r.code, 1);
    const out = JSON.parse(r.stdout) as { findings: Record<string, unknown>[]; files: unknown[] };
    assert.equal(out.findings.length, 2);
    const f = out.findings[0]!;
    assert.deepEqual(Object.keys(f).slice(0, 11), ['rule', 'severity', 'file', 'line', 'column', 'endLine', 'endColumn', 'message', 'agent', 'session', 'related']);
    assert.deepEqual([f['rule'], f['severity'], f['line'], f['column'], f['endColumn'], f['agent'], f['session']], ['missing-result', 'error', 11, 380, 392, 'codex', 'rejection-codex-001']);
    assert.deepEqual(f['related'], [{ file: codexBroken, line: 12, message: 'user prompt' }]);
    assert.equal(out.files.length, 1);
  });

  void test('--format sarif: a SARIF 2.1.0 log', () => {
    const r = cli(['check', '--format', 'sarif', codexBroken]);
    const log = JSON.parse(r.stdout) as {
      version: string;
      runs: { tool: { driver: { name: string; rules: { id: string }[] } }; results: { ruleId: string; ruleIndex: number; level: string; locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number; startColumn: number; endColumn: number } } }[] }[] }[];
    };
    assert.equal(log.version, '2.1.0');
    const run = log.runs[0]!;
    assert.equal(run.tool.driver.name, 'agent-guard');
    assert.ok(run.tool.driver.rules.some((x) => x.id === 'missing-result'));
    const res = run.results[0]!;
    assert.equal(res.ruleId, 'missing-result');
    assert.equal(run.tool.driver.rules[res.ruleIndex]!.id, 'missing-result');
    assert.equal(res.level, 'error');
    assert.deepEqual(res.locations[0]!.physicalLocation.region, { startLine: 11, startColumn: 380, endLine: 11, endColumn: 392 });
    // Under the working folder (the repository, here): relative to %SRCROOT%, which code scanning needs to annotate.
    assert.deepEqual(res.locations[0]!.physicalLocation.artifactLocation, { uri: path.relative(repoRoot(), codexBroken).split(path.sep).join('/'), uriBaseId: '%SRCROOT%' });
    assert.deepEqual((run as unknown as { originalUriBaseIds: unknown }).originalUriBaseIds, { '%SRCROOT%': { uri: pathToFileURL(repoRoot()).href + '/' } });
    assert.deepEqual((run as unknown as { invocations: unknown[] }).invocations, [{ executionSuccessful: true }]);
  });

  void test('--format sarif: a file under the working folder is relative to %SRCROOT% (escaped as a URI); one outside it keeps its file:// URI', () => {
    const root = path.join(tmp, 'sarif root');
    mkdirSync(path.join(root, 'a b#1'), { recursive: true });
    const inside = path.join(root, 'a b#1', 'r%x.jsonl');
    cpSync(codexBroken, inside);
    const outside = path.join(tmp, 'sarif-outside.jsonl');
    cpSync(codexBroken, outside);
    const r = cli(['check', '--format', 'sarif', inside, outside], { cwd: root });
    assert.equal(r.code, 1, r.stderr);
    const run = (JSON.parse(r.stdout) as { runs: { originalUriBaseIds: Record<string, { uri: string }>; results: { locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string } } }[]; relatedLocations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string } } }[] }[] }[] }).runs[0]!;
    const base = run.originalUriBaseIds['%SRCROOT%']!.uri;
    assert.equal(base, pathToFileURL(root).href + '/');
    assert.ok(base.endsWith('/sarif%20root/'), base);
    const locations = run.results.flatMap((x) => [x.locations[0]!, ...x.relatedLocations].map((l) => l.physicalLocation.artifactLocation));
    assert.deepEqual(new Set(locations.map((l) => JSON.stringify(l))), new Set([JSON.stringify({ uri: 'a%20b%231/r%25x.jsonl', uriBaseId: '%SRCROOT%' }), JSON.stringify({ uri: pathToFileURL(outside).href })]));
    // Resolved against its base, the relative URI names the file again.
    assert.equal(new URL('a%20b%231/r%25x.jsonl', base).href, pathToFileURL(inside).href);
  });

  void test('--format sarif: a finding has the same fingerprint in two checkouts of one repository', () => {
    const prints = ['checkout-1', 'checkout 2'].map((dir) => {
      const root = path.join(tmp, dir);
      mkdirSync(path.join(root, 'sessions'), { recursive: true });
      cpSync(codexBroken, path.join(root, 'sessions', 'r.jsonl'));
      const r = cli(['check', '--format', 'sarif', 'sessions'], { cwd: root });
      assert.equal(r.code, 1, r.stderr);
      const run = (JSON.parse(r.stdout) as { runs: { results: { ruleId: string; partialFingerprints: Record<string, string> }[] }[] }).runs[0]!;
      return run.results.map((x) => x.partialFingerprints['agentGuardFindingId']!);
    });
    assert.equal(prints[0]!.length, 2);
    assert.deepEqual(prints[1], prints[0]);
    assert.match(prints[0]![0]!, /^missing-result\|sessions\/r\.jsonl\|/);
    assert.ok(!prints[0]!.some((p) => p.includes(tmp)), 'no folder of the machine in it');
  });

  void test('--format sarif: a path that could not be read makes the run unsuccessful, with a notification on it', () => {
    const missing = path.join(tmp, 'nope.jsonl');
    const r = cli(['check', '--format', 'sarif', missing, codexBroken]);
    assert.equal(r.code, 2);
    const run = (JSON.parse(r.stdout) as { runs: { invocations: { executionSuccessful: boolean; toolExecutionNotifications: { level: string; message: { text: string }; locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }[] }[]; results: unknown[] }[] }).runs[0]!;
    assert.equal(run.results.length, 2, 'the readable file is still reported');
    const inv = run.invocations[0]!;
    assert.equal(inv.executionSuccessful, false);
    assert.equal(inv.toolExecutionNotifications.length, 1);
    const n = inv.toolExecutionNotifications[0]!;
    assert.equal(n.level, 'error');
    assert.match(n.message.text, /no such file or directory/);
    assert.equal(n.locations[0]!.physicalLocation.artifactLocation.uri, pathToFileURL(missing).href);
  });

  void test('--rule sets a severity or turns a rule off', () => {
    assert.equal(cli(['check', '--rule', 'missing-result=warning', codexBroken]).code, 0);
    const off = cli(['check', '--format', 'json', '--rule', 'missing-result=off', codexBroken]);
    assert.deepEqual((JSON.parse(off.stdout) as { findings: unknown[] }).findings, []);
  });

  void test('--jobs: the same report however many files are checked at once', () => {
    // More files than jobs: the broken rollout twice, as two files (a path named twice is one).
    const copy = path.join(tmp, 'jobs-copy', path.basename(codexBroken));
    mkdirSync(path.dirname(copy), { recursive: true });
    cpSync(codexBroken, copy);
    const files = [codexBroken, healthy, path.join(tmp, 'nope.jsonl'), copy];
    const one = cli(['check', '--format', 'json', '-j', '1', ...files]);
    assert.equal(one.code, 2);
    assert.equal((JSON.parse(one.stdout) as { findings: unknown[] }).findings.length, 4);
    for (const jobs of ['2', '8']) {
      const many = cli(['check', '--format', 'json', '--jobs', jobs, ...files]);
      assert.deepEqual([many.code, many.stdout, many.stderr], [one.code, one.stdout, one.stderr], `--jobs ${jobs}`);
    }
  });

  void test('usage errors: exit 2 and a clear message, no stack', () => {
    for (const args of [['check'], ['check', '--format', 'xml', healthy], ['check', '--rule', 'nope=error', healthy], ['check', '--bogus', healthy], ['check', '--jobs', '0', healthy], ['check', '--workspace', path.join(tmp, 'no-such-workspace')], ['check', '--workspace', healthy], ['check', '-j', 'two', healthy], ['frobnicate']]) {
      const r = cli(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, /^agent-guard: /, args.join(' '));
      assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    }
  });

  void test('text output shows control characters from a transcript as escapes: no terminal codes, no forged lines', () => {
    // A call id and tool name are the model's (or a prompt injection's) words: an OSC title or
    // clipboard sequence, a screen clear, a C1 CSI, a bidi override, and a line break that would
    // start a forged line (a CI log reads `::error ...` at a line's start as a command).
    const id = 'toolu_\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202e';
    const file = path.join(tmp, 'control-chars.jsonl');
    writeFileSync(file, new ClaudeTranscript().user('go').call('m1', id, 'Bash\n::error file=x::forged\r', { command: 'ls' }).user('next').text());
    // eslint-disable-next-line no-control-regex -- the characters looked for
    const terminalCodes = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
    for (const args of [['check', file], ['repair', file]]) {
      const r = cli(args);
      assert.doesNotMatch(r.stdout, terminalCodes, args[0]);
      assert.doesNotMatch(r.stdout, /^::error/m, `${args[0]}: no forged line`);
      assert.ok(r.stdout.includes('toolu_\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\u202e (Bash\\n::error file=x::forged\\r'), `${args[0]}: shown as escapes\n${r.stdout}`);
      const coloured = cli(args, { env: { NO_COLOR: undefined, FORCE_COLOR: '1' } });
      // eslint-disable-next-line no-control-regex -- its own SGR codes taken out
      assert.doesNotMatch(coloured.stdout.replace(/\u001b\[\d+m/g, ''), terminalCodes, `${args[0]}: only its own colour codes`);
    }
    const json = JSON.parse(cli(['check', '--format', 'json', file]).stdout) as { findings: { callId: string }[] };
    assert.equal(json.findings[0]!.callId, id, 'JSON keeps the text as it is (escaped by JSON)');
  });

  void test('a JSON document of no known format: its finding lies on its first line, in JSON and SARIF', () => {
    const file = path.join(tmp, 'settings.json');
    writeFileSync(file, JSON.stringify({ name: 'not a transcript', list: Array.from({ length: 50 }, (_, i) => `item ${i}`) }, null, 2) + '\n');
    const json = JSON.parse(cli(['check', '--format', 'json', file]).stdout) as { findings: { rule: string; line: number; column: number; endLine: number; endColumn: number }[] };
    assert.deepEqual(json.findings.map((f) => [f.rule, f.line, f.column, f.endLine, f.endColumn]), [['unparseable-line', 1, 1, 1, 2]], 'line 1 is "{"');
    const sarif = JSON.parse(cli(['check', '--format', 'sarif', file]).stdout) as { runs: { results: { locations: { physicalLocation: { region: unknown } }[] }[] }[] };
    assert.deepEqual(sarif.runs[0]!.results[0]!.locations[0]!.physicalLocation.region, { startLine: 1, startColumn: 1, endLine: 1, endColumn: 2 });
  });

  void test('a result line cut short: the message reads as a sentence', () => {
    const lines = readFileSync(healthy, 'utf8').split('\n');
    lines[10] = lines[10]!.slice(0, 100);
    const cut = path.join(tmp, 'cut-result.jsonl');
    writeFileSync(cut, lines.join('\n'));
    const r = cli(['check', cut]);
    assert.match(r.stdout, /has no readable result before the session going on without it on line 12, but line 11 between them cannot be read/);
    assert.doesNotMatch(r.stdout, /the the /);
  });

  void test('plan mode\'s "clear context": the plan approval left open is answered by the next session\'s file beside it', () => {
    // Claude Code 2.1.76 (thirty-third set): the old session's file ends with ExitPlanMode open;
    // the new one, in the same project folder, starts with its refused result, hung from it.
    const dir = path.join(tmp, 'plan', 'C--Users-dev-proj');
    const elsewhere = path.join(tmp, 'plan', 'another-project');
    mkdirSync(dir, { recursive: true });
    mkdirSync(elsewhere, { recursive: true });
    const old = new ClaudeTranscript('aaaaaaaa-0000-4000-8000-00000000a1a1').user('Plan the snapping tools.');
    old.call('m1', 'toolu_01PLANPLANPLANPLANPLANPL', 'ExitPlanMode', { plan: '# Smart snapping' });
    const callLine = old.lines.length;
    const next = new ClaudeTranscript('bbbbbbbb-0000-4000-8000-00000000b2b2').from(old.uuidAt(callLine));
    next.result('toolu_01PLANPLANPLANPLANPLANPL', "The user doesn't want to proceed with this tool use.", { isError: true });
    next.user('[Request interrupted by user for tool use]').root().user('Implement the following plan:\n\n# Smart snapping').say('m2', 'I will start with the snap engine.');
    const oldFile = path.join(dir, 'aaaaaaaa-0000-4000-8000-00000000a1a1.jsonl');
    writeFileSync(oldFile, old.text());
    writeFileSync(path.join(dir, 'bbbbbbbb-0000-4000-8000-00000000b2b2.jsonl'), next.text());
    writeFileSync(path.join(elsewhere, 'bbbbbbbb-0000-4000-8000-00000000b2b2.jsonl'), next.text());
    // Alone, or beside the answer in another project's folder: an info that the plan waits.
    assert.deepEqual(findingsAt(oldFile), [`missing-result@${callLine}`]);
    assert.deepEqual(findingsAt(path.join(elsewhere, '..', 'another-project')).concat(findingsAt(oldFile)), [`missing-result@${callLine}`]);
    const both = cli(['check', '--format', 'json', oldFile, path.join(elsewhere, 'bbbbbbbb-0000-4000-8000-00000000b2b2.jsonl')]);
    assert.deepEqual((JSON.parse(both.stdout) as { findings: { line: number }[] }).findings.map((f) => f.line), [callLine]);
    // Checked together with the new session's file: answered, nothing to report.
    assert.deepEqual(findingsAt(dir), []);
    assert.deepEqual(findingsAt(path.join(tmp, 'plan')), []);
  });

  void test('a pipe named like a transcript: not a regular file, not "not a directory"', () => {
    const fifo = path.join(tmp, 'pipe.jsonl');
    spawnSync('mkfifo', [fifo]);
    const r = cli(['check', fifo]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /cannot read .*pipe\.jsonl: not a regular file or a folder\n$/);
  });

  void test('a missing path: exit 2, the rest still checked', () => {
    const r = cli(['check', path.join(tmp, 'nope.jsonl'), codexBroken]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /cannot read .*nope\.jsonl: no such file or directory/);
    assert.match(r.stdout, /call_esc_002/);
    assert.match(r.stdout, /✖ 2 problems \(2 errors, 0 warnings, 0 info\) — 1 transcript checked; 1 path could not be read \(see below\)\n$/);
  });

  void test('nothing readable: the summary says so, never "no problems"', () => {
    const r = cli(['check', path.join(tmp, 'nope.jsonl')]);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '✖ 1 path could not be read (see below); no problems in the 0 transcripts checked\n');
    assert.match(r.stderr, /cannot read .*nope\.jsonl: no such file or directory/);
  });

  void test('a folder holding no transcript: named on stderr; exit 2 when no path given held one', () => {
    const empty = path.join(tmp, 'no-transcripts-here');
    mkdirSync(path.join(empty, 'sub'), { recursive: true });
    // JSONL that is not a transcript is not one either.
    writeFileSync(path.join(empty, 'sub', 'metrics.jsonl'), '{"cpu":1}\n');
    const r = cli(['check', empty]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, '✖ no transcripts found in the path given (see below)\n');
    assert.match(r.stderr, /^agent-guard: no transcripts found in .*no-transcripts-here \(the one file named like one is empty or in no format agent-guard reads\)\n$/);
    // An empty one is counted too; a folder with nothing named like one says what it looked for.
    writeFileSync(path.join(empty, 'empty.jsonl'), '');
    assert.match(cli(['check', empty]).stderr, /\(the 2 files named like one are empty or in no format agent-guard reads\)\n$/);
    const bare = path.join(tmp, 'bare-folder');
    mkdirSync(bare, { recursive: true });
    writeFileSync(path.join(bare, 'notes.txt'), 'hello\n');
    const none = cli(['check', bare]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^agent-guard: no transcripts found in .*bare-folder \(looked for \*\.jsonl and Gemini CLI's chats\/session-\*\.json\)\n$/);
    const json = cli(['check', '--format', 'json', empty]);
    assert.equal(json.code, 2);
    assert.deepEqual((JSON.parse(json.stdout) as { problems: { path: string }[] }).problems.map((p) => p.path), [empty]);
    const sarif = cli(['check', '--format', 'sarif', empty]);
    assert.equal(sarif.code, 2);
    assert.equal((JSON.parse(sarif.stdout) as { runs: { invocations: { executionSuccessful: boolean }[] }[] }).runs[0]!.invocations[0]!.executionSuccessful, false);
    // Beside a path that holds one, the empty one is still named; the findings decide the exit.
    const mixed = cli(['check', empty, healthy]);
    assert.equal(mixed.code, 0, mixed.stderr);
    assert.match(mixed.stdout, /no problems \(1 transcript checked\)/);
    assert.match(mixed.stderr, /^agent-guard: no transcripts found in .*no-transcripts-here \(.*\)\n$/);
  });

  void test('a folder scan cut off by its depth limit says once which folder it did not search, and why', () => {
    const top = path.join(tmp, 'deep');
    // 12 levels below the folder named are searched; the 13th and 14th are not.
    const levels = Array.from({ length: 14 }, (_, i) => `l${i + 1}`);
    mkdirSync(path.join(top, ...levels), { recursive: true });
    cpSync(healthy, path.join(top, ...levels.slice(0, 12), 'kept.jsonl'));
    cpSync(codexBroken, path.join(top, ...levels.slice(0, 13), 'cut.jsonl'));
    cpSync(codexBroken, path.join(top, ...levels, 'cut-too.jsonl'));
    mkdirSync(path.join(top, ...levels.slice(0, 12), 'other'), { recursive: true });
    cpSync(codexBroken, path.join(top, ...levels.slice(0, 12), 'other', 'cut-also.jsonl'));
    const r = cli(['check', top]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /no problems \(1 transcript checked\)/);
    const cut = path.join(top, ...levels.slice(0, 12), 'l13');
    assert.equal(r.stderr, `agent-guard: did not search ${cut} and 1 other folder: folders more than 12 levels below the folder named are not searched (name a deeper folder to check it)\n`);
    // A log read alone says it too: JSON lists the folders, SARIF warns of each (the run did
    // what it says, so it stays successful).
    const other = path.join(top, ...levels.slice(0, 12), 'other');
    const json = cli(['check', '--format', 'json', top]);
    assert.equal(json.code, 0, json.stderr);
    const out = JSON.parse(json.stdout) as { problems: unknown[]; notSearched: string[] };
    assert.deepEqual(out.problems, []);
    assert.deepEqual([...out.notSearched].sort(), [cut, other].sort());
    const sarif = cli(['check', '--format', 'sarif', top]);
    assert.equal(sarif.code, 0, sarif.stderr);
    const inv = (JSON.parse(sarif.stdout) as { runs: { invocations: { executionSuccessful: boolean; toolExecutionNotifications: { level: string; message: { text: string } }[] }[] }[] }).runs[0]!.invocations[0]!;
    assert.equal(inv.executionSuccessful, true);
    assert.deepEqual(
      inv.toolExecutionNotifications.map((n) => `${n.level} ${n.message.text}`).sort(),
      [cut, other].sort().map((d) => `warning ${d}: not searched: folders more than 12 levels below the folder named are not searched`),
    );
  });

  void test('a file named that is empty holds no transcript: exit 2 when no path given held one', () => {
    const dir = path.join(tmp, 'named-empty');
    mkdirSync(dir, { recursive: true });
    const empty = path.join(dir, 'e.jsonl');
    writeFileSync(empty, '');
    const r = cli(['check', empty]);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stdout, '✖ no transcripts found in the path given (see below)\n');
    assert.match(r.stderr, /^agent-guard: no transcripts found in .*e\.jsonl \(the file is empty\)\n$/);
    // Beside a transcript: named, and the findings decide.
    const mixed = cli(['check', empty, healthy]);
    assert.equal(mixed.code, 0, mixed.stderr);
    assert.match(mixed.stdout, /no problems \(1 transcript checked\)/);
    assert.match(mixed.stderr, /\(the file is empty\)\n$/);
    // A file named that is not empty but in no known format is still reported as such.
    writeFileSync(path.join(dir, 'u.jsonl'), '{"a":1}\n');
    assert.equal(cli(['check', path.join(dir, 'u.jsonl')]).code, 1);
  });

  void test('a Gemini CLI session document cut off mid-rewrite is reported in a folder scan wherever the folder is', () => {
    // A copy of a chats folder (a CI artifact): no ~/.gemini/tmp in its path to name the agent.
    const dir = path.join(tmp, 'artifact');
    mkdirSync(path.join(dir, 'chats'), { recursive: true });
    const doc = JSON.stringify({ sessionId: 's1', projectHash: '7e89', startTime: '2026-01-15T20:51:48.582Z', messages: [{ id: 'm1', type: 'user', content: 'list the files' }] }, null, 2);
    writeFileSync(path.join(dir, 'chats', 'session-2026-01-15T20-51-s1.json'), doc.slice(0, doc.length / 2));
    cpSync(healthy, path.join(dir, 'x.jsonl'));
    // Valid JSON of another shape under that name is not a transcript: left out, as before.
    writeFileSync(path.join(dir, 'chats', 'session-other.json'), '{"chat": []}\n');
    const r = cli(['check', '--format', 'json', dir]);
    assert.equal(r.code, 1, r.stderr);
    const out = JSON.parse(r.stdout) as { files: { file: string }[]; findings: { rule: string; line: number; message: string }[] };
    assert.deepEqual(out.files.map((f) => path.basename(f.file)).sort(), ['session-2026-01-15T20-51-s1.json', 'x.jsonl']);
    assert.equal(out.findings.length, 1);
    assert.equal(out.findings[0]!.rule, 'unparseable-line');
    assert.match(out.findings[0]!.message, /^The file is not one valid JSON document \(.*; line \d+\), so nothing in it could be checked\./);
  });

  void test('arguments: an empty path or value, or a one-value option given twice, is a usage error', () => {
    for (const args of [
      ['check', ''],
      ['check', '--workspace', ''],
      ['check', '--workspace', tmp, '--workspace', path.join(tmp, 'x')],
      ['check', '--format', 'json', '--format', 'sarif', healthy],
      ['watch', '--workspace', ''],
      ['watch', '--workspace', tmp, '--workspace', tmp],
      ['hooks', 'status', '--workspace', ''],
      ['repair', ''],
    ]) {
      const r = cli(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /^agent-guard: (an empty argument was given where a path was expected|--\w+ was given an empty value|--\w+ was given twice \('.*' and '.*'\): give it once)[^\n]*\n/, args.join(' '));
      assert.equal(r.stdout, '', args.join(' '));
    }
    const file = cli(['watch', '--folder', healthy]);
    assert.equal(file.code, 2);
    assert.match(file.stderr, /^agent-guard: --folder expects a folder of transcripts: .*tool_heavy\.jsonl is a file \(give the folder it is in\)\n/);
    // Repeatable ones stay repeatable.
    assert.equal(cli(['check', '--rule', 'missing-result=off', '--rule', 'orphan-result=off', codexBroken]).code, 0);
  });

  void test('the current folder is shown as "."', () => {
    const dir = path.join(tmp, 'dot');
    mkdirSync(dir, { recursive: true });
    const r = cli(['check', '.'], { cwd: dir });
    assert.equal(r.code, 2);
    assert.match(r.stderr, /^agent-guard: no transcripts found in \. \(looked for/);
  });

  void test('a folder without permission: a clear error, the rest still checked', () => {
    const dir = path.join(tmp, 'perm');
    mkdirSync(path.join(dir, 'locked'), { recursive: true });
    mkdirSync(path.join(dir, 'open'), { recursive: true });
    cpSync(codexBroken, path.join(dir, 'open', 'rollout-2025-12-05T11-00-00-x.jsonl'));
    cpSync(healthy, path.join(dir, 'locked', 'session.jsonl'));
    chmodSync(path.join(dir, 'locked'), 0o000);
    chmodSync(tmp, 0o755);
    try {
      const asUser = process.getuid?.() === 0 ? 65534 : undefined;
      const r = cli(['check', dir], asUser === undefined ? {} : { asUser });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /cannot read .*locked: permission denied/);
      assert.match(r.stdout, /call_esc_002/, 'the readable folder was still checked');
    } finally {
      chmodSync(path.join(dir, 'locked'), 0o755);
    }
  });

  void test('--workspace with no session found: exit 0, but it says where it looked (a wrong HOME in CI looks the same)', () => {
    const ws = path.join(tmp, 'fresh-project');
    mkdirSync(ws, { recursive: true });
    const claudeDir = path.join(tmp, 'no-claude-here');
    const r = cli(['check', '--workspace', ws], { env: { CLAUDE_CONFIG_DIR: claudeDir, CODEX_HOME: path.join(tmp, 'no-codex'), HOME: tmp } });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /no problems \(0 transcripts checked\)/);
    assert.match(r.stderr, /^agent-guard: no sessions of .*fresh-project found \(looked in .*no-claude-here[\\/]projects, .*no-codex[\\/]sessions, .*\.gemini[\\/]tmp, .*\.amplifier[\\/]projects\)\n$/);
  });

  void test('--workspace finds the sessions of a workspace in the agents’ folders', () => {
    const ws = path.join(tmp, 'my.project');
    mkdirSync(ws, { recursive: true });
    const claudeDir = path.join(tmp, 'claude');
    const proj = path.join(claudeDir, 'projects', encodeClaudeProject(ws));
    mkdirSync(path.join(proj, 'sess-1', 'subagents'), { recursive: true });
    const t = new ClaudeTranscript('sess-1', ws).user('go').call('m1', 'toolu_A', 'Bash', { command: 'ls' }).say('m2', 'oops');
    writeFileSync(path.join(proj, 'sess-1.jsonl'), t.text());
    writeFileSync(path.join(proj, 'sess-1', 'subagents', 'agent-abc.jsonl'), new ClaudeTranscript('sess-1', ws).user('sub').result('toolu_Q', 'stray').text());
    mkdirSync(path.join(claudeDir, 'projects', encodeClaudeProject(ws + '-other')), { recursive: true });
    writeFileSync(path.join(claudeDir, 'projects', encodeClaudeProject(ws + '-other'), 'x.jsonl'), t.text());
    const codexHome = path.join(tmp, 'codex');
    const day = path.join(codexHome, 'sessions', '2026', '01', '02');
    mkdirSync(day, { recursive: true });
    writeFileSync(path.join(day, 'rollout-2026-01-02T03-04-05-aaa.jsonl'), new CodexRollout('aaa', ws).user('go').shell('c1', 'ls').user('again').text());
    writeFileSync(path.join(day, 'rollout-2026-01-02T03-04-06-bbb.jsonl'), new CodexRollout('bbb', '/somewhere/else').user('go').shell('c1', 'ls').user('again').text());
    const r = cli(['check', '--format', 'json', '--workspace', ws], { env: { CLAUDE_CONFIG_DIR: claudeDir, CODEX_HOME: codexHome, HOME: tmp } });
    assert.equal(r.code, 1, r.stderr);
    const out = JSON.parse(r.stdout) as { files: { file: string; agent: string }[]; findings: { rule: string; file: string }[] };
    assert.deepEqual(
      out.files.map((f) => `${f.agent}:${path.basename(f.file)}`).sort(),
      ['claude-code:agent-abc.jsonl', 'claude-code:sess-1.jsonl', 'codex:rollout-2026-01-02T03-04-05-aaa.jsonl'],
    );
    assert.deepEqual(out.findings.map((f) => `${f.rule}:${path.basename(f.file)}`).sort(), [
      'missing-result:rollout-2026-01-02T03-04-05-aaa.jsonl',
      'missing-result:sess-1.jsonl',
      'orphan-result:agent-abc.jsonl',
    ]);
  });

  void test('a folder scan reads Gemini CLI legacy sessions (chats/session-*.json, sub-agents in chats/<parent>/) and no other JSON', () => {
    const chats = path.join(tmp, 'gemini-legacy', '.gemini', 'tmp', '7e89', 'chats');
    mkdirSync(chats, { recursive: true });
    const doc = {
      sessionId: '0f0e0d0c-1111-2222-3333-444455556666',
      projectHash: '7e89',
      startTime: '2026-01-15T20:51:48.582Z',
      messages: [
        { id: 'm1', type: 'user', content: 'list the files' },
        { id: 'm2', type: 'gemini', content: '', toolCalls: [{ id: 'run_shell_command-1', name: 'run_shell_command', args: { command: 'ls' }, result: null, status: 'executing' }] },
      ],
    };
    writeFileSync(path.join(chats, 'session-2026-01-15T20-51-0f0e0d0c.json'), JSON.stringify(doc, null, 2));
    writeFileSync(path.join(chats, '..', 'logs.json'), '[1, 2,\n 3]\n');
    // A sub-agent of that session, as Gemini CLI wrote them before JSONL (April 2026 builds).
    mkdirSync(path.join(chats, doc.sessionId));
    writeFileSync(path.join(chats, doc.sessionId, 'xb7gtb.json'), JSON.stringify({ ...doc, sessionId: 'xb7gtb', kind: 'subagent' }, null, 2));
    const r = cli(['check', '--format', 'json', path.join(tmp, 'gemini-legacy')]);
    const out = JSON.parse(r.stdout) as { files: { file: string; agent: string }[]; findings: { rule: string; line: number }[] };
    assert.deepEqual(out.files.map((f) => `${f.agent}:${path.basename(f.file)}`).sort(), ['gemini:session-2026-01-15T20-51-0f0e0d0c.json', 'gemini:xb7gtb.json']);
    assert.deepEqual(out.findings.map((f) => f.rule), ['missing-result', 'missing-result']);
    assert.equal(r.code, 0, 'unfinished at the end of the file is a warning');
  });

  void test('a reader that stops early (check … | head) ends the output, not the check: no crash, the exit code stands', async () => {
    const file = path.join(tmp, 'many-broken.jsonl');
    // Enough findings that the report outgrows the pipe's buffer before the reader goes.
    writeFileSync(file, new ClaudeTranscript().user('go').text() + '{"type":"user", oops\n'.repeat(4000));
    const child = spawn(process.execPath, [path.join(repoRoot(), 'dist', 'cli.js'), 'check', file], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    assert.equal(stderr, '');
    assert.equal(code, 1, 'the errors found still set the exit code');
  });

  void test('a report that cannot be written (a full disk): exit 2 and one line saying so, no stack', { skip: !existsSync('/dev/full') && 'no /dev/full here' }, () => {
    const full = openSync('/dev/full', 'w');
    try {
      for (const format of ['text', 'json', 'sarif']) {
        const r = spawnSync(process.execPath, [path.join(repoRoot(), 'dist', 'cli.js'), 'check', '--format', format, codexBroken], { stdio: ['ignore', full, 'pipe'], encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
        assert.equal(r.status, 2, `${format}: an I/O error, not "errors found" (${r.stderr})`);
        assert.match(r.stderr, /^agent-guard: cannot write the output: .*no space left on device.*\n$/i, format);
        assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
      }
    } finally {
      closeSync(full);
    }
  });

  void test('commands that multiply (nested loops, brace groups) are read in bounded work: the check ends, the rest still checked', () => {
    // Unbounded, the loops were 24 million passes and the braces 2^30 calls: minutes per line,
    // past the 60 s this run is given.
    const items = Array.from({ length: 30 }, (_, i) => `a${i}.txt`);
    let loops = 'cat "$a/$b/$c/$d/$e"';
    for (const v of ['a', 'b', 'c', 'd', 'e']) {
      loops = `for ${v} in ${items.join(' ')}; do ${loops}; done`;
    }
    let ps = 'gc "$a\\$b\\$c\\$d\\$e"';
    for (const v of ['a', 'b', 'c', 'd', 'e']) {
      ps = `foreach ($${v} in @(${items.map((i) => `'${i}'`).join(',')})) { ${ps} }`;
    }
    const braces = 'cat ' + '{a,b}'.repeat(30) + '.txt';
    const file = path.join(tmp, 'multiply', 'rollout-2026-01-02T03-04-05-019bce9f-0a40-79e2-8351-8818e8487fb6.jsonl');
    mkdirSync(path.dirname(file), { recursive: true });
    const posix = new CodexRollout().user('go').shell('call_1', loops).output('call_1', 'ok').shell('call_2', braces).output('call_2', 'ok');
    const win = new CodexRollout('019bce9f-0a40-79e2-8351-8818e8487fb7', 'C:\\w').user('go').shell('call_3', ps).output('call_3', 'ok').shell('call_4', 'ls');
    writeFileSync(file, posix.text());
    writeFileSync(file.replace('fb6.jsonl', 'fb7.jsonl'), win.text());
    // Checked to the end: the last call of the second file has no output.
    assert.deepEqual(findingsAt(path.dirname(file)), [`missing-result@${win.lines.length}`]);
  });

  void test('commands whose reading was quadratic (open loops and braces, brace groups in a row or nested, many variables, inline scripts, here-strings, lists) are read in bounded work', () => {
    // Each of these took the old reader seconds to minutes on one line (a search to the end of the
    // line from each loop, brace, variable, call or here-string): past the 60 s this run is given.
    const vars = Array.from({ length: 16_000 }, (_, i) => `v${i}=x${i}`).join('; ') + '; cat ' + Array.from({ length: 16_000 }, (_, i) => `$w${i}`).join(' ');
    const file = path.join(tmp, 'quadratic', 'rollout-2026-01-02T03-04-05-019bce9f-0a40-79e2-8351-8818e8487fc6.jsonl');
    mkdirSync(path.dirname(file), { recursive: true });
    const posix = new CodexRollout('019bce9f-0a40-79e2-8351-8818e8487fc6')
      .user('go')
      .shell('call_1', 'for a in x; do\n'.repeat(12_000) + 'cat $a')
      .output('call_1', 'ok')
      .shell('call_2', 'cat ' + '{a'.repeat(40_000))
      .output('call_2', 'ok')
      .shell('call_2b', 'cat x' + '{a,b}'.repeat(40_000) + '.txt')
      .output('call_2b', 'ok')
      .shell('call_2c', 'cat ' + '{'.repeat(20_000) + 'a' + ',b}'.repeat(20_000))
      .output('call_2c', 'ok')
      .shell('call_3', vars)
      .output('call_3', 'ok')
      .shell('call_4', 'python3 -c "print(1)\n' + "p='a.txt'\nopen(p, 'w')\nfor q in ['a']:\n  open(q)\n".repeat(16_000) + '"')
      .output('call_4', 'ok');
    const win = new CodexRollout('019bce9f-0a40-79e2-8351-8818e8487fc7', 'C:\\w')
      .user('go')
      .shell('call_5', "$x = @'\n".repeat(64_000) + 'gc a')
      .output('call_5', 'ok')
      .shell('call_6', "$l = '" + 'a,'.repeat(32_000) + "a'\ngc " + '$l[0]'.repeat(32_000))
      .output('call_6', 'ok')
      .shell('call_7', "foreach ($a in 'x') { gc a\n".repeat(16_000))
      .output('call_7', 'ok')
      .shell('call_8', 'ls');
    writeFileSync(file, posix.text());
    writeFileSync(file.replace('fc6.jsonl', 'fc7.jsonl'), win.text());
    // Checked to the end: the last call of the second file has no output.
    assert.deepEqual(findingsAt(path.dirname(file)), [`missing-result@${win.lines.length}`]);
  });

  void test('listings piped to ForEach-Object blocks left open, or read by many statements, are read in bounded work', () => {
    // Unbounded, each block was searched to the end of the line (16,000 open ones took 38 s, these
    // twice that), and 3,000 patterns read by 2,000 statements were 6 million reads.
    const file = path.join(tmp, 'listings', 'rollout-2026-01-02T03-04-05-019bce9f-0a40-79e2-8351-8818e8487fe6.jsonl');
    mkdirSync(path.dirname(file), { recursive: true });
    const win = new CodexRollout('019bce9f-0a40-79e2-8351-8818e8487fe6', 'C:\\w')
      .user('go')
      .shell('call_1', 'gci | % { '.repeat(32_000) + 'gc $_.FullName')
      .output('call_1', 'ok')
      .shell('call_2', 'gci -Recurse -Include ' + 'a,'.repeat(3_000) + 'a | % { ' + 'gc $_.FullName; '.repeat(2_000) + '}')
      .output('call_2', 'ok')
      .shell('call_3', 'ls');
    writeFileSync(file, win.text());
    // Checked to the end: the last call has no output.
    assert.deepEqual(findingsAt(path.dirname(file)), [`missing-result@${win.lines.length}`]);
  });

  void test('.NET file writes left unclosed, or empty, by the thousand are read in bounded work', () => {
    // Each unclosed call was scanned to the end of the command (8,000 took 2.5 s, 32,000 forty).
    const file = path.join(tmp, 'dotnet', 'rollout-2026-01-02T03-04-05-019bce9f-0a40-79e2-8351-8818e8487fe7.jsonl');
    mkdirSync(path.dirname(file), { recursive: true });
    const win = new CodexRollout('019bce9f-0a40-79e2-8351-8818e8487fe7', 'C:\\w')
      .user('go')
      .shell('call_1', '[IO.File]::WriteAllText(('.repeat(32_000))
      .output('call_1', 'ok')
      .shell('call_2', '[System.IO.File]::WriteAllText(,'.repeat(32_000) + ')')
      .output('call_2', 'ok')
      .shell('call_3', 'ls');
    writeFileSync(file, win.text());
    // Checked to the end: the last call has no output.
    assert.deepEqual(findingsAt(path.dirname(file)), [`missing-result@${win.lines.length}`]);
  });

  void test('thousands of Gemini overwrites, each looked for in megabytes of what reads returned, are judged in bounded work', () => {
    // Each overwrite's former content was looked for in all the reads kept (16 MB): 20,000 of them
    // were 300 billion characters compared, past the minute. The looking now has a budget.
    const dir = path.join(tmp, 'gemini-overwrites');
    mkdirSync(dir, { recursive: true });
    const read = (id: string, file: string, output: string, args: object = {}): object => ({
      id: `t-${id}`,
      timestamp: '2026-05-17T12:05:09.000Z',
      type: 'gemini',
      content: '',
      toolCalls: [{ id, name: 'read_file', args: { file_path: file, ...args }, result: [{ functionResponse: { id, name: 'read_file', response: { output } } }], status: 'success' }],
    });
    const overwrite = (i: number, file = 'f.txt'): object => ({
      id: `t-w${i}`,
      timestamp: '2026-05-17T12:06:00.000Z',
      type: 'gemini',
      content: '',
      toolCalls: [
        {
          id: `w${i}`,
          name: 'write_file',
          args: { content: 'x', file_path: file },
          result: [{ functionResponse: { id: `w${i}`, name: 'write_file', response: { output: `Successfully overwrote file: /home/u/${file}.` } } }],
          status: 'success',
          resultDisplay: { originalContent: `a${i}\nb${i}\nc${i}\n`, newContent: 'x', isNewFile: false },
        },
      ],
    });
    const records = [
      { sessionId: 'e44d4888-56b5-49a9-861b-6b3bf2cc129c', projectHash: 'x', startTime: '2026-05-17T12:04:54.550Z', lastUpdated: '2026-05-17T12:04:54.550Z', kind: 'main', directories: ['/home/u'] },
      { id: 'p1', timestamp: '2026-05-17T12:05:08.596Z', type: 'user', content: [{ text: 'go' }] },
      // A read of some lines (not from the first: one from line 1 that says nothing of being cut
      // is the whole file): a whole-file read is what the session saw, and every overwrite below,
      // of content it never saw, would then be a stale write (20,000 errors).
      read('r0', 'f.txt', 'two\nthree\n', { start_line: 2, end_line: 3 }),
      ...Array.from({ length: 12 }, (_, k) => read(`r${k + 1}`, `big${k}.txt`, 'some line of text that is read\n'.repeat(42_000))),
      ...Array.from({ length: 20_000 }, (_, i) => overwrite(i)),
      overwrite(20_000, 'g.txt'),
    ];
    writeFileSync(path.join(dir, 'session-2026-05-17T12-04-e44d4888.jsonl'), records.map((r) => JSON.stringify(r)).join('\n') + '\n');
    // Checked to the end: f.txt was read first, so only the last write, of g.txt, is blind.
    assert.deepEqual(findingsAt(dir), [`write-before-read@${records.length}`]);
  });

  void test('a pathname pattern of many stars is matched against a long name in bounded work', () => {
    // As a RegExp, `*a*a…*b` against a name of forty `a`s backtracked for hours.
    const file = path.join(tmp, 'stars', 'rollout-2026-01-02T03-04-05-019bce9f-0a40-79e2-8351-8818e8487fd6.jsonl');
    mkdirSync(path.dirname(file), { recursive: true });
    const rollout = new CodexRollout('019bce9f-0a40-79e2-8351-8818e8487fd6')
      .user('go')
      .shell('call_1', 'cat ' + '*a'.repeat(12) + '*b')
      .output('call_1', 'ok')
      .shell('call_2', 'cat ' + 'a'.repeat(40))
      .output('call_2', 'ok')
      .shell('call_3', 'ls');
    writeFileSync(file, rollout.text());
    assert.deepEqual(findingsAt(path.dirname(file)), [`missing-result@${rollout.lines.length}`]);
  });

  void test('a long call id found in a line full of its characters is placed in bounded work', () => {
    // Its column was searched for at every position the bare id occurred, each found in as many
    // steps as the id is long: 200,000 characters took 21 s, growing as the square.
    const file = path.join(tmp, 'long-id', 'rollout-2026-01-02T03-04-05-019bce9f-0a40-79e2-8351-8818e8487fd7.jsonl');
    mkdirSync(path.dirname(file), { recursive: true });
    const length = 500_000;
    const id = 'a'.repeat(length);
    const rollout = new CodexRollout('019bce9f-0a40-79e2-8351-8818e8487fd7')
      .user('go')
      .shell(id, `echo ${'a'.repeat(2 * length)}`)
      .output(id, 'ok')
      .shell('call_last', 'ls');
    writeFileSync(file, rollout.text());
    // Checked to the end: the last call has no result.
    assert.deepEqual(findingsAt(path.dirname(file)), [`missing-result@${rollout.lines.length}`]);
  });

  void test('a legacy Gemini session whose ids and paths are spelled with JSON escapes is placed in bounded work', () => {
    // Each record's id (and each call's id and path) was searched for in its plain spelling from
    // the record on: spelled `\u006d…` or `\/…`, every search went on to the document's end,
    // growing as the square (10,000 records: a minute).
    const chats = path.join(tmp, 'gemini-escaped', '.gemini', 'tmp', '7e89', 'chats');
    mkdirSync(chats, { recursive: true });
    const session = (name: string, records: number, call: (i: number) => { name: string; args: Record<string, unknown> }, escape: (text: string) => string): number => {
      const messages = Array.from({ length: records }, (_, i) => {
        const c = call(i);
        const last = i === records - 1;
        const result = last ? null : [{ functionResponse: { id: `c${i}`, name: c.name, response: { output: 'ok' } } }];
        return { id: `m${i}`, type: 'gemini', content: '', toolCalls: [{ id: `c${i}`, ...c, result, status: last ? 'executing' : 'success' }] };
      });
      const text = escape(JSON.stringify({ sessionId: name, projectHash: '7e89', startTime: '2026-01-15T20:51:48.582Z', messages }, null, 2));
      writeFileSync(path.join(chats, `session-2026-01-15T20-51-${name}.json`), text);
      // The line of the last call's id (the last line ending in its number), where its missing result is reported.
      const lines = text.split('\n');
      let line = lines.length;
      while (!lines[line - 1]!.endsWith(`${records - 1}",`)) {
        line--;
      }
      return line;
    };
    const ids = session('ids', 20_000, (i) => ({ name: 'read_file', args: { absolute_path: `/p/f${i}.txt` } }), (t) => t.replace(/"id": "([mc])/g, (_, c: string) => `"id": "\\u00${c.charCodeAt(0).toString(16)}`));
    const paths = session('paths', 20_000, (i) => ({ name: 'run_shell_command', args: { command: `cat /p/f${i}.txt` } }), (t) => t.replace(/cat \/p\//g, 'cat \\/p\\/'));
    const r = cli(['check', '--format', 'json', path.join(tmp, 'gemini-escaped')]);
    assert.equal(r.code, 0, r.stderr);
    const findings = (JSON.parse(r.stdout) as { findings: { rule: string; file: string; line: number }[] }).findings;
    // Checked to the end: the last call of each has no result, found at its own line.
    assert.deepEqual(findings.map((f) => `${f.rule}@${path.basename(f.file)}:${f.line}`).sort(), [
      `missing-result@session-2026-01-15T20-51-ids.json:${ids}`,
      `missing-result@session-2026-01-15T20-51-paths.json:${paths}`,
    ]);
  });

  void test('tens of thousands of Gemini answers and rewinds are taken in, in bounded work', () => {
    // A user turn of answers looked through every record for one that had answered each, and a
    // `$rewindTo` copied every record's id to find its target: 40,000 of either took two to
    // three minutes, growing as the square.
    const chats = path.join(tmp, 'gemini-rewinds', '.gemini', 'tmp', '7e89', 'chats');
    mkdirSync(chats, { recursive: true });
    const meta = JSON.stringify({ sessionId: 's1', projectHash: '7e89', startTime: '2026-01-15T20:51:48.582Z', lastUpdated: '2026-01-15T20:51:48.582Z', kind: 'main' });
    const n = 30_000;
    const answers = [meta];
    const rewinds = [meta];
    for (let i = 0; i < n; i++) {
      answers.push(JSON.stringify({ id: `u${i}`, type: 'user', content: [{ functionResponse: { id: `c${i}`, name: 'read_file', response: { output: 'ok' } } }] }));
      rewinds.push(JSON.stringify({ id: `u${i}`, type: 'user', content: 'hi' }));
    }
    for (let i = 0; i < n; i++) {
      rewinds.push(JSON.stringify({ id: `x${i}`, type: 'user', content: 'again' }), JSON.stringify({ $rewindTo: `x${i}` }));
    }
    writeFileSync(path.join(chats, 'session-answers.jsonl'), answers.join('\n') + '\n');
    writeFileSync(path.join(chats, 'session-rewinds.jsonl'), rewinds.join('\n') + '\n');
    const r = cli(['check', '--format', 'json', path.join(tmp, 'gemini-rewinds')], { maxBuffer: 256 * 1024 * 1024 });
    assert.equal(r.code, 1, r.stderr);
    const findings = (JSON.parse(r.stdout) as { findings: { rule: string; file: string; line: number }[] }).findings;
    // Every answer is to a call never made; the rewound session holds nothing wrong.
    assert.equal(findings.length, n);
    assert.ok(findings.every((f) => f.rule === 'orphan-result' && f.file.endsWith('session-answers.jsonl')));
    assert.equal(findings[n - 1]!.line, n + 1);
  });

  void test('an edit over a large file with a line inserted after every line, which the session read in part, is judged in bounded work', () => {
    // Each inserted line was placed where the session's reads saw it by counting, again, which of
    // the whole file's lines its reads showed: 32,000 lines took 4 s, 160,000 past the minute.
    const dir = path.join(tmp, 'inserted');
    mkdirSync(dir, { recursive: true });
    const file = '/home/dev/proj/big.txt';
    const n = 160_000;
    const ours = Array.from({ length: n }, (_, i) => `x${i}`);
    const theirs = ours.flatMap((l, i) => [l, `y${i}`]).join('\n') + '\n';
    const t = new ClaudeTranscript('aaaaaaaa-0000-4000-8000-00000000a102').user('go').read('r1', 'toolu_r1', file, ours.join('\n') + '\n');
    t.read('r2', 'toolu_r2', file, ours.slice(1).join('\n'), { offset: 2, limit: n - 1 });
    t.edit('e', 'toolu_e', file, theirs, 'x5\ny5', 'x5 edited\ny5');
    t.call('last', 'toolu_last', 'Bash', { command: 'ls' });
    writeFileSync(path.join(dir, 'aaaaaaaa-0000-4000-8000-00000000a102.jsonl'), t.text());
    // Checked to the end: the edit went over the lines inserted behind it; the last call is open.
    const r = cli(['check', '--format', 'json', dir]);
    assert.equal(r.code, 0, r.stderr);
    const findings = (JSON.parse(r.stdout) as { findings: { rule: string; line: number; message: string; subject?: { lines?: unknown[] } }[] }).findings;
    assert.deepEqual(
      findings.map((f) => `${f.rule}@${f.line}`),
      [`stale-write@${t.lineOf('toolu_e')}`, `missing-result@${t.lines.length}`],
    );
    // The message counts all 160,000 lines changed; the finding names the first thousand ranges,
    // not 12 MB of them.
    assert.match(findings[0]!.message, /lines 2, 4, 6, 8 and 159995 more changed/);
    assert.equal(findings[0]!.subject?.lines?.length, 1000);
    assert.ok(r.stdout.length < 200_000, `${r.stdout.length} bytes`);
  });

  void test('hundreds of writes over a large file changed whole behind the session are judged in bounded work', () => {
    // What each write replaced was compared line by line with what the session had seen: every
    // line changed, the search went through all its 4,000 steps before giving up, copying its
    // whole frontier at each (~125 ms a write): 600 such writes, some 11 MB, took over a minute.
    const dir = path.join(tmp, 'rewritten');
    mkdirSync(dir, { recursive: true });
    const file = '/home/dev/proj/big.txt';
    const ours = 'a\n'.repeat(2001);
    const theirs = 'b\n'.repeat(2001);
    const t = new ClaudeTranscript('aaaaaaaa-0000-4000-8000-00000000a101').user('go').read('r', 'toolu_r', file, ours);
    for (let i = 0; i < 600; i++) {
      t.write(`w${i}`, `toolu_w${i}`, file, ours, theirs);
    }
    t.call('last', 'toolu_last', 'Bash', { command: 'ls' });
    writeFileSync(path.join(dir, 'aaaaaaaa-0000-4000-8000-00000000a101.jsonl'), t.text());
    const r = cli(['check', '--format', 'json', dir]);
    assert.equal(r.code, 1, r.stderr);
    const findings = (JSON.parse(r.stdout) as { findings: { rule: string; line: number; message: string }[] }).findings;
    // Each write replaced lines the session never saw, all of them; checked to the end.
    assert.equal(findings.filter((f) => f.rule === 'stale-write' && f.message.includes('lines 1–2001 changed')).length, 600);
    assert.deepEqual(findings.filter((f) => f.rule !== 'stale-write').map((f) => `${f.rule}@${f.line}`), [`missing-result@${t.lines.length}`]);
  });

  void test('MultiEdits of thousands of edits of a large file are taken in, in bounded work', () => {
    // Each edit was looked for in the whole file as the edits before it left it, and the file
    // rebuilt: one MultiEdit of 5,000 edits of a 20,000-line file took 19 s.
    const dir = path.join(tmp, 'multi-edits');
    mkdirSync(dir, { recursive: true });
    const file = '/home/dev/proj/big.txt';
    const text = Array.from({ length: 20_000 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const edits = Array.from({ length: 10_000 }, (_, i) => ({ old_string: `line ${2 * i}\n`, new_string: `LINE ${i}\n`, replace_all: false }));
    const t = new ClaudeTranscript('aaaaaaaa-0000-4000-8000-00000000b101').user('go').read('r', 'toolu_r', file, text);
    for (let i = 0; i < 3; i++) {
      t.call(`e${i}`, `toolu_e${i}`, 'MultiEdit', { file_path: file, edits });
      t.result(`toolu_e${i}`, `Applied ${edits.length} edits to ${file}`, { toolUseResult: { filePath: file, edits, originalFile: text, structuredPatch: [], userModified: false } });
    }
    t.call('last', 'toolu_last', 'Bash', { command: 'ls' });
    writeFileSync(path.join(dir, 'aaaaaaaa-0000-4000-8000-00000000b101.jsonl'), t.text());
    // Checked to the end: the last call has no result.
    assert.deepEqual(findingsAt(dir), [`missing-result@${t.lines.length}`]);
  });

  void test('results after thousands of compactions of another branch are judged in bounded work', () => {
    // Each result was compared with every reset since its call, looking for one on the call's
    // branch: 4,000 calls answered after 4,000 compactions of another branch took 11 s, growing
    // as the square (15,000 of each: past the 60 s this run is given).
    const dir = path.join(tmp, 'resets');
    mkdirSync(dir, { recursive: true });
    const n = 15_000;
    const t = new ClaudeTranscript('dddddddd-0000-4000-8000-00000000d101').user('go');
    const uuidOf = (): string => (JSON.parse(t.lines[t.lines.length - 1]!) as { uuid: string }).uuid;
    const root = uuidOf();
    for (let i = 0; i < n; i++) {
      t.call(`m${i}`, `toolu_${i}`, 'Bash', { command: 'true' });
    }
    const calls = uuidOf();
    t.from(root).say('b0', 'elsewhere');
    for (let i = 0; i < n; i++) {
      t.compact().say(`b${i + 1}`, 'go on');
    }
    t.from(calls);
    for (let i = 0; i < n; i++) {
      t.result(`toolu_${i}`, 'ok');
    }
    writeFileSync(path.join(dir, 'dddddddd-0000-4000-8000-00000000d101.jsonl'), t.text());
    const r = cli(['check', '--format', 'json', dir], { maxBuffer: 256 * 1024 * 1024 });
    assert.equal(r.code, 1, r.stderr);
    const findings = (JSON.parse(r.stdout) as { findings: { rule: string }[] }).findings;
    // Checked to the end, with what was reported before the bound (as for 4,000 of each).
    assert.equal(findings.filter((f) => f.rule === 'missing-result').length, n - 1);
    assert.deepEqual(findings.filter((f) => f.rule !== 'missing-result').map((f) => f.rule), ['overlapping-executions']);
  });

  void test('an edit whose patch has tens of thousands of hunks, over a file changed whole, is judged in bounded work', () => {
    // Every line changed unseen was compared with every hunk the write's patch replaced: a
    // million lines and 80,000 hunks in one record, past the 60 s this run is given (300,000
    // and 60,000: 34 s), growing as the product.
    const dir = path.join(tmp, 'hunks');
    mkdirSync(dir, { recursive: true });
    const file = '/home/dev/proj/big.txt';
    const lines = 1_000_000;
    // Hunks past the file's end: none touches a changed line, so each is compared with each.
    const hunks = Array.from({ length: 80_000 }, (_, i) => ({ oldStart: lines + 10 + i, oldLines: 1, newStart: lines + 10 + i, newLines: 1, lines: [] }));
    const t = new ClaudeTranscript('eeeeeeee-0000-4000-8000-00000000e101')
      .user('go')
      .write('w', 'toolu_w', file, 'a\n'.repeat(lines), null)
      .read('p', 'toolu_p', file, 'a\n'.repeat(lines), { offset: 1, limit: 1 })
      .call('e', 'toolu_e', 'Edit', { file_path: file, old_string: 'zzz', new_string: 'y', replace_all: false })
      .result('toolu_e', 'ok', { toolUseResult: { filePath: file, oldString: 'zzz', newString: 'y', originalFile: 'b\n'.repeat(lines), structuredPatch: hunks, userModified: false, replaceAll: false } })
      .call('last', 'toolu_last', 'Bash', { command: 'ls' });
    writeFileSync(path.join(dir, 'eeeeeeee-0000-4000-8000-00000000e101.jsonl'), t.text());
    const r = cli(['check', '--format', 'json', dir]);
    assert.equal(r.code, 0, r.stderr);
    const findings = (JSON.parse(r.stdout) as { findings: { rule: string; line: number; severity: string }[] }).findings;
    // The change is reported at the edit, beside what it replaced, and the check went on to the end.
    assert.deepEqual(findings.map((f) => `${f.rule}:${f.severity}@${f.line}`), [`stale-write:warning@${t.lineOf('"toolu_e"')}`, `missing-result:warning@${t.lines.length}`]);
  });

  void test('thousands of calls with one id, and of calls each on a branch of its own, are judged in bounded work', () => {
    // Each call with the id was compared with every earlier one by a walk up the whole chain of
    // messages (the cube of their number: 30 s for 2,000), and every call the session passed by
    // was judged again at every later message and at the end once per call (minutes for 40,000):
    // past the 60 s this run is given.
    const dir = path.join(tmp, 'one-id');
    mkdirSync(dir, { recursive: true });
    const same = new ClaudeTranscript('aaaaaaaa-0000-4000-8000-00000000d001').user('go');
    for (let i = 0; i < 4000; i++) {
      same.call(`m${i}`, 'toolu_same', 'Bash', { command: 'true' }).result('toolu_same', 'ok');
    }
    writeFileSync(path.join(dir, 'aaaaaaaa-0000-4000-8000-00000000d001.jsonl'), same.text());
    const branches = [JSON.stringify({ type: 'user', uuid: 'r', parentUuid: null, sessionId: 'bbbbbbbb-0000-4000-8000-00000000d002', message: { role: 'user', content: 'go' } })];
    for (let i = 0; i < 40_000; i++) {
      const content = [{ type: 'tool_use', id: `toolu_${i}`, name: 'Bash', input: { command: 'true' } }];
      branches.push(JSON.stringify({ type: 'assistant', uuid: `a${i}`, parentUuid: 'r', sessionId: 'bbbbbbbb-0000-4000-8000-00000000d002', message: { id: `msg_${i}`, role: 'assistant', content } }));
    }
    writeFileSync(path.join(dir, 'bbbbbbbb-0000-4000-8000-00000000d002.jsonl'), branches.join('\n') + '\n');
    // (Some 44,000 findings: more than the default 1 MB of output.)
    const r = cli(['check', '--format', 'json', dir], { maxBuffer: 256 * 1024 * 1024 });
    assert.equal(r.code, 1, r.stderr);
    const findings = (JSON.parse(r.stdout) as { findings: { rule: string; file: string; line: number }[] }).findings;
    const count = (rule: string, file: string): number => findings.filter((f) => f.rule === rule && f.file.endsWith(file)).length;
    // Every call after the first reuses the id; every call on its own branch went unanswered.
    assert.equal(count('duplicate-call-id', 'd001.jsonl'), 3999);
    assert.equal(count('missing-result', 'd002.jsonl'), 40_000);
  });

  void test('a chain of worktrees entered one from another copies what the session saw in bounded work', () => {
    // Each worktree took in copies of every file seen, copies included, under each of the roots
    // above the folder it was entered from: 12 records after 50 reads took over a minute and 2 GB.
    const dir = path.join(tmp, 'worktrees');
    mkdirSync(dir, { recursive: true });
    const t = new ClaudeTranscript('aaaaaaaa-0000-4000-8000-00000000e001').user('go');
    for (let i = 0; i < 50; i++) {
      t.read(`r${i}`, `toolu_r${i}`, `/home/dev/proj/f${i}.txt`, 'x\n');
    }
    for (let i = 0; i < 12; i++) {
      t.inWorktree(`/home/dev/wt${i}`).say(`s${i}`, 'in');
    }
    t.call('last', 'toolu_last', 'Bash', { command: 'ls' });
    writeFileSync(path.join(dir, 'aaaaaaaa-0000-4000-8000-00000000e001.jsonl'), t.text());
    // Checked to the end: the last call has no result.
    assert.deepEqual(findingsAt(dir), [`missing-result@${t.lines.length}`]);
  });

  void test('thousands of rewrites of the whole tree and moves of files are taken in, in bounded work', () => {
    // Each `git checkout .` forgot what the session knew of every file it had seen, one by one,
    // and each `mv` of a file looked through every known path for files under it: 60,000 files
    // seen, 15,000 checkouts and 60,000 moves took some two minutes, growing as the square.
    const dir = path.join(tmp, 'rewrites');
    mkdirSync(dir, { recursive: true });
    const t = new ClaudeTranscript('aaaaaaaa-0000-4000-8000-00000000f001').user('go');
    const files = 60_000;
    const perCall = 100;
    const names = (i: number, name: (j: number) => string): string[] => Array.from({ length: perCall }, (_, j) => name(i * perCall + j));
    for (let i = 0; i < files / perCall; i++) {
      t.bash(`r${i}`, `toolu_r${i}`, `cat ${names(i, (j) => `f${j}.txt`).join(' ')}`);
    }
    for (let i = 0; i < 15_000; i++) {
      t.bash(`c${i}`, `toolu_c${i}`, 'git checkout .');
    }
    for (let i = 0; i < files / perCall; i++) {
      t.bash(`m${i}`, `toolu_m${i}`, names(i, (j) => `mv f${j}.txt g${j}.txt`).join(' && '));
    }
    t.call('last', 'toolu_last', 'Bash', { command: 'ls' });
    writeFileSync(path.join(dir, 'aaaaaaaa-0000-4000-8000-00000000f001.jsonl'), t.text());
    // Checked to the end: the last call has no result.
    assert.deepEqual(findingsAt(dir), [`missing-result@${t.lines.length}`]);
  });

  void test('a file named twice, or by itself and in a folder also named: checked and reported once', () => {
    const dir = path.join(tmp, 'named-twice');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'rollout-2025-12-05T11-00-00-twice.jsonl');
    cpSync(codexBroken, file);
    const missing = path.join(tmp, 'nope-twice.jsonl');
    for (const args of [[file, file], [file, dir], [dir, file], [dir, path.relative(repoRoot(), file)]]) {
      const r = cli(['check', '--format', 'json', ...args]);
      assert.equal(r.code, 1, args.join(' '));
      const out = JSON.parse(r.stdout) as { files: { file: string }[]; findings: unknown[]; errors: number };
      assert.deepEqual(out.files.map((f) => f.file), [file], args.join(' '));
      assert.deepEqual([out.findings.length, out.errors], [2, 2], args.join(' '));
    }
    const text = cli(['check', file, dir]);
    assert.match(text.stdout, /2 problems \(2 errors, 0 warnings, 0 info\) — 1 transcript checked\n$/);
    const r = cli(['check', missing, file, missing]);
    assert.equal(r.code, 2);
    assert.equal(r.stderr.match(/cannot read /g)?.length, 1, r.stderr);
  });

  void test('a transcript named by itself and through a link to it is checked once', () => {
    const dir = path.join(tmp, 'named-linked');
    mkdirSync(dir, { recursive: true });
    const file = path.join(dir, 'rollout-2025-12-05T11-00-00-linked.jsonl');
    cpSync(codexBroken, file);
    const link = path.join(tmp, 'rollout-2025-12-05T11-00-00-link.jsonl');
    symlinkSync(file, link);
    for (const args of [[file, link], [link, dir]]) {
      const r = cli(['check', '--format', 'json', ...args]);
      const out = JSON.parse(r.stdout) as { files: { file: string }[]; findings: unknown[] };
      assert.deepEqual(out.files.map((f) => f.file), [args[0] === link ? link : file], args.join(' '));
      assert.equal(out.findings.length, 2, args.join(' '));
    }
  });

  void test('a folder of links to transcripts is read through the links', () => {
    const dir = path.join(tmp, 'links');
    mkdirSync(dir, { recursive: true });
    symlinkSync(codexBroken, path.join(dir, 'rollout-2025-12-05T11-00-00-linked.jsonl'));
    symlinkSync(path.join(tmp, 'nowhere.jsonl'), path.join(dir, 'dangling.jsonl'));
    const r = cli(['check', '--format', 'json', dir]);
    const out = JSON.parse(r.stdout) as { files: { file: string }[]; findings: { rule: string }[]; problems: { path: string }[] };
    assert.deepEqual(out.files.map((f) => path.basename(f.file)), ['rollout-2025-12-05T11-00-00-linked.jsonl']);
    assert.deepEqual(out.findings.map((f) => f.rule), ['missing-result', 'missing-result']);
    assert.deepEqual(out.problems.map((p) => path.basename(p.path)), ['dangling.jsonl'], 'a dangling link is a clear problem');
    assert.equal(r.code, 2);
  });

  void test('colour only on a terminal or when forced', () => {
    assert.ok(!cli(['check', codexBroken]).stdout.includes('\u001b['));
    assert.ok(cli(['check', codexBroken], { env: { NO_COLOR: undefined, FORCE_COLOR: '1' } }).stdout.includes('\u001b[31merror'));
  });

  void test('FORCE_COLOR=0 or false turns colour off, on a terminal too (as Node and supports-color read it)', () => {
    for (const value of ['0', 'false']) {
      const r = cli(['check', codexBroken], { env: { NO_COLOR: undefined, FORCE_COLOR: value } });
      assert.equal(r.code, 1);
      assert.ok(!r.stdout.includes('\u001b['), `FORCE_COLOR=${value} on a pipe`);
      assert.equal(paletteFor({ isTTY: true }, { FORCE_COLOR: value }).red('x'), 'x', `FORCE_COLOR=${value} on a terminal`);
    }
    for (const value of ['', '1', 'true', '2', '3']) {
      assert.equal(paletteFor({ isTTY: false }, { FORCE_COLOR: value }).red('x'), '\u001b[31mx\u001b[39m', `FORCE_COLOR=${value}`);
    }
    assert.equal(paletteFor({ isTTY: true }, {}).red('x'), '\u001b[31mx\u001b[39m', 'a terminal');
  });
});

void describe('agent-guard check --workspace with the guard hook’s ledger', () => {
  void test('a call that ran with other input than the hook approved is reported', async () => {
    const ws = path.join(tmp, 'ledger-ws');
    mkdirSync(ws, { recursive: true });
    const guardDirPath = path.join(tmp, 'guard');
    mkdirSync(guardDirPath, { recursive: true, mode: 0o700 });
    const claudeDir = path.join(tmp, 'claude-ledger');
    const proj = path.join(claudeDir, 'projects', encodeClaudeProject(realpathSync(ws)));
    mkdirSync(proj, { recursive: true });
    const sid = 'dddddddd-0000-4000-8000-000000000004';
    const file = path.join(ws, 'a.ts');
    const edit = { file_path: file, old_string: 'a', new_string: 'b', replace_all: false };
    const ledger = await HookLedger.open(ledgerPathFor(ws, guardDirPath));
    ledger.record({ kind: 'pre', at: 1, agent: 'claude', sessionId: sid, tool: 'Edit', toolUseId: 'toolu_E', inputHash: inputHash({ ...edit, new_string: 'approved' }), seq: ledger.nextSeq(), paths: [{ path: file, op: 'edit' }] });
    await ledger.flush();
    writeFileSync(path.join(proj, `${sid}.jsonl`), new ClaudeTranscript(sid, ws).user('go').call('m1', 'toolu_E', 'Edit', edit).result('toolu_E', 'ok').text());
    const r = cli(['check', '--format', 'json', '--rule', 'write-before-read=off', '--workspace', ws], { env: { CLAUDE_CONFIG_DIR: claudeDir, CODEX_HOME: path.join(tmp, 'nocodex'), HOME: tmp, AGENT_GUARD_DIR: guardDirPath } });
    const out = JSON.parse(r.stdout) as { findings: { rule: string; line: number }[] };
    assert.deepEqual(out.findings.map((f) => `${f.rule}@${f.line}`), ['unapproved-call@2']);
    assert.equal(r.code, 1);
  });
});
