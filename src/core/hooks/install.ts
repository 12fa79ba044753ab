/**
 * The guard hook's entries in each agent's settings file, and how to add and remove them
 * without touching anything else (jsoncEdit.ts). Pure: text in, text out.
 *
 * All three files share one shape — `{"hooks": {"<Event>": [{"matcher": "…", "hooks":
 * [{"type": "command", "command": "…", "timeout": …}]}]}}`:
 * - Claude Code: `.claude/settings.local.json` (gitignored; Copilot agent mode in VS Code reads
 *   it too). PreToolUse/PostToolUse, `timeout` in seconds (HOOKS-AND-VSCODE.md §3.1, §3.5;
 *   FORMATS.md §1.7). The matcher is an exact list of tool names (`Edit|Write`).
 * - Gemini CLI: `.gemini/settings.json`, BeforeTool/AfterTool, matcher a regex on the tool
 *   name, `timeout` in ms, optional `name` (google-gemini/gemini-cli:docs/hooks/reference.md
 *   @5411f11, "Configuration schema"; HOOKS-AND-VSCODE.md §3.2).
 * - Codex CLI: `.codex/hooks.json`, PreToolUse/PostToolUse; `apply_patch` is matched by its
 *   name or its aliases Edit/Write; `timeout` in seconds (HOOKS-AND-VSCODE.md §3.4; FORMATS.md
 *   §2.6; https://developers.openai.com/codex/hooks). Codex 0.171 reads a project's `.codex/`
 *   only when the project is trusted (`[projects."<path>"] trust_level = "trusted"`), and runs
 *   its hooks only once the user has reviewed them (`/hooks`); `codex exec` skips hooks not yet
 *   reviewed without a word (docs/validation.md, "The newest agents, run here against a
 *   scripted model").
 * Post-tool entries cover writes as well as reads: a write's post-tool report ends it "in
 * flight" and tells the guard what the session itself wrote.
 */
import { isRecord } from '../classify/tools';
import { AgentGuardError } from '../lib/errors';
import { addProperty, appendToArray, detectFormat, isEmptyContainer, JsoncError, parseDocument, removeMember } from './jsoncEdit';
import { getNodeValue, type Node } from 'jsonc-parser';

export const installAgents = ['claude', 'gemini', 'codex'] as const;
export type InstallAgent = (typeof installAgents)[number];

export interface HookGroup {
  event: string;
  matcher: string;
}

export interface AgentHookSpec {
  agent: InstallAgent;
  label: string;
  /** The settings file, relative to the workspace, with `/`. */
  file: string;
  groups: readonly HookGroup[];
  /** The hook entry for a command. */
  hook(command: string): Record<string, unknown>;
  /** Shown after installing. */
  note: string;
}

/** Generous next to the hook's own 1.5 s deadline: the agents kill a hook at their timeout. */
const timeoutSeconds = 10;

export const hookSpecs: Readonly<Record<InstallAgent, AgentHookSpec>> = {
  claude: {
    agent: 'claude',
    label: 'Claude Code (and Copilot agent mode)',
    file: '.claude/settings.local.json',
    groups: [
      { event: 'PreToolUse', matcher: 'Edit|Write|MultiEdit|NotebookEdit' },
      { event: 'PostToolUse', matcher: 'Read|Edit|Write|MultiEdit|NotebookEdit' },
    ],
    hook: (command) => ({ type: 'command', command, timeout: timeoutSeconds }),
    note: 'Claude Code reads it at the next session start (or /hooks); VS Code Copilot agent mode runs it for every tool and the hook skips the ones it does not guard.',
  },
  gemini: {
    agent: 'gemini',
    label: 'Gemini CLI',
    file: '.gemini/settings.json',
    groups: [
      { event: 'BeforeTool', matcher: 'write_file|replace' },
      { event: 'AfterTool', matcher: 'read_file|write_file|replace' },
    ],
    hook: (command) => ({ type: 'command', name: 'agent-guard', command, timeout: timeoutSeconds * 1000 }),
    note: 'Gemini CLI reads project hooks from .gemini/settings.json at start-up.',
  },
  codex: {
    agent: 'codex',
    label: 'Codex CLI',
    file: '.codex/hooks.json',
    groups: [
      { event: 'PreToolUse', matcher: 'apply_patch|Edit|Write' },
      { event: 'PostToolUse', matcher: 'apply_patch|Edit|Write' },
    ],
    hook: (command) => ({ type: 'command', command, timeout: timeoutSeconds }),
    note: 'Codex runs project hooks only in a trusted project, once you have reviewed them (/hooks); until then `codex exec` skips them without a word.',
  },
};

/** Marks our entries: uninstall removes only commands that run a `hook.js` with this flag. */
const ourMarker = '--agent-guard';

/** `node "<abs>/dist/hook.js" --agent-guard --agent claude`: quoted for spaces; never npx. */
export function hookCommand(hookScript: string, agent: InstallAgent, opts: { failClosed?: boolean } = {}): string {
  if (hookScript.includes('"')) {
    throw new AgentGuardError('invalid-input', `the hook's path contains a double quote, which a hook command cannot quote: ${hookScript}`);
  }
  // The agents run the command through a shell, where "$x" and "`x`" are expanded even inside
  // double quotes: the hook would look for another file (and fail open), or run what they name.
  const unsafe = /[$`\n]/.exec(hookScript);
  if (unsafe) {
    throw new AgentGuardError('invalid-input', `the hook's path contains ${unsafe[0] === '\n' ? 'a line break' : `'${unsafe[0]}'`}, which a shell expands even inside double quotes: ${hookScript}; install Agent Session Guard in a folder without it`);
  }
  return `node "${hookScript}" ${ourMarker} --agent ${agent}${opts.failClosed ? ' --fail-closed' : ''}`;
}

function isOurCommand(command: string): boolean {
  return /hook\.js\b/.test(command) && command.split(/\s+/).includes(ourMarker);
}

export interface OurHook {
  event: string;
  group: number;
  hook: number;
  command: string;
  /** The whole group holds only our hooks. */
  soleInGroup: boolean;
  groupValue: unknown;
}

/** Our hook entries in a settings text, in document order. Throws JsoncError on a broken file. */
export function findOurHooks(text: string | undefined): OurHook[] {
  if (text === undefined || text.trim() === '') {
    return [];
  }
  const root = parseDocument(splitBom(text).body);
  const twice = duplicateKey(root, [], true);
  if (twice !== undefined) {
    throw new JsoncError(`"${twice}" is given twice: the agents read only the last, and an edit would go into the first; merge them first`);
  }
  const value: unknown = getNodeValue(root);
  if (!isRecord(value) || !isRecord(value['hooks'])) {
    return [];
  }
  const out: OurHook[] = [];
  for (const [event, groups] of Object.entries(value['hooks'])) {
    if (!Array.isArray(groups)) {
      continue;
    }
    groups.forEach((g: unknown, gi) => {
      const hooks = isRecord(g) && Array.isArray(g['hooks']) ? (g['hooks'] as unknown[]) : [];
      const mine = hooks.map((h) => (isRecord(h) && typeof h['command'] === 'string' && isOurCommand(h['command']) ? h['command'] : undefined));
      mine.forEach((command, hi) => {
        if (command !== undefined) {
          out.push({ event, group: gi, hook: hi, command, soleInGroup: mine.every((c) => c !== undefined), groupValue: g });
        }
      });
    });
  }
  return out;
}

/**
 * The first key given twice in an object of the document's top level or under its `hooks`:
 * reading keeps the last (as the agents' JSON.parse does), while an edit finds the first.
 */
function duplicateKey(node: Node, path: readonly string[], top: boolean): string | undefined {
  if (node.type === 'array') {
    for (const child of node.children ?? []) {
      const found = duplicateKey(child, path, false);
      if (found !== undefined) {
        return found;
      }
    }
    return undefined;
  }
  if (node.type !== 'object') {
    return undefined;
  }
  const seen = new Set<string>();
  for (const prop of node.children ?? []) {
    const key = String(prop.children?.[0]?.value);
    if (seen.has(key)) {
      return [...path, key].join('.');
    }
    seen.add(key);
    const value = prop.children?.[1];
    if (value && (!top || key === 'hooks')) {
      const found = duplicateKey(value, [...path, key], false);
      if (found !== undefined) {
        return found;
      }
    }
  }
  return undefined;
}

export interface InstallPlan {
  /** The new text; undefined = the file should not exist. */
  after: string | undefined;
  changed: boolean;
  /**
   * With `after` undefined: the text that is left, for a file that has to stay (a symbolic
   * link: removing it would leave our entries in its target).
   */
  left?: string;
}

/**
 * Our entries, exactly once, with everything else as it was. Already there and current:
 * no change at all (install twice = install once). Ours but different (another path, another
 * option): replaced.
 */
export function planInstall(text: string | undefined, spec: AgentHookSpec, command: string): InstallPlan {
  const fresh = text === undefined || text.trim() === '';
  const { bom, body: base } = splitBom(fresh ? '{}\n' : text);
  const root = parseDocument(base);
  if (root.type !== 'object') {
    throw new JsoncError(`${spec.file} does not hold a JSON object`);
  }
  const desired = spec.groups.map((g) => ({ event: g.event, value: { matcher: g.matcher, hooks: [spec.hook(command)] } }));
  const ours = findOurHooks(base);
  const current =
    ours.length === desired.length && desired.every((d) => ours.some((o) => o.event === d.event && o.soleInGroup && sameJson(o.groupValue, d.value)));
  if (current) {
    return { after: text, changed: false };
  }
  let t = removeOurs(base);
  const fmt = detectFormat(base);
  for (const d of desired) {
    const value: unknown = getNodeValue(parseDocument(t));
    const hooks = isRecord(value) ? value['hooks'] : undefined;
    if (hooks === undefined) {
      t = addProperty(t, [], 'hooks', { [d.event]: [d.value] }, fmt);
    } else if (!isRecord(hooks)) {
      throw new JsoncError(`"hooks" in ${spec.file} is not an object`);
    } else if (hooks[d.event] === undefined) {
      t = addProperty(t, ['hooks'], d.event, [d.value], fmt);
    } else if (Array.isArray(hooks[d.event])) {
      t = appendToArray(t, ['hooks', d.event], d.value, fmt);
    } else {
      throw new JsoncError(`"hooks.${d.event}" in ${spec.file} is not an array`);
    }
  }
  return { after: bom + t, changed: bom + t !== text };
}

/**
 * Everything but our entries. Containers left empty by the removal go with them (so an event
 * array or `hooks` object that held nothing before the install goes too: the two cannot be
 * told apart afterwards; one that holds a comment stays); a file left holding nothing (`{}`)
 * is removed (undefined), as it was before an install that created it.
 */
export function planUninstall(text: string | undefined): InstallPlan {
  if (text === undefined) {
    return { after: undefined, changed: false };
  }
  if (findOurHooks(text).length === 0) {
    return { after: text, changed: false };
  }
  const { bom, body } = splitBom(text);
  const t = removeOurs(body);
  const empty = t.trim() === '{}';
  return { after: empty ? undefined : bom + t, changed: true, left: bom + t };
}

/**
 * A UTF-8 byte order mark before the document, which Notepad and PowerShell 5.1 write and
 * the JSON parser does not take: set aside while reading and editing, and kept.
 */
function splitBom(text: string): { bom: string; body: string } {
  return text.startsWith('\uFEFF') ? { bom: '\uFEFF', body: text.slice(1) } : { bom: '', body: text };
}

function removeOurs(text: string): string {
  let t = text;
  for (let ours = findOurHooks(t); ours.length > 0; ours = findOurHooks(t)) {
    const o = ours[ours.length - 1]!;
    t = o.soleInGroup ? removeMember(t, ['hooks', o.event, o.group]) : removeMember(t, ['hooks', o.event, o.group, 'hooks', o.hook]);
    // A container that still holds a comment is the user's (a note where their hooks go): it stays.
    if (isEmptyContainer(t, ['hooks', o.event])) {
      t = removeMember(t, ['hooks', o.event]);
      if (isEmptyContainer(t, ['hooks'])) {
        t = removeMember(t, ['hooks']);
      }
    }
  }
  return t;
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) {
    return v.map(sortKeys);
  }
  if (isRecord(v)) {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys(v[k])]),
    );
  }
  return v;
}
