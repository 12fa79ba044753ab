// Runs the real Gemini CLI against the scripted fake API (fake-api.mjs), one session per
// scenario (scenarios.mjs), each with its own home and workspace under ROOT, and copies each
// session's files to OUT. Usage:
//   node tools/drive-gemini/drive.mjs GEMINI_BIN ROOT OUT [scenario...]
// GEMINI_BIN: the CLI's bundle/gemini.js (npm install --prefix DIR @google/gemini-cli@0.61.0).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startFakeApi } from './fake-api.mjs';
import { scenarios } from './scenarios.mjs';

/** This project's CLI, built (npm run build): for the scenarios run with the guard installed. */
const guardCli = path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'dist', 'cli.js');

const [bin, root, out, ...only] = process.argv.slice(2);
if (!bin || !root || !out) {
  console.error('usage: drive.mjs GEMINI_BIN ROOT OUT [scenario...]');
  process.exit(2);
}

/** Settings that keep the CLI off the network and out of the way (telemetry, updates, prompts). */
const userSettings = {
  general: { enableAutoUpdate: false, enableAutoUpdateNotification: false },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
  security: { auth: { selectedType: 'gemini-api-key' }, folderTrust: { enabled: false } },
  ide: { enabled: false },
  model: { name: 'gemini-2.5-flash' },
};

function run(cmd, args, opts) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGTERM'), opts.timeoutMs ?? 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs the CLI's interactive mode in a pseudo-terminal (util-linux `script`), typing each of
 * `step.prompts` (a string, or `{ text, before }` with `before()` run just before it is typed: the
 * user changing a file between prompts) once the previous one is done: when the fake API has had
 * a request since it was typed and none for `idleMs`. Slash commands (`/compress`) are typed the
 * same way. Ends with `/quit`.
 */
async function runInteractive(step, api, { cwd, env, ws, home }) {
  const cmd = `stty cols 120 rows 40; exec ${process.execPath} ${bin} ${[...(step.args ?? []), '--approval-mode', 'yolo'].join(' ')}`;
  const child = spawn('script', ['-qfc', cmd, '/dev/null'], { cwd, env: { ...env, TERM: 'xterm-256color' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stdout += d));
  const closed = new Promise((r) => child.on('close', r));
  const until = async (ready, ms) => {
    const start = Date.now();
    while (!ready()) {
      if (Date.now() - start > ms) {
        throw new Error('timed out');
      }
      await sleep(200);
    }
  };
  const type = async (text) => {
    child.stdin.write(text);
    await sleep(500);
    child.stdin.write('\r');
  };
  const idleMs = step.idleMs ?? 2500;
  let stderr = '';
  try {
    await until(() => stdout.includes('Type your message'), 60_000);
    await sleep(1000);
    for (const p of step.prompts) {
      const { text, before } = typeof p === 'string' ? { text: p } : p;
      await before?.({ ws, home });
      const seen = api.requests.length;
      await type(text);
      await until(() => api.requests.length > seen && Date.now() - api.lastRequestAt() > idleMs, step.timeoutMs ?? 120_000);
    }
    await type('/quit');
    await Promise.race([closed, sleep(5000)]);
  } catch (e) {
    stderr = `interactive run: ${e.message}\n`;
  }
  child.kill('SIGTERM');
  const code = await closed;
  return { code, stdout, stderr };
}

for (const sc of scenarios) {
  if (only.length > 0 && !only.includes(sc.name)) {
    continue;
  }
  const base = path.join(root, sc.name);
  fs.rmSync(base, { recursive: true, force: true });
  const home = path.join(base, 'home');
  const ws = path.join(base, sc.workspace ?? 'proj');
  fs.mkdirSync(path.join(home, '.gemini'), { recursive: true });
  fs.mkdirSync(ws, { recursive: true });
  fs.writeFileSync(path.join(home, '.gemini', 'settings.json'), JSON.stringify({ ...userSettings, ...sc.userSettings }, null, 2));
  for (const [rel, content] of Object.entries(sc.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(ws, rel)), { recursive: true });
    fs.writeFileSync(path.join(ws, rel), content);
  }
  await sc.setup?.({ ws, home });
  const logLines = [];
  const log = (s) => logLines.push(s);
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    GEMINI_CLI_HOME: home,
    GEMINI_API_KEY: 'fake-key',
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
    NO_COLOR: '1',
    TERM: 'dumb',
    ...sc.env,
  };
  let watch;
  let watchOut = '';
  if (sc.guard) {
    // The guard: its hook in the workspace's .gemini/settings.json, and `watch` serving it.
    const r = await run(process.execPath, [guardCli, 'hooks', 'install', '--workspace', ws, '--agents', 'gemini'], { cwd: ws, env });
    log(`hooks install: exit ${r.code} ${r.stdout.trim()}`);
    watch = spawn(process.execPath, [guardCli, 'watch', '--workspace', ws, '--format', 'jsonl'], { cwd: ws, env, stdio: ['ignore', 'pipe', 'pipe'] });
    watch.stdout.on('data', (d) => (watchOut += d));
    watch.stderr.on('data', (d) => (watchOut += d));
    await new Promise((r2) => setTimeout(r2, 4000));
  }
  for (const [i, step] of sc.runs.entries()) {
    const api = await startFakeApi(step.script({ ws, home }), { log });
    env.GOOGLE_GEMINI_BASE_URL = api.url;
    const r = step.prompts
      ? await runInteractive(step, api, { cwd: ws, env, ws, home })
      : await run(process.execPath, [bin, ...(step.args ?? []), '--approval-mode', 'yolo', '-p', step.prompt], { cwd: ws, env, timeoutMs: step.timeoutMs });
    await api.close();
    log(`run ${i}: exit ${r.code}, ${api.turnsPlayed()} turns played`);
    fs.writeFileSync(path.join(base, `run${i}.stdout`), r.stdout);
    fs.writeFileSync(path.join(base, `run${i}.stderr`), r.stderr);
    await step.after?.({ ws, home });
  }
  if (watch) {
    await new Promise((r2) => setTimeout(r2, 3000));
    const closed = new Promise((r2) => watch.on('close', r2));
    watch.kill('SIGINT');
    await closed;
    fs.writeFileSync(path.join(base, 'watch.out'), watchOut);
  }
  fs.writeFileSync(path.join(base, 'api.log'), logLines.join('\n') + '\n');
  const dest = path.join(out, sc.name);
  fs.rmSync(dest, { recursive: true, force: true });
  const tmp = path.join(home, '.gemini', 'tmp');
  for (const project of fs.existsSync(tmp) ? fs.readdirSync(tmp) : []) {
    const chats = path.join(tmp, project, 'chats');
    if (fs.existsSync(chats)) {
      fs.cpSync(chats, path.join(dest, '.gemini', 'tmp', project, 'chats'), { recursive: true });
    }
  }
  console.log(`${sc.name}: ${logLines.filter((l) => l.startsWith('run ')).join('; ')}`);
}
