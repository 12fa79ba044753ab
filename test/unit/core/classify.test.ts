import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseApplyPatch } from '../../../src/core/classify/applyPatch';
import { resolveAgainst } from '../../../src/core/classify/paths';
import { classifyShell } from '../../../src/core/classify/shell';
import { classifyToolCall, shellText } from '../../../src/core/classify/tools';

const ops = (cmd: string, cwd = '/w'): string[] => classifyShell(cmd, cwd).map((a) => `${a.op}:${a.path}${a.cwd && a.cwd !== cwd ? `@${a.cwd}` : ''}${a.lines ? `#${a.lines.start}+${a.lines.count}` : ''}`);

void describe('shell classification', () => {
  const cases: [string, string[]][] = [
    ['cat src/a.ts', ['read:src/a.ts']],
    ['cat -n a b', ['read:a', 'read:b']],
    ["sed -n '10,40p' src/a.ts", ['read:src/a.ts#10+31']],
    ['head -n 20 README.md', ['read:README.md#1+20']],
    ['tail -5 log.txt', ['read:log.txt']],
    ['nl -ba src/x.py', ['read:src/x.py']],
    ['rg -n "foo" src/a.ts', ['read:src/a.ts']],
    ['grep -n foo a.ts b.ts', []],
    ['rg foo src/', []],
    ['grep -rn foo .', []],
    ['grep -rn "Profile" internal/cli/search.go | head', ['read:internal/cli/search.go']],
    ['grep -rn foo internal/cli', []],
    ["awk 'NR>=40{print NR\": \"$0}' README.md", ['read:README.md']],
    ["awk -F: '{print $1}' /etc/passwd", ['read:/etc/passwd']],
    ['for f in docs/a.md docs/b.md; do echo "FILE $f"; sed -n \'1,99p\' "$f"; done', ['read:docs/a.md#1+99', 'read:docs/b.md#1+99']],
    ['for f in a b; do cat "dir/${f}.txt"; done; cat c.txt', ['read:dir/a.txt', 'read:dir/b.txt', 'read:c.txt']],
    ['for x in 1 2; do for f in a b; do cat $f; done; done', ['read:a', 'read:b', 'read:a', 'read:b']],
    ['for f in *.json; do cat "$f"; done', []],
    ['for f in $(ls); do cat "$f"; done', []],
    ['echo hi > out.txt', ['write:out.txt']],
    ['echo hi >> out.txt 2>&1', ['write:out.txt']],
    ['cmd 2>/dev/null', []],
    ['npm test | tee test.log', ['write:test.log']],
    ["sed -i 's/a/b/' src/a.ts", ['edit:src/a.ts']],
    ["sed -i.bak -e 's/a/b/' src/a.ts", ['edit:src/a.ts']],
    ['cat $FILE', []],
    ['cat src/*.ts', []],
    ['cd sub && cat a.txt', ['read:a.txt@/w/sub']],
    ["bash -lc 'cat a.txt && echo x > b.txt'", ['read:a.txt', 'write:b.txt']],
    ["cat > new.py << 'EOF'\nprint('hi > there')\nEOF\n", ['write:new.py']],
    ["apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** End Patch\nEOF", ['edit:src/a.ts']],
    ['echo "unterminated', []],
    ['ls -la && pwd', []],
  ];
  for (const [cmd, expected] of cases) {
    void test(cmd.split('\n')[0], () => {
      assert.deepEqual(ops(cmd), expected);
    });
  }
});

void describe('PowerShell (Codex on Windows)', () => {
  const win = 'C:\\work\\app';
  const cases: [string, string[]][] = [
    ['Get-Content resurrect/cli.py', ['read:resurrect/cli.py']],
    ['get-content -Raw -LiteralPath "b c.txt"', ['read:b c.txt']],
    ['Get-Content -Path a.txt -TotalCount 20', ['read:a.txt#1+20']],
    ['Get-Content a.txt,b.txt', ['read:a.txt', 'read:b.txt']],
    ['gc a.txt', ['read:a.txt']],
    ['type a.txt', ['read:a.txt']],
    ['Set-Content -Path out.txt -Value hi', ['write:out.txt']],
    ['Add-Content log.txt "more"', ['write:log.txt']],
    ['"x" | Out-File -FilePath a.txt -Encoding utf8', ['write:a.txt']],
    ['Get-Content $f', []],
    ['Get-Content *.py', []],
  ];
  for (const [cmd, expected] of cases) {
    void test(cmd, () => {
      assert.deepEqual(ops(cmd, win), expected);
    });
  }
  void test('gc and type are PowerShell aliases only in a Windows directory (a POSIX `type` names a command)', () => {
    assert.deepEqual(ops('type ls'), []);
    assert.deepEqual(ops('gc a.txt'), []);
    assert.deepEqual(ops('Get-Content a.txt'), ['read:a.txt']);
  });
});

void describe('apply_patch envelopes', () => {
  void test('add, update with move, delete', () => {
    const patch = '*** Begin Patch\r\n*** Add File: a.txt\r\n+x\r\n*** Update File: b.txt\r\n*** Move to: c.txt\r\n@@ ctx\r\n-1\r\n+2\r\n*** Delete File: d.txt\r\n*** End Patch';
    assert.deepEqual(parseApplyPatch(patch), [
      { path: 'a.txt', op: 'create', hunks: 0 },
      { path: 'b.txt', op: 'edit', moveTo: 'c.txt', hunks: 1 },
      { path: 'd.txt', op: 'delete', hunks: 0 },
    ]);
  });
});

void describe('tool tables', () => {
  void test('Claude Code file tools', () => {
    assert.deepEqual(classifyToolCall('claude-code', 'Read', { file_path: '/w/a.ts', offset: 10, limit: 5 }, '/w'), {
      category: 'read',
      accesses: [{ path: '/w/a.ts', op: 'read', lines: { start: 10, count: 5 } }],
    });
    assert.deepEqual(classifyToolCall('claude-code', 'NotebookEdit', { notebook_path: '/w/n.ipynb' }, '/w').accesses, [{ path: '/w/n.ipynb', op: 'edit', existed: true }]);
    assert.deepEqual(classifyToolCall('claude-code', 'mcp__x__y', { file_path: '/w/a' }, '/w'), { category: 'other', accesses: [] });
  });

  void test('Codex: apply_patch relative to cwd, shell argv arrays, workdir', () => {
    assert.deepEqual(classifyToolCall('codex', 'apply_patch', { input: '*** Begin Patch\n*** Update File: src/a.ts\n*** End Patch' }, '/w').accesses, [
      { path: '/w/src/a.ts', op: 'edit', existed: true },
    ]);
    assert.deepEqual(classifyToolCall('codex', 'shell', { command: ['bash', '-lc', 'cat a.txt'], workdir: '/w/sub' }, '/w').accesses, [
      { path: '/w/sub/a.txt', op: 'read', viaShell: true },
    ]);
    assert.equal(shellText(['rg', '-n', 'a b', 'f.ts']), "rg -n 'a b' f.ts");
  });

  void test('Codex code mode (exec): the patches and shell commands a script spells out', () => {
    const patch = '*** Begin Patch\n*** Add File: runners/review.json\n+{}\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** End Patch';
    const script = [
      `const patch = ${JSON.stringify(patch)};`,
      'await tools.apply_patch(patch);',
      `const r = await tools.exec_command({"cmd": ${JSON.stringify("sed -n '1,40p' src/b.ts")}, "workdir": "/w/sub"});`,
      'const other = await tools.exec_command({ cmd: someVariable });',
      `const cmds = [["t", ${JSON.stringify("sed -n '1,380p' src/c_test.go")}], ["d", "git diff --stat"]];`,
      'await Promise.all(cmds.map(([n, cmd]) => tools.exec_command({ cmd, workdir: "/w/sub" })));',
    ].join('\n');
    assert.deepEqual(classifyToolCall('codex', 'exec', { input: script }, '/w').accesses, [
      { path: '/w/runners/review.json', op: 'create' },
      { path: '/w/src/a.ts', op: 'edit', existed: true },
      { path: '/w/sub/src/b.ts', op: 'read', lines: { start: 1, count: 40 }, viaShell: true },
      { path: '/w/sub/src/c_test.go', op: 'read', lines: { start: 1, count: 380 }, viaShell: true },
    ]);
    // Words in a script that does not run shell commands are not commands.
    assert.deepEqual(classifyToolCall('codex', 'exec', { input: 'text("cat a.txt is a title")' }, '/w').accesses, []);
    assert.deepEqual(classifyToolCall('codex', 'exec', { input: 'text(await tools.list_dir({}))' }, '/w').accesses, []);
  });

  void test('paths: posix and Windows, relative and home-relative', () => {
    assert.equal(resolveAgainst('src/../a.ts', '/w'), '/w/a.ts');
    assert.equal(resolveAgainst('C:\\proj\\a.ts', undefined), 'C:\\proj\\a.ts');
    assert.equal(resolveAgainst('a.ts', 'C:\\proj'), 'C:\\proj\\a.ts');
    assert.equal(resolveAgainst('~/x', '/w'), undefined);
    assert.equal(resolveAgainst('a.ts', undefined), undefined);
  });
});
