#!/usr/bin/env node
// Runs VS Code extension integration tests in a real VS Code: code-server (VS Code 1.139's
// server + web workbench) driven by Debian's headless Chromium through playwright-core.
// No VS Code desktop build can be downloaded on our machines; this is the verified
// replacement (see shared/vscode-test/README.md).
//
// It follows VS Code's own test contract, the one @vscode/test-electron and
// @vscode/test-web use: the workbench URL carries a `payload` with extensionDevelopmentPath
// and extensionTestsPath, the (remote, Node) extension host loads the extension from
// source, require()s the tests file and awaits its run(), and the workbench reports the
// exit code through window.codeAutomationExit, which we expose from here.
//
// usage: node test/e2e/driver.mjs --extension-development-path DIR --extension-tests-path FILE
//          [--folder WORKSPACE|FILE.code-workspace] [--artifacts DIR] [--settings FILE.json]... [--env KEY=VALUE]...
//          [--timeout SECONDS] [--keep] [--verbose]
// env:   CODE_SERVER_DIR, CODE_SERVER_NODE   printed by test/e2e/setup.sh (required)
//        CHROMIUM                            browser binary (default /usr/bin/chromium)
//        AGS_E2E_ARTIFACTS, AGS_E2E_SETTINGS (path-delimiter separated), AGS_E2E_TIMEOUT,
//        AGS_E2E_KEEP=1, AGS_E2E_VERBOSE=1   defaults for the flags of the same name; they
//                                            let code-shim.mjs runs be configured too
// The whole environment (so every AGS_* test variable) reaches the extension host, which
// inherits code-server's environment; --env adds to it.
//
// UI checks: an extension-host test logs `[ui-check] {"id","selector","text"?,"frame"?,
// "screenshot"?,"absent"?,"click"?,"focus"?,"keys"?,"focused"?,"badge"?,"steadyMs"?}` (see
// test/integration/support/ui.ts); we wait for that element (showing `badge`, if given), check
// that it stays so for `steadyMs`, then check that no element matches the `absent` selector(s) in the
// frame it was found in, click or focus it if asked, press the `keys` (Playwright key names) one
// after the other, check that the focused element then matches `focused` (a selector, in that
// frame), screenshot the page into the artifacts dir and answer in
// $AGS_UI_SIGNAL_DIR/<id>.json. Checks must happen while the tests run: the workbench drops
// e.g. diagnostics once the host exits.
//
// Exit code: the extension host's (0 = all passed), 124 on timeout, 130/143 on SIGINT/SIGTERM,
// 2 on bad arguments, 1 if the run broke.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { format, parseArgs } from 'node:util';
import { chromium } from 'playwright-core';

const { values: opts } = parseArgs({
  options: {
    'extension-development-path': { type: 'string', multiple: true },
    'extension-tests-path': { type: 'string' },
    folder: { type: 'string' },
    artifacts: { type: 'string', default: process.env.AGS_E2E_ARTIFACTS || 'test-results/e2e' },
    settings: { type: 'string', multiple: true, default: splitList(process.env.AGS_E2E_SETTINGS) },
    env: { type: 'string', multiple: true, default: [] },
    timeout: { type: 'string', default: process.env.AGS_E2E_TIMEOUT || '300' },
    keep: { type: 'boolean', default: process.env.AGS_E2E_KEEP === '1' },
    verbose: { type: 'boolean', default: process.env.AGS_E2E_VERBOSE === '1' },
  },
});

const UI_CHECK_TIMEOUT_MS = 20_000;
const EXIT_TIMEOUT = 124;

const started = performance.now();
const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)}s`;
const log = (...args) => console.log(`[driver ${elapsed()}]`, ...args);
const phases = [];
const phase = (name) => { phases.push(`${name} ${elapsed()}`); if (opts.verbose) log(name); };

function splitList(value) {
  return value ? value.split(path.delimiter).filter(Boolean) : [];
}

function fail(message) {
  console.error(`[driver] ${message}`);
  process.exit(2);
}

const devPaths = (opts['extension-development-path'] ?? []).map((p) => path.resolve(p));
const testsPath = opts['extension-tests-path'] && path.resolve(opts['extension-tests-path']);
if (!devPaths.length || !testsPath) fail('--extension-development-path and --extension-tests-path are required');
const { CODE_SERVER_DIR: csDir, CODE_SERVER_NODE: csNode } = process.env;
if (!csDir || !csNode) fail('CODE_SERVER_DIR and CODE_SERVER_NODE must be set: run test/e2e/setup.sh (it prints them)');
const folder = opts.folder && path.resolve(opts.folder);
const timeoutMs = Number(opts.timeout) * 1000;
if (!(timeoutMs > 0)) fail(`--timeout expects seconds, got "${opts.timeout}"`);
const artifacts = path.resolve(opts.artifacts);

// Quiet, offline, deterministic workbench; --settings files are merged over it.
const settings = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoUpdate': false,
  'extensions.autoCheckUpdates': false,
  'extensions.ignoreRecommendations': true,
  'security.workspace.trust.enabled': false,
  'git.enabled': false,
  'chat.disableAIFeatures': true,
  // The web workbench saves after a 1 s delay by default (desktop does not): tests that need
  // an unsaved buffer would race the auto-save.
  'files.autoSave': 'off',
};
for (const file of opts.settings) {
  try {
    Object.assign(settings, JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch (err) {
    fail(`--settings ${file}: ${err.message}`);
  }
}
const flagEnv = Object.fromEntries(opts.env.map((pair) => {
  const eq = pair.indexOf('=');
  if (eq < 1) fail(`--env expects KEY=VALUE, got "${pair}"`);
  return [pair.slice(0, eq), pair.slice(eq + 1)];
}));

// ---- run dir ------------------------------------------------------------------------
// Everything code-server, VS Code and Chromium write goes below one fresh dir, deleted at
// the end unless --keep. It is under /tmp, not os.tmpdir(): it becomes TMPDIR, where VS Code
// creates unix sockets, and a socket path must stay under ~107 characters.
const runDir = fs.mkdtempSync('/tmp/ags-e2e-');
const dirs = {
  home: path.join(runDir, 'home'),
  tmp: path.join(runDir, 'tmp'),
  userData: path.join(runDir, 'user-data'),
  extensions: path.join(runDir, 'extensions'),
  profile: path.join(runDir, 'chromium-profile'),
  signals: path.join(runDir, 'ui-signals'),
};
for (const dir of Object.values(dirs)) fs.mkdirSync(dir, { recursive: true });
const settingsFile = path.join(dirs.userData, 'User', 'settings.json');
fs.mkdirSync(path.dirname(settingsFile));
fs.writeFileSync(settingsFile, JSON.stringify(settings, null, 2));
const resultsFile = path.join(runDir, 'results.json');
// Artifacts of an earlier run that this one may not overwrite would mislead.
fs.mkdirSync(artifacts, { recursive: true });
for (const stale of fs.readdirSync(artifacts).filter((name) => /^(failure\.png|failed-.*\.png|vscode-logs)$/.test(name))) {
  fs.rmSync(path.join(artifacts, stale), { recursive: true, force: true });
}

// Per-run HOME/XDG/TMPDIR: code-server writes ~/.config/code-server, Chromium's crashpad
// ~/.config/chromium, VS Code sockets and tsserver dirs into TMPDIR.
const hermetic = {
  HOME: dirs.home,
  XDG_CONFIG_HOME: path.join(dirs.home, '.config'),
  XDG_DATA_HOME: path.join(dirs.home, '.local', 'share'),
  XDG_CACHE_HOME: path.join(dirs.home, '.cache'),
  XDG_STATE_HOME: path.join(dirs.home, '.local', 'state'),
  TMPDIR: dirs.tmp,
};
// VSCODE_* variables describe the VS Code this driver may itself be started from (its
// terminal's IPC socket and the like); they must not leak into the one under test.
const inherited = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VSCODE_')));
const serverEnv = {
  ...inherited,
  ...hermetic,
  // An empty gallery turns the marketplace off (code-server's default one is unreachable
  // here, and tests must not install anything anyway).
  EXTENSIONS_GALLERY: '{}',
  ...flagEnv,
  // Read by test/integration/index.ts and support/ui.ts inside the extension host.
  VSC_TEST_RESULTS: resultsFile,
  AGS_UI_SIGNAL_DIR: dirs.signals,
};

// ---- logs ---------------------------------------------------------------------------
const serverLogFile = path.join(artifacts, 'code-server.log');
const clientLogFile = path.join(artifacts, 'vscode-client.log');
const serverLog = fs.createWriteStream(serverLogFile);
const clientLog = fs.createWriteStream(clientLogFile);
// Output can still trickle in while cleanup ends the streams; writing then would throw.
const append = (stream, text) => { if (!stream.writableEnded) stream.write(text); };

// ---- cleanup (idempotent; also on timeout and Ctrl-C) ---------------------------------
let server;
let context;
let page;
let cleaning;
function cleanup() {
  cleaning ??= (async () => {
    await context?.close().catch(() => {});
    if (server) {
      // The whole group, even if code-server itself is gone: its extension host may not be.
      const running = server.exitCode === null && server.signalCode === null;
      const exited = running ? new Promise((resolve) => server.once('exit', resolve)) : Promise.resolve();
      killGroup('SIGTERM');
      const killer = setTimeout(() => killGroup('SIGKILL'), 3000);
      await exited;
      clearTimeout(killer);
    }
    await Promise.all([serverLog, clientLog].map((s) => new Promise((resolve) => s.end(resolve))));
    if (opts.keep) log(`run dir kept: ${runDir}`);
    else fs.rmSync(runDir, { recursive: true, force: true });
  })();
  return cleaning;
}
// code-server runs detached in its own process group, so this also reaches the extension
// host and file watcher it forks.
function killGroup(signal) {
  try { process.kill(-server.pid, signal); } catch { /* already gone */ }
}
// `on`, not `once`: Ctrl-C reaches us twice (from the terminal and forwarded by the shim),
// and a second default SIGINT would kill us before code-server is stopped.
let interruptedWith;
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) {
  process.on(signal, () => {
    if (interruptedWith === undefined) log(`${signal}: stopping`);
    interruptedWith ??= code;
    void cleanup().finally(() => process.exit(code));
  });
}

async function screenshot(name) {
  const file = path.join(artifacts, name);
  try {
    await page.screenshot({ path: file, timeout: 10_000 });
    log(`screenshot ${path.relative(process.cwd(), file)}`);
  } catch (err) {
    log(`screenshot ${name} failed: ${err.message}`);
  }
}

// ---- 1. code-server ------------------------------------------------------------------
// Rejects when code-server exits: the run can't go on (cleanup's own kill comes after).
let onServerGone;
const serverGone = new Promise((_, reject) => { onServerGone = reject; });
serverGone.catch(() => {});

async function startServer() {
  const args = [
    path.join(csDir, 'out', 'node', 'entry.js'),
    '--bind-addr', '127.0.0.1:0',
    '--auth', 'none',
    '--user-data-dir', dirs.userData,
    '--extensions-dir', dirs.extensions,
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
    '--disable-getting-started-override', '--disable-proxy', '--ignore-last-opened',
    // Built VS Code reads the URL payload (extensionDevelopmentPath, extensionTestsPath)
    // only when the smoke-test driver is enabled; without it no test ever runs.
    '--vscode-option', 'enable-smoke-test-driver',
    '--log', 'info',
  ];
  server = spawn(csNode, args, { env: serverEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  server.once('exit', (code, signal) => onServerGone(new Error(`code-server exited (${code ?? signal})`)));
  return new Promise((resolve, reject) => {
    const onOutput = (chunk) => {
      const text = chunk.toString();
      append(serverLog, text);
      if (opts.verbose) for (const line of text.split('\n')) if (line.trim()) console.log(`  [code-server] ${line}`);
      const port = /HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/.exec(text)?.[1];
      if (port) resolve(Number(port));
    };
    server.stdout.on('data', onOutput);
    server.stderr.on('data', onOutput);
    server.once('error', reject);
  });
}

// ---- 2. browser -------------------------------------------------------------------------
const isLoopback = (url) => /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(url.hostname);

async function openWorkbench(port) {
  context = await chromium.launchPersistentContext(dirs.profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    env: { ...process.env, ...hermetic },
    viewport: { width: 1400, height: 900 },
    // Playwright's own handlers would exit the process (130) before code-server is stopped.
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-quic',
      '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-breakpad'],
  });
  phase('browser launched');
  // Only loopback traffic: anything else would be a test depending on the network.
  const blocked = new Set();
  await context.route((url) => /^(https?|wss?):$/.test(url.protocol) && !isLoopback(url), (route) => {
    const url = route.request().url();
    if (!blocked.has(url)) { blocked.add(url); log(`blocked non-loopback request ${url}`); }
    return route.abort('blockedbyclient');
  });
  page = context.pages()[0] ?? await context.newPage();
  page.on('pageerror', (err) => append(clientLog, `[pageerror] ${err.stack ?? err.message}\n`));

  let onExit;
  const exitCode = new Promise((resolve) => { onExit = resolve; });
  // The workbench's log, including the extension host's console, arrives here (the
  // smoke-test logger); mocha's spec reporter uses %s formats, hence util.format.
  await page.exposeFunction('codeAutomationLog', (level, args) => {
    const line = format(...(Array.isArray(args) ? args : [args]));
    append(clientLog, `[${level}] ${line}\n`);
    if (opts.verbose) console.log(`  [vscode] ${line.slice(0, 500)}`);
    const spec = /\[ui-check\] (\{.*\})/.exec(line)?.[1];
    if (spec) void uiCheck(spec);
  });
  // Called by the workbench once the tests' run() settled, with VS Code's own logs.
  await page.exposeFunction('codeAutomationExit', (code, logs) => {
    phase('tests done');
    onExit({ code, logs: logs ?? [] });
  });

  const authority = `127.0.0.1:${port}`;
  const remote = (p) => `vscode-remote://${authority}${p.split(path.sep).map(encodeURIComponent).join('/')}`;
  const payload = [
    ...devPaths.map((p) => ['extensionDevelopmentPath', remote(p)]),
    ['extensionTestsPath', remote(testsPath)],
  ];
  // A .code-workspace file opens as a (multi-root) workspace, anything else as a folder.
  const opens = folder && (folder.endsWith('.code-workspace') ? { workspace: folder } : { folder });
  const query = new URLSearchParams({ ...opens, payload: JSON.stringify(payload) });
  await page.goto(`http://${authority}/?${query}`, { waitUntil: 'domcontentloaded' });
  phase('page loaded');
  void page.locator('.monaco-workbench').waitFor({ timeout: 60_000 }).then(() => phase('workbench rendered'), () => {});
  return exitCode;
}

// ---- UI checks ------------------------------------------------------------------------
const seenChecks = new Set();

async function uiCheck(json) {
  let spec;
  try {
    spec = JSON.parse(json);
  } catch {
    log(`ignoring malformed ui-check ${json}`);
    return;
  }
  // The id names the answer file: keep it to a plain file name.
  if (typeof spec.id !== 'string' || !/^[\w.-]+$/.test(spec.id) || seenChecks.has(spec.id)) return;
  seenChecks.add(spec.id);
  let answer;
  try {
    const found = await findElement(spec);
    if (spec.steadyMs !== undefined) await checkSteady(found.root, spec);
    if (spec.absent !== undefined) await checkAbsent(found.root, spec.absent);
    if (spec.click === true) await found.locator.click({ timeout: 5_000 });
    if (spec.focus === true) await found.locator.focus({ timeout: 5_000 });
    for (const key of Array.isArray(spec.keys) ? spec.keys : []) await page.keyboard.press(String(key));
    if (typeof spec.focused === 'string') await checkFocused(found.root, spec.focused);
    answer = { ok: true };
  } catch (err) {
    answer = { ok: false, error: err.message.split('\n')[0] };
  }
  // Taken either way: on failure it shows what was on screen instead.
  if (spec.screenshot) await screenshot(path.basename(spec.screenshot));
  log(`ui-check ${spec.id}: ${answer.ok ? 'ok' : answer.error}`);
  // Write then rename, so the polling test never reads half a file.
  const file = path.join(dirs.signals, `${spec.id}.json`);
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(answer));
  fs.renameSync(`${file}.tmp`, file);
}

// Polls for a visible element matching selector (and text) in the page or, with `frame`,
// in the iframes whose URL contains that string and their descendants (a webview is an
// outer iframe whose inner "active-frame" holds the content).
async function findElement({ selector, text, frame, badge }) {
  if (typeof selector !== 'string') throw new Error('ui-check needs a "selector"');
  if (badge !== undefined && typeof badge !== 'string') throw new Error('ui-check "badge" must be a string');
  const deadline = Date.now() + UI_CHECK_TIMEOUT_MS;
  const withDescendants = (f) => [f, ...f.childFrames().flatMap(withDescendants)];
  for (;;) {
    const roots = frame
      ? page.frames().filter((f) => f.url().includes(frame)).flatMap(withDescendants)
      : [page.mainFrame()];
    for (const root of roots) {
      const locator = root.locator(selector, text ? { hasText: text } : {}).first();
      if (await locator.isVisible().catch(() => false) && (badge === undefined || await locator.evaluate(badgeOf).catch(() => null) === badge)) {
        return { root, locator };
      }
    }
    if (Date.now() > deadline) {
      const what = `"${selector}"${text ? ` containing "${text}"` : ''}${badge !== undefined ? ` with the badge "${badge}"` : ''}`;
      const where = frame ? ` in ${roots.length} frame(s) matching "${frame}"` : '';
      throw new Error(`no visible ${what}${where} after ${UI_CHECK_TIMEOUT_MS / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// A file decoration's badge (e.g. a session row's finding count) is no text in the DOM: VS Code
// gives the row's label a generated class whose CSS draws the badge as `::after` content. Runs
// in the page; null when the element shows no badge.
function badgeOf(el) {
  return /^"(.+)"$/.exec(getComputedStyle(el, '::after').content ?? '')?.[1] ?? null;
}

// Fails unless the check's element (selector, text, badge) stays visible for `steadyMs`, looked
// for every 10 ms in the page itself: a badge that blinks out for ~100 ms (VS Code dropping the
// decorations) falls between Playwright's polls, which take a round trip each. CSS selectors only.
async function checkSteady(root, { selector, text, badge, steadyMs }) {
  if (typeof steadyMs !== 'number' || !(steadyMs > 0)) throw new Error('ui-check "steadyMs" must be a positive number');
  const watched = await root.evaluate(async ({ selector, text, badge, steadyMs }) => {
    // badgeOf again: a function cannot be passed into the page.
    const badgeOf = (el) => /^"(.+)"$/.exec(getComputedStyle(el, '::after').content ?? '')?.[1] ?? null;
    const shows = () => [...document.querySelectorAll(selector)].some((el) =>
      el.getClientRects().length > 0 && (!text || (el.textContent ?? '').includes(text)) && (badge === undefined || badgeOf(el) === badge));
    const start = performance.now();
    let polls = 0;
    while (performance.now() - start < steadyMs) {
      polls++;
      if (!shows()) return { at: Math.round(performance.now() - start), polls };
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return { polls };
  }, { selector, text, badge, steadyMs });
  if (watched.at === undefined) log(`steady through ${watched.polls} polls in ${steadyMs} ms`);
  else throw new Error(`"${selector}"${text ? ` containing "${text}"` : ''}${badge !== undefined ? ` with the badge "${badge}"` : ''} was gone ${watched.at} ms into the ${steadyMs} ms it had to stay (poll ${watched.polls})`);
}

// Fails if any element in `root` (the frame the check's element is in) matches one of the
// `absent` selectors: e.g. no <img> and no foreign <script> in a webview that shows hostile text.
async function checkAbsent(root, absent) {
  const selectors = Array.isArray(absent) ? absent : [absent];
  for (const selector of selectors) {
    if (typeof selector !== 'string') throw new Error('ui-check "absent" must be a selector or a list of selectors');
    const count = await root.locator(selector).count();
    if (count > 0) throw new Error(`${count} element(s) match "${selector}", which must be absent`);
  }
}

// Fails unless the frame's focused element matches `selector` (keyboard checks: where did the
// keys take the focus?). Polled briefly: a key's effect may land a frame later.
async function checkFocused(root, selector) {
  const deadline = Date.now() + 2_000;
  for (;;) {
    const state = await root.evaluate((sel) => {
      const el = document.activeElement;
      return { matches: el !== null && el.matches(sel), what: el === null ? 'nothing' : `<${el.tagName.toLowerCase()} class="${el.className}">` };
    }, selector);
    if (state.matches) return;
    if (Date.now() > deadline) throw new Error(`the focus is on ${state.what}, which does not match "${selector}"`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// ---- results ------------------------------------------------------------------------------
function report() {
  if (!fs.existsSync(resultsFile)) {
    log('no results file: the tests did not run to the end (see the log below)');
    return false;
  }
  const results = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
  const env = results.environment;
  if (env) log(`ran in ${env.appName} ${env.vscode}, Node ${env.node}`);
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const test of results.tests) {
    counts[test.state]++;
    if (test.state === 'passed') console.log(`  ok    ${test.title} (${test.durationMs} ms)`);
    else if (test.state === 'skipped') console.log(`  skip  ${test.title}`);
    else console.log(`  FAIL  ${test.title}\n${(test.error ?? '').replace(/^/gm, '        ')}`);
  }
  console.log(`${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  return true;
}

function printLogTail(file, lines = 60) {
  if (!fs.existsSync(file)) return;
  const tail = fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines);
  console.log(`--- last ${tail.length} lines of ${path.relative(process.cwd(), file)} ---\n${tail.join('\n')}\n---`);
}

// VS Code hands over its own log files on exit; they go next to the screenshots.
function saveVsCodeLogs(logs) {
  for (const { relativePath, contents } of logs) {
    const file = path.join(artifacts, 'vscode-logs', path.normalize(relativePath).replace(/^(\.\.[/\\])+/, ''));
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, contents);
  }
}

// ---- main ---------------------------------------------------------------------------------
let exitCode = 1;
let timer;
const timedOut = new Promise((resolve) => { timer = setTimeout(resolve, timeoutMs, null); });
try {
  const run = startServer().then((port) => { phase('server listening'); return openWorkbench(port); });
  const result = await Promise.race([run, serverGone, timedOut]);
  if (result === null) {
    log(`TIMEOUT after ${timeoutMs / 1000} s`);
    exitCode = EXIT_TIMEOUT;
  } else {
    exitCode = result.code;
    if (exitCode !== 0) saveVsCodeLogs(result.logs);
    if (!report() && exitCode === 0) exitCode = 1;
  }
} catch (err) {
  // After Ctrl-C the run breaks in all sorts of ways: no need to say how.
  if (interruptedWith === undefined) log(`ERROR ${err.stack ?? err}`);
}
clearTimeout(timer);
if (exitCode !== 0 && interruptedWith === undefined) {
  if (page) await screenshot('failure.png');
  const clientLogged = fs.existsSync(clientLogFile) && fs.statSync(clientLogFile).size > 0;
  printLogTail(clientLogged ? clientLogFile : serverLogFile);
}
log(`phases: ${phases.join(', ')}`);
await cleanup();
exitCode = interruptedWith ?? exitCode;
log(`exit code ${exitCode}`);
process.exit(exitCode);
