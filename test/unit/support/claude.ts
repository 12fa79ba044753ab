/**
 * Builds Claude Code transcripts line by line, in the shape Claude Code 2.1 writes them
 * (FORMATS.md §1.3): one content block per assistant line, one tool_result per user line,
 * `parentUuid` chains, `toolUseResult` metadata.
 */
export class ClaudeTranscript {
  readonly lines: string[] = [];
  private last: string | null = null;
  private clock = Date.parse('2026-02-12T14:00:00.000Z');
  private readonly byTool = new Map<string, string>();
  /** The program that writes the records (`local-agent`: Claude Desktop's local-agent mode). */
  entrypoint = 'cli';
  /** Every record a sidechain record: a sub-agent's own file. */
  sidechain = false;
  private version = '2.1.39';

  constructor(
    readonly sessionId = 'aaaaaaaa-0000-4000-8000-000000000001',
    /** The session's folder, on every record from here on (see `inWorktree`). */
    public cwd = '/home/dev/proj',
  ) {}

  private envelope(type: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    // Distinct per session id, so two builders never mint the same uuid (replays are deduplicated by uuid).
    const uuid = `${this.sessionId.slice(0, 8)}-0000-4000-8000-${String(this.lines.length + 1).padStart(12, '0')}`;
    this.clock += 1000;
    const e = {
      parentUuid: this.last,
      isSidechain: this.sidechain,
      userType: 'external',
      cwd: this.cwd,
      sessionId: this.sessionId,
      version: this.version,
      gitBranch: 'main',
      entrypoint: this.entrypoint,
      type,
      uuid,
      timestamp: new Date(this.clock).toISOString(),
      ...extra,
    };
    this.last = uuid;
    return e;
  }

  /** The Claude Code version the records name from here on. */
  as(version: string): this {
    this.version = version;
    return this;
  }

  /** The next record is written `ms` later than it would be (records are a second apart). */
  later(ms: number): this {
    this.clock += ms;
    return this;
  }

  /** The next record is written at `ms` (epoch): a session of now, where the guard's ledger is real. */
  at(ms: number): this {
    this.clock = ms - 1000;
    return this;
  }

  push(obj: Record<string, unknown>): this {
    this.lines.push(JSON.stringify(obj));
    return this;
  }

  /** A raw line, written as is (malformed input, other record kinds). */
  raw(line: string): this {
    this.lines.push(line);
    return this;
  }

  user(text: string, extra: Record<string, unknown> = {}): this {
    return this.push(this.envelope('user', { message: { role: 'user', content: text }, ...extra }));
  }

  say(msgId: string, text: string): this {
    return this.sayAndCall(msgId, text, []);
  }

  /** A message's text and its calls in one record, as Claude Code 2.0.x wrote a message it did not stream. */
  sayAndCall(msgId: string, text: string, calls: readonly { id: string; name: string; input: Record<string, unknown> }[]): this {
    for (const c of calls) {
      this.byTool.set(c.id, c.name);
    }
    return this.push(
      this.envelope('assistant', {
        message: {
          model: 'claude-opus-4-6',
          id: msgId,
          type: 'message',
          role: 'assistant',
          content: [{ type: 'text', text }, ...calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.input }))],
        },
        requestId: 'req_' + msgId,
      }),
    );
  }

  call(msgId: string, id: string, name: string, input: Record<string, unknown>): this {
    this.byTool.set(id, name);
    return this.push(
      this.envelope('assistant', {
        message: {
          model: 'claude-opus-4-6',
          id: msgId,
          type: 'message',
          role: 'assistant',
          content: [{ type: 'tool_use', id, name, input }],
        },
        requestId: 'req_' + msgId,
      }),
    );
  }

  result(id: string, content: unknown, opts: { isError?: boolean; toolUseResult?: unknown } = {}): this {
    return this.push(
      this.envelope('user', {
        message: {
          role: 'user',
          content: [{ tool_use_id: id, type: 'tool_result', content, ...(opts.isError ? { is_error: true } : {}) }],
        },
        ...(opts.toolUseResult !== undefined ? { toolUseResult: opts.toolUseResult } : {}),
      }),
    );
  }

  /**
   * A result with text the person typed while the tools ran, in the same record: Claude Code
   * delivers queued input along with a tool result.
   */
  resultWithText(id: string, content: unknown, text: string): this {
    return this.push(
      this.envelope('user', {
        message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content }, { type: 'text', text }] },
      }),
    );
  }

  /**
   * A result linked the way Claude Code links it (FORMATS.md §1.3): `parentUuid` and
   * `sourceToolAssistantUUID` are the uuid of the assistant entry holding the tool_use, so
   * parallel results hang side by side from their calls. The next line chains from this one.
   */
  linkedResult(id: string, content: unknown, opts: { isError?: boolean } = {}): this {
    const callLine = this.lines.find((l) => l.includes('"type":"tool_use"') && l.includes(`"id":${JSON.stringify(id)}`));
    const callUuid = callLine === undefined ? null : (JSON.parse(callLine) as { uuid: string }).uuid;
    this.result(id, content, opts);
    const line = JSON.parse(this.lines[this.lines.length - 1]!) as Record<string, unknown>;
    line['parentUuid'] = callUuid;
    line['sourceToolAssistantUUID'] = callUuid;
    this.lines[this.lines.length - 1] = JSON.stringify(line);
    return this;
  }

  /** A Read and its result with Claude Code's `toolUseResult.file`. */
  read(msgId: string, id: string, path: string, content: string, window?: { offset: number; limit: number }): this {
    this.call(msgId, id, 'Read', { file_path: path, ...(window ? { offset: window.offset, limit: window.limit } : {}) });
    return this.readResult(id, path, content, window);
  }

  readResult(id: string, path: string, content: string, window?: { offset: number; limit: number }): this {
    const all = content.split('\n');
    const total = content.endsWith('\n') ? all.length - 1 : all.length;
    const start = window?.offset ?? 1;
    const count = window ? Math.min(window.limit, total - start + 1) : total;
    const slice = window ? all.slice(start - 1, start - 1 + count).join('\n') : content;
    return this.result(id, catN(slice, start), {
      toolUseResult: { type: 'text', file: { filePath: path, content: slice, numLines: count, startLine: start, totalLines: total } },
    });
  }

  /** An Edit call and its result; `original` is what the file held when the edit ran. */
  edit(msgId: string, id: string, path: string, original: string, oldString: string, newString: string): this {
    this.call(msgId, id, 'Edit', { file_path: path, old_string: oldString, new_string: newString, replace_all: false });
    return this.editResult(id, path, original, oldString, newString);
  }

  /** `hunk`: the structuredPatch hunk as Claude Code writes it (with context lines); by default one hunk of exactly the replaced lines. */
  editResult(id: string, path: string, original: string, oldString: string, newString: string, hunk?: { oldStart: number; oldLines: number; lines: string[] }): this {
    const before = original.slice(0, original.indexOf(oldString));
    const oldStart = hunk?.oldStart ?? before.split('\n').length;
    const oldLines = hunk?.oldLines ?? oldString.split('\n').length;
    const newLines = hunk ? hunk.lines.filter((l) => !l.startsWith('-')).length : newString.split('\n').length;
    return this.result(id, `The file ${path} has been updated successfully.`, {
      toolUseResult: {
        filePath: path,
        oldString,
        newString,
        originalFile: original,
        structuredPatch: [{ oldStart, oldLines, newStart: oldStart, newLines, lines: hunk?.lines ?? [] }],
        userModified: false,
        replaceAll: false,
      },
    });
  }

  write(msgId: string, id: string, path: string, content: string, original: string | null): this {
    this.call(msgId, id, 'Write', { file_path: path, content });
    return this.result(id, `File created successfully at: ${path}`, {
      toolUseResult: { type: original === null ? 'create' : 'update', filePath: path, content, structuredPatch: [], originalFile: original },
    });
  }

  bash(msgId: string, id: string, command: string, stdout = ''): this {
    this.call(msgId, id, 'Bash', { command, description: 'run' });
    return this.result(id, stdout, { toolUseResult: { stdout, stderr: '', interrupted: false, isImage: false } });
  }

  compact(): this {
    const logicalParentUuid = this.last;
    this.last = null;
    return this.push(
      this.envelope('system', { subtype: 'compact_boundary', content: 'Conversation compacted', logicalParentUuid, compactMetadata: { trigger: 'manual', preTokens: 1000 } }),
    );
  }

  /**
   * Claude Code's record of a request that failed and is sent again (2.1.62's shape): hung from
   * the last record of the history sent, the next attempt's from this one.
   */
  apiError(attempt: number, status = 503): this {
    return this.push(
      this.envelope('system', {
        subtype: 'api_error',
        level: 'error',
        error: { status, headers: {}, requestID: null, error: { error: { message: 'No available accounts', type: 'api_error' } } },
        retryInMs: 500 * 2 ** attempt,
        retryAttempt: attempt,
        maxRetries: 10,
      }),
    );
  }

  progress(toolUseId: string): this {
    return this.push(
      this.envelope('progress', { data: { type: 'hook_progress', hookEvent: 'PostToolUse', hookName: 'PostToolUse:Edit', command: 'fmt' }, parentToolUseID: toolUseId, toolUseID: toolUseId }),
    );
  }

  /**
   * A hook's note on a call, as Claude Code 2.0.x writes it when the call starts: a `system`
   * record naming the call by `toolUseID` (a link of the parentUuid chain that is not a message).
   */
  hookNote(toolUseId: string, script = 'deny-check.sh'): this {
    return this.push(
      this.envelope('system', {
        subtype: 'informational',
        content: `\u001b[1mPreToolUse:Bash\u001b[22m [~/.claude/scripts/${script}] completed successfully`,
        isMeta: false,
        toolUseID: toolUseId,
        level: 'info',
      }),
    );
  }

  /** A hook's attachment record (a link of the parentUuid chain that is not a message). */
  attachment(type = 'hook_success'): this {
    return this.push(this.envelope('attachment', { attachment: { type, hookName: 'PostToolUse:Bash', toolUseID: 'toolu_hook', hookEvent: 'PostToolUse', content: '', exitCode: 0 } }));
  }

  /**
   * A file Claude Code attaches after a compaction: with `content`, an `attachment` of type
   * `file` showing it (a Read result's shape); without, a `compact_file_reference`.
   */
  attachFile(path: string, content?: string): this {
    const attachment =
      content === undefined
        ? { type: 'compact_file_reference', filename: path, displayPath: path }
        : {
            type: 'file',
            filename: path,
            content: { type: 'text', file: { filePath: path, content, numLines: content.split('\n').length, startLine: 1, totalLines: content.split('\n').length } },
            displayPath: path,
          };
    return this.push(this.envelope('attachment', { attachment }));
  }

  /**
   * `EnterWorktree`: Claude Code's `worktree-state` record (no envelope, as it writes it), and
   * the records after it in `folder` (the worktree's root, or the same folder inside it).
   */
  inWorktree(worktreePath: string, folder = worktreePath): this {
    this.push({
      type: 'worktree-state',
      worktreeSession: { originalCwd: this.cwd, worktreePath, worktreeName: 'wt', worktreeBranch: 'worktree-wt', sessionId: this.sessionId },
      sessionId: this.sessionId,
    });
    this.cwd = folder;
    return this;
  }

  /** Output of a running Bash call, as Claude Code writes it every second or so while the command runs. */
  bashProgress(toolUseId: string, output = 'running…'): this {
    return this.push(
      this.envelope('progress', {
        data: { type: 'bash_progress', output, fullOutput: output, elapsedTimeSeconds: 1, totalLines: 1, timeoutMs: 120000 },
        toolUseID: `bash-progress-${this.lines.length}`,
        parentToolUseID: toolUseId,
      }),
    );
  }

  /** The uuid written on a 1-based line. */
  uuidAt(line: number): string {
    return (JSON.parse(this.lines[line - 1]!) as { uuid: string }).uuid;
  }

  /** The next line starts a new tree (`parentUuid: null`), as the first line of a session does. */
  root(): this {
    this.last = null;
    return this;
  }

  /** The next line's parent: continue another branch (a fork, or a second writer). */
  from(uuid: string): this {
    this.last = uuid;
    return this;
  }

  /** 1-based line of the first line containing `needle`. */
  lineOf(needle: string, nth = 1): number {
    let seen = 0;
    for (let i = 0; i < this.lines.length; i++) {
      if (this.lines[i]!.includes(needle) && ++seen === nth) {
        return i + 1;
      }
    }
    throw new Error(`no line #${nth} contains ${needle}`);
  }

  text(): string {
    return this.lines.map((l) => l + '\n').join('');
  }
}

/** Claude Code's Read output format: `cat -n` style numbering with an arrow. */
function catN(text: string, start: number): string {
  return text
    .split('\n')
    .map((l, i) => `${String(start + i).padStart(6)}→${l}`)
    .join('\n');
}

/**
 * One file written by two writers in turn: a reply forked (line 2), branch X (lines 3-4), branch Y
 * from the fork (5-6), X again (7-8). The uuids to hang more from.
 */
export function alternateBranches(): { t: ClaudeTranscript; fork: string; x1: string; y1: string; x2: string } {
  const t = new ClaudeTranscript().user('start').say('m1', 'ok');
  const fork = t.uuidAt(2);
  t.user('branch X goes on').say('m2', 'x1');
  const x1 = t.uuidAt(4);
  t.from(fork).user('branch Y (a second writer)').say('m3', 'y1');
  const y1 = t.uuidAt(6);
  t.from(x1).user('X again').say('m4', 'x2');
  return { t, fork, x1, y1, x2: t.uuidAt(8) };
}
