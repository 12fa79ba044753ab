import { resolveAgainst } from './paths';

/**
 * Scripts that create files from templates and name them only in the JSON they print, so the
 * command line does not say what they wrote: GitHub's spec-kit, whose `/specify` and `/plan`
 * commands run them (Bash or PowerShell flavour). `keys` are the output's fields that name a file
 * the script created (`create-new-feature` copies the spec template to `SPEC_FILE`, `setup-plan`
 * the plan template to `IMPL_PLAN`); its other fields name folders and branches.
 */
const scaffolds: readonly { script: RegExp; keys: readonly string[] }[] = [
  { script: runs('create-new-feature'), keys: ['SPEC_FILE'] },
  { script: runs('setup-plan'), keys: ['IMPL_PLAN'] },
];

/**
 * The script `name` (`.sh` or `.ps1`, any folder) run as a command: first on the line or after
 * `&&`, `;`, `|`, or given to a shell (`bash x.sh`, `pwsh -File x.ps1`). Named any other way
 * (`cat x.sh`) it is not run.
 */
function runs(name: string): RegExp {
  const command = String.raw`(?:^|[;&|(]\s*|\b(?:bash|sh|zsh|pwsh|powershell)(?:\.exe)?(?:\s+-\w+)*\s+)`;
  const folder = String.raw`(?:[^\s'";&|]*[/\\])?`;
  return new RegExp(`${command}['"]?${folder}${name}\\.(?:sh|ps1)(?=$|[\\s'";&|)])`, 'm');
}

/** The output fields that name the files `command` creates, when it runs a known scaffolding script. */
export function scaffoldKeys(command: string): readonly string[] | undefined {
  if (!command.includes('.sh') && !command.includes('.ps1')) {
    return undefined;
  }
  return scaffolds.find((s) => s.script.test(command))?.keys;
}

/** The files a scaffolding script's output names under `keys` (`"SPEC_FILE":"/p/specs/007-x/spec.md"`). */
export function scaffoldedFiles(keys: readonly string[], output: string, cwd: string | undefined): string[] {
  const out: string[] = [];
  for (const key of keys) {
    const re = new RegExp(`"${key}"\\s*:\\s*"((?:[^"\\\\]|\\\\.)*)"`, 'g');
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
}
