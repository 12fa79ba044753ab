/** Builds Codex CLI rollouts (`{timestamp, type, payload}` lines; FORMATS.md §2). */
export class CodexRollout {
  readonly lines: string[] = [];
  private clock = Date.parse('2026-01-02T03:04:05.000Z');

  constructor(
    readonly id = '019bce9f-0a40-79e2-8351-8818e8487fb6',
    readonly cwd = '/home/dev/proj',
    meta = true,
  ) {
    if (meta) {
      this.item('session_meta', { id, timestamp: new Date(this.clock).toISOString(), cwd, originator: 'codex_cli_rs', cli_version: '0.135.0', source: 'cli' });
    }
  }

  item(type: string, payload: unknown): this {
    this.clock += 1000;
    this.lines.push(JSON.stringify({ timestamp: new Date(this.clock).toISOString(), type, payload }));
    return this;
  }

  /** A raw line, written as is (malformed input). */
  raw(line: string): this {
    this.lines.push(line);
    return this;
  }

  user(text: string): this {
    return this.item('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text }] });
  }

  /** Codex's own note to the model (permissions, an approved command prefix). */
  developer(text: string): this {
    return this.item('response_item', { type: 'message', role: 'developer', content: [{ type: 'input_text', text }] });
  }

  say(text: string): this {
    return this.item('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] });
  }

  shell(callId: string, command: string): this {
    return this.item('response_item', {
      type: 'function_call',
      name: 'shell',
      arguments: JSON.stringify({ command: ['bash', '-lc', command], workdir: this.cwd }),
      call_id: callId,
    });
  }

  exec(callId: string, cmd: string): this {
    return this.item('response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd }), call_id: callId });
  }

  patch(callId: string, patch: string): this {
    return this.item('response_item', { type: 'custom_tool_call', name: 'apply_patch', input: patch, call_id: callId, status: 'completed' });
  }

  output(callId: string, output: string, custom = false): this {
    return this.item('response_item', { type: custom ? 'custom_tool_call_output' : 'function_call_output', call_id: callId, output });
  }

  event(type: string, extra: Record<string, unknown> = {}): this {
    return this.item('event_msg', { type, ...extra });
  }

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
