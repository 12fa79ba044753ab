/** Rule tables for the pairing rules (ESLint RuleTester style: positions and message ids). */
import { duplicateCallId } from '../../../src/core/rules/duplicate-call-id';
import { duplicateResult } from '../../../src/core/rules/duplicate-result';
import { misplacedResult } from '../../../src/core/rules/misplaced-result';
import { missingResult } from '../../../src/core/rules/missing-result';
import { orphanResult } from '../../../src/core/rules/orphan-result';
import { ClaudeTranscript } from '../support/claude';
import { CodexRollout } from '../support/codex';
import { ruleTester } from '../support/ruleTester';

const A = 'toolu_01AAAAAAAAAAAAAAAAAAAAAA';
const B = 'toolu_01BBBBBBBBBBBBBBBBBBBBBB';
const C = 'toolu_01CCCCCCCCCCCCCCCCCCCCCC';
const cc = (): ClaudeTranscript => new ClaudeTranscript().user('go');

/** Two parallel calls answered in order, then the next turn: healthy for every pairing rule. */
const healthyParallel = cc().call('m1', A, 'Bash', { command: 'ls' }).call('m1', B, 'Bash', { command: 'pwd' }).result(A, 'a').result(B, 'b').say('m2', 'ok').text();
/** Claude Code records a tool's result before the next block of the same API message. */
const streamedBlocks = cc().call('m1', A, 'Read', { file_path: '/x' }).result(A, 'a').call('m1', B, 'Bash', { command: 'pwd' }).result(B, 'b').say('m2', 'ok').text();
/**
 * Claude Code 2.1.91–2.1.172 sometimes writes a result a line before the `tool_use` record it
 * answers (one API message is several records); the parentUuid chain still puts the call first.
 */
function resultWrittenFirst(): string {
  const t = cc().say('m1', 'reading it').call('m1', A, 'Read', { file_path: '/x' }).linkedResult(A, 'a').say('m2', 'done');
  const lines = [...t.lines];
  const call = lines.findIndex((l) => l.includes('"type":"tool_use"'));
  [lines[call], lines[call + 1]] = [lines[call + 1]!, lines[call]!];
  return lines.join('\n') + '\n';
}
/**
 * Two executions of one session (a real 2.1.x file): one ran a long call; the other, hung from
 * an earlier line, went on and compacted its own history; then the call's result came, hung from
 * the call. The compaction continues from the other branch: the call's history was not reset.
 */
function compactedElsewhere(): string {
  const t = cc().call('m1', A, 'Bash', { command: 'sleep 600' });
  t.from(t.uuidAt(1)).user('<task-notification>done</task-notification>').say('m2', 'noted').compact().user('This session is being continued');
  return t.from(t.uuidAt(2)).result(A, 'finished').text();
}
/**
 * Claude Code 2.1.37 (xfs96192/claude-config, thirty-fifth set): a streamed answer cut short
 * after its `Bash` call, then, 28 s later, a second answer to the same request (same
 * `requestId`, another message id) written below it: a text and two calls. Every call ran,
 * and the three results (each hung from its call) came together; the model answered next.
 */
function secondAnswerBelow(): string {
  const t = cc().say('m1', 'Now let me check the SDK.').call('m1', A, 'Bash', { command: 'ls sdk/' });
  t.say('m2', 'Now let me check the SDK interface.').call('m2', B, 'Bash', { command: 'ls sdk/' }).call('m2', C, 'Grep', { pattern: 'Provider', path: '/w' });
  t.linkedResult(C, 'a.py:8').linkedResult(A, 'demo.py').linkedResult(B, 'demo.py').say('m3', 'Reading the demo.');
  // The second answer's records carry the first one's request id.
  return t.lines.map((l) => l.replace(/"requestId":"req_m2"/, '"requestId":"req_m1"')).join('\n') + '\n';
}
/**
 * The person typed while two calls ran; Claude Code delivered the text with the first result,
 * and the second result (here a permission refusal) came after it. The session went on.
 */
const queuedWhileRunning = cc()
  .call('m1', A, 'Bash', { command: 'ls' })
  .call('m1', B, 'Bash', { command: 'git status' })
  .resultWithText(A, 'a', 'I see the new format but not the timestamps')
  .result(B, 'The user doesn\u2019t want to proceed with this tool use.', { isError: true })
  .say('m2', 'that is expected')
  .text();
/**
 * A prompt typed while a call waited for permission (Claude Code 2.1.71, thirty-ninth set,
 * `70b5ab6a` lines 59–65): written hung from the call, then the refusal, also hung from the call,
 * and Claude Code's interrupt note. Claude Code 2.0.19 and later sends prompt and refusal in one
 * message, the result first (the model answered both): nothing missing, nothing misplaced.
 */
function promptWhileAwaitingPermission(version = '2.1.71'): string {
  const t = new ClaudeTranscript().as(version).user('go').say('m1', 'Vou usar o ngrok.').call('m1', A, 'Bash', { command: 'ngrok http 5678' });
  const call = t.uuidAt(3);
  t.user('n é pra usar ngrok').from(call).result(A, "The user doesn't want to proceed with this tool use. The tool use was rejected.", { isError: true });
  return t.user('[Request interrupted by user for tool use]').say('m2', 'Entendido! Vou focar só no Serveo.').text();
}
/**
 * Codex writes its own developer note between a command and its output when the user approves
 * the command's prefix while it runs (the shape of real Codex Desktop rollouts): not a turn.
 */
const codexNoteMidCall = new CodexRollout()
  .user('check the repo')
  .exec('call_1', 'git status')
  .developer('Approved command prefix saved:\n- ["git","status"]')
  .output('call_1', 'clean')
  .say('all clean')
  .text();
/**
 * Codex intercepts `apply_patch` run through its shell tool and writes a warning as a user
 * message before the call's output (Codex 0.70–0.94; the next request went through).
 */
const codexPatchWarning = new CodexRollout()
  .user('fix it')
  .exec('call_1', "apply_patch <<'PATCH'\n*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End Patch\nPATCH")
  .user('Warning: apply_patch was requested via shell_command. Use the apply_patch tool instead of exec_command.')
  .output('call_1', 'Success. Updated the following files:\nM a.py')
  .say('done')
  .text();
/**
 * Claude Code 2.0.x resuming a session whose process died: it writes the history again under new
 * uuids from a new root, keeping message and tool_use ids (the dead call left out).
 */
const replayedHistory = cc()
  .call('m1', A, 'Bash', { command: 'ls' })
  .result(A, 'a')
  .say('m2', 'listed')
  .user('now kill it')
  .call('m3', B, 'Bash', { command: 'taskkill //F //IM node.exe' })
  .root()
  .user('go')
  .call('m1', A, 'Bash', { command: 'ls' })
  .result(A, 'a')
  .say('m2', 'listed')
  .user('now kill it')
  .say('m4', 'restarted')
  .text();

/**
 * Claude Code 2.0.28–2.0.36 resuming: the history written again as a sibling branch, under new
 * uuids with the same message and tool_use ids. The original wrote the message's thinking and
 * tool_use in one record; the copy writes them as two, the thinking hung from the original's
 * parent. The copy is a message of its own, not more blocks of the original.
 */
function copySplitsMessage(): string {
  const t = cc().call('m1', A, 'BashOutput', { bash_id: '1' });
  const merge = (line: number, edit: (content: Record<string, unknown>[]) => Record<string, unknown>[]): void => {
    const rec = JSON.parse(t.lines[line - 1]!) as { message: { content: Record<string, unknown>[] } };
    rec.message.content = edit(rec.message.content);
    t.lines[line - 1] = JSON.stringify(rec);
  };
  merge(2, (c) => [{ type: 'thinking', thinking: 'check the output', signature: 'sig' }, ...c]);
  t.result(A, 'running').say('m2', 'still running');
  t.from(t.uuidAt(1)).say('m1', 'check the output');
  merge(t.lines.length, () => [{ type: 'thinking', thinking: 'check the output', signature: 'sig' }]);
  return t.call('m1', A, 'BashOutput', { bash_id: '1' }).result(A, 'running').say('m2', 'still running').user('resume').say('m3', 'back').text();
}

/**
 * Claude Code 2.0.53 (thirty-fourth set): the session ran `git reset --hard` in the repository that
 * holds its own transcript, so the file starts with that call's result, hung from a record it no
 * longer holds. The next message was written in one record (its text and two calls); resumed,
 * Claude Code wrote that history again hung from the same result, one record per block, with the
 * same message and call ids. The copy is a message of its own, not more blocks of the original.
 */
function copyBelowLostRecord(): string {
  const t = new ClaudeTranscript().as('2.0.53').from('ffffffff-0000-4000-8000-000000000999').result(C, 'HEAD is now at 1f1c5e7d Save session');
  const build = { id: A, name: 'Bash', input: { command: 'npm run build' } };
  const status = { id: B, name: 'Bash', input: { command: 'git status' } };
  // The original: the message's text and both calls in one record.
  t.sayAndCall('m1', 'Building again:', [build, status]).result(A, 'built').result(B, 'clean').say('m2', 'Done.');
  // The copy, hung from the result the file starts with.
  t.from(t.uuidAt(1)).say('m1', 'Building again:').call('m1', A, 'Bash', build.input).call('m1', B, 'Bash', status.input);
  return t.result(A, 'built').result(B, 'clean').say('m2', 'Done.').user('what changed?').say('m3', 'Nothing since.').text();
}

/**
 * Claude Code's own note as the next assistant line (model `<synthetic>`): its API error
 * (`apiError`) or a reply it wrote without a request ("No response requested.").
 */
function ownNote(t: ClaudeTranscript, messageId: string, text: string, apiError: boolean): ClaudeTranscript {
  t.say(messageId, text);
  const rec = JSON.parse(t.lines[t.lines.length - 1]!) as { message: Record<string, unknown>; isApiErrorMessage?: boolean };
  rec.message['model'] = '<synthetic>';
  rec.isApiErrorMessage = apiError;
  t.lines[t.lines.length - 1] = JSON.stringify(rec);
  return t;
}

/**
 * Claude Code 1.0.29: the person pressed Esc while two calls waited for approval; Claude Code
 * wrote its own "API Error: Request was aborted." (model `<synthetic>`) before the calls' refused
 * results. The next request went through: the note is no turn of the model.
 */
function abortNoteAmidBatch(): string {
  const t = ownNote(cc().call('m1', A, 'Bash', { command: 'mkdir -p /w/x' }).call('m1', B, 'Bash', { command: 'cd /w/x && git init' }), '3f0c8f1e-synthetic', 'API Error: Request was aborted.', true);
  const refused = 'The user doesn\u2019t want to take this action right now. STOP what you are doing.';
  return t.result(A, refused, { isError: true }).result(B, refused, { isError: true }).user('[Request interrupted by user for tool use]').say('m2', 'Stopped.').text();
}

/**
 * Claude Code 2.1.41 (twenty-eighth set): three calls in one message, only the first answered;
 * the process died, and the resumed one wrote its own "No response requested." (model
 * `<synthetic>`, no request sent) hung from that result. Then a prompt, answered or not.
 */
function unsentReplyAfterBatch(answered: boolean): string {
  const t = cc()
    .call('m1', A, 'Bash', { command: 'mkdir -p /w/memory' })
    .call('m1', B, 'Bash', { command: 'cp -r /home/dev/.claude/projects/* /w/memory/ 2>&1' })
    .call('m1', C, 'Bash', { command: 'ls /w/memory/ | head -10' })
    .linkedResult(A, '');
  ownNote(t, 'b81e8399-e62e-4dc6-9cfd-b533e7f886a8', 'No response requested.', false);
  t.user('PS C:\\w> .\\setup.ps1 The string is missing the terminator: ".');
  return (answered ? t.say('m2', 'There is a syntax error in the script I created.') : t).text();
}

/** The transcript's assistant records so far, as another provider's model wrote them (its model name). */
function anotherModel(t: ClaudeTranscript, model = 'deepseek-v4-flash'): ClaudeTranscript {
  for (let i = 0; i < t.lines.length; i++) {
    const rec = JSON.parse(t.lines[i]!) as { type: string; message: Record<string, unknown> };
    if (rec.type === 'assistant') {
      rec.message['model'] = model;
      t.lines[i] = JSON.stringify(rec);
    }
  }
  return t;
}

/**
 * Claude Code 2.1.140: a Skill and a Glob in one message; the skill's instructions, a meta record
 * naming the Skill call (`sourceToolUseID`), are written before the Glob's result. They go to the
 * model with the results (the session went on normally).
 */
const skillTextAmidResults = cc()
  .call('m1', A, 'Skill', { skill: 'workspace' })
  .call('m1', B, 'Glob', { pattern: '**/workspace.md' })
  .result(A, 'Launching skill: workspace')
  .user('Base directory for this skill: /home/dev/.claude/skills/workspace', { isMeta: true, sourceToolUseID: A })
  .linkedResult(B, '/home/dev/proj/workspace.md')
  .say('m2', 'found it')
  .text();

/**
 * Claude Code 2.0.50: two SlashCommand calls in one message; after the first one's result Claude
 * Code writes the command's `<command-message>` line (not meta, but naming the call in
 * `sourceToolUseID`) and the skill's meta instructions, then the second call's result. Claude
 * Code's own text for a tool, not a person's: the session went on normally.
 */
const commandTextAmidResults = cc()
  .call('m1', A, 'SlashCommand', { command: '/teach' })
  .call('m1', B, 'SlashCommand', { command: '/office-hours' })
  .result(A, 'Launching command: /teach')
  .user('<command-message>The "teach" skill is loading</command-message>\n<command-name>teach</command-name>', { sourceToolUseID: A })
  .user('Base directory for this skill: /home/dev/.claude/skills/teach', { isMeta: true, sourceToolUseID: A })
  .result(B, 'Launching command: /office-hours')
  .say('m2', 'ok')
  .text();

/** A compaction drops the unanswered call from the history the provider sees. */
const compactedAway = cc().call('m1', A, 'Bash', { command: 'sleep 9' }).compact().user('continue').say('m2', 'ok').text();
const interrupted = cc()
  .call('m1', A, 'Bash', { command: 'sleep 9' })
  .result(A, 'The user doesn\u2019t want to proceed with this tool use.', { isError: true })
  .user('[Request interrupted by user for tool use]')
  .text();

/**
 * Claude Code 2.1.71's plan mode: the person accepts a plan with "clear context", and the new
 * session's file starts with the old session's pending ExitPlanMode result (hung from the old
 * file's call), then the conversation from a root. `partway` keeps the records hung from it.
 */
function clearedContext(partway = false): string {
  const t = new ClaudeTranscript()
    .from('aaaaaaaa-0ld0-4000-8000-000000000723')
    .result(A, 'The user doesn\u2019t want to proceed with this tool use.', { isError: true })
    .user('[Request interrupted by user for tool use]');
  if (!partway) {
    t.root().progress('toolu_hook');
  }
  return t.user('Implement the following plan:\n\n# Plan: close the gaps').say('m1', 'Reading the files first.').text();
}

ruleTester(orphanResult, {
  valid: [
    { name: "Claude Code plan mode's cleared context: the old session's result, then a new root", input: clearedContext() },
    {
      // Claude Code's compaction helper writes the main conversation's last records first, hung
      // from that conversation (here a Task's result): its context, not its own conversation.
      name: 'Claude Code: the compaction helper file starts with the main session’s last result',
      input: [
        { parentUuid: 'aaaaaaaa-main-4000-8000-000000000086', isSidechain: true, type: 'user', agentId: 'acompact-c84977', sessionId: 's1', uuid: 'u1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01MAIN', content: 'the report' }] } },
        { parentUuid: 'u1', isSidechain: true, type: 'user', agentId: 'acompact-c84977', sessionId: 's1', uuid: 'u2', message: { role: 'user', content: 'Your task is to create a detailed summary of the conversation so far.' } },
        { parentUuid: 'u2', isSidechain: true, type: 'assistant', agentId: 'acompact-c84977', sessionId: 's1', uuid: 'u3', message: { id: 'msg_1', role: 'assistant', content: [{ type: 'text', text: '<summary>…</summary>' }] } },
      ]
        .map((r) => JSON.stringify(r) + '\n')
        .join(''),
    },
    {
      // Claude Code 2.1.49–2.1.55: the main conversation's last call and its result, hung from it.
      name: 'Claude Code: the compaction helper file starts with the main session’s last call and result',
      input: [
        { parentUuid: 'aaaaaaaa-main-4000-8000-000000000086', isSidechain: true, type: 'assistant', agentId: 'acompact-54987b', sessionId: 's1', uuid: 'u0', message: { id: 'msg_0', role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01MAIN', name: 'Write', input: { file_path: '/w/REPORT.md', content: 'done' } }] } },
        { parentUuid: 'u0', isSidechain: true, type: 'user', agentId: 'acompact-54987b', sessionId: 's1', uuid: 'u1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01MAIN', content: 'File created successfully' }] } },
        { parentUuid: 'u1', isSidechain: true, type: 'user', agentId: 'acompact-54987b', sessionId: 's1', uuid: 'u2', message: { role: 'user', content: 'Your task is to create a detailed summary of the conversation so far.' } },
        { parentUuid: 'u2', isSidechain: true, type: 'assistant', agentId: 'acompact-54987b', sessionId: 's1', uuid: 'u3', message: { id: 'msg_1', role: 'assistant', content: [{ type: 'text', text: '<summary>…</summary>' }] } },
      ]
        .map((r) => JSON.stringify(r) + '\n')
        .join(''),
    },
    { name: 'parallel calls answered', input: healthyParallel },
    { name: 'Claude Code: a result written a line before its call', input: resultWrittenFirst() },
    { name: 'streamed blocks', input: streamedBlocks },
    { name: 'error results still pair', input: interrupted },
  ],
  invalid: [
    { name: 'a file that starts partway: its first result hangs from a record it does not hold, and the rest from it', input: clearedContext(true), errors: [{ messageId: 'unknown', line: 1 }] },
    { name: 'result before any call', input: new ClaudeTranscript().result(A, 'x').text(), errors: [{ messageId: 'unknown', line: 1, column: 0 + 1 + new ClaudeTranscript().result(A, 'x').lines[0]!.indexOf(A) }] },
    {
      // Held for its call's record, which never comes: still an orphan, at its own line.
      name: 'Claude Code: a result hanging from a record that never comes',
      input: new ClaudeTranscript()
        .user('go')
        .raw(JSON.stringify({ type: 'user', uuid: 'u9', parentUuid: 'never-written', sourceToolAssistantUUID: 'never-written', sessionId: 's', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: A, content: 'x' }] } }))
        .say('m2', 'next')
        .text(),
      errors: [{ messageId: 'unknown', line: 2 }],
    },
    {
      name: 'Codex output with no call',
      input: new CodexRollout().user('go').output('call_x', 'out').text(),
      errors: [{ messageId: 'unknown', line: 3 }],
    },
  ],
});

ruleTester(duplicateResult, {
  valid: [{ name: 'one result per call', input: healthyParallel }],
  invalid: [
    { name: 'same result twice', input: cc().call('m1', A, 'Bash', { command: 'ls' }).result(A, 'a').result(A, 'a').text(), errors: [{ messageId: 'duplicate', line: 4 }] },
    {
      name: 'placeholder then real',
      input: cc().call('m1', A, 'Bash', { command: 'ls' }).result(A, 'no result was recorded', { isError: true }).result(A, 'real').text(),
      errors: [{ messageId: 'afterPlaceholder', line: 4 }],
    },
  ],
});

/**
 * Claude Code 2.1.23 (Mkid095/vps-system b32b0ed4, fifty-fourth set): two calls in one message,
 * the second a `git` command that waited; the session resumed in another process ("No response
 * requested.", then "continue") went on without its result, which the first process wrote
 * sixteen minutes later, hung from the call, and went on from.
 */
function lateResultOfFirstProcess(): string {
  const t = cc().call('m1', A, 'Bash', { command: 'ls -la ~/.git' }).call('m1', B, 'Bash', { command: 'git config user.name' }).linkedResult(A, 'No .git in home');
  ownNote(t, 'bd5108aa-synthetic', 'No response requested.', false);
  return t.user('continue').say('m3', 'Looking around.').linkedResult(B, 'ken').say('m4', 'The name is set.').text();
}

/**
 * Claude Code 2.1.19 (Mkid095/vps-system 7cbd9c93 and 78ac65ee, fifty-fourth set; run here
 * against a scripted API): two `Task` calls in one message, the person pressed Esc, one result
 * came, then a prompt and a `sleep`; minutes later the other Task's result, hung from its call.
 * `then`: what came next. `elsewhere` (the real files): the sleep's result, hung from its own
 * call, and the tool loop went on from that, with requests of its own that do not hold the late
 * result (on resume it is a dead branch). A prompt typed after that (`elsewhere, then a prompt`)
 * or after "[Request interrupted by user for tool use]" hung from it (`from it`): the process
 * sends its own list, the late result after the later turns. `nothing`: the file ends there, and
 * the next request, continued or resumed, goes on from it.
 */
function lateTaskResult(then: 'elsewhere' | 'elsewhere, then a prompt' | 'from it' | 'nothing'): string {
  const interrupted = '[Request interrupted by user for tool use]';
  const t = cc().call('m1', A, 'Task', { prompt: 'explore a' }).call('m1', B, 'Task', { prompt: 'explore b' }).linkedResult(B, interrupted);
  t.user('now wait').call('m2', C, 'Bash', { command: 'sleep 40' }).linkedResult(A, interrupted);
  if (then.startsWith('elsewhere')) {
    t.linkedResult(C, 'slept').say('m3', 'Done waiting.');
    if (then !== 'elsewhere') {
      t.user('and now?');
    }
  } else if (then === 'from it') {
    t.user(interrupted).user('third');
  }
  return t.text();
}

/**
 * Claude Code 2.1.19, run here against a scripted API that refuses a request with a call and no
 * result: it wrote its own "API Error: 400 …" turn (model `<synthetic>`), then the late result;
 * the next request put the result right after its call (the error turn is never sent).
 */
function apiErrorBeforeResult(): string {
  const t = cc().call('m1', A, 'Task', { prompt: 'explore a' }).call('m1', B, 'Task', { prompt: 'explore b' }).linkedResult(B, 'stopped');
  t.user('second');
  ownNote(t, 'e1-synthetic', 'API Error: 400 due to tool use concurrency issues. Run /rewind to recover the conversation.', true);
  return t.result(A, 'done').user('third').text();
}

ruleTester(misplacedResult, {
  valid: [
    { name: 'Claude Code: the history written again from a new root', input: replayedHistory },
    { name: 'Claude Code 2.1.23: a result the first process wrote after the session was resumed in another process', input: lateResultOfFirstProcess() },
    { name: 'Claude Code 2.1.19: a late Task result hung from its call, and the session went on from another record (never sent)', input: lateTaskResult('elsewhere') },
    { name: "Claude Code's own API error turn between a call and its result (never sent)", input: apiErrorBeforeResult() },
    { name: 'parallel calls answered', input: healthyParallel },
    { name: 'streamed blocks', input: streamedBlocks },
    { name: 'interrupt note after the results', input: interrupted },
    { name: 'Codex developer note between a call and its output', input: codexNoteMidCall },
    { name: "Codex's warning about apply_patch through the shell, between the call and its output", input: codexPatchWarning },
    { name: 'Claude Code: text typed while the tools ran, delivered with a result', input: queuedWhileRunning },
    { name: 'Claude Code: a result written a line before its call', input: resultWrittenFirst() },
    { name: 'Claude Code: a second execution compacted its own branch while the call ran', input: compactedElsewhere() },
    { name: "Claude Code's own abort note between a batch and its refused results", input: abortNoteAmidBatch() },
    { name: "Claude Code: a Skill's instructions written between the batch's results", input: skillTextAmidResults },
    { name: "Claude Code: a slash command's own message line written between the batch's results", input: commandTextAmidResults },
    { name: 'Claude Code: a second answer to the same request, written below the first one cut short', input: secondAnswerBelow() },
    { name: 'Claude Code: a prompt typed while a call waited for permission, then its refusal', input: promptWhileAwaitingPermission() },
    {
      // The prompt hangs from the text before the call in its message: the session went on
      // without the call, and its result, hung from the call, comes after nothing of its own.
      name: 'Claude Code: the prompt in between hangs from the text before the call',
      input: (() => {
        const t = cc().say('m1', 'Executing in order').call('m1', A, 'mcp__linear__save_comment', { body: 'x' });
        return t.from(t.uuidAt(2)).user('PING').say('m2', 'PONG').from(t.uuidAt(3)).result(A, 'late').text();
      })(),
    },
  ],
  invalid: [
    {
      // The same from a build that sent a user message's blocks in file order (2.0.15 and before).
      name: 'Claude Code: a prompt typed while a call waited for permission, from a build that sends the text first',
      input: promptWhileAwaitingPermission('2.0.14'),
      errors: [{ messageId: 'afterText', line: 5 }],
    },
    {
      // The same shape with the prompt hung from the call itself: it came between the call and
      // its result, and the session went on from the result (the next request carried both).
      name: 'Claude Code: the prompt in between hangs from the call',
      input: (() => {
        const t = cc().say('m1', 'Executing in order').call('m1', A, 'mcp__linear__save_comment', { body: 'x' });
        return t.user('PING').say('m2', 'PONG').from(t.uuidAt(3)).result(A, 'late').user('and now?').text();
      })(),
      errors: [{ messageId: 'late', line: 6 }],
    },
    {
      // Claude Code 2.1.19, run here against a scripted API: a parallel Task's result written
      // late, hung from its call, then "[Request interrupted by user for tool use]" hung from it
      // and a prompt typed after that: the next request put the result after the later turn.
      name: 'Claude Code 2.1.19: a late Task result hung from its call, that the session then went on from',
      input: lateTaskResult('from it'),
      errors: [{ messageId: 'late', line: 7 }],
    },
    {
      // The process that wrote it sends its own list with the next prompt typed: the result after the later turns.
      name: 'Claude Code 2.1.19: a late Task result hung from its call, the session went on elsewhere, then a prompt was typed',
      input: lateTaskResult('elsewhere, then a prompt'),
      errors: [{ messageId: 'late', line: 7 }],
    },
    {
      name: 'Claude Code 2.1.19: a late Task result hung from its call, at the end of the file',
      input: lateTaskResult('nothing'),
      errors: [{ messageId: 'late', line: 7 }],
    },
    {
      name: 'result after the next assistant turn',
      input: cc().call('m1', A, 'Bash', { command: 'ls' }).say('m2', 'moving on').result(A, 'late').text(),
      errors: [{ messageId: 'late', line: 4 }],
    },
    {
      // Claude Code 2.0.15 and before sent a user message's blocks in file order: text first.
      name: 'result after a user prompt in the same message, from a build that sends the text first',
      input: new ClaudeTranscript().as('2.0.14').user('go').call('m1', A, 'Bash', { command: 'ls' }).user('hurry up').result(A, 'late').text(),
      errors: [{ messageId: 'afterText', line: 4 }],
    },
    {
      name: 'result hung from its call, after a compaction of its own branch',
      input: (() => {
        const t = cc().call('m1', A, 'Bash', { command: 'sleep 60' }).compact().user('continue');
        return t.from(t.uuidAt(2)).result(A, 'late').text();
      })(),
      errors: [{ messageId: 'acrossReset', line: 5 }],
    },
    {
      name: 'result hung from its call, after a compaction that continues from a hook record on its branch',
      input: (() => {
        const t = cc().call('m1', A, 'Bash', { command: 'sleep 60' }).attachment().compact().user('continue');
        return t.from(t.uuidAt(2)).result(A, 'late').text();
      })(),
      errors: [{ messageId: 'acrossReset', line: 6 }],
    },
    {
      name: 'result after a compaction',
      input: cc().call('m1', A, 'Bash', { command: 'ls' }).compact().user('continue').result(A, 'late').text(),
      errors: [{ messageId: 'acrossReset', line: 5 }],
    },
    {
      // compactedElsewhere with the result hung from the compacted history instead of from the
      // call: the result no longer follows the call, so the reset cut it off.
      name: 'Claude Code: a second execution compacted its own branch, and the result follows that history',
      input: (() => {
        const t = cc().call('m1', A, 'Bash', { command: 'sleep 600' });
        t.from(t.uuidAt(1)).user('<task-notification>done</task-notification>').say('m2', 'noted').compact().user('This session is being continued');
        return t.result(A, 'finished').text();
      })(),
      errors: [{ messageId: 'acrossReset', line: 7 }],
    },
  ],
});

/**
 * `n` calls, each on a branch of its own hung from the first prompt and never answered; then the
 * session comes back to the first call's branch, and to the next-to-last call's.
 */
function callsOnOwnBranches(n: number): string {
  const t = cc();
  for (let i = 0; i < n; i++) {
    t.from(t.uuidAt(1)).call(`m${i}`, `toolu_${i}`, 'Bash', { command: 'true' });
  }
  return t.from(t.uuidAt(2)).say('back0', 'back on the first branch').from(t.uuidAt(n)).say('backN', 'back on a recent branch').text();
}
/** The findings `callsOnOwnBranches(n)` must give: one per call (line 2 + i), `beforeNext` where `judged` says. */
function ownBranchFindings(n: number, judged: (i: number) => boolean): { messageId: string; line: number }[] {
  return Array.from({ length: n }, (_, i) => ({ messageId: judged(i) ? 'beforeNext' : 'abandoned', line: 2 + i }));
}

/** A message cut short after its call (line 3); the retried request's answer, hung from it, repeats the call, which runs (lines 4–6); then `next`. */
function retriedAfterCut(next: (t: ClaudeTranscript) => ClaudeTranscript): string {
  const t = cc().say('m1', 'Let me find the project files another way.').call('m1', A, 'Bash', { command: 'ls -R /w | head -80' });
  t.say('m2', 'Let me find them a different way.').call('m2', B, 'Bash', { command: 'ls -R /w | head -80' }).result(B, '/w: node_modules');
  return next(t).text();
}

ruleTester(missingResult, {
  valid: [
    { name: 'Claude Code: a call whose process died, then the history written again from a new root', input: replayedHistory },
    { name: 'parallel calls answered', input: healthyParallel },
    { name: 'streamed blocks', input: streamedBlocks },
    { name: 'compacted away', input: compactedAway },
    { name: 'interrupted with an error result', input: interrupted },
    { name: 'Codex developer note between a call and its output', input: codexNoteMidCall },
    { name: "Codex's warning about apply_patch through the shell, between the call and its output", input: codexPatchWarning },
    { name: 'Claude Code: text typed while the tools ran, delivered with a result', input: queuedWhileRunning },
    { name: 'Claude Code: a result written a line before its call', input: resultWrittenFirst() },
    { name: 'Claude Code: a second execution compacted its own branch while the call ran', input: compactedElsewhere() },
    { name: "Claude Code's own abort note between a batch and its refused results", input: abortNoteAmidBatch() },
    { name: "Claude Code: a Skill's instructions written between the batch's results", input: skillTextAmidResults },
    { name: "Claude Code: a slash command's own message line written between the batch's results", input: commandTextAmidResults },
    { name: 'Claude Code: a second answer to the same request, written below the first one cut short', input: secondAnswerBelow() },
    { name: 'Claude Code: a prompt typed while a call waited for permission, then its refusal', input: promptWhileAwaitingPermission() },
  ],
  invalid: [
    {
      name: 'Claude Code: a prompt typed while a call waited for permission, from a build that sends the text first',
      input: promptWhileAwaitingPermission('2.0.14'),
      errors: [{ messageId: 'beforeNext', line: 3, severity: 'error' }],
    },
    {
      // Claude Code 2.1.87: an MCP call that never returned; the person interrupted and typed,
      // and the prompt hangs from the text written before the call in its message. The model
      // answered: the call was cut from the history, not left there without a result.
      name: 'Claude Code: the next prompt hangs from the text before the call in its own message',
      input: (() => {
        const t = cc().say('m1', 'Executing in order').call('m1', A, 'mcp__linear__save_comment', { body: 'x' });
        return t.from(t.uuidAt(2)).user('PING').say('m2', 'PONG').text();
      })(),
      errors: [{ messageId: 'abandoned', line: 3, severity: 'warning' }],
    },
    {
      // The same shape with the prompt hung from the call itself: the call is in the history.
      // The model answered the prompt, so the API took that history: Claude Code stands a
      // placeholder in for the missing result before it sends (twentieth set: a call stuck in
      // a hook, then "why did this step got stuck", answered).
      name: 'Claude Code: the next prompt hangs from the call, and the model answers it',
      input: cc().say('m1', 'Executing in order').call('m1', A, 'mcp__linear__save_comment', { body: 'x' }).user('PING').say('m2', 'PONG').text(),
      errors: [{ messageId: 'answered', line: 3, severity: 'warning', message: /before the user prompt on line 4, yet the model answered on line 5: .*"\[Tool result missing due to internal error\]"/ }],
    },
    {
      // Claude Code's own note that the API refused the request is no answer of the model.
      name: 'Claude Code: the next prompt hangs from the call, and the API refuses the request',
      input: (() => {
        const t = cc().say('m1', 'Executing in order').call('m1', A, 'mcp__linear__save_comment', { body: 'x' }).user('PING');
        ownNote(t, '5b0e2c1a-synthetic', 'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.2: `tool_use` ids were found without `tool_result` blocks immediately after"}}', true);
        return t.text();
      })(),
      errors: [{ messageId: 'beforeNext', line: 3, severity: 'error' }],
    },
    {
      // Claude Code 2.1.47 (twenty-ninth set): a streamed message cut short after its Bash call;
      // the request sent again was answered with the same call (which ran), hung from the first.
      // The next request carried the first call too, and the model answered it.
      name: 'Claude Code: a call cut short, the retry\'s answer repeats it, and the model answers the next request',
      input: retriedAfterCut((t) => t.say('m3', 'Only node_modules is left.')),
      errors: [{ messageId: 'answered', line: 3, severity: 'warning', message: /before the next assistant turn on line 4, yet the model answered on line 7/ }],
    },
    {
      // The same, the next request refused: Claude Code's own API error, no answer of the model.
      name: 'Claude Code: a call cut short, the retry\'s answer repeats it, and the API refuses the next request',
      input: retriedAfterCut((t) =>
        ownNote(t, '5b0e2c1a-synthetic', 'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.2: `tool_use` ids were found without `tool_result` blocks immediately after"}}', true),
      ),
      errors: [{ messageId: 'beforeNext', line: 3, severity: 'error' }],
    },
    {
      // An answer that starts with a call is an answer too.
      name: 'Claude Code: the next prompt hangs from the call, and the model answers with a call',
      input: cc().say('m1', 'Executing in order').call('m1', A, 'mcp__linear__save_comment', { body: 'x' }).user('PING').call('m2', B, 'Bash', { command: 'ls' }).result(B, 'a').text(),
      errors: [{ messageId: 'answered', line: 3, severity: 'warning' }],
    },
    {
      // Claude Code's own "No response requested." sent no request: the first to carry the calls
      // is the next prompt's, and the model answered it (a placeholder stood in for each result).
      name: 'Claude Code: its own "No response requested." after a batch left unanswered, then a prompt the model answers',
      input: unsentReplyAfterBatch(true),
      errors: [
        { messageId: 'answered', line: 3, severity: 'warning', message: /before the next assistant turn on line 6, yet the model answered on line 8/ },
        { messageId: 'answered', line: 4, severity: 'warning' },
      ],
    },
    {
      // Claude Code 2.1.121 (twenty-eighth set): the process died during a batch's second call;
      // the resumed one wrote a meta "Continue from where you left off.", its own "No response
      // requested.", and the person's prompt, which the model answered.
      name: 'Claude Code: resumed with "Continue from where you left off." and "No response requested.", then a prompt the model answers',
      input: (() => {
        const t = cc()
          .call('m1', A, 'TodoWrite', { todos: [] })
          .call('m1', B, 'Bash', { command: 'cp -r /home/dev/.claude/projects /w/archive/' })
          .linkedResult(A, 'Todos have been modified successfully.')
          .user('Continue from where you left off.', { isMeta: true });
        return ownNote(t, '0d8b48bb-synthetic', 'No response requested.', false).user('so the projects folder shows every project?').say('m2', 'Yes. Copying it now.').text();
      })(),
      errors: [{ messageId: 'answered', line: 3, severity: 'warning', message: /before the user message on line 5, yet the model answered on line 8/ }],
    },
    {
      // Claude Code 2.1.120 running deepseek-v4-flash (twenty-eighth set): the first call of a
      // two-call batch got no result; the model wrote the next turn, so its provider took the
      // history. No Anthropic refusal is claimed.
      name: "Claude Code with another provider's model: a call without a result, then the model's next turn",
      input: anotherModel(cc().call('m1', 'call_00_uCAloBlXSh5i8VzfP3fycWaS', 'Read', { file_path: '/w/MEMORY.md' }).call('m1', 'call_01_OUmoTmOoyTQuwxZBEBo03YB4', 'Glob', { pattern: '/w/**/*' }))
        .linkedResult('call_01_OUmoTmOoyTQuwxZBEBo03YB4', '/w/a.md')
        .say('m2', 'Let me read the quote template first.')
        .text(),
      errors: [{ messageId: 'answeredTurn', line: 2, severity: 'warning', message: /which deepseek-v4-flash wrote: its provider took the history/ }],
    },
    {
      // The same with Claude Code's own API error as the next turn: the request was refused.
      name: "Claude Code with another provider's model: a call without a result, then Claude Code's API error",
      input: (() => {
        const t = anotherModel(cc().call('m1', 'call_00_a', 'Read', { file_path: '/w/MEMORY.md' }).call('m1', 'call_01_b', 'Glob', { pattern: '/w/**/*' })).linkedResult('call_01_b', '/w/a.md');
        ownNote(t, '5b0e2c1a-synthetic', 'API Error: 400 {"error":{"message":"Messages with role \'tool\' must be a response to a preceding message with \'tool_calls\'"}}', true);
        return t.text();
      })(),
      errors: [{ messageId: 'beforeNext', line: 2, severity: 'error' }],
    },
    {
      name: 'Claude Code: its own "No response requested." after a batch left unanswered, then a prompt nothing answers',
      input: unsentReplyAfterBatch(false),
      errors: [
        { messageId: 'beforeNext', line: 3, severity: 'error' },
        { messageId: 'beforeNext', line: 4, severity: 'error' },
      ],
    },
    {
      // With no answer (yet), nothing says the request went through. Claude Code 2.0.19 and
      // later would send the prompt with the result, first: the file ends while it waits for it.
      name: 'Claude Code: the next prompt hangs from the call, and nothing answers it',
      input: cc().say('m1', 'Executing in order').call('m1', A, 'mcp__linear__save_comment', { body: 'x' }).user('PING').text(),
      errors: [{ messageId: 'atEnd', line: 3, severity: 'warning' }],
    },
    {
      // 2.0.15 and before sent the prompt on its own, text first: the request was broken.
      name: 'Claude Code: the next prompt hangs from the call, and nothing answers it, from a build that sends the text first',
      input: new ClaudeTranscript().as('2.0.14').user('go').say('m1', 'Executing in order').call('m1', A, 'mcp__linear__save_comment', { body: 'x' }).user('PING').text(),
      errors: [{ messageId: 'beforeNext', line: 3, severity: 'error' }],
    },
    {
      // Codex's own wording already says what it sends in the output's place.
      name: 'Codex: a prompt before the output, then the model answers: as before',
      input: new CodexRollout().user('go').exec('call_1', 'sleep 5').user('hello?').say('hi').text(),
      errors: [{ messageId: 'beforeNext', line: 3, severity: 'error' }],
    },
    {
      // The next records hang from a record the file lost (its call too): the call's own
      // history ends with it.
      name: 'Claude Code: what comes next hangs from a record not in the file',
      input: cc().call('m1', A, 'Bash', { command: 'git commit -m x' }).from('ffffffff-0000-4000-8000-00000000dead').result(B, 'HEAD is now at 040ca3a x').say('m2', 'done').text(),
      errors: [{ messageId: 'gap', line: 2, severity: 'warning' }],
    },
    {
      // The call's own message hangs from a record the file does not hold (Claude Code 2.1.39
      // through `glm-4.7`, thirtieth set: a streamed answer cut short, its first block never
      // written), and the answer to the request sent again hangs from the result before it:
      // the file does not show that the session passed the call by, so an info that says so.
      name: 'Claude Code: the call hangs from a record not in the file, and the session goes on beside it',
      input: (() => {
        const t = cc().bash('m1', 'call_LS', 'ls', 'a.txt');
        const request = t.uuidAt(t.lines.length);
        t.from('ffffffff-0000-4000-8000-00000000dead').call('m2', A, 'Write', { file_path: '/home/dev/proj/b.txt', content: 'b' });
        return t.from(request).say('m3', 'Writing the core files.').call('m3', B, 'Write', { file_path: '/home/dev/proj/c.txt', content: 'c' }).result(B, 'ok').text();
      })(),
      errors: [{ messageId: 'detached', line: 4, severity: 'info', message: /went on without it from line 5; but its message hangs from a record the file does not hold/ }],
    },
    {
      // A transcript with a block overwritten by other data: the result may be in it.
      name: 'a line that cannot be read between the call and the next prompt: a warning that says so',
      input: new CodexRollout().user('go').exec('c1', 'make').raw('{"timestamp": "2026-01-02T03:04:0').raw('\u0000\u0000 models_cache').user('and now?').text(),
      errors: [{ messageId: 'unreadable', line: 3, severity: 'warning' }],
    },
    {
      name: 'a line that cannot be read before the call changes nothing',
      input: new CodexRollout().user('go').raw('{"broken').exec('c1', 'make').user('and now?').text(),
      errors: [{ messageId: 'beforeNext', line: 4, severity: 'error' }],
    },
    {
      name: 'next assistant turn first',
      input: cc().call('m1', A, 'Bash', { command: 'ls' }).say('m2', 'moving on').text(),
      errors: [{ messageId: 'beforeNext', line: 2 }],
    },
    {
      name: 'user prompt first, from a build that sends the text first',
      input: new ClaudeTranscript().as('2.0.14').user('go').call('m1', A, 'Bash', { command: 'ls' }).user('hello?').text(),
      errors: [{ messageId: 'beforeNext', line: 2 }],
    },
    {
      name: 'user prompt first, then the file ends: the prompt waits for the result',
      input: cc().call('m1', A, 'Bash', { command: 'ls' }).user('hello?').text(),
      errors: [{ messageId: 'atEnd', line: 2, severity: 'warning' }],
    },
    {
      // Claude Code's own note that the API refused the request that carried the prompt.
      name: 'Claude Code: user prompt first, then its own API error: the request was broken',
      input: (() => {
        const t = cc().call('m1', A, 'Bash', { command: 'ls' }).user('hello?');
        ownNote(t, '5b0e2c1a-synthetic', 'API Error: 400 {"type":"error","error":{"type":"invalid_request_error","message":"messages.2: `tool_use` ids were found without `tool_result` blocks immediately after"}}', true);
        return t.text();
      })(),
      errors: [{ messageId: 'beforeNext', line: 2, severity: 'error', message: /before the user prompt on line 3/ }],
    },
    {
      name: 'unanswered at the end of the file: lower severity',
      input: cc().call('m1', A, 'Bash', { command: 'sleep 100' }).text(),
      errors: [{ messageId: 'atEnd', line: 2, severity: 'warning' }],
    },
    {
      // Plan mode's "clear context" (Claude Code 2.1.71–2.1.76, thirty-first and thirty-third
      // sets): the refused result is the first record of the new session's file. A call beside
      // the plan approval is still reported as ever.
      name: 'Claude Code: a plan approval left open at the end of the file is the person’s to answer: info that says so',
      input: cc()
        .call('m1', A, 'ExitPlanMode', { plan: '# Plan\n1. Split the module' })
        .text(),
      errors: [{ messageId: 'planAtEnd', line: 2, severity: 'info' }],
    },
    {
      name: 'Codex user prompt before the output',
      input: new CodexRollout().user('go').exec('call_1', 'sleep 5').user('hello?').output('call_1', 'late').text(),
      errors: [{ messageId: 'beforeNext', line: 3 }],
    },
    {
      // Every call the session passed by is judged again at each later message: coming back to
      // the first branch finds its call still without a result.
      name: 'Claude Code: sixty calls on branches of their own, then back to the first and to a recent one',
      input: callsOnOwnBranches(60),
      errors: ownBranchFindings(60, (i) => i === 0 || i === 58),
    },
    {
      // Past 64 calls passed by, the oldest are judged only at the end of the file (abandoned);
      // the newest 64 are still judged at each message, and every call is still reported once.
      name: 'Claude Code: sixty-six calls on branches of their own, then back to the first and to a recent one',
      input: callsOnOwnBranches(66),
      errors: ownBranchFindings(66, (i) => i === 64),
    },
    {
      name: 'Codex turn aborted',
      input: new CodexRollout().user('go').shell('c1', 'sleep 5').event('turn_aborted').text(),
      errors: [{ messageId: 'aborted', line: 3 }],
    },
  ],
});

/** Kimi's call ids, and a transcript of Claude Code running Kimi K2.6 through OpenRouter. */
const K0 = 'functions.Read:0';
const kimi = (text: string): string => text.replace(/claude-opus-4-6/g, 'moonshotai/kimi-k2.6-20260420');

ruleTester(duplicateCallId, {
  valid: [
    { name: 'distinct ids', input: healthyParallel },
    { name: 'Claude Code: the history written again under new uuids, with its message and call ids', input: replayedHistory },
    { name: "Claude Code 2.0.x: a copy that splits the original's thinking and tool_use record in two", input: copySplitsMessage() },
    { name: 'Claude Code 2.0.53: a copy hung from the result the file starts with, below a record it no longer holds', input: copyBelowLostRecord() },
    {
      name: 'Claude Code: one id on two branches of the tree (never in one request)',
      input: (() => {
        const t = cc();
        return t.call('m1', A, 'Bash', { command: 'ls' }).result(A, 'a').from(t.uuidAt(1)).call('m2', A, 'Bash', { command: 'ls' }).result(A, 'a').text();
      })(),
    },
  ],
  invalid: [
    {
      name: 'one id in two turns',
      input: cc().call('m1', A, 'Bash', { command: 'ls' }).result(A, 'a').call('m2', A, 'Bash', { command: 'ls' }).result(A, 'a').text(),
      errors: [{ messageId: 'duplicate', line: 4, severity: 'error', message: /the API rejects the request/ }],
    },
    {
      // Kimi through OpenRouter numbers its calls per response; the provider took the history.
      name: "Claude Code with another provider's model: an id reused in a later response, after the first call's result",
      input: kimi(cc().call('m1', K0, 'Read', { file_path: '/w/a.ts' }).result(K0, 'a').call('m2', K0, 'Read', { file_path: '/w/b.ts' }).result(K0, 'b').text()),
      errors: [{ messageId: 'duplicate', line: 4, severity: 'info', message: /can no longer be told apart\.$/ }],
    },
    {
      // Only an answered first call tells the two apart by place.
      name: "Claude Code with another provider's model: an id reused in a later response, the first call unanswered",
      input: kimi(cc().call('m1', K0, 'Read', { file_path: '/w/a.ts' }).call('m2', K0, 'Read', { file_path: '/w/b.ts' }).result(K0, 'b').text()),
      errors: [{ messageId: 'duplicate', line: 3, severity: 'error' }],
    },
    {
      name: "Claude Code with another provider's model: one id twice in one response",
      input: kimi(cc().call('m1', K0, 'Read', { file_path: '/w/a.ts' }).call('m1', K0, 'Read', { file_path: '/w/b.ts' }).result(K0, 'a').text()),
      errors: [{ messageId: 'duplicate', line: 3, severity: 'error', message: /can no longer be told apart\.$/ }],
    },
  ],
});

/**
 * Claude Code 2.1.66–2.1.79 running Kimi K2.5 (lyraqin/claude-my-project, forty-third set): a
 * streamed answer cut short after its call (no `stop_reason`, `output_tokens` 0, then an empty
 * text block), and the retried request's answer hung below it. Kimi numbers its calls by their
 * place in the conversation, so the retry's first call has the cut call's id; that one ran and
 * its result follows it. The cut call never ran, and the next requests carried it unanswered.
 */
const K12 = 'functions.Bash:12';
const K13 = 'functions.Bash:13';
function kimiRetrySameId(): string {
  const t = cc().call('m1', K12, 'Bash', { command: 'ls -la /w/' }).say('m1', '');
  t.call('m2', K12, 'Bash', { command: 'ls -la /w/' }).call('m2', K13, 'Bash', { command: 'find /w -name "*.py"' });
  t.result(K12, 'total 8').result(K13, '(Bash completed with no output)').say('m3', 'The folder holds no scripts.');
  return kimi(t.text());
}

/**
 * Claude Code 2.1.79 behind a router (lyraqin/claude-my-project, forty-third set): Kimi's answer
 * cut short after its call, and the request sent again answered by another model (`z-ai/glm5`),
 * whose text opens the next turn: the finding names the turn's model, not the call's.
 */
function routedRetry(): string {
  const t = cc().call('m1', 'functions.Glob:0', 'Glob', { pattern: '**/*.xml' }).say('m1', '');
  t.say('m2', 'Let me look for them.').call('m2', B, 'Glob', { pattern: '**/*.xml' }).result(B, 'No files found').say('m3', 'There are none.');
  return kimi(t.text())
    .split('\n')
    .map((line, i) => (i >= 3 ? line.replace('moonshotai/kimi-k2.6-20260420', 'z-ai/glm5') : line))
    .join('\n');
}

/**
 * Claude Code 2.1.79 (lyraqin/claude-my-project, forty-third set): a session started with a
 * skill's slash command (its `<command-message>` line, then the skill's meta text); an answer
 * cut short, hung from a record the file does not hold, then the answer to the request sent
 * again, hung from the skill's text, which the file holds.
 */
function cutBelowLostAfterCommand(): string {
  const t = new ClaudeTranscript().user('<command-message>lit-review</command-message>\n<command-name>/lit-review</command-name>');
  t.user('Base directory for this skill: /w/.claude/skills/lit-review', { isMeta: true });
  t.from('48e03103-0000-4000-8000-000000000000').call('m1', A, 'AskUserQuestion', { questions: [] });
  return t.from(t.uuidAt(2)).say('m2', 'Let me look at the papers first.').text();
}

ruleTester(missingResult, {
  valid: [],
  invalid: [
    {
      // The session went on from a line the file holds: no record was lost there, and the call's
      // own message hangs from one that was (detached), not the line after it (gap).
      name: 'Claude Code: a call hung from a lost record, passed by from the slash command the session starts with',
      input: cutBelowLostAfterCommand(),
      errors: [{ messageId: 'detached', line: 3, severity: 'info' }],
    },
    {
      name: "Claude Code behind a router: Kimi's call cut short, the next turn written by another model",
      input: routedRetry(),
      errors: [{ messageId: 'answeredTurn', line: 2, severity: 'warning', message: /before the next assistant turn on line 4, which z-ai\/glm5 wrote:/ }],
    },
    {
      // Only the call cut short is unanswered: the result after the retry's message is its call's.
      name: "Claude Code with Kimi: a call cut short, the retry's answer repeats it under the same id",
      input: kimiRetrySameId(),
      errors: [{ messageId: 'answeredTurn', line: 2, severity: 'warning', message: /before the next assistant turn on line 4, which moonshotai\/kimi-k2\.6-20260420 wrote/ }],
    },
  ],
});

ruleTester(misplacedResult, {
  valid: [{ name: "Claude Code with Kimi: a call cut short, the retry's answer repeats it under the same id", input: kimiRetrySameId() }],
  invalid: [],
});
