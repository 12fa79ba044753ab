/** The branch tracker forked-session and overlapping-executions share: each rule judges as it would alone. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { RuleModule } from '../../../src/core/engine/rule';
import { forkedSession } from '../../../src/core/rules/forked-session';
import { missingResult } from '../../../src/core/rules/missing-result';
import { overlappingExecutions } from '../../../src/core/rules/overlapping-executions';
import { BranchTracker } from '../../../src/core/rules/support/branches';
import type { Span } from '../../../src/core/model/events';
import { alternateBranches, ClaudeTranscript } from '../support/claude';
import { prng, run } from '../support/run';

/** The findings of `rules` (every rule when not given), as `rule:messageId@line`. */
const found = (text: string, rules?: RuleModule[]): string[] =>
  run(text, rules ? { rules } : {})
    .findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`)
    .sort();

/** Two branches of one file written alternately, and a prompt on another branch while a call is pending. */
function forkedTranscript(): string {
  const { t, y1, x2 } = alternateBranches();
  t.from(y1).user('Y again').say('m5', 'y2');
  t.from(x2).user('X once more').call('m6', 'toolu_SLOW', 'Task', { prompt: 'slow' });
  t.from(x2).user('meanwhile, something else');
  return t.text();
}

void describe('shared branch tracker', () => {
  void test('each branch rule reports the same alone, together, and in either order', () => {
    const text = forkedTranscript();
    const forked = found(text, [forkedSession]);
    const overlapping = found(text, [overlappingExecutions]);
    assert.deepEqual(forked, ['forked-session:forked@7']);
    assert.deepEqual(overlapping, ['overlapping-executions:branch@13', 'overlapping-executions:interleaved@9']);
    const both = [...forked, ...overlapping].sort();
    assert.deepEqual(found(text, [forkedSession, overlappingExecutions]), both);
    assert.deepEqual(found(text, [overlappingExecutions, forkedSession]), both);
  });
});

/**
 * Claude Code 2.0.29 resuming a session whose process died while a call ran (the model ran
 * `taskkill //F //IM node.exe`): it writes the last turn again as a sibling branch, with the same
 * message ids and without the dead call, then goes on there. `copy` false: the new branch's first
 * message is a new one instead.
 */
function crashedAndReplayed(copy: boolean): string {
  const t = new ClaudeTranscript().user('restart the dev server').say('m1', 'checking');
  const fork = t.uuidAt(2);
  t.user('？').say('m2', 'listing').call('m2', 'toolu_LIST', 'Bash', { command: 'ls' }).result('toolu_LIST', 'a');
  t.say('m3', 'killing node').call('m3', 'toolu_KILL', 'Bash', { command: 'taskkill //F //IM node.exe' });
  t.from(fork).user('？').say(copy ? 'm2' : 'm9', 'listing').call(copy ? 'm2' : 'm9', 'toolu_LIST', 'Bash', { command: 'ls' }).result('toolu_LIST', 'a');
  t.say(copy ? 'm3' : 'm8', 'killing node');
  t.user('go on').say('m4', 'ok');
  return t.text();
}

void describe('a crashed session written again as a sibling branch', () => {
  void test('the copy is not a second execution, the dead call is left at the end of its branch, and its id is no duplicate', () => {
    const { findings } = run(crashedAndReplayed(true));
    assert.deepEqual(
      findings.map((f) => `${f.rule}:${f.severity}@${f.line}`),
      ['missing-result:warning@8'],
    );
  });

  void test('a new message there instead: two executions', () => {
    assert.deepEqual(found(crashedAndReplayed(false), [overlappingExecutions]), ['overlapping-executions:branch@9']);
  });
});

void describe("Claude Code's own note when it resumes a session whose process died", () => {
  /** A build ran; the process died; Claude Code resumed from before the call with a meta prompt and a `<synthetic>` reply. `goesOn`: the old run then writes on. */
  function resumed(goesOn: boolean): string {
    const t = new ClaudeTranscript().user('build it').say('m1', 'building');
    const before = t.uuidAt(2);
    t.call('m2', 'toolu_BUILD', 'Bash', { command: 'make image' });
    const call = t.uuidAt(3);
    t.from(before).user('Continue from where you left off.', { isMeta: true }).say('m3', 'No response requested.');
    const last = JSON.parse(t.lines[t.lines.length - 1]!) as { message: { model: string } };
    last.message.model = '<synthetic>';
    t.lines[t.lines.length - 1] = JSON.stringify(last);
    t.user('is it built?').say('m4', 'not yet');
    if (goesOn) {
      t.from(call).result('toolu_BUILD', 'done').say('m5', 'built').user('and now?').say('m6', 'ok').from(call).say('m7', 'still here');
    }
    return t.text();
  }

  void test('the synthetic reply at the fork is no second execution; the dead call was passed by', () => {
    const { findings } = run(resumed(false));
    assert.deepEqual(
      findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`),
      ['missing-result:abandoned@3'],
    );
  });

  void test('a later fork of the resumed session is not judged by the dead call', () => {
    // Claude Code 2.1.143 (saurabh-tyagi/claude-config, thirty-fifth set): an ExitPlanMode left
    // waiting when the process died; two days later the session was resumed from before it (the
    // meta prompt and the synthetic reply), the person ran /plan, and a second process resumed
    // too: its own "No response requested." and the person's prompt hang side by side from the
    // /plan output. The dead call waits on nothing there: no execution was in flight.
    const t = new ClaudeTranscript().user('plan the audit log API').say('m1', 'planning');
    const before = t.uuidAt(2);
    t.call('m2', 'toolu_PLAN', 'ExitPlanMode', { plan: '# Plan' });
    t.from(before).user('Continue from where you left off.', { isMeta: true }).say('m3', 'No response requested.');
    const synthetic = (): void => {
      const last = JSON.parse(t.lines[t.lines.length - 1]!) as { message: { model: string } };
      last.message.model = '<synthetic>';
      t.lines[t.lines.length - 1] = JSON.stringify(last);
    };
    synthetic();
    t.user('<local-command-stdout>Current Plan</local-command-stdout>');
    const planShown = t.uuidAt(6);
    t.say('m4', 'No response requested.');
    synthetic();
    t.from(planShown).user('implement the plan').say('m5', 'on it');
    assert.deepEqual(found(t.text(), [overlappingExecutions]), []);
    assert.deepEqual(
      run(t.text()).findings.map((f) => `${f.rule}:${f.messageId}@${f.line}`),
      ['missing-result:abandoned@3'],
    );
  });

  void test('if the old run writes on after all, the overlap is still reported', () => {
    const rules = found(resumed(true), [forkedSession, overlappingExecutions]);
    assert.ok(rules.some((r) => r.startsWith('forked-session:')), rules.join(', '));
  });
});

void describe('a sub-agent moved to the background: Claude Code runs it again from its prompt, in the same file', () => {
  /**
   * Claude Code 2.1.39–2.1.42 (13562964800/claude-skills, twenty-ninth set): the main session's
   * Task result says "Async agent launched"; the agent's file gets a second branch from its
   * prompt, and the first run's request in flight is answered there seconds later (`late`: a call
   * that never ran, or a text block that falls between two blocks of the new run's message).
   * `goesOn`: the first run then writes on after all.
   */
  function restarted(late: 'call' | 'text', goesOn = false): string {
    const t = new ClaudeTranscript();
    t.sidechain = true;
    t.user('Refactor the data layer: data/repository/ …');
    const prompt = t.uuidAt(1);
    t.say('m1', 'I will create the directories first.').call('m1', 'toolu_MKDIR', 'Bash', { command: 'mkdir -p data/repository' }).result('toolu_MKDIR', '');
    t.call('m2', 'toolu_TASK', 'TaskCreate', { subject: 'Create Result.kt' }).result('toolu_TASK', 'Task #17 created');
    const firstRun = t.uuidAt(t.lines.length);
    t.from(prompt).say('m3', 'Let me look at the project first.').call('m3', 'toolu_GLOB', 'Glob', { pattern: '**/*.kt' }).result('toolu_GLOB', '/home/dev/proj/Daos.kt');
    t.say('m4', 'Now the DAOs:').call('m4', 'toolu_READ1', 'Read', { file_path: '/home/dev/proj/Daos.kt' });
    const read1 = t.uuidAt(t.lines.length);
    let lateLine: string;
    if (late === 'call') {
      // Between two messages of the new run (the first run's Write was never carried out).
      t.call('m4', 'toolu_READ2', 'Read', { file_path: '/home/dev/proj/Entities.kt' });
      t.from(read1).result('toolu_READ1', 'dao').result('toolu_READ2', 'entities');
      const newRun = t.uuidAt(t.lines.length);
      t.from(firstRun).call('m9', 'toolu_WRITE', 'Write', { file_path: '/home/dev/proj/core/result/Result.kt', content: 'sealed class Result' });
      lateLine = t.uuidAt(t.lines.length);
      t.from(newRun);
    } else {
      t.from(firstRun).say('m9', 'Now I will create the files.');
      lateLine = t.uuidAt(t.lines.length);
      t.from(read1).call('m4', 'toolu_READ2', 'Read', { file_path: '/home/dev/proj/Entities.kt' });
      t.from(read1).result('toolu_READ1', 'dao').result('toolu_READ2', 'entities');
    }
    t.say('m5', 'The repository files are next.');
    if (goesOn) {
      t.from(lateLine).say('m10', 'Created Result.kt.').say('m11', 'Next file.');
    }
    return t.text();
  }

  void test('the first run\'s late answer is no second writer, and its call no missing result', () => {
    assert.deepEqual(found(restarted('call')), []);
  });

  void test('a late answer between two blocks of the new run\'s message: the second block is no next turn', () => {
    assert.deepEqual(found(restarted('text')), []);
  });

  void test('if the first run writes on after its late answer, two writers are reported', () => {
    const rules = found(restarted('call', true), [forkedSession, overlappingExecutions]);
    assert.ok(rules.some((r) => r.startsWith('forked-session:')), rules.join(', '));
  });

  /**
   * The first run dropped with its calls in flight (13562964800/claude-skills, thirtieth set; the
   * session's debug log shows the agents started again 18 seconds after they were first):
   * `running`, Claude Code 2.1.41–2.1.49, its `find` still writing progress output and two Globs
   * waiting; `answered`, 2.1.39, the answer to its request in flight (a Write that was never
   * carried out) written before the new run's first message. `goesOn`: the first run's last call
   * gets its result and the run writes on after all.
   */
  function droppedInFlight(shape: 'running' | 'answered', goesOn = false): string {
    const t = new ClaudeTranscript();
    t.sidechain = true;
    t.user('Create PdfWebViewActivity.java and PdfParser.java for the court app.');
    const prompt = t.uuidAt(1);
    let lastCall: string;
    if (shape === 'running') {
      lastCall = 'call_GLOB2';
      t.say('m1', 'Let me explore the project structure first.').call('m1', 'call_FIND', 'Bash', { command: 'find . -type f -name "*.java" | head -20' });
      t.call('m1', 'call_GLOB1', 'Glob', { pattern: '**/CourtAssistant/**/*.java' });
      t.call('m1', 'call_GLOB2', 'Glob', { pattern: '**/CourtAssistant/**/build.gradle*' });
      t.bashProgress('call_FIND').bashProgress('call_FIND').bashProgress('call_FIND');
    } else {
      lastCall = 'call_WRITE2';
      t.call('m1', 'call_WRITE1', 'Write', { file_path: 'C:\\proj\\util\\DateUtils.kt', content: 'object DateUtils' }).result('call_WRITE1', 'File created successfully');
      t.call('m2', 'call_WRITE2', 'Write', { file_path: 'C:\\proj\\util\\Logger.kt', content: 'object Logger' });
    }
    const firstRun = t.uuidAt(t.lines.length);
    t.from(prompt).say('m4', 'I will check the project structure, then create the files.').call('m4', 'call_PWD', 'Bash', { command: 'pwd' }).result('call_PWD', '/c/Users/dev');
    t.say('m5', 'The project is here.');
    if (goesOn) {
      t.from(firstRun).result(lastCall, 'done').say('m6', 'Going on with the first run.');
    }
    return t.text();
  }

  void test('a run dropped while its tools ran: no second writer, and its calls are due no result', () => {
    assert.deepEqual(found(droppedInFlight('running')), []);
  });

  void test('a run dropped with its late answer written before the new run\'s first message: its call is due no result', () => {
    assert.deepEqual(found(droppedInFlight('answered')), []);
  });

  /**
   * The same in Claude Code 2.0.76 (antoniopresto/dotclaude, thirty-eighth set): a Plan agent sent
   * to the background (its Task result "Async agent launched" 50 seconds after the call) starts
   * over from its prompt in the same file. That version hangs a sub-agent's results, and the
   * message after them, from records it never writes, so the first run's last message (three
   * WebSearch calls) hangs from a record the file does not hold; one search still answers, a
   * second after the restart, hung from another such record. The two others never ran to an end.
   */
  function droppedDetached(): string {
    const t = new ClaudeTranscript().as('2.0.76');
    t.sidechain = true;
    t.user('Plan the storage architecture for HQ.');
    const prompt = t.uuidAt(1);
    t.say('m1', 'Let me read the project first.').call('m1', 'toolu_READ', 'Read', { file_path: '/home/dev/hq/progress.txt' });
    t.from('lost0001-0000-4000-8000-000000000000').result('toolu_READ', 'progress');
    t.from('lost0002-0000-4000-8000-000000000000').say('m2', 'Now the current options:');
    t.call('m2', 'toolu_SEARCH1', 'WebSearch', { query: 'LanceDB Rust crate' });
    t.call('m2', 'toolu_SEARCH2', 'WebSearch', { query: 'JSONL serde streaming' });
    t.call('m2', 'toolu_SEARCH3', 'WebSearch', { query: 'GraphLite embedded graph database' });
    t.from(prompt).say('m3', 'I will explore the codebase, then plan.');
    const restart = t.uuidAt(t.lines.length);
    t.from('lost0003-0000-4000-8000-000000000000').result('toolu_SEARCH3', 'Web search results for query: "GraphLite …"');
    t.from(restart).call('m3', 'toolu_READ2', 'Read', { file_path: '/home/dev/hq/progress.txt' });
    t.from('lost0004-0000-4000-8000-000000000000').result('toolu_READ2', 'progress');
    t.from('lost0005-0000-4000-8000-000000000000').say('m4', 'Here is the plan.');
    return t.text();
  }

  void test('a run dropped when its last message hangs from a record the file does not hold (2.0.76): its calls are due no result', () => {
    assert.deepEqual(found(droppedDetached()), []);
  });

  void test('if the run dropped in flight writes on after all, the second execution is reported at the restart', () => {
    const t = droppedInFlight('running', true);
    const restart = t.split('\n').findIndex((l) => l.includes('I will check the project structure')) + 1;
    assert.deepEqual(found(t, [overlappingExecutions]), [`overlapping-executions:branch@${restart}`]);
  });
});

void describe('a streamed answer cut short and the request sent again: the new answer replaces the message', () => {
  /**
   * Claude Code 2.1.44 through another provider (`glm-4.7`; 13562964800/claude-skills, thirtieth
   * set): the stream failed after a WebSearch call ("Error streaming, falling back to
   * non-streaming mode", its debug log), and the answer to the same request sent again, 42
   * seconds later, hangs from the same result; the WebSearch never ran. `goesOn`: the cut-short
   * message's call gets its result and its branch writes on after all.
   */
  function answeredAgain(goesOn = false): string {
    const t = new ClaudeTranscript().user('Find how WeChat chat exports are parsed.');
    t.call('m1', 'call_SEARCH1', 'WebSearch', { query: 'wechat chat history import' }).result('call_SEARCH1', 'Web search results …');
    const request = t.uuidAt(t.lines.length);
    t.say('m2', 'Let me search for known parsers:').call('m2', 'call_SEARCH2', 'WebSearch', { query: 'wx-dump github wechat android backup' });
    const cutShort = t.uuidAt(t.lines.length);
    t.from(request).say('m3', 'The search failed; let me read the projects directly.').call('m3', 'call_FETCH', 'WebFetch', { url: 'https://github.com/LC044/WeChatMsg', prompt: 'summary' });
    t.result('call_FETCH', 'WeChatMsg: export WeChat chats');
    t.say('m4', 'WeChatMsg exports the database.');
    if (goesOn) {
      t.from(cutShort).result('call_SEARCH2', 'wx-dump results').say('m5', 'Found wx-dump as well.');
    }
    return t.text();
  }

  void test('the cut-short message is no second writer, and its call is due no result', () => {
    assert.deepEqual(found(answeredAgain()), []);
  });

  /**
   * The same fault where the retries fail and the file ends (Claude Code 2.1.62 through a relay;
   * 13562964800/claude-skills, thirtieth set): the cut-short message's `Write`, then eight
   * `api_error` records of the same request sent again, the first hung from the result the
   * message answered. `lostBlock`: the message's text block first and its `Write` hung from a
   * block the file does not hold, as there. `retriedFrom`: where the retries hang instead.
   */
  function retriedToTheEnd(opts: { lostBlock?: boolean; retriedFrom?: 'prompt' } = {}): string {
    const t = new ClaudeTranscript().as('2.1.62').user('Draw the illustrations.');
    const prompt = t.uuidAt(1);
    t.bash('m1', 'call_LS', 'ls out', 'a.png');
    const request = t.uuidAt(t.lines.length);
    if (opts.lostBlock) {
      t.say('m2', 'Next, the cover.').from('lost0000-0000-4000-8000-000000000000');
    }
    t.call('m2', 'call_WRITE', 'Write', { file_path: '/home/dev/proj/cover.svg', content: '<svg/>' });
    t.from(opts.retriedFrom === 'prompt' ? prompt : request);
    for (let attempt = 1; attempt <= 8; attempt++) {
      t.apiError(attempt);
    }
    return t.text();
  }

  void test('the request sent again until the file ends: the cut-short message\'s call is due no result', () => {
    const retried = retriedToTheEnd();
    const call = retried.split('\n').findIndex((l) => l.includes('call_WRITE')) + 1;
    // Without the retries, the file just ends with the call open.
    assert.deepEqual(found(retried.split('\n').slice(0, call).join('\n')), [`missing-result:atEnd@${call}`]);
    assert.deepEqual(found(retried), []);
    assert.deepEqual(found(retriedToTheEnd({ lostBlock: true })), []);
  });

  void test('retries of another request (hung elsewhere) replace nothing', () => {
    const t = retriedToTheEnd({ retriedFrom: 'prompt' });
    const call = t.split('\n').findIndex((l) => l.includes('call_WRITE')) + 1;
    assert.deepEqual(found(t, [missingResult]), [`missing-result:atEnd@${call}`]);
  });

  void test('if the cut-short message\'s branch writes on after all, the second execution is reported where it forked', () => {
    const t = answeredAgain(true);
    const fork = t.split('\n').findIndex((l) => l.includes('let me read the projects directly')) + 1;
    assert.deepEqual(found(t, [overlappingExecutions]), [`overlapping-executions:branch@${fork}`]);
  });
});

void describe('BranchTracker.entersBefore: where in an API message a record hangs', () => {
  const at = (line: number): Span => ({ line, start: 0, end: 0 });
  /**
   * One API message `msg:m1` (text on line 2, a call on line 3) after a prompt on line 1, as
   * Claude Code 2.1 writes it: one block per line, each hung from the one before.
   */
  function message(): BranchTracker {
    const t = new BranchTracker();
    t.add('go', null, 'go', at(1));
    t.add('text', 'go', 'msg:m1', at(2), 'text');
    t.add('call', 'text', 'msg:m1', at(3), 'call');
    return t;
  }

  void test('a prompt hung from the text before the call, and what descends from it, enter the message before the call', () => {
    const t = message();
    t.add('ping', 'text', 'ping', at(4));
    t.add('pong', 'ping', 'msg:m2', at(5), 'text');
    t.add('again', 'pong', 'again', at(6));
    assert.equal(t.entersBefore('text', 'msg:m1', 3), true);
    assert.equal(t.entersBefore('ping', 'msg:m1', 3), true);
    assert.equal(t.entersBefore('again', 'msg:m1', 3), true);
    // Not before the text itself, and the tree still has the prompt below the message.
    assert.equal(t.entersBefore('ping', 'msg:m1', 2), false);
    assert.equal(t.descends('again', 'msg:m1'), true);
  });

  void test('hung from the call, its result, or a text block after the call: not before it', () => {
    const t = message();
    t.add('result', 'call', undefined, at(4));
    t.add('after', 'result', 'msg:m1', at(5), 'text');
    t.add('p1', 'call', 'p1', at(6));
    t.add('p2', 'result', 'p2', at(7));
    t.add('p3', 'after', 'p3', at(8));
    for (const line of ['call', 'result', 'after', 'p1', 'p2', 'p3']) {
      assert.equal(t.entersBefore(line, 'msg:m1', 3), false, line);
    }
    // The text block after the call is before a later call of the same message.
    assert.equal(t.entersBefore('after', 'msg:m1', 9), true);
  });

  void test('parallel calls: a record hung from the first call’s result is not before the second call', () => {
    const t = message();
    t.add('call2', 'call', 'msg:m1', at(4), 'call');
    t.add('result1', 'call', undefined, at(5));
    t.add('result2', 'call2', undefined, at(6));
    t.add('next', 'result1', 'msg:m2', at(7), 'text');
    assert.equal(t.entersBefore('result1', 'msg:m1', 4), false);
    assert.equal(t.entersBefore('next', 'msg:m1', 4), false);
  });

  void test('a line hung from the text (a meta line) sits where the text does, and so does what hangs from it', () => {
    const t = message();
    t.add('meta', 'text', undefined, at(4));
    t.add('reply', 'meta', 'msg:m2', at(5), 'text');
    assert.equal(t.entersBefore('meta', 'msg:m1', 3), true);
    assert.equal(t.entersBefore('reply', 'msg:m1', 3), true);
  });

  void test('one record holding the text and the call (Claude Code 2.0.x): nothing hangs before the call', () => {
    const t = new BranchTracker();
    t.add('go', null, 'go', at(1));
    t.add('both', 'go', 'msg:m1', at(2), 'text');
    t.add('both', 'go', 'msg:m1', at(2), 'call');
    t.add('ping', 'both', 'ping', at(3));
    assert.equal(t.entersBefore('both', 'msg:m1', 2), false);
    assert.equal(t.entersBefore('ping', 'msg:m1', 2), false);
  });

  void test('a record on another branch, or hung from a line the tree never saw, does not enter the message', () => {
    const t = message();
    t.add('other', 'go', 'other', at(4));
    assert.equal(t.entersBefore('other', 'msg:m1', 3), false);
    assert.equal(t.entersBefore('lost', 'msg:m1', 3), false);
    assert.equal(t.entersBefore(null, 'msg:m1', 3), false);
    assert.equal(t.entersBefore('text', 'msg:never', 3), false);
  });

  void test('a prompt hung from the last block of a message with no call after it yet is the next turn, not a cut', () => {
    const t = new BranchTracker();
    t.add('go', null, 'go', at(1));
    t.add('text', 'go', 'msg:m1', at(2), 'text');
    t.add('ping', 'text', 'ping', at(3));
    // A call of that message written only after the prompt (a second writer): the prompt came first.
    t.add('call', 'text', 'msg:m1', at(4), 'call');
    assert.equal(t.entersBefore('ping', 'msg:m1', 4), false);
  });

  void test('bounded: text blocks older than the newest 256 are forgotten and tell nothing', () => {
    const t = message();
    // Other messages' text blocks, each hung from the one before, after the call's result.
    t.add('result', 'call', undefined, at(4));
    let parent = 'result';
    const newer = (from: number, count: number): void => {
      for (let i = from; i < from + count; i++) {
        t.add(`t${i}`, parent, `msg:x${i}`, at(10 + i), 'text');
        parent = `t${i}`;
      }
    };
    newer(0, 255);
    assert.equal(t.entersBefore('text', 'msg:m1', 3), true);
    newer(255, 1);
    assert.equal(t.entersBefore('text', 'msg:m1', 3), false);
  });
});

void describe('branch tracker: a random tree', () => {
  void test('descent, forks and where each branch started are those of the tree as written', () => {
    const random = prng(28);
    const t = new BranchTracker();
    const parentOf = new Map<string, string | undefined>();
    const children = new Map<string, number>();
    const nodes: string[] = [];
    const at = (line: number): Span => ({ line, start: 0, end: 0 });
    for (let i = 0; i < 3000; i++) {
      // Mostly the newest node (a chain), sometimes an older one (a fork), sometimes a new root.
      const r = random();
      const parent = nodes.length === 0 || r < 0.02 ? undefined : r < 0.85 ? nodes[nodes.length - 1] : nodes[Math.floor(random() * nodes.length)];
      const node = `m${i}`;
      const growth = t.add(`u${i}`, parent === undefined ? null : `u${parent.slice(1)}`, node, at(i + 1));
      const siblings = parent === undefined ? 0 : (children.get(parent) ?? 0);
      assert.equal(growth?.forkedAt?.node, siblings > 0 ? parent : undefined);
      if (growth?.forkedAt) {
        assert.equal(growth.forkedAt.at.line, Number(parent!.slice(1)) + 1);
      }
      if (parent !== undefined) {
        children.set(parent, siblings + 1);
      }
      parentOf.set(node, parent);
      nodes.push(node);
    }
    const descends = (from: string, ancestor: string): boolean => {
      for (let n: string | undefined = from; n !== undefined; n = parentOf.get(n)) {
        if (n === ancestor) {
          return true;
        }
      }
      return false;
    };
    for (let k = 0; k < 20000; k++) {
      const from = nodes[Math.floor(random() * nodes.length)]!;
      const ancestor = nodes[Math.floor(random() * nodes.length)]!;
      assert.equal(t.descends(`u${from.slice(1)}`, ancestor), descends(from, ancestor), `${from} under ${ancestor}`);
    }
  });

  void test('a node costs one record, not one entry in each of six maps', () => {
    // Nodes are as many as a session's API messages and prompts: a long Claude Code session
    // places hundreds of thousands. (A record and its map entry take about 130 bytes; six maps
    // took about 250.)
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const n = 100_000;
    const ids = Array.from({ length: n }, (_, i) => `m${i}`);
    const uuids = Array.from({ length: n }, (_, i) => `u${i}`);
    const spans = Array.from({ length: n }, (_, i): Span => ({ line: i + 1, start: 0, end: 0 }));
    gc();
    const before = process.memoryUsage().heapUsed;
    const t = new BranchTracker();
    for (let i = 0; i < n; i++) {
      t.add(uuids[i], i === 0 ? null : uuids[i - 1], ids[i], spans[i]!);
    }
    gc();
    const perNode = (process.memoryUsage().heapUsed - before) / n;
    assert.ok(t.descends(uuids[n - 1], ids[0]!));
    assert.ok(perNode < 190, `${perNode.toFixed(0)} bytes a node`);
  });
});
