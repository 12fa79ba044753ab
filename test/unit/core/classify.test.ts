import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseApplyPatch } from '../../../src/core/classify/applyPatch';
import { displayPath, patternRoot, resolveAgainst, samePath, upperDrive } from '../../../src/core/classify/paths';
import { classifyShell } from '../../../src/core/classify/shell';
import { type SessionContext, classifyToolCall, shellText } from '../../../src/core/classify/tools';

const ops = (cmd: string, cwd = '/w'): string[] =>
  classifyShell(cmd, cwd).map((a) => `${a.op}${a.glob ? '(glob)' : ''}${a.tree ? '(tree)' : ''}:${a.path}${a.cwd && a.cwd !== cwd ? `@${a.cwd}` : ''}${a.lines ? `#${a.lines.start}+${a.lines.count}` : ''}`);

/** One test per row: `show(command)` must give the row's expectation. */
function table(label: string, rows: readonly [string, string[]][], show: (cmd: string) => string[]): void {
  for (const [cmd, expected] of rows) {
    void test(label + cmd.split('\n')[0], () => {
      assert.deepEqual(show(cmd), expected);
    });
  }
}

void describe('shell classification', () => {
  const cases: [string, string[]][] = [
    ['cat src/a.ts', ['read:src/a.ts']],
    // An inline Python script's reads: a literal, a variable set to one, a loop over a list of them.
    ["python3 - <<'PY'\nfrom pathlib import Path\nprint(Path('core/AGENT.md').read_text())\nPY", ['read:core/AGENT.md']],
    ['python3 -c "print(open(\'a.md\').read())"', ['read:a.md']],
    ["python - <<EOF\nfor f in ['a.py', 'b.py']:\n    print(open(f, encoding='utf-8').read())\nEOF", ['read:a.py', 'read:b.py']],
    ["python3 - <<'PY'\nsrc = 'in.txt'\ndata = open(src, 'rb').read()\nprint(len(data))\nopen('out.txt', 'w').write(data)\nPY", ['read:in.txt', 'write:out.txt']],
    ['python3 -c "open(name).read()"', []],
    // touch makes an empty file the session's own (not with -c, which creates nothing).
    ['mkdir -p pkg/http && touch pkg/http/routes.go pkg/http/http.go', ['write:pkg/http/routes.go', 'write:pkg/http/http.go']],
    ['touch -d 2020-01-01 a.go', ['write:a.go']],
    ['touch -c a.go', []],
    ['cat -n a b', ['read:a', 'read:b']],
    ["sed -n '10,40p' src/a.ts", ['read:src/a.ts#10+31']],
    // rtk runs the command and trims its output for the model.
    ["rtk sed -n '1,260p' specs/001-a/spec.md", ['read:specs/001-a/spec.md#1+260']],
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
    // A loop over a pattern reads every file it matched (relative to the directory then).
    ['for f in *.json; do cat "$f"; done', ['read(glob):*.json']],
    [
      'for f in python/prompts/*.md python/agents/*.json; do echo "### $f"; sed -n \'1,260p\' "$f"; done',
      ['read(glob):python/prompts/*.md#1+260', 'read(glob):python/agents/*.json#1+260'],
    ],
    ['cd src && for f in "[x]"/*.ts a.ts; do head -n 5 "${f}"; done', ['read(glob):\\[x\\]/*.ts@/w/src#1+5', 'read:a.ts@/w/src#1+5']],
    // The variable among other words names other files than the pattern's: not guessed.
    ['for f in *.json; do cat "backup/$f"; done', []],
    ['for f in $(ls *.json); do cat "$f"; done', []],
    // Brace expansion makes words without looking at files: they are as literal as the rest.
    [
      'for f in go/{approval,execution}/repository.go go/gateway/repository.go; do test -f "$f" && sed -n \'1,50p\' "$f"; done',
      ['read:go/approval/repository.go#1+50', 'read:go/execution/repository.go#1+50', 'read:go/gateway/repository.go#1+50'],
    ],
    ['cat src/{a,"b c"}.ts x{,.bak}', ['read:src/a.ts', 'read:src/b c.ts', 'read:x', 'read:x.bak']],
    ['cat {a,{b,c}}/f', ['read:a/f', 'read:b/f', 'read:c/f']],
    ['cat src/{a,b}/*.ts "{x,y}" {1..3}.txt ${d}/{a,b}', ['read(glob):src/a/*.ts', 'read(glob):src/b/*.ts', 'read:{x,y}']],
    // find's {} is not a brace expansion: it is each file found (read level by level, see below).
    ["find . -name '*.go' -exec cat {} \\;", ['read(glob):*.go', 'read(glob):*/*.go', 'read(glob):*/*/*.go', 'read(glob):*/*/*/*.go']],
    ['cat {a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}', []],
    ['for f in $(ls); do cat "$f"; done', []],
    // A listing of a folder's files: each level of it, as patterns (filtered listings: nothing).
    ['for f in $(rg --files src/routes | sort); do sed -n 1,180p "$f"; done', ['read(glob):src/routes/*#1+180', 'read(glob):src/routes/*/*#1+180', 'read(glob):src/routes/*/*/*#1+180', 'read(glob):src/routes/*/*/*/*#1+180']],
    ['for f in $(find docs -maxdepth 1 -name "*.md"); do cat "$f"; done', ['read(glob):docs/*.md']],
    ['for f in $(rg --files -g "*.ts" src) $(rg -l foo src); do cat "$f"; done', []],
    // A computed value among the words: the literal ones are still read.
    ['for f in a.md $(ls docs) b.md; do cat "$f"; done', ['read:a.md', 'read:b.md']],
    // An escaped or single-quoted $ is a literal character of a pattern; so is a $ before a dot.
    ['for f in src/*.tsx src/app/\\$id/*.tsx; do sed -n 1,100p "$f"; done', ['read(glob):src/*.tsx#1+100', 'read(glob):src/app/$id/*.tsx#1+100']],
    ["sed -n 1,5p src/routes/api.$.ts 'x$y/a.ts'", ['read:src/routes/api.$.ts#1+5', 'read:x$y/a.ts#1+5']],
    ['echo hi > out.txt', ['write:out.txt']],
    // git mv moves a file as mv does.
    ['git mv old/spec.md new/spec.md', ['write:new/spec.md']],
    ['git mv -k a.md b.md docs/', ['write:docs/a.md', 'write:docs/b.md']],
    ['echo hi >> out.txt 2>&1', ['write:out.txt']],
    ['cmd 2>/dev/null', []],
    ['npm test | tee test.log', ['write:test.log']],
    // A package manager saving a dependency rewrites package.json whole (forty-fifth set: `npm
    // install @electron-toolkit/utils` laid its `build` section out one item a line).
    ['npm install @electron-toolkit/utils @electron-toolkit/tsconfig 2>&1', ['write:package.json']],
    ['cd app && npm i -D vitest', ['write:package.json@/w/app']],
    ['npm uninstall left-pad', ['write:package.json']],
    ['pnpm add zod', ['write:package.json']],
    ['yarn remove lodash', ['write:package.json']],
    ['bun add hono', ['write:package.json']],
    ['npm install', []],
    ['npm ci', []],
    ['npm install --registry https://registry.example.com', []],
    ['npm install --no-save left-pad', []],
    ['npm install -g typescript', []],
    ['npm install --prefix web react', []],
    ['pnpm install', []],
    ["sed -i 's/a/b/' src/a.ts", ['edit:src/a.ts']],
    ["sed -i.bak -e 's/a/b/' src/a.ts", ['edit:src/a.ts']],
    ['cat $FILE', []],
    ['cat src/*.ts', ['read(glob):src/*.ts']],
    ["cat 'src/*.ts' src/\\*.md", ['read:src/*.ts', 'read:src/*.md']],
    // sed -i on a pattern may have changed any file in the folder it searches.
    ["sed -i 's/a/b/' src/*.ts", ['write(tree):src/*.ts']],
    ['grep -n foo src/*.ts', []],
    ['cd sub && cat a.txt', ['read:a.txt@/w/sub']],
    ["bash -lc 'cat a.txt && echo x > b.txt'", ['read:a.txt', 'write:b.txt']],
    ["cat > new.py << 'EOF'\nprint('hi > there')\nEOF\n", ['write:new.py']],
    ["apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** End Patch\nEOF", ['edit:src/a.ts']],
    ['echo "unterminated', []],
    // The destination of a copy or a move is written; a copy's source is no read.
    ['cp /runs/x/summary.md results/x/summary.md', ['write:results/x/summary.md']],
    ['mkdir -p out && cp -f a.json b.json out/', ['write:out/a.json', 'write:out/b.json']],
    ['cp a.md b.md dir', ['write:dir/a.md', 'write:dir/b.md']],
    ['cp -t dest src/a.ts', ['write:dest/a.ts']],
    ['cp -T a.md b.md', ['write:b.md']],
    ['mv tmp.json config.json', ['write:config.json']],
    ['install -m 755 build/tool bin/tool', ['write:bin/tool']],
    ['install -d out/logs', []],
    ['cp "$SRC" "$DST"', []],
    // A variable the script set to a literal is put in; one set to anything computed is not.
    ['d=results/run-1\nmkdir -p "$d"\ncp /runs/1/summary.md "$d/summary.md"', ['write:results/run-1/summary.md']],
    ['export f=src/a.ts; cat "${f}"', ['read:src/a.ts']],
    ["report=docs/r.md; cat > \"$report\" <<'EOF'\nstepsCompleted: [1]\nEOF", ['write:docs/r.md']],
    ['d=out; echo done >> "$d/log.txt"', ['write:out/log.txt']],
    // A backslash at the end of a line joins it to the next (Gemini CLI, Codex and Claude Code
    // models write long commands so), also inside a word and before CRLF.
    ['cd /w/infra && \\\nmkdir -p config/homepage && \\\nmv config/a.yaml config/homepage/ 2>/dev/null || true', ['write:config/homepage/a.yaml@/w/infra']],
    ['cat src/\\\r\na.ts \\\n  b.ts', ['read:src/a.ts', 'read:b.ts']],
    // A date the command computes in a file name: any file that date could name.
    [
      "report=/w/out/readiness-$(date +%F).md; cat > \"$report\" <<'EOF'\nstepsCompleted: [1]\nEOF",
      ['read(glob):/w/out/readiness-[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9].md'],
    ],
    ['echo x > "logs/run-$(date +\'%Y%m%d-%H%M\').log"', ['read(glob):logs/run-[0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]-[0-9][0-9][0-9][0-9].log']],
    ['echo x > notes-`date +%s`.txt; cat "a-$(date +%F)"/*.md', ['read(glob):notes-[0-9]*.txt', 'read(glob):a-[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]/*.md']],
    // Anything else computed, or a date printed in words, is not a pattern.
    ['echo x > "report-$(date +%B).md"; echo x > "r-$(hostname).md"; f=$(date +%F).md; echo x >> "$f"; echo x > "$f.$USER"', []],
    ['echo hi > "$unset"', []],
    ['d=$(mktemp -d); cp a.md "$d/a.md"', []],
    ['d=out; d=$(pwd); cat "$d/a.md"', []],
    ['f=a.ts cat "$f"', []],
    // An inline script's writes of a literal file name (a real Claude Code Bash call's shape).
    [
      `python3 -c "content = open('/w/src/App.tsx').read(); content = content.replace(old, new, 1); open('/w/src/App.tsx', 'w').write(content)"`,
      ['write:/w/src/App.tsx'],
    ],
    ["python3.11 -c \"from pathlib import Path; Path('out/a.json').write_text('{}')\"", ['write:out/a.json']],
    // Through variables the script set to literals and f-strings of them (a real Codex call's shape).
    [
      "python3 - <<'PY'\nroot='/w/cms'; feature_dir=f'{root}/specs/001-a'; plan_path=f'{feature_dir}/plan.md'\nwith open(plan_path,'w') as f: f.write(plan)\nPY",
      ['write:/w/cms/specs/001-a/plan.md'],
    ],
    ["python3 -c \"p='a.txt'; p=get(); open(p,'w')\"", []],
    ["python3 -c \"p=input(); Path(p).write_text('x')\"", []],
    ["python3 - <<'EOF'\nwith open('log.txt', 'a') as f:\n    f.write('x')\nEOF\n", ['write:log.txt']],
    ["node -e \"require('fs').writeFileSync('dist/v.txt', '1')\"", ['write:dist/v.txt']],
    // Names built at run time, reads of a script that prints nothing, and scripts in files say nothing.
    ["python3 -c \"import json; d = json.load(open('a.json'))\"", []],
    ["python3 -c \"open(f'{d}/a.txt', 'w').write('x')\"", []],
    ['python3 tools/gen.py --out a.txt', []],
    // Formatters asked to rewrite the files they are named: the session's own writes.
    ['gofmt -s -w internal/a.go internal/a_test.go && go test ./...', ['write:internal/a.go', 'write:internal/a_test.go']],
    ['gofmt -l internal/a.go', []],
    ['npx prettier --write --config .prettierrc.json src/a.ts src/b.tsx', ['write:src/a.ts', 'write:src/b.tsx']],
    ['npx --yes prettier@3 -w README.md', ['write:README.md']],
    ['prettier --check src/a.ts', []],
    ['pnpm exec eslint --fix -c eslint.config.js src/a.ts', ['write:src/a.ts']],
    // pnpm and yarn run a package's binary named right after them (twenty-eighth set: the
    // session's own `pnpm eslint --fix` on the files it had edited).
    ['pnpm eslint --fix src/pages/Dialog.vue src/useHelper.js 2>&1', ['write:src/pages/Dialog.vue', 'write:src/useHelper.js']],
    ['yarn prettier --write src/a.ts', ['write:src/a.ts']],
    ['pnpm eslint src/pages/Dialog.vue', []],
    ['pnpm lint --fix src/a.ts', []],
    ['npx @biomejs/biome check --write src/a.ts', ['write:src/a.ts']],
    // Ultracite runs Biome for its `fix` (thirty-seventh set: "Checked 1 file in 32ms. Fixed 1
    // file."); its `check` only reports.
    ['npx ultracite fix src/components/ChatClient.tsx', ['write:src/components/ChatClient.tsx']],
    ['npx ultracite format src/a.ts', ['write:src/a.ts']],
    ['npx ultracite check src/a.ts 2>&1', []],
    ['uv run ruff format app/main.py', ['write:app/main.py']],
    ['ruff check app/main.py', []],
    ['python3 -m black -l 100 app/main.py', ['write:app/main.py']],
    ['black --check app/main.py', []],
    ['rustfmt src/lib.rs', ['write:src/lib.rs']],
    ['clang-format -i --style=file src/a.cc', ['write:src/a.cc']],
    // A folder or a pattern: any file in the folder (where the pattern searches) may have changed.
    ['gofmt -w .', ['write(tree):.']],
    ['npx prettier --write "src/**/*.ts"', ['write(tree):src']],
    // The session's own ruff through a Windows venv's python.exe, on a folder and on a pattern
    // (twentieth set).
    ['.venv/Scripts/python.exe -m ruff format src/market/ && .venv/Scripts/python.exe -m ruff check src/market/ --fix', ['write(tree):src/market/', 'write(tree):src/market/']],
    ['.venv/Scripts/python.exe -m ruff format tests/test_market_*.py', ['write(tree):tests/test_market_*.py']],
    ["npx prettier --write '*.md'", ['write(tree):*.md']],
    ['npx prettier --write "src/{a,b}/*.ts"', ['write(tree):src']],
    ['py -m black app/main.py', ['write:app/main.py']],
    ['python.exe -m ruff check tests/test_market_*.py', []],
    // sed -i on a pattern, or on each file a find listed (twentieth set).
    ["sed -i 's/0.8.19/0.8.20/' contracts/libraries/*.sol", ['write(tree):contracts/libraries/*.sol']],
    ["find contracts -name '*.sol' -exec sed -i 's/a/b/' {} \\;", ['write(tree):contracts/*.sol', 'write(tree):contracts/*/*.sol', 'write(tree):contracts/*/*/*.sol', 'write(tree):contracts/*/*/*/*.sol']],
    ["find src -maxdepth 1 -name '*.ts' | xargs sed -i 's/a/b/'", ['write(tree):src/*.ts']],
    ['ls -la && pwd', []],
  ];
  table('', cases, (cmd) => ops(cmd));

  // Git: the files a command puts back, or the directory whose files it may rewrite, any of them.
  const git: [string, string[]][] = [
    ['git checkout main', ['write(tree):.']],
    ['git checkout -b feature', []],
    ['git checkout -b fix origin/main', ['write(tree):.']],
    ['git checkout -- src/a.ts src/b.ts', ['write:src/a.ts', 'write:src/b.ts']],
    ['git restore src/a.ts', ['write:src/a.ts']],
    ['git restore --staged src/a.ts', []],
    ['git restore .', ['write(tree):.']],
    ['git checkout -- src/ README.md', ['write(tree):src/', 'write:README.md']],
    ['git stash && git checkout main && git pull', ['write(tree):.', 'write(tree):.', 'write(tree):.']],
    ['git stash list', []],
    ['git reset --hard HEAD~1', ['write(tree):.']],
    ['git reset HEAD~1', []],
    ['git -C sub pull --rebase', ['write(tree):sub']],
    ['git status && git diff -- src/a.ts && git log --oneline -5', []],
    ['git add -A && git commit -m "x" && git push', []],
    ['git apply --check fix.diff', []],
    ['git switch -c topic', []],
  ];
  table('git: ', git, (cmd) => classifyShell(cmd, '/w').map((a) => `${a.op}${a.tree ? '(tree)' : ''}:${a.path}`));

  // Which accesses a later command followed: if the call fails, the failure may be that one's.
  const followed: [string, string[]][] = [
    ["rg -n x src/ && sed -n '1,100p' a.go && rg -n y src/", ['read:a.go followed']],
    ["rg -n x src/ && sed -n '1,100p' a.go", ['read:a.go']],
    ['cat a; cat b', ['read:a followed', 'read:b']],
    ['cat a | head -5', ['read:a followed']],
    ['cat a > b && npm test', ['write:b followed', 'read:a followed']],
    ['cd sub && cat a', ['read:a']],
    ['cat a\n', ['read:a']],
    ['for f in a b; do cat "$f"; done', ['read:a followed', 'read:b']],
    ['echo x > out.txt', ['write:out.txt']],
  ];
  table('followed: ', followed, (cmd) => classifyShell(cmd, '/w').map((a) => `${a.op}:${a.path}${a.followed ? ' followed' : ''}`));
});

void describe('cd into the home folder', () => {
  void test('`cd ~/dir` inside the home folder the session works in; a bare `cd ~` is not placed', () => {
    assert.deepEqual(ops("cd ~/SNMP/ies && sed -n '58,70p' a.c", '/home/moxa/work'), ['read:a.c@/home/moxa/SNMP/ies#58+13']);
    assert.deepEqual(ops('cd ~ && cat a.c', '/home/moxa/work'), []);
    assert.deepEqual(ops('cd ~/x && cat a.c', '/srv/app'), []);
  });

  void test('$HOME/… is ~/…; another variable, or $HOME inside a word, names nothing', () => {
    assert.deepEqual(ops('cat $HOME/.zshrc "${HOME}/notes b.md" "$HOME"/x.md', '/home/r/p'), ['read:~/.zshrc', 'read:~/notes b.md', 'read:~/x.md']);
    assert.deepEqual(classifyToolCall('codex', 'shell', { command: ['bash', '-lc', 'cat "$HOME/.zshrc"'] }, '/home/r/p').accesses, [{ path: '/home/r/.zshrc', op: 'read', viaShell: true }]);
    assert.deepEqual(ops('cat $HOMEDIR/a $HOME a$HOME/b', '/home/r/p'), []);
    assert.deepEqual(classifyToolCall('codex', 'shell', { command: ['bash', '-lc', 'cat $HOME/.zshrc'] }, '/srv/app').accesses, []);
    assert.deepEqual(ops("echo x > $HOME/out.txt && sed -n '1,5p' $HOME/in.txt", '/Users/r/p'), ['write:~/out.txt', 'read:~/in.txt#1+5']);
  });

  void test('Claude Code: an Edit with an empty old_string writes the whole file (it may create it)', () => {
    assert.deepEqual(classifyToolCall('claude-code', 'Edit', { file_path: '/w/new.sh', old_string: '', new_string: '#!/bin/sh\n' }, '/w').accesses, [{ path: '/w/new.sh', op: 'write' }]);
    assert.deepEqual(classifyToolCall('claude-code', 'Edit', { file_path: '/w/a.sh', old_string: 'x', new_string: 'y' }, '/w').accesses, [{ path: '/w/a.sh', op: 'edit', existed: true }]);
  });

  void test('a file name Entire redacted (`.REDACTED.md`) names no file; a redacted folder name still keeps files apart', () => {
    // Thirty-first set: Entire's checkpoint of a Claude Code 2.1.49 session gave a plan and a
    // summary of one task the same name, /Users/michael/Code/cipher-box/.REDACTED.md.
    assert.deepEqual(classifyToolCall('claude-code', 'Read', { file_path: '/Users/m/app/.REDACTED.md' }, '/Users/m/app').accesses, []);
    assert.deepEqual(classifyToolCall('claude-code', 'Edit', { file_path: 'REDACTED.md', old_string: 'x', new_string: 'y' }, '/w').accesses, []);
    assert.deepEqual(
      classifyToolCall('claude-code', 'Bash', { command: 'cat notes/.REDACTED.md docs/a.md' }, '/w').accesses.map((a) => a.path),
      ['/w/docs/a.md'],
    );
    assert.deepEqual(classifyToolCall('claude-code', 'Read', { file_path: '/Users/REDACTED/app/UNREDACTED.md' }, '/w').accesses, [{ path: '/Users/REDACTED/app/UNREDACTED.md', op: 'read' }]);
  });

  void test('Claude Code: a MultiEdit whose first edit has an empty old_string writes the file (it may create it)', () => {
    const create = { file_path: '/w/layout.tsx', edits: [{ old_string: '', new_string: 'export default 1;\n' }] };
    assert.deepEqual(classifyToolCall('claude-code', 'MultiEdit', create, '/w').accesses, [{ path: '/w/layout.tsx', op: 'write' }]);
    const edit = { file_path: '/w/a.ts', edits: [{ old_string: 'x', new_string: 'y' }, { old_string: '', new_string: 'z' }] };
    assert.deepEqual(classifyToolCall('claude-code', 'MultiEdit', edit, '/w').accesses, [{ path: '/w/a.ts', op: 'edit', existed: true }]);
  });
});

void describe('loops run pass by pass, within a bound', () => {
  // Nested loops multiply: three loops of thirty items are 27,000 passes, five are 24 million,
  // which held the classifier for minutes on one command. Past a bound, a loop's variable names
  // nothing; the passes run before it are still read, each as itself.
  const items = Array.from({ length: 30 }, (_, i) => `a${i}.txt`);
  const nested = (body: string, loop: (v: string, inner: string) => string): string => ['a', 'b', 'c'].reduce((inner, v) => loop(v, inner), body);
  void test('POSIX for loops', () => {
    const paths = classifyShell(nested('cat "$a/$b/$c"', (v, inner) => `for ${v} in ${items.join(' ')}; do ${inner}; done`), '/w').map((a) => a.path);
    assert.ok(paths.length < 27_000, `${paths.length} reads`);
    assert.deepEqual(paths.filter((p) => !/^a\d+\.txt\/a\d+\.txt\/a\d+\.txt$/.test(p)), []);
    // Within the bound, each pass is read.
    assert.deepEqual(ops(`for f in ${items.slice(0, 3).join(' ')}; do cat "$f"; done`), ['read:a0.txt', 'read:a1.txt', 'read:a2.txt']);
  });
  void test('PowerShell foreach loops', () => {
    const list = items.map((i) => `'${i}'`).join(',');
    const paths = classifyShell(nested('gc "$a\\$b\\$c"', (v, inner) => `foreach ($${v} in @(${list})) { ${inner} }`), 'C:\\w').map((a) => a.path);
    assert.ok(paths.length < 27_000, `${paths.length} reads`);
    assert.deepEqual(paths.filter((p) => !/^a\d+\.txt\\a\d+\.txt\\a\d+\.txt$/.test(p)), []);
  });
});

void describe('commands that multiply their work are read within bounds', () => {
  void test('a find run inside a find is not followed on each of its files without end', () => {
    // Each `find … -exec` ran its command on four patterns: nested eight deep, 65,536 reads (4^8).
    const nested = classifyShell('find a -exec '.repeat(8) + 'cat {} +', '/w');
    assert.ok(nested.length <= 64, `${nested.length} reads`);
    // A script run on each of many folders is read a bounded number of times, not once per folder.
    const roots = Array.from({ length: 50 }, (_, i) => `d${i}`).join(' ');
    const many = classifyShell(`find ${roots} -exec sh -c '${'cat a; '.repeat(50)}' _ {} \\;`, '/w');
    assert.ok(many.length <= 64 * 50, `${many.length} reads`);
    // Within the bounds, each level of each folder is followed.
    assert.deepEqual(ops("find src docs -name '*.md' -exec cat {} \\;").length, 8);
  });

  void test('a variable put in many times makes no word past the bound', () => {
    // 2,000 uses of a 2,000-character value were a 4-million-character word (quadratic memory).
    assert.deepEqual(classifyShell(`a=${'x'.repeat(2000)}; cat ${'$a'.repeat(2000)}`, '/w'), []);
    assert.deepEqual(classifyShell(`for f in ${'x'.repeat(2000)}; do cat ${'$f'.repeat(2000)}; done`, '/w'), []);
    // As used: each value put in.
    assert.deepEqual(ops('d=out/x; cat "$d/a.md" "${d}/b.md"'), ['read:out/x/a.md', 'read:out/x/b.md']);
  });

  void test('past a number of variables, a new one is not known', () => {
    const many = Array.from({ length: 300 }, (_, i) => `v${i}=f${i}.txt`).join('; ');
    assert.deepEqual(ops(`${many}; cat "$v0" "$v255" "$v256"`), ['read:f0.txt', 'read:f255.txt']);
  });

  void test('a listing piped to ForEach-Object: its blocks are searched, and their reads added, within the loop budget', () => {
    // Each block was searched to the end of the line: blocks left open one after another were quadratic.
    assert.deepEqual(classifyShell('gci | % { '.repeat(4_000) + 'gc $_.FullName', 'C:\\w'), []);
    // Each statement reads every pattern of the listing: 3,000 by 2,000 were 6 million reads.
    const many = classifyShell('gci -Recurse -Include ' + 'a,'.repeat(3_000) + 'a | % { ' + 'gc $_.FullName; '.repeat(2_000) + '}', 'C:\\w');
    assert.ok(many.length <= 20_000, `${many.length} reads`);
    // Within the budget, each is read.
    assert.equal(classifyShell('gci -Recurse -Include a,b | % { gc $_.FullName; gc $_.FullName }', 'C:\\w').length, 4);
  });

  void test('loops nested past a depth stay as written', () => {
    const deep = (n: number): string => 'for a in x; do '.repeat(n) + 'cat "$a"' + '; done'.repeat(n);
    assert.deepEqual(ops(deep(3)), ['read:x']);
    // (Deeper, the reader's work and stack stay bounded: what the loops read is not claimed.)
    assert.ok(ops(deep(40)).length <= 1);
  });
});

void describe('moves', () => {
  void test('mv and git mv name what they moved; cp and install do not', () => {
    const moves = (cmd: string): string[] => classifyShell(cmd, '/w').map((a) => `${a.path}<-${a.from ?? ''}`);
    assert.deepEqual(moves('mv specs/001-a specs/001-b'), ['specs/001-b<-specs/001-a']);
    assert.deepEqual(moves('git mv -f old/spec.md new/spec.md'), ['new/spec.md<-old/spec.md']);
    assert.deepEqual(moves('mv a.md b.md dir/'), ['dir/a.md<-a.md', 'dir/b.md<-b.md']);
    assert.deepEqual(moves('cp a.md b.md'), ['b.md<-']);
    assert.deepEqual(moves('mv "$x" b.md'), ['b.md<-']);
    // PowerShell's Move-Item and Copy-Item, by position or named.
    assert.deepEqual(moves('Move-Item web/public/index.html web/index.html; Move-Item web/public/styles web/styles'), ['web/index.html<-web/public/index.html', 'web/styles<-web/public/styles']);
    assert.deepEqual(moves('Move-Item -Path a.md -Destination docs/ -Force'), ['docs/a.md<-a.md']);
    assert.deepEqual(moves('Copy-Item a.md b.md'), ['b.md<-']);
  });

  void test('mv through a pattern: every file the pattern names in the destination folder is the session\'s', () => {
    assert.deepEqual(ops('mv apps/nav/components/*.jsx apps/components/layout/'), ['read(glob):apps/components/layout/*.jsx']);
    assert.deepEqual(ops('mv apps/nav/*.jsx apps/layout'), ['read(glob):apps/layout/*.jsx']);
    assert.deepEqual(ops('git mv src/old/*.ts src/new/'), ['read(glob):src/new/*.ts']);
    // A pattern in a folder part (which folder each file came from is lost), or a copy: nothing carried.
    assert.deepEqual(ops('mv src/*/index.ts dest/'), []);
    assert.deepEqual(ops('cp src/*.jsx dest/'), []);
  });
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
    // A Next.js `[id]` route folder: a name to -LiteralPath, a wildcard class to -Path (which then fails).
    ['Get-Content -LiteralPath "src\\app\\(dashboard)\\items\\[id]\\page.tsx"', ['read:src\\app\\(dashboard)\\items\\[id]\\page.tsx']],
    ['Get-Content -LiteralPath src\\items\\[id]\\page.tsx -Raw', ['read:src\\items\\[id]\\page.tsx']],
    ['Get-Content -Path "src\\items\\[id]\\page.tsx"', []],
    ['Get-Content "src\\items\\[id]\\page.tsx"', []],
    ['Get-Content -LiteralPath "src\\$name\\page.tsx"', []],
    // No backslash escapes in PowerShell: a bare backslash separates a path's parts.
    ['Get-Content -Path src\\Ecommerce.API\\appsettings.json', ['read:src\\Ecommerce.API\\appsettings.json']],
    // Claude Code's Bash tool is Git Bash on Windows: a backslash standing alone before the line
    // break continues the line (twenty-eighth set: a loop's list over several lines named the
    // file `⏎.md` once per item).
    ['for f in \\\n  "2026-04-13_a" \\\n  "2026-04-10_b"; do\n  cat >> "${f}.md" << \'EOF\'\nx\nEOF\ndone', ['write:2026-04-13_a.md', 'write:2026-04-10_b.md']],
    ['cat \\\n  notes.md', ['read:notes.md']],
    // `nul` is the null device (Git Bash makes a stray file of it that nobody reads): no write.
    ['find . -name "*.json" 2>nul | head -50', []],
    ['Get-ChildItem src > NUL', []],
    ['cat a.txt > nul.txt', ['write:nul.txt', 'read:a.txt']],
    ['Get-Content .\\src\\a.json -Raw', ['read:.\\src\\a.json']],
    // A here-string holds any text, apostrophes included.
    ["@'\n# Report: it's done (see `a.ts`)\n'@ | Set-Content -Path .agent\\staging\\REPORT.md", ['write:.agent\\staging\\REPORT.md']],
    ['@"\nQuote: "x"\n"@ | Out-File -FilePath notes.md', ['write:notes.md']],
    // cmd.exe run from the PowerShell command line: its command is the rest.
    ['cmd /c type apps\\web\\badge.tsx', ['read:apps\\web\\badge.tsx']],
    ['cmd.exe /C type a.txt', ['read:a.txt']],
    // A here-string piped to Python is its script.
    ["@'\nfrom pathlib import Path\npaths=[\n r'C:/Users/u/.codex/AGENTS.md',\n r'C:/Users/u/.codex/core/AGENT.md']\nfor p in paths:\n    print(Path(p).read_text(encoding='utf-8'))\n'@ | python -", ['read:C:/Users/u/.codex/AGENTS.md', 'read:C:/Users/u/.codex/core/AGENT.md']],
    // Variables: a file read into one (the script prints what it wants of it), a path set in one.
    ['$lines = Get-Content Script/UI02.lua; for ($i=1; $i -le 3; $i++) { $lines[$i-1] }', ['read:Script/UI02.lua']],
    ["$p='Script\\A.lua'; $l=Get-Content -LiteralPath $p -Encoding UTF8; $p='Script\\B.lua'; $l=Get-Content -LiteralPath $p", ['read:Script\\A.lua', 'read:Script\\B.lua']],
    ['$d=\'src\'; $f="$d\\x.lua"; gc $f', ['read:src\\x.lua']],
    ['$x = Get-Date; Get-Content $x', []],
    // foreach over a literal array: the files its body reads.
    ["$files=@('a.lua','b.lua'); foreach($p in $files){ $l=Get-Content -LiteralPath $p; 1..4 | % { $l[$_] } }", ['read:a.lua', 'read:b.lua']],
    ["foreach ($n in @('A.csv', 'B.csv')) { Get-Content $n | Select-String -Pattern x }", ['read:A.csv', 'read:B.csv']],
    ['foreach ($f in Get-ChildItem *.lua) { Get-Content $f }', []],
    // Select-String is PowerShell's grep: of one file, a look at it; of several, or a pattern, none
    // (doudouqie66/CommonTools rollout-2026-07-15T11-38-32-019f63da…, lines 26 and 107; rollout-2026-07-28T10-22-01-019fa687…, line 24).
    ["Select-String -Path 'Script\\Blueprint\\UI\\UI02.lua' -Pattern 'TaskMgr|L_Enum|AddTaskProgress' -Context 5,5", ['read:Script\\Blueprint\\UI\\UI02.lua']],
    ["$p='C:\\u\\settings.json'; if(Test-Path -LiteralPath $p){ Select-String -LiteralPath $p -Pattern 'window.openFilesInNewWindow' -Context 0,0 }", ['read:C:\\u\\settings.json']],
    ['Select-String TODO src\\a.lua; sls -SimpleMatch -Pattern x b.lua', ['read:src\\a.lua', 'read:b.lua']],
    ['Select-String -Pattern x -Path a.lua,b.lua; Select-String -Path src\\*.lua -Pattern x', []],
    ["Get-ChildItem -Recurse -Filter *.lua | Select-String -Pattern 'x'; $files | Select-String -Pattern $pattern", []],
    // A foreach whose body spans lines (doudouqie66/CommonTools rollout-2026-07-28T14-10-31-019fa758…, line 18).
    ["$Files = @(\n'C:\\w\\a.lua',\n'C:\\w\\b.lua'\n)\nforeach ($File in $Files) {\n    Write-Output \"FILE: $File\"\n    Get-Content -LiteralPath $File -Encoding UTF8\n}", ['read:C:\\w\\a.lua', 'read:C:\\w\\b.lua']],
    // Blocks: an `if` body is a command; each pass of a foreach takes one item of its list.
    ['if (Test-Path -LiteralPath a.txt) { Get-Content -LiteralPath a.txt }', ['read:a.txt']],
    ["if(Test-Path a.txt){ gc a.txt } else { 'x' | Set-Content -Path b.txt }", ['read:a.txt', 'write:b.txt']],
    ["foreach ($n in @('a','b')) { Get-Content -LiteralPath src\\$n.lua }", ['read:src\\a.lua', 'read:src\\b.lua']],
    ["foreach($n in 'a.txt','b.txt'){\n  foreach($d in @('x','y')){ gc $d\\$n }\n}", ['read:x\\a.txt', 'read:y\\a.txt', 'read:x\\b.txt', 'read:y\\b.txt']],
    // Join-Path of known parts names the file; Resolve-Path and Convert-Path name the one they are given.
    ["$p = Join-Path 'src' 'a.lua'; Get-Content $p", ['read:src\\a.lua']],
    ['$p = Join-Path -Path src/lib -ChildPath a.lua; gc $p', ['read:src/lib/a.lua']],
    ["$d = Resolve-Path -LiteralPath 'docs'; Get-Content (Join-Path $d.Path 'a.md')", []],
    ["$d = Resolve-Path -LiteralPath 'docs'; $f = Join-Path $d.Path 'a.md'; Get-Content $f", ['read:docs\\a.md']],
    ["$d = Convert-Path 'docs\\'; $f = Join-Path $d a.md; Get-Content -Raw $f", ['read:docs\\a.md']],
    ['$f = Join-Path $env:TEMP a.md; Get-Content $f', []],
    // An item of a list by its index.
    ["$t = @('Script\\a.lua','Script'); if (Test-Path $t[0]) { Get-Content -LiteralPath $t[0] } else { 'none' }", ['read:Script\\a.lua']],
    ["$t = 'a.lua','b.lua'; gc $t[1]; gc $t[2]", ['read:b.lua']],
    ["$t = 'a.lua'; gc $t[0]", []],
    // An array written over several lines: inside `@(` … `)` a line break ends no command (twenty-fifth set).
    ["$files = @(\n  'Script\\A.lua',\n  'Script\\B.lua'\n); foreach ($f in $files) { Write-Output \"### $f\"; Get-Content -LiteralPath $f -Encoding UTF8 }", ['read:Script\\A.lua', 'read:Script\\B.lua']],
    ["$files = @(\r\n  'a.lua',\r\n  'b.lua'\r\n)\r\nforeach ($f in $files) { Get-Content $f }", ['read:a.lua', 'read:b.lua']],
    // .NET's file writers, called from PowerShell, write the file their first argument names
    // (thirty-fifth set: Claude Code's PowerShell tool "touching" a page so a watcher rebuilt it).
    ['$f = "D:\\Sites\\includes\\page.php"\n$content = [System.IO.File]::ReadAllText($f)\n[System.IO.File]::WriteAllText($f, $content + " ")\nWrite-Host "Touched: includes/page.php"', ['write:D:\\Sites\\includes\\page.php']],
    ["[IO.File]::AppendAllLines('logs\\app.log', [string[]]@('x')); [io.file]::WriteAllBytes(\"out.bin\", $bytes)", ['write:logs\\app.log', 'write:out.bin']],
    ['[System.IO.File]::WriteAllText((Join-Path $d "a.md"), $t)', []],
    ['[System.IO.File]::WriteAllText($f, "unclosed"', []],
  ];
  table('', cases, (cmd) => ops(cmd, win));
  void test('Move-Item of paths built with Resolve-Path and Join-Path in a foreach (twenty-first set)', () => {
    // doudouqie66/CommonTools, rollout-2026-07-15T15-41-15-019f64b8…, line 412 (trimmed).
    const script = [
      '$srcDir = Resolve-Path -LiteralPath "Asset\\Data\\Table\\Generated"',
      '$dstDir = Resolve-Path -LiteralPath "Asset\\Data\\Table\\Lin"',
      "foreach($name in @('DT_PlayerLevelConfig.csv','DT_WaveExpConfig.csv')){",
      '  $src = Join-Path $srcDir.Path $name',
      '  $dst = Join-Path $dstDir.Path $name',
      '  if(Test-Path -LiteralPath $src){ Move-Item -LiteralPath $src -Destination $dst -Force }',
      '}',
      'Get-ChildItem -Path "Asset\\Data\\Table\\Lin" -File | Sort-Object Name | Select-Object Name,Length',
    ].join('\n');
    const moves = classifyShell(script, win).map((a) => `${a.op}:${a.path}<-${a.from ?? ''}`);
    assert.deepEqual(moves, [
      'write:Asset\\Data\\Table\\Lin\\DT_PlayerLevelConfig.csv<-Asset\\Data\\Table\\Generated\\DT_PlayerLevelConfig.csv',
      'write:Asset\\Data\\Table\\Lin\\DT_WaveExpConfig.csv<-Asset\\Data\\Table\\Generated\\DT_WaveExpConfig.csv',
    ]);
  });
  void test('the home folder: $env:USERPROFILE, $HOME and ~ when the session works inside it (twenty-first set)', () => {
    const home = 'C:\\Users\\admin\\proj';
    const paths = (cmd: string, cwd: string): string[] => classifyToolCall('codex', 'shell', { command: ['pwsh.exe', '-Command', cmd] }, cwd).accesses.map((a) => `${a.op}:${a.path}`);
    assert.deepEqual(paths('Get-Content $env:USERPROFILE\\.codex\\AGENTS.md', home), ['read:C:\\Users\\admin\\.codex\\AGENTS.md']);
    assert.deepEqual(paths('Get-Content "$env:USERPROFILE/.codex/skills/s/sync.py" -Raw', home), ['read:C:\\Users\\admin\\.codex\\skills\\s\\sync.py']);
    assert.deepEqual(paths('gc ${env:UserProfile}\\a.txt; gc $Home\\b.txt; gc ~\\c.txt', home), ['read:C:\\Users\\admin\\a.txt', 'read:C:\\Users\\admin\\b.txt', 'read:C:\\Users\\admin\\c.txt']);
    // Outside a home folder, no home to resolve against; another variable names nothing.
    assert.deepEqual(paths('Get-Content $env:USERPROFILE\\a.txt', win), []);
    assert.deepEqual(paths('Get-Content $env:TEMP\\a.txt', home), []);
  });
  void test('the home folder the transcript names: $env:USERPROFILE, $HOME and ~ of a session working outside it', () => {
    // doudouqie66/CommonTools: the session works in C:\WeGameApps\…, Codex's skills list names
    // C:/Users/admin/.codex (rollout-2026-06-29T17-22-40-019f12b0…, line 25 read, line 33 patch;
    // rollout-2026-07-16T15-41-06-019f69df…, lines 30 and 42).
    const cwd = 'C:\\WeGameApps\\rail_apps\\UGCProjects\\Douluo';
    const session = { home: 'C:\\Users\\admin' };
    const paths = (cmd: string, s: SessionContext = session): string[] => classifyToolCall('codex', 'shell_command', { command: cmd }, cwd, s).accesses.map((a) => `${a.op}:${a.path}`);
    assert.deepEqual(paths('Get-Content -LiteralPath "$env:USERPROFILE\\Desktop\\test.csv" -Raw'), ['read:C:\\Users\\admin\\Desktop\\test.csv']);
    assert.deepEqual(paths('Get-Content -Raw $env:USERPROFILE\\.codex\\AGENTS.md'), ['read:C:\\Users\\admin\\.codex\\AGENTS.md']);
    assert.deepEqual(paths('gc $Home\\b.txt; gc ~\\c.txt'), ['read:C:\\Users\\admin\\b.txt', 'read:C:\\Users\\admin\\c.txt']);
    assert.deepEqual(paths('Get-Content $env:USERPROFILE\\a.txt', {}), []);
    // A named home wins over the one the working folder is in (Codex runs as the user it names).
    assert.deepEqual(classifyToolCall('codex', 'shell_command', { command: 'gc ~\\a.txt' }, 'C:\\Users\\bob\\p', session).accesses.map((a) => a.path), ['C:\\Users\\admin\\a.txt']);
    // An apply_patch of a home-relative path, too.
    assert.deepEqual(
      classifyToolCall('codex', 'apply_patch', { input: '*** Begin Patch\n*** Update File: ~/notes.md\n@@\n-a\n+b\n*** End Patch' }, cwd, session).accesses.map((a) => `${a.op}:${a.path}`),
      ['edit:C:\\Users\\admin\\notes.md'],
    );
  });
  void test('$env:APPDATA and $env:LOCALAPPDATA are ~\\AppData\\Roaming and ~\\AppData\\Local', () => {
    // doudouqie66/CommonTools rollout-2026-07-16T16-50-55-019f6a1f…, line 94 (read), line 102 (patch);
    // rollout-2026-07-28T10-22-01-019fa687…, line 24 (Join-Path $env:APPDATA), line 45 (patch).
    const cwd = 'C:\\WeGameApps\\chongzita';
    const paths = (cmd: string): string[] => classifyToolCall('codex', 'shell_command', { command: cmd }, cwd, { home: 'C:\\Users\\admin' }).accesses.map((a) => `${a.op}:${a.path}`);
    assert.deepEqual(paths('if (Test-Path "$env:APPDATA\\Code\\User\\settings.json") { Get-Content -Path "$env:APPDATA\\Code\\User\\settings.json" } else { Write-Output "__NO_SETTINGS__" }'), [
      'read:C:\\Users\\admin\\AppData\\Roaming\\Code\\User\\settings.json',
    ]);
    assert.deepEqual(paths("$p=Join-Path $env:APPDATA 'Code\\User\\settings.json'; Get-Content -LiteralPath $p"), ['read:C:\\Users\\admin\\AppData\\Roaming\\Code\\User\\settings.json']);
    assert.deepEqual(paths('Get-Content ${env:LocalAppData}\\x\\y.json'), ['read:C:\\Users\\admin\\AppData\\Local\\x\\y.json']);
  });
  void test('Codex argv for PowerShell and cmd is their script', () => {
    assert.equal(shellText(['pwsh.exe', '-NoProfile', '-Command', 'Get-Content a.ts -Raw']), 'Get-Content a.ts -Raw');
    assert.equal(shellText(['C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe', '-c', 'gc a.ts']), 'gc a.ts');
    assert.equal(shellText(['cmd.exe', '/c', 'type', 'a.ts']), 'type a.ts');
    assert.deepEqual(classifyToolCall('codex', 'shell', { command: ['pwsh.exe', '-Command', 'Get-Content frontend\\src\\api.ts -Raw'] }, win).accesses, [
      { path: 'C:\\work\\app\\frontend\\src\\api.ts', op: 'read', viaShell: true },
    ]);
  });
  void describe('a listing piped to ForEach-Object: each file it lists, read whole in the block, is a read of its pattern', () => {
    const cwd = 'C:\\w';
    const reads = (cmd: string, dir = cwd): string[] =>
      classifyToolCall('codex', 'shell_command', { command: cmd }, dir).accesses.map((a) => `${a.op}${a.glob ? '(glob)' : ''}:${a.path}${a.lines ? `#${a.lines.start}+${a.lines.count}` : ''}`);
    const cases: [string, string[]][] = [
      // doudouqie66/CommonTools rollout-2026-07-28T14-24-31-019fa765…, line 116 (trimmed); Aire03.lua
      // and Aire04.lua are in its output, and patched on line 147.
      [
        "Get-ChildItem -LiteralPath 'Script\\Blueprint\\Prefabs\\Regions' -Filter '*.lua' | ForEach-Object { Write-Output ('### '+$_.Name); Get-Content -LiteralPath $_.FullName -Encoding UTF8 }; Write-Output '--- Region asset refs/tags ---'",
        ['read(glob):C:\\w\\Script\\Blueprint\\Prefabs\\Regions\\*.lua'],
      ],
      // With -Recurse, the folder's tree (rollout-2026-07-27T11-01-53-019fa185…, line 410, trimmed).
      ["$All_Lua = (Get-ChildItem -LiteralPath 'Script' -Recurse -File -Filter '*.lua' | ForEach-Object { Get-Content -Raw -Encoding UTF8 $_.FullName }) -join \"`n\"", ['read(glob):C:\\w\\Script\\**\\*.lua']],
      ["Get-ChildItem 'D:\\api\\cppstruct' -Recurse -Filter 'FWeaponSkillConfig.json' | ForEach-Object { Get-Content -LiteralPath $_.FullName -Raw }", ['read(glob):D:\\api\\cppstruct\\**\\FWeaponSkillConfig.json']],
      // Aliases, the folder and filter by position, an assignment, a brace against its word, the first lines.
      ['gci Script *.lua | % {$t=gc $_.FullName -TotalCount 3; $t}', ['read(glob):C:\\w\\Script\\*.lua#1+3']],
      ['dir -Path C:/x/docs | foreach { cat $PSItem.FullName }', ['read(glob):C:\\x\\docs\\*']],
      ['gci D:\\x -Recurse -Include *.lua, *.md | % { Get-Content -LiteralPath $_.FullName }', ['read(glob):D:\\x\\**\\*.lua', 'read(glob):D:\\x\\**\\*.md']],
      // A bare `$_` is the file's name in Windows PowerShell: the file only when listed in the current folder.
      ['Get-ChildItem -Filter *.md | ForEach-Object { Get-Content $_ }', ['read(glob):C:\\w\\*.md']],
      ['Get-ChildItem docs -Filter *.md | ForEach-Object { Get-Content $_ }', []],
      // Not each file for certain: a block that reads some (an `if`, a `return`, a `try`, `&&`, an
      // inner pipeline's `$_`), a listing filtered or fed, a pipeline that may stop it early.
      [
        // rollout-2026-07-28T14-24-31-019fa765…, line 24.
        "Get-ChildItem -LiteralPath 'Script\\Items' -Filter '*.lua' | ForEach-Object { $matches=Select-String -LiteralPath $_.FullName -Pattern 'Buff' -Encoding UTF8; if($matches){ Write-Output ('### '+$_.Name); Get-Content -LiteralPath $_.FullName -Encoding UTF8 } }",
        [],
      ],
      ['gci -Filter *.lua | % { if ($_.Length -gt 5000) { return }; gc $_.FullName }', []],
      ["gci -Filter *.json | % { try { $j = Get-Content -LiteralPath $_.FullName -Raw | ConvertFrom-Json } catch {} }", []],
      ['gci -Filter *.lua | % { Test-Path x && gc $_.FullName }', []],
      ['gci -Filter *.lua | % { gci $_.FullName | % { gc $_.FullName } }', []],
      ['gci -Filter *.lua | % { $_ = Get-Item a.lua; gc $_.FullName }', []],
      ["gci -Filter 'Tower_*.lua' | Where-Object { $_.Name -ne 'Tower_1.lua' } | % { gc $_.FullName }", []],
      ['$dirs | gci -Filter *.lua | % { gc $_.FullName }', []],
      ['gci -Filter *.lua | % { gc $_.FullName } | Select-Object -First 20', []],
      // Two blocks: the first is -Begin, run before any file; in quotes, `.FullName` is text after the path.
      ["gci -Filter *.lua | % { gc $_.FullName } { 'each' }", []],
      ['gci -Filter *.lua | % { gc "$_.FullName" }', []],
      // A pipe goes on over a line break; an empty element ends it (PowerShell would not run the line).
      ['gci -Filter *.lua |\n  % { gc $_.FullName }', ['read(glob):C:\\w\\*.lua']],
      ['gci -Filter *.lua | ; % { gc $_.FullName }', []],
      // A listing whose files are not all of a pattern's: excluded, of limited depth, names, -Include without -Recurse.
      ['gci -Filter *.lua -Exclude a.lua | % { gc $_.FullName }', []],
      ['gci -Recurse -Depth 1 -Filter *.lua | % { gc $_.FullName }', []],
      ['gci -Name -Filter *.lua | % { gc $_ }', []],
      ['gci x -Include *.lua | % { gc -LiteralPath $_.FullName }', []],
      // A folder that is a wildcard to -Path; named as written, the folder it is.
      ["gci -Path 'src\\[id]' -Filter *.tsx | % { gc -LiteralPath $_.FullName }", []],
      ["gci -LiteralPath 'src\\[id]' -Filter *.tsx | % { gc -LiteralPath $_.FullName }", ['read(glob):C:\\w\\src\\[id]\\*.tsx']],
      // …but a reader given its files through -Path takes them for wildcards too.
      ["gci -LiteralPath 'src\\[id]' -Filter *.tsx | % { gc $_.FullName }", []],
      // Writes are no reads; a computed folder names nothing.
      ['gci -Filter *.lua | % { Set-Content -LiteralPath $_.FullName -Value x }', []],
      ['gci $root -Filter *.lua | % { gc $_.FullName }', []],
    ];
    table('', cases, (cmd) => reads(cmd));
    void test('only in PowerShell: a POSIX session has no ForEach-Object', () => {
      assert.deepEqual(reads('gci -Filter *.lua | % { gc $_.FullName }', '/w'), []);
    });
  });
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
    // An empty argv runs nothing (it threw: a finding of our own error on the line).
    assert.equal(shellText([]), undefined);
    assert.deepEqual(classifyToolCall('codex', 'shell', { command: [] }, '/w').accesses, []);
    // A pattern, made absolute; not on Windows, where its escapes would be separators.
    assert.deepEqual(classifyToolCall('codex', 'exec_command', { cmd: 'for f in "[x]"/*.json; do cat "$f"; done', workdir: '/w/sub' }, '/w').accesses, [
      { path: '/w/sub/\\[x\\]/*.json', op: 'read', glob: true, viaShell: true },
    ]);
    assert.deepEqual(classifyToolCall('codex', 'exec_command', { cmd: 'cat *.json' }, 'C:\\w').accesses, []);
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

  void test('Codex code mode: a command template mapped over a list of literals runs once per element', () => {
    const mapped = [
      'const files = [\n  "src/a.ts",\n  "src/b.ts"\n];',
      "const results = await Promise.all(files.map(file => tools.exec_command({cmd: `sed -n '1,280p' ${file}`, workdir: \"/w\"})));",
    ].join('\n');
    assert.deepEqual(classifyToolCall('codex', 'exec', { input: mapped }, '/w').accesses, [
      { path: '/w/src/a.ts', op: 'read', lines: { start: 1, count: 280 }, viaShell: true },
      { path: '/w/src/b.ts', op: 'read', lines: { start: 1, count: 280 }, viaShell: true },
    ]);
    const loop = 'const docs = ["a.md"];\nfor (const d of docs) { text((await tools.exec_command({ cmd: `cat ${d}` })).output); }';
    assert.deepEqual(classifyToolCall('codex', 'exec', { input: loop }, '/w').accesses, [{ path: '/w/a.md', op: 'read', viaShell: true }]);
    // A template over something computed, or with two placeholders: not guessed at.
    const computed = 'const files = (await tools.exec_command({ cmd: "ls" })).output.split("\\n");\nfor (const f of files) { await tools.exec_command({ cmd: `cat ${f}` }); }';
    assert.deepEqual(classifyToolCall('codex', 'exec', { input: computed }, '/w').accesses, []);
    const two = 'const files = ["a.md"];\nfor (const f of files) { await tools.exec_command({ cmd: `cat ${dir}/${f}` }); }';
    assert.deepEqual(classifyToolCall('codex', 'exec', { input: two }, '/w').accesses, []);
  });

  void test("probe's extract_code (an MCP tool): whole files, a line, a range, a symbol", () => {
    // The input shape real Codex sessions send (namespace mcp__probe, name extract_code, which the
    // Codex parser classifies as mcp__probe__extract_code).
    const input = {
      path: '/w',
      files: ['/w/go/a.go#MapEnvelope', '/w/go/a.go#mapFileChange', '/w/go/b.go:192', '/w/go/c_test.go', '/w/go/d.go:10-20', 'rel/e.go'],
      allowTests: true,
      format: 'markdown',
    };
    const expected = [
      { path: '/w/go/a.go', op: 'read', lines: { start: 1, count: 0 } },
      { path: '/w/go/b.go', op: 'read', lines: { start: 192, count: 1 } },
      { path: '/w/go/c_test.go', op: 'read' },
      { path: '/w/go/d.go', op: 'read', lines: { start: 10, count: 11 } },
      { path: '/w/rel/e.go', op: 'read' },
    ];
    assert.deepEqual(classifyToolCall('codex', 'mcp__probe__extract_code', input, '/elsewhere'), { category: 'read', accesses: expected });
    // A tool of that name from another server (or none) is not known to read anything.
    assert.deepEqual(classifyToolCall('codex', 'extract_code', input, '/w').accesses, []);
    assert.deepEqual(classifyToolCall('claude-code', 'mcp__probe__extract_code', input, '/w').accesses, expected);
    // A whole-file extract of a file also extracted by symbol is a whole-file read.
    assert.deepEqual(classifyToolCall('codex', 'mcp__probe__extract_code', { files: ['/w/a.go#F', '/w/a.go'] }, '/w').accesses, [{ path: '/w/a.go', op: 'read' }]);
    // probe's search_code returns snippets of many files, like rg: no read.
    assert.deepEqual(classifyToolCall('codex', 'mcp__probe__search_code', { path: '/w', query: 'MapEnvelope' }, '/w').accesses, []);
  });

  void test("Claude Code 0.2.x's Batch: the files of the tools it ran", () => {
    const input = {
      description: 'Search for Server class',
      invocations: [
        { tool_name: 'Read', input: { file_path: '/w/src/server.py' } },
        { tool_name: 'Bash', input: { command: 'cat cli.py' } },
        { tool_name: 'Batch', input: { invocations: [{ tool_name: 'Read', input: { file_path: '/w/x.py' } }] } },
      ],
    };
    assert.deepEqual(classifyToolCall('claude-code', 'Batch', input, '/w').accesses, [
      { path: '/w/src/server.py', op: 'read' },
      { path: '/w/cli.py', op: 'read', viaShell: true },
    ]);
  });

  void test('Gemini CLI read_file: file_path with start_line/end_line, and older builds’ absolute_path with a 0-based offset and a limit', () => {
    const g = (input: unknown): unknown => classifyToolCall('gemini', 'read_file', input, 'C:\\w').accesses;
    assert.deepEqual(g({ file_path: 'C:\\w\\src\\App.jsx', start_line: 10, end_line: 19 }), [{ path: 'C:\\w\\src\\App.jsx', op: 'read', lines: { start: 10, count: 10 } }]);
    assert.deepEqual(g({ absolute_path: 'C:\\w\\src\\App.jsx' }), [{ path: 'C:\\w\\src\\App.jsx', op: 'read' }]);
    assert.deepEqual(g({ absolute_path: 'C:\\w\\src\\App.jsx', offset: 100, limit: 50 }), [{ path: 'C:\\w\\src\\App.jsx', op: 'read', lines: { start: 101, count: 50 } }]);
  });

  void test('Amplifier read_file: a 1-based offset and a limit read those lines only', () => {
    // microsoft/amplifier-module-tool-filesystem `read.py`: `offset` is the first line (1-based),
    // `limit` the number of lines; without them, the file from line 1.
    const r = (input: unknown): unknown => classifyToolCall('amplifier', 'read_file', input, undefined).accesses;
    assert.deepEqual(r({ file_path: '/root/proj_P/sample/mod1.py' }), [{ path: '/root/proj_P/sample/mod1.py', op: 'read' }]);
    assert.deepEqual(r({ file_path: '/w/big.py', offset: 200, limit: 50 }), [{ path: '/w/big.py', op: 'read', lines: { start: 200, count: 50 } }]);
    assert.deepEqual(r({ file_path: '/w/big.py', limit: 40 }), [{ path: '/w/big.py', op: 'read', lines: { start: 1, count: 40 } }]);
  });

  void test('Amplifier grep: a search of one file is a look at it that vouches for no line; of a folder, no read', () => {
    // microsoft/amplifier-module-tool-search `grep.py`: `path` is the file or folder searched
    // (rg PATH), the working folder when left out; `glob` and `type` filter a folder's files.
    const g = (input: unknown): unknown => classifyToolCall('amplifier', 'grep', input, undefined);
    assert.deepEqual(g({ pattern: 'def f1_', path: '/root/proj_P/sample/mod1.py', output_mode: 'content', '-n': true }), {
      category: 'read',
      accesses: [{ path: '/root/proj_P/sample/mod1.py', op: 'read', lines: { start: 1, count: 0 } }],
    });
    assert.deepEqual(g({ pattern: 'def ', path: '/root/proj_P/sample', output_mode: 'files_with_matches' }), { category: 'read', accesses: [] });
    assert.deepEqual(g({ pattern: 'def ', path: '/root/proj_P/sample/', glob: '*.py' }), { category: 'read', accesses: [] });
    assert.deepEqual(g({ pattern: 'def ', path: '/root/proj_P/src/*.py' }), { category: 'read', accesses: [] });
    assert.deepEqual(g({ pattern: 'def ' }), { category: 'read', accesses: [] });
  });

  void test('Amplifier apply_patch: the V4A envelope of the function engine, and the native engine’s one operation', () => {
    // microsoft/amplifier-bundle-filesystem `modules/tool-apply-patch/…/engines/function.py`:
    // `{patch}`, a `*** Begin Patch` envelope; `engines/native.py` (the default engine, fed by
    // the OpenAI provider's apply_patch_call): `{type: create_file|update_file|delete_file, path, diff}`.
    const p = (input: unknown) => classifyToolCall('amplifier', 'apply_patch', input, undefined);
    const patch = '*** Begin Patch\n*** Add File: /w/new.md\n+hi\n*** Update File: /w/src/a.py\n*** Move to: /w/src/b.py\n@@\n-x\n+y\n*** Delete File: /w/old.py\n*** End Patch';
    assert.deepEqual(p({ patch }), {
      category: 'edit',
      accesses: [
        { path: '/w/new.md', op: 'create' },
        { path: '/w/src/a.py', op: 'edit', existed: true },
        { path: '/w/src/b.py', op: 'create' },
        { path: '/w/old.py', op: 'delete', existed: true },
      ],
    });
    assert.deepEqual(p({ type: 'update_file', path: '/w/src/main.py', diff: '@@ def main():\n-old\n+new' }).accesses, [{ path: '/w/src/main.py', op: 'edit', existed: true }]);
    assert.deepEqual(p({ type: 'create_file', path: '/w/new.py', diff: '+content' }).accesses, [{ path: '/w/new.py', op: 'create' }]);
    assert.deepEqual(p({ type: 'delete_file', path: '/w/old.py' }).accesses, [{ path: '/w/old.py', op: 'delete', existed: true }]);
    // Relative paths are the session's working folder's, which the transcript does not name.
    assert.deepEqual(p({ type: 'update_file', path: 'src/main.py', diff: '' }).accesses, []);
    assert.deepEqual(p({ type: 'rename_file', path: '/w/a.py' }).accesses, []);
  });

  void test('Desktop Commander (an MCP server): read_file windows, read_multiple_files, write_file, edit_block', () => {
    for (const agent of ['codex', 'claude-code'] as const) {
      const dc = (tool: string, input: unknown): unknown => classifyToolCall(agent, `mcp__desktop-commander__${tool}`, input, '/w').accesses;
      // offset: the lines skipped ("[Reading 120 lines from line 70 (total: 861 lines…)]").
      assert.deepEqual(dc('read_file', { path: '/w/src/a.cpp', offset: 70, length: 120 }), [{ path: '/w/src/a.cpp', op: 'read', lines: { start: 71, count: 120 } }]);
      assert.deepEqual(dc('read_file', { path: 'src/a.cpp' }), [{ path: '/w/src/a.cpp', op: 'read' }]);
      assert.deepEqual(dc('read_multiple_files', { paths: ['/w/a.md', 'b.md'] }), [
        { path: '/w/a.md', op: 'read' },
        { path: '/w/b.md', op: 'read' },
      ]);
      assert.deepEqual(dc('write_file', { path: '/w/report.md', mode: 'rewrite', content: '# r\n' }), [{ path: '/w/report.md', op: 'write' }]);
      assert.deepEqual(dc('edit_block', { file_path: '/w/a.ts', old_string: 'x', new_string: 'y' }), [{ path: '/w/a.ts', op: 'edit', existed: true }]);
    }
    // Another server's read_file is not known to read anything.
    assert.deepEqual(classifyToolCall('codex', 'mcp__files__read_file', { path: '/w/a.md' }, '/w').accesses, []);
  });

  void test("Codex code mode (exec): the files a script's extract_code lists spell out", () => {
    const inline = [
      'const [extract, cfg] = await Promise.all([',
      '  tools.mcp__probe__extract_code({path:"/w",files:[',
      '    "/w/go/server.go#Server",',
      '    "/w/go/store.go"',
      '  ],allowTests:false,format:"plain",lsp:false}),',
      `  tools.exec_command({cmd:${JSON.stringify("sed -n '1,240p' go/main.go")},"workdir":"/w"}),`,
      ']);',
    ].join('\n');
    assert.deepEqual(classifyToolCall('codex', 'exec', { input: inline }, '/w').accesses, [
      { path: '/w/go/server.go', op: 'read', lines: { start: 1, count: 0 } },
      { path: '/w/go/store.go', op: 'read' },
      { path: '/w/go/main.go', op: 'read', lines: { start: 1, count: 240 }, viaShell: true },
    ]);
    const shorthand = [
      'const files=["/w/go/main.go","/w/go/docker.go"];',
      'const r=await tools.mcp__probe__extract_code({path:"/w",files,allowTests:false,format:"plain"});',
      'for (const c of (r.content||[])) if(c.type==="text") text(c.text);',
    ].join('\n');
    assert.deepEqual(classifyToolCall('codex', 'exec', { input: shorthand }, '/w').accesses, [
      { path: '/w/go/main.go', op: 'read' },
      { path: '/w/go/docker.go', op: 'read' },
    ]);
    // Only literal elements: a computed one names no file.
    const computed = 'await tools.mcp__probe__extract_code({files:[root + "/a.go", "/w/b.go"]});';
    assert.deepEqual(classifyToolCall('codex', 'exec', { input: computed }, '/w').accesses, []);
    // A list in a script that does not call extract_code is not read.
    assert.deepEqual(classifyToolCall('codex', 'exec', { input: 'const files = ["/w/a.go"]; text(files.join(","));' }, '/w').accesses, []);
  });

  void test('paths: posix and Windows, relative and home-relative', () => {
    assert.equal(resolveAgainst('src/../a.ts', '/w'), '/w/a.ts');
    assert.equal(resolveAgainst('C:\\proj\\a.ts', undefined), 'C:\\proj\\a.ts');
    assert.equal(resolveAgainst('a.ts', 'C:\\proj'), 'C:\\proj\\a.ts');
    // One drive, either case (VS Code writes the drive letter lower-case).
    assert.equal(resolveAgainst('a.ts', 'c:\\proj'), 'C:\\proj\\a.ts');
    assert.equal(resolveAgainst('c:/proj/a.ts', undefined), 'C:\\proj\\a.ts');
    assert.equal(displayPath('C:\\proj\\a.ts', 'c:\\proj'), 'a.ts');
    // What the editor layer compares VS Code's Uri.fsPath (c:\proj\a.ts) with.
    assert.equal(upperDrive('c:\\proj\\a.ts'), 'C:\\proj\\a.ts');
    assert.equal(upperDrive('/c/proj'), '/c/proj');
    assert.ok(samePath('c:\\proj\\a.ts', 'C:\\proj\\a.ts'));
    assert.ok(!samePath('c:\\proj\\a.ts', 'C:\\proj\\A.ts'), 'only the drive letter: NTFS names may differ by case in a case-sensitive folder');
    assert.ok(!samePath('/w/a.ts', '/W/a.ts'));
    assert.equal(resolveAgainst('~/x', '/w'), undefined);
    assert.equal(resolveAgainst('a.ts', undefined), undefined);
    // Git Bash, the shell Claude Code runs on Windows, names drive D: as /d.
    assert.equal(resolveAgainst('/d/oh-my-posh/src/x.go', 'D:\\oh-my-posh'), 'D:\\oh-my-posh\\src\\x.go');
    assert.equal(resolveAgainst('/d/x', '/home/u'), '/d/x');
    // ~/ when the session works inside a home folder; ~user never.
    assert.equal(resolveAgainst('~/Developer/x.md', '/Users/r/proj'), '/Users/r/Developer/x.md');
    assert.equal(resolveAgainst('~/x', 'C:\\Users\\me\\p'), 'C:\\Users\\me\\x');
    assert.equal(resolveAgainst('~bob/x', '/home/r/p'), undefined);
    assert.deepEqual(ops('cat ~/notes.md a~b ~bob/x', '/home/r/p'), ['read:~/notes.md', 'read:a~b']);
    // root's home, where agents run in containers (twentieth set); not a folder that starts like it.
    assert.equal(resolveAgainst('~/.claude/todo.md', '/root/projects/cat_vent'), '/root/.claude/todo.md');
    assert.equal(resolveAgainst('~/x', '/rootfs/p'), undefined);
    // The folder a pattern searches: a backslash escapes in POSIX, separates on Windows.
    assert.deepEqual(
      ['src/*.ts', '*.py', '/*.conf', 'src/\\[id\\]/*.tsx', 'a/b/c.ts'].map((p) => patternRoot(p, false)),
      ['src', '.', '/', 'src/\\[id\\]', 'a/b'],
    );
    assert.equal(patternRoot('D:\\other\\src\\*.ts', true), 'D:\\other\\src');
  });

  void test('after a cd to a computed folder, relative paths are not placed (absolute ones are)', () => {
    assert.deepEqual(ops('proj=$(mktemp -d) && cd "$proj" && printf x > hk.pkl && cat /etc/hosts'), ['read:/etc/hosts']);
    assert.deepEqual(ops('cd - && cat a.txt'), []);
    assert.deepEqual(ops('cd "$d" && cd sub && cat a && cd /abs && cat b'), ['read:b@/abs']);
    assert.deepEqual(ops('cat a && cd ~ && cat b'), ['read:a']);
  });

  void test('find … -exec a reader on {} (or sh -c on "$1") reads every level of the pattern, to -maxdepth (at most 4)', () => {
    const cmd = `find skills -maxdepth 2 -type f -name 'SKILL.md' -print -exec sh -c 'printf "--- %s ---" "$1"; sed -n "1,40p" "$1"' _ {} \\;`;
    assert.deepEqual(ops(cmd), ['read:skills/SKILL.md#1+40', 'read(glob):skills/*/SKILL.md#1+40']);
    assert.deepEqual(ops('find src -name "*.ts" -exec cat {} \\;'), ['read(glob):src/*.ts', 'read(glob):src/*/*.ts', 'read(glob):src/*/*/*.ts', 'read(glob):src/*/*/*/*.ts']);
    // Not a reader of the files, or no -exec at all: nothing read.
    assert.deepEqual(ops('find src -name "*.ts" -exec grep -l foo {} +'), []);
    assert.deepEqual(ops('find src -name "*.ts" -print'), []);
    // Piped into xargs (through sort): the same reads.
    const xargs = `find src/routes -type f | sort | xargs -I{} sh -c 'printf "--- %s" "$1"; sed -n "1,180p" "$1"' sh {}`;
    assert.deepEqual(ops(xargs), ['read(glob):src/routes/*#1+180', 'read(glob):src/routes/*/*#1+180', 'read(glob):src/routes/*/*/*#1+180', 'read(glob):src/routes/*/*/*/*#1+180']);
    assert.deepEqual(ops('find . -maxdepth 1 -name "*.md" | xargs cat'), ['read(glob):*.md']);
    // xargs's replacement string inside the script (`"{}"`), not the script's "$1".
    const inScript = `find Sources/Res -maxdepth 2 -type f | sort | xargs -I{} sh -c 'echo "===== {} ====="; sed -n "1,200p" "{}"'`;
    assert.deepEqual(ops(inScript), ['read(glob):Sources/Res/*#1+200', 'read(glob):Sources/Res/*/*#1+200']);
    // A filter between them, a test we do not follow, or a search of the files: nothing read.
    assert.deepEqual(ops('find . -name "*.md" | grep x | xargs cat'), []);
    assert.deepEqual(ops('find . -newer x | xargs cat'), []);
    assert.deepEqual(ops('find . -name "*.ts" | xargs grep -n foo'), []);
    // grep -l between them prints some of the files the find listed: those are read (nineteenth set).
    const compose = 'find /home/j/infra -name "docker-compose.yml" | xargs grep -l "gluetun" | xargs cat';
    // (The first read is grep's own: grep on one file reads it.)
    const levels = ['/home/j/infra/*/docker-compose.yml', '/home/j/infra/*/*/docker-compose.yml', '/home/j/infra/*/*/*/docker-compose.yml'];
    assert.deepEqual(ops(compose), ['read:/home/j/infra/docker-compose.yml', 'read:/home/j/infra/docker-compose.yml', ...levels.map((p) => `read(glob):${p}`)]);
    assert.deepEqual(ops('find src -maxdepth 1 -name "*.ts" | sort | xargs rg --files-with-matches foo | xargs cat'), ['read(glob):src/*.ts']);
    assert.deepEqual(ops('find src -maxdepth 1 -name "*.ts" | xargs grep -rLi foo | xargs -I{} sed -n 1,20p {}'), ['read(glob):src/*.ts#1+20']);
    // Not a list of files: rg -L follows links and prints lines; grep -c prints counts.
    assert.deepEqual(ops('find src -maxdepth 1 -name "*.ts" | xargs rg -L foo | xargs cat'), []);
    assert.deepEqual(ops('find src -maxdepth 1 -name "*.ts" | xargs grep -c foo | xargs cat'), []);
  });

  void test('Git Bash on Windows: cd to D:/…, /d/… or a relative folder, then a relative read', () => {
    const root = 'D:\\oh-my-posh';
    const read = (cmd: string): string[] => classifyShell(cmd, root).map((a) => `${a.op}:${resolveAgainst(a.path, a.cwd ?? root)}`);
    assert.deepEqual(read('cd D:/oh-my-posh/website && cat docs/auth.mdx'), ['read:D:\\oh-my-posh\\website\\docs\\auth.mdx']);
    assert.deepEqual(read('cd /d/oh-my-posh/src && grep -n Pending config/segment.go'), ['read:D:\\oh-my-posh\\src\\config\\segment.go']);
    assert.deepEqual(read('cd website && sed -n 1,5p docs/a.md'), ['read:D:\\oh-my-posh\\website\\docs\\a.md']);
  });
});
