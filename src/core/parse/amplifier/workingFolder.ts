import { isAbsolutePath } from '../../classify/paths';
import { isRecord } from '../../classify/tools';

/*
 * Where an Amplifier session works, from the files beside its transcript (which names no
 * folder). The file tools resolve a relative path against the `session.working_dir`
 * capability (amplifier-module-tool-filesystem `read.py`/`write.py`/`edit.py`; bash, search
 * and apply_patch alike), and the CLI registers the folder it runs in, `Path.cwd().resolve()`
 * (amplifier-foundation `bundle/_prepared.py` `create_session`, `session_cwd=Path.cwd()` from
 * amplifier-app-cli `session_runner.py`). The same folder is written:
 * - into the session's config, which each process logs once as `session:config`, right after its
 *   `session:start` or `session:resume`: `data.raw.working_dir` (amplifier-app-cli
 *   `session_runner.py` `config.config["working_dir"] = cwd`; real events.jsonl of 2026.07);
 * - into metadata.json, `working_dir`, rewritten on every save with the folder of the process
 *   saving (`incremental_save.py`, `main.py`), so it names the last process's folder only.
 * The project slug also encodes it, but not reversibly (`-` stands for `/` and for itself).
 */

/** A string that can be a working folder: an absolute path. */
function folder(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' && isAbsolutePath(v.trim()) ? v.trim() : undefined;
}

/**
 * Is this events.jsonl line (its first bytes, decoded) possibly a `session:config` record? The
 * check that lets a reader skip the other lines (some hold whole model requests) unparsed.
 */
export function mayBeSessionConfig(prefix: string): boolean {
  return prefix.includes('"session:config"');
}

/** The working folder a decoded `session:config` record names, else undefined. */
export function configWorkingFolder(value: unknown): string | undefined {
  if (!isRecord(value) || value['event'] !== 'session:config' || !isRecord(value['data'])) {
    return undefined;
  }
  const raw = value['data']['raw'];
  return isRecord(raw) ? folder(raw['working_dir']) : undefined;
}

/** The working folder a decoded metadata.json names, else undefined. */
export function metadataWorkingFolder(value: unknown): string | undefined {
  return isRecord(value) ? folder(value['working_dir']) : undefined;
}

/**
 * The folders of the `session:config` records of one events.jsonl, in order. Every process
 * that took the session up logs its own: if they differ, which call ran in which folder is
 * not told by the transcript, and no folder is certain.
 */
export class ConfigFolders {
  private first: string | undefined;
  private conflict = false;

  add(dir: string): void {
    if (this.first === undefined) {
      this.first = dir;
    } else if (this.first !== dir) {
      this.conflict = true;
    }
  }

  /** Some record named a folder. */
  get seen(): boolean {
    return this.first !== undefined;
  }

  /** The one folder all records named; undefined when none did or they disagree. */
  get folder(): string | undefined {
    return this.conflict ? undefined : this.first;
  }
}
