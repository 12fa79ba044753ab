/** Rule tables for the file rules: write-before-read, parallel batches, stale writes, mismatches. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Conversation, type CallRecord } from '../../../src/core/engine/conversation';
import type { ForeignChangeVerdict, RuleModule } from '../../../src/core/engine/rule';
import type { ToolCall } from '../../../src/core/model/events';
import { concurrentWrite } from '../../../src/core/rules/concurrent-write';
import { mismatchedResult } from '../../../src/core/rules/mismatched-result';
import { parallelReadWrite } from '../../../src/core/rules/parallel-read-write';
import { parallelWriteWrite } from '../../../src/core/rules/parallel-write-write';
import { batchSiblings, isWrite } from '../../../src/core/rules/support/batch';
import { staleWrite } from '../../../src/core/rules/stale-write';
import { writeBeforeRead } from '../../../src/core/rules/write-before-read';
import { ClaudeTranscript } from '../support/claude';
import { CodexRollout } from '../support/codex';
import { columnOf, ruleTester } from '../support/ruleTester';
import { run } from '../support/run';

const A = 'toolu_01AAAAAAAAAAAAAAAAAAAAAA';
const B = 'toolu_01BBBBBBBBBBBBBBBBBBBBBB';
const C = 'toolu_01CCCCCCCCCCCCCCCCCCCCCC';
const f = '/home/dev/proj/src/app.ts';
const v1 = 'one\ntwo\nthree\nfour\nfive\n';
/** A package.json with one script. */
const pkg = '{\n  "name": "app",\n  "scripts": {\n    "dev": "vite"\n  }\n}\n';
const cc = (): ClaudeTranscript => new ClaudeTranscript().user('go');

/**
 * The session read a four-line file and wrote two lines over it; someone put the file back as
 * `now`, of which a partial read showed lines 1–2; then the session wrote it whole again.
 */
const putBackBut = (now: string): string =>
  cc()
    .read('m1', A, f, 'one\ntwo\nthree\nfour\n')
    .write('m2', B, f, 'ONE\nTWO\n', 'one\ntwo\nthree\nfour\n')
    .read('m3', C, f, now, { offset: 1, limit: 2 })
    .write('m4', 'toolu_01DDDDDDDDDDDDDDDDDDDDDD', f, 'ONE\nTWO\n', now)
    .text();
/**
 * Claude Code 2.1.223 (hannibal8856/claude_backup): the session's folder is the real one,
 * /home/dev/sda2/proj, and /home/dev/proj a symbolic link to it. The file history's backup of a
 * file edited through the link names its real folder (`file-history-delta`, before the call).
 */
const viaLink = '/home/dev/proj/src/app.ts';
const linked = (): ClaudeTranscript => new ClaudeTranscript('aaaaaaaa-0000-4000-8000-000000000001', '/home/dev/sda2/proj').as('2.1.223').user('go');
const historyDelta = (t: ClaudeTranscript, trackingPath: string, realParentDir: string): ClaudeTranscript =>
  t.push({
    type: 'file-history-delta',
    messageId: 'd3feb284-d096-470a-9100-5532aa69dcfa',
    snapshotMessageId: '071c6abc-ed09-42ff-9186-00d7d1b732be',
    trackingPath,
    backup: { backupFileName: 'ef6290631e0a1333@v1', version: 1, backupTime: '2026-08-07T03:12:22.897Z', realParentDir },
    timestamp: '2026-08-07T03:12:22.904Z',
  });

/** A record no test file holds: a line hung from it follows records that were lost. */
const lostUuid = 'aaaaaaaa-0000-4000-8000-00000010057a';
/** A Codex patch envelope that changes one line of `path`. */
const updatePatch = (path: string, from = 'two', to = '2'): string => `*** Begin Patch\n*** Update File: ${path}\n@@\n-${from}\n+${to}\n*** End Patch`;

/** A Codex session writing `out/readiness-$(date +%F).md` with a heredoc, then patching `out/<updated>`. */
const dated = (updated: string): string =>
  new CodexRollout()
    .user('write the report')
    .shell('c1', "report=/home/dev/proj/out/readiness-$(date +%F).md; cat > \"$report\" <<'EOF'\nstepsCompleted: [1]\nEOF")
    .output('c1', 'Exit code: 0\nOutput:\n')
    .patch('c2', updatePatch(`out/${updated}`, 'stepsCompleted: [1]', 'stepsCompleted: [1, 2]'))
    .output('c2', `Success. Updated the following files:\nM out/${updated}`, true)
    .text();

/** Claude Code's note to the model that a file changed under it: numbered lines of it. */
const shown = (path: string, snippet: string, isSidechain = false): string =>
  JSON.stringify({ parentUuid: null, isSidechain, attachment: { type: 'edited_text_file', filename: path, snippet }, type: 'attachment', uuid: `att-${snippet.length}`, sessionId: 'aaaaaaaa-0000-4000-8000-000000000001' });

/** Claude Code's note that a PostToolUse hook changed `path` (2.1.332), or (`own` false) a hook's own words saying so. */
const hookNote = (path: string, own = true): string =>
  JSON.stringify({
    parentUuid: null,
    isSidechain: false,
    attachment: {
      type: 'hook_additional_context',
      content: [`PostToolUse hook modified ${path} after your edit (likely a formatter). Your next Edit will not fail with a stale-file error, but if its old_string targets a region the hook reformatted, Read the file first.`],
      isOwnText: own,
      hookName: 'PostToolUse:Edit',
      toolUseID: B,
      hookEvent: 'PostToolUse',
    },
    type: 'attachment',
    uuid: `hook-${String(own)}`,
    sessionId: 'aaaaaaaa-0000-4000-8000-000000000001',
  });

/** A sub-agent's own file: every record is a sidechain record. */
function subAgent(): ClaudeTranscript {
  const t = new ClaudeTranscript();
  t.sidechain = true;
  return t.user('go');
}

/**
 * A Codex session that runs `command` (a unified-exec output with `exit` and `output`), then
 * patches `path` (line 5 of the rollout).
 */
const commandThenPatch = (command: string, exit: number, output: string, path = 'src/app.ts', from?: string, to?: string): string =>
  new CodexRollout()
    .user('go')
    .exec('c1', command)
    .output('c1', `Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code ${exit}\nOutput:\n${output}`)
    .patch('c2', updatePatch(path, from, to))
    .output('c2', 'Done!', true)
    .text();

const key = 'C:\\Users\\dev\\.config\\ima\\api_key';
/** A UTF-16LE file with its byte-order mark, as Claude Code 2.1.17's Read showed it: decoded as UTF-8. */
const utf16AsUtf8 = (text: string): string => `\uFFFD\uFFFD${[...text].map((c) => `${c}\u0000`).join('')}`;
const win = (): ClaudeTranscript => new ClaudeTranscript(undefined, 'C:\\Users\\dev').user('go');
const readThenEdit = cc().read('m1', A, f, v1).edit('m2', B, f, v1, 'two', '2').text();
const editUnread = cc().edit('m1', A, f, v1, 'two', '2');

/**
 * Claude Desktop's local-agent mode: its shell runs in a VM that mounts ~/Developer as
 * /sessions/vm/mnt/Developer, while Edit names the host path.
 */
function localAgent(): ClaudeTranscript {
  const t = new ClaudeTranscript('aaaaaaaa-0000-4000-8000-000000000001', '/Users/ana/Library/Application Support/Claude/local-agent-mode-sessions/s1/outputs');
  t.entrypoint = 'local-agent';
  return t.user('go');
}
const vmShell = (t: ClaudeTranscript, msg: string, id: string, command: string, stdout: string): ClaudeTranscript =>
  t.call(msg, id, 'mcp__workspace__bash', { command }).result(id, stdout);

/** A code-mode script that creates src/format.rs through a helper (the patch is built at run time), then a patch updating it. */
function codeMode(recorded: boolean): CodexRollout {
  const t = new CodexRollout().user('go').item('response_item', {
    type: 'custom_tool_call',
    status: 'completed',
    call_id: 'c1',
    name: 'exec',
    input: 'function addFile(p, d) { return `*** Add File: ${p}\\n` + d.split("\\n").map((l) => "+" + l).join("\\n") + "\\n"; }\nawait tools.apply_patch("*** Begin Patch\\n" + addFile("/home/dev/proj/src/format.rs", "pub fn f() {}") + "*** End Patch");',
  });
  if (recorded) {
    t.event('patch_apply_end', { call_id: 'exec-1', stdout: '', stderr: '', success: true, changes: { '/home/dev/proj/src/format.rs': { type: 'add', content: 'pub fn f() {}\n' } }, status: 'completed' });
  }
  return t
    .item('response_item', { type: 'custom_tool_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'Script completed\nWall time 0.9 seconds\nOutput:\n' }] })
    .patch('c2', '*** Begin Patch\n*** Update File: /home/dev/proj/src/format.rs\n@@\n-pub fn f() {}\n+pub fn g() {}\n*** End Patch')
    .output('c2', 'Success. Updated the following files:\nM /home/dev/proj/src/format.rs', true);
}

ruleTester(writeBeforeRead, {
  valid: [
    { name: 'read, then edit', input: readThenEdit },
    {
      name: 'Claude Code 2.1.223: a cat in the real folder, then an Edit through a symbolic link to it that the file history resolves',
      input: historyDelta(linked().bash('m1', A, 'cat src/app.ts', v1), viaLink, '/home/dev/sda2/proj/src').edit('m2', B, viaLink, v1, 'two', '2').text(),
    },
    {
      // The edit's result comes first, so nothing read the file yet when it is judged: a read of
      // it beside the edit in the batch (here among other files) is parallel-read-write's finding.
      name: 'a read of the file among others and an edit of it in one batch, the edit answered first',
      input: cc()
        .call('m1', A, 'Bash', { command: `cat ${f} /home/dev/proj/README.md` })
        .call('m1', B, 'Edit', { file_path: f, old_string: 'two', new_string: '2' })
        .editResult(B, f, v1, 'two', '2')
        .result(A, v1 + '# proj\n')
        .text(),
    },
    {
      // Claude Code puts the project's CLAUDE.md (and those of the folders above) in the context at start.
      name: "Claude Code: an edit of the project's CLAUDE.md, which Claude Code loads itself",
      input: cc().edit('m1', A, '/home/dev/proj/CLAUDE.md', '# Proj\n- a\n', '- a', '- b').edit('m2', B, '/home/dev/proj/.claude/CLAUDE.md', '# P\n- a\n', '- a', '- b').text(),
    },
    {
      // Claude Code puts its auto-memory index in the system prompt at session start, unrecorded.
      name: "Claude Code: an edit of the auto-memory index MEMORY.md, which Claude Code loads itself",
      input: cc().edit('m1', A, '/home/dev/.claude/projects/-home-dev-proj/memory/MEMORY.md', '# Memory\n- a\n', '- a', '- b').text(),
    },
    {
      // Claude Code 2.1.126 (twenty-eighth set): the CLAUDE.md of a folder the session worked in,
      // put before the model whole as a `nested_memory` attachment, then edited.
      name: "Claude Code: an edit of a folder's CLAUDE.md that Claude Code attached (nested_memory)",
      input: (() => {
        const md = '/home/dev/proj/crm/CLAUDE.md';
        const text = '# CRM\n\n## Data\n\n1. start Chrome\n';
        const t = cc().read('m1', A, '/home/dev/proj/crm/notes.md', 'x\n');
        t.push({ ...JSON.parse(t.lines[t.lines.length - 1]!), type: 'attachment', uuid: 'aaaaaaaa-0000-4000-8000-0000000000a1', message: undefined, toolUseResult: undefined, attachment: { type: 'nested_memory', path: md, content: { path: md, type: 'Project', content: text, contentDiffersFromDisk: false }, displayPath: 'crm/CLAUDE.md' } });
        return t.edit('m2', B, md, text, '1. start Chrome', '1. start Chrome on port 9222').text();
      })(),
    },
    {
      // A session continued after a compaction: Claude Code attached the files it had been
      // working on, one with its content, one by reference (read before, not shown again).
      name: 'files Claude Code attached after a compaction',
      input: new ClaudeTranscript().compact().attachFile(f, v1).attachFile('/home/dev/proj/src/b.ts').user('go on').edit('m1', A, f, v1, 'two', '2').edit('m2', B, '/home/dev/proj/src/b.ts', 'x\n', 'x', 'y').text(),
    },
    {
      // EnterWorktree from a folder inside the repository (/home/dev/proj/ext): the worktree
      // checks out the repository's root, so the file the session wrote is at wt/ext/….
      name: "Claude Code: an edit of a worktree's copy of a file the session wrote before it entered the worktree",
      input: new ClaudeTranscript('aaaaaaaa-0000-4000-8000-000000000001', '/home/dev/proj/ext')
        .user('go')
        .write('m1', A, '/home/dev/proj/ext/docs/spec.md', v1, null)
        .inWorktree('/home/dev/wt', '/home/dev/wt/ext')
        .edit('m2', B, '/home/dev/wt/ext/docs/spec.md', v1, 'two', '2')
        .text(),
    },
    {
      name: "Claude Desktop's local-agent mode: a read in the VM shell at the mount, then an Edit of the host path",
      input: vmShell(localAgent(), 'm1', A, 'cd /sessions/vm/mnt/Developer/lab && cat worker/cron.yaml', 'kind: CronJob\n').edit('m2', B, '/Users/ana/Developer/lab/worker/cron.yaml', 'kind: CronJob\n', 'CronJob', 'Job').text(),
    },
    {
      // The host folder is known first (a Read), so the VM path is placed as the call comes.
      name: "Claude Desktop's local-agent mode: a loop over a pattern in the VM after a host Read, then an Edit of one of its files",
      input: vmShell(localAgent().read('m1', C, '/Users/ana/Developer/lab/README.md', '# lab\n'), 'm2', A, 'cd /sessions/vm/mnt/Developer/lab && for f in src/*.py; do cat "$f"; done', 'x = 1\n')
        .edit('m3', B, '/Users/ana/Developer/lab/src/app.py', 'x = 1\n', 'x = 1', 'x = 2')
        .text(),
    },
    {
      // Codex 0.46 wrapped a shell output as JSON: what the command printed is its `output`.
      name: "Codex 0.46: an update of the spec that create-new-feature.sh printed inside the output's JSON",
      input: new CodexRollout()
        .user('specify it')
        .shell('c1', '.specify/scripts/bash/create-new-feature.sh --json "MealMind"')
        .output(
          'c1',
          JSON.stringify({
            output: "Switched to a new branch '002-mealmind'\n" + JSON.stringify({ BRANCH_NAME: '002-mealmind', SPEC_FILE: '/home/dev/proj/specs/002-mealmind/spec.md', FEATURE_NUM: '002' }) + '\n',
            metadata: { exit_code: 0, duration_seconds: 0.1 },
          }),
        )
        .patch('c2', updatePatch('specs/002-mealmind/spec.md'))
        .output('c2', 'Success. Updated the following files:\nM specs/002-mealmind/spec.md', true)
        .text(),
    },
    {
      // The session wrote the report whole, under a name with the day's date the command computed.
      name: 'Codex: an update of a report the session wrote through `$(date +%F)` in its name',
      input: dated('readiness-2026-01-30.md'),
    },
    {
      // spec-kit's create-new-feature.sh copies the spec template to the SPEC_FILE it prints.
      name: "Codex: a patch replacing the spec that spec-kit's create-new-feature.sh made",
      input: new CodexRollout()
        .user('specify it')
        .exec('c1', '.specify/scripts/bash/create-new-feature.sh --json "Amenity proximity"')
        .output('c1', 'Chunk ID: 1f83ec\nWall time: 0.05 seconds\nProcess exited with code 0\nOutput:\n{"BRANCH_NAME":"007-amenity","SPEC_FILE":"/home/dev/proj/specs/007-amenity/spec.md","FEATURE_NUM":"007"}\n')
        .patch('c2', '*** Begin Patch\n*** Delete File: /home/dev/proj/specs/007-amenity/spec.md\n*** Add File: /home/dev/proj/specs/007-amenity/spec.md\n+# Amenity proximity\n*** End Patch')
        .output('c2', 'Success. Updated the following files:\nA /home/dev/proj/specs/007-amenity/spec.md', true)
        .text(),
    },
    {
      name: "Claude Code: an edit of the plan that spec-kit's setup-plan.sh made",
      input: cc()
        .bash('m1', A, '.specify/scripts/bash/setup-plan.sh --json', '{"FEATURE_SPEC":"/home/dev/proj/specs/007-a/spec.md","IMPL_PLAN":"/home/dev/proj/specs/007-a/plan.md","SPECS_DIR":"/home/dev/proj/specs/007-a","BRANCH":"007-a"}')
        .edit('m2', B, '/home/dev/proj/specs/007-a/plan.md', '# Plan: [FEATURE]\n', '[FEATURE]', 'Amenity')
        .text(),
    },
    {
      // Claude Code's compaction helper file copies a session from its last compaction on: what
      // the session read before it is in the session's own file.
      name: "Claude Code: an edit in the compaction helper's copy of a session",
      input: compactedCopy('acompact-0959'),
    },
    {
      // So does 2.1.88's side-question agent (`agent-aside_question-*`): any sub-agent file that
      // begins at a compaction, whatever its name.
      name: "Claude Code: an edit in a side-question agent's copy of a session, from its last compaction on",
      input: compactedCopy('aside_question-03df'),
    },
    {
      // Claude Code 1.0.x wrote no compact_boundary: a session continued after a compaction is a
      // new file whose first message is the summary, as a root; its reads are in the old file.
      name: 'Claude Code 1.0.x: an edit in a file that starts with the compaction summary',
      input: new ClaudeTranscript().user('This session is being continued from a previous conversation that ran out of context.', { isCompactSummary: true }).edit('m1', A, f, v1, 'two', '2').text(),
    },
    {
      // Claude Code's Grep of the file alone (content mode, context lines) showed the lines the
      // edit replaces: a look at the file, as a shell `grep -n -C2 PAT file` is (twentieth set).
      name: 'Claude Code: a Grep of the file alone before the edit',
      input: cc()
        .call('m1', A, 'Grep', { pattern: 'two', path: f, output_mode: 'content', '-C': 1 })
        .result(A, '1-one\n2:two\n3-three', { toolUseResult: { mode: 'content', numFiles: 0, filenames: [], content: '1-one\n2:two\n3-three', numLines: 3 } })
        .edit('m2', B, f, v1, 'two', '2')
        .text(),
    },
    {
      // Claude Code 1.0.17 did not mark the summary at all; its opening is the same (twentieth set).
      name: 'Claude Code 1.0.17: the same summary with no isCompactSummary',
      input: new ClaudeTranscript().as('1.0.17').user('This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis: …').edit('m1', A, f, v1, 'two', '2').text(),
    },
    {
      // Claude Code 1.0.35: a MultiEdit whose first old_string is empty made a new layout.tsx; its
      // record of the file before is "".
      name: 'Claude Code: a MultiEdit that creates the file',
      input: cc()
        .call('m1', A, 'MultiEdit', { file_path: f, edits: [{ old_string: '', new_string: v1 }] })
        .result(A, 'Applied 1 edit to src/app.ts', {
          toolUseResult: { filePath: f, edits: [{ old_string: '', new_string: v1, replace_all: false }], originalFileContents: '', structuredPatch: [{ oldStart: 0, oldLines: 0, newStart: 1, newLines: 3, lines: ['+one', '+two', '+three'] }] },
        })
        .text(),
    },
    {
      // Claude Code 2.0.1: the file starts partway (its first message hangs from a record it does
      // not hold); the session read the file before, elsewhere, and Claude Code took the edit.
      name: 'Claude Code: an edit in a file that starts partway through its session',
      input: new ClaudeTranscript().from('aaaaaaaa-0000-4000-8000-0000000f0e11').user('go on with the plan').edit('m1', A, f, v1, 'two', '2').text(),
    },
    {
      // Claude Code 2.1.44 whose stream failed carried out the non-streaming fallback's answer and
      // never wrote it: the next message hangs from a record the file does not hold, and the read
      // of the file may have been among those lost.
      name: 'Claude Code: an edit after records the file does not hold',
      input: cc().bash('m1', A, 'ls src', 'app.ts').from(lostUuid).say('m2', 'Now the fix.').edit('m3', B, f, v1, 'two', '2').text(),
    },
    { name: 'create a new file', input: cc().write('m1', A, f, 'new\n', null).text() },
    { name: 'write, then edit what it wrote', input: cc().write('m1', A, f, v1, null).edit('m2', B, f, v1, 'two', '2').text() },
    {
      // Claude Code reads an @-named file into the context itself (no Read call), and lets the model write it.
      name: 'Claude Code: a file named with @ in the prompt, then overwritten',
      input: new ClaudeTranscript().user('Look at the @src/app.ts, check the feedback, then empty the file.').write('m1', A, f, '', v1).text(),
    },
    {
      // Claude Code's Workflow tool saves the script it is passed and names the file only in its result.
      name: 'Claude Code: an edit of the script a Workflow call saved',
      input: cc()
        .call('m1', A, 'Workflow', { script: 'export const meta = {};\nrun();\n', args: '{}' })
        .result(A, 'Workflow launched in background.', { toolUseResult: { status: 'async_launched', taskId: 'w1', scriptPath: '/home/dev/.claude/projects/p/s1/workflows/scripts/audit-wf_1.js' } })
        .edit('m2', B, '/home/dev/.claude/projects/p/s1/workflows/scripts/audit-wf_1.js', 'export const meta = {};\nrun();\n', 'run();', 'run(1);')
        .text(),
    },
    {
      // A custom command's or a Skill's text, which Claude Code writes as a meta record, reads the
      // files it names with @ into the context too (the model then quoted one word for word).
      name: "Claude Code: a file named with @ in a command's or a skill's text",
      input: cc()
        .user('<objective>Execute the plan.</objective>\n**Load project state first:** @.planning/STATE.md', { isMeta: true })
        .edit('m1', A, '/home/dev/proj/.planning/STATE.md', v1, 'two', '2')
        .text(),
    },
    {
      name: 'Claude Code: an @"quoted path" in the prompt',
      input: new ClaudeTranscript().user('See @"src/app.ts" and fix it').edit('m1', A, f, v1, 'two', '2').text(),
    },
    { name: 'a failed edit changes nothing', input: cc().call('m1', A, 'Edit', { file_path: f, old_string: 'x', new_string: 'y' }).result(A, '<tool_use_error>File has not been read yet.</tool_use_error>', { isError: true }).text() },
    {
      // Codex 0.58: the file read in full, then moved with others through a pattern, then patched.
      name: 'Codex: a file read, moved by `mv DIR/*.jsx DEST/`, then patched at its new path',
      input: new CodexRollout()
        .user('move the layout components')
        .shell('c1', "sed -n '1,200p' apps/nav/components/app-header.jsx")
        .output('c1', 'export function AppHeader() {}')
        .shell('c2', 'mv apps/nav/components/*.jsx apps/components/layout/')
        .output('c2', '')
        .patch('c3', updatePatch('apps/components/layout/app-header.jsx'))
        .output('c3', 'Success. Updated the following files:\nM apps/components/layout/app-header.jsx', true)
        .text(),
    },
    { name: 'Codex: sed -n read, then update patch', input: new CodexRollout().user('go').shell('c1', "sed -n '1,80p' src/app.ts").output('c1', 'x').patch('c2', updatePatch('src/app.ts')).output('c2', 'Done!', true).text() },
    {
      name: 'Codex on Windows: Get-Content, then an update patch',
      input: new CodexRollout('019bce9f-0a40-79e2-8351-8818e8487fb6', 'C:\\work\\app')
        .user('change x')
        .exec('c1', 'Get-Content app.py')
        .output('c1', 'Chunk ID: 59e3da\nWall time: 0.0993 seconds\nProcess exited with code 0\nOriginal token count: 5\nOutput:\nx = 1\r\n')
        .patch('c2', updatePatch('C:/work/app/app.py', 'x = 1', 'x = 2'))
        .output('c2', 'Done!', true)
        .text(),
    },
    {
      // doudouqie66/CommonTools rollout-2026-07-28T14-24-31-019fa765…: lines 116-117 and 147 (trimmed).
      name: 'Codex on Windows: the files of a listing read one by one in ForEach-Object, then one patched',
      input: regionsThenPatch('Script/Blueprint/Prefabs/Regions/Aire03.lua'),
    },
    {
      // Code mode: the script's patch did not apply, so nothing was written.
      name: 'Codex: a failed code-mode script changes nothing',
      input: new CodexRollout()
        .user('go')
        .item('response_item', { type: 'custom_tool_call', status: 'completed', call_id: 'c1', name: 'exec', input: `const patch = ${JSON.stringify(updatePatch('src/app.ts'))};\nawait tools.apply_patch(patch);` })
        .item('response_item', { type: 'custom_tool_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'Script failed\nWall time 0.0 seconds\nOutput:\n' }, { type: 'input_text', text: 'Script error:\napply_patch verification failed: Failed to find expected lines in src/app.ts' }] })
        .text(),
    },
    // One command of the script succeeded (a search that found nothing exits 1): a success, as a
    // command line is whose other steps ran.
    { name: 'Codex: a code-mode read that ran, and a search that found nothing, then an update patch', input: codeModeRead([0, 1]) },
    { name: 'Codex: add a file', input: new CodexRollout().user('go').patch('c2', '*** Begin Patch\n*** Add File: src/new.ts\n+x\n*** End Patch').output('c2', 'Done!', true).text() },
    {
      // A code-mode script built its patch at run time (addFile(path, data)); Codex's
      // patch_apply_end names the file it created. The session's next patch updates its own file.
      name: 'Codex: a file a code-mode script created (patch_apply_end), then updated',
      input: codeMode(true).text(),
    },
    {
      // A multi-file patch stops at its first failure, after the files before it: a file the
      // failed call created exists, and the session knows what it wrote there.
      name: 'Codex: a file created by a patch that failed on a later file, then updated',
      input: new CodexRollout()
        .user('go')
        .patch('c1', '*** Begin Patch\n*** Add File: /home/dev/proj/src/guards.ts\n+export const a = 1;\n*** Add File: /home/dev/proj/typo/x.ts\n+x\n*** End Patch')
        .output('c1', 'apply_patch verification failed: Failed to create parent directories for /home/dev/proj/typo/x.ts', true)
        .patch('c2', '*** Begin Patch\n*** Update File: /home/dev/proj/src/guards.ts\n@@\n-export const a = 1;\n+export const a = 2;\n*** End Patch')
        .output('c2', 'Success. Updated the following files:\nM /home/dev/proj/src/guards.ts', true)
        .text(),
    },
    {
      // The probe MCP server's extract_code, as Codex records it: the tool's name, its server in `namespace`.
      name: "Codex: probe's extract_code of a symbol, then an update patch",
      input: new CodexRollout()
        .user('go')
        .item('response_item', {
          type: 'function_call',
          name: 'extract_code',
          namespace: 'mcp__probe',
          arguments: JSON.stringify({ path: '/home/dev/proj', files: ['/home/dev/proj/src/app.ts#main', '/home/dev/proj/src/b.ts:1'], allowTests: true, format: 'markdown', lsp: false }),
          call_id: 'c1',
        })
        .output('c1', 'Wall time: 0.0544 seconds\nOutput:\n[{"type":"text","text":"<?xml version=\\"1.0\\" encoding=\\"UTF-8\\"?>\\n<probe_results>\\n  <result>\\n    <file>/home/dev/proj/src/app.ts</file>\\n    <lines>\\n      <start>1</start>\\n      <end>5</end>\\n    </lines>\\n  </result>\\n</probe_results>"}]')
        .patch('c2', updatePatch('/home/dev/proj/src/app.ts'))
        .output('c2', 'Done!', true)
        .text(),
    },
    {
      name: "Codex code mode: a script's extract_code, then a script's patch",
      input: new CodexRollout()
        .user('go')
        .item('response_item', {
          type: 'custom_tool_call',
          status: 'completed',
          call_id: 'c1',
          name: 'exec',
          input: 'const files=["/home/dev/proj/src/app.ts"];\nconst r=await tools.mcp__probe__extract_code({path:"/home/dev/proj",files,allowTests:false,format:"plain"});\nfor (const c of (r.content||[])) if(c.type==="text") text(c.text);\n',
        })
        .item('response_item', { type: 'custom_tool_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'Script completed\nWall time 0.1 seconds\nOutput:\n' }, { type: 'input_text', text: '<probe_results>…</probe_results>' }] })
        .item('response_item', { type: 'custom_tool_call', status: 'completed', call_id: 'c2', name: 'exec', input: `const patch = ${JSON.stringify(updatePatch('/home/dev/proj/src/app.ts'))};\nawait tools.apply_patch(patch);` })
        .item('response_item', { type: 'custom_tool_call_output', call_id: 'c2', output: [{ type: 'input_text', text: 'Script completed\nWall time 0.1 seconds\nOutput:\n' }] })
        .text(),
    },
    {
      // A loop over a brace expansion (a real code-mode call): the words are literal.
      name: 'Codex: a for loop over go/{a,b}/x.go reads each, then an update patch',
      input: commandThenPatch('for f in src/{lib,app}.ts go/x.go; do test -f "$f" && sed -n \'1,50p\' "$f"; done', 0, 'one\n'),
    },
    {
      // The real shape: a code-mode script runs the loop; its output shows each file.
      name: 'Codex: a for loop over python/agents/*.json reads each file it matched, then an update patch',
      input: new CodexRollout()
        .user('go')
        .item('response_item', {
          type: 'custom_tool_call',
          status: 'completed',
          call_id: 'c1',
          name: 'exec',
          input: `const r = await tools.exec_command(${JSON.stringify({ cmd: 'for f in python/prompts/*.md python/agents/*.json; do echo "### $f"; sed -n \'1,260p\' "$f"; done', workdir: '/home/dev/proj' })});\ntext(r.output);\n`,
        })
        .item('response_item', { type: 'custom_tool_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'Script completed\nWall time 0.1 seconds\nOutput:\n' }, { type: 'input_text', text: '### python/agents/review.json\n{}\n' }] })
        .patch('c2', updatePatch('/home/dev/proj/python/agents/review.json', '{}', '{ }'))
        .output('c2', 'Done!', true)
        .text(),
    },
    {
      // The real case (a Codex 0.15x session): the last search found nothing, so the chain
      // exited 1, but the read before it ran. It may have, at least: no claim it never read.
      name: 'Codex: a read inside an && chain whose later search fails, then an update patch',
      input: commandThenPatch("rg -n 'spec' src && sed -n '1,100p' src/app.ts && rg -n 'Proposal' src -g '*test.ts'", 1, 'src/lib.ts:3:spec\none\ntwo\n'),
    },
    {
      // A real Codex 0.142 shape: the session copied the file into place itself.
      name: 'Codex: a file the session copied into place (through a variable it set), then an update patch',
      input: commandThenPatch('d=results/run-1\nmkdir -p "$d"\ncp /runs/1/summary.md "$d/summary.md"', 0, '', 'results/run-1/summary.md'),
    },
    {
      // Every command of a `;` list runs; the exit code is the last one's.
      name: 'Codex: a read before `;` in a call that failed, then an update patch',
      input: commandThenPatch('cat src/app.ts; npm test', 1, 'one\n1 failing\n'),
    },
    {
      name: "Claude Code: probe's extract_code (mcp__probe__extract_code), then an edit",
      input: cc()
        .call('m1', A, 'mcp__probe__extract_code', { path: '/home/dev/proj', files: [`${f}:3`] })
        .result(A, [{ type: 'text', text: '<probe_results>…</probe_results>' }])
        .edit('m2', B, f, v1, 'two', '2')
        .text(),
    },
  ],
  invalid: [
    {
      // Claude Code 2.1.119 writes the blocks of one message with parallel calls out of order:
      // the second call hangs from the first call's result, written the line after it. Nothing
      // was lost, and an edit of a file never read is still one.
      name: 'Claude Code: blocks of one message written out of order are no lost records',
      input: cc()
        .say('m1', 'Listing first.')
        .call('m2', A, 'Bash', { command: 'ls' })
        .from('aaaaaaaa-0000-4000-8000-000000000005')
        .call('m2', B, 'Bash', { command: 'pwd' })
        .result(A, 'src')
        .result(B, '/home/dev/proj')
        .edit('m3', C, f, v1, 'two', '2')
        .text(),
      errors: [{ messageId: 'unread', line: 7 }],
    },
    {
      // The date covers dates only: another report of that folder is still a file never read.
      name: 'Codex: an update of another report than the one written through `$(date +%F)`',
      input: dated('readiness-final.md'),
      errors: [{ messageId: 'unread', line: 5, severity: 'warning' }],
    },
    {
      // Plan mode's "clear context": the file starts with the old session's result, hung from the
      // old file, but the conversation starts at the root after it; nothing was read before.
      name: 'Claude Code: an edit after plan mode cleared the context (the file does not start partway)',
      input: new ClaudeTranscript()
        .from('aaaaaaaa-0ld0-4000-8000-000000000723')
        .result(A, 'The user doesn\u2019t want to proceed with this tool use.', { isError: true })
        .user('[Request interrupted by user for tool use]')
        .root()
        .progress('toolu_hook')
        .user('Implement the following plan')
        .edit('m1', B, f, v1, 'two', '2')
        .text(),
      errors: [{ messageId: 'unread', line: 5 }],
    },
    {
      // The summary as a prompt of a session under way (not its first message): the reads of
      // this file are in it, and the file after that summary is judged as ever.
      name: 'Claude Code: a compaction summary that is not the root of the file',
      input: cc().user('This session is being continued from a previous conversation that ran out of context.', { isCompactSummary: true }).edit('m1', A, f, v1, 'two', '2').text(),
      errors: [{ messageId: 'unread', line: 3 }],
    },
    {
      // A Grep of a folder that printed a line of the file is a glimpse of it among others.
      name: 'Claude Code: a Grep of the folder showed a line of the file, then an edit of it',
      input: cc()
        .call('m1', A, 'Grep', { pattern: 'two', path: '/home/dev/proj/src', output_mode: 'content', '-n': true })
        .result(A, 'src/app.ts:2:two', { toolUseResult: { mode: 'content', numFiles: 0, filenames: [], content: 'src/app.ts:2:two', numLines: 1 } })
        .edit('m2', B, f, v1, 'two', '2')
        .text(),
      errors: [{ messageId: 'unread', line: 4 }],
    },
    {
      // The same text as the first prompt of a 2.1 session (a pasted hand-off note): a prompt.
      name: 'Claude Code 2.1: a first prompt that opens like the continued-session summary',
      input: new ClaudeTranscript().user('This session is being continued from a previous conversation that ran out of context. The conversation is summarized below:\nAnalysis: …').edit('m1', A, f, v1, 'two', '2').text(),
      errors: [{ messageId: 'unread', line: 2 }],
    },
    {
      // Unmarked, it is the summary only as the root: typed later, it is a prompt like any other.
      name: 'Claude Code: the summary’s opening in a later, unmarked prompt',
      input: cc().user('This session is being continued from a previous conversation that ran out of context.').edit('m1', A, f, v1, 'two', '2').text(),
      errors: [{ messageId: 'unread', line: 3 }],
    },
    {
      // Without Codex's record of the creation, the update looks blind.
      name: 'Codex: the same update with no patch_apply_end for the script',
      input: codeMode(false).text(),
      errors: [{ messageId: 'unread', line: 5 }],
    },
    {
      name: 'another memory file, a MEMORY.md of the project, or the CLAUDE.md of a subfolder is not loaded by itself',
      input: cc()
        .edit('m1', A, '/home/dev/.claude/projects/-home-dev-proj/memory/RESUME-HERE.md', '# Resume\n- a\n', '- a', '- b')
        .edit('m2', B, '/home/dev/proj/projects/x/memory/MEMORY.md', '# Memory\n- a\n', '- a', '- b')
        .edit('m3', C, '/home/dev/proj/docs/CLAUDE.md', '# Docs\n- a\n', '- a', '- b')
        .text(),
      errors: [
        { messageId: 'unread', line: 2 },
        { messageId: 'unread', line: 4 },
        { messageId: 'unread', line: 6 },
      ],
    },
    {
      name: "Claude Desktop's local-agent mode: the VM shell read another file of the mount",
      input: vmShell(localAgent(), 'm1', A, 'cd /sessions/vm/mnt/Developer/lab && cat worker/other.yaml', 'kind: Job\n').edit('m2', B, '/Users/ana/Developer/lab/worker/cron.yaml', 'kind: CronJob\n', 'CronJob', 'Job').text(),
      errors: [{ messageId: 'unread', line: 4 }],
    },
    {
      // The spec it names is not what setup-plan.sh creates.
      name: "Claude Code: an edit of the spec that spec-kit's setup-plan.sh only names",
      input: cc()
        .bash('m1', A, '.specify/scripts/bash/setup-plan.sh --json', '{"FEATURE_SPEC":"/home/dev/proj/specs/007-a/spec.md","IMPL_PLAN":"/home/dev/proj/specs/007-a/plan.md"}')
        .edit('m2', B, '/home/dev/proj/specs/007-a/spec.md', '# Spec\n', 'Spec', 'Amenity')
        .text(),
      errors: [{ messageId: 'unread', line: 4 }],
    },
    {
      // The worktree holds copies of what the session knew, nothing more.
      name: 'Claude Code: an edit of a file in the worktree that the session never saw in the main checkout',
      input: new ClaudeTranscript('aaaaaaaa-0000-4000-8000-000000000001', '/home/dev/proj')
        .user('go')
        .write('m1', A, '/home/dev/proj/docs/spec.md', v1, null)
        .inWorktree('/home/dev/proj/.claude/worktrees/wt')
        .edit('m2', B, '/home/dev/proj/.claude/worktrees/wt/docs/other.md', v1, 'two', '2')
        .text(),
      errors: [{ messageId: 'unread', line: 5 }],
    },
    {
      name: 'the same continued session with nothing attached',
      input: new ClaudeTranscript().compact().user('go on').edit('m1', A, f, v1, 'two', '2').edit('m2', B, '/home/dev/proj/src/b.ts', 'x\n', 'x', 'y').text(),
      errors: [
        { messageId: 'unread', line: 3 },
        { messageId: 'unread', line: 5 },
      ],
    },
    { name: 'edit without a read', input: editUnread.text(), errors: [{ messageId: 'unread', line: 2, column: columnOf(editUnread.lines[1]!, f), endColumn: columnOf(editUnread.lines[1]!, f) + f.length }] },
    { name: 'overwrite an existing file unread', input: cc().write('m1', A, f, 'x\n', v1).text(), errors: [{ messageId: 'unread', line: 2 }] },
    {
      name: 'an @ inside a word (an e-mail address) names no file',
      input: new ClaudeTranscript().user('ask dev@src/app.ts about it, then empty src/app.ts').write('m1', A, f, '', v1).text(),
      errors: [{ messageId: 'unread', line: 2 }],
    },
    {
      // A read that failed (unified exec: "Process exited with code 1") saw nothing.
      name: 'Codex: a failed read, then an update patch',
      input: commandThenPatch('cat src/app.ts', 1, 'cat: src/app.ts: Permission denied\n'),
      errors: [{ messageId: 'unread', line: 5 }],
    },
    {
      // Codex 0.154 says "Script completed" even when the sandbox never started the command:
      // every command the script ran exited non-zero, so its read saw nothing.
      name: 'Codex: a code-mode read whose command failed (Script completed, exit_code 1), then an update patch',
      input: codeModeRead([1]),
      errors: [{ messageId: 'unread', line: 5 }],
    },
    {
      // The read is the chain's last command: the failure may be its own, or the search before
      // it found nothing and it never ran. Either way it saw nothing.
      name: 'Codex: a read as the last command of a failed && chain, then an update patch',
      input: commandThenPatch("rg -n 'spec' src && sed -n '1,100p' src/app.ts", 1, ''),
      errors: [{ messageId: 'unread', line: 5 }],
    },
    {
      // Only probe's extract_code is known to read: a tool of the same name from another MCP
      // server (or from none) says nothing about what it did.
      name: "Codex: another server's extract_code, then an update patch",
      input: new CodexRollout()
        .user('go')
        .item('response_item', {
          type: 'function_call',
          name: 'extract_code',
          namespace: 'mcp__other',
          arguments: JSON.stringify({ path: '/home/dev/proj', files: ['/home/dev/proj/src/app.ts'] }),
          call_id: 'c1',
        })
        .output('c1', 'done')
        .patch('c2', updatePatch('/home/dev/proj/src/app.ts'))
        .output('c2', 'Done!', true)
        .text(),
      errors: [{ messageId: 'unread', line: 5 }],
    },
    {
      name: 'Codex: a loop over another directory\'s files, then an update patch',
      input: commandThenPatch('for f in python/prompts/*.md; do cat "$f"; done', 0, 'x\n', 'python/agents/review.json', '{}', '{ }'),
      errors: [{ messageId: 'unread', line: 5 }],
    },
    {
      name: 'Codex on Windows: a listing read one by one, then a patch of a file below its folder',
      input: regionsThenPatch('Script/Blueprint/Prefabs/Regions/Old/Aire03.lua'),
      errors: [{ messageId: 'unread', line: 5 }],
    },
    {
      name: 'Codex: update patch without a read',
      input: new CodexRollout().user('go').patch('c2', updatePatch('src/app.ts')).output('c2', 'Done!', true).text(),
      errors: [{ messageId: 'unread', line: 3 }],
    },
  ],
});

ruleTester(parallelReadWrite, {
  valid: [
    { name: 'read in one turn, write in the next', input: readThenEdit },
    {
      // Claude Code ran the Read while the message streamed and recorded its result before the
      // Edit's block: the read was over before the write was issued.
      // apply_patch runs alone: the read after it in the batch waits for it.
      name: 'Codex: a patch and a read of the same file in one batch',
      input: new CodexRollout()
        .user('go')
        .patch('c1', '*** Begin Patch\n*** Add File: notes.md\n+hello\n*** End Patch')
        .exec('c2', 'sed -n 1,40p notes.md')
        .output('c1', 'Done!', true)
        .output('c2', 'Exit code: 0\nhello')
        .text(),
    },
    {
      name: 'Claude Code: the read finished before the write of the same message was issued',
      input: cc().call('m1', A, 'Read', { file_path: f }).readResult(A, f, v1).call('m1', B, 'Edit', { file_path: f, old_string: 'two', new_string: '2' }).editResult(B, f, v1, 'two', '2').text(),
    },
    {
      // Claude Code runs a write alone, after the calls before it in the message and before those
      // after it (an Edit is not concurrency-safe; a Read is): the read saw the file as it was.
      name: 'Claude Code: a read and an edit of the file in one message',
      input: cc().call('m1', A, 'Read', { file_path: f }).call('m1', B, 'Edit', { file_path: f, old_string: 'two', new_string: '2' }).readResult(A, f, v1).editResult(B, f, v1, 'two', '2').text(),
    },
    {
      // The same with the write first and a shell read after it (set 31's shape): the read saw the write.
      name: 'Claude Code: a shell write, then a shell read of the file, in one message',
      input: cc()
        .call('m1', A, 'Bash', { command: "sed -i 's/two/2/' src/app.ts" })
        .call('m1', B, 'Bash', { command: 'cat src/app.ts' })
        .result(A, '')
        .result(B, 'one\n2')
        .text(),
    },
  ],
  invalid: [
    {
      // Codex runs shell commands of one batch side by side.
      name: 'Codex: a read, then a write of the same file, in one batch',
      input: new CodexRollout().user('go').exec('c1', 'cat src/app.ts').exec('c2', "sed -i 's/two/2/' src/app.ts").output('c2', 'Exit code: 0').output('c1', 'Exit code: 0\none\n2').text(),
      errors: [{ messageId: 'race', line: 4, severity: 'warning', message: /^exec_command writes src\/app\.ts .* on line 3 that reads it/ }],
    },
    {
      // The later call of the batch is the read: it is the one reported, as a read.
      name: 'Codex: a write, then a read of the same file, in one batch',
      input: new CodexRollout().user('go').exec('c1', "sed -i 's/two/2/' src/app.ts").exec('c2', 'cat src/app.ts').output('c1', 'Exit code: 0').output('c2', 'Exit code: 0\none').text(),
      errors: [{ messageId: 'race', line: 4, severity: 'warning', message: /^exec_command reads src\/app\.ts .* on line 3 that writes it/ }],
    },
  ],
});

/** Codex: two patches of one file in one batch (no output between the calls). */
/** A PowerShell listing of a folder's `*.lua` read file by file (Get-Content of `$_.FullName`), then a patch of `file`. */
function regionsThenPatch(file: string): string {
  return new CodexRollout('019bce9f-0a40-79e2-8351-8818e8487fb6', 'C:\\w\\chongzita')
    .user('go')
    .exec('c1', "Get-ChildItem -LiteralPath 'Script\\Blueprint\\Prefabs\\Regions' -Filter '*.lua' | ForEach-Object { Write-Output ('### '+$_.Name); Get-Content -LiteralPath $_.FullName -Encoding UTF8 }")
    .output('c1', 'Exit code: 0\nWall time: 0.3 seconds\nOutput:\n### Aire03.lua\r\nlocal Aire03 = {}\r\n')
    .patch('c2', updatePatch(file, 'local Aire03 = {}', 'local Aire03 = { on = true }'))
    .output('c2', 'Done!', true)
    .text();
}

const codexPatches = new CodexRollout()
  .user('go')
  .shell('c0', 'cat src/app.ts')
  .output('c0', v1)
  .patch('c1', updatePatch('src/app.ts'))
  .patch('c2', updatePatch('src/app.ts', 'four', '4'))
  .output('c1', 'Done!', true)
  .output('c2', 'Done!', true);

/** Codex: two shell writes of one file in one batch. */
const codexShellWrites = new CodexRollout().user('go').exec('c1', 'echo a > src/app.ts').exec('c2', 'echo b > src/app.ts').output('c1', 'Exit code: 0').output('c2', 'Exit code: 0');

/** A Git Bash loop over notes, continued with lone backslashes, appending a section to each (a real 2.1.114 command's shape). */
function appendLinks(notes: readonly string[]): string {
  const list = notes.map((n) => `  "${n}"`).join(' \\\n');
  return `cd "E:/notes"\n\nfor f in \\\n${list}; do\n  if [ -f "\${f}.md" ] && ! grep -q "Related" "\${f}.md" 2>/dev/null; then\n    cat >> "\${f}.md" << 'INNEREOF'\n\n## Related\n\n- [[2026-01-15_WhatsApp]]\nINNEREOF\n    echo "Done: $f"\n  fi\ndone`;
}

ruleTester(parallelWriteWrite, {
  valid: [
    // apply_patch runs alone, in order: the second patch applies to what the first left, or fails.
    { name: 'Codex: two update patches of one file in one batch', input: codexPatches.text() },
    { name: 'two edits in two turns', input: cc().read('m1', A, f, v1).edit('m2', B, f, v1, 'two', '2').edit('m3', C, f, v1.replace('two', '2'), 'four', '4').text() },
    {
      // Claude Code runs them one after the other; the second applies to what the first left
      // (its originalFile has the first edit), as in the real sessions this shape comes from.
      name: 'Claude Code: two edits in one batch',
      input: cc().read('m0', 'toolu_read', f, v1).call('m1', A, 'Edit', { file_path: f, old_string: 'two', new_string: '2' }).call('m1', B, 'Edit', { file_path: f, old_string: 'four', new_string: '4' }).editResult(A, f, v1, 'two', '2').editResult(B, f, v1.replace('two', '2'), 'four', '4').text(),
    },
    {
      // Twenty-eighth set (Claude Code 2.1.114 on Windows, Git Bash): two loops in one batch
      // append a links section to notes, one note in both lists. Run in order, the second
      // append goes after the first's text: nothing is undone. (Each list is continued over
      // lines with a lone backslash, which must not read as a word: `${f}.md` was `⏎.md`.)
      name: 'Claude Code: two shell appends of one file in one batch',
      input: new ClaudeTranscript('aaaaaaaa-0000-4000-8000-000000000028', 'E:\\notes')
        .user('link the notes')
        .call('m1', A, 'Bash', { command: appendLinks(['2026-03-02_a', '2026-01-15_WhatsApp']) })
        .call('m1', B, 'Bash', { command: appendLinks(['2025-09-15_b', '2026-01-15_WhatsApp']) })
        .result(A, 'Done: 2026-03-02_a\nDone: 2026-01-15_WhatsApp')
        .result(B, 'Done: 2025-09-15_b')
        .text(),
    },
    {
      // Fortieth set (Claude Code 2.0.59): an `Edit` of a file, then, in the same message,
      // `npx prettier --write` of it and another. Run in order, Prettier reads the file as the
      // edit left it and writes it back formatted (here "(unchanged)"): the edit is not undone.
      name: 'Claude Code: an edit, then a formatter run on the file in one batch',
      input: cc()
        .read('m0', 'toolu_read', f, v1)
        .call('m1', A, 'Edit', { file_path: f, old_string: 'two', new_string: '2' })
        .call('m1', B, 'Bash', { command: `npx prettier --write ${f} /home/dev/proj/src/other.ts`, description: 'Format both files' })
        .editResult(A, f, v1, 'two', '2')
        .result(B, 'src/app.ts 35ms (unchanged)\nsrc/other.ts 77ms (unchanged)')
        .text(),
    },
    {
      // Forty-seventh set (Claude Code 2.0.53 on Linux, pnpm): `pnpm add tinify` and
      // `pnpm add -D @types/tinify` in one message. Run in order, the second reads package.json
      // as the first left it and saves its own entry beside the first's: nothing is undone.
      name: 'Claude Code: two package-manager adds in one batch',
      input: cc()
        .call('m1', A, 'Bash', { command: 'pnpm add tinify', description: 'Install the SDK' })
        .call('m1', B, 'Bash', { command: 'pnpm add -D @types/tinify', description: 'Install its types' })
        .result(A, 'Packages: +4\n++++\ndependencies:\n+ tinify 1.8.2\n\nDone in 2.6s using pnpm v10.23.0')
        .result(B, 'Packages: +1\n+\ndevDependencies:\n+ @types/node 22.0.0\n\nDone in 1.9s using pnpm v10.23.0')
        .text(),
    },
    {
      // The same session: an `Edit` of package.json's scripts, then `pnpm add -D concurrently`
      // in the same message, which keeps the edited scripts.
      name: 'Claude Code: an edit of package.json, then a package-manager add in one batch',
      input: cc()
        .read('m0', 'toolu_read', '/home/dev/proj/package.json', pkg)
        .call('m1', A, 'Edit', { file_path: '/home/dev/proj/package.json', old_string: '"dev": "vite"', new_string: '"dev": "concurrently vite node server.js"' })
        .call('m1', B, 'Bash', { command: 'pnpm add -D concurrently' })
        .editResult(A, '/home/dev/proj/package.json', pkg, '"dev": "vite"', '"dev": "concurrently vite node server.js"')
        .result(B, 'devDependencies:\n+ concurrently 9.2.1\n\nDone in 1.2s using pnpm v10.23.0')
        .text(),
    },
  ],
  invalid: [
    {
      // Where shell commands may run side by side (Codex), two package managers read
      // package.json at once, and the later write drops the other's entry.
      name: 'Codex: two package-manager adds in one batch',
      input: new CodexRollout().user('go').exec('c1', 'pnpm add tinify').exec('c2', 'pnpm add -D @types/tinify').output('c1', 'Exit code: 0').output('c2', 'Exit code: 0').text(),
      errors: [{ messageId: 'race', line: 4, severity: 'error', message: /^exec_command writes package\.json in the same parallel batch as the exec_command call on line 3/ }],
    },
    {
      // A whole-file write after the package manager's still puts back what it was written from.
      name: 'Claude Code: a package-manager add, then a whole-file write of package.json in one batch',
      input: cc()
        .read('m0', 'toolu_read', '/home/dev/proj/package.json', pkg)
        .call('m1', A, 'Bash', { command: 'pnpm add tinify' })
        .call('m1', B, 'Write', { file_path: '/home/dev/proj/package.json', content: pkg })
        .result(A, 'dependencies:\n+ tinify 1.8.2')
        .result(B, 'ok')
        .text(),
      errors: [{ messageId: 'overwrite', line: 5, severity: 'error', message: /^Write replaces package\.json after the Bash call on line 4/ }],
    },
    {
      // Where shell commands may run side by side (Codex), a formatter still races the write.

      name: 'Codex: a shell write and a formatter run on the file in one batch',
      input: new CodexRollout().user('go').exec('c1', "sed -i 's/two/2/' src/app.ts").exec('c2', 'npx prettier --write src/app.ts').output('c1', 'Exit code: 0').output('c2', 'Exit code: 0').text(),
      errors: [{ messageId: 'race', line: 4, severity: 'error', message: /^exec_command writes src\/app\.ts in the same parallel batch as the exec_command call on line 3/ }],
    },
    {
      // The same batch with the second loop's append a `>`: it replaces what the first wrote.
      name: 'Claude Code: a shell append, then a shell write of the file in one batch',
      input: new ClaudeTranscript('aaaaaaaa-0000-4000-8000-000000000028', 'E:\\notes')
        .user('link the notes')
        .call('m1', A, 'Bash', { command: appendLinks(['2026-03-02_a', '2026-01-15_WhatsApp']) })
        .call('m1', B, 'Bash', { command: appendLinks(['2025-09-15_b', '2026-01-15_WhatsApp']).replace('cat >>', 'cat >') })
        .result(A, 'Done: 2026-03-02_a\nDone: 2026-01-15_WhatsApp')
        .result(B, 'Done: 2025-09-15_b')
        .text(),
      errors: [{ messageId: 'overwrite', line: 3, severity: 'error', message: /^Bash replaces 2026-01-15_WhatsApp\.md after the Bash call on line 2/ }],
    },
    {
      name: 'Claude Code: an edit, then a whole-file write in one batch',
      input: cc()
        .read('m0', 'toolu_read', f, v1)
        .call('m1', A, 'Edit', { file_path: f, old_string: 'two', new_string: '2' })
        .call('m1', B, 'Write', { file_path: f, content: 'all new\n' })
        .editResult(A, f, v1, 'two', '2')
        .result(B, 'ok', { toolUseResult: { type: 'update', filePath: f, content: 'all new\n', structuredPatch: [], originalFile: v1.replace('two', '2') } })
        .text(),
      errors: [{ messageId: 'overwrite', line: 5, severity: 'error' }],
    },
    {
      name: 'Codex: two shell writes of one file in one batch (shell commands may run side by side)',
      input: codexShellWrites.text(),
      errors: [{ messageId: 'race', line: codexShellWrites.lines.length - 2 }],
    },
  ],
});

/**
 * Claude Code edits a memory file and rewrites its `modified:` stamp too (`memdirStamped`;
 * the stamp's hunk is in structuredPatch, not in old_string/new_string). The next edit's
 * originalFile holds the new stamp: the session's own change (a real 2.1.x session's shape).
 */
function memoryEdits(stamped: boolean): string {
  const mem = '/home/dev/.claude/projects/-home-dev-proj/memory/RESUME-HERE.md';
  const v0 = '---\nname: resume-here\nmodified: 2026-07-23T20:52:30.771Z\n---\n\n# RESUME HERE\n- car 31 review\n\n## Next\n- #30\n';
  const v1 = v0.replace('20:52:30.771Z', '21:04:14.552Z').replace('car 31', 'car 26');
  const stamp = (from: string, to: string): { oldStart: number; oldLines: number; newStart: number; newLines: number; lines: string[] } => ({
    oldStart: 2,
    oldLines: 3,
    newStart: 2,
    newLines: 3,
    lines: [' name: resume-here', `-modified: ${from}`, `+modified: ${to}`, ' ---'],
  });
  const edit = (original: string, oldString: string, newString: string, hunks: object[]): Record<string, unknown> => ({
    filePath: mem,
    oldString,
    newString,
    originalFile: original,
    structuredPatch: hunks,
    userModified: false,
    replaceAll: false,
    ...(stamped ? { memdirStamped: true } : {}),
  });
  return cc()
    .read('m1', A, mem, v0)
    .call('m2', B, 'Edit', { file_path: mem, old_string: '- car 31 review', new_string: '- car 26 review' })
    .result(B, 'updated', {
      toolUseResult: edit(v0, '- car 31 review', '- car 26 review', [
        ...(stamped ? [stamp('2026-07-23T20:52:30.771Z', '2026-07-23T21:04:14.552Z')] : []),
        { oldStart: 6, oldLines: 2, newStart: 6, newLines: 2, lines: [' # RESUME HERE', '-- car 31 review', '+- car 26 review'] },
      ]),
    })
    .call('m3', C, 'Edit', { file_path: mem, old_string: '- #30', new_string: '- #33' })
    .result(C, 'updated', {
      toolUseResult: edit(v1, '- #30', '- #33', [
        ...(stamped ? [stamp('2026-07-23T21:04:14.552Z', '2026-07-23T21:05:01.151Z')] : []),
        { oldStart: 9, oldLines: 2, newStart: 9, newLines: 2, lines: [' ## Next', '-- #30', '+- #33'] },
      ]),
    })
    .text();
}

/**
 * The session wrote a file, its own formatter run joined lines 4-6 into one (the session saw
 * only "src/flow.tsx 40ms"), a Grep showed the joined line (`4:…`, or `src/flow.tsx:4:…` when a
 * folder was searched), and the session edited exactly that line (a real 2.1.x session's shape).
 */
/**
 * The session read src/app.ts, ran a shell command (its output; `failed`: an error result), then
 * edited line 5 of the file as another writer had left it (line 2 changed).
 */
function shellThenEdit(command: string, output: string, failed = false): string {
  const t = cc().read('m1', A, f, v1);
  if (failed) {
    t.call('m2', B, 'Bash', { command, description: 'run' }).result(B, output, { isError: true });
  } else {
    t.bash('m2', B, command, output);
  }
  return t.edit('m3', C, f, 'one\nTWO\nthree\nfour\nfive\n', 'five', '5').text();
}

/** The session wrote src/flow.tsx, and its own formatter run joined lines 4-6 into `joined`. */
function formattedFlow(): { t: ClaudeTranscript; flow: string; joined: string; formatted: string } {
  const flow = '/home/dev/proj/src/flow.tsx';
  const written = 'export function Flow() {\n  return (\n    <Lines\n      containerRef={\n        ref as React.RefObject<HTMLElement>\n      }\n    />\n  )\n}\n';
  const joined = '      containerRef={ref as React.RefObject<HTMLElement>}';
  const formatted = written.replace('      containerRef={\n        ref as React.RefObject<HTMLElement>\n      }', joined);
  const t = cc().write('m1', A, flow, written, null).bash('m2', B, 'bun run check 2>&1', '$ prettier --write . && eslint --fix\nsrc/flow.tsx 40ms');
  return { t, flow, joined, formatted };
}

/** The same formatter run, then (`linted`) ruff's diagnostic showing the joined line, then an edit of line 1. */
function formattedThenLinted(linted: boolean): string {
  const { t, flow, joined, formatted } = formattedFlow();
  if (linted) {
    // ruff exits 1 when it finds anything: the output is the failed call's.
    const output = `F841 Local variable \`ref\` is assigned to but never used\n --> src/flow.tsx:4:7\n  |\n3 |     <Lines\n4 | ${joined}\n  |       ^^^^^^^^^^^^\n5 |     />\n  |\nhelp: Remove assignment\n\nFound 1 error.`;
    t.call('m3', C, 'Bash', { command: 'ruff check src/flow.tsx', description: 'lint' }).result(C, `Exit code 1\n${output}`, { isError: true });
  }
  return t.edit('m4', 'toolu_01DDDDDDDDDDDDDDDDDDDDDD', flow, formatted, 'export function Flow() {', 'export function Flow(): JSX.Element {').text();
}

function formattedThenGrepped(grep: 'file' | 'folder' | 'none'): string {
  const { t, flow, joined, formatted } = formattedFlow();
  if (grep !== 'none') {
    const output = grep === 'file' ? `4:${joined}` : `src/flow.tsx:4:${joined}\nsrc/other.tsx:9:  ref as React.RefObject<HTMLDivElement>`;
    t.call('m3', C, 'Grep', { pattern: 'ref as React', path: grep === 'file' ? flow : '/home/dev/proj/src', output_mode: 'content', '-n': true });
    t.result(C, output, { toolUseResult: { mode: 'content', numFiles: 0, filenames: [], content: output, numLines: 1 } });
  }
  return t.edit('m4', 'toolu_01DDDDDDDDDDDDDDDDDDDDDD', flow, formatted, joined, joined.replace('HTMLElement', 'HTMLElement | null')).text();
}

/**
 * Claude Code 2.1.138 on Windows (Sascha-Zielke/Claude, thirty-fifth set): its PowerShell tool
 * "touched" a page so a watcher would rebuild it, reading it and writing it back with a space
 * added at its end (.NET's File methods); the next Edit recorded that space on the last line.
 * `tool`: the tool the command ran in.
 */
function touchedThenEdited(tool: string): string {
  const page = 'D:\\Sites\\includes\\page.php';
  const command = `$f = "${page}"\n$content = [System.IO.File]::ReadAllText($f)\n[System.IO.File]::WriteAllText($f, $content + " ")\nWrite-Host "Touched"`;
  return new ClaudeTranscript(undefined, 'D:\\Sites')
    .user('make the nav transparent')
    .read('m1', A, page, '<?php\n$a = 1;\n    ')
    .call('m2', B, tool, { command, description: 'Touch page.php to trigger the watcher' })
    .result(B, 'Touched')
    .edit('m3', C, page, '<?php\n$a = 1;\n     ', '$a = 1;', '$a = 2;')
    .text();
}

ruleTester(staleWrite, {
  valid: [
    { name: "Claude Code's PowerShell tool wrote the file with .NET's WriteAllText before the edit", input: touchedThenEdited('PowerShell') },
    {
      // Forty-fifth set (MatthewBrownie/my-claude-setup, Claude Code 2.1.81 on Windows): the
      // session wrote package.json, later added a dependency with `npm install`, which wrote the
      // file whole again (one more line, its inline arrays laid out one item a line), read its
      // first lines and edited a script there. npm's rewrite was the session's own command.
      name: 'Claude Code: package.json rewritten by the session\'s own `npm install <pkg>`, then edited',
      input: cc()
        .write('m1', A, '/home/dev/proj/package.json', '{\n  "name": "x",\n  "files": ["out/**"]\n}\n', null)
        .bash('m2', B, 'cd /home/dev/proj && npm install left-pad 2>&1', 'added 1 package')
        .read('m3', C, '/home/dev/proj/package.json', '{\n  "name": "x",\n  "dependencies": {\n    "left-pad": "^1.3.0"\n  },\n  "files": [\n    "out/**"\n  ]\n}\n', { offset: 1, limit: 2 })
        .edit('m4', 'toolu_01DDDDDDDDDDDDDDDDDDDDDD', '/home/dev/proj/package.json', '{\n  "name": "x",\n  "dependencies": {\n    "left-pad": "^1.3.0"\n  },\n  "files": [\n    "out/**"\n  ]\n}\n', '"name": "x"', '"name": "y"')
        .text(),
    },
    {
      // The edit's old_string quotes the changed line as it is now: the session stated it, and
      // the edit applies only where old_string matches exactly.
      name: "Claude Code: an edit whose old_string quotes the line that changed since the session's read",
      input: cc().read('m1', A, f, v1).edit('m2', B, f, 'one\nTWO\nthree\nfour\nfive\n', 'TWO\nthree', '2\n3').text(),
    },
    {
      // Claude Code on Windows: Read shows the file without its byte-order mark, originalFile keeps it.
      name: "Claude Code: a file with a UTF-8 byte-order mark, which Read leaves out and the edit's originalFile keeps",
      input: cc().read('m1', A, f, v1).edit('m2', B, f, `\uFEFF${v1}`, 'two', '2').text(),
    },
    {
      // Claude Code 1.0.29 kept the mark in both.
      name: 'Claude Code: a file with a UTF-8 byte-order mark in both the Read and the edit’s originalFile',
      input: cc().read('m1', A, f, `\uFEFF${v1}`).edit('m2', B, f, `\uFEFF${v1}`, 'two', '2').text(),
    },
    {
      // Forty-second set (mango319/myclaude, Claude Code 2.1.17 on Windows): Read showed a UTF-16LE
      // file (with its mark) as UTF-8, two U+FFFD and a NUL after each character; the Write's
      // originalFile decoded it. The file had not changed (the `ls` before gave its size).
      name: 'Claude Code: a UTF-16 file that Read showed as UTF-8 and the Write’s originalFile decoded',
      input: win().read('m1', A, key, utf16AsUtf8('c0aff213\r\n')).write('m2', B, key, '9tpQ3+hC', '\uFEFFc0aff213\r\n').text(),
    },
    { name: 'a Grep of the file showed the changed line as it is', input: formattedThenGrepped('file') },
    {
      // Thirty-seventh set (Claude Code 2.1.37): the session's own `npx ultracite fix` (Biome)
      // sorted the imports of the file it had written, then it edited another line.
      name: "the session's own `npx ultracite fix` on the file before the edit",
      input: shellThenEdit('npx ultracite fix src/app.ts', 'Checked 1 file in 32ms. Fixed 1 file.'),
    },
    {
      // ruff exits 1 when lint errors remain, after fixing what it could (twentieth set): the
      // session's own rewrite all the same.
      name: "Claude Code: the session's own fixer in a Bash call that failed",
      input: shellThenEdit('ruff check src/app.ts --fix', 'Exit code 1\nFound 3 errors (2 fixed, 1 remaining).', true),
    },
    {
      // sed -i through a pattern that matches the file: the session's own change, maybe.
      name: "Claude Code: the session's sed -i on src/*.ts",
      input: shellThenEdit("sed -i 's/two/TWO/' src/*.ts", ''),
    },
    {
      // The sed ran; what failed may be the make after it.
      name: "Claude Code: the session's sed -i, then a make that failed",
      input: shellThenEdit("sed -i 's/two/TWO/' src/app.ts && make", 'Exit code 2\nmake: *** [all] Error 1', true),
    },
    {
      // ruff on the folder, through a Windows venv's python.exe (twentieth set).
      name: "Claude Code: the session's own formatter on the file's folder",
      input: shellThenEdit('.venv/Scripts/python.exe -m ruff format src/', '1 file reformatted'),
    },
    {
      // A sub-agent rewrote lines; the session reviewed them with git diff, then edited one.
      name: 'a git diff of the working tree showed the changed line as it is',
      input: cc()
        .read('m1', A, f, v1)
        .bash('m2', B, 'git diff src/app.ts', 'diff --git a/src/app.ts b/src/app.ts\n--- a/src/app.ts\n+++ b/src/app.ts\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO!\n three\n')
        .edit('m3', C, f, 'one\nTWO!\nthree\nfour\nfive\n', 'TWO!', '2')
        .text(),
    },
    { name: 'a Grep of the folder showed the changed line as it is (path:N:text)', input: formattedThenGrepped('folder') },
    // ruff, rustc and clippy print the lines around a diagnostic, numbered (twentieth set): the
    // session saw the joined line as it is, then edited another line of the file.
    { name: 'a linter’s diagnostic snippet showed the changed line as it is (NNN | text)', input: formattedThenLinted(true) },
    {
      // With no Grep before it, the edit's old_string still quotes the joined line as it is: an
      // edit applies only where old_string matches exactly, so the session stated that line.
      name: "the same edit with no Grep before it: its old_string quotes the joined line",
      input: formattedThenGrepped('none'),
    },
    { name: 'Claude Code re-stamps a memory file it edits (memdirStamped): its own change', input: memoryEdits(true) },
    {
      // The worktree's branch may hold the file as it was before the session's last write: a
      // copy the session never saw as such, so no staleness is claimed on it.
      name: "Claude Code: a worktree's copy that differs from what the session wrote in the main checkout",
      input: new ClaudeTranscript('aaaaaaaa-0000-4000-8000-000000000001', '/home/dev/proj')
        .user('go')
        .write('m1', A, '/home/dev/proj/docs/spec.md', v1, null)
        .inWorktree('/home/dev/proj/.claude/worktrees/wt')
        .edit('m2', B, '/home/dev/proj/.claude/worktrees/wt/docs/spec.md', 'one\nTWO\nthree\n', 'TWO', '2')
        .text(),
    },
    {
      name: "Claude Code: in a sub-agent's file, the note that a file changed (every line there is a sidechain line)",
      input: subAgent().read('m1', A, f, v1).raw(shown(f, '4\tfour\n5\tFIVE\n', true)).edit('m2', B, f, 'one\ntwo\nthree\nfour\nFIVE\n', 'two', '2').text(),
    },
    { name: 'edit what was read', input: readThenEdit },
    { name: 'two edits in a row on own content', input: cc().read('m1', A, f, v1).edit('m2', B, f, v1, 'two', '2').edit('m3', C, f, v1.replace('two', '2'), 'four', '4').text() },
    {
      name: 'a partial read saw the changed lines',
      input: cc().read('m1', A, f, v1).read('m2', B, f, 'one\nTWO\nthree\nfour\nfive\n', { offset: 2, limit: 2 }).edit('m3', C, f, 'one\nTWO\nthree\nfour\nfive\n', 'three', '3').text(),
    },
    {
      name: 'the person named the changed file with @: the model saw it as it is',
      input: cc().read('m1', A, f, v1).user('I changed @src/app.ts, have a look').edit('m2', B, f, 'one\nTWO!\nthree\nfour\nfive\n', 'TWO!', '2').text(),
    },
    {
      // The session read the changed file back with the shell (no content in the transcript):
      // it saw the change, so the edit is not applied on top of something it never saw.
      name: 'a shell read after the change: the session saw the file as it is',
      input: cc().read('m1', A, f, v1).bash('m2', C, `awk 'NR>=1{print NR": "$0}' ${f}`, '1: one\n2: TWO!').edit('m3', B, f, 'one\nTWO!\nthree\nfour\nfive\n', 'TWO!', '2').text(),
    },
    {
      // Claude Code deletes the line break after old_string too when new_string is empty: the
      // next edit's originalFile has no blank line there (a real 2.1.x session's shape).
      name: 'an edit that deletes a line, then another edit of the result',
      input: cc().read('m1', A, f, v1).edit('m2', B, f, v1, 'two', '').edit('m3', C, f, 'one\nthree\nfour\nfive\n', 'four', '4').text(),
    },
    {
      // A line was deleted behind the session's back, then a partial read showed the lines on
      // both sides of the gap together, as they are now: it saw the deletion.
      name: 'a deletion shown by a later partial read of the lines around it',
      input: cc()
        .read('m1', A, f, v1)
        .read('m2', B, f, 'one\nthree\nfour\nfive\n', { offset: 1, limit: 2 })
        .edit('m3', C, f, 'one\nthree\nfour\nfive\n', 'three', '3')
        .text(),
    },
    {
      // Claude Code records a Read with offset 0 as startLine 0; its content starts at line 1
      // (a real 2.1.42 session: taken literally, every line compared one off).
      name: 'a partial read with offset 0 (startLine 0), then an edit elsewhere',
      input: cc()
        .call('m1', A, 'Read', { file_path: f, offset: 0, limit: 3 })
        .result(A, 'one\ntwo\nthree', { toolUseResult: { type: 'text', file: { filePath: f, content: 'one\ntwo\nthree', numLines: 3, startLine: 0, totalLines: 5 } } })
        .edit('m2', B, f, v1, 'two', '2')
        .text(),
    },
    {
      // Claude Code 2.0.x reads a file's last lines with a negative offset and records the
      // Read's startLine as that offset (-2), its lines numbered -2 and -1: they are lines 4–5
      // (a real 2.0.2 session, lllttt06/claude-code-cookbook 26522fd1, `offset: -50` of an .arb
      // file of 808: taken as lines 1–50, every one of them "changed").
      name: 'a read of the last lines (negative offset, startLine -2), then an edit elsewhere',
      input: cc()
        .call('m1', A, 'Read', { file_path: f, offset: -2, limit: 2 })
        .result(A, '    -2→four\n    -1→five', { toolUseResult: { type: 'text', file: { filePath: f, content: 'four\nfive', numLines: 2, startLine: -2, totalLines: 6 } } })
        .edit('m2', B, f, v1, 'one', '1')
        .text(),
    },
    {
      // A real shape (Claude Code 2.1.49): the session's own git commands put back the content
      // it had read, under its own edit; it then redid the edit.
      name: 'own git stash / checkout / pull: the content is unknown, not stale',
      input: cc()
        .read('m1', A, f, v1)
        .edit('m2', B, f, v1, 'two', '2')
        .bash('m3', 'toolu_01GGGGGGGGGGGGGGGGGGGGGG', 'git stash && git checkout main && git pull', 'Saved working directory…')
        .edit('m4', C, f, v1, 'two', '2')
        .text(),
    },
    {
      // A real 2.1.x shape: a hook's formatter changed line 5; Claude Code showed the model the
      // changed lines (attachment edited_text_file) before its next edit.
      name: 'the change shown to the model by Claude Code (edited_text_file), then an edit',
      input: cc().read('m1', A, f, v1).raw(shown(f, '4\tfour\n5\tFIVE\n...\n')).edit('m2', B, f, 'one\ntwo\nthree\nfour\nFIVE\n', 'two', '2').text(),
    },
    {
      // A real Claude Code Bash call: a Python one-liner rewrote the file.
      name: "own python -c write makes the content unknown, not stale",
      input: cc()
        .read('m1', A, f, v1)
        .bash('m2', B, `python3 -c "c = open('${f}').read(); open('${f}', 'w').write(c.replace('two', '2'))"`, '')
        .edit('m3', C, f, 'one\n2\nthree\nfour\nfive\n', 'four', '4')
        .text(),
    },
    {
      name: 'own shell write makes the content unknown, not stale',
      input: cc().read('m1', A, f, v1).bash('m2', B, `sed -i 's/two/2/' ${f}`).edit('m3', C, f, 'one\n2\nthree\nfour\nfive\n', 'four', '4').text(),
    },
  ],
  invalid: [
    {
      // The session read the file, someone changed line 3, the session's edit of line 1 landed on
      // top (reported as not touching it), and the session then wrote the whole file from what it
      // had read: the Write put line 3 back as it was, erasing the change. Its originalFile is
      // what the edit left, so only the edit's finding tells that the session never saw line 3.
      name: 'an edit over a change it never saw, then a whole Write from its old read: the Write overwrites the change',
      input: cc().read('m1', A, f, v1).edit('m2', B, f, 'one\ntwo\nTHREE\nfour\nfive\n', 'one', '1').write('m3', C, f, '1\ntwo\nthree\nfour\nfive\nsix\n', '1\ntwo\nTHREE\nfour\nfive\n').text(),
      errors: [
        { messageId: 'aside', line: 4, severity: 'warning' },
        { messageId: 'overlap', line: 6, severity: 'error', message: /^Write overwrote a change to src\/app\.ts that this session never saw: file line 3 changed after the session last read the file \(transcript line 3\)/ },
      ],
    },
    {
      // The same, with the edit adding a line above the change and a second edit elsewhere
      // before the Write: the line the session never saw is followed to where it is.
      name: 'an edit over a change it never saw, more edits, then a whole Write that rewrites the moved line',
      input: cc()
        .read('m1', A, f, v1)
        .edit('m2', B, f, 'one\ntwo\nTHREE\nfour\nfive\n', 'one', '1\n1b')
        .edit('m3', C, f, '1\n1b\ntwo\nTHREE\nfour\nfive\n', 'five', '5')
        .write('m4', 'toolu_01DDDDDDDDDDDDDDDDDDDDDD', f, '1\n1b\ntwo\nthree\nfour\n5\n', '1\n1b\ntwo\nTHREE\nfour\n5\n')
        .text(),
      errors: [
        { messageId: 'aside', line: 4 },
        { messageId: 'overlap', line: 8, severity: 'error', message: /file line 4 changed after the session last read the file \(transcript line 3\)/ },
      ],
    },
    {
      // Written back as it is, the change is not lost: only the edit's finding.
      name: 'an edit over a change it never saw, then a whole Write that keeps the changed line',
      input: cc().read('m1', A, f, v1).edit('m2', B, f, 'one\ntwo\nTHREE\nfour\nfive\n', 'one', '1').write('m3', C, f, '1\ntwo\nTHREE\nfour\nfive\nsix\n', '1\ntwo\nTHREE\nfour\nfive\n').text(),
      errors: [{ messageId: 'aside', line: 4 }],
    },
    {
      // A read of the changed line (whole or partial) after the edit: the session saw it, and its
      // Write changing it is its own decision. So is an edit that quoted it.
      name: 'an edit over a change it never saw, then the changed line read or quoted, then a whole Write: only the edit’s finding',
      input: cc()
        .read('m1', A, f, v1)
        .edit('m2', B, f, 'one\ntwo\nTHREE\nfour\nfive\n', 'one', '1')
        .read('m3', C, f, '1\ntwo\nTHREE\nfour\nfive\n', { offset: 2, limit: 2 })
        .write('m4', 'toolu_01DDDDDDDDDDDDDDDDDDDDDD', f, '1\ntwo\nthree\nfour\nfive\n', '1\ntwo\nTHREE\nfour\nfive\n')
        .read('m5', 'toolu_01EEEEEEEEEEEEEEEEEEEEEE', '/home/dev/proj/b.ts', v1)
        .edit('m6', 'toolu_01FFFFFFFFFFFFFFFFFFFFFF', '/home/dev/proj/b.ts', 'one\ntwo\nTHREE\nfour\nfive\n', 'one', '1')
        .edit('m7', 'toolu_01GGGGGGGGGGGGGGGGGGGGGG', '/home/dev/proj/b.ts', '1\ntwo\nTHREE\nfour\nfive\n', 'THREE', 'three')
        .write('m8', 'toolu_01HHHHHHHHHHHHHHHHHHHHHH', '/home/dev/proj/b.ts', '1\ntwo\n3\nfour\nfive\n', '1\ntwo\nthree\nfour\nfive\n')
        .text(),
      errors: [
        { messageId: 'aside', line: 4 },
        { messageId: 'aside', line: 12 },
      ],
    },
    {
      // A partial read showed the changed line as it is, then another edit of the file: the line
      // stays seen, though the edit's own result replaces what the session knows of the file
      // (helper's validation, entireio/cli: a false overlap on a line the Write deleted).
      name: 'an edit over a change it never saw, the changed line read, another edit, then a whole Write: only the edit’s finding',
      input: cc()
        .read('m1', A, f, v1)
        .edit('m2', B, f, 'one\ntwo\nTHREE\nfour\nfive\n', 'one', '1')
        .read('m3', C, f, '1\ntwo\nTHREE\nfour\nfive\n', { offset: 3, limit: 1 })
        .edit('m4', 'toolu_01DDDDDDDDDDDDDDDDDDDDDD', f, '1\ntwo\nTHREE\nfour\nfive\n', 'five', '5')
        .write('m5', 'toolu_01EEEEEEEEEEEEEEEEEEEEEE', f, '1\ntwo\nfour\n5\n', '1\ntwo\nTHREE\nfour\n5\n')
        .text(),
      errors: [{ messageId: 'aside', line: 4 }],
    },
    {
      // Two lines changed unseen; the Write rewrites one of them: the message names that one.
      name: 'an edit over two changes it never saw, then a whole Write that rewrites one of them: the message names only that line',
      input: cc()
        .read('m1', A, f, v1)
        .edit('m2', B, f, 'one\ntwo\nTHREE\nfour\nFIVE\n', 'one', '1')
        .write('m3', C, f, '1\ntwo\nthree\nfour\nFIVE\n', '1\ntwo\nTHREE\nfour\nFIVE\n')
        .text(),
      errors: [
        { messageId: 'aside', line: 4, message: /file lines 3, 5 changed/ },
        { messageId: 'overlap', line: 6, message: /: file line 3 changed after the session last read the file/ },
      ],
    },
    {
      // A command refused before it ran changed nothing: the change is still another writer's.
      name: "Claude Code: the session's sed -i was refused at the permission prompt",
      input: shellThenEdit("sed -i 's/two/2/' src/app.ts", "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file).", true),
      errors: [{ messageId: 'aside', line: 6 }],
    },
    {
      // Claude Code in `-p` or SDK mode, where nobody can be asked: a call the settings do not
      // allow never runs (what it answers, 1.0.83 to 2.1.332). A formatter's failed run may have
      // written; this one did not run at all.
      name: "Claude Code: the session's prettier --write was not allowed (permission not granted)",
      input: shellThenEdit('npx prettier --write src/app.ts', "Claude requested permissions to use Bash, but you haven't granted it yet.", true),
      errors: [{ messageId: 'aside', line: 6 }],
    },
    {
      // Claude Code 2.1.332 (the driven formatter-hook scenario): a PostToolUse hook rewrote line
      // 3 after the edit, and Claude Code noted so without showing the change. The note names the
      // writer; the session still never saw the line.
      name: "Claude Code's own note that a PostToolUse hook changed the file names the hook",
      input: cc().read('m1', A, f, v1).edit('m2', B, f, v1, 'one', '1').raw(hookNote(f)).edit('m3', C, f, '1\ntwo\nTHREE\nfour\nfive\n', 'five', '5').text(),
      errors: [{ messageId: 'aside', line: 7, severity: 'warning', message: /\(transcript line 5\): a PostToolUse:Edit hook changed it, as Claude Code noted on line 6; this edit/ }],
    },
    {
      // The same words written by a hook itself (isOwnText false) could say anything: not taken.
      name: "a hook's own words that it changed the file: the writer stays unknown",
      input: cc().read('m1', A, f, v1).edit('m2', B, f, v1, 'one', '1').raw(hookNote(f, false)).edit('m3', C, f, '1\ntwo\nTHREE\nfour\nfive\n', 'five', '5').text(),
      errors: [{ messageId: 'aside', line: 7, severity: 'warning', message: /\(transcript line 5\), e\.g\. a formatter or another writer; this edit/ }],
    },
    {
      // sed -i through a pattern that does not match the file, in the same folder and below it.
      name: "Claude Code: the session's sed -i on other files of the folder (*.md, src/*.md, a find of *.md)",
      input: shellThenEdit("sed -i 's/a/b/' *.md src/*.md && find . -name '*.md' -exec sed -i 's/a/b/' {} +", ''),
      errors: [{ messageId: 'aside', line: 6 }],
    },
    {
      // The write was the failed command's last step: it most likely failed itself.
      name: "Claude Code: the session's sed -i failed as the command's last step",
      input: shellThenEdit("sed -i 's/two/2/' src/app.ts", "Exit code 1\nsed: -e expression #1, char 9: unterminated `s' command", true),
      errors: [{ messageId: 'aside', line: 6 }],
    },
    {
      // Without the linter's output, the joined line is a change the session never saw.
      name: 'the same edit of line 1 with no linter output before it: the joined line went unseen',
      input: formattedThenLinted(false),
      errors: [{ messageId: 'aside', line: 6 }],
    },
    {
      // Read in full, rewritten whole, then put back to what was read (by someone else), checked
      // with a partial read, and rewritten again: nothing unseen was lost, the session's own
      // first write was undone.
      name: 'a write over a file put back to the version the session read',
      input: cc()
        .read('m1', A, f, v1)
        .write('m2', B, f, 'ONE\nTWO\n', v1)
        .read('m3', C, f, 'one\ntwo\n', { offset: 1, limit: 2 })
        .write('m4', 'toolu_01DDDDDDDDDDDDDDDDDDDDDD', f, 'ONE\nTWO\n', v1)
        .text(),
      errors: [{ messageId: 'reverted', line: 8, severity: 'warning' }],
    },
    {
      // Thirty-fifth set (xfs96192/claude-config, 2.1.12): the person saved their own copy of the
      // prompt over the session's Write, the version the session had read but with line 3 fixed;
      // a 50-line Read showed that line, and the session wrote the file whole again. Every line it
      // replaced is one it saw as it is: the version it read, but for the line it read since.
      name: 'a write over a file put back to the version the session read, but for a line it read again since',
      input: putBackBut('one\n2\nthree\nfour\n'),
      errors: [{ messageId: 'reverted', line: 8, severity: 'warning', message: /the one this session read on transcript line 3 \(but for lines it has read since, as they are now\): what it wrote later \(line 5\)/ }],
    },
    {
      // The same with a line the session never saw again changed too: a lost update.
      name: 'the same, with another line changed that no read showed again',
      input: putBackBut('one\n2\nthree\n4\n'),
      errors: [{ messageId: 'overlap', line: 8, severity: 'error' }],
    },
    {
      // Claude Code's structuredPatch may align an edit as removals beyond its old_string (an
      // unchanged line removed and added again): the edit replaced only what old_string matched.
      name: "a change next to the edit that the patch's diff counts as removed: aside",
      input: cc()
        .read('m1', A, f, v1)
        .call('m2', B, 'Edit', { file_path: f, old_string: 'two\nthree', new_string: '2\n3', replace_all: false })
        .editResult(B, f, 'one\ntwo\nthree\nFOUR\nfive\n', 'two\nthree', '2\n3', { oldStart: 2, oldLines: 3, lines: ['-two', '-three', '-FOUR', '+2', '+3', '+FOUR'] })
        .text(),
      errors: [{ messageId: 'aside', line: 4, severity: 'warning' }],
    },
    {
      name: "a change outside the edit's old_string is still unseen, and aside",
      input: cc().read('m1', A, f, v1).edit('m2', B, f, 'one\nTWO\nthree\nFOUR\nfive\n', 'TWO\nthree', '2\n3').text(),
      errors: [{ messageId: 'aside', line: 4, severity: 'warning' }],
    },
    {
      // replace_all may hit places the session never saw: its old_string vouches for none.
      name: 'a replace_all edit over a line that changed unseen',
      input: cc()
        .read('m1', A, f, v1)
        .call('m2', B, 'Edit', { file_path: f, old_string: 'TWO', new_string: '2', replace_all: true })
        .result(B, 'updated', { toolUseResult: { filePath: f, oldString: 'TWO', newString: '2', replaceAll: true, originalFile: 'one\nTWO\nthree\nfour\nfive\n', structuredPatch: [{ oldStart: 2, oldLines: 1, newStart: 2, newLines: 1, lines: ['-TWO', '+2'] }] } })
        .text(),
      errors: [{ messageId: 'overlap', line: 4, severity: 'error' }],
    },
    {
      // Two U+FFFD but no NUL: a file in another encoding (GBK, CP1252) that both records show
      // alike, read as what it held; its change is still one the session never saw.
      name: 'a file beginning with two U+FFFD (not UTF-16) whose line changed unseen',
      input: win().read('m1', A, key, '\uFFFD\uFFFDab\none\n').write('m2', B, key, 'new', '\uFFFD\uFFFDab\nONE\n').text(),
      errors: [{ messageId: 'overlap', line: 4 }],
    },
    {
      name: 'a file with a byte-order mark whose other lines changed unseen',
      input: cc().read('m1', A, f, v1).edit('m2', B, f, `\uFEFF${v1.replace('four', 'FOUR')}`, 'two', '2').text(),
      errors: [{ messageId: 'aside', line: 4 }],
    },
    {
      // The same stamp change, with no sign that Claude Code made it (no memdirStamped, no stamp
      // hunk in its patches): someone else changed a line the edits did not touch.
      name: 'a memory file whose stamp changed behind the session',
      input: memoryEdits(false),
      errors: [{ messageId: 'aside', line: 6, severity: 'warning' }],
    },
    {
      // A Write replaces the whole file, the changed line with it.
      name: 'changed lines overwritten by a Write: error',
      input: cc().read('m1', A, f, v1).write('m2', B, f, 'one\n2\nthree\nfour\nfive\n', 'one\nTWO!\nthree\nfour\nfive\n').text(),
      errors: [{ messageId: 'overlap', line: 4, severity: 'error' }],
    },
    {
      name: 'changed elsewhere: warning',
      input: cc().read('m1', A, f, v1).edit('m2', B, f, 'one\ntwo\nthree\nfour\nFIVE\n', 'two', '2').text(),
      errors: [{ messageId: 'aside', line: 4, severity: 'warning' }],
    },
    {
      // Claude Code's hunk carries context lines around the change; a change behind the
      // session's back in a context line is next to the edit, not under it.
      name: 'changed in a context line of the edit\'s hunk only: warning',
      input: cc()
        .read('m1', A, f, v1)
        .call('m2', B, 'Edit', { file_path: f, old_string: 'three', new_string: '3', replace_all: false })
        .editResult(B, f, 'ONE\ntwo\nthree\nfour\nfive\n', 'three', '3', { oldStart: 1, oldLines: 5, lines: [' ONE', ' two', '-three', '+3', ' four', ' five'] })
        .text(),
      errors: [{ messageId: 'aside', line: 4, severity: 'warning' }],
    },
    {
      // replace_all: its old_string vouches for no line (it may match where the session never looked).
      name: 'changed in a line the hunk removed, by a replace_all edit: error',
      input: cc()
        .read('m1', A, f, v1)
        .call('m2', B, 'Edit', { file_path: f, old_string: 'THREE', new_string: '3', replace_all: true })
        .result(B, 'updated', {
          toolUseResult: {
            filePath: f,
            oldString: 'THREE',
            newString: '3',
            replaceAll: true,
            originalFile: 'one\ntwo\nTHREE\nfour\nfive\n',
            structuredPatch: [{ oldStart: 1, oldLines: 5, newStart: 1, newLines: 5, lines: [' one', ' two', '-THREE', '+3', ' four', ' five'] }],
          },
        })
        .text(),
      errors: [{ messageId: 'overlap', line: 4, severity: 'error' }],
    },
    {
      // The note showed other lines of the file: the change to line 5 stays unseen.
      name: 'an edited_text_file note that shows other lines than the change',
      input: cc().read('m1', A, f, v1).raw(shown(f, '1\tone\n2\ttwo')).edit('m2', B, f, 'one\ntwo\nthree\nfour\nFIVE\n', 'two', '2').text(),
      errors: [{ messageId: 'aside', line: 5, severity: 'warning' }],
    },
    {
      // A git command that only reads says nothing about the files.
      name: 'git status between the write and the changed file: still stale',
      input: cc()
        .read('m1', A, f, v1)
        .edit('m2', B, f, v1, 'two', '2')
        .bash('m3', 'toolu_01GGGGGGGGGGGGGGGGGGGGGG', 'git status && git diff', '')
        .edit('m4', C, f, 'one\n2\nthree\nfour\nFIVE\n', 'three', '3')
        .text(),
      errors: [{ messageId: 'aside', line: 8, severity: 'warning' }],
    },
    {
      // The partial read showed the line before the gap only: the deletion stays unseen. The
      // edit replaced `three`, below the gap, and left `two` deleted: it overwrote nothing
      // (this expected an error until the forty-fifth hunt's real case, below).
      name: 'a deletion next to a partial read that does not show both sides: still unseen, aside',
      input: cc()
        .read('m1', A, f, v1)
        .read('m2', B, f, 'one\nthree\nfour\nfive\n', { offset: 1, limit: 1 })
        .edit('m3', C, f, 'one\nthree\nfour\nfive\n', 'three', '3')
        .text(),
      errors: [{ messageId: 'aside', line: 6, severity: 'warning', message: /file line 2 changed after the session last read the file/ }],
    },
    {
      // Forty-fifth set (DominionZA2/claude-config, Claude Code 1.0.84 on Windows): after the
      // session's edit, the person removed the overload right above the method the session then
      // edited; the edit's old_string was the method as the session wrote it. The lines removed
      // stay removed: no lost update, only a change the session never saw.
      name: 'lines deleted unseen right above the region an edit replaced: aside, not overlap',
      input: cc()
        .read('m1', A, f, v1)
        .edit('m2', B, f, v1, 'five', '5')
        .edit('m3', C, f, 'one\nfour\n5\n', 'four', '4')
        .text(),
      errors: [{ messageId: 'aside', line: 6, severity: 'warning', message: /file line 2 changed after the session last wrote the file/ }],
    },
    {
      // The same deletion under a Write: the whole file was replaced, the deleted lines with it.
      name: 'lines deleted unseen, then the file written whole: overlap',
      input: cc()
        .read('m1', A, f, v1)
        .edit('m2', B, f, v1, 'five', '5')
        .write('m3', C, f, 'one\nTWO\nthree\nfour\n5\n', 'one\nfour\n5\n')
        .text(),
      errors: [{ messageId: 'overlap', line: 6, severity: 'error' }],
    },
    {
      // Forty-sixth set (SuyeonKim1702/claude-config, Claude Code 2.1.81, a compaction helper's
      // copy of the session): after the session's Write, the person added `import Foundation` as
      // line 2; the session, which never read the file again, wrote it whole with that import in
      // its new text too. Nothing it replaced was lost: the change survived the write.
      name: 'a Write over a line added unseen, its new text holding that line as it is: kept, not overlap',
      input: cc()
        .read('m1', A, f, 'import A\n\nstruct S {\n    var main: M\n}\n')
        .write('m2', B, f, 'import A\nimport Foundation\n\nstruct S {\n    var main = M()\n}\n\nextension S {}\n', 'import A\nimport Foundation\n\nstruct S {\n    var main: M\n}\n')
        .text(),
      errors: [{ messageId: 'kept', line: 4, severity: 'warning', message: /file line 2 changed after the session last read the file \(transcript line 3\), e\.g\. a formatter or another writer; this write replaced the whole file but wrote those lines back as they were/ }],
    },
    {
      // The same Write without the added line: it removed it.
      name: 'a Write over a line added unseen, its new text without it: overlap',
      input: cc()
        .read('m1', A, f, 'import A\n\nstruct S {\n    var main: M\n}\n')
        .write('m2', B, f, 'import A\n\nstruct S {\n    var main = M()\n}\n', 'import A\nimport Foundation\n\nstruct S {\n    var main: M\n}\n')
        .text(),
      errors: [{ messageId: 'overlap', line: 4, severity: 'error' }],
    },
    {
      // Lines deleted unseen, and a Write that changed a line away from the gap: the deletion stays.
      name: 'lines deleted unseen, then the file written whole, changing only a line away from the gap: kept',
      input: cc().read('m1', A, f, v1).write('m2', B, f, 'one\nfour\nfive\nsix\n', 'one\nfour\nfive\n').text(),
      errors: [{ messageId: 'kept', line: 4, severity: 'warning' }],
    },
    {
      // A line next to the gap rewritten: what the deleted lines were part of may be undone.
      name: 'lines deleted unseen, then the file written whole, changing the line right after the gap: overlap',
      input: cc().read('m1', A, f, v1).write('m2', B, f, 'one\nFOUR\nfive\n', 'one\nfour\nfive\n').text(),
      errors: [{ messageId: 'overlap', line: 4, severity: 'error' }],
    },
    {
      name: 'full overwrite of a changed file: error',
      input: cc().read('m1', A, f, v1).write('m2', B, f, 'all new\n', 'one\ntwo\nthree\nfour\nfive\nsix\n').text(),
      errors: [{ messageId: 'overlap', line: 4, severity: 'error' }],
    },
  ],
});

ruleTester(mismatchedResult, {
  valid: [{ name: 'read result names the file', input: readThenEdit }],
  invalid: [
    { name: 'read result about another file', input: cc().call('m1', A, 'Read', { file_path: f }).readResult(A, '/home/dev/proj/other.ts', 'x\n').text(), errors: [{ messageId: 'file', line: 3 }] },
    {
      name: 'read call given an edit result',
      input: cc().call('m1', A, 'Read', { file_path: f }).editResult(A, f, v1, 'two', '2').text(),
      errors: [{ messageId: 'tool', line: 3, severity: 'error' }],
    },
  ],
});

/**
 * A sub-agent file that copies a session from its last compaction on (Claude Code's compaction
 * helper, a side-question agent), then an edit of a file the session read before that.
 */
function compactedCopy(agentId: string): string {
  const t = new ClaudeTranscript();
  t.sidechain = true;
  const record = (r: Record<string, unknown>): string => JSON.stringify({ isSidechain: true, agentId, sessionId: 's1', ...r }) + '\n';
  return (
    record({ parentUuid: null, logicalParentUuid: 'aaaaaaaa-main-4000-8000-000000000853', type: 'system', subtype: 'compact_boundary', uuid: 'b1', content: 'Conversation compacted' }) +
    record({ parentUuid: 'b1', type: 'user', uuid: 'u2', isCompactSummary: true, message: { role: 'user', content: 'This session is being continued from a previous conversation…' } }) +
    t.from('u2').edit('m1', A, f, v1, 'two', '2').text()
  );
}

/**
 * A code-mode script (Codex 0.154) that runs `sed -n '1,200p' src/app.ts`, then `more` commands
 * (each a unified-exec chunk with its exit code), then an update patch of src/app.ts.
 */
function codeModeRead(exitCodes: number[]): string {
  const cmds = exitCodes.map((_, i) => (i === 0 ? "sed -n '1,200p' src/app.ts" : 'rg -n todo src'));
  const script = cmds.map((c) => `text(await tools.exec_command({cmd:${JSON.stringify(c)}}));`).join('\n');
  const chunks = exitCodes.map((code, i) => ({ type: 'input_text', text: JSON.stringify({ chunk_id: `c${i}`, wall_time_seconds: 0.00000537, exit_code: code, original_token_count: 18, output: code === 0 ? 'x' : 'bwrap: Unexpected capabilities but not setuid, old file caps config?\n' }) }));
  return new CodexRollout()
    .user('fix src/app.ts')
    .item('response_item', { type: 'custom_tool_call', status: 'completed', call_id: 'c1', name: 'exec', input: script })
    .item('response_item', { type: 'custom_tool_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'Script completed\nWall time 0.3 seconds\nOutput:\n' }, ...chunks] })
    .patch('c2', updatePatch('src/app.ts'))
    .output('c2', 'Success. Updated the following files:\nM src/app.ts\n', true)
    .text();
}

/**
 * Records of the conversation missing between the session's last look at a file and its next
 * write, in the shapes of the thirty-first set (Claude Code 2.1.49 through Entire: a progress line
 * hung from a record the file never holds, just before a compaction, where the session had edited
 * the file) and of the thirtieth (2.1.39: an assistant line hung from the unwritten answer of a
 * non-streaming retry, which had carried out an edit). The session's own edit is in what was lost.
 */
const lostRecord = 'ffffffff-0000-4000-8000-000000000999';
const D = 'toolu_01DDDDDDDDDDDDDDDDDDDDDD';
/** v1 after the session's edit of line 2, then line 4 changed by an edit the file lost. */
const ownLostEdit = 'one\n2\nthree\nFOUR\nfive\n';

function lostThenEdit(lost: (t: ClaudeTranscript) => ClaudeTranscript): string {
  return lost(cc().read('m1', A, f, v1).edit('m2', B, f, v1, 'two', '2'))
    .edit('m9', C, f, ownLostEdit, 'one', '1')
    .text();
}

/** `n` prompts and answers: a stretch of the session with nothing about the file. */
function chat(t: ClaudeTranscript, n: number): ClaudeTranscript {
  for (let i = 0; i < n; i++) {
    t.user(`question ${i}`).say(`mc${i}`, `answer ${i}`);
  }
  return t;
}

/**
 * Claude Code 2.0.53 (thirty-fourth set): the file starts with the result of a `git reset --hard`
 * that rewrote it, hung from a record it no longer holds; the next message was written in one
 * record (its text and an edit). Resumed, Claude Code wrote that history again hung from the same
 * result, one record per block, with the same message and call ids and each result as it was: the
 * copy's first edit records the file as it was before the original's, not a change the session
 * never saw.
 */
function copiedEditsBelowLostRecord(): string {
  const v2 = v1.replace('two', '2');
  const t = new ClaudeTranscript().as('2.0.53').from(lostRecord).result(C, 'HEAD is now at 1f1c5e7d Save session');
  const edit = { id: A, name: 'Edit', input: { file_path: f, old_string: 'two', new_string: '2', replace_all: false } };
  // The original: the message's text and its edit in one record.
  t.sayAndCall('m1', 'Editing again:', [edit]).editResult(A, f, v1, 'two', '2').edit('m2', B, f, v2, 'four', '4').say('m3', 'Done.');
  // The copy, hung from the result the file starts with.
  t.from(t.uuidAt(1)).say('m1', 'Editing again:').call('m1', A, 'Edit', edit.input).editResult(A, f, v1, 'two', '2');
  return t.edit('m2', B, f, v2, 'four', '4').say('m3', 'Done.').text();
}

/**
 * The session wrote `a`, a blank line, `---`, a blank line, `b`, `c`; another writer inserted
 * `R1`, `R2`, a blank line, `---` and a blank line after the first four lines (the diff's lines
 * 5–9; the same text as lines 2–6, 3–7 or 4–8); the session read `limit` lines from line 1, then
 * edited the last line.
 */
function insertedAmongEqualLines(limit: number): string {
  const written = 'a\n\n---\n\nb\nc\n';
  const now = 'a\n\n---\n\nR1\nR2\n\n---\n\nb\nc\n';
  return cc().write('m1', A, f, written, null).read('m2', B, f, now, { offset: 1, limit }).edit('m3', C, f, now, 'c', 'C').text();
}

ruleTester(staleWrite, {
  valid: [
    {
      // Thirty-first set (Entire's checkpoint of Claude Code 2.1.49): a task's summary read, then
      // its plan edited, both under the one name Entire's redaction gave them.
      name: "two files that Entire's redaction named alike (.REDACTED.md): no one file changed behind the session's back",
      input: cc()
        .read('m1', A, '/home/dev/proj/.REDACTED.md', '---\nphase: quick-019\n---\n# Summary\n')
        .edit('m2', B, '/home/dev/proj/.REDACTED.md', '# Plan\n\n```\nCreate docs\n', '```\nCreate', '```text\nCreate')
        .text(),
    },
    {
      name: 'Claude Code 2.0.53: the history written again below the result the file starts with, its edits as they were',
      input: copiedEditsBelowLostRecord(),
    },
    {
      // Thirty-seventh set (2.1.92's side-question agent, `agent-aside_question-*`): its copy of
      // the session keeps a Read's line counts and numbered text but empties `file.content`. The
      // file was not empty: the edit found it as read, and nothing changed behind the session.
      name: "a Read whose recorded content was emptied (numLines 5, content ''), then an edit of the file as read: no unseen change",
      input: subAgent()
        .call('m1', A, 'Read', { file_path: f })
        .result(A, '1\tone\n2\ttwo\n3\tthree\n4\tfour\n5\tfive', {
          toolUseResult: { type: 'text', file: { filePath: f, content: '', numLines: 5, startLine: 1, totalLines: 5 } },
        })
        .edit('m2', B, f, v1, 'two', '2')
        .text(),
    },
    {
      // The same copy empties an Edit's `originalFile`: an edit that found its old_string did
      // not run on an empty file.
      name: "a file written, then an edit recorded with originalFile '': the file is not taken as emptied behind the session",
      input: subAgent().write('m1', A, f, v1, null).edit('m2', B, f, '', 'two', '2').text(),
    },
    {
      // Thirty-seventh set (Claude Code 2.1.63): another session appended a section ending in a
      // blank line, `---` and a blank line after the same three lines; a 65-line read showed all of
      // it, though the diff puts the inserted block's last line at 66.
      name: 'a block inserted among equal lines, all of it shown by a later partial read where it may as well sit: nothing unseen',
      input: insertedAmongEqualLines(8),
    },
  ],
  invalid: [
    {
      // Without the file history's link, the edit through the link was a write before any read.
      name: 'Claude Code 2.1.223: a Read in the real folder, the file changed, then an Edit through a symbolic link to it: aside',
      input: historyDelta(linked().read('m1', A, '/home/dev/sda2/proj/src/app.ts', v1), viaLink, '/home/dev/sda2/proj/src')
        .edit('m2', B, viaLink, v1.replace('five', 'FIVE'), 'two', '2')
        .text(),
      errors: [{ messageId: 'aside', line: 5, severity: 'warning' }],
    },
    {
      // Wherever that block sits, a read of lines 1–4 shows none of its new lines.
      name: 'the same block, a partial read that shows none of its new lines: aside',
      input: insertedAmongEqualLines(4),
      errors: [{ messageId: 'aside', line: 6, severity: 'warning' }],
    },
    {
      name: 'an assistant line hung from a record the file does not hold, between the last write and a stale edit: info, maybe its own',
      input: lostThenEdit((t) => t.from(lostRecord).say('m3', 'Done.')),
      errors: [{ messageId: 'gap', line: 7, severity: 'info' }],
    },
    {
      name: 'a progress line hung from a record the file never holds, then a compaction, then a stale edit: info',
      input: lostThenEdit((t) => chat(t.from(lostRecord).progress(B).compact().user('This session is being continued from a previous conversation.', { isCompactSummary: true }), 35)),
      errors: [{ messageId: 'gap', line: 79, severity: 'info' }],
    },
    {
      // Claude Code 2.1.91–2.1.172 writes a result a line before its call's record: nothing is
      // lost, and the change is still another writer's.
      name: "a Bash result written a line before its call's record, between the last write and a stale edit: still aside",
      input: (() => {
        const t = cc().read('m1', A, f, v1).edit('m2', B, f, v1, 'two', '2').call('m3', D, 'Bash', { command: 'ls' }).result(D, 'app.ts');
        const [call, result] = t.lines.splice(-2, 2);
        t.lines.push(result!, call!);
        return t.edit('m9', C, f, ownLostEdit, 'one', '1').text();
      })(),
      errors: [{ messageId: 'aside', line: 8, severity: 'warning' }],
    },
    {
      // Lost records before the session's last look at the file say nothing of the change after it.
      name: 'records lost before the last read: still aside',
      input: cc().from(lostRecord).say('m0', 'Resumed.').read('m1', A, f, v1).edit('m2', B, f, ownLostEdit, 'one', '1').text(),
      errors: [{ messageId: 'aside', line: 5, severity: 'warning' }],
    },
  ],
});

void describe('stale-write: which read the message names', () => {
  void test('with partial reads only, the read that showed the changed line as it was, not the last read', () => {
    // Lines 1–2 read (line 3 of the transcript), then lines 4–5 (line 5); line 2 changes; the
    // edit of line 4 lands on top of it. The change came after the first read, not the last.
    const t = cc()
      .read('m1', A, f, v1, { offset: 1, limit: 2 })
      .read('m2', B, f, v1, { offset: 4, limit: 2 })
      .edit('m3', C, f, 'one\nTWO\nthree\nfour\nfive\n', 'four', '4');
    const found = run(t.text(), { rules: [staleWrite] }).findings;
    assert.deepEqual(
      found.map((x) => `${x.messageId}@${x.line}`),
      ['aside@6'],
    );
    assert.match(found[0]!.message, /file line 2 changed after the session last read those lines \(transcript line 3\)/);
    assert.deepEqual(
      found[0]!.related.map((r) => `${r.line}: ${r.message}`),
      ['3: the session last read those lines here', '7: the result recording what the file held before this write'],
    );
  });
});

void describe('stale-write after records the file does not hold', () => {
  const theirs = 'one\nTWO\nthree\nfour\nfive\n';
  const found = (t: ClaudeTranscript): string[] => run(t.text(), { rules: [staleWrite] }).findings.map((x) => `${x.messageId}:${x.severity}@${x.line}`);

  void test('a change made while records were lost may be the session’s own: said so, a step softer', () => {
    // Read (line 3), a message hung from a lost record (line 4), an edit on top of line 2 changed.
    const aside = run(cc().read('m1', A, f, v1).from(lostUuid).say('m2', 'Carrying on.').edit('m3', B, f, theirs, 'four', '4').text(), { rules: [staleWrite] }).findings;
    assert.deepEqual(aside.map((x) => `${x.messageId}:${x.severity}@${x.line}`), ['gap:info@5']);
    assert.match(aside[0]!.message, /file line 2 changed after the session last read the file \(transcript line 3\), but line 4 hangs from a record the file does not hold/);
    assert.deepEqual(
      aside[0]!.related.map((r) => `${r.line}: ${r.message}`),
      ['3: the session last read the file here', '4: this line hangs from a record the file does not hold', '6: the result recording what the file held before this write'],
    );
    // A Write over the changed line: a lost update is no longer likely, only possible.
    const mine = 'one\n2\nthree\nfour\nfive\n';
    assert.deepEqual(found(cc().read('m1', A, f, v1).from(lostUuid).say('m2', 'Carrying on.').write('m3', B, f, mine, theirs)), ['gap:warning@5']);
    // The same without the lost records, as before.
    assert.deepEqual(found(cc().read('m1', A, f, v1).say('m2', 'Carrying on.').edit('m3', B, f, theirs, 'four', '4')), ['aside:warning@5']);
    assert.deepEqual(found(cc().read('m1', A, f, v1).say('m2', 'Carrying on.').write('m3', B, f, mine, theirs)), ['overlap:error@5']);
  });

  void test('records lost before the session last saw the file change nothing', () => {
    const t = cc().say('m0', 'Hello.').from(lostUuid).say('m1', 'Resumed.').read('m2', A, f, v1).write('m3', B, f, 'one\n2\nthree\nfour\nfive\n', theirs);
    assert.deepEqual(found(t), ['overlap:error@6']);
  });
});

void describe('stale-write: files too far apart to compare line by line', () => {
  void test('beyond the diff’s bounds only lines the session saw nowhere in the file are unseen: less, never more', () => {
    // The file as read: 2,101 lines `x` then 2,101 lines `y`; as replaced: the halves swapped,
    // one new line between. Over 4,000 edits apart: no exact diff is searched for.
    const x = 'x\n'.repeat(2101);
    const y = 'y\n'.repeat(2101);
    const changed = run(cc().read('m1', A, f, x + y).write('m2', B, f, 'mine\n', y + 'theirs\n' + x).text(), { rules: [staleWrite] }).findings;
    assert.deepEqual(changed.map((c) => `${c.messageId}@${c.line}`), ['overlap@4']);
    assert.match(changed[0]!.message, /file line 2102 changed after/);
    // Only reordered: every line was seen somewhere, and no change is claimed.
    assert.deepEqual(run(cc().read('m1', A, f, x + y).write('m2', B, f, 'mine\n', y + x).text(), { rules: [staleWrite] }).findings, []);
  });
});

void describe('stale-write and concurrent-write in the live monitor: what a call wrote', () => {
  // A working tree in which every file changed since the session saw it: by the user, then by
  // another session.
  const changed = (by: ForeignChangeVerdict['by']): { workTree: { judgeWrite: () => ForeignChangeVerdict } } => ({
    workTree: { judgeWrite: () => ({ by, at: Date.UTC(2026, 0, 2, 3, 4, 30), seenAt: Date.UTC(2026, 0, 2, 3, 4, 10), changes: 1 }) },
  });
  const other = { kind: 'session' as const, session: '/home/dev/.codex/sessions/rollout-other.jsonl', sessionId: 'other', line: 7 };
  /** A command that reads src/a.ts and writes src/b.ts, and what it printed. */
  const copy = (printed: string): string =>
    new CodexRollout().user('go').exec('c1', 'cat src/a.ts > src/b.ts').output('c1', `Chunk ID: 1\nWall time: 0.1 seconds\n${printed}`).text();
  const judged = (rule: RuleModule, text: string, by: ForeignChangeVerdict['by']): string[] =>
    run(text, { rules: [rule], mode: 'live', services: changed(by) }).findings.map((x) => `${x.messageId}@${x.line} ${x.subject?.path ?? ''}`);

  void test('only the file the command wrote is judged, not the one it read', () => {
    const ok = copy('Process exited with code 0\nOutput:\n');
    assert.deepEqual(judged(staleWrite, ok, { kind: 'user' }), ['live@3 /home/dev/proj/src/b.ts']);
    assert.deepEqual(judged(concurrentWrite, ok, other), ['interleaved@3 /home/dev/proj/src/b.ts']);
  });

  void test('a command that failed wrote nothing to judge', () => {
    const failed = copy('Process exited with code 1\nOutput:\ncat: src/a.ts: No such file or directory\n');
    assert.deepEqual(judged(staleWrite, failed, { kind: 'user' }), []);
    assert.deepEqual(judged(concurrentWrite, failed, other), []);
  });
});
void describe('parallel batches: a batch of many calls', () => {
  void test('a call looks back over a bounded number of calls of its batch, the nearest, in order', () => {
    // Every call of a message of 50,000 looked at every call before it: the square of their number.
    const conv = new Conversation();
    const msg = conv.openMessage('assistant', { line: 1, start: 0, end: 0 }, 'm', undefined);
    let last: CallRecord | undefined;
    for (let i = 0; i < 50_000; i++) {
      const call: ToolCall = { kind: 'call', at: { line: i + 1, start: 0, end: 0 }, callId: `c${i}`, tool: 'Write', category: 'write', accesses: [{ op: 'write', path: '/w/a.txt' }] };
      last = conv.addCall(call, msg);
    }
    const siblings = batchSiblings(last!, '/w/a.txt', isWrite);
    assert.equal(siblings.length, 256);
    assert.equal(siblings[0]!.sibling.call.callId, 'c49743');
    // A batch of a realistic size: every earlier call, from the first.
    const first = conv.callsWithId('c3')[0]!;
    assert.deepEqual(batchSiblings(first, '/w/a.txt', isWrite).map((s) => s.sibling.call.callId), ['c0', 'c1', 'c2']);
  });
});
