import type { AgentKind } from '../model/agent';
import type { AccessOp, FileAccess, ToolCategory } from '../model/events';
import { parseApplyPatch } from './applyPatch';
import { type Scaffold, scaffoldOf } from './scaffolds';
import { hasWildcard, isRedactedPath, isWindowsPath, patternRoot, resolveAgainst } from './paths';
import { classifyShell, type ShellAccess } from './shell';

/** How to find the files a tool touches, by input field. Data, not code paths. */
interface ToolSpec {
  category: ToolCategory;
  /** Input fields holding one path each. */
  /** `createdWhenEmpty`: the input field (a dotted path) whose empty string makes the call a creation. */
  /** `window`: this field's own read window, where a tool's older builds named things differently. */
  paths?: { field: string; op: AccessOp; existed?: boolean; createdWhenEmpty?: string; window?: ToolSpec['window'] }[];
  /** Input field holding a list of paths (Copilot's `editFiles.files`). */
  pathList?: { field: string; op: AccessOp };
  /** Input field holding a shell command (string or argv array). */
  shell?: string;
  /** Input fields naming the folder the shell command runs in, the first set (Codex's `workdir` unless named). */
  workdir?: readonly string[];
  /** Input field holding an apply_patch envelope. */
  patch?: string;
  /**
   * One file operation spelled out in fields (Amplifier's native apply_patch engine): the field
   * naming the kind of operation, the field holding the path, and what each kind does.
   */
  operation?: { kind: string; path: string; ops: Readonly<Record<string, Extract<AccessOp, 'create' | 'edit' | 'delete'>>> };
  /**
   * Input field naming the file or folder a search tool searched (`rg PAT PATH`): a search of
   * one file is a look at it, as `grep PAT file` in the shell is; of a folder, no read of any file.
   */
  search?: string;
  /**
   * Input field holding a script that calls other tools (Codex's code mode, `exec`): its
   * patches and shell commands, where they are spelled out as string literals.
   */
  script?: string;
  /** Read tools that take a line window: the fields for offset (1-based start) and limit. */
  window?: { offset: string; limit: string; zeroBased?: boolean };
  /**
   * Input field holding a list of code extracts (the probe MCP server's `extract_code`): each is
   * `path`, `path:line`, `path:start-end` or `path#symbol`, relative paths resolved against the
   * input's `path` (the project root) when it has one.
   */
  extracts?: string;
  /**
   * Input field holding a list of tool invocations the tool runs itself (Claude Code 0.2.x's
   * `Batch`: `{tool_name, input}` each): their files, as those tools' own calls would name them.
   */
  batch?: string;
}

/**
 * probe's `extract_code` reads whole files, or the code block around a line or a symbol. MCP tool
 * names carry the server's name as the user registered it; `probe` is the name probe documents
 * and the one real sessions use. Claude Code calls it `mcp__probe__extract_code`; Codex records
 * `extract_code` in the `mcp__probe` namespace (its parser joins the two into that name) and
 * code-mode scripts call `tools.mcp__probe__extract_code`. probe's `search_code` returns ranked snippets of many files,
 * like `rg`: no read of any one file.
 */
const probeExtract: ToolSpec = { category: 'read', extracts: 'files' };

/**
 * Desktop Commander, an MCP server for files and terminals, registered as `desktop-commander`
 * (its documented name; Codex and Claude Code sessions both use it). `read_file` reads a window:
 * `offset` lines skipped (0-based), `length` lines; `write_file` rewrites or appends to a file;
 * `edit_block` replaces `old_string` as an Edit does.
 */
const desktopCommander: Record<string, ToolSpec> = {
  'mcp__desktop-commander__read_file': { category: 'read', paths: [{ field: 'path', op: 'read' }], window: { offset: 'offset', limit: 'length', zeroBased: true } },
  'mcp__desktop-commander__read_multiple_files': { category: 'read', pathList: { field: 'paths', op: 'read' } },
  'mcp__desktop-commander__write_file': { category: 'write', paths: [{ field: 'path', op: 'write' }] },
  'mcp__desktop-commander__edit_block': { category: 'edit', paths: [{ field: 'file_path', op: 'edit', existed: true, createdWhenEmpty: 'old_string' }] },
};

const claudeCode: Record<string, ToolSpec> = {
  Read: { category: 'read', paths: [{ field: 'file_path', op: 'read' }], window: { offset: 'offset', limit: 'limit' } },
  Write: { category: 'write', paths: [{ field: 'file_path', op: 'write' }] },
  // An Edit with an empty old_string writes new_string as the whole file: it may create it.
  Edit: { category: 'edit', paths: [{ field: 'file_path', op: 'edit', existed: true, createdWhenEmpty: 'old_string' }] },
  // A MultiEdit whose first edit has an empty old_string creates the file, as such an Edit does.
  MultiEdit: { category: 'edit', paths: [{ field: 'file_path', op: 'edit', existed: true, createdWhenEmpty: 'edits.0.old_string' }] },
  NotebookEdit: { category: 'edit', paths: [{ field: 'notebook_path', op: 'edit', existed: true }] },
  NotebookRead: { category: 'read', paths: [{ field: 'notebook_path', op: 'read' }] },
  Bash: { category: 'exec', shell: 'command' },
  // Claude Code on Windows: its PowerShell tool, beside Bash (Git Bash).
  PowerShell: { category: 'exec', shell: 'command' },
  // Claude Desktop's local-agent mode: the shell, in a VM (see parse/claude/mounts).
  mcp__workspace__bash: { category: 'exec', shell: 'command' },
  // Copilot agent mode in VS Code (seen through the same hooks).
  editFiles: { category: 'edit', pathList: { field: 'files', op: 'edit' } },
  createFile: { category: 'write', paths: [{ field: 'filePath', op: 'create' }] },
  readFile: { category: 'read', paths: [{ field: 'filePath', op: 'read' }] },
  runInTerminal: { category: 'exec', shell: 'command' },
  mcp__probe__extract_code: probeExtract,
  ...desktopCommander,
  // Claude Code 0.2.x ran several tools in one call.
  Batch: { category: 'other', batch: 'invocations' },
};

const codex: Record<string, ToolSpec> = {
  shell: { category: 'exec', shell: 'command' },
  shell_command: { category: 'exec', shell: 'command' },
  exec_command: { category: 'exec', shell: 'cmd' },
  container_exec: { category: 'exec', shell: 'command' },
  local_shell: { category: 'exec', shell: 'command' },
  apply_patch: { category: 'edit', patch: 'input' },
  exec: { category: 'exec', script: 'input' },
  Bash: { category: 'exec', shell: 'command' },
  mcp__probe__extract_code: probeExtract,
  ...desktopCommander,
};

const gemini: Record<string, ToolSpec> = {
  read_file: {
    category: 'read',
    paths: [
      { field: 'file_path', op: 'read' },
      // Builds of 2025 and early 2026: `absolute_path`, with a 0-based `offset` and a `limit`.
      { field: 'absolute_path', op: 'read', window: { offset: 'offset', limit: 'limit', zeroBased: true } },
    ],
    window: { offset: 'start_line', limit: 'end_line' },
  },
  write_file: { category: 'write', paths: [{ field: 'file_path', op: 'write' }] },
  replace: { category: 'edit', paths: [{ field: 'file_path', op: 'edit', existed: true }] },
  // Older builds and third-party samples call the edit tool edit_file.
  edit_file: { category: 'edit', paths: [{ field: 'file_path', op: 'edit', existed: true }] },
  // `dir_path` (`directory` in older builds): the folder to run in, relative to the project's.
  run_shell_command: { category: 'exec', shell: 'command', workdir: ['dir_path', 'directory'] },
};

const amplifier: Record<string, ToolSpec> = {
  // microsoft/amplifier-module-tool-filesystem `read.py`: `offset` is the first line (1-based), `limit` the count.
  read_file: { category: 'read', paths: [{ field: 'file_path', op: 'read' }], window: { offset: 'offset', limit: 'limit' } },
  write_file: { category: 'write', paths: [{ field: 'file_path', op: 'write' }] },
  edit_file: { category: 'edit', paths: [{ field: 'file_path', op: 'edit', existed: true }] },
  bash: { category: 'exec', shell: 'command' },
  // microsoft/amplifier-module-tool-search `grep.py`: `path` is a file or a folder (rg PATH).
  grep: { category: 'read', search: 'path' },
  // microsoft/amplifier-bundle-filesystem `modules/tool-apply-patch`: the function engine takes a
  // V4A envelope (`patch`); the native engine (the default, fed by the OpenAI provider's
  // apply_patch_call) one operation, `{type, path, diff}`.
  apply_patch: {
    category: 'edit',
    patch: 'patch',
    operation: { kind: 'type', path: 'path', ops: { create_file: 'create', update_file: 'edit', delete_file: 'delete' } },
  },
};

export const toolTables: Record<AgentKind, Record<string, ToolSpec>> = {
  'claude-code': claudeCode,
  codex,
  gemini,
  amplifier,
};

/** Does this agent's table know the tool (so its input can name files)? */
export function hasToolSpec(agent: AgentKind, tool: string): boolean {
  return Object.hasOwn(toolTables[agent], tool);
}

export interface Classification {
  category: ToolCategory;
  accesses: FileAccess[];
  /** See ToolCall.rewrites. */
  rewrites?: string[];
  /**
   * The command runs a scaffolding script whose output names the files it created (see
   * classify/scaffolds), in folder `cwd`: the adapter reads them from the call's result.
   */
  scaffold?: { of: Scaffold; cwd: string | undefined };
}

/** What a transcript says about its session beyond the working folder, that paths depend on. */
export interface SessionContext {
  /**
   * The user's home folder, where the agent's own instructions name it (Codex's skills list, see
   * the Codex parser): `~`, `$HOME` and `$env:USERPROFILE` lead there even when the session does
   * not work inside it.
   */
  home?: string;
}

/**
 * What a tool call does to files. `input` is the call's input object (already parsed);
 * paths come back absolute, resolved against `cwd` (and `session.home`).
 */
export function classifyToolCall(agent: AgentKind, tool: string, input: unknown, cwd: string | undefined, session: SessionContext = {}): Classification {
  const home = session.home;
  const table = toolTables[agent];
  const spec = Object.hasOwn(table, tool) ? table[tool] : undefined;
  if (!spec) {
    // MCP and unknown tools: nothing we can say about files.
    return { category: 'other', accesses: [] };
  }
  const obj = isRecord(input) ? input : emptyInput;
  const accesses: FileAccess[] = [];
  const rewrites: string[] = [];
  if (spec.paths) {
    for (const p of spec.paths) {
      const v = obj[p.field];
      if (typeof v === 'string') {
        const created = p.createdWhenEmpty !== undefined && fieldAt(obj, p.createdWhenEmpty) === '';
        const a = access(v, created ? 'write' : p.op, cwd, home);
        if (a) {
          if (p.existed && !created) {
            a.existed = true;
          }
          const window = p.window ?? spec.window;
          if (window && p.op === 'read') {
            const lines = readWindow(obj, window);
            if (lines) {
              a.lines = lines;
            }
          }
          accesses.push(a);
        }
      }
    }
  }
  if (spec.pathList) {
    const v = obj[spec.pathList.field];
    if (Array.isArray(v)) {
      for (const item of v) {
        if (typeof item === 'string') {
          const a = access(item, spec.pathList.op, cwd, home);
          if (a) {
            accesses.push(a);
          }
        }
      }
    }
  }
  let scaffold: Classification['scaffold'];
  if (spec.shell) {
    const dir = firstString(obj, spec.workdir ?? defaultWorkdir);
    const base = dir !== undefined ? resolveAgainst(dir, cwd, home) : cwd;
    const command = shellText(obj[spec.shell]);
    if (command !== undefined) {
      shellAccesses(command, base, home, accesses, rewrites);
      const of = scaffoldOf(command);
      if (of) {
        scaffold = { of, cwd: base };
      }
    }
  }
  if (spec.patch) {
    const v = obj[spec.patch] ?? obj['command'] ?? obj['patch'];
    if (typeof v === 'string') {
      patchAccesses(v, cwd, home, accesses);
    }
  }
  if (spec.operation) {
    const kind = obj[spec.operation.kind];
    const op = typeof kind === 'string' && Object.hasOwn(spec.operation.ops, kind) ? spec.operation.ops[kind] : undefined;
    const v = obj[spec.operation.path];
    const a = op && typeof v === 'string' ? access(v, op, cwd, home) : undefined;
    if (a) {
      if (op !== 'create') {
        a.existed = true;
      }
      accesses.push(a);
    }
  }
  if (spec.search) {
    const v = obj[spec.search];
    const a = typeof v === 'string' && namesOneFile(v) ? access(v, 'read', cwd, home) : undefined;
    if (a) {
      a.lines = { ...searchedLines };
      accesses.push(a);
    }
  }
  if (spec.script) {
    const v = obj[spec.script];
    if (typeof v === 'string') {
      scriptAccesses(v, cwd, home, accesses, rewrites);
    }
  }
  if (spec.extracts) {
    const v = obj[spec.extracts];
    if (Array.isArray(v)) {
      const base = typeof obj['path'] === 'string' ? resolveAgainst(obj['path'], cwd, home) : cwd;
      extractAccesses(v.filter((x): x is string => typeof x === 'string'), base, home, accesses);
    }
  }
  if (spec.batch) {
    const v = obj[spec.batch];
    if (Array.isArray(v)) {
      for (const item of v) {
        // (Not a Batch within a Batch: one level, as Claude Code ran it.)
        if (isRecord(item) && typeof item['tool_name'] === 'string' && item['tool_name'] !== tool) {
          accesses.push(...classifyToolCall(agent, item['tool_name'], item['input'], cwd, session).accesses);
        }
      }
    }
  }
  // A redacted name stands for no one file: nothing the session did under it can be compared
  // (two files Entire redacted to one `.REDACTED.md` looked like one file changed behind its back).
  const named = accesses.some((a) => isRedactedPath(a.path) || (a.from !== undefined && isRedactedPath(a.from)))
    ? accesses.filter((a) => !isRedactedPath(a.path) && (a.from === undefined || !isRedactedPath(a.from)))
    : accesses;
  const out: Classification = { category: spec.category, accesses: named };
  if (rewrites.length > 0) {
    out.rewrites = rewrites;
  }
  if (scaffold) {
    out.scaffold = scaffold;
  }
  return out;
}

/** Codex names the folder a shell command runs in `workdir`. */
const defaultWorkdir: readonly string[] = ['workdir'];

/** The first of these fields that holds a string. */
function firstString(obj: Record<string, unknown>, fields: readonly string[]): string | undefined {
  for (const f of fields) {
    const v = obj[f];
    if (typeof v === 'string') {
      return v;
    }
  }
  return undefined;
}

/** The value at a dotted path of fields and array indexes (`edits.0.old_string`). */
function fieldAt(obj: Record<string, unknown>, path: string): unknown {
  let v: unknown = obj;
  for (const key of path.split('.')) {
    if (Array.isArray(v)) {
      v = v[Number(key)];
    } else if (isRecord(v)) {
      v = v[key];
    } else {
      return undefined;
    }
  }
  return v;
}

/**
 * A search of one file: which lines it printed is in the result, not the call, and a search with
 * no match printed none. A read that vouches for no line (see symbolLines).
 */
const searchedLines = Object.freeze({ start: 1, count: 0 });

/**
 * A search path that names one file rather than a folder: a last segment with an extension, as
 * the shell's `grep -r` on one file is told apart (a file without one, `Makefile`, is taken for
 * a folder: no read is claimed that may not have been).
 */
function namesOneFile(p: string): boolean {
  const last = p.split(/[\\/]/).pop() ?? '';
  return !hasWildcard(p) && last !== '.' && last !== '..' && /\.[A-Za-z0-9]+$/.test(last);
}

/** `path:10` or `path:10-20` at the end of an extract target. */
const extractLines = /:(\d+)(?:-(\d+))?$/;
/**
 * A block of code found by symbol: which lines it spans is in the result, not the call. A window
 * that vouches for no line: the read counts as a read, and only a read whose content the
 * transcript holds vouches for what the file held.
 */
const symbolLines = Object.freeze({ start: 1, count: 0 });

/**
 * The files code extracts read. A bare path is a whole-file read; a line, a range or a symbol is
 * a read of part of the file (`path:10` returns the block around line 10, so at least that line).
 * One access per file: a whole-file read of it wins over its partial ones.
 */
function extractAccesses(targets: readonly string[], base: string | undefined, home: string | undefined, out: FileAccess[]): void {
  const byPath = new Map<string, FileAccess>();
  for (const target of targets) {
    const { file, lines } = extractTarget(target);
    const a = access(file, 'read', base, home);
    if (!a) {
      continue;
    }
    const seen = byPath.get(a.path);
    if (!seen) {
      if (lines) {
        a.lines = { ...lines };
      }
      byPath.set(a.path, a);
      out.push(a);
    } else if (!lines) {
      delete seen.lines;
    }
  }
}

/** An extract target's file, and the lines it names (undefined for the whole file). */
function extractTarget(target: string): { file: string; lines?: { start: number; count: number } } {
  const hash = target.lastIndexOf('#');
  if (hash > target.lastIndexOf('/') && hash > target.lastIndexOf('\\')) {
    return { file: target.slice(0, hash), lines: symbolLines };
  }
  const m = extractLines.exec(target);
  if (!m) {
    return { file: target };
  }
  const start = Number(m[1]);
  return { file: target.slice(0, m.index), lines: { start, count: m[2] === undefined ? 1 : Math.max(Number(m[2]) - start + 1, 0) } };
}

/** A double-quoted JS string literal (JSON's escapes are JS's, for what a script spells out). */
const quoted = /"(?:[^"\\\n]|\\.)*"/g;
/** The script runs shell commands through a tool. */
const runsShell = /\btools\.(?:exec_command|shell|shell_command)\b/;
const scriptWorkdir = /["']?\bworkdir["']?\s*:\s*("(?:[^"\\\n]|\\.)*")/;

function literal(text: string): string | undefined {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The script calls probe's extract_code (code mode spells an MCP tool `tools.mcp__<server>__<tool>`). */
const runsExtract = /\btools\.mcp__probe__extract_code\b/;
/** A list of extract targets: `files: [ … ]` in the call, or `const files = [ … ]` passed as `{ files }`. */
const filesList = /\bfiles["']?\s*[:=]\s*\[/g;
/** One element of a list that is a double-quoted literal and nothing else, and what follows it. */
const listElement = new RegExp(`\\s*(${quoted.source})\\s*([,\\]])`, 'y');

/** The literal elements of the list whose `[` is at `open`, up to the first computed element. */
function listLiterals(script: string, open: number): string[] {
  const out: string[] = [];
  listElement.lastIndex = open + 1;
  for (;;) {
    const m = listElement.exec(script);
    if (!m) {
      return out;
    }
    const text = literal(m[1]!);
    if (text !== undefined) {
      out.push(text);
    }
    if (m[2] === ']') {
      return out;
    }
  }
}

/**
 * The files a code-mode script touches through the tools it calls: each apply_patch envelope
 * in a string literal; when it runs shell commands, each string literal that reads or writes
 * a file as a command would (scripts keep their commands in literals, in a call or in a list
 * they map over); when it calls probe's extract_code, the files its `files` lists spell out.
 * Anything the script computes is not guessed at.
 */
function scriptAccesses(script: string, cwd: string | undefined, home: string | undefined, out: FileAccess[], rewrites: string[]): void {
  const shell = runsShell.test(script);
  const extract = runsExtract.test(script);
  if (!shell && !extract && !script.includes('*** Begin Patch')) {
    return;
  }
  if (extract) {
    for (const m of script.matchAll(filesList)) {
      extractAccesses(listLiterals(script, m.index + m[0].length - 1), cwd, home, out);
    }
  }
  const wd = shell ? scriptWorkdir.exec(script) : null;
  const workdir = wd ? literal(wd[1]!) : undefined;
  const base = workdir !== undefined ? resolveAgainst(workdir, cwd, home) : cwd;
  for (const m of script.matchAll(quoted)) {
    const text = literal(m[0]);
    if (text === undefined) {
      continue;
    }
    if (text.includes('*** Begin Patch')) {
      patchAccesses(text, cwd, home, out);
    } else if (shell) {
      shellAccesses(text, base, home, out, rewrites);
    }
  }
  if (shell && script.includes('${')) {
    for (const command of mappedTemplates(script)) {
      shellAccesses(command, base, home, out, rewrites);
    }
  }
}

/** A template literal with no backslash and one `${name}` in it. */
const template = /`([^`\\$]*(?:\$\{\s*([A-Za-z_$][\w$]*)\s*\}[^`\\$]*)+)`/g;

/**
 * Commands a script builds from a template over a list of literals: `files.map((file) =>
 * tools.exec_command({cmd: `sed -n '1,280p' ${file}`}))` or `for (const file of files)`, with
 * `const files = ["src/a.ts", "src/b.ts"]`: the template once per element.
 */
function mappedTemplates(script: string): string[] {
  const out: string[] = [];
  for (const m of script.matchAll(template)) {
    const body = m[1]!;
    const names = new Set([...body.matchAll(/\$\{\s*([A-Za-z_$][\w$]*)\s*\}/g)].map((x) => x[1]!));
    if (names.size !== 1) {
      continue;
    }
    const name = [...names][0]!;
    const esc = name.replace(/\$/g, '\\$');
    const over = new RegExp(`\\b([A-Za-z_$][\\w$]*)\\.map\\(\\s*(?:async\\s*)?\\(?\\s*${esc}\\s*[,)=]|for\\s*\\(\\s*(?:const|let|var)\\s+${esc}\\s+of\\s+([A-Za-z_$][\\w$]*)\\s*\\)`).exec(script);
    const list = over?.[1] ?? over?.[2];
    const decl = list ? new RegExp(`\\b(?:const|let|var)\\s+${list.replace(/\$/g, '\\$')}\\s*=\\s*\\[`).exec(script) : null;
    if (!decl) {
      continue;
    }
    for (const value of listLiterals(script, decl.index + decl[0].length - 1)) {
      out.push(body.replace(/\$\{\s*[A-Za-z_$][\w$]*\s*\}/g, () => value));
    }
  }
  return out;
}

/** The files a shell command reads and writes, resolved against `base`; `rewrites` gets the directories it may rewrite wholesale. */
function shellAccesses(command: string, base: string | undefined, home: string | undefined, out: FileAccess[], rewrites: string[]): void {
  for (const s of classifyShell(command, base)) {
    const dir = s.cwd ?? base;
    if (s.tree) {
      // A folder, or a pattern of the files a command may have rewritten (`sed -i … src/*.ts`).
      // A pattern keeps its escapes only in POSIX paths: in a Windows folder, the folder it searches.
      const windows = (dir !== undefined && isWindowsPath(dir)) || isWindowsPath(s.path);
      const d = access(hasWildcard(s.path) && windows ? patternRoot(s.path, true) : s.path, 'write', dir, home)?.path;
      if (d !== undefined && !rewrites.includes(d)) {
        rewrites.push(d);
      }
      continue;
    }
    if (s.inFolder) {
      const a = inFolderAccess(s, s.inFolder, dir, home);
      if (a) {
        out.push(a);
      }
      continue;
    }
    // A pattern keeps its escapes only in POSIX paths (Windows separators are backslashes).
    if (s.glob && ((dir !== undefined && isWindowsPath(dir)) || isWindowsPath(s.path))) {
      continue;
    }
    const a = access(s.path, s.op, dir, home);
    if (a) {
      if (s.lines) {
        a.lines = s.lines;
      }
      if (s.glob) {
        a.glob = true;
      }
      if (s.followed) {
        a.followed = true;
      }
      if (s.fixer) {
        a.fixer = true;
      }
      if (s.append) {
        a.append = true;
      }
      if (s.amend) {
        a.amend = true;
      }
      if (s.from !== undefined) {
        const from = access(s.from, 'read', dir, home)?.path;
        if (from !== undefined) {
          a.from = from;
        }
      }
      a.viaShell = true;
      out.push(a);
    }
  }
}

/**
 * PowerShell's read of the files a listing kept (see ShellAccess.inFolder): a read of the Windows
 * pattern of their folder, made absolute (`C:\w\Script\*.lua`, `C:\w\Script\**\*.lua` with
 * -Recurse; see shellPattern). None where the folder is no Windows one, or has what -Path would
 * read as a wildcard and the files were named through it.
 */
function inFolderAccess(s: ShellAccess, f: NonNullable<ShellAccess['inFolder']>, dir: string | undefined, home: string | undefined): FileAccess | undefined {
  const folder = resolveAgainst(s.path, dir, home);
  if (folder === undefined || !isWindowsPath(folder) || /[*?]/.test(folder) || (!f.literal && /[[\]`]/.test(folder))) {
    return undefined;
  }
  const a: FileAccess = { path: `${folder.replace(/\\$/, '')}\\${f.recurse ? '**\\' : ''}${f.name}`, op: 'read', glob: true };
  if (s.lines) {
    a.lines = s.lines;
  }
  if (s.followed) {
    a.followed = true;
  }
  a.viaShell = true;
  return a;
}

/** The files an apply_patch envelope touches; what it updates or deletes existed. */
function patchAccesses(patch: string, cwd: string | undefined, home: string | undefined, out: FileAccess[]): void {
  for (const t of parsePatchAccesses(patch)) {
    const a = access(t.path, t.op, cwd, home);
    if (a) {
      if (t.op === 'edit' || t.op === 'delete') {
        a.existed = true;
      }
      out.push(a);
    }
  }
}

const emptyInput: Record<string, unknown> = Object.freeze({});

/** A file access of `raw` resolved against `base` (and the user's `home`); undefined when it cannot be resolved. */
function access(raw: string, op: AccessOp, base: string | undefined, home?: string): FileAccess | undefined {
  const path = resolveAgainst(raw, base, home);
  return path === undefined ? undefined : { path, op };
}

function parsePatchAccesses(text: string): { path: string; op: AccessOp }[] {
  const out: { path: string; op: AccessOp }[] = [];
  for (const t of parseApplyPatch(text)) {
    out.push({ path: t.path, op: t.op });
    if (t.moveTo) {
      out.push({ path: t.moveTo, op: 'create' });
    }
  }
  return out;
}

/** Claude's Read takes offset (1-based line) and limit; Gemini's read_file start_line/end_line. */
function readWindow(obj: Record<string, unknown>, w: NonNullable<ToolSpec['window']>): { start: number; count: number } | undefined {
  const off = obj[w.offset];
  const lim = obj[w.limit];
  if (typeof off !== 'number' && typeof lim !== 'number') {
    return undefined;
  }
  // (A negative offset counts from the end: which lines, the call does not say; from line 1 on.)
  const start = typeof off === 'number' && off >= 0 ? (w.zeroBased ? off + 1 : Math.max(off, 1)) : 1;
  if (w.limit === 'end_line') {
    return typeof lim === 'number' ? { start, count: Math.max(lim - start + 1, 0) } : { start, count: Number.MAX_SAFE_INTEGER };
  }
  return { start, count: typeof lim === 'number' ? lim : Number.MAX_SAFE_INTEGER };
}

/** A shell command as text: Codex passes argv arrays (`["bash","-lc","…"]`), others a string. */
export function shellText(v: unknown): string | undefined {
  if (typeof v === 'string') {
    return v;
  }
  // (An empty argv runs nothing: there is no program to name.)
  if (Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string')) {
    const argv = v;
    if (argv.length >= 3 && /(^|\/)(ba|z)?sh$/.test(argv[0]!) && /^-[a-z]*c[a-z]*$/.test(argv[1]!)) {
      return argv[2];
    }
    // Codex on Windows: `["pwsh.exe", "-NoProfile", "-Command", script]`, `["cmd.exe", "/c", …]`.
    const program = argv[0]!.replace(/^.*[\\/]/, '').toLowerCase();
    if (/^(pwsh|powershell)(\.exe)?$/.test(program)) {
      const flag = argv.findIndex((a, i) => i > 0 && /^-(command|c)$/i.test(a));
      if (flag > 0 && flag + 1 < argv.length) {
        return argv.slice(flag + 1).join(' ');
      }
    } else if (program === 'cmd' || program === 'cmd.exe') {
      const flag = argv.findIndex((a, i) => i > 0 && /^\/c$/i.test(a));
      if (flag > 0 && flag + 1 < argv.length) {
        return argv.slice(flag + 1).join(' ');
      }
    }
    return argv.map(quoteArg).join(' ');
  }
  return undefined;
}

function quoteArg(a: string): string {
  return /^[A-Za-z0-9_./=:,@%+-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
