import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { encodeClaudeProject } from '../../../src/core/discovery/locations';
import type { Finding } from '../../../src/core/model/finding';
import { LiveMonitor, type LiveMonitorOptions } from '../../../src/io/liveMonitor';

/** A throwaway home with agent folders and a workspace, and a monitor on it. */
export class LiveEnv {
  readonly root = mkdtempSync(path.join(os.tmpdir(), 'ag-live-'));
  readonly workspace = path.join(this.root, 'ws');
  readonly claudeDir = path.join(this.root, 'claude');
  readonly codexHome = path.join(this.root, 'codex');
  readonly projectDir = path.join(this.claudeDir, 'projects', encodeClaudeProject(this.workspace));
  monitor: LiveMonitor | undefined;
  /** Every finding the store announced, in order (to check "each exactly once"). */
  readonly announced: Finding[] = [];
  readonly removed: Finding[] = [];
  readonly logs: string[] = [];

  constructor() {
    mkdirSync(this.workspace, { recursive: true });
  }

  async start(opts: Partial<LiveMonitorOptions> = {}): Promise<LiveMonitor> {
    const log = (level: string) => (m: string | Error) => {
      this.logs.push(`${level} ${String(m)}`);
    };
    this.monitor = new LiveMonitor({
      workspace: this.workspace,
      environment: { home: this.root, env: { CLAUDE_CONFIG_DIR: this.claudeDir, CODEX_HOME: this.codexHome } },
      pendingPollMs: 50,
      // AGS_TEST_DEBUG=1 keeps the debug lines too, for a failing test's message.
      logger: { trace: () => {}, debug: process.env['AGS_TEST_DEBUG'] ? log('debug') : () => {}, info: log('info'), warn: log('warn'), error: log('error') },
      ...opts,
    });
    this.monitor.findings.onDidChange((c) => {
      this.announced.push(...c.added);
      this.removed.push(...c.removed);
    });
    await this.monitor.start();
    return this.monitor;
  }

  async dispose(): Promise<void> {
    await this.monitor?.close();
    rmSync(this.root, { recursive: true, force: true });
  }
}
