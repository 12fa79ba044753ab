import { resolveAgainst } from './paths';

/**
 * A script that creates files from templates and names them only in what it prints, so the
 * command line does not say what it wrote. `files` reads them from its output.
 */
export interface Scaffold {
  files(output: string, cwd: string | undefined): string[];
}

/**
 * GitHub's spec-kit, whose `/specify` and `/plan` commands run these (Bash or PowerShell
 * flavour) and print JSON: `create-new-feature` copies the spec template to `SPEC_FILE`,
 * `setup-plan` the plan template to `IMPL_PLAN`; the other fields name folders and branches.
 * Codex's bundled skill-creator, `init_skill.py NAME --path DIR [--examples]`, prints
 * `[OK] Created skill directory: DIR/NAME`, then `[OK] Created <file>` for each file under it.
 */
const scaffolds: readonly { name: string; script: RegExp; scaffold: Scaffold }[] = [
  { name: 'create-new-feature', script: runs('create-new-feature', '(?:sh|ps1)'), scaffold: jsonFields(['SPEC_FILE']) },
  { name: 'setup-plan', script: runs('setup-plan', '(?:sh|ps1)'), scaffold: jsonFields(['IMPL_PLAN']) },
  { name: 'init_skill', script: runs('init_skill', 'py'), scaffold: { files: createdUnder } },
];

/**
 * The script `name` (with one of the extensions `ext`, any folder) run as a command: first on
 * the line or after `&&`, `;`, `|`, or given to an interpreter (`bash x.sh`, `pwsh -File x.ps1`,
 * `python3 x.py`). Named any other way (`cat x.sh`) it is not run.
 */
function runs(name: string, ext: string): RegExp {
  const command = String.raw`(?:^|[;&|(]\s*|\b(?:bash|sh|zsh|pwsh|powershell|python[0-9.]*)(?:\.exe)?(?:\s+-\w+)*\s+)`;
  const folder = String.raw`(?:[^\s'";&|]*[/\\])?`;
  return new RegExp(`${command}['"]?${folder}${name}\\.${ext}(?=$|[\\s'";&|)])`, 'm');
}

/** The scaffolding script `command` runs, if it runs a known one. */
export function scaffoldOf(command: string): Scaffold | undefined {
  if (!command.includes('.sh') && !command.includes('.ps1') && !command.includes('.py')) {
    return undefined;
  }
  // A pattern matches only where its script's name is spelled out: a search for the name first
  // spares every command that names a .py file the three patterns' backtracking.
  return scaffolds.find((s) => command.includes(s.name) && s.script.test(command))?.scaffold;
}

/** The files named under `keys` in JSON the script printed (`"SPEC_FILE":"/p/specs/007-x/spec.md"`). */
function jsonFields(keys: readonly string[]): Scaffold {
  const patterns = keys.map((key) => new RegExp(`"${key}"\\s*:\\s*"((?:[^"\\\\]|\\\\.)*)"`, 'g'));
  return {
    files(output, cwd) {
      const out: string[] = [];
      for (const re of patterns) {
        for (const m of output.matchAll(re)) {
          let value: unknown;
          try {
            value = JSON.parse(`"${m[1]!}"`);
          } catch {
            continue;
          }
          const path = typeof value === 'string' && value !== '' ? resolveAgainst(value, cwd) : undefined;
          if (path !== undefined && !out.includes(path)) {
            out.push(path);
          }
        }
      }
      return out;
    },
  };
}

/** skill-creator's `[OK] Created <file>` lines, under the skill directory it names first. */
function createdUnder(output: string, cwd: string | undefined): string[] {
  const dir = /^\[OK\] Created skill directory: (.+?)\s*$/m.exec(output)?.[1];
  const base = dir !== undefined ? resolveAgainst(dir, cwd) : undefined;
  if (base === undefined) {
    return [];
  }
  const out: string[] = [];
  for (const m of output.matchAll(/^\[OK\] Created (?!skill directory: )(\S[^\n]*?)\s*$/gm)) {
    const path = resolveAgainst(m[1]!, base);
    if (path !== undefined && !out.includes(path)) {
      out.push(path);
    }
  }
  return out;
}
