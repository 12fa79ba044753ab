// The scripted sessions: each a workspace's files, and runs of the CLI (a prompt and the model's
// turns; a later run with --resume continues the session; a run with `prompts` is the interactive
// mode, typed into a pseudo-terminal).
import fs from 'node:fs';
import path from 'node:path';

const call = (name, args) => ({ functionCall: { name, args } });
const text = (t) => ({ text: t });

const appTs = 'export const port = 3000;\nexport const host = "localhost";\n';
const utilTs = 'export function add(a: number, b: number) {\n  return a + b;\n}\n';

/** A first run that reads src/app.ts and ends: the start of the resumed scenarios. */
const readAppTs = {
  prompt: 'Read app.ts',
  script: ({ ws }) => [{ parts: [call('read_file', { file_path: path.join(ws, 'src/app.ts') })] }, { parts: [text('Read it.')] }],
};

export const scenarios = [
  {
    // (a) read, edit, answer: no finding.
    name: 'healthy',
    files: { 'src/app.ts': appTs },
    runs: [
      {
        prompt: 'Make the port 8080',
        script: ({ ws }) => [
          { parts: [call('read_file', { file_path: path.join(ws, 'src/app.ts') })] },
          { parts: [call('replace', { file_path: path.join(ws, 'src/app.ts'), old_string: 'port = 3000', new_string: 'port = 8080', instruction: 'Set the port to 8080' })] },
          { parts: [text('The port is now 8080.')] },
        ],
      },
    ],
  },
  {
    // (b) two reads in one turn, then an edit of each in one turn: no finding.
    name: 'parallel-reads',
    files: { 'src/app.ts': appTs, 'src/util.ts': utilTs },
    runs: [
      {
        prompt: 'Rename host to hostname and add to sum',
        script: ({ ws }) => [
          { parts: [call('read_file', { file_path: path.join(ws, 'src/app.ts') }), call('read_file', { file_path: path.join(ws, 'src/util.ts') })] },
          {
            parts: [
              call('replace', { file_path: path.join(ws, 'src/app.ts'), old_string: 'const host', new_string: 'const hostname', instruction: 'Rename host' }),
              call('replace', { file_path: path.join(ws, 'src/util.ts'), old_string: 'function add', new_string: 'function sum', instruction: 'Rename add' }),
            ],
          },
          { parts: [text('Renamed both.')] },
        ],
      },
    ],
  },
  {
    // (b) a read and a write of one path in one turn: a parallel-read-write warning.
    name: 'parallel-read-write',
    files: { 'src/app.ts': appTs },
    runs: [
      {
        prompt: 'Rewrite app.ts',
        script: ({ ws }) => [
          { parts: [call('read_file', { file_path: path.join(ws, 'src/app.ts') })] },
          {
            parts: [
              call('read_file', { file_path: path.join(ws, 'src/app.ts') }),
              call('write_file', { file_path: path.join(ws, 'src/app.ts'), content: 'export const port = 9000;\n' }),
            ],
          },
          {
            // The other order: the read sees what the write made (0.61 runs a write alone, in order).
            parts: [
              call('write_file', { file_path: path.join(ws, 'src/app.ts'), content: 'export const port = 9001;\n' }),
              call('read_file', { file_path: path.join(ws, 'src/app.ts') }),
            ],
          },
          { parts: [text('Rewritten.')] },
        ],
      },
    ],
  },
  {
    // (c) the user changes a line next to the one the model then edits: a stale-write warning.
    name: 'stale-edit',
    files: { 'src/app.ts': appTs },
    runs: [
      {
        prompt: 'Make the port 8080',
        script: ({ ws }) => [
          { parts: [call('read_file', { file_path: path.join(ws, 'src/app.ts') })] },
          {
            before: () => fs.writeFileSync(path.join(ws, 'src/app.ts'), appTs.replace('"localhost"', '"0.0.0.0"')),
            parts: [call('replace', { file_path: path.join(ws, 'src/app.ts'), old_string: 'port = 3000', new_string: 'port = 8080', instruction: 'Set the port' })],
          },
          { parts: [text('The port is now 8080.')] },
        ],
      },
    ],
  },
  {
    // (c) the user changes the file, then the model writes it whole from what it read: a lost
    // update, a stale-write error.
    name: 'stale-write',
    files: { 'src/app.ts': appTs },
    runs: [
      {
        prompt: 'Make the port 8080',
        script: ({ ws }) => [
          { parts: [call('read_file', { file_path: path.join(ws, 'src/app.ts') })] },
          {
            before: () => fs.writeFileSync(path.join(ws, 'src/app.ts'), appTs.replace('"localhost"', '"0.0.0.0"')),
            parts: [call('write_file', { file_path: path.join(ws, 'src/app.ts'), content: appTs.replace('3000', '8080') })],
          },
          { parts: [text('The port is now 8080.')] },
        ],
      },
    ],
  },
  {
    // (d) calls that fail: an edit whose old string is absent, a shell command that fails.
    name: 'failing-calls',
    files: { 'src/app.ts': appTs },
    runs: [
      {
        prompt: 'Change the timeout and run the tests',
        script: ({ ws }) => [
          { parts: [call('read_file', { file_path: path.join(ws, 'src/app.ts') })] },
          { parts: [call('replace', { file_path: path.join(ws, 'src/app.ts'), old_string: 'timeout = 10', new_string: 'timeout = 20', instruction: 'Raise the timeout' })] },
          { parts: [call('run_shell_command', { command: 'ls does-not-exist && echo never', description: 'List a missing file' })] },
          { parts: [call('read_file', { file_path: path.join(ws, 'src/missing.ts') })] },
          { parts: [text('There is no timeout, and the listing failed.')] },
        ],
      },
    ],
  },
  {
    // (e) the other tools, and an edit of a file never read (a true write-before-read).
    name: 'other-tools',
    files: { 'src/app.ts': appTs, 'src/util.ts': utilTs, 'README.md': '# demo\n' },
    runs: [
      {
        prompt: 'Look around, add a config file and a test',
        script: ({ ws }) => [
          { parts: [call('write_todos', { todos: [{ description: 'Look around', status: 'in_progress' }, { description: 'Add config', status: 'pending' }] })] },
          { parts: [call('list_directory', { dir_path: ws }), call('glob', { pattern: 'src/**/*.ts' }), call('grep_search', { pattern: 'export', dir_path: path.join(ws, 'src') })] },
          { parts: [call('search_file_content', { pattern: 'port' })] },
          { parts: [call('read_many_files', { include: ['src/*.ts', 'README.md'] })] },
          { parts: [call('write_file', { file_path: path.join(ws, 'config.json'), content: '{ "port": 3000 }\n' })] },
          { parts: [call('run_shell_command', { command: "printf 'x\\n' > notes.txt && cat src/util.ts", description: 'Write notes' })] },
          { parts: [call('replace', { file_path: path.join(ws, 'README.md'), old_string: '# demo', new_string: '# demo app', instruction: 'Retitle' })] },
          { parts: [call('replace', { file_path: path.join(ws, 'src/util.ts'), old_string: 'a + b', new_string: 'b + a', instruction: 'Swap' })] },
          { parts: [call('write_todos', { todos: [{ description: 'Look around', status: 'completed' }, { description: 'Add config', status: 'completed' }] })] },
          { parts: [text('Added config.json.')] },
        ],
      },
    ],
  },
  {
    // (e) a session resumed: a second run with --resume latest reads and edits again.
    name: 'resumed',
    files: { 'src/app.ts': appTs },
    runs: [
      readAppTs,
      {
        prompt: 'Now make the port 8080',
        args: ['--resume', 'latest'],
        script: ({ ws }) => [
          { parts: [call('replace', { file_path: path.join(ws, 'src/app.ts'), old_string: 'port = 3000', new_string: 'port = 8080', instruction: 'Set the port' })] },
          { parts: [text('Done.')] },
        ],
      },
    ],
  },
  {
    // (c) with the guard: its hooks installed and `watch` running, the stale whole-file write of
    // stale-write is denied before it lands, and the model told why; it reads again and edits.
    name: 'guarded-stale-write',
    guard: true,
    files: { 'src/app.ts': appTs },
    runs: [
      {
        prompt: 'Make the port 8080',
        script: ({ ws }) => [
          { parts: [call('read_file', { file_path: path.join(ws, 'src/app.ts') })] },
          {
            before: () => fs.writeFileSync(path.join(ws, 'src/app.ts'), appTs.replace('"localhost"', '"0.0.0.0"')),
            parts: [call('write_file', { file_path: path.join(ws, 'src/app.ts'), content: appTs.replace('3000', '8080') })],
          },
          { parts: [call('read_file', { file_path: path.join(ws, 'src/app.ts') })] },
          { parts: [call('replace', { file_path: path.join(ws, 'src/app.ts'), old_string: 'port = 3000', new_string: 'port = 8080', instruction: 'Set the port' })] },
          { parts: [text('The port is now 8080, and your host change is kept.')] },
        ],
      },
    ],
  },
  {
    // (f) compression, automatic: the model's answer to the first prompt reports a prompt of
    // 900,000 tokens (over half of gemini-2.5-flash's 1,048,576), so sending the second prompt
    // first compresses the history into a summary (the fake's <state_snapshot>). A fresh `-p`
    // session cannot: its history holds one user text turn, and the split point of
    // chatCompressionService.ts must be a later one (or the end, after the model's text). No finding.
    name: 'compressed',
    files: { 'src/app.ts': appTs },
    runs: [
      {
        prompts: ['Read app.ts', 'Now make the port 8080'],
        script: ({ ws }) => [
          { parts: [call('read_file', { file_path: path.join(ws, 'src/app.ts') })] },
          { parts: [text('Read it.')], usage: { promptTokenCount: 900_000, totalTokenCount: 900_020 } },
          { parts: [call('replace', { file_path: path.join(ws, 'src/app.ts'), old_string: 'port = 3000', new_string: 'port = 8080', instruction: 'Set the port' })] },
          { parts: [text('The port is now 8080.')] },
        ],
      },
    ],
  },
  {
    // (f) compression, by hand (`/compress`); then the user changes line 2 and the model writes the
    // whole file from what it read before the compression: a lost update, a stale-write error.
    name: 'compressed-stale-write',
    files: { 'src/app.ts': appTs },
    runs: [
      {
        prompts: [
          'Read app.ts',
          '/compress',
          { text: 'Now make the port 8080', before: ({ ws }) => fs.writeFileSync(path.join(ws, 'src/app.ts'), appTs.replace('"localhost"', '"0.0.0.0"')) },
        ],
        script: ({ ws }) => [
          { parts: [call('read_file', { file_path: path.join(ws, 'src/app.ts') })] },
          { parts: [text('Read it.')] },
          { parts: [call('write_file', { file_path: path.join(ws, 'src/app.ts'), content: appTs.replace('3000', '8080') })] },
          { parts: [text('The port is now 8080.')] },
        ],
      },
    ],
  },
  {
    // (f) compression in `-p` mode, on --resume: there the history ends with the first run's
    // answer, so a split point exists. The resumed run's first call reports 900,000 prompt tokens,
    // and sending its result compresses the history mid-turn: the checkpoint keeps the second
    // prompt and that call, and the call's result follows it. The resumed history sent the first
    // run's read result twice, as in `resumed`: a duplicate-result error.
    name: 'resumed-compressed',
    files: { 'src/app.ts': appTs },
    runs: [
      readAppTs,
      {
        prompt: 'Now make the port 8080',
        args: ['--resume', 'latest'],
        script: ({ ws }) => [
          { parts: [call('read_file', { file_path: path.join(ws, 'src/app.ts') })], usage: { promptTokenCount: 900_000, totalTokenCount: 900_020 } },
          { parts: [call('replace', { file_path: path.join(ws, 'src/app.ts'), old_string: 'port = 3000', new_string: 'port = 8080', instruction: 'Set the port' })] },
          { parts: [text('The port is now 8080.')] },
        ],
      },
    ],
  },
  {
    // (g) a sub-agent: the model delegates to the built-in `generalist` (invoke_agent), whose own
    // loop (its requests declare tools too, so they play the next turns) reads and edits the file
    // and ends with complete_task. Its session file is chats/<parent session id>/<its id>.jsonl.
    // No finding.
    name: 'sub-agent',
    files: { 'src/app.ts': appTs },
    runs: [
      {
        prompt: 'Make the port 8080',
        script: ({ ws }) => [
          { parts: [call('invoke_agent', { agent_name: 'generalist', prompt: 'Set the port in src/app.ts to 8080.' })] },
          { parts: [call('read_file', { file_path: path.join(ws, 'src/app.ts') })] },
          { parts: [call('replace', { file_path: path.join(ws, 'src/app.ts'), old_string: 'port = 3000', new_string: 'port = 8080', instruction: 'Set the port' })] },
          { parts: [call('complete_task', { result: { response: 'The port in src/app.ts is now 8080.' } })] },
          { parts: [text('The port is now 8080.')] },
        ],
      },
    ],
  },
  {
    // (g) the main session reads the file, a sub-agent edits it, then the main session writes
    // the whole file from its own read: the sub-agent's change is lost, a stale-write error.
    name: 'sub-agent-lost-update',
    files: { 'src/app.ts': appTs },
    runs: [
      {
        prompt: 'Make the port 8080 and the host 0.0.0.0',
        script: ({ ws }) => [
          { parts: [call('read_file', { file_path: path.join(ws, 'src/app.ts') })] },
          { parts: [call('invoke_agent', { agent_name: 'generalist', prompt: 'Set the port in src/app.ts to 8080.' })] },
          { parts: [call('read_file', { file_path: path.join(ws, 'src/app.ts') })] },
          { parts: [call('replace', { file_path: path.join(ws, 'src/app.ts'), old_string: 'port = 3000', new_string: 'port = 8080', instruction: 'Set the port' })] },
          { parts: [call('complete_task', { result: { response: 'The port in src/app.ts is now 8080.' } })] },
          { parts: [call('write_file', { file_path: path.join(ws, 'src/app.ts'), content: appTs.replace('"localhost"', '"0.0.0.0"') })] },
          { parts: [text('The port is 8080 and the host 0.0.0.0.')] },
        ],
      },
    ],
  },
  {
    // (g) sub-agent-lost-update with the guard installed and `watch` running. Gemini CLI sends a
    // sub-agent's hooks with the main session's session_id and transcript_path (hookSystem's
    // createBaseInput); the guard takes them as the sub-agent's while its file is the newer, and
    // denies the main session's stale write_file. (Before it did, the write went through and
    // `watch` reported the sub-agent's edit as a concurrent-write against the main session.)
    name: 'guarded-sub-agent-lost-update',
    guard: true,
    files: { 'src/app.ts': appTs },
    runs: [
      {
        prompt: 'Make the port 8080 and the host 0.0.0.0',
        script: (o) => scenarios.find((x) => x.name === 'sub-agent-lost-update').runs[0].script(o),
      },
    ],
  },
];
