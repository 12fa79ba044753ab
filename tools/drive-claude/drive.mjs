#!/usr/bin/env node
// Runs the real Claude Code against the scripted stand-in API (fake-anthropic.mjs), one
// scenario at a time (scenarios.mjs), and copies the transcripts it writes into a fixtures
// folder. Not run by CI: it needs a Claude Code build, which the project does not ship.
//
//   node tools/drive-claude/drive.mjs --claude PATH [--out DIR] [--root DIR] [--only NAME] [--guard DIR]
//
// --claude   the `claude` executable (e.g. the native build of @anthropic-ai/claude-code)
// --out      where the transcripts go (default test/fixtures/generated/claude-code-<version>)
// --root     where the workspaces are made; their paths end up in the transcripts, so keep the
//            default to reproduce the committed fixtures (/tmp/agent-guard-drive)
// --guard    the project whose dist/cli.js installs the guard hooks and runs `watch` in the
//            guarded scenarios (default this one; another checkout runs an older build's guard)
//
// A scenario with `hookPayloads` also gets a hook that appends what Claude Code sends every
// PreToolUse and PostToolUse hook on stdin to `<name>.hook-payloads.ndjson`, as sent.
//
// Claude Code's own prose (its system prompt, the tool and skill listings it records as
// attachments and request blobs) is replaced in the copies by a note of its length: the checker
// does not read it, and it is not ours to publish. Every other byte is as Claude Code wrote it.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFakeApi } from './fake-anthropic.mjs';
import { scenarios } from './scenarios.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const claude = opt('claude');
if (!claude) {
  console.error('usage: drive.mjs --claude PATH [--out DIR] [--root DIR] [--only NAME] [--guard DIR]');
  process.exit(2);
}
const version = spawnSync(claude, ['--version'], { encoding: 'utf8' }).stdout.trim().split(' ')[0];
const root = path.resolve(opt('root', '/tmp/agent-guard-drive'));
const out = path.resolve(opt('out', path.join(repo, 'test/fixtures/generated', `claude-code-${version}`)));
const only = opt('only');
const cli = path.join(path.resolve(opt('guard', repo)), 'dist/cli.js');

/** Record kinds and attachment kinds that hold only Claude Code's own prose. */
const proseRecords = new Set(['api-request-shape', 'api-request-blob', 'api-request']);
const proseAttachments = new Set(['prompt_snapshot', 'skill_listing', 'agent_listing_delta', 'deferred_tools_delta', 'environment', 'session_context', 'remote_session_change', 'model']);

function redact(value) {
  // Hashes stay: they tie an `api-request` to its blobs.
  if (typeof value === 'string') return value.length > 60 && !/^[0-9a-f]{64}$/.test(value) ? `[${value.length} chars left out]` : value;
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redact(v)]));
  return value;
}

function redactLine(line) {
  if (line.length === 0) return line;
  let r;
  try {
    r = JSON.parse(line);
  } catch {
    return line;
  }
  const prose = proseRecords.has(r.type) || (r.type === 'attachment' && proseAttachments.has(r.attachment?.type));
  if (!prose) return line;
  // Only the prose itself: a record's own fields (cwd, ids, times) stay as written.
  const out = { ...r };
  for (const key of ['attachment', 'rendered', 'shape', 'message', 'params']) {
    if (key in out) out[key] = key === 'attachment' ? { ...redact(out[key]), type: r.attachment.type } : redact(out[key]);
  }
  return JSON.stringify(out);
}

function copyTranscripts(from, to) {
  if (!fs.existsSync(from)) return [];
  const copied = [];
  for (const e of fs.readdirSync(from, { withFileTypes: true, recursive: true })) {
    if (!e.isFile() || !e.name.endsWith('.jsonl')) continue;
    const src = path.join(e.parentPath ?? e.path, e.name);
    const dst = path.join(to, path.relative(from, src));
    fs.mkdirSync(path.dirname(dst), { recursive: true });
    fs.writeFileSync(dst, fs.readFileSync(src, 'utf8').split('\n').map(redactLine).join('\n'));
    copied.push(dst);
  }
  return copied;
}

function newestSession(projects) {
  let best;
  for (const e of fs.existsSync(projects) ? fs.readdirSync(projects, { withFileTypes: true, recursive: true }) : []) {
    if (!e.isFile() || !e.name.endsWith('.jsonl') || (e.parentPath ?? e.path).includes('subagents')) continue;
    const p = path.join(e.parentPath ?? e.path, e.name);
    const t = fs.statSync(p).mtimeMs;
    if (!best || t > best.t) best = { t, id: e.name.slice(0, -'.jsonl'.length) };
  }
  return best?.id;
}

function run(cmd, argv, env, cwd, interruptAfterMs) {
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    if (interruptAfterMs) setTimeout(() => child.kill('SIGINT'), interruptAfterMs);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const all = scenarios(root);
let current;
const api = await startFakeApi((key) => current?.turns[key], (l) => process.env.DRIVE_VERBOSE && console.error('  api', JSON.stringify(l)));
fs.mkdirSync(out, { recursive: true });
for (const s of all) {
  if (only && s.name !== only) continue;
  current = s;
  const ws = path.join(root, s.name);
  const home = path.join(root, `.home-${s.name}`);
  fs.rmSync(ws, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
  fs.mkdirSync(ws, { recursive: true });
  fs.mkdirSync(home, { recursive: true });
  for (const [name, content] of Object.entries(s.files)) {
    fs.mkdirSync(path.dirname(path.join(ws, name)), { recursive: true });
    fs.writeFileSync(path.join(ws, name), content);
  }
  spawnSync('git', ['init', '-q'], { cwd: ws });
  if (s.commit) {
    // A worktree needs a commit to branch from.
    spawnSync('git', ['add', '-A'], { cwd: ws });
    spawnSync('git', ['-c', 'user.name=drive', '-c', 'user.email=drive@example.invalid', 'commit', '-qm', 'start'], { cwd: ws });
  }
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: 'sk-ant-drive-not-a-key',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    TMPDIR: process.env.TMPDIR ?? '/tmp',
  };
  let watch;
  if (s.guard) {
    spawnSync(process.execPath, [cli, 'hooks', 'install', '--workspace', ws], { env, stdio: 'ignore' });
    watch = spawn(process.execPath, [cli, 'watch', '--workspace', ws], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    watch.output = '';
    watch.stdout.on('data', (d) => (watch.output += d));
    await new Promise((r) => setTimeout(r, 2500));
  }
  const payloads = path.join(root, `.hook-payloads-${s.name}.ndjson`);
  fs.rmSync(payloads, { force: true });
  if (s.hookPayloads) {
    // Beside the guard's hooks (if any), one for every tool that keeps its stdin.
    const settings = path.join(ws, '.claude', 'settings.local.json');
    const conf = fs.existsSync(settings) ? JSON.parse(fs.readFileSync(settings, 'utf8')) : {};
    conf.hooks ??= {};
    for (const event of ['PreToolUse', 'PostToolUse']) {
      (conf.hooks[event] ??= []).push({ matcher: '*', hooks: [{ type: 'command', command: `cat >> '${payloads}'; echo >> '${payloads}'`, timeout: 10 }] });
    }
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    fs.writeFileSync(settings, JSON.stringify(conf, null, 2));
  }
  let session;
  // Runs marked `parallel` start together (each its own session); the rest run one by one.
  const together = s.runs.filter((r) => r.parallel);
  if (together.length > 0) {
    await Promise.all(together.map((r) => run(claude, ['-p', r.prompt, '--output-format', 'json', '--allowedTools', r.allowedTools ?? 'Read Edit Write Bash Agent'], env, ws)));
  }
  for (const r of s.runs.filter((x) => !x.parallel)) {
    const argv = ['-p', r.prompt, '--output-format', 'json', '--allowedTools', r.allowedTools ?? 'Read Edit Write Bash Agent'];
    if (r.resume && session) argv.push('--resume', session);
    const res = await run(claude, argv, env, ws, r.interruptAfterMs);
    if (r.interruptAfterMs) {
      // An interrupted run prints no result: the session is the newest transcript.
      session = newestSession(path.join(home, '.claude', 'projects')) ?? session;
      continue;
    }
    try {
      session = JSON.parse(res.stdout).session_id ?? session;
    } catch {
      console.error(`${s.name}: claude printed no JSON (exit ${res.code}): ${res.stderr.slice(0, 500)}`);
    }
  }
  if (watch) {
    await new Promise((r) => setTimeout(r, 1500));
    watch.kill('SIGTERM');
    await new Promise((r) => watch.on('close', r));
    fs.writeFileSync(path.join(out, `${s.name}.watch.txt`), watch.output.split(home).join('$HOME'));
  }
  if (s.hookPayloads && fs.existsSync(payloads)) {
    const lines = fs.readFileSync(payloads, 'utf8').split('\n').filter((l) => l.trim() !== '');
    fs.writeFileSync(path.join(out, `${s.name}.hook-payloads.ndjson`), lines.map((l) => `${l}\n`).join(''));
  }
  for (const name of Object.keys(s.files)) {
    if (!name.startsWith('.')) console.log(`${s.name}: ${name} now ${JSON.stringify(fs.readFileSync(path.join(ws, name), 'utf8'))}`);
  }
  const files = copyTranscripts(path.join(home, '.claude', 'projects'), path.join(out, s.name));
  console.log(`${s.name}: ${files.length} transcript(s), session ${session}`);
}
await api.close();
