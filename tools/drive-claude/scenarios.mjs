// The scripted sessions. Each scenario names its workspace files, one or more runs of
// `claude -p` (a later run resumes the session), and for each `[[key]]` the model's turns.
// Tool ids are fixed so that the files come out the same on every drive.
import fs from 'node:fs';
import path from 'node:path';

const id = (tag, n) => `toolu_01Drive${tag.replace(/[^A-Za-z0-9]/g, '')}${String(n).padStart(3, '0')}`;
const text = (t) => ({ type: 'text', text: t });
const call = (tag, n, name, input) => ({ type: 'tool_use', id: id(tag, n), name, input });
/** A turn that answers `first` (an API error) the first time it is asked, then `blocks`. */
const once = (first, blocks) => {
  let asked = false;
  return async () => {
    if (asked) return blocks;
    asked = true;
    return first;
  };
};
/** A turn that first changes a file on disk (another writer), then answers with `blocks`. */
const after = (change, blocks) => async () => {
  change();
  // Claude Code compares modification times; make the change visibly later than the read.
  await new Promise((r) => setTimeout(r, 1100));
  return blocks;
};

export function scenarios(root) {
  const ws = (name) => path.join(root, name);
  const a = (name) => path.join(ws(name), 'a.txt');
  const b = (name) => path.join(ws(name), 'b.txt');
  const two = { 'a.txt': 'alpha\nbeta\n', 'b.txt': 'bravo\n' };
  /**
   * Two sessions in one workspace at once: A reads, B reads and edits line 2, then A edits line
   * 1 on top of B's change (with `guard`, the guard stops it). Each session waits for the other
   * through these promises.
   */
  const twoSessions = (name, guard) => {
    let aRead;
    let bEdited;
    const aHasRead = new Promise((r) => (aRead = r));
    const bHasEdited = new Promise((r) => (bEdited = r));
    return {
      name,
      summary: `two sessions at once: B edits line 2 after A's read, then A edits line 1${guard ? ', which the guard denies' : ''}`,
      files: two,
      guard,
      runs: [{ prompt: `[[${name}-a]] edit line 1`, parallel: true }, { prompt: `[[${name}-b]] edit line 2`, parallel: true }],
      turns: {
        [`${name}-a`]: [
          [call('a', 1, 'Read', { file_path: a(name) })],
          async () => {
            aRead();
            await bHasEdited;
            await new Promise((r) => setTimeout(r, 1100));
            return [call('a', 2, 'Edit', { file_path: a(name), old_string: 'alpha', new_string: 'ALPHA' })];
          },
          [text('Done with line 1.')],
        ],
        [`${name}-b`]: [
          async () => {
            await aHasRead;
            return [call('bb', 1, 'Read', { file_path: a(name) })];
          },
          [call('bb', 2, 'Edit', { file_path: a(name), old_string: 'beta', new_string: 'BETA' })],
          async () => {
            bEdited();
            return [text('Edited line 2.')];
          },
        ],
      },
    };
  };
  /**
   * A lost update through a sub-agent: the main session reads a.txt, its sub-agent (an `Agent`
   * call, in the foreground: 2.1.332 runs one in the background unless told `run_in_background:
   * false`) reads it and edits line 2, then the main session writes the whole file from its own
   * older read, upper-casing line 1, which would undo the sub-agent's edit, and then edits line 1
   * from that read. A sub-agent's hooks carry the main session's `session_id` and
   * `transcript_path` and its `agent_id` (with `guard`, the guard should deny the main session's
   * edit; `hookPayloads` keeps what the hooks were sent).
   */
  const subagentLostUpdate = (name, tag, guard) => ({
    name,
    summary: `the main session reads a.txt, its sub-agent reads and edits line 2, then the main session writes the whole file from its older read (Claude Code refuses it) and edits line 1 from it${guard ? ', which the guard denies' : ''}`,
    files: two,
    guard,
    hookPayloads: guard,
    runs: [{ prompt: `[[${name}]] delegate, then rewrite a.txt` }],
    turns: {
      [name]: [
        [call(tag, 1, 'Read', { file_path: a(name) })],
        [call(tag, 2, 'Agent', { description: 'Edit a.txt', prompt: `[[${name}-child]] Upper-case beta in a.txt.`, subagent_type: 'general-purpose', run_in_background: false })],
        // Claude Code refuses this Write itself ("File has been modified since read"), before any
        // hook runs; the Edit after it, from the same older read, it applies on top of the
        // sub-agent's change (`staleRecovered`).
        [call(tag, 3, 'Write', { file_path: a(name), content: 'ALPHA\nbeta\n' })],
        [call(tag, 4, 'Edit', { file_path: a(name), old_string: 'alpha', new_string: 'ALPHA' })],
        [text(guard ? 'The edit was stopped: the sub-agent changed a.txt.' : 'Edited a.txt.')],
      ],
      [`${name}-child`]: [
        [call(`${tag}c`, 1, 'Read', { file_path: a(name) })],
        async () => {
          // Make the edit visibly later than the main session's read.
          await new Promise((r) => setTimeout(r, 1100));
          return [call(`${tag}c`, 2, 'Edit', { file_path: a(name), old_string: 'beta', new_string: 'BETA' })];
        },
        [text('beta is now BETA.')],
      ],
    },
  });
  return [
    {
      name: 'healthy',
      summary: 'two reads in one message, an edit, a shell read, a new file, two edits of two files in one message',
      files: two,
      runs: [{ prompt: '[[healthy]] tidy the files' }],
      turns: {
        healthy: [
          [text('Reading both files.'), call('h', 1, 'Read', { file_path: a('healthy') }), call('h', 2, 'Read', { file_path: b('healthy') })],
          [call('h', 3, 'Edit', { file_path: a('healthy'), old_string: 'alpha', new_string: 'ALPHA' })],
          [call('h', 4, 'Bash', { command: 'cat b.txt', description: 'Show b.txt' })],
          [call('h', 5, 'Write', { file_path: path.join(ws('healthy'), 'c.txt'), content: 'gamma\n' })],
          [call('h', 6, 'Edit', { file_path: a('healthy'), old_string: 'beta', new_string: 'BETA' }), call('h', 7, 'Edit', { file_path: b('healthy'), old_string: 'bravo', new_string: 'BRAVO' })],
          [text('Done: a.txt and b.txt upper-cased, c.txt created.')],
        ],
      },
    },
    {
      name: 'read-and-edit-together',
      summary: 'an edit and a read of one file in one message (Claude Code runs the edit alone, then the read)',
      files: two,
      runs: [{ prompt: '[[read-and-edit-together]] edit a.txt' }],
      turns: {
        'read-and-edit-together': [
          [call('r', 1, 'Read', { file_path: a('read-and-edit-together') })],
          [call('r', 2, 'Edit', { file_path: a('read-and-edit-together'), old_string: 'alpha', new_string: 'ALPHA' }), call('r', 3, 'Read', { file_path: a('read-and-edit-together') })],
          [text('Edited and checked.')],
        ],
      },
    },
    {
      name: 'changed-after-read',
      summary: 'the file changes on disk after the read; Claude Code itself refuses the edit',
      files: two,
      runs: [{ prompt: '[[changed-after-read]] edit a.txt' }],
      turns: {
        'changed-after-read': [
          [call('c', 1, 'Read', { file_path: a('changed-after-read') })],
          after(() => fs.writeFileSync(a('changed-after-read'), 'alpha\nbeta, changed by the user\n'), [call('c', 2, 'Edit', { file_path: a('changed-after-read'), old_string: 'alpha', new_string: 'ALPHA' })]),
          [text('The file changed; I left it alone.')],
        ],
      },
    },
    {
      name: 'changed-where-edited',
      summary: 'the line the edit replaces changes on disk after the read; Claude Code applies the edit on top of it',
      files: two,
      runs: [{ prompt: '[[changed-where-edited]] edit a.txt' }],
      turns: {
        'changed-where-edited': [
          [call('w', 1, 'Read', { file_path: a('changed-where-edited') })],
          after(() => fs.writeFileSync(a('changed-where-edited'), 'alpha\nbeta and the user\'s words\n'), [call('w', 2, 'Edit', { file_path: a('changed-where-edited'), old_string: 'beta', new_string: 'BETA' })]),
          [text('Edited.')],
        ],
      },
    },
    {
      name: 'two-edits-one-message',
      summary: 'two edits of one file and a shell write of another in one message (Claude Code runs them one at a time, in order)',
      files: two,
      runs: [{ prompt: '[[two-edits-one-message]] edit a.txt twice' }],
      turns: {
        'two-edits-one-message': [
          [call('t', 1, 'Read', { file_path: a('two-edits-one-message') }), call('t', 2, 'Read', { file_path: b('two-edits-one-message') })],
          [
            call('t', 3, 'Edit', { file_path: a('two-edits-one-message'), old_string: 'alpha', new_string: 'ALPHA' }),
            call('t', 4, 'Edit', { file_path: a('two-edits-one-message'), old_string: 'beta', new_string: 'BETA' }),
            call('t', 5, 'Bash', { command: "sed -i 's/bravo/BRAVO/' b.txt", description: 'Upper-case b.txt' }),
          ],
          [call('t', 6, 'Edit', { file_path: b('two-edits-one-message'), old_string: 'BRAVO', new_string: 'Bravo' })],
          [text('Edited both.')],
        ],
      },
    },
    {
      name: 'guard-denies',
      summary: 'as changed-after-read, with the guard hooks installed and `agent-guard watch` running: the guard denies the edit; the model reads the file again and the edit goes through',
      files: two,
      guard: true,
      runs: [{ prompt: '[[guard-denies]] edit a.txt' }],
      turns: {
        'guard-denies': [
          [call('g', 1, 'Read', { file_path: a('guard-denies') })],
          after(() => fs.writeFileSync(a('guard-denies'), 'alpha\nbeta, changed by the user\n'), [call('g', 2, 'Edit', { file_path: a('guard-denies'), old_string: 'alpha', new_string: 'ALPHA' })]),
          // Told why, the model reads the file again and redoes the edit, which the guard allows.
          [call('g', 3, 'Read', { file_path: a('guard-denies') })],
          [call('g', 4, 'Edit', { file_path: a('guard-denies'), old_string: 'alpha', new_string: 'ALPHA' })],
          [text('Edited after reading the change.')],
        ],
      },
    },
    {
      name: 'failing-calls',
      summary: 'an edit whose old string is absent, a shell command that fails',
      files: two,
      runs: [{ prompt: '[[failing-calls]] try things' }],
      turns: {
        'failing-calls': [
          [call('f', 1, 'Read', { file_path: a('failing-calls') })],
          [call('f', 2, 'Edit', { file_path: a('failing-calls'), old_string: 'zulu', new_string: 'ZULU' })],
          [call('f', 3, 'Bash', { command: 'cat missing.txt', description: 'Show a missing file' })],
          [text('Both failed, as expected.')],
        ],
      },
    },
    {
      name: 'api-errors',
      summary: 'an overloaded API (529) answered by a retry, then a refused request (400) that ends the run; a second run resumes',
      files: two,
      runs: [{ prompt: '[[api-errors]] read a.txt' }, { prompt: '[[api-errors-2]] go on', resume: true }],
      turns: {
        'api-errors': [
          [call('e', 1, 'Read', { file_path: a('api-errors') })],
          once({ status: 529, error: { type: 'overloaded_error', message: 'Overloaded' } }, [call('e', 2, 'Bash', { command: 'cat b.txt', description: 'Show b.txt' })]),
          { status: 400, error: { type: 'invalid_request_error', message: 'scripted refusal' } },
        ],
        'api-errors-2': [[call('e', 3, 'Edit', { file_path: a('api-errors'), old_string: 'alpha', new_string: 'ALPHA' })], [text('Edited.')]],
      },
    },
    {
      name: 'interrupted',
      summary: 'the run is interrupted (SIGINT) while a shell command runs; a second run resumes',
      files: two,
      runs: [{ prompt: '[[interrupted]] wait', interruptAfterMs: 4000 }, { prompt: '[[interrupted-2]] go on', resume: true }],
      turns: {
        interrupted: [[call('i', 1, 'Read', { file_path: a('interrupted') })], [call('i', 2, 'Bash', { command: "python3 -c 'import time; time.sleep(30)'", description: 'Wait' })]],
        'interrupted-2': [[call('i', 3, 'Edit', { file_path: a('interrupted'), old_string: 'alpha', new_string: 'ALPHA' })], [text('Edited.')]],
      },
    },
    {
      name: 'formatter-hook',
      summary: "a PostToolUse hook of the project's settings strips trailing blanks after each edit; a second edit follows",
      files: {
        'a.txt': 'alpha  \nbeta  \n',
        '.claude/settings.json': JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: 'node "$CLAUDE_PROJECT_DIR/.claude/fmt.mjs"' }] }] } }, null, 2),
        '.claude/fmt.mjs': "import fs from 'node:fs';\nconst input = JSON.parse(fs.readFileSync(0, 'utf8'));\nconst file = input.tool_input.file_path;\nfs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/[ \\t]+$/gm, ''));\n",
      },
      runs: [{ prompt: '[[formatter-hook]] edit a.txt' }],
      turns: {
        'formatter-hook': [
          [call('m', 1, 'Read', { file_path: a('formatter-hook') })],
          [call('m', 2, 'Edit', { file_path: a('formatter-hook'), old_string: 'alpha', new_string: 'ALPHA' })],
          [call('m', 3, 'Edit', { file_path: a('formatter-hook'), old_string: 'beta', new_string: 'BETA' })],
          [text('Edited twice.')],
        ],
      },
    },
    {
      name: 'permission-denied',
      summary: 'a Write the run does not allow (-p with --allowedTools without Write): Claude Code refuses it',
      files: two,
      runs: [{ prompt: '[[permission-denied]] write c.txt', allowedTools: 'Read Edit' }],
      turns: {
        'permission-denied': [[call('p', 1, 'Write', { file_path: path.join(ws('permission-denied'), 'c.txt'), content: 'gamma\n' })], [text('Not allowed.')]],
      },
    },
    {
      name: 'background-shell',
      summary: 'a shell command run in the background, another in the foreground while it finishes',
      files: two,
      runs: [{ prompt: '[[background-shell]] run it' }],
      turns: {
        'background-shell': [
          [call('b', 1, 'Bash', { command: 'sleep 1; echo finished > done.txt', description: 'Write done.txt later', run_in_background: true })],
          [call('b', 2, 'Bash', { command: 'sleep 3', description: 'Wait' })],
          [call('b', 3, 'Read', { file_path: path.join(ws('background-shell'), 'done.txt') })],
          [text('It finished.')],
        ],
      },
    },
    twoSessions('two-sessions', false),
    twoSessions('two-sessions-guarded', true),
    {
      name: 'edit-unread',
      summary: 'ToolSearch, Grep and Glob (not in this build: refused), then an edit of a file the session never read, which Claude Code applies',
      files: two,
      runs: [{ prompt: '[[edit-unread]] find beta' }],
      turns: {
        'edit-unread': [
          [call('q', 1, 'ToolSearch', { query: 'select:Grep,Glob', max_results: 5 })],
          [call('q', 2, 'Grep', { pattern: 'beta', path: ws('edit-unread'), output_mode: 'content', '-n': true }), call('q', 3, 'Glob', { pattern: '*.txt', path: ws('edit-unread') })],
          [call('q', 4, 'Grep', { pattern: 'alpha', path: a('edit-unread'), output_mode: 'content', '-n': true })],
          [call('q', 5, 'Edit', { file_path: a('edit-unread'), old_string: 'beta', new_string: 'BETA' })],
          [text('Done.')],
        ],
      },
    },
    {
      name: 'subagent',
      summary: 'a sub-agent reads and edits a file; the main session reads it again',
      files: two,
      runs: [{ prompt: '[[subagent]] delegate the edit' }],
      turns: {
        subagent: [
          [call('s', 1, 'Agent', { description: 'Edit a.txt', prompt: '[[subagent-child]] Upper-case beta in a.txt.', subagent_type: 'general-purpose' })],
          [call('s', 2, 'Read', { file_path: a('subagent') })],
          [text('The sub-agent edited a.txt.')],
        ],
        'subagent-child': [
          [call('sc', 1, 'Read', { file_path: a('subagent') })],
          [call('sc', 2, 'Edit', { file_path: a('subagent'), old_string: 'beta', new_string: 'BETA' })],
          [text('beta is now BETA.')],
        ],
      },
    },
    subagentLostUpdate('subagent-lost-update', 'lu', false),
    subagentLostUpdate('subagent-lost-update-guarded', 'lug', true),
    {
      name: 'subagent-worktree',
      summary: 'a sub-agent in its own git worktree (isolation: worktree) reads and edits a.txt there; the main session edits its own a.txt',
      files: two,
      commit: true,
      runs: [{ prompt: '[[subagent-worktree]] delegate in a worktree' }],
      turns: {
        'subagent-worktree': [
          [call('wt', 1, 'Agent', { description: 'Edit a.txt in a worktree', prompt: '[[subagent-worktree-child]] Upper-case beta in a.txt.', subagent_type: 'general-purpose', isolation: 'worktree' })],
          [call('wt', 2, 'Read', { file_path: a('subagent-worktree') })],
          [call('wt', 3, 'Edit', { file_path: a('subagent-worktree'), old_string: 'alpha', new_string: 'ALPHA' })],
          [text('Both edited.')],
        ],
        // The child's paths are relative: it works in the worktree it was given.
        'subagent-worktree-child': [
          [call('wtc', 1, 'Bash', { command: 'pwd && cat a.txt', description: 'Where am I' })],
          [call('wtc', 2, 'Bash', { command: "sed -i 's/beta/BETA/' a.txt && git diff --stat", description: 'Edit a.txt' })],
          [text('beta is now BETA in the worktree.')],
        ],
      },
    },
    {
      name: 'resumed',
      summary: 'a session read a file; a second run resumes it and edits the file',
      files: two,
      runs: [{ prompt: '[[resumed]] read a.txt' }, { prompt: '[[resumed-2]] now edit it', resume: true }],
      turns: {
        resumed: [[call('u', 1, 'Read', { file_path: a('resumed') })], [text('Read it.')]],
        'resumed-2': [[call('u', 2, 'Edit', { file_path: a('resumed'), old_string: 'alpha', new_string: 'ALPHA' })], [text('Edited.')]],
      },
    },
    {
      name: 'compacted',
      summary: 'a session reads a file, is compacted (/compact), and edits the file after',
      files: two,
      runs: [{ prompt: '[[compacted]] read a.txt' }, { prompt: '/compact', resume: true }, { prompt: '[[compacted-after]] edit a.txt', resume: true }],
      turns: {
        compacted: [[call('k', 1, 'Read', { file_path: a('compacted') })], [text('Read it.')]],
        'compacted-after': [[call('k', 2, 'Edit', { file_path: a('compacted'), old_string: 'alpha', new_string: 'ALPHA' })], [text('Edited.')]],
      },
    },
  ];
}
