/**
 * The hook command the extension installs runs a small shim in the extension's global storage,
 * not `<extension folder>/dist/hook.js` itself: VS Code installs each version of an extension in
 * its own folder (`…/agent-session-guard.agent-session-guard-0.1.0/`) and deletes the old one
 * after an update. A command naming that folder then fails with "Cannot find module", an exit 1
 * that every agent treats as a non-blocking error — every write goes through unchecked, even
 * with `--fail-closed`. The global storage keeps its path across versions, and activation
 * rewrites the shim to load the running version's hook.
 *
 * vscode-free, so the shim is tested under node:test.
 */
import { promises as fsp } from 'node:fs';
import * as nodePath from 'node:path';

export const hookShimName = 'hook.js';

/**
 * The shim's source: loads `target` (a dist/hook.js, which exports runHookCommand and runs
 * itself only as the main module) and runs it with this process's argv and stdio. If the
 * target is gone (the extension was uninstalled, or an old window wrote the shim last), it
 * says so (where the agent shows it: see core/guard/answer.ts), and blocks only when the hook
 * was installed to fail closed — as the hook itself would without a service.
 */
function hookShimSource(target: string, version: string): string {
  return `#!/usr/bin/env node
// Written by Agent Session Guard ${version} when it started: the guard hook of the installed
// version. The agents' hook settings name this file, whose path stays the same across updates.
'use strict';
const target = ${JSON.stringify(target)};
let hook;
try {
  hook = require(target);
} catch (e) {
  if (!e || e.code !== 'MODULE_NOT_FOUND') {
    throw e;
  }
  const failClosed = process.argv.includes('--fail-closed') || /^(1|true|yes)$/i.test(process.env.AGENT_GUARD_FAIL_CLOSED || '');
  const note = 'agent-guard: the guard hook ' + target + ' is missing (was Agent Session Guard uninstalled?); ' +
    (failClosed ? 'the guard is set to fail closed, so the write was blocked. Ask the user to start VS Code with the extension, or remove the hook.' : 'the tool call was not checked.');
  process.stderr.write(note + '\\n');
  if (!failClosed) {
    // On exit 0 the agents show stdout's systemMessage, not stderr (every one of them reads that field).
    process.stdout.write(JSON.stringify({ systemMessage: note }) + '\\n');
  }
  // (Not process.exit: it may cut off what is still being written to a pipe.)
  process.exitCode = failClosed ? 2 : 0;
}
if (hook) {
  hook.runHookCommand(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), home: '' }).then((code) => {
    process.exitCode = code;
  });
}
`;
}

/**
 * Writes the shim into `dir` unless it already holds this text; returns its path. Written to
 * a temporary file and renamed, so a hook starting meanwhile (another window, an agent) never
 * reads half a file.
 */
export async function writeHookShim(dir: string, target: string, version: string): Promise<string> {
  const file = nodePath.join(dir, hookShimName);
  const text = hookShimSource(target, version);
  const existing = await fsp.readFile(file, 'utf8').catch(() => undefined);
  if (existing === text) {
    return file;
  }
  await fsp.mkdir(dir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await fsp.writeFile(tmp, text);
  await fsp.rename(tmp, file);
  return file;
}
