import { createHash, randomUUID } from 'node:crypto';
import { promises as fsp } from 'node:fs';
import * as nodePath from 'node:path';
import { AgentGuardError, errnoCode } from '../../core/lib/errors';
import type { QuarantineEntry, SetAsideStore } from './editorWrites';

/**
 * The versions the editor guard set aside, as files: a blob per content (named by its
 * sha256) and an append-only index. Nothing in it is ever deleted by the extension: neither
 * side of a conflict is lost. (The host shows them: src/vscode/guard/quarantine.ts.)
 */
export class QuarantineFiles implements SetAsideStore {
  /** The index as read once, then kept up to date by record(). */
  private loading: Promise<QuarantineEntry[]> | undefined;

  /** `dir`: where the blobs and the index live (integration tests look at the index). */
  constructor(readonly dir: string) {}

  /**
   * Stores a version's bytes (content-addressed; read back to be sure) without listing it yet:
   * the caller records the entry once it knows everything about it (e.g. whether the previous
   * content was put back).
   */
  async keep(content: Uint8Array, path: string): Promise<{ id: string; bytes: number }> {
    await fsp.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const id = createHash('sha256').update(content).digest('hex');
    const blob = nodePath.join(this.dir, `${id}.blob`);
    if ((await hashOf(blob)) === id) {
      return { id, bytes: content.length };
    }
    // Written whole under another name, then renamed to the blob's: a write cut short (a
    // full disk, a crash) leaves no blob that looks kept, and one an earlier such write left
    // is replaced; kept as it was, it refused this content for good.
    const temp = nodePath.join(this.dir, `${id}.${randomUUID()}.tmp`);
    try {
      await fsp.writeFile(temp, content, { flag: 'wx', mode: 0o600 });
      await fsp.rename(temp, blob);
    } finally {
      await fsp.rm(temp, { force: true });
    }
    // Read it back: a version we say is kept must really be there, byte for byte.
    const check = createHash('sha256').update(await fsp.readFile(blob)).digest('hex');
    if (check !== id) {
      throw new AgentGuardError('io', `the quarantined copy of ${path} does not read back as written`);
    }
    return { id, bytes: content.length };
  }

  /** Lists a kept version: in memory first, so it is offered even if the index cannot be written. */
  async record(entry: QuarantineEntry): Promise<void> {
    (await this.list()).push(entry);
    await fsp.appendFile(nodePath.join(this.dir, 'index.jsonl'), JSON.stringify(entry) + '\n', { mode: 0o600 });
  }

  /**
   * Every version listed, oldest first; the index is read once. Callers asking while it is
   * read wait for it: given the list it was filling, they saw none (the command said "No
   * version has been set aside").
   */
  list(): Promise<QuarantineEntry[]> {
    this.loading ??= this.load();
    return this.loading;
  }

  private async load(): Promise<QuarantineEntry[]> {
    const entries: QuarantineEntry[] = [];
    try {
      const text = await fsp.readFile(nodePath.join(this.dir, 'index.jsonl'), 'utf8');
      for (const line of text.split('\n')) {
        try {
          const e = JSON.parse(line) as QuarantineEntry;
          if (typeof e.id === 'string' && typeof e.path === 'string') {
            entries.push(e);
          }
        } catch {
          // a torn last line: the blobs are still there
        }
      }
    } catch {
      // no quarantine yet
    }
    return entries;
  }

  read(id: string): Promise<Uint8Array> {
    if (!/^[0-9a-f]{64}$/.test(id)) {
      return Promise.reject(new AgentGuardError('invalid-input', `not a quarantine id: ${id}`));
    }
    return fsp.readFile(nodePath.join(this.dir, `${id}.blob`));
  }
}

/** sha256 of a file's bytes; undefined when there is no such file. */
async function hashOf(file: string): Promise<string | undefined> {
  try {
    return createHash('sha256').update(await fsp.readFile(file)).digest('hex');
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') {
      return undefined;
    }
    throw e;
  }
}
