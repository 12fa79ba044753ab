import type { Disposable } from '../../core/lib/disposable';
import { AgentGuardError } from '../../core/lib/errors';
import { describeError, type Logger } from '../../core/lib/logger';
import { HookLedger } from './ledger';
import { serviceAnswers } from './server';
import type { GuardService } from './service';
import { ledgerPathFor, socketPathFor } from './socketPath';

export interface GuardStandbyOptions {
  workspace: string;
  /** The per-user socket directory. */
  dir: string;
  /**
   * Starts this host's service on the ledger as the file holds it now; throws
   * AgentGuardError('refused') while another host serves (the bind decides).
   */
  start: (ledger: HookLedger) => Promise<GuardService>;
  /** The service is this host's now, with the ledger it records to; the caller owns it from here. */
  onServe: (service: GuardService, ledger: HookLedger) => void;
  logger: Logger;
  /** How often to look whether the serving host has gone. */
  intervalMs?: number;
}

/** Often enough that a closed terminal leaves the hooks unanswered for seconds, not minutes. */
const defaultIntervalMs = 3000;

/**
 * A host whose guard service was refused because another host serves the workspace: waits
 * for that host to stop, then takes the service over. Each look is one connect to the socket
 * (or none while no file is there); the ledger is read only once the socket is free, and the
 * service starts on that fresh read, so approvals the other host recorded meanwhile are known.
 * Two hosts waiting alike both try to bind, and the bind lets one through; the other keeps
 * waiting. The timer is unref'd: waiting alone does not keep a process alive.
 */
export class GuardStandby implements Disposable {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private attempt: Promise<void> | undefined;
  private stopped = false;
  /** The last error that was not a refusal, logged once until it changes. */
  private lastProblem: string | undefined;

  constructor(private readonly opts: GuardStandbyOptions) {
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) {
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.attempt = this.tryTakeOver().finally(() => {
        this.attempt = undefined;
      });
    }, this.opts.intervalMs ?? defaultIntervalMs);
    this.timer.unref();
  }

  private async tryTakeOver(): Promise<void> {
    const { workspace, dir, logger } = this.opts;
    if (await serviceAnswers(socketPathFor(workspace, dir))) {
      this.schedule();
      return;
    }
    let service: GuardService;
    let ledger: HookLedger;
    try {
      ledger = await HookLedger.open(ledgerPathFor(workspace, dir), logger);
      if (this.stopped) {
        return;
      }
      service = await this.opts.start(ledger);
    } catch (e) {
      if (!AgentGuardError.is(e, 'refused')) {
        const problem = describeError(e);
        if (problem !== this.lastProblem) {
          this.lastProblem = problem;
          logger.warn(`[guard] could not take the guard service of ${workspace} over: ${problem}`);
        }
      }
      this.schedule();
      return;
    }
    if (this.stopped) {
      // Stopped while binding: the service must not outlive its host.
      await service.close();
      return;
    }
    this.stopped = true;
    this.opts.onServe(service, ledger);
  }

  dispose(): void {
    void this.close();
  }

  /** Stops waiting; resolves once an attempt under way has finished (and closed what it started). */
  async close(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.attempt;
  }
}
