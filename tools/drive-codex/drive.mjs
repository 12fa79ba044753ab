// Runs the real Codex CLI against the scripted model of fake-responses.mjs, one scenario per
// rollout, each in a fresh git repository with an isolated CODEX_HOME.
//
//   node tools/drive-codex/drive.mjs --codex /path/to/codex --out DIR [scenario ...]
//
// Writes DIR/<scenario>.jsonl (the rollout, as Codex wrote it), DIR/<scenario>.requests.json
// (what Codex sent the model) and prints where the workspace was. See README.md here.
import { spawnSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startFakeResponses } from './fake-responses.mjs';
import { scenarios } from './scenarios.mjs';

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  if (i === -1) {
    return undefined;
  }
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
};
const codex = opt('--codex');
const out = opt('--out');
const guard = opt('--guard'); // the project's root: install the guard hook and run `agent-guard watch`
const keep = args.includes('--keep');
const names = args.filter((a) => !a.startsWith('--'));
if (!codex || !out) {
  console.error('usage: drive.mjs --codex CODEX_BIN --out DIR [--guard PROJECT_ROOT] [--keep] [scenario ...]');
  process.exit(2);
}
fs.mkdirSync(out, { recursive: true });

for (const name of names.length > 0 ? names : Object.keys(scenarios)) {
  const scenario = scenarios[name];
  if (!scenario) {
    console.error(`no scenario ${name}; known: ${Object.keys(scenarios).join(', ')}`);
    process.exit(2);
  }
  await run(name, scenario);
}

async function run(name, scenario) {
  // A fixed place per scenario, so that a run again writes the same paths.
  const root = path.join(os.tmpdir(), 'drive-codex', name);
  fs.rmSync(root, { recursive: true, force: true });
  const ws = path.join(root, 'ws');
  const home = path.join(root, 'codex-home');
  fs.mkdirSync(ws, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  for (const [file, content] of Object.entries(scenario.files ?? {})) {
    fs.mkdirSync(path.dirname(path.join(ws, file)), { recursive: true });
    fs.writeFileSync(path.join(ws, file), content);
  }
  const git = (...a) => spawnSync('git', a, { cwd: ws, stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z', GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z' } });
  git('init', '-q', '-b', 'main');
  git('-c', 'user.name=drive', '-c', 'user.email=drive@example.invalid', 'add', '-A');
  git('-c', 'user.name=drive', '-c', 'user.email=drive@example.invalid', 'commit', '-q', '-m', 'init', '--allow-empty');

  let watcher;
  if (guard) {
    const cli = path.join(guard, 'dist', 'cli.js');
    const r = spawnSync(process.execPath, [cli, 'hooks', 'install', '--workspace', ws, '--agents', 'codex'], { encoding: 'utf8' });
    console.log(`[${name}] hooks install: rc=${r.status} ${r.stderr.trim()}`);
    // Next to the guard, a hook that keeps what Codex sends on stdin, for every tool.
    const hooksFile = path.join(ws, '.codex', 'hooks.json');
    const hooks = JSON.parse(fs.readFileSync(hooksFile, 'utf8'));
    const dump = path.join(out, `${name}.hook-stdin.log`);
    for (const event of ['PreToolUse', 'PostToolUse']) {
      hooks.hooks[event].push({ matcher: '.*', hooks: [{ type: 'command', command: `cat >> '${dump}'; echo >> '${dump}'`, timeout: 10 }] });
    }
    fs.writeFileSync(hooksFile, JSON.stringify(hooks, null, 2));
    watcher = spawn(process.execPath, [cli, 'watch', '--workspace', ws, '--format', 'jsonl', '--verbose'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, CODEX_HOME: home },
    });
    watcher.stdout.on('data', (d) => fs.appendFileSync(path.join(out, `${name}.watch.log`), d));
    watcher.stderr.on('data', (d) => fs.appendFileSync(path.join(out, `${name}.watch.log`), d));
    await new Promise((r) => setTimeout(r, 1500));
  }

  const requests = [];
  const ctx = { ws, home };
  const server = await startFakeResponses(scenario.script(ctx), (e) => requests.push(e));
  // Short base instructions (a setting users have too): the default's 22 KB, copied into
  // every rollout's session_meta, would be most of each fixture.
  const instructions = path.join(home, 'instructions.md');
  fs.writeFileSync(instructions, 'You are Codex, a coding agent. Follow the user and the tools.\n');
  fs.writeFileSync(
    path.join(home, 'config.toml'),
    [
      `model = "${scenario.model ?? 'gpt-5.5'}"`,
      'model_provider = "fake"',
      'approval_policy = "never"',
      `sandbox_mode = "${scenario.sandbox ?? 'danger-full-access'}"`,
      'check_for_update_on_startup = false',
      `model_instructions_file = ${JSON.stringify(instructions)}`,
      ...(scenario.config ?? []),
      '',
      '[model_providers.fake]',
      'name = "Scripted model"',
      `base_url = "${server.url}"`,
      'wire_api = "responses"',
      'env_key = "FAKE_MODEL_KEY"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
      // Nothing of Codex's own that reaches the network: plugin and app catalogues.
      '[features]',
      'plugins = false',
      'remote_plugin = false',
      'apps = false',
      ...(scenario.features ?? []),
      '',
      // Project-local config (.codex/hooks.json) is read only in a trusted project.
      ...(guard ? [`[projects.${JSON.stringify(ws)}]`, 'trust_level = "trusted"', ''] : []),
      // Nor the skills list (12 KB of every rollout).
      '[skills]',
      'include_instructions = false',
      '',
      '[skills.bundled]',
      'enabled = false',
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[feedback]',
      'enabled = false',
      '',
    ].join('\n'),
  );
  const env = { ...process.env, CODEX_HOME: home, FAKE_MODEL_KEY: 'not-a-key', RUST_LOG: 'warn', NO_COLOR: '1', TZ: 'UTC' };
  delete env.OPENAI_API_KEY;
  for (const step of scenario.runs) {
    // Codex runs a project's new hooks only once the user trusts them (/hooks in the TUI): for
    // this run only, the driver vouches for the guard's.
    const argv = guard ? [step(ctx)[0], '--dangerously-bypass-hook-trust', ...step(ctx).slice(1)] : step(ctx);
    const r = await new Promise((resolve) => {
      const p = spawn(codex, argv, { cwd: ws, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let so = '';
      let se = '';
      p.stdout.on('data', (d) => (so += d));
      p.stderr.on('data', (d) => (se += d));
      const timer = setTimeout(() => p.kill('SIGTERM'), 120_000);
      // As Ctrl-C would: only the first run of a scenario is interrupted.
      const interrupt = scenario.interruptAfterMs && step === scenario.runs[0] ? setTimeout(() => p.kill('SIGINT'), scenario.interruptAfterMs) : undefined;
      p.on('close', (code) => {
        clearTimeout(timer);
        clearTimeout(interrupt);
        resolve({ code, so, se });
      });
    });
    fs.appendFileSync(path.join(out, `${name}.codex.log`), `$ codex ${argv.join(' ')}\nrc=${r.code}\n--- stdout\n${r.so}\n--- stderr\n${r.se}\n`);
    console.log(`[${name}] codex ${argv[0]} ${argv[1] ?? ''}: rc=${r.code}`);
    ctx.lastRollout = findRollouts(path.join(home, 'sessions')).at(-1);
  }
  await server.close();
  if (watcher) {
    await new Promise((r) => setTimeout(r, 1000));
    watcher.kill('SIGTERM');
  }
  const rollouts = findRollouts(path.join(home, 'sessions'));
  rollouts.forEach((file, i) => {
    fs.copyFileSync(file, path.join(out, rollouts.length === 1 ? `${name}.jsonl` : `${name}-${i + 1}.jsonl`));
  });
  fs.writeFileSync(path.join(out, `${name}.requests.json`), JSON.stringify(requests, null, 1));
  console.log(`[${name}] ${rollouts.length} rollout(s), ${requests.length} request(s), script turns left: ${server.remaining()}; workspace ${ws}`);
  if (!keep) {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

function findRollouts(dir) {
  if (!fs.existsSync(dir)) {
    return [];
  }
  const found = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (e.isFile() && /^rollout-.*\.jsonl$/.test(e.name)) {
      found.push(path.join(e.parentPath ?? e.path, e.name));
    }
  }
  return found.sort((a, b) => fs.statSync(a).birthtimeMs - fs.statSync(b).birthtimeMs || a.localeCompare(b));
}
