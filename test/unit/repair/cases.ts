/**
 * The broken transcripts repair must round-trip, with the edits expected for each. Shared by
 * the planner tests (every case) and the CLI tests (a few of them, on disk).
 */
import { ClaudeTranscript } from '../support/claude';
import { AmplifierTranscript } from './support';

export const A = 'toolu_01AAAAAAAAAAAAAAAAAAAAAA';
export const B = 'toolu_01BBBBBBBBBBBBBBBBBBBBBB';
export const C = 'toolu_01CCCCCCCCCCCCCCCCCCCCCC';
export const placeholder = 'Tool execution was interrupted and no result was captured.';

export interface BrokenCase {
  name: string;
  agent: 'claude-code' | 'amplifier';
  text: string;
  /** Edits in `brief()` form, in plan order. */
  edits: string[];
  /** Pairing rules reported on the broken transcript (rule@line). */
  findings: string[];
  closeOpenCalls?: boolean;
  /** Lines (1-based, in the repaired file) whose content must be the result for this id. */
  resultOrder?: string[];
}

const cc = (): ClaudeTranscript => new ClaudeTranscript().user('go');
const amp = (): AmplifierTranscript => new AmplifierTranscript().user('go');

/** The seed incident: placeholders, a second turn, then the real results land late. */
export function seedsRace(): ClaudeTranscript {
  return new ClaudeTranscript()
    .user('delegate both')
    .call('msg_1', A, 'Task', { prompt: 'slow one', subagent_type: 'general' })
    .call('msg_1', B, 'Task', { prompt: 'slow two', subagent_type: 'general' })
    .result(A, placeholder, { isError: true })
    .result(B, placeholder, { isError: true })
    .user('are you there?')
    .say('msg_2', 'yes, still working')
    .result(A, 'real result A')
    .result(B, 'real result B');
}

/** The same race with Claude Code's own links: each result hangs from its tool_use entry. */
export function seedsRaceLinked(): ClaudeTranscript {
  return new ClaudeTranscript()
    .user('delegate both')
    .call('msg_1', A, 'Task', { prompt: 'slow one', subagent_type: 'general' })
    .call('msg_1', B, 'Task', { prompt: 'slow two', subagent_type: 'general' })
    .linkedResult(A, placeholder, { isError: true })
    .linkedResult(B, placeholder, { isError: true })
    .user('are you there?')
    .say('msg_2', 'yes, still working')
    .linkedResult(A, 'real result A')
    .linkedResult(B, 'real result B');
}

export function amplifierRace(): AmplifierTranscript {
  return new AmplifierTranscript()
    .user('Ask the reviewer agent to check the migration')
    .calls({ id: A, tool: 'delegate', args: { agent: 'reviewer' } }, { id: B, tool: 'delegate', args: { agent: 'tester' } })
    .placeholder(A, 'delegate')
    .placeholder(B, 'delegate')
    .say('The previous tool calls were interrupted. This response was automatically repaired.')
    .user('Any news from the reviewer?')
    .say('Not yet.')
    .result(A, 'delegate', 'LGTM')
    .result(B, 'delegate', 'tests pass');
}

export const brokenCases: BrokenCase[] = [
  {
    name: 'duplicate result',
    agent: 'claude-code',
    text: cc().call('m1', A, 'Bash', { command: 'npm test' }).result(A, 'ok').result(A, 'ok').say('m2', 'done').text(),
    findings: ['duplicate-result@4'],
    edits: ['drop 4', 'relink 5'],
  },
  {
    name: 'placeholder, then the real result',
    agent: 'claude-code',
    text: cc().call('m1', A, 'Bash', { command: 'ls' }).result(A, placeholder, { isError: true }).result(A, 'real').say('m2', 'ok').text(),
    findings: ['duplicate-result@4'],
    edits: ['drop 3', 'relink 4'],
    resultOrder: ['real'],
  },
  {
    name: 'a result after the next assistant turn',
    agent: 'claude-code',
    text: cc().call('m1', A, 'Bash', { command: 'ls' }).say('m2', 'moving on').result(A, 'late').text(),
    findings: ['missing-result@2', 'misplaced-result@4'],
    edits: ['move 4>2', 'relink 4', 'relink 3'],
  },
  {
    // Claude Code 2.0.15 and before sent the text first (later builds send the result first,
    // and the same lines need no repair).
    name: 'a result after a user prompt',
    agent: 'claude-code',
    text: new ClaudeTranscript().as('2.0.14').user('go').call('m1', A, 'Bash', { command: 'ls' }).user('hurry up').result(A, 'late').text(),
    findings: ['missing-result@2', 'misplaced-result@4'],
    edits: ['move 4>2', 'relink 4', 'relink 3'],
  },
  {
    name: 'a result after a compaction',
    agent: 'claude-code',
    text: cc().call('m1', A, 'Bash', { command: 'ls' }).compact().user('continue').result(A, 'late').text(),
    findings: ['misplaced-result@5'],
    edits: ['move 5>2', 'relink 5'],
  },
  {
    name: 'no result before the next turn',
    agent: 'claude-code',
    text: cc().call('m1', A, 'Bash', { command: 'ls' }).say('m2', 'next').text(),
    findings: ['missing-result@2'],
    edits: ['insert >2', 'relink 3'],
  },
  {
    name: 'no result, with hook progress lines after the call',
    agent: 'claude-code',
    text: cc().call('m1', A, 'Edit', { file_path: '/home/dev/proj/a.ts', old_string: 'a', new_string: 'b' }).progress(A).progress(A).say('m2', 'next').text(),
    findings: ['missing-result@2'],
    edits: ['insert >2', 'relink 3'],
  },
  {
    name: 'parallel calls linked the way Claude Code links them, one result late',
    agent: 'claude-code',
    text: cc().call('m1', A, 'Bash', { command: 'ls' }).call('m1', B, 'Bash', { command: 'pwd' }).linkedResult(A, 'a').say('m2', 'moving on').linkedResult(B, 'late b').text(),
    findings: ['missing-result@3', 'misplaced-result@6'],
    edits: ['move 6>4', 'relink 6', 'relink 5'],
  },
  {
    name: 'a partial fan-out: three calls, two results, then the next turn',
    agent: 'claude-code',
    text: cc().call('m1', A, 'Bash', { command: 'ls' }).call('m1', B, 'Bash', { command: 'pwd' }).call('m1', C, 'Bash', { command: 'id' }).result(A, 'a').result(B, 'b').say('m2', 'next').text(),
    findings: ['missing-result@4'],
    edits: ['insert >6', 'relink 7'],
  },
  {
    name: 'no result at the end of the file, with --close-open-calls',
    agent: 'claude-code',
    text: cc().call('m1', A, 'Bash', { command: 'sleep 100' }).text(),
    findings: ['missing-result@2'],
    edits: ['insert >2'],
    closeOpenCalls: true,
  },
  {
    name: 'an orphan result',
    agent: 'claude-code',
    text: cc().call('m1', A, 'Bash', { command: 'ls' }).result(A, 'x').result(C, 'stray').say('m2', 'ok').text(),
    findings: ['orphan-result@4'],
    edits: ['drop 4', 'relink 5'],
  },
  {
    name: "the seeds' race: placeholders, a second turn, late real results",
    agent: 'claude-code',
    text: seedsRace().text(),
    findings: ['duplicate-result@8', 'misplaced-result@8', 'duplicate-result@9', 'misplaced-result@9'],
    edits: ['drop 4', 'move 8>3', 'relink 8', 'drop 5', 'move 9>8', 'relink 6'],
    resultOrder: ['real result A', 'real result B'],
  },
  {
    name: "the seeds' race, linked the way Claude Code links results",
    agent: 'claude-code',
    text: seedsRaceLinked().text(),
    findings: ['duplicate-result@8', 'misplaced-result@8', 'duplicate-result@9', 'misplaced-result@9'],
    edits: ['drop 4', 'move 8>3', 'drop 5', 'move 9>8', 'relink 6'],
    resultOrder: ['real result A', 'real result B'],
  },
  {
    name: 'Amplifier: duplicate result',
    agent: 'amplifier',
    text: amp().call(A, 'bash').result(A, 'bash', 'ok').result(A, 'bash', 'ok').say('done').text(),
    findings: ['duplicate-result@4'],
    edits: ['drop 4'],
  },
  {
    name: 'Amplifier: placeholder, then the real result',
    agent: 'amplifier',
    text: amp().call(A, 'bash').placeholder(A, 'bash').result(A, 'bash', 'real').say('done').text(),
    findings: ['duplicate-result@4'],
    edits: ['drop 3'],
  },
  {
    name: 'Amplifier: a result after the next assistant turn',
    agent: 'amplifier',
    text: amp().call(A, 'bash').say('moving on').result(A, 'bash', 'late').text(),
    findings: ['missing-result@2', 'misplaced-result@4'],
    edits: ['move 4>2'],
  },
  {
    name: 'Amplifier: a result after a user prompt',
    agent: 'amplifier',
    text: amp().call(A, 'bash').user('hurry up').result(A, 'bash', 'late').text(),
    findings: ['missing-result@2', 'misplaced-result@4'],
    edits: ['move 4>2'],
  },
  {
    name: 'Amplifier: no result before the next turn',
    agent: 'amplifier',
    text: amp().call(A, 'bash').say('next').text(),
    findings: ['missing-result@2'],
    edits: ['insert >2'],
  },
  {
    name: 'Amplifier: no result at the end of the file, with --close-open-calls',
    agent: 'amplifier',
    text: amp().calls({ id: A, tool: 'read_file' }, { id: B, tool: 'read_file' }).result(A, 'read_file', 'x = 1').text(),
    findings: ['missing-result@2'],
    edits: ['insert >3'],
    closeOpenCalls: true,
  },
  {
    name: 'Amplifier: an orphan result',
    agent: 'amplifier',
    text: amp().call(A, 'bash').result(A, 'bash', 'x').result(C, 'bash', 'stray').say('ok').text(),
    findings: ['orphan-result@4'],
    edits: ['drop 4'],
  },
  {
    name: "Amplifier: the seeds' race",
    agent: 'amplifier',
    text: amplifierRace().text(),
    findings: ['duplicate-result@8', 'misplaced-result@8', 'duplicate-result@9', 'misplaced-result@9'],
    edits: ['drop 3', 'move 8>2', 'drop 4', 'move 9>8'],
  },
];
