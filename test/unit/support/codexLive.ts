import { appendFileSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { CodexRollout } from './codex';
import type { LiveEnv } from './liveEnv';
import { waitFor } from './wait';

/**
 * A Codex rollout of session `s1` in the started `env`'s sessions folder, written as Codex writes
 * it: `step` appends what a change to the rollout adds and waits until the monitor has read it
 * and is idle, so each step is processed before the next.
 */
export function liveRollout(env: LiveEnv): { rollout: string; r: CodexRollout; step: (fn: (r: CodexRollout) => void) => Promise<void> } {
  const day = path.join(env.codexHome, 'sessions', '2026', '01', '02');
  mkdirSync(day, { recursive: true });
  const rollout = path.join(day, 'rollout-2026-01-02T03-04-05-s1.jsonl');
  const r = new CodexRollout('s1', env.workspace);
  let written = 0;
  const step = async (fn: (r: CodexRollout) => void): Promise<void> => {
    fn(r);
    appendFileSync(rollout, r.lines.slice(written).map((l) => l + '\n').join(''));
    const target = r.lines.length;
    written = target;
    await waitFor(() => (env.monitor!.session(rollout)?.bytes ?? 0) >= Buffer.byteLength(r.text()), 15_000, `line ${target} read`);
    await env.monitor!.idle();
  };
  return { rollout, r, step };
}
