import { Emitter } from '../core/lib/event';
import type { Finding } from '../core/model/finding';

export interface FindingChange {
  added: Finding[];
  removed: Finding[];
  /** Same id, new content (e.g. a stalled call's elapsed time, a severity change). */
  updated: Finding[];
}

/**
 * The live set of findings, by transcript. Re-reading a file (after truncation or a rewrite)
 * runs in a generation: findings reported again with the same id are not news, and those
 * not reported again are removed when the generation ends — so a rewrite is diffed, never
 * re-reported.
 */
export class FindingStore {
  private readonly byFile = new Map<string, Map<string, Finding>>();
  /** Ids reported during the current re-read of a file. */
  private readonly generation = new Map<string, Set<string>>();
  private readonly changed = new Emitter<FindingChange>();
  readonly onDidChange = this.changed.event;

  add(f: Finding): void {
    let m = this.byFile.get(f.file);
    if (!m) {
      m = new Map();
      this.byFile.set(f.file, m);
    }
    this.generation.get(f.file)?.add(f.id);
    const old = m.get(f.id);
    m.set(f.id, f);
    if (!old) {
      this.changed.fire({ added: [f], removed: [], updated: [] });
    } else if (!sameFinding(old, f)) {
      this.changed.fire({ added: [], removed: [], updated: [f] });
    }
  }

  retract(id: string): void {
    for (const m of this.byFile.values()) {
      const f = m.get(id);
      if (f) {
        m.delete(id);
        this.changed.fire({ added: [], removed: [f], updated: [] });
        return;
      }
    }
  }

  /** A file is about to be read again from the start. */
  beginGeneration(file: string): void {
    this.generation.set(file, new Set());
  }

  /**
   * The re-read caught up: whatever was not reported again is gone, except what `keep` says
   * the re-read could not have reported (yet).
   */
  endGeneration(file: string, keep?: (f: Finding) => boolean): void {
    const seen = this.generation.get(file);
    if (!seen) {
      return;
    }
    this.generation.delete(file);
    const m = this.byFile.get(file);
    if (!m) {
      return;
    }
    const removed = [...m.values()].filter((f) => !seen.has(f.id) && !(keep?.(f) ?? false));
    for (const f of removed) {
      m.delete(f.id);
    }
    if (removed.length > 0) {
      this.changed.fire({ added: [], removed, updated: [] });
    }
  }

  /**
   * The re-read begun was called off before it reported anything (a document found mid-rewrite,
   * not read): the file's findings stand as they are.
   */
  cancelGeneration(file: string): void {
    this.generation.delete(file);
  }

  inGeneration(file: string): boolean {
    return this.generation.has(file);
  }

  clearFile(file: string): void {
    const m = this.byFile.get(file);
    this.byFile.delete(file);
    this.generation.delete(file);
    if (m && m.size > 0) {
      this.changed.fire({ added: [], removed: [...m.values()], updated: [] });
    }
  }

  clear(): void {
    const removed = [...this.byFile.values()].flatMap((m) => [...m.values()]);
    this.byFile.clear();
    this.generation.clear();
    if (removed.length > 0) {
      this.changed.fire({ added: [], removed, updated: [] });
    }
  }

  get(file: string, id: string): Finding | undefined {
    return this.byFile.get(file)?.get(id);
  }

  forFile(file: string): Finding[] {
    return [...(this.byFile.get(file)?.values() ?? [])];
  }

  all(): Finding[] {
    return [...this.byFile.values()].flatMap((m) => [...m.values()]);
  }

  get size(): number {
    let n = 0;
    for (const m of this.byFile.values()) {
      n += m.size;
    }
    return n;
  }

  dispose(): void {
    this.changed.dispose();
  }
}

function sameFinding(a: Finding, b: Finding): boolean {
  return a.message === b.message && a.severity === b.severity && a.line === b.line && a.column === b.column && a.endColumn === b.endColumn;
}
