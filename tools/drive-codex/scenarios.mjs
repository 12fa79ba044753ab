// The scenarios drive.mjs runs: the workspace's files, the model's turns, and the codex
// command lines. Each `script(ctx)` returns the turns fake-responses.mjs plays in order.
import fs from 'node:fs';
import path from 'node:path';

/** An assistant message: ends the turn when it is the last item and no call is pending. */
const say = (text) => ({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
/** A function call (unified exec `exec_command`, `update_plan`, …); arguments as JSON text. */
const call = (name, args, callId) => ({ type: 'function_call', name, arguments: JSON.stringify(args), call_id: callId });
/** The freeform apply_patch tool: its input is the patch text itself. */
const patch = (input, callId) => ({ type: 'custom_tool_call', name: 'apply_patch', input, call_id: callId });
const reasoning = (text) => ({
  type: 'reasoning',
  summary: [{ type: 'summary_text', text }],
  content: [{ type: 'reasoning_text', text }],
  encrypted_content: null,
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const notes = 'alpha\nbeta\ngamma\n';
const appTs = 'export const port = 3000;\nexport const host = "localhost";\n';
const exec = (ctx, args = []) => ['exec', '--skip-git-repo-check', ...args, 'Work on the repository as scripted.'];

export const scenarios = {
  /** (a) Read a file with a shell command, edit it with apply_patch, answer. */
  healthy: {
    files: { 'notes.txt': notes },
    script: () => ({
      turns: [
        { items: [reasoning('Read the file first.'), call('exec_command', { cmd: 'cat notes.txt' }, 'call_read_1')] },
        { items: [patch('*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** End Patch\n', 'call_patch_1')] },
        { items: [say('Changed beta to BETA in notes.txt.')] },
      ],
    }),
    runs: [exec],
  },

  /**
   * (b) Parallel calls: two reads in one turn; a read and a patch of one path in one turn (Codex
   * runs apply_patch alone, after the read); a read and a shell write of one path side by side,
   * a real race.
   */
  parallel: {
    files: { 'notes.txt': notes, 'other.txt': 'one\ntwo\n' },
    script: () => ({
      turns: [
        { items: [call('exec_command', { cmd: 'cat notes.txt' }, 'call_par_r1'), call('exec_command', { cmd: 'cat other.txt' }, 'call_par_r2')] },
        {
          items: [
            call('exec_command', { cmd: 'sed -n 1,2p other.txt' }, 'call_par_r3'),
            patch('*** Begin Patch\n*** Update File: other.txt\n@@\n one\n-two\n+TWO\n*** End Patch\n', 'call_par_w1'),
          ],
        },
        { items: [call('exec_command', { cmd: 'cat notes.txt' }, 'call_race_r1'), call('exec_command', { cmd: "printf 'rewritten\\n' > notes.txt" }, 'call_race_w1')] },
        { items: [say('Read both files, changed other.txt, and rewrote notes.txt while reading it.')] },
      ],
    }),
    runs: [exec],
  },

  /** (c) The model reads, the user changes the file on disk, the model patches it anyway. */
  stale: {
    files: { 'notes.txt': notes },
    script: (ctx) => ({
      turns: [
        { items: [call('exec_command', { cmd: 'cat notes.txt' }, 'call_stale_r1')] },
        {
          // As a person would: a while after the read, and a while before the model's next answer
          // (a guard watching the transcript learns of the read only when it reads that line).
          before: async () => {
            await sleep(1500);
            fs.writeFileSync(path.join(ctx.ws, 'notes.txt'), 'alpha\nbeta\ngamma\ndelta added by the user\n');
            await sleep(1500);
          },
          items: [patch('*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** End Patch\n', 'call_stale_w1')],
        },
        { items: [say('Changed beta to BETA.')] },
      ],
    }),
    runs: [exec],
  },

  /**
   * (d) Calls that fail: a command that exits non-zero, a patch that does not apply, the same
   * two patches as apply_patch heredocs run through exec_command (which Codex intercepts), and
   * a write through the classic shell tool, which 0.171 does not offer.
   */
  failing: {
    files: { 'notes.txt': notes },
    script: () => ({
      turns: [
        { items: [call('exec_command', { cmd: 'cat missing.txt' }, 'call_fail_r1')] },
        { items: [call('exec_command', { cmd: 'cat notes.txt' }, 'call_fail_r2')] },
        { items: [patch('*** Begin Patch\n*** Update File: notes.txt\n@@\n-no such line\n+something\n*** End Patch\n', 'call_fail_w1')] },
        { items: [call('exec_command', { cmd: "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** End Patch\nEOF" }, 'call_hd_w1')] },
        { items: [call('exec_command', { cmd: "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: notes.txt\n@@\n-no such line\n+x\n*** End Patch\nEOF" }, 'call_hd_w2')] },
        { items: [call('shell', { command: ['bash', '-lc', "printf 'x\\n' > notes.txt"] }, 'call_fail_shell1')] },
        { items: [say('One patch applied (through the shell); the others failed.')] },
      ],
    }),
    runs: [exec],
  },

  /** (e) What else 0.171 has: a polled long-running command, view_image, web search, plans, goals. */
  tools: {
    files: { 'notes.txt': notes, 'pic.png': Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64') },
    script: () => ({
      turns: [
        { items: [reasoning('Start a slow command.'), call('exec_command', { cmd: 'sleep 2; cat notes.txt', yield_time_ms: 250 }, 'call_tools_x1')] },
        {
          items: (body) => {
            const out = [...(body?.input ?? [])].reverse().find((i) => i.type === 'function_call_output' && i.call_id === 'call_tools_x1');
            const text = typeof out?.output === 'string' ? out.output : JSON.stringify(out?.output ?? '');
            const id = Number(/session ID (\d+)/.exec(text)?.[1] ?? 0);
            return [call('write_stdin', { session_id: id, chars: '', yield_time_ms: 5000 }, 'call_tools_poll1')];
          },
        },
        { items: [call('view_image', { path: 'pic.png' }, 'call_tools_img1')] },
        {
          items: [
            { type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'codex cli apply_patch' } },
            call('update_plan', { explanation: 'Two steps', plan: [{ step: 'Read notes', status: 'completed' }, { step: 'Add a file', status: 'in_progress' }] }, 'call_tools_plan1'),
          ],
        },
        { items: [call('get_goal', {}, 'call_tools_goal1')] },
        { items: [patch('*** Begin Patch\n*** Add File: added.txt\n+new file\n*** End Patch\n', 'call_tools_add1')] },
        { items: [patch('*** Begin Patch\n*** Update File: added.txt\n*** Move to: moved.txt\n@@\n-new file\n+moved file\n*** End Patch\n', 'call_tools_mv1')] },
        { items: [patch('*** Begin Patch\n*** Delete File: moved.txt\n*** End Patch\n', 'call_tools_del1')] },
        // apply_patch called as a function, which 0.171's freeform tool does not take.
        { items: [call('apply_patch', { input: '*** Begin Patch\n*** Add File: fn.txt\n+by a function call\n*** End Patch\n' }, 'call_tools_fnpatch1')] },
        { items: [say('Tried the tools.')] },
      ],
    }),
    runs: [exec],
  },

  /** (e) Automatic compaction: a response that reports a full context window. */
  compact: {
    files: { 'notes.txt': notes },
    config: ['model_auto_compact_token_limit = 2000'],
    script: () => ({
      turns: [
        { items: [call('exec_command', { cmd: 'cat notes.txt' }, 'call_cmp_r1')], usage: 5000 },
        { items: [say('Summary: read notes.txt (alpha, beta, gamma); next, change beta.')] },
        { items: [patch('*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** End Patch\n', 'call_cmp_w1')] },
        { items: [say('Changed beta to BETA.')] },
      ],
    }),
    runs: [exec],
  },

  /** (f) A session resumed with `codex exec resume --last`: the read in the first run, the write in the second. */
  resume: {
    files: { 'notes.txt': notes },
    script: () => ({
      turns: [
        { items: [call('exec_command', { cmd: 'cat notes.txt' }, 'call_res_r1')] },
        { items: [say('I have read notes.txt.')] },
        { items: [patch('*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** End Patch\n', 'call_res_w1')] },
        { items: [say('Changed beta to BETA.')] },
      ],
    }),
    runs: [exec, () => ['exec', '--skip-git-repo-check', 'resume', '--last', 'Now change beta to BETA.']],
  },

  /**
   * (c) with the guard: the stale scenario, run with `--guard` (hooks installed, `agent-guard
   * watch` running, the project's hooks trusted for this run only); denied, the model reads
   * the file again and redoes its edit.
   */
  guarded: {
    files: { 'notes.txt': notes },
    script: (ctx) => ({
      turns: [
        ...scenarios.stale.script(ctx).turns.slice(0, 2),
        // Denied: the model reads the file again and redoes the edit on what it now holds.
        { items: [call('exec_command', { cmd: 'cat notes.txt' }, 'call_guard_r2')] },
        { items: [patch('*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n delta added by the user\n*** End Patch\n', 'call_guard_w2')] },
        { items: [say('The guard stopped my first edit; re-read notes.txt and changed beta to BETA.')] },
      ],
    }),
    runs: [exec],
  },

  /** (d) The user interrupts the run (SIGINT) while a command runs: a call with no output. */
  interrupted: {
    files: { 'notes.txt': notes },
    interruptAfterMs: 6000,
    script: () => ({
      turns: [
        { items: [call('exec_command', { cmd: 'cat notes.txt' }, 'call_int_r1')] },
        { items: [call('exec_command', { cmd: 'sleep 60', yield_time_ms: 30000 }, 'call_int_sleep')] },
        { items: [say('Not reached.')] },
      ],
    }),
    runs: [exec],
  },

  /** (e) A sub-agent (multi_agent v1, offered with the fallback model metadata): its own rollout. */
  subagent: {
    files: { 'notes.txt': notes },
    model: 'gpt-5.2-codex',
    script: () => ({
      turns: [
        { items: [{ ...call('spawn_agent', { message: 'Read notes.txt and report its first line.' }, 'call_sub_spawn'), namespace: 'multi_agent_v1' }] },
        {
          items: (body) => {
            const out = [...(body?.input ?? [])].reverse().find((i) => i.type === 'function_call_output' && i.call_id === 'call_sub_spawn');
            const text = typeof out?.output === 'string' ? out.output : JSON.stringify(out?.output ?? '');
            const id = /"(?:agent_id|id)"\s*:\s*"([^"]+)"/.exec(text)?.[1] ?? text;
            return [{ ...call('wait_agent', { targets: [id], timeout_ms: 30000 }, 'call_sub_wait'), namespace: 'multi_agent_v1' }];
          },
        },
        { items: [say('The sub-agent read notes.txt.')] },
      ],
      child: [
        { items: [call('exec_command', { cmd: 'head -1 notes.txt' }, 'call_child_r1')] },
        { items: [say('The first line is alpha.')] },
      ],
    }),
    runs: [exec],
  },

  /**
   * (g) A sub-agent's edit between the main session's read and its write: the main session reads
   * src/app.ts, spawns a sub-agent that reads it and sets the port, waits for it, then writes the
   * whole file from its own, older read (an `Add File` patch over the file: Codex writes it whole),
   * which puts the port back. `gpt-5.5`, so that both get the freeform apply_patch (the fallback
   * model of `subagent` has none): it finds multi_agent_v1 through tool_search first.
   */
  'subagent-lost-update': {
    files: { 'src/app.ts': appTs },
    script: () => ({
      turns: [
        { items: [call('exec_command', { cmd: 'cat src/app.ts' }, 'call_sublu_r1')] },
        { items: [{ type: 'tool_search_call', call_id: 'call_sublu_search', execution: 'client', status: 'completed', arguments: { query: 'spawn sub-agent', limit: 8 } }] },
        { items: [{ ...call('spawn_agent', { message: 'Set the port in src/app.ts to 8080.' }, 'call_sublu_spawn'), namespace: 'multi_agent_v1' }] },
        {
          items: (body) => {
            const out = [...(body?.input ?? [])].reverse().find((i) => i.type === 'function_call_output' && i.call_id === 'call_sublu_spawn');
            const text = typeof out?.output === 'string' ? out.output : JSON.stringify(out?.output ?? '');
            const id = /"(?:agent_id|id)"\s*:\s*"([^"]+)"/.exec(text)?.[1] ?? text;
            return [{ ...call('wait_agent', { targets: [id], timeout_ms: 60000 }, 'call_sublu_wait'), namespace: 'multi_agent_v1' }];
          },
        },
        {
          // A while after the sub-agent's edit, so a guard watching the rollouts has read its lines.
          before: () => sleep(1500),
          items: [patch('*** Begin Patch\n*** Add File: src/app.ts\n+export const port = 3000;\n+export const host = "0.0.0.0";\n*** End Patch\n', 'call_sublu_w1')],
        },
        { items: [say('The host in src/app.ts is now 0.0.0.0.')] },
      ],
      child: [
        { items: [call('exec_command', { cmd: 'cat src/app.ts' }, 'call_sublu_child_r1')] },
        {
          // The guard learns of a shell read from the rollout: it has read the child's `cat` by then.
          before: () => sleep(1500),
          items: [patch('*** Begin Patch\n*** Update File: src/app.ts\n@@\n-export const port = 3000;\n+export const port = 8080;\n export const host = "localhost";\n*** End Patch\n', 'call_sublu_child_w1')],
        },
        { items: [say('The port in src/app.ts is now 8080.')] },
      ],
    }),
    runs: [exec],
  },

  /**
   * (g) subagent-lost-update with the guard installed and `agent-guard watch` running (run with
   * `--guard`). The child's hooks carry the root thread's session_id but its own rollout as
   * transcript_path (and agent_id), so the guard keeps the two apart: the main session's write
   * from its older read is denied, naming the sub-agent; the model reads the file again and
   * changes the host alone.
   */
  'subagent-lost-update-guarded': {
    files: { 'src/app.ts': appTs },
    script: (ctx) => {
      const { turns, child } = scenarios['subagent-lost-update'].script(ctx);
      return {
        turns: [
          ...turns.slice(0, -1),
          { items: [call('exec_command', { cmd: 'cat src/app.ts' }, 'call_sublu_r2')] },
          { items: [patch('*** Begin Patch\n*** Update File: src/app.ts\n@@\n export const port = 8080;\n-export const host = "localhost";\n+export const host = "0.0.0.0";\n*** End Patch\n', 'call_sublu_w2')] },
          { items: [say('The guard stopped my first write; re-read src/app.ts and changed the host.')] },
        ],
        child,
      };
    },
    runs: [exec],
  },

  /** (e) Code mode (feature `code_mode`, off by default in 0.171): a script that reads, creates and edits files. */
  codemode: {
    files: { 'notes.txt': notes },
    features: ['code_mode = true'],
    script: () => ({
      turns: [
        {
          items: [
            {
              type: 'custom_tool_call',
              name: 'exec',
              call_id: 'call_code_1',
              input: [
                "const r = await tools.exec_command({ cmd: 'cat notes.txt' });",
                'text(JSON.stringify(r));',
                "const p = await tools.apply_patch('*** Begin Patch\\n*** Add File: made.txt\\n+' + 'made by a script' + '\\n*** End Patch\\n');",
                'text(JSON.stringify(p));',
              ].join('\n'),
            },
          ],
        },
        { items: [patch('*** Begin Patch\n*** Update File: made.txt\n@@\n-made by a script\n+edited after\n*** End Patch\n', 'call_code_w1')] },
        { items: [say('Made and edited made.txt.')] },
      ],
    }),
    runs: [exec],
  },

  /** (d) A read-only sandbox, no approvals: a patch and a shell write that Codex may not run. */
  sandboxed: {
    files: { 'notes.txt': notes },
    sandbox: 'read-only',
    script: () => ({
      turns: [
        { items: [call('exec_command', { cmd: 'cat notes.txt' }, 'call_sb_r1')] },
        { items: [patch('*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** End Patch\n', 'call_sb_w1')] },
        { items: [call('exec_command', { cmd: "printf 'x\\n' > notes.txt" }, 'call_sb_w2')] },
        { items: [call('exec_command', { cmd: "printf 'x\\n' > notes.txt", sandbox_permissions: 'require_escalated', justification: 'write the file' }, 'call_sb_w3')] },
        { items: [say('The sandbox kept notes.txt as it was.')] },
      ],
    }),
    runs: [exec],
  },

  /** (f) A session forked with `codex exec fork <id>`: a new rollout that copies the first's history, then writes. */
  fork: {
    files: { 'notes.txt': notes },
    script: () => ({
      turns: [
        { items: [call('exec_command', { cmd: 'cat notes.txt' }, 'call_fork_r1')] },
        { items: [say('I have read notes.txt.')] },
        { items: [patch('*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** End Patch\n', 'call_fork_w1')] },
        { items: [say('Changed beta to BETA in the fork.')] },
      ],
    }),
    runs: [exec, (ctx) => ['exec', '--skip-git-repo-check', 'fork', /([0-9a-f-]{36})\.jsonl$/.exec(ctx.lastRollout ?? '')?.[1] ?? 'missing', 'Now change beta to BETA.']],
  },
};
