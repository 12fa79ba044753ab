/**
 * The bookkeeping of DiagnosticsPublisher, without `vscode` (so it is unit-tested under
 * node:test): which findings go on which file, which of them are hidden, and which files need
 * their diagnostics set again.
 */
import { samePath, upperDrive } from '../core/classify/paths';
import type { Finding } from '../core/model/finding';
import type { FindingChange } from '../io/findingStore';

/**
 * The sessions (transcripts) whose findings are hidden. Hidden by naming the sessions to hide,
 * not the ones to show: a finding on no known session (a guard decision whose hook named no
 * transcript sits on the file it protected) is about now, and stays shown.
 */
export type HiddenSessions = ReadonlySet<string>;

function sameSessions(a: HiddenSessions, b: HiddenSessions): boolean {
  if (a.size !== b.size) {
    return false;
  }
  for (const s of a) {
    if (!b.has(s)) {
      return false;
    }
  }
  return true;
}

/**
 * Every finding on the file its diagnostic goes on: its transcript and, for a finding about a
 * workspace file, that file too. Hidden findings are kept, so a session that becomes current
 * again shows them without being read again; only what is shown depends on `hideSessions`.
 */
export class FindingTargets {
  /** Findings by the file their diagnostic goes on (a transcript, or a workspace file). */
  private readonly byTarget = new Map<string, Map<string, Finding>>();
  /**
   * The files each session's findings were put on, so that hiding or showing a session touches
   * only its files. It may still name a file its findings have left: updating that file again
   * is harmless.
   */
  private readonly targetsOf = new Map<string, Set<string>>();
  private readonly dirty = new Set<string>();
  private hidden: HiddenSessions = new Set();

  /**
   * `spell` names a workspace file as the editor does (see editorSpelling): the diagnostics of a
   * finding about it go where the user has it open. It must not change between two resets.
   */
  constructor(private readonly spell: (path: string) => string = (p) => p) {}

  get hasChanges(): boolean {
    return this.dirty.size > 0;
  }

  apply(change: FindingChange): void {
    for (const f of change.removed) {
      this.remove(f);
    }
    for (const f of [...change.added, ...change.updated]) {
      this.remove(f);
      this.put(f.file, f);
      if (f.subject && !samePath(f.subject.path, f.file)) {
        this.put(this.spell(f.subject.path), f);
      }
    }
  }

  /** Replaces every finding (a restart of the monitors); which sessions are hidden stays. */
  reset(findings: readonly Finding[]): void {
    for (const target of this.byTarget.keys()) {
      this.dirty.add(target);
    }
    this.byTarget.clear();
    this.targetsOf.clear();
    this.apply({ added: [...findings], removed: [], updated: [] });
  }

  /**
   * Hides the findings of these sessions from now on, and only theirs. It is asked on every
   * update, and the set is then mostly unchanged: that costs a comparison of the sets.
   * Otherwise only the files of the sessions hidden or shown again are updated.
   */
  hideSessions(sessions: HiddenSessions): void {
    const before = this.hidden;
    if (sameSessions(before, sessions)) {
      return;
    }
    this.hidden = sessions;
    for (const [session, targets] of this.targetsOf) {
      if (before.has(session) !== sessions.has(session)) {
        for (const target of targets) {
          this.dirty.add(target);
        }
      }
    }
  }

  /** Every finding on the file, hidden or not. */
  /** Files are keyed with an upper-case drive letter, as the core writes them (see uriPath.ts). */
  on(target: string): Iterable<Finding> {
    return this.byTarget.get(upperDrive(target))?.values() ?? [];
  }

  /**
   * The files whose diagnostics changed since the last call, each with the findings to show on
   * it now (none: clear it).
   */
  takeChanges(): [string, Finding[]][] {
    const out: [string, Finding[]][] = [];
    for (const target of this.dirty) {
      out.push([target, [...this.on(target)].filter((f) => !this.hidden.has(f.file))]);
    }
    this.dirty.clear();
    return out;
  }

  private put(path: string, f: Finding): void {
    const target = upperDrive(path);
    let m = this.byTarget.get(target);
    if (!m) {
      m = new Map();
      this.byTarget.set(target, m);
    }
    m.set(f.id, f);
    this.dirty.add(target);
    let targets = this.targetsOf.get(f.file);
    if (!targets) {
      targets = new Set();
      this.targetsOf.set(f.file, targets);
    }
    targets.add(target);
  }

  private remove(f: Finding): void {
    for (const path of [f.file, f.subject ? this.spell(f.subject.path) : undefined]) {
      const target = path !== undefined ? upperDrive(path) : undefined;
      if (target !== undefined && this.byTarget.get(target)?.delete(f.id)) {
        this.dirty.add(target);
      }
    }
  }
}
