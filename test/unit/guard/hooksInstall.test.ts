/**
 * Installing the hook into settings files: comments, order and unrelated entries survive
 * byte for byte, install twice = install once, uninstall gives back the original bytes, and
 * only our entries are ever removed. Then the `agent-guard hooks` command on a real folder.
 */
import assert from 'node:assert/strict';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { parse, type ParseError } from 'jsonc-parser';
import { findOurHooks, hookCommand, hookSpecs, installAgents, planInstall, planUninstall } from '../../../src/core/hooks/install';
import { JsoncError, removeMember } from '../../../src/core/hooks/jsoncEdit';
import { unifiedDiff } from '../../../src/core/hooks/preview';
import { AgentGuardError } from '../../../src/core/lib/errors';
import { runHooks } from '../../../src/cli/hooks';

const script = '/opt/My Tools/agent-session-guard/dist/hook.js';

/** Settings files as people write them: comments everywhere, odd indentation, their own hooks. */
const originals: Record<string, string> = {
  none: '',
  empty: '{}\n',
  commented: `{
  // Project settings — do not commit
  "permissions": { "allow": ["Bash(npm test)"] }, // allowed
  /* the model */
  "model": "opus"
}
`,
  theirHooks: `{
    "hooks": {
        "PreToolUse": [
            { "matcher": "Bash", "hooks": [ { "type": "command", "command": "./check.sh" } ] } // mine
        ],
        /* keep */
        "Stop": [ { "hooks": [ { "type": "command", "command": "notify-send done" } ] } ]
    },
    "env": { "A": "1" }
}
`,
  tabsCrlf: '{\r\n\t"hooks": {\r\n\t\t"Stop": []\r\n\t},\r\n\t"x": [1, 2]\r\n}\r\n',
  noNewline: '{"model":"sonnet","hooks":{"PreToolUse":[{"matcher":"Edit","hooks":[{"type":"command","command":"fmt"}]}]}}',
  trailingComment: '{\n  "a": 1 // last\n}\n',
};

function install(text: string | undefined, agent: (typeof installAgents)[number] = 'claude', failClosed = false): string | undefined {
  return planInstall(text, hookSpecs[agent], hookCommand(script, agent, { failClosed })).after;
}

void describe('settings file edits', () => {
  for (const agent of installAgents) {
    for (const [name, raw] of Object.entries(originals)) {
      void test(`${agent}: ${name}`, () => {
        const before = raw === '' ? undefined : raw;
        const once = install(before, agent)!;
        // Valid, and holds exactly our groups once each, with the user's entries kept.
        const value = parse(once) as { hooks: Record<string, { matcher: string; hooks: { command: string }[] }[]> };
        for (const g of hookSpecs[agent].groups) {
          const ours = value.hooks[g.event]!.filter((x) => x.hooks.some((h) => h.command.includes('--agent-guard')));
          assert.equal(ours.length, 1, g.event);
          assert.equal(ours[0]!.matcher, g.matcher);
          assert.equal(ours[0]!.hooks[0]!.command, `node "${script}" --agent-guard --agent ${agent}`);
        }
        if (before !== undefined) {
          // Every byte of the original is still there, in order (only insertions were made).
          let i = 0;
          for (const ch of before) {
            const at = once.indexOf(ch, i);
            assert.ok(at >= 0, `lost ${JSON.stringify(ch)} of the original`);
            i = at + 1;
          }
          assert.deepEqual(parse(planUninstall(once).after ?? '{}'), parse(before));
        }
        // Install twice = install once (byte for byte, and reported as no change).
        const twice = planInstall(once, hookSpecs[agent], hookCommand(script, agent));
        assert.equal(twice.changed, false);
        assert.equal(twice.after, once);
        // Uninstall gives back the original bytes (no file, when there was none; a file that
        // holds nothing, `{}`, goes too: the two cannot be told apart afterwards).
        const removed = planUninstall(once);
        assert.equal(removed.changed, true);
        assert.equal(removed.after, name === 'empty' ? undefined : before);
        assert.equal(planUninstall(before).changed, false, 'nothing of ours to remove');
      });
    }
  }

  void test('the user’s own hooks in the same group stay; only our entry goes', () => {
    const mixed = `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          { "type": "command", "command": "prettier --check" },
          { "type": "command", "command": "node \\"/old/dist/hook.js\\" --agent-guard --agent claude", "timeout": 10 }
        ]
      }
    ]
  }
}
`;
    const out = planUninstall(mixed).after!;
    assert.equal(
      out,
      `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          { "type": "command", "command": "prettier --check" }
        ]
      }
    ]
  }
}
`,
    );
    // A command that merely mentions hook.js or the marker is not ours.
    const lookalike = '{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"node hook.js"},{"type":"command","command":"echo --agent-guard"}]}]}}';
    assert.deepEqual(findOurHooks(lookalike), []);
  });

  void test('an older entry of ours (another path, fail-closed) is replaced, not duplicated', () => {
    const old = install(originals['commented'], 'claude')!.split(script).join('/old/place/dist/hook.js');
    const updated = planInstall(old, hookSpecs.claude, hookCommand(script, 'claude', { failClosed: true }));
    assert.equal(updated.changed, true);
    const ours = findOurHooks(updated.after);
    assert.equal(ours.length, 2);
    assert.ok(ours.every((o) => o.command === `node "${script}" --agent-guard --agent claude --fail-closed`));
    assert.equal(planUninstall(updated.after).after, originals['commented']);
  });

  void test('a trailing comma after the last member (JSONC) takes the entry after it, and comes back', () => {
    // The entry went in before the comma (`"a": 1\n  "hooks": …,`), the edit no longer parsed
    // and install refused the user's valid file with an error about a line that was fine.
    for (const before of ['{\n  "a": 1,\n}\n', '{\n  "a": 1 /* one */,\n}\n', '{\n  "a": 1, // one\n}\n', '{"a": 1,}', '{\n  "hooks": {\n    "Stop": [],\n  },\n}\n']) {
      const once = install(before)!;
      const errors: ParseError[] = [];
      const value = parse(once, errors, { allowTrailingComma: true }) as { a?: number; hooks: Record<string, unknown[]> };
      assert.deepEqual(errors, [], once);
      assert.equal(findOurHooks(once).length, 2, once);
      assert.equal(planInstall(once, hookSpecs.claude, hookCommand(script, 'claude')).changed, false);
      assert.equal(planUninstall(once).after, before, 'uninstall gives back the original bytes');
      if (before.includes('"Stop"')) {
        assert.deepEqual(value.hooks['Stop'], []);
      } else {
        assert.equal(value.a, 1);
      }
    }
  });

  void test('uninstall keeps the user’s comments next to and around our entries', () => {
    // Installed into a fresh file, then the user added a hook of their own after ours, with a
    // comment: removing our group (the first of several) cut everything up to the next member.
    const fresh = install(undefined)!;
    const lines = fresh.split('\n');
    const close = lines.indexOf('      }');
    lines.splice(close, 1, '      },', '      // my formatter: keep!', '      { "matcher": "Bash", "hooks": [ { "type": "command", "command": "fmt" } ] }');
    const edited = lines.join('\n');
    const out = planUninstall(edited).after!;
    assert.match(out, /\[\n {6}\/\/ my formatter: keep!\n {6}\{ "matcher": "Bash"/);
    assert.deepEqual(findOurHooks(out), []);
    assert.deepEqual(parse(out), { hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'fmt' }] }] } });
    // The same on one line, and with our group's comma on a line of its own.
    assert.equal(removeMember('[1, /* two */ 2]', [0]), '[ /* two */ 2]');
    assert.equal(removeMember('[\n  1\n  , // two\n  2\n]', [0]), '[\n   // two\n  2\n]');
    assert.equal(removeMember('[\n  1,\n  2\n]', [0]), '[\n  2\n]');
    // A later member on the line of the one before it: the comment between them stays too.
    assert.equal(removeMember('{"a": [1], /* b is next */ "b": []}', ['b']), '{"a": [1] /* b is next */}');
    assert.equal(removeMember('{"a": [1], /* b is next */ "b": [],}', ['b']), '{"a": [1], /* b is next */}');

    // An event array (or hooks object) that held only a comment before the install keeps it:
    // it was removed whole as "left empty", comment and all.
    for (const before of [
      '{\n  "hooks": {\n    "PreToolUse": [\n      // TODO: a lint hook\n    ]\n  },\n  "model": "x"\n}\n',
      '{\n  "hooks": {\n    // mine go here\n  }\n}\n',
    ]) {
      const after = planUninstall(install(before)).after;
      assert.ok(after !== undefined, 'the file stays');
      assert.match(after, before.includes('TODO') ? /\/\/ TODO: a lint hook/ : /\/\/ mine go here/);
      assert.deepEqual(findOurHooks(after), []);
      assert.deepEqual(parse(after), before.includes('TODO') ? { hooks: { PreToolUse: [] }, model: 'x' } : { hooks: {} });
    }
  });

  void test('a key given twice where we edit is refused: the agents read only the last', () => {
    // Install added our groups to the first "hooks" (which the agents, and our own reading,
    // ignore), and every later install added them again.
    const twice = '{\n  "hooks": { "PreToolUse": [ { "matcher": "Bash", "hooks": [ { "type": "command", "command": "x" } ] } ] },\n  "hooks": { "Stop": [] }\n}\n';
    assert.throws(() => install(twice), (e: unknown) => e instanceof JsoncError && /"hooks" is given twice/.test(e.message));
    const inHooks = '{ "hooks": { "PreToolUse": [], "PreToolUse": [ { "hooks": [ { "type": "command", "command": "x" } ] } ] } }';
    assert.throws(() => install(inHooks), /"hooks\.PreToolUse" is given twice/);
    const ours = install('{}\n')!;
    assert.throws(() => planUninstall(ours.replace(/\n}\n$/, ',\n  "hooks": {}\n}\n')), /"hooks" is given twice/);
    // Elsewhere it is none of our business.
    assert.equal(findOurHooks(install('{ "env": { "A": "1", "A": "2" } }')).length, 2);
  });

  void test('a UTF-8 byte order mark (Notepad, PowerShell 5.1) is kept, not refused', () => {
    // It was refused as "not valid JSON (with comments): InvalidSymbol at line 1, column 1".
    for (const agent of installAgents) {
      for (const before of ['\uFEFF{\n  "model": "x"\n}\n', '\uFEFF{}\r\n']) {
        const once = install(before, agent)!;
        assert.ok(once.startsWith('\uFEFF{'), 'the mark stays first');
        assert.equal(findOurHooks(once).length, 2);
        assert.equal(JSON.parse(once.slice(1).replace(/\r\n/g, '\n')).hooks !== undefined, true);
        assert.equal(planInstall(once, hookSpecs[agent], hookCommand(script, agent)).changed, false);
        assert.equal(planUninstall(once).after, before.includes('model') ? before : undefined);
      }
    }
  });

  void test('a line comment before a removed member never swallows what follows it', () => {
    // Removing a member took the line break before it; when the line before ended in a line
    // comment and the container closed on the member's own line, the closer joined the
    // comment: '{ // c}'. Uninstall then refused the user's file as not valid JSON.
    assert.equal(removeMember('{"a":{ // c\n"b":[]} // d\n}\n', ['a', 'b']), '{"a":{ // c\n} // d\n}\n');
    assert.equal(removeMember('[\n  1, // one\n  2]', [1]), '[\n  1 // one\n]');
    assert.equal(removeMember('[\n  1, // one\n  2, 3]', [1]), '[\n  1, // one\n 3]');
    const before = '{"hooks":{ // project hooks\n"PostToolUse":[]} // end\n}\n';
    for (const agent of installAgents) {
      const once = install(before, agent)!;
      const other = planInstall(once, hookSpecs[agent], hookCommand('/new/dist/hook.js', agent)).after!;
      assert.equal(findOurHooks(other).length, 2);
      const after = planUninstall(once).after!;
      assert.deepEqual(findOurHooks(after), []);
      assert.match(after, /\/\/ project hooks\n[\s\S]*\/\/ end/);
      // Our event's array goes as left empty; the hooks object stays for its comment.
      assert.deepEqual(parse(after), agent === 'gemini' ? { hooks: { PostToolUse: [] } } : { hooks: {} });
    }
  });

  void test('a comment in an empty container on one line stays through install and uninstall', () => {
    // Inserting into '{ /* none yet */ }' replaced what was between the braces with a line
    // break: the comment was gone after install, and so after uninstall.
    for (const before of ['{ /* settings go here */ }\n', '{\n  "hooks": { /* mine go here */ },\n  "model": "x"\n}\n', '{"hooks": {"PostToolUse": [ /* later */ ]}}']) {
      const comment = /\/\*[^*]*\*\//.exec(before)![0];
      const once = install(before)!;
      assert.ok(once.includes(comment), once);
      assert.equal(findOurHooks(once).length, 2);
      const after = planUninstall(once).after;
      assert.ok(after?.includes(comment), after);
      assert.deepEqual(findOurHooks(after), []);
    }
  });

  void test('a broken file is refused, not rewritten', () => {
    assert.throws(() => install('{ "a": 1,, }'), (e: unknown) => e instanceof JsoncError && /not valid JSON \(with comments\): .* at line 1/.test(e.message));
    assert.throws(() => install('[1]'), JsoncError);
    assert.throws(() => install('{"hooks": 3}'), /"hooks" in .* is not an object/);
  });

  void test('the preview is a unified diff', () => {
    const before = originals['trailingComment'];
    const diff = unifiedDiff('.claude/settings.local.json', before, install(before));
    assert.match(diff, /^--- a\/\.claude\/settings\.local\.json\n\+\+\+ b\/\.claude\/settings\.local\.json\n@@ -1,3 \+1,\d+ @@\n \{\n- {2}"a": 1 \/\/ last\n\+ {2}"a": 1, \/\/ last\n\+ {2}"hooks": \{\n/);
    // An empty range names the line before it, 0 at the top (GNU patch skipped `-1,0`).
    assert.match(unifiedDiff('x.json', undefined, '{}\n'), /^--- \/dev\/null\n\+\+\+ b\/x\.json\n@@ -0,0 \+1,1 @@\n\+\{\}\n$/);
    assert.match(unifiedDiff('x.json', '{}\n', ''), /\n@@ -1,1 \+0,0 @@\n-\{\}\n$/);
    assert.match(unifiedDiff('x.json', 'a\nb\n', 'a\nc\nb\n'), /\n@@ -1,2 \+1,3 @@\n a\n\+c\n b\n$/);
  });
});

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ag-hooks-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

function io(cwd: string): { out: string[]; err: string[]; io: Parameters<typeof runHooks>[1] } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    out,
    err,
    io: { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, env: { AGENT_GUARD_DIR: path.join(tmp, 'gd') }, cwd, home: tmp },
  };
}

void describe('agent-guard hooks', () => {
  void test('install --dry-run writes nothing; install, install again, status, uninstall', async () => {
    const ws = path.join(tmp, 'ws');
    mkdirSync(path.join(ws, '.claude'), { recursive: true });
    const claudeFile = path.join(ws, '.claude', 'settings.local.json');
    writeFileSync(claudeFile, originals['commented']!);

    const dry = io(ws);
    assert.equal(await runHooks(['install', '--dry-run'], dry.io, { hookScript: script }), 0);
    const preview = dry.out.join('');
    assert.match(preview, /Claude Code \(and Copilot agent mode\): would install the guard hook in \.claude\/settings\.local\.json\n--- a\/\.claude\/settings\.local\.json/);
    assert.match(preview, /Gemini CLI: would install the guard hook in \.gemini\/settings\.json\n--- \/dev\/null\n\+\+\+ b\/\.gemini\/settings\.json/);
    assert.match(preview, /Codex CLI: would install the guard hook in \.codex\/hooks\.json/);
    assert.equal(readFileSync(claudeFile, 'utf8'), originals['commented']);
    assert.equal(existsSync(path.join(ws, '.gemini')), false);

    const first = io(ws);
    assert.equal(await runHooks(['install', '--workspace', ws], first.io, { hookScript: script }), 0);
    const installed = {
      claude: readFileSync(claudeFile, 'utf8'),
      gemini: readFileSync(path.join(ws, '.gemini', 'settings.json'), 'utf8'),
      codex: readFileSync(path.join(ws, '.codex', 'hooks.json'), 'utf8'),
    };
    assert.match(installed.gemini, /"BeforeTool": \[\n\s+\{\n\s+"matcher": "write_file\|replace",[\s\S]*"name": "agent-guard",[\s\S]*"timeout": 10000/);
    assert.match(installed.codex, /"PreToolUse": \[\n\s+\{\n\s+"matcher": "apply_patch\|Edit\|Write"/);

    const second = io(ws);
    assert.equal(await runHooks(['install'], second.io, { hookScript: script }), 0);
    assert.match(second.out.join(''), /Claude Code \(and Copilot agent mode\): already installed in \.claude\/settings\.local\.json\nGemini CLI: already installed/);
    assert.equal(readFileSync(claudeFile, 'utf8'), installed.claude);

    const st = io(ws);
    assert.equal(await runHooks(['status'], st.io, { hookScript: script }), 0);
    assert.match(st.out.join(''), /\.claude\/settings\.local\.json +installed \(PreToolUse, PostToolUse; allows writes when no guard service answers\)/);
    assert.match(st.out.join(''), /\.gemini\/settings\.json +installed \(BeforeTool, AfterTool; allows writes when no guard service answers\)/);
    // Installed again with --fail-closed: rewritten, and the status says which way it fails.
    const closed = io(ws);
    assert.equal(await runHooks(['install', '--agents', 'claude', '--fail-closed'], closed.io, { hookScript: script }), 0);
    const stClosed = io(ws);
    assert.equal(await runHooks(['status', '--agents', 'claude'], stClosed.io, { hookScript: script }), 0);
    assert.match(stClosed.out.join(''), /\.claude\/settings\.local\.json +installed \(PreToolUse, PostToolUse; denies writes when no guard service answers\)/);
    assert.equal(await runHooks(['install', '--agents', 'claude'], io(ws).io, { hookScript: script }), 0);
    assert.equal(readFileSync(claudeFile, 'utf8'), installed.claude, 'and back');
    assert.match(st.out.join(''), /guard service: not running for /);

    // An entry whose script is gone (an old install's path): the agents run it and write
    // unchecked, so a script reading only the exit code must not take it for installed.
    const gone = io(ws);
    assert.equal(await runHooks(['status'], gone.io, { hookScript: path.join(tmp, 'elsewhere', 'hook.js') }), 1);
    assert.match(gone.out.join(''), /\.claude\/settings\.local\.json +installed, but its script .* is missing: the agents write unchecked \(run 'agent-guard hooks install' to repair it\)/);

    const un = io(ws);
    assert.equal(await runHooks(['uninstall', '--agents', 'claude,gemini,codex'], un.io, { hookScript: script }), 0);
    assert.equal(readFileSync(claudeFile, 'utf8'), originals['commented'], 'the original bytes');
    assert.equal(existsSync(path.join(ws, '.gemini', 'settings.json')), false, 'a file we created goes again');
    assert.equal(existsSync(path.join(ws, '.codex', 'hooks.json')), false);
    assert.equal(existsSync(path.join(ws, '.codex')), false, 'and so does the folder install made for it');
    assert.equal(existsSync(path.join(ws, '.claude')), true, 'a folder that holds other files stays');
  });

  void test('a settings file that is a symbolic link stays one, and uninstall cleans its target', async (t) => {
    // Uninstall removed a file left holding nothing: for a link, the link went and its target
    // kept our entries (and the agents, reading it from elsewhere, kept running them).
    const ws = path.join(tmp, 'linked');
    const target = path.join(tmp, 'dotfiles', 'gemini-settings.json');
    mkdirSync(path.join(ws, '.gemini'), { recursive: true });
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, '{}\n');
    const link = path.join(ws, '.gemini', 'settings.json');
    try {
      symlinkSync(target, link);
    } catch {
      t.skip('no symbolic links here');
      return;
    }
    assert.equal(await runHooks(['install', '--agents', 'gemini'], io(ws).io, { hookScript: script }), 0);
    assert.ok(lstatSync(link).isSymbolicLink());
    assert.equal(findOurHooks(readFileSync(target, 'utf8')).length, 2);
    const un = io(ws);
    assert.equal(await runHooks(['uninstall', '--agents', 'gemini'], un.io, { hookScript: script }), 0);
    assert.ok(lstatSync(link).isSymbolicLink(), 'the link stays');
    assert.equal(readFileSync(target, 'utf8'), '{}\n', 'its target holds what it held before');
    assert.doesNotMatch(un.out.join(''), /goes|\/dev\/null/);
  });

  void test('a broken settings file is reported and left alone; bad flags are usage errors', async () => {
    const ws = path.join(tmp, 'broken');
    mkdirSync(path.join(ws, '.gemini'), { recursive: true });
    writeFileSync(path.join(ws, '.gemini', 'settings.json'), '{ oops');
    const r = io(ws);
    assert.equal(await runHooks(['install', '--agents', 'gemini'], r.io, { hookScript: script }), 2);
    assert.match(r.err.join(''), /\.gemini\/settings\.json: not valid JSON \(with comments\).*; left as it is/);
    assert.equal(readFileSync(path.join(ws, '.gemini', 'settings.json'), 'utf8'), '{ oops');
    // status cannot tell whether the hook is there: it says why, on stderr too, and fails.
    const broken = '{\n  "hooks": {\n    "BeforeTool": [1,,]\n';
    writeFileSync(path.join(ws, '.gemini', 'settings.json'), broken);
    const st = io(ws);
    assert.equal(await runHooks(['status'], st.io, { hookScript: script }), 2);
    assert.match(st.out.join(''), /\.gemini\/settings\.json +cannot read: not valid JSON \(with comments\): .* at line 3/);
    assert.match(st.out.join(''), /\.claude\/settings\.local\.json +not installed/, 'the other agents are still told');
    assert.equal(st.err.join(''), `agent-guard: Gemini CLI: cannot tell whether the hook is installed in ${path.join(ws, '.gemini', 'settings.json')}: not valid JSON (with comments): ValueExpected at line 3, column 22; left as it is\n`);
    assert.equal(readFileSync(path.join(ws, '.gemini', 'settings.json'), 'utf8'), broken);
    await assert.rejects(runHooks(['install', '--agents', 'cursor'], io(ws).io), /unknown agent 'cursor'/);
    await assert.rejects(runHooks(['frobnicate'], io(ws).io), /unknown hooks action/);
  });

  void test('a settings file that is there but cannot be read is not taken for no settings: status fails, install writes nothing', async () => {
    const ws = path.join(tmp, 'unreadable');
    // A folder where the settings file should be: unreadable whoever runs the test (root too).
    mkdirSync(path.join(ws, '.gemini', 'settings.json'), { recursive: true });
    const st = io(ws);
    assert.equal(await runHooks(['status', '--agents', 'gemini'], st.io, { hookScript: script }), 2);
    assert.match(st.out.join(''), /\.gemini\/settings\.json +cannot read: .*EISDIR/);
    assert.match(st.err.join(''), /Gemini CLI: cannot tell whether the hook is installed in .*settings\.json: .*EISDIR.*; left as it is/);
    for (const args of [['install', '--agents', 'gemini', '--dry-run'], ['install', '--agents', 'gemini'], ['uninstall', '--agents', 'gemini']]) {
      const r = io(ws);
      assert.equal(await runHooks(args, r.io, { hookScript: script }), 2, args.join(' '));
      assert.match(r.err.join(''), /Gemini CLI: cannot read \.gemini\/settings\.json: .*EISDIR.*; left as it is/, args.join(' '));
      assert.doesNotMatch(r.out.join(''), /install|remove/, args.join(' '));
    }
  });

  void test('a workspace that is a file is a usage error, before anything is said to be installed', async () => {
    const file = path.join(tmp, 'not-a-folder.txt');
    writeFileSync(file, 'x');
    const r = io(tmp);
    await assert.rejects(runHooks(['install', '--workspace', file], r.io, { hookScript: script }), /the workspace .*not-a-folder\.txt is not a folder/);
    assert.equal(r.out.join(''), '');
  });

  void test('a settings file that cannot be written: reported, never said to be installed', async () => {
    const ws = path.join(tmp, 'blocked');
    mkdirSync(ws, { recursive: true });
    // A file where the folder should be: the write fails whoever runs the test (root too).
    writeFileSync(path.join(ws, '.claude'), 'not a folder');
    const r = io(ws);
    assert.equal(await runHooks(['install', '--agents', 'claude,gemini'], r.io, { hookScript: script }), 2);
    assert.match(r.err.join(''), /Claude Code \(and Copilot agent mode\): cannot write \.claude\/settings\.local\.json: .*; nothing was changed there/);
    assert.doesNotMatch(r.out.join(''), /installed the guard hook in \.claude/);
    assert.match(r.out.join(''), /Gemini CLI: installed the guard hook in \.gemini\/settings\.json/, 'the other agents are still installed');
  });
});

void describe('hook command quoting', () => {
  void test('a path the shell would expand inside double quotes is refused, not installed broken', () => {
    for (const bad of ['/opt/a$HOME/dist/hook.js', '/opt/a`id`/dist/hook.js', '/opt/a\nb/dist/hook.js']) {
      assert.throws(() => hookCommand(bad, 'claude'), (e) => AgentGuardError.is(e, 'invalid-input'), bad);
    }
    assert.match(hookCommand('/opt/My Tools (x86) & more/dist/hook.js', 'claude'), /^node "\/opt\/My Tools \(x86\) & more\/dist\/hook\.js" --agent-guard --agent claude$/);
  });

  void test('install with such a path: each settings file is left as it is, saying why, and the command fails', async () => {
    const ws = path.join(tmp, 'dollar-install');
    mkdirSync(ws, { recursive: true });
    const r = io(ws);
    assert.equal(await runHooks(['install', '--agents', 'claude,gemini'], r.io, { hookScript: path.join(tmp, 'pkg$HOME', 'dist', 'hook.js') }), 2);
    assert.match(r.err.join(''), /^agent-guard: \.claude\/settings\.local\.json: the hook's path contains '\$', which a shell expands .*; left as it is$/m);
    assert.match(r.err.join(''), /^agent-guard: \.gemini\/settings\.json: the hook's path contains '\$'/m);
    assert.equal(existsSync(path.join(ws, '.claude')), false);
  });

  void test('status says an installed entry with such a path cannot run', async () => {
    const ws = path.join(tmp, 'dollar');
    mkdirSync(path.join(ws, '.claude'), { recursive: true });
    const bad = path.join(tmp, 'pkg$HOME', 'dist', 'hook.js');
    mkdirSync(path.dirname(bad), { recursive: true });
    writeFileSync(bad, '');
    // As an older version installed it.
    const entry = { type: 'command', command: `node "${bad}" --agent-guard --agent claude`, timeout: 10 };
    writeFileSync(
      path.join(ws, '.claude', 'settings.local.json'),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Edit|Write|MultiEdit|NotebookEdit', hooks: [entry] }], PostToolUse: [{ matcher: 'Read|Edit|Write|MultiEdit|NotebookEdit', hooks: [entry] }] } }, null, 2),
    );
    const r = io(ws);
    assert.equal(await runHooks(['status', '--agents', 'claude'], r.io, { hookScript: bad }), 1);
    assert.match(r.out.join(''), /\.claude\/settings\.local\.json +installed, but its script .*pkg\$HOME.* is missing: the agents write unchecked/);
  });
});
