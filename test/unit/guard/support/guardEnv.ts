import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { GuardPolicy } from '../../../../src/core/guard/types';
import { HookLedger } from '../../../../src/io/guard/ledger';
import { GuardService } from '../../../../src/io/guard/service';
import { ledgerPathFor } from '../../../../src/io/guard/socketPath';
import type { LiveMonitorOptions } from '../../../../src/io/liveMonitor';
import { hashText } from '../../../../src/io/workTree';
import { LiveEnv } from '../../support/liveEnv';
import { repoRoot } from '../../support/repo';
import { waitFor } from '../../support/wait';

export interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Wall time of the hook process, spawn to exit. */
  ms: number;
}

/** The built hook (`npm run build` / `node esbuild.config.mjs` first). */
export function hookScript(): string {
  const p = path.join(repoRoot(), 'dist', 'hook.js');
  if (!existsSync(p)) {
    throw new Error('dist/hook.js is missing: run `node esbuild.config.mjs` first');
  }
  return p;
}

/**
 * Runs the real hook process with `input` on stdin. Asynchronous on purpose: the service
 * it asks may live in this very process.
 */
export function runHook(input: unknown, args: string[], env: Record<string, string | undefined> = {}): Promise<HookRun> {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, AGENT_GUARD_FAIL_CLOSED: undefined, AGENT_GUARD_TIMEOUT_MS: undefined, ...env })) {
    if (v !== undefined) {
      clean[k] = v;
    }
  }
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [hookScript(), ...args], { env: clean, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: performance.now() - started }));
    child.stdin.end(typeof input === 'string' ? input : JSON.stringify(input));
  });
}

/** A workspace with a live monitor and a guard service on its socket, in a private guard directory. */
/**
 * The user's saves as the editor host reports them (LiveMonitorOptions.isUserSave): a change
 * to content the user saved is theirs. Known by content, not by a window of time: on a loaded
 * machine the watcher may see the change seconds after the save.
 */
export class UserSaveLog {
  private readonly saved = new Map<string, string>();

  /** The user saves `content` to `file`. */
  save(file: string, content: string): void {
    this.saved.set(file, hashText(content));
    writeFileSync(file, content);
  }

  readonly isUserSave = (file: string, _at: number, hash: string | null): boolean => hash !== null && this.saved.get(file) === hash;
}

export class GuardEnv {
  readonly live = new LiveEnv();
  readonly dir = path.join(this.live.root, 'gd');
  readonly dirty = new Set<string>();
  readonly logs: string[] = [];
  ledger!: HookLedger;
  service!: GuardService;

  get workspace(): string {
    return this.live.workspace;
  }

  /** A workspace file, created with `content`. */
  file(rel: string, content?: string): string {
    const p = path.join(this.workspace, rel);
    if (content !== undefined) {
      mkdirSync(path.dirname(p), { recursive: true });
      writeFileSync(p, content);
    }
    return p;
  }

  async start(opts: { policy?: Partial<GuardPolicy>; monitor?: Partial<LiveMonitorOptions> } = {}): Promise<this> {
    this.ledger = await HookLedger.open(ledgerPathFor(this.workspace, this.dir));
    const monitor = await this.live.start({ hookLedger: this.ledger, ...opts.monitor });
    const log = (level: string) => (m: string | Error) => {
      this.logs.push(`${level} ${String(m)}`);
    };
    this.service = await GuardService.start({
      workspace: this.workspace,
      monitor,
      ledger: this.ledger,
      dirtyBuffers: { isDirty: (p) => this.dirty.has(p) },
      dir: this.dir,
      ...(opts.policy ? { policy: opts.policy } : {}),
      logger: { trace: () => {}, debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    });
    return this;
  }

  /**
   * The host stops: its service and monitor close. `start` again is a new host, which knows
   * what the hooks recorded only from the ledger file.
   */
  async stop(): Promise<void> {
    await this.service.close();
    await this.live.monitor?.close();
  }

  /**
   * Appends what `t` holds beyond what was appended before to the transcript file, as the agent
   * writes it, and waits until the monitor has read it all.
   */
  transcriptWriter(file: string, t: { lines: readonly string[]; text(): string }): () => Promise<void> {
    let written = 0;
    return async () => {
      appendFileSync(file, t.lines.slice(written).map((l) => l + '\n').join(''));
      written = t.lines.length;
      await waitFor(() => (this.live.monitor!.session(file)?.bytes ?? 0) >= Buffer.byteLength(t.text()), 5000, 'transcript read');
      await this.live.monitor!.idle();
    };
  }

  hook(input: unknown, args: string[], env: Record<string, string | undefined> = {}): Promise<HookRun> {
    return runHook(input, args, { AGENT_GUARD_DIR: this.dir, ...env });
  }

  async dispose(): Promise<void> {
    await this.service?.close();
    await this.live.dispose();
  }
}

/** Payloads as each agent sends them (FORMATS.md §1.7, §2.6, §3.4). */
export const payloads = {
  claude(event: 'PreToolUse' | 'PostToolUse', s: { sessionId: string; transcript: string; cwd: string }, tool: string, input: Record<string, unknown>, id: string): Record<string, unknown> {
    return {
      session_id: s.sessionId,
      transcript_path: s.transcript,
      cwd: s.cwd,
      permission_mode: 'default',
      hook_event_name: event,
      tool_name: tool,
      tool_input: input,
      tool_use_id: id,
      ...(event === 'PostToolUse' ? { tool_response: tool === 'Read' ? { type: 'text', file: { filePath: input['file_path'] } } : { filePath: input['file_path'], success: true } } : {}),
    };
  },
  gemini(event: 'BeforeTool' | 'AfterTool', s: { sessionId: string; transcript: string; cwd: string }, tool: string, input: Record<string, unknown>): Record<string, unknown> {
    return {
      session_id: s.sessionId,
      transcript_path: s.transcript,
      cwd: s.cwd,
      hook_event_name: event,
      timestamp: new Date().toISOString(),
      tool_name: tool,
      tool_input: input,
      ...(event === 'AfterTool' ? { tool_response: { llmContent: 'ok', returnDisplay: 'ok' } } : {}),
    };
  },
  codex(event: 'PreToolUse' | 'PostToolUse', s: { sessionId: string; transcript: string | null; cwd: string }, patch: string, id: string): Record<string, unknown> {
    return {
      session_id: s.sessionId,
      turn_id: 'turn-1',
      transcript_path: s.transcript,
      cwd: s.cwd,
      hook_event_name: event,
      model: 'gpt-5-codex',
      permission_mode: 'default',
      tool_name: 'apply_patch',
      tool_input: { command: patch },
      tool_use_id: id,
      ...(event === 'PostToolUse' ? { tool_response: 'Done!' } : {}),
    };
  },
};
