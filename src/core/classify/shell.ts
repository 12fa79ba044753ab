import { AgentGuardError } from '../lib/errors';
import type { AccessOp } from '../model/events';
import { parseApplyPatch } from './applyPatch';
import { isAbsolutePath, isWindowsPath, patternRoot, resolveAgainst } from './paths';

export interface ShellAccess {
  /** As written in the command (may be relative to `cwd`). */
  path: string;
  op: AccessOp;
  /** The directory the path is relative to, after any `cd` earlier in the command. */
  cwd?: string;
  lines?: { start: number; count: number };
  /**
   * `path` is a pathname pattern (`src/*.json`): the command read every file it matched. The
   * characters that were quoted in the command are escaped with a backslash.
   */
  glob?: true;
  /** Not in the script's last command (see FileAccess.followed). */
  followed?: true;
  /** Written by a formatter or fixer (see FileAccess.fixer). */
  fixer?: true;
  /** Appended to (see FileAccess.append). */
  append?: true;
  /** Rewritten from what it held, one entry changed (see FileAccess.amend). */
  amend?: true;
  /** `path` is a directory: the command may rewrite any file in it, which ones unknown (`git checkout main`). */
  tree?: true;
  /** A move (`mv`, `git mv`): the path it came from, as written (relative to the same folder). */
  from?: string;
  /**
   * PowerShell (with `glob`): `path` is a folder, and the command read each file in it (with
   * `recurse`, in its tree) whose name matches `name`, `*` and `?` its only wildcards:
   * `Get-ChildItem DIR -Filter *.lua | ForEach-Object { Get-Content -LiteralPath $_.FullName }`.
   * `literal`: the folder and the files were named to PowerShell as written, not through -Path,
   * which reads `[`, `]` and a backtick in a path as wildcards.
   */
  inFolder?: { name: string; recurse: boolean; literal: boolean };
}

interface Word {
  kind: 'word';
  text: string;
  /** Contains unquoted expansions ($VAR, globs, `…`): not a literal path. */
  dynamic: boolean;
  /** The word is a pathname pattern and nothing else computed: the pattern (see ShellAccess.glob). */
  glob?: string;
  /** PowerShell's `$_.FullName` in a ForEach-Object over a listing: each file it passed on (see psEachBody). */
  items?: readonly PsItems[];
  /** Written with quotes, in part or whole (`"$_.FullName"` is the item's path and `.FullName`). */
  quoted?: true;
}

/** Files a PowerShell listing passes down its pipe (see psListing and ShellAccess.inFolder). */
interface PsItems {
  /** As written; `.` for the current folder. */
  dir: string;
  name: string;
  recurse: boolean;
  /** Named by -LiteralPath, or not at all (see ShellAccess.inFolder). */
  literal: boolean;
}
interface Op {
  kind: 'op';
  text: string;
}
interface HereDoc {
  kind: 'heredoc';
  body: string;
}
type Token = Word | Op | HereDoc;

const mayTouchFiles = /[<>]|::(?:Write|Append)All(?:Text|Lines|Bytes)\b|\b(cat|nl|less|more|head|tail|sed|awk|tee|touch|rg|grep|egrep|fgrep|apply_?patch|bash|sh|zsh|cp|mv|install|git|python[0-9.]*|node|gofmt|goimports|prettier|black|isort|ruff|rustfmt|eslint|biome|ultracite|clang-format|shfmt|dprint|npm|pnpm|yarn|bun)\b|\b(get-content|set-content|add-content|out-file|move-item|copy-item|select-string|sls|gc|type)\b/i;

/**
 * PowerShell, the shell Codex runs on Windows. Cmdlet names are case-insensitive. `gc` and
 * `type` are Get-Content's aliases there, but a POSIX `type` asks what a command is: they count
 * only when the session's directory is a Windows path.
 */
const psReaders = new Set(['get-content']);
const psAliasReaders = new Set(['gc', 'type']);
const psWriters = new Set(['set-content', 'add-content', 'out-file']);
/** Parameters that name the file; the other parameters that take a value (their value is no path). */
const psPathParams = new Set(['-path', '-literalpath', '-filepath', '-pspath', '-lp']);
/** The parameters whose value is taken as written: `[`, `]`, `*` and `?` are no wildcards there. */
const psLiteralParams = new Set(['-literalpath', '-pspath', '-lp']);
const psValueParams = new Set([
  '-totalcount',
  '-head',
  '-first',
  '-tail',
  '-last',
  '-encoding',
  '-delimiter',
  '-readcount',
  '-stream',
  '-filter',
  '-include',
  '-exclude',
  '-credential',
  '-value',
  '-inputobject',
  '-width',
  '-pattern',
  '-context',
]);

const separators = new Set(['&&', '||', ';', '|', '&', '\n', '(', ')']);
const redirects = new Set(['>', '>>', '>|', '&>', '&>>', '1>', '1>>', '2>', '2>>', '<', '<<<']);

/**
 * Reads and writes recognisable in a shell command, where they are unambiguous: `cat`,
 * `sed -n`, `head`, `tail`, `nl`, `rg`/`grep` on one file as reads; redirections, `tee`,
 * `sed -i` and the destination of `cp`, `mv` and `install` as writes; `apply_patch` heredocs by
 * their envelope. A variable the script itself set to a literal (`d=out/x` … `"$d/a.md"`) is put
 * in; anything else computed (other variables, substitutions) is skipped rather than guessed.
 */
export function classifyShell(command: string, cwd?: string): ShellAccess[] {
  return classify(command, cwd, { loopTokens: maxLoopTokens, substituted: maxSubstitutedChars, foundRuns: maxFoundRuns, foundText: maxFoundText });
}

/**
 * What reading one command line may still cost, shared by the scripts it runs (`bash -c`,
 * `find -exec`, `xargs`): work that multiplies with the input (loops, variables put in, a
 * command run on each file a find lists) is counted here, and past a limit it is not done: the
 * words stay computed, naming nothing, rather than one line holding up the check.
 */
interface Work {
  /** Tokens loops may still add (see maxLoopTokens). */
  loopTokens: number;
  /** Characters variables may still add to words (see maxSubstitutedChars). */
  substituted: number;
  /** Runs of a command on a file a find listed, and the characters those runs read (see maxFoundRuns). */
  foundRuns: number;
  foundText: number;
}

function classify(command: string, cwd: string | undefined, work: Work): ShellAccess[] {
  // Most commands touch no file we can name: skip the tokenizer unless one of the commands
  // or operators we recognise appears at all.
  if (!mayTouchFiles.test(command)) {
    return [];
  }
  const windows = cwd !== undefined && isWindowsPath(cwd);
  let tokens: Token[];
  try {
    tokens = expandForLoops(tokenize(windows ? withDotNetWrites(withoutHereStrings(command)) : command, windows), work);
  } catch {
    // An unterminated quote: the shell would not run the command as written, so it names no file.
    return [];
  }
  const out: ShellAccess[] = [];
  let dir = cwd;
  let words: Word[] = [];
  let heredocs: string[] = [];
  /** Where the accesses of the command being read begin in `out`, and those of the last command. */
  let commandStart = 0;
  let lastCommandStart = 0;
  /** Variables the script set: to a literal, or to something computed (undefined). */
  const vars = new Map<string, string | undefined>();
  /** The variables of `vars` whose value is a pathname pattern (as `Word.glob` spells one). */
  const patternVars = new Set<string>();
  /** The files a `find` piped into this command lists (through `sort`), for an `xargs` here. */
  let piped: string[] | undefined;
  /** After PowerShell's `foreach ($v in`: the list, up to the body's `{` (see below). */
  let foreachList = false;
  let foreachVar = '';
  /** Inside PowerShell's `@(` … `)`. */
  let psArray = false;
  /** PowerShell variables set by Resolve-Path: objects whose `.Path` is the path they hold. */
  const pathInfoVars = new Set<string>();
  /** What the `Get-ChildItem` just flushed pipes on (see psListing), and what ended the command before it. */
  let listed: PsItems[] | undefined;
  let lastSeparator: string | undefined;
  /** Sets a variable; false when it is a new one past maxVariables (it stays unknown). */
  const setVar = (name: string, value: string | undefined): boolean => {
    if (!vars.has(name) && vars.size >= maxVariables) {
      return false;
    }
    vars.set(name, value);
    return true;
  };
  /** The items of each PowerShell list `$list[n]` took one of, split once per value (see below). */
  const listItems = new Map<string, { value: string; items: string[] }>();
  const listItem = (name: string, n: string): string | undefined => {
    const value = vars.get(name);
    if (value === undefined || !value.includes(',')) {
      return undefined;
    }
    let cached = listItems.get(name);
    if (cached?.value !== value) {
      cached = { value, items: value.split(',') };
      listItems.set(name, cached);
    }
    return cached.items[Number(n)];
  };
  const flush = (separator?: string): void => {
    const assigned = words[0]?.text === 'export' ? words.slice(1) : words;
    const cmd = words[0]?.dynamic ? undefined : words[0]?.text;
    const ps = windows && heredocs.length === 0 ? psAssignment(words) : undefined;
    if (ps) {
      // `$p = 'src\a.lua'` names a file as a shell variable does; `$lines = Get-Content a.lua`
      // reads it into the script, which prints what it wants of it: a look at the file.
      const path = psPathValue(ps.value);
      const literal = path ? path.text : psLiteral(ps.value);
      const known = setVar(ps.name, literal);
      patternVars.delete(ps.name);
      if (path?.pathInfo && known) {
        pathInfoVars.add(ps.name);
      } else {
        pathInfoVars.delete(ps.name);
      }
      if (literal === undefined && ps.value.length > 0) {
        interpret(ps.value, heredocs, dir, out, work);
      }
    } else if (assigned.length > 0 && heredocs.length === 0 && isAssignments(assigned)) {
      for (const w of assigned) {
        const eq = w.text.indexOf('=');
        const name = w.text.slice(0, eq);
        // A value that is a pathname pattern (a date in a file name): as a pattern, where it
        // names a file (`r=out-$(date +%F).md; cat > "$r"`).
        const pattern = w.glob?.startsWith(name + '=') ? w.glob.slice(eq + 1) : undefined;
        if (!setVar(name, w.dynamic ? pattern : w.text.slice(eq + 1))) {
          continue;
        }
        if (pattern !== undefined) {
          patternVars.add(name);
        } else {
          patternVars.delete(name);
        }
      }
    } else if (cmd === 'xargs' && piped) {
      xargsOnFound(words.slice(1), piped, dir, out, work);
    } else if (words.length > 0 || heredocs.length > 0) {
      const newDir = interpret(words, heredocs, dir, out, work);
      if (newDir !== undefined) {
        dir = newDir;
      }
    }
    if (words.length > 0 || separator !== '\n') {
      // The files a listing pipes on, for a ForEach-Object next (not a listing fed by a pipe
      // itself; a pipe goes on over a line break).
      listed = words.length > 0 && windows && separator === '|' && lastSeparator !== '|' ? psListing(ps ? ps.value : words) : undefined;
      lastSeparator = separator;
    }
    // What goes on down the pipe: what a find listed, through commands that keep some of it.
    const keeps = cmd === 'sort' || cmd === 'uniq' || (cmd === 'xargs' && listsMatchingFiles(xargsCommand(words.slice(1)).command));
    piped = separator !== '|' ? undefined : cmd === 'find' ? findPatterns(words.slice(1)) : keeps ? piped : undefined;
    if (words.length > 0 || heredocs.length > 0 || out.length > commandStart) {
      lastCommandStart = commandStart;
    }
    commandStart = out.length;
    words = [];
    heredocs = [];
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === 'heredoc') {
      heredocs.push(t.body);
      continue;
    }
    if (t.kind === 'op') {
      const last = words[words.length - 1];
      if (windows && t.text === '(' && last && (last.text === '@' || last.text.endsWith('=@'))) {
        // PowerShell's array `@('a','b')`: its items, the comma list `a,b` (see psAssignment).
        if (last.text === '@') {
          words.pop();
        } else {
          words[words.length - 1] = { ...last, text: last.text.slice(0, -1) };
        }
        psArray = true;
        continue;
      }
      if (psArray && t.text === ')') {
        psArray = false;
        continue;
      }
      if (psArray && t.text === '\n') {
        // PowerShell reads on to the closing parenthesis: an array written one item a line
        // (`$files = @(⏎ 'a.lua',⏎ 'b.lua'⏎)`) is one assignment, not a command per line.
        continue;
      }
      if (separators.has(t.text)) {
        flush(t.text);
        continue;
      }
      if (redirects.has(t.text)) {
        const next = tokens[i + 1];
        // A variable the command line set to a literal names the file here too (`r=out.md; cat > "$r"`).
        const target = next?.kind === 'word' && next.dynamic && vars.size > 0 ? withVariables(next, vars, patternVars, work) : next;
        i++;
        if (target?.kind === 'word' && !target.dynamic && t.text !== '<' && t.text !== '<<<') {
          if (isRealFile(target.text) && !(windows && isNulDevice(target.text))) {
            out.push(withCwd(t.text.endsWith('>>') ? { path: target.text, op: 'write', append: true } : { path: target.text, op: 'write' }, dir));
          }
        } else if (target?.kind === 'word' && target.glob !== undefined && (t.text === '>' || t.text === '>|')) {
          // Written whole, to a name the transcript does not spell out (a date): the session
          // knows the file it wrote as it knows one it read whole, whichever file matched.
          out.push(withCwd({ path: target.glob, op: 'read', glob: true }, dir));
        } else if (target?.kind === 'word' && !target.dynamic && t.text === '<' && isRealFile(target.text)) {
          out.push(withCwd({ path: target.text, op: 'read' }, dir));
        }
        continue;
      }
      continue;
    }
    if (windows && words.length === 0 && !t.dynamic && t.text.toLowerCase() === 'foreach') {
      // `foreach ($f in @('a.lua','b.lua')) { Get-Content $f }`: read as `$f = 'a.lua,b.lua'` then
      // the body, where a file cmdlet takes the comma list as the files it names.
      const open = tokens[i + 1];
      const v = tokens[i + 2];
      const kw = tokens[i + 3];
      if (open?.kind === 'op' && open.text === '(' && v?.kind === 'word' && /^\$[A-Za-z_]\w*$/.test(v.text) && kw?.kind === 'word' && kw.text.toLowerCase() === 'in') {
        words.push({ kind: 'word', text: v.text, dynamic: true }, { kind: 'word', text: '=', dynamic: false });
        foreachList = true;
        foreachVar = v.text.slice(1);
        i += 3;
        continue;
      }
    }
    if (windows && words.length === 0 && t.dynamic) {
      const m = /^(\$[A-Za-z_]\w*)(?:=([^]*))?$/.exec(t.text);
      const next = tokens[i + 1];
      if (m && (m[2] !== undefined || (next?.kind === 'word' && next.text === '='))) {
        // The name a PowerShell assignment sets is no reference to its old value: only the value is put in.
        const value = m[2] === undefined || m[2] === '' || vars.size === 0 ? m[2] : withVariables({ kind: 'word', text: m[2], dynamic: true }, vars, patternVars, work).text;
        words.push(value === undefined ? t : { kind: 'word', text: `${m[1]}=${value}`, dynamic: true });
        continue;
      }
    }
    if (foreachList && t.text.startsWith('{')) {
      foreachList = false;
      flush(';');
      const passes = foreachPasses(tokens, i, foreachVar, vars.get(foreachVar), work);
      if (passes === 'over budget') {
        // Its passes are not run one by one: the variable names no file in the body.
        setVar(foreachVar, undefined);
      } else if (passes) {
        // Each pass of the loop in its place: `$v = 'item'; BODY;` for each item of the list.
        tokens.splice(i, passes.end - i + 1, ...passes.tokens);
        i--;
        continue;
      }
      // A list not known item by item, or a block left open: the variable is the comma list.
      if (t.text.length > 1) {
        words.push({ ...t, text: t.text.slice(1) });
      }
      continue;
    }
    if (listed && t.text.startsWith('{') && words.length === 1 && !words[0]!.dynamic && psForEach.has(words[0]!.text.toLowerCase())) {
      // `Get-ChildItem … | ForEach-Object { … }`: the block runs once for each file listed.
      const items = listed;
      words = [];
      // (The block's statements are fed by no pipe.)
      flush(';');
      psEachBody(tokens, i, items, work);
      const open = tokens[i] as Word;
      if (open.text.length > 1) {
        // (`{gc`: the word the brace opens, computed only for what is left of it.)
        const text = open.text.slice(1);
        words.push({ ...open, text, dynamic: computed.test(text) });
      }
      continue;
    }
    if (windows && (t.text === '{' || t.text === '}')) {
      // A block of PowerShell (`if (…) { … } else { … }`): its braces end the command before them.
      flush(';');
      continue;
    }
    if (windows && t.text.length > 1 && t.text.endsWith('}') && braceDepth(t.text) < 0) {
      // `{ Move-Item a b -Force}`: the brace closes the block, not the word.
      const inner = { ...t, text: t.text.slice(0, -1) };
      words.push(vars.size > 0 && inner.dynamic && !inner.items ? withVariables(inner, vars, patternVars, work) : inner);
      flush(';');
      continue;
    }
    if (t.items) {
      words.push(t);
      continue;
    }
    let word = t;
    if (windows && vars.size > 0 && t.dynamic) {
      // `$d.Path` of `$d = Resolve-Path …` is the path itself; `$list[1]` is an item of a list.
      const text = t.text
        .replace(/\$([A-Za-z_]\w*)\.(?:Path|ProviderPath)\b/g, (m, name: string) => (pathInfoVars.has(name) ? '$' + name : m))
        // (Only a list: an index into a string is one character of it.)
        .replace(/\$([A-Za-z_]\w*)\[(\d+)\]/g, (m, name: string, n: string) => listItem(name, n) ?? m);
      word = text === t.text ? t : { ...t, text, dynamic: computed.test(text) };
    }
    words.push(vars.size > 0 && word.dynamic ? withVariables(word, vars, patternVars, work) : word);
  }
  flush();
  for (let i = 0; i < lastCommandStart; i++) {
    out[i]!.followed = true;
  }
  // After a `cd` to a folder the command computes, relative paths name files we cannot place.
  if (!out.some((a) => a.cwd?.startsWith(lostDir))) {
    return out;
  }
  const placed: ShellAccess[] = [];
  for (const a of out) {
    if (!a.cwd?.startsWith(lostDir)) {
      placed.push(a);
    } else if (isAbsolutePath(a.path)) {
      delete a.cwd;
      placed.push(a);
    }
  }
  return placed;
}

/**
 * PowerShell's here-strings (`@'` … `'@`, `@"` … `"@`, each mark on a line of its own) hold any
 * text, quotes included, which the POSIX reading would take for quoting: each is one word here,
 * the value piped to `Set-Content -Path` or `Out-File`.
 */
function withoutHereStrings(command: string): string {
  if (!command.includes("@'") && !command.includes('@"')) {
    return command;
  }
  // Each here-string ends at the first line that closes it, found by a search from its start:
  // a lazy pattern over the whole command searched on to the end from every `@'` that no line
  // closed, quadratic work on a line of them.
  let out = '';
  let from = 0;
  /** The quotes no later line closes: an opening of one of them is no here-string. */
  const unclosed = new Set<string>();
  for (let open = hereStringOpen.exec(command); open !== null; open = hereStringOpen.exec(command)) {
    const quote = open[1]!;
    if (open.index < from || unclosed.has(quote)) {
      continue;
    }
    const bodyStart = open.index + open[0].length;
    const closing = command.indexOf(`\n${quote}@`, bodyStart);
    if (closing === -1) {
      unclosed.add(quote);
      continue;
    }
    const bodyEnd = closing > 0 && command[closing - 1] === '\r' ? closing - 1 : closing;
    const end = closing + 3;
    // One piped to Python is its script (`@' … '@ | python -`): a heredoc to it, as in bash.
    hereStringToPython.lastIndex = end;
    const py = hereStringToPython.exec(command);
    out += command.slice(from, open.index);
    if (py) {
      out += `${py[1]!} - <<'AGENT_GUARD_PS'\n${command.slice(bodyStart, bodyEnd)}\nAGENT_GUARD_PS`;
      from = end + py[0].length;
    } else {
      out += 'here-string';
      from = end;
    }
    hereStringOpen.lastIndex = from;
  }
  return out + command.slice(from);
}

const hereStringOpen = /@(['"])\r?\n/g;

/**
 * .NET's file writers called from PowerShell, `[System.IO.File]::WriteAllText($f, $text)` (and
 * `WriteAllLines`, `WriteAllBytes`, `AppendAllText`, `AppendAllLines`; `[IO.File]` too), read as
 * the cmdlet that writes the file its first argument names: `Set-Content -LiteralPath $f`. The
 * rest of the call (what it writes) is dropped. Claude Code 2.1.138 on Windows "touched" a page
 * template so a watcher would rebuild it: `$content = [System.IO.File]::ReadAllText($f)` then
 * `[System.IO.File]::WriteAllText($f, $content + " ")`, a space added at its end, and its next
 * `Edit` recorded that change (thirty-fifth set). A call whose parentheses do not close is left.
 */
function withDotNetWrites(command: string): string {
  if (!/::(?:Write|Append)All/i.test(command)) {
    return command;
  }
  let out = '';
  let from = 0;
  dotNetWrite.lastIndex = 0;
  for (let m = dotNetWrite.exec(command); m !== null; m = dotNetWrite.exec(command)) {
    const call = psCallArguments(command, m.index + m[0].length);
    if (!call) {
      // Its scan reached the end of the command: one for each unclosed call after it would make
      // hostile input (thousands of them) quadratic. What follows is read as written.
      break;
    }
    // (A call is read once: the writes inside its arguments are not scanned again.)
    dotNetWrite.lastIndex = call.end;
    if (call.first.trim() === '') {
      continue;
    }
    out += `${command.slice(from, m.index)}Set-Content -LiteralPath ${call.first.trim()}`;
    from = call.end;
  }
  return out + command.slice(from);
}

const dotNetWrite = /\[(?:System\.)?IO\.File\]::(?:WriteAllText|WriteAllLines|WriteAllBytes|AppendAllText|AppendAllLines)\s*\(/gi;

/**
 * The first argument of a PowerShell method call whose `(` is just before `start`, and where the
 * call ends (after its `)`): quotes ('…' with '' inside, "…" with a backtick escape) and nested
 * parentheses are skipped over. Undefined when the call does not close.
 */
function psCallArguments(text: string, start: number): { first: string; end: number } | undefined {
  let depth = 0;
  let firstEnd = -1;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'") {
      i = text.indexOf("'", i + 1);
      while (i !== -1 && text[i + 1] === "'") {
        i = text.indexOf("'", i + 2);
      }
      if (i === -1) {
        return undefined;
      }
    } else if (c === '"') {
      i++;
      while (i < text.length && text[i] !== '"') {
        i += text[i] === '`' ? 2 : 1;
      }
      if (i >= text.length) {
        return undefined;
      }
    } else if (c === '(') {
      depth++;
    } else if (c === ')') {
      if (depth === 0) {
        return { first: text.slice(start, firstEnd === -1 ? i : firstEnd), end: i + 1 };
      }
      depth--;
    } else if (c === ',' && depth === 0 && firstEnd === -1) {
      firstEnd = i;
    }
  }
  return undefined;
}
const hereStringToPython = /[ \t]*\|[ \t]*((?:python[0-9.]*|py)(?:\.exe)?)[ \t]+-(?=[\s;]|$)/iy;

/**
 * The directory after a `cd` whose target is computed (`cd "$proj"` after `proj=$(mktemp -d)`),
 * `cd -` or `cd ~`: unknown. Paths relative to it are dropped, not resolved against the folder
 * the command started in (a file of that name there is another file).
 */
const lostDir = '\u0000lost';

const assignment = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** `a=1 b=2`: a command that only sets variables (`a=1 cmd` sets them for `cmd` alone). */
function isAssignments(words: readonly Word[]): boolean {
  for (const w of words) {
    if (!assignment.test(w.text)) {
      return false;
    }
  }
  return true;
}

/**
 * A PowerShell assignment, `$name = value` or `$name=value` (one word): the name and the words of
 * the value (an array `@('a','b')` reads as the comma list `a,b`).
 */
function psAssignment(words: readonly Word[]): { name: string; value: Word[] } | undefined {
  const m = words[0] ? /^\$([A-Za-z_]\w*)(?:=([^]*))?$/.exec(words[0].text) : null;
  if (!m) {
    return undefined;
  }
  let value: Word[];
  if (m[2] !== undefined) {
    value = m[2] === '' ? words.slice(1) : [{ kind: 'word', text: m[2], dynamic: computed.test(m[2]) }, ...words.slice(1)];
  } else if (words[1]?.text === '=' && !words[1].dynamic) {
    value = words.slice(2);
  } else {
    return undefined;
  }
  return { name: m[1]!, value };
}

/**
 * The value of a PowerShell assignment when it is a literal: a string, or a list (`'a', 'b'`).
 * A bare cmdlet name runs the cmdlet (`$d = Get-Date`); the tokens no longer say what was
 * quoted, so a Verb-Noun word is taken for one.
 */
function psLiteral(value: readonly Word[]): string | undefined {
  if (value.length === 0 || value.some((w) => w.dynamic) || value.slice(0, -1).some((w) => !w.text.endsWith(','))) {
    return undefined;
  }
  const text = value.map((w) => w.text).join('');
  return /^[A-Za-z]+-[A-Za-z]+$/.test(text) ? undefined : text;
}

/** `{` minus `}` in a word (a `${name}` or a format string `'{0}'` counts none). */
function braceDepth(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x7b) {
      depth++;
    } else if (c === 0x7d) {
      depth--;
    }
  }
  return depth;
}

/**
 * PowerShell's `foreach ($name in LIST) { BODY }` once its `{` is reached (`tokens[at]`, with
 * `list` the literal LIST): when the block closes, the tokens of every pass
 * (`$name = 'item'; BODY;`) and the index of the token that closes the block. Each pass takes one
 * item, so `src\$name.lua` and a nested loop name each file, not a mix of them.
 */
function foreachPasses(tokens: readonly Token[], at: number, name: string, list: string | undefined, work: Work): { tokens: Token[]; end: number } | 'over budget' | undefined {
  if (list === undefined) {
    return undefined;
  }
  let depth = 0;
  let end = -1;
  // The search for the block's end counts against the budget too: a line of blocks left open
  // was searched to its end once per loop.
  const stop = Math.min(tokens.length, at + work.loopTokens + 1);
  for (let j = at; j < stop; j++) {
    const t = tokens[j]!;
    if (t.kind === 'word') {
      depth += braceDepth(t.text);
      if (depth <= 0) {
        end = j;
        break;
      }
    }
  }
  if (end === -1) {
    work.loopTokens -= stop - at;
    return stop < tokens.length ? 'over budget' : undefined;
  }
  work.loopTokens -= end - at;
  const body: Token[] = tokens.slice(at, end + 1);
  const first = body[0] as Word;
  body[0] = { ...first, text: first.text.slice(1) };
  const last = body[body.length - 1] as Word;
  body[body.length - 1] = { ...last, text: last.text.slice(0, -1) };
  const inner = body.filter((t) => t.kind !== 'word' || t.text !== '');
  const items = list.split(',');
  const size = items.length * (inner.length + 5);
  if (size > work.loopTokens) {
    return 'over budget';
  }
  work.loopTokens -= size;
  const out: Token[] = [];
  for (const item of items) {
    out.push({ kind: 'word', text: '$' + name, dynamic: true }, { kind: 'word', text: '=', dynamic: false }, { kind: 'word', text: item, dynamic: false }, { kind: 'op', text: ';' });
    out.push(...inner, { kind: 'op', text: ';' });
  }
  return { tokens: out, end };
}

/** PowerShell's listing cmdlet and its aliases, and ForEach-Object's. */
const psListers = new Set(['get-childitem', 'gci', 'dir', 'ls']);
const psForEach = new Set(['foreach-object', '%', 'foreach']);
/** The readers of a file whose path a ForEach-Object block gives them (see psEachBody). */
const psItemReaders = new Set(['get-content', 'gc', 'cat', 'type']);
/** What a -Filter or -Include name may hold: no separator, drive, quote, variable or escape. */
const psNamePattern = /^[^\\/:$`{}~,<>|"]+$/;

/**
 * The files `Get-ChildItem` pipes on, where the command says which for certain: in a folder
 * (-LiteralPath, -Path or the first argument; the current one when none), those a name pattern
 * takes (-Filter, or the second argument; -Include with -Recurse, a list of them; `*` when none),
 * with -Recurse in the whole tree below. Anything else it may take (-Exclude, -Depth, -Name,
 * -Directory, a wildcard in the folder, a value computed) leaves them unknown.
 */
function psListing(words: readonly Word[]): PsItems[] | undefined {
  if (words[0]?.dynamic !== false || !psListers.has(words[0].text.toLowerCase())) {
    return undefined;
  }
  let dir: Word | undefined;
  let literal = true;
  let filter: string | undefined;
  let include: string[] | undefined;
  let recurse = false;
  const positional: Word[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    const flag = w.text.toLowerCase();
    const value = words[i + 1];
    if (w.dynamic || !flag.startsWith('-') || flag.length === 1) {
      positional.push(w);
    } else if (flag === '-recurse') {
      recurse = true;
    } else if (flag === '-file' || flag === '-force') {
      continue;
    } else if ((flag === '-erroraction' || flag === '-ea') && value) {
      i++;
    } else if ((flag === '-literalpath' || flag === '-lp' || flag === '-path') && value && dir === undefined) {
      dir = value;
      literal = flag !== '-path';
      i++;
    } else if (flag === '-filter' && value && filter === undefined) {
      filter = value.text;
      i++;
    } else if (flag === '-include' && value && include === undefined) {
      // `-Include '*.lua', '*.md'`: one word, or one an item.
      let list = value.text;
      for (i++; list.endsWith(',') && words[i + 1]; i++) {
        list += words[i + 1]!.text;
      }
      include = list.split(',').map((x) => x.trim());
    } else {
      return undefined;
    }
  }
  // By position: the folder, then the filter, those not named.
  for (const w of positional) {
    if (dir === undefined) {
      dir = w;
      literal = false;
    } else if (filter === undefined) {
      filter = w.text;
    } else {
      return undefined;
    }
  }
  // A -LiteralPath takes `[` as itself (the POSIX reading calls the word computed for it);
  // elsewhere a wildcard, which lists some other folder. `*` and `?` are in no Windows name.
  const text = dir?.text ?? '.';
  if (text === '' || text.includes(',') || /[$`*?]/.test(text) || (!literal && (dir!.dynamic || /[[\]]/.test(text)))) {
    return undefined;
  }
  // Without -Recurse, -Include keeps nothing of a folder's listing (only of a `DIR\*` one).
  const names = include ?? (filter !== undefined ? [filter] : ['*']);
  if ((include !== undefined && (filter !== undefined || !recurse)) || !names.every((n) => psNamePattern.test(n) && (include === undefined || !/[[\]]/.test(n)))) {
    return undefined;
  }
  // (A -Filter takes `[` as itself, as the Windows pattern does; -Include as a wildcard, so none is taken there.)
  return names.map((name) => ({ dir: text, name, recurse, literal }));
}

/**
 * The block of `… | ForEach-Object { BODY }` (its `{` at `tokens[at]`), run once for each file a
 * listing piped on (`items`): where a statement of the block itself reads `$_.FullName` (or
 * `$PSItem.FullName`) with Get-Content or `cat`, that word becomes the listing's files (see
 * Word.items). Only where each pass surely reads its file: not in a block that may leave a pass
 * early (`return`, `continue`, `break`, `exit`, `throw`) or changes `$_`, not in an inner block or
 * parentheses (an `if`, `-and`), not after `|`, `&&` or `||`, and not when the ForEach-Object
 * pipes on (a `Select-Object -First` after it stops the listing early). A bare `$_` is the file's
 * name in Windows PowerShell: the same file only when listed from the current folder, not below.
 * The search for the block's end counts against the budget loops have (see foreachPasses).
 */
function psEachBody(tokens: Token[], at: number, items: readonly PsItems[], work: Work): void {
  const stop = Math.min(tokens.length, at + work.loopTokens + 1);
  const uses: number[] = [];
  let braces = 0;
  let parens = 0;
  let end = -1;
  /** At a statement's start in the block itself; the reader that statement runs, if any. */
  let start = false;
  let reader = false;
  for (let j = at; j < stop && end === -1; j++) {
    const t = tokens[j]!;
    if (t.kind === 'op') {
      parens += t.text === '(' ? 1 : t.text === ')' ? -1 : 0;
      if (braces === 1 && parens === 0 && (t.text === ';' || t.text === '\n')) {
        start = true;
        reader = false;
      } else if (t.text === '|' || t.text === '&&' || t.text === '||' || t.text === '&') {
        start = false;
        reader = false;
      }
      continue;
    }
    if (t.kind !== 'word') {
      continue;
    }
    const lead = /^\{*/.exec(t.text)![0].length;
    const trail = lead === t.text.length ? 0 : /\}*$/.exec(t.text)![0].length;
    const core = t.text.slice(lead, t.text.length - trail);
    braces += lead;
    const top = braces === 1 && parens === 0 && core !== '';
    braces += braceDepth(core) - trail;
    if (braces <= 0) {
      end = j;
    }
    if (j === at) {
      start = true;
    }
    const lower = core.toLowerCase();
    const following = tokens[j + 1];
    const setsItem = /^\$(?:_|psitem)(?:[-+*/%]?=|$)/.test(lower) && (lower.includes('=') || (following?.kind === 'word' && /^[-+*/%]?=/.test(following.text)));
    if (leavesPass.has(lower) || setsItem) {
      return void (work.loopTokens -= j - at);
    }
    if (!top) {
      continue;
    }
    if (start) {
      // The statement's command, after an assignment of what it prints (`$text = Get-Content …`).
      const assigned = /^\$[A-Za-z_]\w*=(.*)$/.exec(core);
      if (core === '=' || /^\$[A-Za-z_]\w*$/.test(core) || assigned?.[1] === '') {
        continue;
      }
      reader = psItemReaders.has((assigned ? assigned[1]! : core).toLowerCase());
      start = false;
    } else if (reader && !t.quoted && (lower === '$_.fullname' || lower === '$psitem.fullname' || ((lower === '$_' || lower === '$psitem') && items.every((x) => !x.recurse && x.dir === '.')))) {
      uses.push(j);
    }
  }
  work.loopTokens -= (end === -1 ? stop : end) - at;
  const next = tokens[end + 1];
  // (Each use reads every pattern of the listing: what they add counts as a loop's passes do.)
  const reads = uses.length * items.length;
  // (A second block after the first makes the first ForEach-Object's -Begin, run once before any file.)
  if (end === -1 || (next?.kind === 'op' && next.text === '|') || (next?.kind === 'word' && next.text.startsWith('{')) || reads > work.loopTokens) {
    return;
  }
  work.loopTokens -= reads;
  for (const j of uses) {
    tokens[j] = { ...(tokens[j] as Word), items };
  }
}

/** Statements that may end a pass of a ForEach-Object block before its later statements (see psEachBody). */
const leavesPass = new Set(['return', 'continue', 'break', 'exit', 'throw']);

/**
 * The path a PowerShell assignment's value computes from literal parts: `Join-Path A B`
 * (`-Path`, `-ChildPath`, more children), `Resolve-Path`/`Convert-Path [-Path|-LiteralPath] A`.
 * Resolve-Path gives an object whose `.Path` is the path (`pathInfo`). The path stays relative
 * where A is: it names the same file from the command's folder.
 */
function psPathValue(value: readonly Word[]): { text: string; pathInfo: boolean } | undefined {
  const cmd = value[0]?.dynamic === false ? value[0].text.toLowerCase() : undefined;
  if (cmd !== 'join-path' && cmd !== 'resolve-path' && cmd !== 'convert-path') {
    return undefined;
  }
  const parts: string[] = [];
  let child: string | undefined;
  for (let i = 1; i < value.length; i++) {
    const w = psHomePart(value[i]!);
    const flag = w.text.toLowerCase();
    if (w.dynamic) {
      return undefined;
    }
    if (flag === '-resolve' || flag === '-relative') {
      if (flag === '-relative') {
        return undefined;
      }
      continue;
    }
    if (flag === '-path' || flag === '-literalpath' || flag === '-childpath' || flag === '-additionalchildpath') {
      const next = value[++i];
      const v = next && psHomePart(next);
      if (!v || v.dynamic) {
        return undefined;
      }
      if (flag === '-childpath') {
        child = v.text;
      } else if (flag === '-additionalchildpath') {
        parts.push(v.text);
      } else {
        parts.unshift(v.text);
      }
      continue;
    }
    if (flag.startsWith('-')) {
      return undefined;
    }
    parts.push(w.text);
  }
  if (child !== undefined) {
    parts.splice(1, 0, child);
  }
  if (parts.length === 0 || (cmd === 'join-path' ? parts.length < 2 : parts.length !== 1)) {
    return undefined;
  }
  if (cmd !== 'join-path') {
    return { text: parts[0]!, pathInfo: cmd === 'resolve-path' };
  }
  // Join-Path joins each path of a list (`-Path a,b`) with the child.
  const [parents, ...children] = parts;
  const joined = parents!.split(',').map((parent) => children.reduce(joinPsPath, parent));
  return { text: joined.join(','), pathInfo: false };
}

/** A home variable that is a whole part of Join-Path (`Join-Path $env:APPDATA 'Code\\User'`): the folder it is read as (see homeVariable). */
function psHomePart(w: Word): Word {
  const m = w.dynamic ? /^\$(?:\{env:(USERPROFILE|HOME|APPDATA|LOCALAPPDATA)\}|env:(USERPROFILE|HOME|APPDATA|LOCALAPPDATA)|HOME)$/i.exec(w.text) : null;
  return m ? { kind: 'word', text: homeFolder(m[1] ?? m[2]), dynamic: false } : w;
}

/** `a` and `b` with one separator between: `\`, or `/` where `a` uses only that one. */
function joinPsPath(a: string, b: string): string {
  const sep = a.includes('/') && !a.includes('\\') ? '/' : '\\';
  const head = a.replace(/[\\/]+$/, '');
  const tail = b.replace(/^[\\/]+/, '');
  // (`Join-Path \\ x` keeps the root.)
  return head === '' ? a.slice(0, 1) + tail : `${head}${sep}${tail}`;
}

/** A word with the script's literal variables put in (still computed if anything else is). */
function withVariables(w: Word, vars: ReadonlyMap<string, string | undefined>, patterns: ReadonlySet<string>, work: Work): Word {
  let out = w;
  for (const [name, value] of vars) {
    if (value !== undefined && out.dynamic && (out.text.includes('$' + name) || out.text.includes('${' + name + '}'))) {
      out = patterns.has(name) ? substitutePattern(out, name, value, work) : substitute(out, name, value, work);
    }
  }
  return out;
}

/**
 * The variables a command line's assignments are remembered for: each word with a `$` is matched
 * against every one of them, so their number multiplies the work per word. Scripts set a few;
 * a variable past these is not known (its uses name nothing).
 */
const maxVariables = 256;

/**
 * The characters putting variables in (and loops' values, see expandForLoops) may add to the
 * words of a command line. A value put in for each of many `$v` in a word multiplies: a line of
 * a thousand characters could make words of a million. Past it a word stays computed, naming nothing.
 */
const maxSubstitutedChars = 1_000_000;

/**
 * `substitute` for a variable whose value is a pathname pattern: the word is that pattern when
 * the rest of it is literal (the characters a pattern treats specially escaped), else as computed
 * as before.
 */
function substitutePattern(w: Word, name: string, pattern: string, work: Work): Word {
  const marker = '\uE002';
  const marked = substitute(w, name, marker, work);
  if (marked === w || /[$`*?[{~]/.test(marked.text)) {
    return w;
  }
  const parts = marked.text.replace(/[*?[\]\\]/g, '\\$&').split(marker);
  const added = (parts.length - 1) * pattern.length;
  if (added > work.substituted) {
    return w;
  }
  work.substituted -= added;
  const text = parts.join(pattern);
  return { kind: 'word', text, dynamic: true, glob: text };
}

const loopVariable = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Characters that make a word computed (after a loop variable is put in). */
const computed = /[$`*?[{~]/;

/**
 * The tokens loops may add to a script as they are run pass by pass (`expandForLoops`,
 * `foreachPasses`). Nested loops multiply: five of thirty items are 24 million passes, and one
 * line of a transcript must not hold up the whole check (or the editor) for that.
 */
const maxLoopTokens = 20_000;

/**
 * `for f in a b c; do …; done` over literal words: the body once per word, with `$f` put in,
 * as the shell runs it. Agents read a handful of files this way. A word that is a pathname
 * pattern (`src/*.json`) is put in as that pattern, where the body uses the variable alone
 * (`cat "$f"`): the body read every file it matched. A loop over anything else computed (a
 * variable, a command's output) stays as it is: its words are not guessed.
 */
function expandForLoops(tokens: Token[], work: Work): Token[] {
  if (!tokens.some((t) => t.kind === 'word' && t.text === 'for')) {
    return tokens;
  }
  return expandForLoopsIn(tokens, 0, tokens.length, matchingDones(tokens), work, 0);
}

/**
 * Loops nested deeper than this stay as written (their variables name nothing): agents nest two
 * or three, and each level is a frame of the reader's stack.
 */
const maxLoopDepth = 32;

/** `expandForLoops` over `tokens[from, to)`, a loop body at nesting `depth` (`dones`: see matchingDones). */
function expandForLoopsIn(tokens: readonly Token[], from: number, to: number, dones: ReadonlyMap<number, number>, work: Work, depth: number): Token[] {
  const out: Token[] = [];
  for (let i = from; i < to; i++) {
    const t = tokens[i]!;
    const prev = out[out.length - 1];
    const atStart = prev === undefined || (prev.kind === 'op' && separators.has(prev.text));
    const loop = t.kind === 'word' && t.text === 'for' && !t.dynamic && atStart && depth < maxLoopDepth ? readFor(tokens, i, to, dones) : undefined;
    if (!loop) {
      out.push(t);
      continue;
    }
    const body = expandForLoopsIn(tokens, loop.bodyStart, loop.end, dones, work, depth + 1);
    if (loop.values.length * (body.length + 1) > work.loopTokens) {
      // Past the budget the loop stays as written: its variable names nothing.
      for (let j = i; j <= loop.end; j++) {
        out.push(tokens[j]!);
      }
      i = loop.end;
      continue;
    }
    work.loopTokens -= loop.values.length * (body.length + 1);
    for (const value of loop.values) {
      for (const b of body) {
        out.push(b.kind !== 'word' ? b : isVariable(b, loop.name) ? value : substitute(b, loop.name, value.text, work));
      }
      out.push({ kind: 'op', text: ';' });
    }
    i = loop.end;
  }
  return out;
}

/**
 * The `done` that closes each `do` (by index), found in one pass: reading each loop's body up to
 * its own `done` made a line of unclosed or nested loops quadratic work.
 */
function matchingDones(tokens: readonly Token[]): Map<number, number> {
  const dones = new Map<number, number>();
  const open: number[] = [];
  for (let j = 0; j < tokens.length; j++) {
    const t = tokens[j]!;
    if (t.kind === 'word' && !t.dynamic) {
      if (t.text === 'do') {
        open.push(j);
      } else if (t.text === 'done' && open.length > 0) {
        dones.set(open.pop()!, j);
      }
    }
  }
  return dones;
}

function readFor(tokens: readonly Token[], at: number, to: number, dones: ReadonlyMap<number, number>): { name: string; values: Word[]; bodyStart: number; end: number } | undefined {
  const name = tokens[at + 1];
  const inWord = tokens[at + 2];
  if (at + 2 >= to || name?.kind !== 'word' || name.dynamic || !loopVariable.test(name.text) || inWord?.kind !== 'word' || inWord.text !== 'in') {
    return undefined;
  }
  const values: Word[] = [];
  let i = at + 3;
  for (; i < to; i++) {
    const t = tokens[i]!;
    if (t.kind === 'op' && (t.text === ';' || t.text === '\n')) {
      break;
    }
    if (t.kind !== 'word') {
      return undefined;
    }
    // A value the shell computes (`$(ls)`, `$dir/x`) is not known; the others still run. A
    // listing of a folder's files (`$(rg --files src | sort)`, `$(find src -name '*.ts')`) is
    // each level of it, as pathname patterns.
    if (!t.dynamic || t.glob !== undefined) {
      values.push(t);
    } else {
      for (const pattern of listedFiles(t.text) ?? []) {
        values.push({ kind: 'word', text: pattern, dynamic: true, glob: pattern });
      }
    }
  }
  const doWord = tokens[i + 1];
  if (i + 1 >= to || doWord?.kind !== 'word' || doWord.text !== 'do' || doWord.dynamic) {
    return undefined;
  }
  // The body, up to the `done` that closes this loop (nested loops open and close their own).
  const end = dones.get(i + 1);
  return end === undefined || end >= to ? undefined : { name: name.text, values, bodyStart: i + 2, end };
}

/**
 * A body word that is the loop variable and nothing else (`"$f"`, `${f}`): the value word itself.
 * A value that is a pattern stands for the files it matched, each as they are (not matched again).
 */
function isVariable(w: Word, name: string): boolean {
  return w.dynamic && (w.text === '$' + name || w.text === '${' + name + '}');
}

/** A body word with the loop variable put in (`$f`, `${f}`, `dir/$f.md`). */
function substitute(w: Word, name: string, value: string, work: Work): Word {
  if (!w.dynamic || !w.text.includes('$')) {
    return w;
  }
  // (Counted before each text is built: the text is what must not grow past the limit.)
  const braced = w.text.split('${' + name + '}');
  if ((braced.length - 1) * value.length > work.substituted) {
    return w;
  }
  work.substituted -= (braced.length - 1) * value.length;
  const joined = braced.join(value);
  const plain = new RegExp('\\$' + name + '(?![A-Za-z0-9_])', 'g');
  const uses = joined.match(plain)?.length ?? 0;
  if (uses * value.length > work.substituted) {
    return w;
  }
  work.substituted -= uses * value.length;
  const text = joined.replace(plain, () => value);
  return text === w.text ? w : { kind: 'word', text, dynamic: computed.test(text) };
}

/** Sets the directory `a` is relative to (every caller passes a fresh object). */
function withCwd(a: ShellAccess, cwd: string | undefined): ShellAccess {
  if (cwd !== undefined) {
    a.cwd = cwd;
  }
  return a;
}

function isRealFile(p: string): boolean {
  return p !== '' && !p.startsWith('/dev/') && !p.startsWith('&') && p !== '-';
}

/**
 * `nul`, Windows' null device, as a redirection's target (`2>nul`, `> NUL`): output thrown away.
 * PowerShell and cmd write nothing; Git Bash, where Claude Code runs its Bash tool on Windows,
 * makes a stray file of that name, which holds nothing anyone reads. Either way no file's
 * content is at stake (twenty-eighth set: two `find … 2>nul` of one batch were taken for two
 * writes of one file).
 */
function isNulDevice(p: string): boolean {
  return /^nul:?$/i.test(p);
}

/** Deepest folder level a `find` is followed to, as pathname patterns (one per level). */
const maxFindDepth = 4;

/**
 * Runs of a command on the files a find listed (one per pattern: folder and level), in all of a
 * command line. Each run reads the command again, and a `find … -exec find … -exec …` runs the
 * inner find on each pattern of the outer one: four times the work per level, so a line of a few
 * hundred characters was millions of runs, and a long command run on each of many folders
 * multiplied its length by theirs. Sixteen folders at the four levels fit, with commands of a
 * thousand characters.
 */
const maxFoundRuns = 64;
const maxFoundText = 65_536;

/**
 * The files a command substitution lists, as pathname patterns: `$(rg --files DIR…)`,
 * `$(git ls-files DIR…)` or `$(find …)` (see findPatterns), optionally piped through `sort`.
 * Undefined for anything else, or options that filter the list.
 */
function listedFiles(word: string): string[] | undefined {
  // (The tokenizer keeps a substitution without its closing parenthesis.)
  const m = /^\$\(([^()]*)\)?$/.exec(word);
  if (!m) {
    return undefined;
  }
  const inner = m[1]!.replace(/\s*\|\s*sort(?:\s+-u)?\s*$/, '');
  if (/[|;&`$<>]/.test(inner)) {
    return undefined;
  }
  let words: Word[];
  try {
    words = tokenize(inner).filter((t): t is Word => t.kind === 'word');
  } catch {
    // An unterminated quote: no file list to read from it.
    return undefined;
  }
  const [cmd, ...args] = words;
  if (cmd?.text === 'find') {
    return findPatterns(args);
  }
  const sub = cmd?.text === 'rg' && args[0]?.text === '--files' ? args.slice(1) : cmd?.text === 'git' && args[0]?.text === 'ls-files' ? args.slice(1) : undefined;
  if (!sub || sub.some((a) => a.dynamic || a.text.startsWith('-'))) {
    return undefined;
  }
  const patterns: string[] = [];
  for (const root of sub.length > 0 ? sub.map((a) => a.text.replace(/\/+$/, '')) : ['.']) {
    for (let d = 1; d <= maxFindDepth; d++) {
      const below = '*/'.repeat(d - 1) + '*';
      patterns.push(root === '.' ? below : `${root}/${below}`);
    }
  }
  return patterns;
}

/**
 * The files a `find DIR… [-maxdepth N] [-type f] [-name PAT]` lists, as pathname patterns, one
 * per folder level below each DIR (to -maxdepth, at most 4). Undefined when other tests filter
 * the list (`-path`, `-newer`, `!`, …) or a DIR or PAT is computed.
 */
function findPatterns(args: Word[]): string[] | undefined {
  const first = args.findIndex((a) => /^[-(!]/.test(a.text));
  const rootWords = first === -1 ? args : args.slice(0, first);
  if (rootWords.some((a) => a.dynamic)) {
    return undefined;
  }
  const expr = first === -1 ? [] : args.slice(first);
  let name = '*';
  let depth = maxFindDepth;
  for (let i = 0; i < expr.length; i++) {
    const a = expr[i]!.text;
    const value = expr[i + 1];
    if (a === '-name' && value && !value.dynamic && !value.text.includes('/')) {
      name = value.text;
      i++;
    } else if (a === '-maxdepth' && value && /^\d+$/.test(value.text)) {
      depth = Math.min(Number(value.text), maxFindDepth);
      i++;
    } else if (a === '-type' && value?.text === 'f') {
      i++;
    } else if (a === '-exec' || a === '-execdir' || a === '-print' || a === '-print0') {
      break;
    } else {
      return undefined;
    }
  }
  const patterns: string[] = [];
  for (const root of rootWords.length > 0 ? rootWords.map((a) => a.text) : ['.']) {
    for (let d = 1; d <= depth; d++) {
      const below = '*/'.repeat(d - 1) + name;
      patterns.push(root === '.' ? below : `${root.replace(/\/+$/, '')}/${below}`);
    }
  }
  return patterns;
}

/**
 * `command` run on each file of `patterns` (the files a `find` listed), the file put where
 * `placeholder` is (`{}`), or last when there is none: a reader there reads each of them,
 * also inside `sh -c 'SCRIPT' _ {}`, where the file is the script's `$1`.
 */
function runOnFound(command: Word[], patterns: readonly string[], placeholder: string | undefined, cwd: string | undefined, out: ShellAccess[], work: Work): void {
  if (command.length === 0) {
    return;
  }
  const shell = ['sh', 'bash', 'zsh'].includes(command[0]!.text) ? command.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a.text)) : -1;
  for (const pattern of patterns) {
    // Each run reads the command again: it costs the command's length (see maxFoundRuns).
    const cost = command.reduce((n, w) => n + w.text.length + 1, 0);
    if (work.foundRuns === 0 || cost > work.foundText) {
      // The rest of the files are not followed into the command.
      return;
    }
    work.foundRuns--;
    work.foundText -= cost;
    const wildcard = /[*?[]/.test(pattern);
    const file: Word = wildcard ? { kind: 'word', text: pattern, dynamic: true, glob: pattern } : { kind: 'word', text: pattern, dynamic: false };
    if (shell > 0) {
      const script = command[shell + 1];
      if (script && !script.dynamic) {
        // The file is the script's `$1` (`sh -c '…' _ {}`), or xargs puts it where its
        // replacement string is (`xargs -I{} sh -c 'sed -n 1,200p "{}"'`).
        let text = script.text.replace(/"\$(?:1|\{1\}|@)"|\$(?:1|\{1\}|@)\b/g, () => pattern);
        if (placeholder !== undefined && placeholder !== '') {
          text = text.split(`"${placeholder}"`).join(pattern).split(placeholder).join(pattern);
        }
        for (const a of classify(text, cwd, work)) {
          out.push(a);
        }
      }
    } else if (placeholder !== undefined) {
      interpret(command.map((w) => (w.text === placeholder ? file : w)), [], cwd, out, work);
    } else {
      interpret([...command, file], [], cwd, out, work);
    }
  }
}

/** `find … -exec CMD … {} ;`: CMD runs on every file found. */
function findExec(args: Word[], cwd: string | undefined, out: ShellAccess[], work: Work): void {
  const exec = args.findIndex((a) => a.text === '-exec');
  const patterns = exec === -1 ? undefined : findPatterns(args);
  if (!patterns) {
    return;
  }
  let end = args.findIndex((a, i) => i > exec && (a.text === ';' || a.text === '+'));
  if (end === -1) {
    end = args.length;
  }
  runOnFound(args.slice(exec + 1, end), patterns, '{}', cwd, out, work);
}

/** `find … | [sort |] xargs [-I R] CMD …`: CMD runs on the files the find listed. */
function xargsOnFound(args: Word[], patterns: readonly string[], cwd: string | undefined, out: ShellAccess[], work: Work): void {
  const { command, placeholder } = xargsCommand(args);
  runOnFound(command, patterns, placeholder, cwd, out, work);
}

/** The command an `xargs` runs (after its options), and its replacement string (`-I R`). */
function xargsCommand(args: Word[]): { command: Word[]; placeholder: string | undefined } {
  let placeholder: string | undefined;
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!.text;
    if (a === '-I' && args[i + 1]) {
      placeholder = args[++i]!.text;
    } else if (a.startsWith('-I') && a.length > 2) {
      placeholder = a.slice(2);
    } else if (['-n', '-P', '-L', '-d', '-s', '-E'].includes(a)) {
      i++;
    } else if (!a.startsWith('-')) {
      break;
    }
  }
  return { command: args.slice(i), placeholder };
}

/**
 * `grep -l` / `rg -l` (or `-L`, files without a match): it prints some of the files it was
 * given, so `find … | xargs grep -l PAT | xargs cat` reads some of the files the find listed.
 */
function listsMatchingFiles(command: Word[]): boolean {
  const cmd = command[0];
  if (!cmd || cmd.dynamic || !['grep', 'egrep', 'fgrep', 'rg'].includes(cmd.text)) {
    return false;
  }
  // (rg's -L follows links; its -l and grep's -l/-L list files.)
  const short = cmd.text === 'rg' ? /^-[A-Za-z]*l/ : /^-[A-Za-z]*[lL]/;
  return command.slice(1).some((w) => !w.dynamic && (short.test(w.text) || /^--files-with(?:out)?-match(?:es)?$/.test(w.text)));
}

/** Interprets one simple command; returns a new directory when it is a `cd`. */
function interpret(words: Word[], heredocs: string[], cwd: string | undefined, out: ShellAccess[], work: Work): string | undefined {
  // Skip leading environment assignments (FOO=bar cmd) and harmless wrappers.
  let i = 0;
  while (i < words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!.text)) {
    i++;
  }
  // (`rtk` runs the command and trims its output for the model; `cmd /c` in a PowerShell
  // command line runs the rest in cmd.exe.)
  for (;;) {
    const w = words[i]?.text;
    if (w !== undefined && ['sudo', 'command', 'exec', 'time', 'nice', 'rtk'].includes(w)) {
      i++;
    } else if (w !== undefined && /^cmd(\.exe)?$/i.test(w) && /^\/[ck]$/i.test(words[i + 1]?.text ?? '')) {
      i += 2;
    } else {
      break;
    }
  }
  const cmdWord = words[i];
  if (!cmdWord || cmdWord.dynamic) {
    return undefined;
  }
  // The name after the last slash (a split built an array for each command).
  const cmd = cmdWord.text.slice(cmdWord.text.lastIndexOf('/') + 1);
  const args = words.slice(i + 1);
  const push = (a: ShellAccess): void => {
    out.push(withCwd(a, cwd));
  };
  const literal = (w: Word): boolean => !w.dynamic && isRealFile(w.text);
  /** A read of `w`: of the file it names, or of every file its pattern matched. */
  const read = (w: Word, lines?: { start: number; count: number }): void => {
    if (literal(w)) {
      push(lines ? { path: w.text, op: 'read', lines } : { path: w.text, op: 'read' });
    } else if (w.glob !== undefined) {
      push(lines ? { path: w.glob, op: 'read', lines, glob: true } : { path: w.glob, op: 'read', glob: true });
    } else if (w.items) {
      readItems(w.items, false, lines);
    }
  };
  /** A read of each file a PowerShell listing passed on (see psEachBody), named to the reader as written or through -Path. */
  const readItems = (items: readonly PsItems[], asWritten: boolean, lines?: { start: number; count: number }): void => {
    for (const x of items) {
      const inFolder = { name: x.name, recurse: x.recurse, literal: x.literal && asWritten };
      push(lines ? { path: x.dir, op: 'read', lines, glob: true, inFolder } : { path: x.dir, op: 'read', glob: true, inFolder });
    }
  };

  const lower = cmd.toLowerCase();
  if (lower === 'move-item' || lower === 'copy-item') {
    // PowerShell's mv and cp: `Move-Item [-Path] SRC [-Destination] DEST`.
    const moved = psMove(args);
    if (moved) {
      const as = lower === 'move-item' ? 'mv' : 'cp';
      return interpret([{ kind: 'word', text: as, dynamic: false }, moved.from, moved.to], heredocs, cwd, out, work);
    }
    return undefined;
  }
  if (psReaders.has(lower) || psWriters.has(lower) || (psAliasReaders.has(lower) && cwd !== undefined && isWindowsPath(cwd))) {
    const write = psWriters.has(lower);
    const lines = write ? undefined : psHead(args);
    for (const p of psPaths(args)) {
      push(write ? { path: p, op: 'write' } : lines ? { path: p, op: 'read', lines } : { path: p, op: 'read' });
    }
    for (const { word, literal: asWritten } of write ? [] : psPathWords(args)) {
      if (word.items) {
        readItems(word.items, asWritten, lines);
      }
    }
    return undefined;
  }
  if (lower === 'select-string' || (lower === 'sls' && cwd !== undefined && isWindowsPath(cwd))) {
    // PowerShell's grep (the pattern comes first unless named): of one file, a look at it, as
    // `grep PAT file` is; of several, or through a wildcard, no read.
    const files = psPaths(args, args.some((a) => a.text.toLowerCase() === '-pattern') ? 0 : 1);
    if (files.length === 1) {
      push({ path: files[0]!, op: 'read' });
    }
    return undefined;
  }

  const tool = throughRunner(cmd, args);
  const rewriter = rewriters.get(tool.cmd);
  if (rewriter) {
    if (rewriter.writes(tool.args)) {
      const { files, trees } = formatterOperands(tool.args, rewriter);
      for (const w of files) {
        push({ path: w.text, op: 'write', fixer: true });
      }
      for (const t of trees) {
        push({ path: t, op: 'write', tree: true });
      }
    }
    return undefined;
  }

  if (cmd === 'node' || pythonCommand.test(cmd)) {
    // An inline script (`python3 -c "…"`, `node -e "…"`, or one fed on stdin by a heredoc):
    // the files it opens for writing by a literal name. What it wrote is not in the
    // transcript, so the file's content becomes unknown to the session, as after `sed -i`.
    const flag = cmd === 'node' ? args.findIndex((a) => a.text === '-e' || a.text === '--eval' || a.text === '-p') : args.findIndex((a) => a.text === '-c');
    const script = flag >= 0 ? args[flag + 1]?.text : heredocs[0] !== undefined && (args.length === 0 || args[0]!.text === '-') ? heredocs[0] : undefined;
    if (script === undefined) {
      return undefined;
    }
    const writes = scriptWrites(script);
    // A script that prints shows the session what it read, as much as it prints: a look at the
    // file, as `cat` is. One that reads a file to write it back is a rewrite, as `sed -i` is
    // (the session saw nothing of it), and one that prints nothing showed nothing.
    if (cmd !== 'node' && /\bprint\s*\(|\bsys\.stdout\.write\(/.test(script)) {
      const written = new Set(writes);
      for (const path of scriptReads(script)) {
        if (!written.has(path)) {
          push({ path, op: 'read' });
        }
      }
    }
    for (const path of writes) {
      push({ path, op: 'write' });
    }
    return undefined;
  }

  switch (cmd) {
    case 'cd': {
      const target = args[0];
      if (target?.text.startsWith('~/') && !target.dynamic) {
        // `cd ~/dir`: inside the home folder the session works in, as for a file argument.
        return resolveAgainst(target.text, cwd) ?? lostDir;
      }
      if (!target || target.dynamic || target.text === '-' || target.text.startsWith('~')) {
        return lostDir;
      }
      if (cwd?.startsWith(lostDir) && !isAbsolutePath(target.text)) {
        return lostDir;
      }
      if (isWindowsPath(target.text) || (cwd !== undefined && isWindowsPath(cwd))) {
        // A Windows session: D:/x, D:\x, Git Bash's /d/x, or relative to a Windows folder.
        return resolveAgainst(target.text, cwd);
      }
      if (target.text.startsWith('/')) {
        return target.text;
      }
      return cwd === undefined ? undefined : joinPosix(cwd, target.text);
    }
    case 'bash':
    case 'sh':
    case 'zsh': {
      // bash -lc "…": the script is the argument after -c.
      const c = args.findIndex((a) => /^-[a-z]*c[a-z]*$/.test(a.text));
      const script = c >= 0 ? args[c + 1] : undefined;
      if (script && !script.dynamic) {
        for (const a of classify(script.text, cwd, work)) {
          out.push(a);
        }
      }
      return undefined;
    }
    case 'apply_patch':
    case 'applypatch': {
      const body = heredocs[0] ?? args.find((a) => a.text.includes('*** Begin Patch'))?.text;
      if (body) {
        for (const t of parseApplyPatch(body)) {
          push({ path: t.path, op: t.op });
          if (t.moveTo) {
            push({ path: t.moveTo, op: 'create' });
          }
        }
      }
      return undefined;
    }
    case 'find': {
      findExec(args, cwd, out, work);
      return undefined;
    }
    case 'cat':
    case 'nl':
    case 'less':
    case 'more': {
      for (const a of operands(args, [])) {
        read(a);
      }
      return undefined;
    }
    case 'head':
    case 'tail': {
      const files = operands(args, ['-n', '-c', '--lines', '--bytes']);
      let count: number | undefined;
      const n = args.findIndex((a) => a.text === '-n' || a.text === '--lines');
      if (n >= 0 && /^\d+$/.test(args[n + 1]?.text ?? '')) {
        count = Number(args[n + 1]!.text);
      } else {
        const short = args.find((a) => /^-\d+$/.test(a.text) || /^-n\d+$/.test(a.text));
        if (short) {
          count = Number(short.text.replace(/^-n?/, ''));
        }
      }
      for (const a of files) {
        read(a, cmd === 'head' && count !== undefined ? { start: 1, count } : undefined);
      }
      return undefined;
    }
    case 'sed': {
      const inPlace = args.some((a) => /^-[a-zA-Z]*i/.test(a.text) || a.text.startsWith('--in-place'));
      const rest = operands(args, ['-e', '-f', '--expression', '--file']);
      // The first operand is the script unless -e/-f gave it.
      const hasScriptFlag = args.some((a) => a.text === '-e' || a.text === '-f' || a.text.startsWith('--expression'));
      const files = hasScriptFlag ? rest : rest.slice(1);
      const script = hasScriptFlag ? undefined : rest[0]?.text;
      let lines: { start: number; count: number } | undefined;
      const range = script ? /^(\d+),(\d+)p$/.exec(script) : null;
      if (range && !inPlace && args.some((a) => a.text === '-n')) {
        const start = Number(range[1]);
        lines = { start, count: Math.max(Number(range[2]) - start + 1, 0) };
      }
      for (const a of files) {
        if (inPlace) {
          if (literal(a)) {
            push({ path: a.text, op: 'edit' });
          } else if (a.glob !== undefined) {
            // `sed -i … src/*.sol`, or each file a find listed (`find … -exec sed -i … {} +`,
            // `xargs sed -i`): which of the files the pattern matches it changed is not known.
            push({ path: a.glob, op: 'write', tree: true });
          }
        } else {
          read(a, lines);
        }
      }
      return undefined;
    }
    case 'awk': {
      // awk PROGRAM FILE: a read of the file (which lines it prints is the program's business).
      const files = operands(args, ['-F', '-v', '-f']).slice(args.some((a) => a.text === '-f') ? 0 : 1);
      if (files.length === 1) {
        read(files[0]!);
      }
      return undefined;
    }
    case 'npm': {
      // `npm init` (`-y`: no questions) writes package.json in the folder it runs in, and prints
      // what it wrote: the file is the session's own. (`npm init <initializer>` runs the
      // initializer's create- package instead, which writes what it writes.)
      if (args[0]?.text === 'init' && args.slice(1).every((a) => !a.dynamic && a.text.startsWith('-'))) {
        push({ path: 'package.json', op: 'write' });
      } else if (savesDependency(cmd, args)) {
        push({ path: 'package.json', op: 'write', amend: true });
      }
      return undefined;
    }
    case 'pnpm':
    case 'yarn':
    case 'bun': {
      if (savesDependency(cmd, args)) {
        push({ path: 'package.json', op: 'write', amend: true });
      }
      return undefined;
    }
    case 'touch': {
      // `touch f` makes f, empty, when it is not there: a file the session made is its own
      // (its later patch of nothing but added lines is no write to an unread file). Of a file
      // that was there it changes only the times; which one it was, the command does not say.
      if (args.some((a) => a.text === '--no-create' || /^-[a-z]*c/.test(a.text))) {
        return undefined;
      }
      for (const w of operands(args, ['-d', '-t', '-r', '--date', '--reference'])) {
        if (literal(w)) {
          push({ path: w.text, op: 'write' });
        }
      }
      return undefined;
    }
    case 'cp':
    case 'mv':
    case 'install': {
      // The destination is written; where it is a directory (several sources, `-t DIR`, a
      // trailing slash), the name of each source inside it. A copy shows the session nothing of
      // what it copied: the sources are no reads. (`mv`'s source is left alone.)
      if (cmd === 'install' && args.some((a) => a.text === '-d' || a.text === '--directory')) {
        return undefined;
      }
      const valued = ['-S', '--suffix', '-t', '--target-directory', ...(cmd === 'install' ? ['-m', '--mode', '-o', '--owner', '-g', '--group'] : [])];
      const files = operands(args, valued);
      const t = args.findIndex((a) => a.text === '-t' || a.text === '--target-directory');
      const tJoined = args.find((a) => a.text.startsWith('--target-directory='));
      const targetDir = t >= 0 ? args[t + 1] : tJoined ? { ...tJoined, text: tJoined.text.slice('--target-directory='.length) } : undefined;
      const dest = targetDir ?? files[files.length - 1];
      const sources = targetDir ? files : files.slice(0, -1);
      if (!dest || !literal(dest) || sources.length === 0) {
        return undefined;
      }
      const noTargetDir = args.some((a) => a.text === '-T' || a.text === '--no-target-directory');
      // A move carries the file (or a folder's files) with what the session knew of it.
      const from = (src: Word): { from?: string } => (cmd === 'mv' && literal(src) ? { from: src.text.replace(/\/+$/, '') } : {});
      // (A pattern moves any number of files: the destination is a folder.)
      const onePath = sources.length === 1 && !dest.text.endsWith('/') && !(cmd === 'mv' && sources[0]!.glob !== undefined);
      if (targetDir === undefined && (noTargetDir || onePath)) {
        push({ path: dest.text, op: 'write', ...from(sources[0]!) });
        return undefined;
      }
      const destDir = dest.text.replace(/\/+$/, '');
      for (const src of sources) {
        const name = src.text.replace(/\/+$/, '').split('/').pop();
        if (literal(src) && name) {
          push({ path: `${destDir}/${name}`, op: 'write', ...from(src) });
        } else if (cmd === 'mv' && src.glob !== undefined) {
          // `mv src/nav/*.jsx src/layout/`: which files moved is not in the command. They are the
          // session's at their new paths as they were at the old ones, as a literal move leaves
          // them; so the move counts as seeing every file the pattern names in the new folder
          // (a file already there that the pattern names counts too, which no command tells apart).
          const slash = src.glob.lastIndexOf('/');
          const base = src.glob.slice(slash + 1);
          if (!/(?:^|[^\\])[*?[]/.test(src.glob.slice(0, Math.max(slash, 0))) && base !== '') {
            push({ path: `${destDir}/${base}`, op: 'read', glob: true });
          }
        }
      }
      return undefined;
    }
    case 'git': {
      if (args[0]?.text === 'mv' && !args[0].dynamic) {
        // git mv moves the file as mv does (and stages the move).
        return interpret([{ kind: 'word', text: 'mv', dynamic: false }, ...args.slice(1)], heredocs, cwd, out, work);
      }
      for (const a of gitWrites(args)) {
        push(a);
      }
      return undefined;
    }
    case 'tee': {
      for (const a of operands(args, [])) {
        if (literal(a)) {
          push({ path: a.text, op: 'write' });
        }
      }
      return undefined;
    }
    case 'rg':
    case 'grep':
    case 'egrep':
    case 'fgrep': {
      const recursive = args.some((a) => /^-[a-zA-Z]*[rR]/.test(a.text) || a.text === '--recursive' || a.text === '--files');
      const withArg = ['-e', '-f', '-A', '-B', '-C', '-m', '--max-count', '-g', '--glob', '-t', '--type', '-T', '--type-not', '--regexp', '--file', '-M', '--max-columns', '-j', '--threads'];
      const rest = operands(args, withArg);
      const patternGiven = args.some((a) => a.text === '-e' || a.text === '--regexp' || a.text === '-f' || a.text === '--file');
      const files = patternGiven ? rest : rest.slice(1);
      const only = files.length === 1 ? files[0]! : undefined;
      // `-r` on a single file searches just that file: a name with an extension is taken for one.
      if (only && literal(only) && !only.text.endsWith('/') && only.text !== '.' && (!recursive || /\.[A-Za-z0-9]+$/.test(only.text.split('/').pop()!))) {
        push({ path: only.text, op: 'read' });
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

/** Git's options before the subcommand that take a value (`git -C dir`, `git -c k=v`). */
const gitValued = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace', '--exec-path']);
/** Subcommands that rewrite files of the working tree, which ones depending on the repository. */
const gitRewriting = new Set(['pull', 'merge', 'rebase', 'cherry-pick', 'revert', 'am', 'stash', 'apply', 'clean', 'reset', 'checkout', 'switch']);

/**
 * What a git command does to the working tree: the files `git checkout -- paths` and
 * `git restore paths` put back, or, for a command that may rewrite any file (`git checkout
 * main`, `switch`, `pull`, `merge`, `rebase`, `stash`, `reset --hard`, …), the directory it runs
 * in. Commands that only read, or only touch the index or refs, write nothing here.
 */
function gitWrites(args: readonly Word[]): ShellAccess[] {
  let i = 0;
  let dir = '.';
  while (i < args.length && args[i]!.text.startsWith('-')) {
    const opt = args[i]!;
    if (gitValued.has(opt.text)) {
      if (opt.text === '-C' && args[i + 1] && !args[i + 1]!.dynamic) {
        dir = args[i + 1]!.text;
      }
      i += 2;
    } else {
      i++;
    }
  }
  const sub = args[i]?.text;
  // Most git commands only read (status, diff, log, show) or touch the index (add, commit):
  // decided before the options are sorted out, which only the commands below look at.
  if (sub !== 'restore' && !gitRewriting.has(sub ?? '')) {
    return [];
  }
  const rest = args.slice(i + 1);
  const flags = new Set(rest.filter((a) => a.text.startsWith('-')).map((a) => a.text));
  const plain = rest.filter((a) => !a.text.startsWith('-'));
  // A path that names a directory (`git restore .`, `git checkout -- src/`) may rewrite any file in it.
  const files = (from: readonly Word[]): ShellAccess[] =>
    from
      .filter((w) => !w.dynamic && isRealFile(w.text))
      .map((w) => {
        const path = dir === '.' ? w.text : `${dir.replace(/\/+$/, '')}/${w.text}`;
        return /(^|\/)\.{0,2}$|\/$/.test(w.text) ? { path, op: 'write', tree: true } : { path, op: 'write' };
      });
  const everything: ShellAccess[] = [{ path: dir, op: 'write', tree: true }];
  if (sub === undefined || args[i]!.dynamic || flags.has('--help') || flags.has('-h')) {
    return [];
  }
  if (sub === 'restore') {
    // --staged alone restores the index, not the files.
    return flags.has('--staged') && !flags.has('--worktree') && !flags.has('-W') ? [] : files(operandsAfter(rest, ['-s', '--source']));
  }
  if (!gitRewriting.has(sub)) {
    return [];
  }
  switch (sub) {
    case 'checkout': {
      const dash = rest.findIndex((a) => a.text === '--');
      if (dash >= 0) {
        return files(rest.slice(dash + 1));
      }
      // A new branch where HEAD is changes no file.
      const creates = flags.has('-b') || flags.has('-B') || flags.has('--orphan');
      return creates && plain.length <= 1 ? [] : everything;
    }
    case 'switch':
      return (flags.has('-c') || flags.has('-C') || flags.has('--create')) && plain.length <= 1 ? [] : everything;
    case 'reset':
      return flags.has('--hard') || flags.has('--merge') || flags.has('--keep') ? everything : [];
    case 'stash':
      return ['list', 'show', 'drop', 'clear', 'create', 'store'].includes(plain[0]?.text ?? '') ? [] : everything;
    case 'apply':
      return flags.has('--check') || flags.has('--stat') || flags.has('--numstat') || flags.has('--summary') || flags.has('--cached') ? [] : everything;
    case 'clean':
      return flags.has('-n') || flags.has('--dry-run') ? [] : everything;
    default:
      return everything;
  }
}

/** Non-flag words, skipping the values of the given flags. */
function operandsAfter(args: readonly Word[], valued: readonly string[]): Word[] {
  const out: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.text.startsWith('-')) {
      if (valued.includes(a.text)) {
        i++;
      }
      continue;
    }
    out.push(a);
  }
  return out;
}

/**
 * Formatters and fixers that rewrite the files they are named in place when asked to: each such
 * file is the session's own write, its new content not in the transcript (as after `sed -i`).
 * `writes`: does this invocation rewrite files; `valued`: flags whose next word is a value;
 * `sub`: subcommand words, no files. Directories and patterns name no file we can know.
 */
interface Rewriter {
  writes(args: readonly Word[]): boolean;
  valued?: readonly string[];
  sub?: readonly string[];
}

const has = (args: readonly Word[], ...flags: string[]): boolean => args.some((a) => flags.includes(a.text));

const rewriters = new Map<string, Rewriter>([
  ['gofmt', { writes: (a) => has(a, '-w') }],
  ['goimports', { writes: (a) => has(a, '-w'), valued: ['-local'] }],
  [
    'prettier',
    {
      writes: (a) => has(a, '--write', '-w'),
      valued: ['--config', '--ignore-path', '--parser', '--plugin', '--stdin-filepath', '--log-level', '--cache-location', '--cache-strategy', '--end-of-line', '--print-width', '--tab-width', '--trailing-comma'],
    },
  ],
  [
    'black',
    {
      writes: (a) => !has(a, '--check', '--diff', '--help', '--version'),
      valued: ['-l', '--line-length', '-t', '--target-version', '--config', '--include', '--exclude', '--extend-exclude', '--force-exclude', '--stdin-filename', '-W', '--workers'],
    },
  ],
  ['isort', { writes: (a) => !has(a, '--check', '--check-only', '-c', '--diff', '--help'), valued: ['--settings-path', '--sp', '-l', '--line-length', '--profile', '-p', '--src'] }],
  [
    'ruff',
    {
      writes: (a) => (a[0]?.text === 'format' ? !has(a, '--check', '--diff') : a[0]?.text === 'check' && has(a, '--fix')),
      valued: ['--config', '--line-length', '--target-version', '--select', '--ignore', '--extend-select', '--exclude', '--stdin-filename'],
      sub: ['format', 'check'],
    },
  ],
  ['rustfmt', { writes: (a) => !has(a, '--check', '--help'), valued: ['--edition', '--config-path', '--config', '--emit'] }],
  [
    'eslint',
    {
      writes: (a) => has(a, '--fix'),
      valued: ['-c', '--config', '--ext', '--rulesdir', '--ignore-path', '--ignore-pattern', '-f', '--format', '-o', '--output-file', '--parser', '--parser-options', '--plugin', '--rule', '--max-warnings', '--cache-location', '--env', '--global'],
    },
  ],
  [
    'biome',
    {
      writes: (a) => ['format', 'check', 'lint'].includes(a[0]?.text ?? '') && has(a, '--write', '--apply', '--apply-unsafe', '--fix'),
      valued: ['--config-path', '--max-diagnostics', '--reporter', '--stdin-file-path', '--log-level', '--log-kind'],
      sub: ['format', 'check', 'lint'],
    },
  ],
  // Ultracite, a preset that runs Biome (or ESLint and Prettier, or Oxlint and Oxfmt): `fix`
  // (`format` before 6.0) rewrites the files it is given; `check` (`lint`) only reports.
  ['ultracite', { writes: (a) => ['fix', 'format'].includes(a[0]?.text ?? ''), sub: ['fix', 'format', 'check', 'lint'] }],
  ['clang-format', { writes: (a) => has(a, '-i'), valued: ['--style', '-style', '--assume-filename', '--lines', '--offset', '--length'] }],
  ['shfmt', { writes: (a) => has(a, '-w', '--write'), valued: ['-i', '--indent', '-ln', '--language-dialect'] }],
  ['dprint', { writes: (a) => a[0]?.text === 'fmt', valued: ['--config', '-c', '--excludes', '--plugins'], sub: ['fmt'] }],
]);

/**
 * What a formatter is told to rewrite, past its flags and their values: files (literal words
 * with an extension), and folders (`.`, `src/`, a name without an extension) or patterns
 * (`src/*.ts`, or a quoted one the tool expands itself; one with `**` as the folder it
 * searches). Which of a folder's files it rewrote is not in the command: any may have changed.
 */
function formatterOperands(args: readonly Word[], r: Rewriter): { files: Word[]; trees: string[] } {
  const files: Word[] = [];
  const trees: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.text.startsWith('-')) {
      if (r.valued?.includes(a.text)) {
        i++;
      }
      continue;
    }
    if (i === 0 && r.sub?.includes(a.text)) {
      continue;
    }
    // (A quoted pattern is the tool's own: `**` there reaches into every folder below.)
    const quoted = !a.dynamic && /[*?[\]{}]/.test(a.text) ? a.text : undefined;
    if (a.glob !== undefined) {
      trees.push(a.glob);
    } else if (quoted !== undefined) {
      trees.push(quoted.includes('**') || quoted.includes('{') ? patternRoot(quoted, false) : quoted);
    } else if (!a.dynamic && isRealFile(a.text)) {
      if (/\.[A-Za-z0-9]+$/.test(a.text.split('/').pop()!)) {
        files.push(a);
      } else {
        trees.push(a.text);
      }
    }
  }
  return { files, trees };
}

/** The subcommands that add or remove a package named after them, per package manager. */
const dependencySubcommands: Record<string, ReadonlySet<string>> = {
  npm: new Set(['install', 'i', 'in', 'add', 'uninstall', 'un', 'unlink', 'remove', 'rm', 'r']),
  pnpm: new Set(['add', 'remove', 'rm', 'un', 'uninstall']),
  yarn: new Set(['add', 'remove']),
  bun: new Set(['add', 'a', 'install', 'i', 'remove', 'rm']),
};

/**
 * `npm install <pkg>`, `pnpm add`, `yarn remove`, `bun add`: the package manager saves the
 * dependency in the package.json of the folder it runs in, rewritten whole (npm lays out every
 * array and object it wrote inline one item a line): the session's own write, its content not in
 * the transcript (forty-fifth set: a `build` section reformatted by `npm install
 * @electron-toolkit/utils`, later edited by the session). Not with no package named (an install
 * of what package.json lists), `--no-save`, a global install, or another folder's or workspace's
 * file (`--prefix`, `-C`, `--cwd`, `-w`), which this does not follow.
 */
function savesDependency(cmd: string, args: readonly Word[]): boolean {
  const sub = args[0];
  if (!sub || sub.dynamic || !dependencySubcommands[cmd]?.has(sub.text)) {
    return false;
  }
  const rest = args.slice(1);
  if (rest.some((a) => a.dynamic || /^(?:--no-save|-g|--global|--location(?:=.*)?|--prefix(?:=.*)?|-C|--dir(?:=.*)?|--cwd(?:=.*)?|-w|--workspace(?:=.*)?|--filter(?:=.*)?|-F)$/.test(a.text))) {
    return false;
  }
  // A package named, not the value of an option that takes one (`--registry <url>`).
  return rest.some((a, i) => !a.text.startsWith('-') && !(i > 0 && valueOptions.has(rest[i - 1]!.text)));
}

/** Package-manager options whose value is the next word. */
const valueOptions: ReadonlySet<string> = new Set(['--registry', '--tag', '--loglevel', '--cache', '--userconfig', '--omit', '--include', '--save-prefix']);

/** Python, as a venv or Windows names it: `python3.12`, `.venv/Scripts/python.exe`, the `py` launcher. */
const pythonCommand = /^(?:python[0-9.]*|py)(?:\.exe)?$/i;

/**
 * `npx prettier …`, `pnpm exec eslint …`, `pnpm eslint …`, `uv run ruff …`, `python -m black …`:
 * the tool a runner starts, with its arguments. (pnpm and yarn run a package's binary named
 * right after them, as `exec` does, when no script of that name is defined: a formatter's name
 * there is the formatter.)
 */
function throughRunner(cmd: string, args: readonly Word[]): { cmd: string; args: readonly Word[] } {
  let i: number;
  if (cmd === 'npx' || cmd === 'bunx' || cmd === 'pnpx' || cmd === 'uvx') {
    i = 0;
  } else if ((cmd === 'pnpm' || cmd === 'yarn') && (args[0]?.text === 'exec' || args[0]?.text === 'dlx')) {
    i = 1;
  } else if ((cmd === 'pnpm' || cmd === 'yarn') && args[0] !== undefined && !args[0].dynamic && rewriters.has(args[0].text)) {
    i = 0;
  } else if ((cmd === 'uv' || cmd === 'poetry') && args[0]?.text === 'run') {
    i = 1;
  } else if (pythonCommand.test(cmd) && args[0]?.text === '-m') {
    i = 1;
  } else {
    return { cmd, args };
  }
  while (i < args.length && args[i]!.text.startsWith('-')) {
    i++;
  }
  const tool = args[i];
  if (!tool || tool.dynamic) {
    return { cmd: '', args: [] };
  }
  // `prettier@3`, `@biomejs/biome`: the package names the tool.
  return { cmd: tool.text.replace(/(.)@[^/]*$/, '$1').split('/').pop()!, args: args.slice(i + 1) };
}

/**
 * Writes an inline Python or JavaScript script spells out with a literal file name: Python's
 * `open('p', 'w')` (any mode that writes: w, a, x, +) and `Path('p').write_text(…)`, Node's
 * `writeFileSync('p', …)` and its kin. A name built at run time is not guessed.
 */
const scriptWriteCalls = [
  /\bopen\(\s*(['"])([^'"\n{}$%]+)\1\s*,\s*(?:mode\s*=\s*)?(['"])[rbt]*[wax+][^'"]*\3/g,
  /\bPath\(\s*(['"])([^'"\n{}$%]+)\1\s*\)\s*\.\s*(?:write_text|write_bytes)\(/g,
  /\b(?:writeFileSync|writeFile|appendFileSync|appendFile)\(\s*(['"`])([^'"`\n{}$]+)\1/g,
];

/** The same calls given a name (`open(plan_path, 'w')`): a variable the script set to a literal. */
const scriptWriteCallsByName = [
  /\bopen\(\s*([A-Za-z_]\w*)\s*,\s*(?:mode\s*=\s*)?(['"])[rbt]*[wax+][^'"]*\2/g,
  /\bPath\(\s*([A-Za-z_]\w*)\s*\)\s*\.\s*(?:write_text|write_bytes)\(/g,
];

/** An assignment statement (`name = …`, not `==`), at the start of a line or after `;`. */
const scriptAssignment = /(?:^|[;\n])[ \t]*([A-Za-z_]\w*)[ \t]*=(?!=)[ \t]*/g;
/** A string literal or f-string right after `=`, ending its statement. */
const literalValue = /^(f?)(['"])([^'"\n\\]*)\2[ \t]*(?=[;\n#]|$)/;

function scriptWrites(script: string): string[] {
  return scriptPaths(script, scriptWriteCalls, scriptWriteCallsByName, false);
}

/**
 * The files a script's calls name: by a literal (the pattern's group 2), or by a variable (group
 * 1) the script set to a literal or, with `loops`, the variable of a `for` loop over literals.
 */
function scriptPaths(script: string, literal: readonly RegExp[], byName: readonly RegExp[], loops: boolean): string[] {
  const out = new Set<string>();
  const add = (path: string | undefined): void => {
    if (path !== undefined && isRealFile(path)) {
      out.add(path);
    }
  };
  for (const re of literal) {
    re.lastIndex = 0;
    for (let m = re.exec(script); m !== null; m = re.exec(script)) {
      add(m[2]);
    }
  }
  let loopSearches = maxScriptLoopSearches;
  for (const re of byName) {
    re.lastIndex = 0;
    // (The calls come in order: the variables are read once, up to each call in turn.)
    const variables = script.includes('=') ? scriptVariables(script) : undefined;
    for (let m = re.exec(script); m !== null; m = re.exec(script)) {
      const value = variables?.(m.index).get(m[1]!);
      if (value !== undefined) {
        add(value);
      } else if (loops && loopSearches > 0) {
        loopSearches--;
        loopValues(script, m[1]!, m.index).forEach(add);
      }
    }
  }
  return [...out];
}

/**
 * The calls by name whose `for` loop is searched for (each search reads the script up to the
 * call): a script of thousands of such calls was quadratic work. Past these, a call names no file.
 */
const maxScriptLoopSearches = 64;

/** `open(p)` with no mode or one that only reads (`'r'`, `'rb'`, `encoding=…`), `Path(p).read_text()` / `read_bytes()`. */
const scriptReadCalls = [
  /\bopen\(\s*[rR]?(['"])([^'"\n{}$%]+)\1\s*(?:\)|,\s*(?:mode\s*=\s*)?(['"])[rbtU]*\3|,\s*encoding\s*=)/g,
  /\bPath\(\s*[rR]?(['"])([^'"\n{}$%]+)\1\s*\)\s*\.\s*(?:read_text|read_bytes)\(/g,
];
const scriptReadCallsByName = [
  /\bopen\(\s*([A-Za-z_]\w*)\s*(?:\)|,\s*(?:mode\s*=\s*)?(['"])[rbtU]*\2|,\s*encoding\s*=)/g,
  /\bPath\(\s*([A-Za-z_]\w*)\s*\)\s*\.\s*(?:read_text|read_bytes)\(/g,
];

/**
 * Reads an inline Python script spells out (see scriptReadCalls), where `p` is a literal (raw or
 * not), a variable set to one, or the variable of a `for` loop over a list of literals
 * (`for p in ['a.md', 'b.md']:`, or over a variable set to such a list).
 */
function scriptReads(script: string): string[] {
  if (!script.includes('open(') && !script.includes('read_')) {
    return [];
  }
  return scriptPaths(script, scriptReadCalls, scriptReadCallsByName, true);
}

/** The literals a `for NAME in …:` before `end` runs over: a list written there, or one a variable was set to. */
function loopValues(script: string, name: string, end: number): string[] {
  const before = script.slice(0, end);
  const loops = [...before.matchAll(new RegExp(`\\bfor\\s+${name}\\s+in\\s+(\\[[^\\]]*\\]|[A-Za-z_]\\w*)\\s*:`, 'g'))];
  const last = loops[loops.length - 1];
  if (!last) {
    return [];
  }
  let list = last[1]!;
  if (!list.startsWith('[')) {
    const sets = [...before.slice(0, last.index).matchAll(new RegExp(`(?:^|[;\\n])[ \\t]*${list}[ \\t]*=[ \\t]*(\\[[^\\]]*\\])`, 'g'))];
    list = sets[sets.length - 1]?.[1] ?? '';
  }
  return [...list.matchAll(/[rR]?(['"])([^'"\n{}$%]+)\1/g)].map((m) => m[2]!);
}

/**
 * The variables a script set to a literal before a position, read up to each position asked for
 * in turn (positions must not go back): a string (`root='/w'`), or an
 * f-string of variables already known (`plan=f'{root}/plan.md'`). A variable set to anything else
 * is unknown from there on; so is one set inside a block (a guess at module level at worst).
 */
function scriptVariables(script: string): (end: number) => Map<string, string | undefined> {
  const vars = new Map<string, string | undefined>();
  const assign = (m: RegExpExecArray): void => {
    const v = literalValue.exec(script.slice(m.index + m[0].length, m.index + m[0].length + 500));
    let value: string | undefined;
    if (v && v[1] === 'f') {
      value = v[3]!.replace(/\{([A-Za-z_]\w*)\}/g, (_, name: string) => vars.get(name) ?? '\u0000');
      if (value.includes('\u0000') || value.includes('{')) {
        value = undefined;
      }
    } else if (v) {
      value = v[3]!;
    }
    vars.set(m[1]!, value);
  };
  const assignments = new RegExp(scriptAssignment.source, 'g');
  let next = assignments.exec(script);
  return (end) => {
    for (; next !== null && next.index < end; next = assignments.exec(script)) {
      assign(next);
    }
    return vars;
  };
}

/**
 * The files a PowerShell file cmdlet names: the values of -Path/-LiteralPath/-FilePath, else its
 * first positional argument; a comma-separated list names several. Nothing computed (a variable,
 * a wildcard) is taken for a path.
 */
function psPaths(args: Word[], first = 0): string[] {
  const out: string[] = [];
  for (const { word: w, literal } of psPathWords(args, first)) {
    // PowerShell expands `$` and backtick escapes; a word the POSIX reading calls computed for its
    // `[id]` is a name to -LiteralPath.
    if (literal ? /[$`]/.test(w.text) : w.dynamic || w.text.includes('$')) {
      continue;
    }
    for (const p of w.text.split(',')) {
      const path = p.trim();
      // Elsewhere a wildcard: a pattern that matches no file fails (a Next.js `[id]` folder).
      if (isRealFile(path) && (literal || !/[*?[\]]/.test(path))) {
        out.push(path);
      }
    }
  }
  return out;
}

/** The words a PowerShell file cmdlet takes for its paths (see psPaths), and whether each is taken as written (-LiteralPath). */
function psPathWords(args: Word[], first = 0): { word: Word; literal: boolean }[] {
  const named: { word: Word; literal: boolean }[] = [];
  const positional: { word: Word; literal: boolean }[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const name = a.text.toLowerCase();
    if (name.startsWith('-') && a.text.length > 1) {
      if (psPathParams.has(name) && args[i + 1]) {
        named.push({ word: args[++i]!, literal: psLiteralParams.has(name) });
      } else if (psValueParams.has(name)) {
        i++;
      }
      continue;
    }
    positional.push({ word: a, literal: false });
  }
  // (`first`: the positional parameters before the path, Select-String's pattern.)
  return named.length > 0 ? named : positional.slice(first, first + 1);
}

/** The source and destination of `Move-Item`/`Copy-Item`, named or by position; undefined for anything else. */
function psMove(args: Word[]): { from: Word; to: Word } | undefined {
  let from: Word | undefined;
  let to: Word | undefined;
  const positional: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const name = a.text.toLowerCase();
    if (name === '-path' || name === '-literalpath' || name === '-lp') {
      from = args[++i];
    } else if (name === '-destination') {
      to = args[++i];
    } else if (name.startsWith('-') && a.text.length > 1) {
      // -Force, -Recurse, -PassThru: switches. Anything that takes a value is not moved here.
      if (!['-force', '-recurse', '-passthru', '-confirm:$false'].includes(name)) {
        return undefined;
      }
    } else {
      positional.push(a);
    }
  }
  from ??= positional.shift();
  to ??= positional.shift();
  return from && to && positional.length === 0 ? { from, to } : undefined;
}

/** `Get-Content -TotalCount N` (or -Head/-First N): the first N lines. */
function psHead(args: Word[]): { start: number; count: number } | undefined {
  const at = args.findIndex((a) => ['-totalcount', '-head', '-first'].includes(a.text.toLowerCase()));
  const n = at >= 0 ? args[at + 1]?.text : undefined;
  return n !== undefined && /^\d+$/.test(n) ? { start: 1, count: Number(n) } : undefined;
}

/** Non-flag arguments, skipping the values of flags that take one. */
function operands(args: Word[], flagsWithValue: string[]): Word[] {
  const out: Word[] = [];
  let endOfFlags = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (!endOfFlags && a.text === '--') {
      endOfFlags = true;
      continue;
    }
    if (!endOfFlags && a.text.startsWith('-') && a.text !== '-') {
      if (flagsWithValue.includes(a.text)) {
        i++;
      }
      continue;
    }
    out.push(a);
  }
  return out;
}

function joinPosix(base: string, rel: string): string {
  const parts = (base.endsWith('/') ? base + rel : `${base}/${rel}`).split('/');
  const out: string[] = [];
  for (const p of parts) {
    if (p === '..') {
      out.pop();
    } else if (p !== '.' && p !== '') {
      out.push(p);
    }
  }
  return '/' + out.join('/');
}

const twoCharOperators = new Set(['&&', '||', '>>', '>|', '&>', '1>', '2>']);

/**
 * A small POSIX-shell tokenizer: words with quoting, operators, and here-documents (whose
 * bodies are kept whole so `cat > f <<EOF` and `apply_patch <<'EOF'` can be read).
 *
 * `windows`: the session's folder is a Windows one. PowerShell (Codex's shell there) has no
 * backslash escapes, and a bare `src\\a\\b.json` is a path; so a backslash before a name
 * character (or the `[` of a Next.js `[id]` folder) is kept as a separator. (Git Bash would drop it, but no one writes a path that way
 * for it to mean `srcab.json`.)
 */
function tokenize(src: string, windows = false): Token[] {
  const tokens: Token[] = [];
  const pendingHeredocs: { delim: string; strip: boolean }[] = [];
  let i = 0;
  const n = src.length;
  while (i < n) {
    const c = src[i]!;
    if (c === '\n') {
      i++;
      // Here-document bodies start on the line after their operator.
      for (const h of pendingHeredocs.splice(0)) {
        const doc = hereDocBody(src, i, h.delim, h.strip);
        i = doc.next;
        tokens.push({ kind: 'heredoc', body: doc.body });
      }
      // After the bodies, so a command and its here-documents stay together.
      tokens.push({ kind: 'op', text: '\n' });
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    // (PowerShell continues a line with a backquote; its backslash is a folder separator. But a
    // backslash standing alone before the line break is Git Bash's continuation: Claude Code runs
    // its Bash tool there on Windows, `for f in \⏎ "a" \⏎ "b"; do`. Read as a word, it named a
    // file `⏎` in every path built from the list.)
    const continued = windows && !alone(src, i) ? 0 : lineContinuation(src, i);
    if (continued > 0) {
      i += continued;
      continue;
    }
    if (c === '#') {
      while (i < n && src[i] !== '\n') {
        i++;
      }
      continue;
    }
    // (Only these characters begin an operator of two or three characters: a word's first
    // character is spared the slices.)
    const long = c === '<' || c === '>' || c === '&' || c === '|' || c === '1' || c === '2';
    const three = long ? src.slice(i, i + 3) : '';
    const two = long ? src.slice(i, i + 2) : '';
    if (three === '<<<' || three === '&>>' || three === '<<-') {
      if (three === '<<-') {
        i += 3;
        const d = readWord(src, i, windows);
        i = d.next;
        pendingHeredocs.push({ delim: d.word.text, strip: true });
        continue;
      }
      tokens.push({ kind: 'op', text: three });
      i += 3;
      continue;
    }
    if (two === '<<') {
      i += 2;
      while (src[i] === ' ') {
        i++;
      }
      const d = readWord(src, i, windows);
      i = d.next;
      pendingHeredocs.push({ delim: d.word.text, strip: false });
      continue;
    }
    if (twoCharOperators.has(two)) {
      if ((two === '1>' || two === '2>') && src[i + 2] === '>') {
        tokens.push({ kind: 'op', text: two + '>' });
        i += 3;
        continue;
      }
      if ((two === '2>' || two === '1>') && src[i + 2] === '&') {
        // 2>&1 duplicates a descriptor; it writes no file.
        i += 3;
        while (i < n && /[0-9-]/.test(src[i]!)) {
          i++;
        }
        continue;
      }
      tokens.push({ kind: 'op', text: two });
      i += 2;
      continue;
    }
    if ('|&;()<>'.includes(c)) {
      if (c === '>' && src[i + 1] === '&') {
        i += 2;
        while (i < n && /[0-9-]/.test(src[i]!)) {
          i++;
        }
        continue;
      }
      tokens.push({ kind: 'op', text: c });
      i++;
      continue;
    }
    const w = readWord(src, i, windows);
    if (!w.word.dynamic) {
      // (A literal word is no pattern, nor braces to expand: its spelling is not needed.)
      tokens.push(w.word);
      i = w.next;
      continue;
    }
    const raw = src.slice(i, w.next);
    const expanded = w.word.text.includes('{') ? expandBraces(raw) : undefined;
    if (expanded) {
      for (const alt of expanded) {
        tokens.push(withPattern(readWord(alt, 0, windows).word, alt));
      }
    } else {
      tokens.push(withPattern(w.word, raw));
    }
    i = w.next;
  }
  return tokens;
}

/**
 * The body of a here-document whose first line starts at `i`: the lines up to the one that is
 * `delim` (after its leading tabs, with `<<-`), and where reading goes on after that line. The
 * lines are contiguous in `src`, so the body is sliced once, not split into lines and joined:
 * here-documents carry whole files.
 */
function hereDocBody(src: string, i: number, delim: string, strip: boolean): { body: string; next: number } {
  const n = src.length;
  const first = i;
  /** The end of the last line of the body; -1 while it has none. */
  let bodyEnd = -1;
  while (i < n) {
    let end = src.indexOf('\n', i);
    if (end === -1) {
      end = n;
    }
    let from = i;
    while (strip && from < end && src.charCodeAt(from) === 0x09) {
      from++;
    }
    i = end + 1;
    if (end - from === delim.length && src.startsWith(delim, from)) {
      break;
    }
    bodyEnd = end;
  }
  return { body: bodyEnd === -1 ? '' : src.slice(first, bodyEnd), next: i };
}

/** Notes the pattern of a word that is a pathname pattern (as written: `raw`). */
function withPattern(w: Word, raw: string): Word {
  if (w.dynamic) {
    const glob = globPattern(raw);
    if (glob !== undefined) {
      w.glob = glob;
    }
  }
  return w;
}

/**
 * The pathname pattern a word is, as written: its unquoted `*`, `?` and `[` match, anything
 * quoted or escaped is a literal character (escaped with a backslash in the pattern). Undefined
 * when the word has no wildcard, or something else the shell computes (`$`, `` ` ``, `{`, `~`).
 */
function globPattern(written: string): string | undefined {
  const dates: string[] = [];
  const raw = written.includes('date') ? withoutDates(written, dates) : written;
  let out = '';
  let wild = dates.length > 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === "'" || c === '"' || c === '\\') {
      const end = skipQuoted(raw, i);
      // A `$` or backquote is literal escaped or in single quotes (`\$id/*.tsx`), an
      // expansion anywhere else.
      if (c === '"' && /(?:^|[^\\])(?:`|\$[A-Za-z_0-9@*#?$!{(-])/.test(raw.slice(i + 1, end))) {
        return undefined;
      }
      const inner = c === '\\' ? raw.slice(i + 1, end + 1) : c === "'" ? raw.slice(i + 1, end) : raw.slice(i + 1, end).replace(/\\(["\\])/g, '$1');
      out += inner.replace(/[*?[\]\\]/g, '\\$&');
      i = end;
    } else if (c === '{' || c === '~' || c === '`' || expands(raw, i)) {
      return undefined;
    } else {
      wild ||= c === '*' || c === '?' || c === '[';
      out += c;
    }
  }
  return !wild ? undefined : dates.length > 0 ? out.replace(/\uE000(\d+)\uE001/g, (_, k: string) => dates[Number(k)]!) : out;
}

/**
 * `$(date +FORMAT)` (or in backquotes) where FORMAT prints only numbers: the date the command
 * ran, which the transcript does not say (the machine's time zone is not recorded). As a
 * pattern it matches any such date: `report-$(date +%F).md` is `report-[0-9][0-9][0-9][0-9]-…`.
 */
const dateSubstitution = /\$\(date \+(['"]?)([%A-Za-z0-9_.:-]+)\1\)|`date \+(['"]?)([%A-Za-z0-9_.:-]+)\3`/g;
const digits = (n: number): string => '[0-9]'.repeat(n);
const dateFields: Record<string, string> = {
  F: `${digits(4)}-${digits(2)}-${digits(2)}`,
  T: `${digits(2)}:${digits(2)}:${digits(2)}`,
  Y: digits(4),
  y: digits(2),
  m: digits(2),
  d: digits(2),
  H: digits(2),
  M: digits(2),
  S: digits(2),
  j: digits(3),
  s: `[0-9]*`,
  '%': '%',
};

/** The pattern of a `date` format, or undefined when it prints anything but numbers and separators. */
function datePattern(format: string): string | undefined {
  let out = '';
  for (let i = 0; i < format.length; i++) {
    if (format[i] !== '%') {
      out += format[i];
      continue;
    }
    const field = dateFields[format[++i] ?? ''];
    if (field === undefined) {
      return undefined;
    }
    out += field;
  }
  return out;
}

/** `raw` with each date substitution (see dateSubstitution) replaced by a marker of its pattern in `dates`. */
function withoutDates(raw: string, dates: string[]): string {
  return raw.replace(dateSubstitution, (all, _q1: string, f1: string | undefined, _q3: string, f3: string | undefined) => {
    const pattern = datePattern(f1 ?? f3 ?? '');
    if (pattern === undefined) {
      return all;
    }
    dates.push(pattern);
    return `\uE000${dates.length - 1}\uE001`;
  });
}

/** Brace expansion can multiply words (`{a,b}{c,d}…`): past this many, the word stays as written. */
const maxBraceWords = 64;

/**
 * Brace expansion of one word as written (`go/{a,b}/x.go` is `go/a/x.go go/b/x.go`): the shell
 * does it before anything else and without looking at files, so the words are as literal as the
 * rest of the word. Only words without `$` or backquotes (whose braces may belong to a parameter or
 * a substitution); a group needs a comma at its top level (`{}` and `{1..3}` stay as written).
 * Undefined when there is nothing to expand.
 */
function expandBraces(raw: string): string[] | undefined {
  if (raw.includes('$') || raw.includes('`')) {
    return undefined;
  }
  const out: string[] = [];
  return expandBracesInto(raw, out, { groups: maxBraceGroups }) ? (out.length === 1 && out[0] === raw ? undefined : out) : undefined;
}

/**
 * Groups one expansion may open. Each group gives at least two words, so an expansion that stays
 * within maxBraceWords opens at most maxBraceWords - 1 of them: past that the words are too many
 * anyway, and giving up then changes no result. It bounds the walk down to the first word, which
 * the word count alone did not: `{a,b}` ten thousand times over (or ten thousand groups nested)
 * went ten thousand levels deep, each level reading the whole word again.
 */
const maxBraceGroups = maxBraceWords - 1;

/**
 * Appends the words of `raw` to `out`; false once they pass maxBraceWords. The counts are shared
 * by the whole expansion: a group that would pass them stops everything at once, where a count
 * per level let `{a,b}` twenty times over make millions of calls to give up.
 */
function expandBracesInto(raw: string, out: string[], budget: { groups: number }): boolean {
  const group = braceGroup(raw);
  if (!group) {
    if (out.length === maxBraceWords) {
      return false;
    }
    out.push(raw);
    return true;
  }
  if (budget.groups-- === 0) {
    return false;
  }
  for (const alt of group.alternatives) {
    if (!expandBracesInto(group.prefix + alt + group.suffix, out, budget)) {
      return false;
    }
  }
  return true;
}

/** The first unquoted `{…}` with a comma at its top level: what is before, its alternatives, what is after. */
function braceGroup(raw: string): { prefix: string; alternatives: string[]; suffix: string } | undefined {
  // The braces are paired in one pass (a stack of the open ones, each with its top-level
  // commas): searching from each `{` to its `}` made `{{{…` quadratic work.
  const open: { at: number; commas: number[] }[] = [];
  let found: { at: number; commas: number[]; close: number } | undefined;
  for (let i = 0; i < raw.length; i = skipQuoted(raw, i) + 1) {
    const c = raw[i];
    if (c === '{') {
      open.push({ at: i, commas: [] });
    } else if (c === ',' && open.length > 0) {
      open[open.length - 1]!.commas.push(i);
    } else if (c === '}' && open.length > 0) {
      const group = open.pop()!;
      if (group.commas.length > 0 && (found === undefined || group.at < found.at)) {
        found = { ...group, close: i };
      }
    }
  }
  if (!found) {
    return undefined;
  }
  const cuts = [found.at, ...found.commas, found.close];
  const alternatives = cuts.slice(1).map((end, k) => raw.slice(cuts[k]! + 1, end));
  return { prefix: raw.slice(0, found.at), alternatives, suffix: raw.slice(found.close + 1) };
}

/** Does the character at `i` begin the line or follow a space or tab (a word of its own begins there)? */
function alone(src: string, i: number): boolean {
  const before = src[i - 1];
  return before === undefined || before === ' ' || before === '\t' || before === '\n';
}

/**
 * The length of a line continuation at `i` (a backslash before the end of the line, which the
 * shell removes, joining the lines: `cd dir && \⏎ mv a b` is `cd dir && mv a b`), else 0.
 */
function lineContinuation(src: string, i: number): number {
  if (src[i] !== '\\') {
    return 0;
  }
  return src[i + 1] === '\n' ? 2 : src[i + 1] === '\r' && src[i + 2] === '\n' ? 3 : 0;
}

/** The index of the last character of the quoted part or escape starting at `i` (`i` itself when none starts there). */
function skipQuoted(raw: string, i: number): number {
  const c = raw[i];
  if (c === '\\') {
    return i + 1;
  }
  if (c === "'") {
    const end = raw.indexOf(c, i + 1);
    return end === -1 ? raw.length : end;
  }
  if (c === '"') {
    let j = i + 1;
    while (j < raw.length && raw[j] !== '"') {
      j += raw[j] === '\\' ? 2 : 1;
    }
    return j;
  }
  return i;
}

/**
 * Is the `$` at `i` an expansion? Only before a name, a digit, a special parameter, `{` or `(`:
 * in `api.$.ts` or a final `$` it is a literal character.
 */
function expands(src: string, i: number): boolean {
  return src[i] === '$' && /[A-Za-z_0-9@*#?$!{(-]/.test(src[i + 1] ?? '');
}

/**
 * `$HOME/…` (and in PowerShell `$env:USERPROFILE\…`, `$env:HOME`, `${env:USERPROFILE}`, any case)
 * at the start of a word names the home folder, as `~/` does: the variable's length and what it
 * is read as when it is one followed by a separator, else undefined. It is read as `~`, so the
 * path resolves against the user's home folder where the transcript names it, else the one the
 * session's working folder is in, or not at all (see resolveAgainst). `$env:APPDATA` and
 * `$env:LOCALAPPDATA` are Windows' folders in the home folder, `~\AppData\Roaming` and
 * `~\AppData\Local` (where Windows puts them unless folder redirection moved them).
 */
function homeVariable(src: string, i: number, windows: boolean, quoted: boolean): { length: number; text: string } | undefined {
  const m = (windows ? /^\$(?:\{env:(USERPROFILE|HOME|APPDATA|LOCALAPPDATA)\}|env:(USERPROFILE|HOME|APPDATA|LOCALAPPDATA)\b|HOME\b)/i : /^\$(?:\{HOME\}|HOME\b)/).exec(src.slice(i, i + 22));
  if (!m) {
    return undefined;
  }
  // In quotes, `"$HOME"/x` as well as `"$HOME/x"`.
  const end = i + m[0].length;
  const next = quoted && src[end] === '"' ? src[end + 1] : src[end];
  if (next !== '/' && !(windows && next === '\\')) {
    return undefined;
  }
  return { length: m[0].length, text: homeFolder(m[1] ?? m[2]) };
}

/** What a PowerShell home variable (`USERPROFILE`, `HOME`, `APPDATA`, `LOCALAPPDATA`) is read as (see homeVariable). */
function homeFolder(name = ''): string {
  const upper = name.toUpperCase();
  return upper === 'APPDATA' ? '~\\AppData\\Roaming' : upper === 'LOCALAPPDATA' ? '~\\AppData\\Local' : '~';
}

/**
 * Characters readWord takes as they are, wherever they stand: no quote, escape, blank,
 * separator, expansion or pattern character (nor `~`, which expands at a word's start).
 */
function plainWordChar(c: number): boolean {
  return c < 0x80 ? plainAscii[c] === 1 : true;
}

const plainAscii = (() => {
  const table = new Uint8Array(0x80);
  for (let c = 0x21; c < 0x7f; c++) {
    table[c] = 1;
  }
  for (const special of '\'"\\|&;()<>$`*?[{~') {
    table[special.charCodeAt(0)] = 0;
  }
  return table;
})();

function readWord(src: string, start: number, windows = false): { word: Word; next: number } {
  let i = start;
  let text = '';
  let dynamic = false;
  let quoted = false;
  const n = src.length;
  while (i < n) {
    const c = src[i]!;
    if (c === "'" || c === '"') {
      quoted = true;
    }
    if (c === "'") {
      const end = src.indexOf("'", i + 1);
      if (end === -1) {
        throw new AgentGuardError('invalid-input', 'unterminated quote');
      }
      text += src.slice(i + 1, end);
      i = end + 1;
      continue;
    }
    if (c === '"') {
      i++;
      if (i === start + 1 && text === '') {
        const home = homeVariable(src, i, windows, true);
        if (home) {
          text = home.text;
          i += home.length;
        }
      }
      while (i < n && src[i] !== '"') {
        // (PowerShell has no backslash escapes: `"src\$name.lua"` puts the variable in after a separator.)
        if (src[i] === '\\' && i + 1 < n && '"\\$`\n'.includes(src[i + 1]!) && !(windows && src[i + 1] === '$')) {
          text += src[i + 1];
          i += 2;
          continue;
        }
        if (src[i] === '`' || expands(src, i)) {
          dynamic = true;
        }
        text += src[i];
        i++;
      }
      if (i >= n) {
        throw new AgentGuardError('invalid-input', 'unterminated quote');
      }
      i++;
      continue;
    }
    if (c === '\\' && i + 1 < n) {
      const continued = windows ? 0 : lineContinuation(src, i);
      if (continued > 0) {
        i += continued;
        continue;
      }
      if (windows && /[\w.[$-]/.test(src[i + 1]!)) {
        text += c;
        i++;
        continue;
      }
      text += src[i + 1];
      i += 2;
      continue;
    }
    if (' \t\r\n|&;()<>'.includes(c)) {
      break;
    }
    if (plainWordChar(src.charCodeAt(i))) {
      // A run of characters that are only themselves (most of a path or a flag): one slice,
      // rather than a string grown a character at a time.
      let end = i + 1;
      while (end < n && plainWordChar(src.charCodeAt(end))) {
        end++;
      }
      text += src.slice(i, end);
      i = end;
      continue;
    }
    if (i === start && c === '$') {
      const home = homeVariable(src, i, windows, false);
      if (home) {
        text = home.text;
        i += home.length;
        continue;
      }
    }
    // A `~` expands only at the start of a word: `~/` is the home folder, which a path can be
    // resolved against; `~user` is not.
    if (expands(src, i) || c === '`' || c === '*' || c === '?' || c === '[' || c === '{' || (c === '~' && i === start && src[i + 1] !== '/' && !(windows && src[i + 1] === '\\'))) {
      dynamic = true;
      if (c === '$' && src[i + 1] === '(') {
        // Swallow a command substitution whole; its contents are not this command's words.
        let depth = 0;
        while (i < n) {
          if (src[i] === '(') {
            depth++;
          } else if (src[i] === ')') {
            depth--;
            if (depth === 0) {
              i++;
              break;
            }
          }
          text += src[i];
          i++;
        }
        continue;
      }
      if (c === '`') {
        // The same for the old form, up to its closing backquote.
        const end = src.indexOf('`', i + 1);
        const stop = end === -1 ? n : end + 1;
        text += src.slice(i, stop);
        i = stop;
        continue;
      }
    }
    text += c;
    i++;
  }
  return { word: quoted ? { kind: 'word', text, dynamic, quoted } : { kind: 'word', text, dynamic }, next: i };
}
