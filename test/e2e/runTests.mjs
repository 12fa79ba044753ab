#!/usr/bin/env node
// npm run test:e2e [-- options]: the extension's integration tests (test/integration, built
// to out/test/integration) in a real VS Code, through @vscode/test-electron's runTests.
//
// Which VS Code:
//   default               code-server + headless Chromium, through test/e2e/code-shim.mjs
//                         (our machines can't download a desktop build; setup.sh installs
//                         code-server once per machine, into ~/.cache)
//   VSCODE_EXECUTABLE=…   that desktop VS Code binary
//   --download / AGS_E2E_DOWNLOAD=1
//                         test-electron's usual download of a desktop build, where allowed
// Options:
//   --grep PATTERN        only the tests whose full title matches (AGS_E2E_GREP)
//   --env KEY=VALUE       extra environment for the extension host (repeatable)
//   --settings FILE.json  merged into the user settings (code-server only; repeatable)
//   --timeout SECONDS     whole run, default 300 (code-server only)
//   --keep                keep the run dir and the workspace copy for a post-mortem
//   --no-folder           open no folder (the window as VS Code starts without one); only
//                         the suites that check that case run meaningfully (--grep "no folder")
//   --multi-root          open a .code-workspace of two folders, each a copy of the fixture
//                         workspace; only the multi-root suite runs meaningfully (--grep "multi-root")
//   --linked              open the fixture workspace through a symbolic link to it; only the
//                         linked-folder suite runs meaningfully (--grep "linked folder")
//   --reload              let a test reload the window (code-server only): the tests run again
//                         in the new window; only the reload suite runs meaningfully (--grep "reload")
//   --verbose             stream the workbench and code-server logs
// Environment: AGS_E2E_SKIP_SETUP=1 skips setup.sh; the driver then needs CODE_SERVER_DIR and
// CODE_SERVER_NODE from the environment. Screenshots and logs go to test-results/e2e/.
//
// Needs a built extension (npm run build) and built tests (npm run build:test).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runTests, TestRunFailedError } from '@vscode/test-electron';

const { values: opts } = parseArgs({
  options: {
    download: { type: 'boolean', default: process.env.AGS_E2E_DOWNLOAD === '1' },
    grep: { type: 'string' },
    env: { type: 'string', multiple: true, default: [] },
    settings: { type: 'string', multiple: true, default: [] },
    timeout: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'no-folder': { type: 'boolean', default: false },
    'multi-root': { type: 'boolean', default: false },
    linked: { type: 'boolean', default: false },
    reload: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
  },
});

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..');
const shim = path.join(here, 'code-shim.mjs');
const extensionTestsPath = path.join(root, 'out', 'test', 'integration', 'index.js');
const fail = (message) => { console.error(`[e2e] ${message}`); process.exit(2); };

const { main } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
if (!fs.existsSync(path.join(root, main))) fail(`${main} is missing: run \`npm run build\` first`);
if (!fs.existsSync(extensionTestsPath)) fail(`${path.relative(root, extensionTestsPath)} is missing: run \`npm run build:test\` first`);

/** Runs setup.sh (idempotent, ~1 s once installed) and returns the variables it prints. */
function setupCodeServer() {
  if (process.env.AGS_E2E_SKIP_SETUP === '1') return {};
  const setup = spawnSync('bash', [path.join(here, 'setup.sh')], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (setup.status !== 0) fail(`test/e2e/setup.sh failed (exit ${setup.status ?? setup.signal})`);
  return Object.fromEntries([...setup.stdout.matchAll(/^(CODE_SERVER_(?:DIR|NODE))=(.*)$/gm)].map(([, key, value]) => [key, value]));
}

const mode = process.env.VSCODE_EXECUTABLE ? 'desktop' : opts.download ? 'download' : 'code-server';
const extensionTestsEnv = Object.fromEntries(opts.env.map((pair) => {
  const eq = pair.indexOf('=');
  if (eq < 1) fail(`--env expects KEY=VALUE, got "${pair}"`);
  return [pair.slice(0, eq), pair.slice(eq + 1)];
}));
if (opts.grep) extensionTestsEnv.AGS_E2E_GREP = opts.grep;
if (mode === 'code-server') {
  // The shim and the driver it starts read their options from the environment, because
  // test-electron passes nothing else through.
  Object.assign(extensionTestsEnv, setupCodeServer(), {
    AGS_E2E_ARTIFACTS: path.join(root, 'test-results', 'e2e'),
    AGS_E2E_SETTINGS: opts.settings.map((f) => path.resolve(f)).join(path.delimiter),
    ...(opts.timeout && { AGS_E2E_TIMEOUT: opts.timeout }),
    ...(opts.keep && { AGS_E2E_KEEP: '1' }),
    ...(opts.verbose && { AGS_E2E_VERBOSE: '1' }),
  });
  // test-electron spawns it directly, so it must be executable even where the file mode
  // got lost (an archive, a copy).
  try {
    fs.accessSync(shim, fs.constants.X_OK);
  } catch {
    fs.chmodSync(shim, 0o755);
  }
}

// A fresh copy of the fixture workspace for every run: the tests may write to it.
// The agents' session folders of the run: fresh and empty, so the tests write transcripts
// exactly where Claude Code and Codex would (through the variables those agents honour).
const agentsHome = fs.mkdtempSync(path.join(os.tmpdir(), 'ags-agents-'));
Object.assign(extensionTestsEnv, {
  AGS_AGENTS_HOME: agentsHome,
  CLAUDE_CONFIG_DIR: path.join(agentsHome, 'claude'),
  CODEX_HOME: path.join(agentsHome, 'codex'),
  GEMINI_CLI_HOME: path.join(agentsHome, 'gemini-home'),
  AMPLIFIER_HOME: path.join(agentsHome, 'amplifier'),
});

if ([opts['no-folder'], opts['multi-root'], opts.linked].filter(Boolean).length > 1) fail('--no-folder, --multi-root and --linked exclude each other');
// What the window was meant to open: a suite for another kind of window skips itself, but one
// for this kind fails if the window did not open as asked (instead of skipping, and passing).
extensionTestsEnv.AGS_E2E_WINDOW = opts['multi-root'] ? 'multi-root' : opts['no-folder'] ? 'no-folder' : opts.linked ? 'linked' : 'folder';
if (opts.reload) {
  if (mode !== 'code-server') fail('--reload needs the code-server driver');
  extensionTestsEnv.AGS_E2E_RELOAD = '1';
}
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'ags-ws-'));
/** What the window opens: the workspace folder, or a .code-workspace naming two copies of it. */
let opened = workspace;
if (opts['multi-root']) {
  const names = ['alpha', 'beta'];
  for (const name of names) {
    fs.cpSync(path.join(root, 'test', 'fixtures', 'workspace'), path.join(workspace, name), { recursive: true });
  }
  opened = path.join(workspace, 'two-folders.code-workspace');
  fs.writeFileSync(opened, JSON.stringify({ folders: names.map((name) => ({ path: name })), settings: {} }, null, 2));
} else if (opts.linked) {
  // The folder as the user opened it is a link; the agents see (and record) the real path.
  fs.cpSync(path.join(root, 'test', 'fixtures', 'workspace'), path.join(workspace, 'real'), { recursive: true });
  opened = path.join(workspace, 'linked');
  fs.symlinkSync(path.join(workspace, 'real'), opened, 'dir');
} else {
  fs.cpSync(path.join(root, 'test', 'fixtures', 'workspace'), workspace, { recursive: true });
}

const started = Date.now();
let exitCode = 0;
try {
  await runTests({
    vscodeExecutablePath: mode === 'desktop' ? process.env.VSCODE_EXECUTABLE : mode === 'code-server' ? shim : undefined,
    extensionDevelopmentPath: root,
    extensionTestsPath,
    launchArgs: opts['no-folder'] ? [] : [opened],
    extensionTestsEnv,
  });
} catch (err) {
  // TestRunFailedError carries VS Code's (here: the driver's) exit code; anything else
  // means the run could not start.
  if (err instanceof TestRunFailedError) exitCode = err.code ?? 1;
  else { console.error(err); exitCode = 1; }
} finally {
  if (opts.keep) console.log(`[e2e] workspace kept: ${workspace}`);
  else {
    fs.rmSync(workspace, { recursive: true, force: true });
    fs.rmSync(agentsHome, { recursive: true, force: true });
  }
}
console.log(`[e2e] ${mode} run finished in ${((Date.now() - started) / 1000).toFixed(1)} s with exit code ${exitCode}`);
process.exitCode = exitCode;
