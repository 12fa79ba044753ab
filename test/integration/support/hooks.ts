import { spawn } from 'node:child_process';

/** A generous deadline for the hook: the tests are about the decision, and the machine may be busy. */
export const hookEnv: NodeJS.ProcessEnv = { ...process.env, AGENT_GUARD_TIMEOUT_MS: '15000' };

/**
 * Runs a hook process with `input` on stdin. Spawned asynchronously: the guard service answers
 * from this very process (the extension host), and a synchronous spawn would keep it from answering.
 */
export function runHook(args: string[], input: string, env: NodeJS.ProcessEnv = hookEnv): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => (stdout += b.toString()));
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input);
  });
}
