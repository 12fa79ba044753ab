import { hasWildcard, shellPattern, type PathPattern } from '../classify/paths';
import { contentHash } from '../lib/hash';
import { changedRegions, diffLines, splitLines, type DiffHunk } from '../lib/diff';
import type { ReadSnapshot, Span, WriteSnapshot } from '../model/events';

/** A partial read vouches only for the lines it returned. */
class PartialView {
  private split: string[] | undefined;

  constructor(
    /** 1-based first line */
    readonly start: number,
    readonly content: string,
    readonly at: Span,
    /**
     * Lines a search printed (Grep output, a diff): enough to show the session saw them as they
     * are, not a read to hold the file against (search output may be cut short).
     */
    readonly glimpse = false,
  ) {}

  /** The lines it returned: split only when a write of the file is judged (most reads are never compared). */
  get lines(): string[] {
    return (this.split ??= splitLines(this.content));
  }
}

/** What one session has seen of one file, from its own reads and writes. */
export interface PathKnowledge {
  path: string;
  /** Last successful read of any kind (full, partial, or a shell read). */
  lastRead?: Span;
  lastWrite?: Span;
  /** The whole content the session last saw: from a full read or its own write. */
  base?: { text: string; source: 'read' | 'write'; at: Span };
  /**
   * Earlier whole versions the session saw (bases it had before `base`), newest last, by hash:
   * a file put back to one of them held nothing the session never saw (see StaleVerdict.revertedTo).
   */
  earlier?: EarlierVersion[];
  /** Partial reads since `base` was set. */
  partials: PartialView[];
  /**
   * The content the session expects is unknown: it changed the file in a way the transcript
   * does not spell out (a shell redirection, `sed -i`), or it saw the file without the transcript
   * holding its content (a shell read, an `@` mention). No staleness can be claimed until it
   * reads or writes the file again.
   */
  opaqueSince?: Span;
  /** The reads of patterns this entry has taken in: those up to this sequence number. */
  globsTaken: number;
  /** The rewrites (see FileKnowledge.noteRewrite) this entry has taken in: those up to this sequence number. */
  rewritesTaken: number;
  /**
   * A look at the file that may have shown it, but no version to judge staleness against: a
   * read in a shell call that failed, before the command the failure may have come from (see
   * FileAccess.followed), or a search of this file alone. Enough not to claim the session
   * never read it.
   */
  attemptedAt?: Span;
  /** The agent's own note that a hook changed the file (see FileChangedByHookEvent), the latest. */
  hookChange?: { at: Span; hook: string };
  /**
   * Lines of `base` the session never saw: an edit of its own went on top of a change it never
   * saw there (reported then, as not touching what the edit replaced), and `base` is what the
   * edit left, change included. A later whole write that rewrites them overwrites that change.
   */
  blind?: Blind;
}

/** See PathKnowledge.blind. */
interface Blind {
  /** 1-based ranges of `base`'s lines (a count of 0: lines deleted before that line). */
  ranges: { start: number; count: number }[];
  /** Where the session last saw the file before the change. */
  seenAt: Span;
  seenBy: StaleVerdict['seenBy'];
}

interface EarlierVersion {
  length: number;
  hash: string;
  /** A short hash of each line (see lineHash): whether a file is this version but for some lines. */
  lines: Uint32Array;
  at: Span;
  source: 'read' | 'write';
}

/** FNV-1a of a line's UTF-16 units: cheap, and only ever compared line for line at one position. */
function lineHash(line: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < line.length; i++) {
    h = Math.imul(h ^ line.charCodeAt(i), 0x01000193);
  }
  return h >>> 0;
}

function lineHashes(lines: readonly string[]): Uint32Array {
  const out = new Uint32Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    out[i] = lineHash(lines[i]!);
  }
  return out;
}

/** Earlier versions kept per file (the newest ones). */
const maxEarlierVersions = 4;

/** A read of every file a shell pattern matched (`for f in src/*.json; do cat "$f"; done`). */
interface GlobRead {
  pattern: PathPattern;
  at: Span;
  /** The command read part of each file (`sed -n '1,50p'`), not all of it. */
  partial: boolean;
  seq: number;
}

/**
 * The reads of patterns a session keeps. A session may run thousands of such loops, mostly over
 * the same few patterns: a pattern read again replaces its earlier read, and past this many
 * distinct ones the oldest is dropped (see `globFloor`).
 */
const maxGlobReads = 256;

/** A rewrite (see FileKnowledge.noteRewrite): when it ran, in order, and where. */
interface Rewrite {
  seq: number;
  at: Span;
}

/** A rewrite of the files a shell pattern matches (`sed -i … src/*.ts`). */
interface PatternRewrite extends Rewrite {
  pattern: PathPattern;
}

export interface StaleVerdict {
  /** 1-based ranges in the written-over content that changed without the session seeing them. */
  unseen: { start: number; count: number }[];
  /** An unseen change touches the region the write replaced: a lost update is likely. */
  overlaps: boolean;
  /** Where the session last saw the file (or, with partial reads only, the changed lines). */
  seenAt: Span;
  /** `lines`: the session only ever saw parts of the file; `seenAt` showed the changed lines as they were. */
  seenBy: 'read' | 'write' | 'lines';
  /**
   * What the write replaced is an earlier whole version the session saw (read or wrote) here: the
   * file went back to it (a revert, a `git checkout`, an editor's undo) after the session last saw
   * it. The change the session never saw is the return to content it knew.
   */
  revertedTo?: { at: Span; source: 'read' | 'write'; butSeen?: true };
  /** The agent noted, after the session last saw the file, that a hook changed it: the likely writer. */
  byHook?: { at: Span; hook: string };
}

/** Per-session file knowledge, fed by the engine after rules have seen each result. */
export class FileKnowledge {
  private readonly paths = new Map<string, PathKnowledge>();
  /**
   * The same paths by folder, and the folders rewritten: a rewrite, a move or a question about a
   * folder walks the names under it, not every path the session knows (a rewrite of all of them
   * at each of thousands of `git checkout .` grew as the square of the session).
   */
  private readonly folders = new FolderIndex();
  /** Rewrites of the files patterns match, by pattern, oldest first (as `globs`). */
  private readonly patternRewrites = new Map<string, PatternRewrite>();
  private rewriteSeq = 0;
  /** The last dropped pattern rewrite: what any file seen before it may have been rewritten by. */
  private rewriteFloor: Rewrite | undefined;
  /** By pattern and kind, oldest first (a pattern read again moves to the end). */
  private readonly globs = new Map<string, GlobRead>();
  private globSeq = 0;
  /** The last dropped pattern read: its sequence number and where it was. */
  private globFloor = 0;
  private globFloorAt: Span | undefined;
  /** The worktrees entered (`from` and `to`), how often one was asked for, and the copies named (see copiesInto). */
  private readonly worktrees = new Set<string>();
  private worktreeLooks = 0;
  private readonly copies = new Set<string>();
  /**
   * The session entered more worktrees, or they held more files it had seen, than are followed:
   * which files it has seen is no longer known, and no file counts as never read (see hasTried).
   */
  private lostTrack = false;
  /**
   * Folders whose files are those of another folder for the whole session (see link): a path
   * under a key is known under its value.
   */
  private readonly links = new Map<string, string>();
  /** The last line that hangs from records the file does not hold (see noteGap). */
  private gapAt: Span | undefined;

  get(path: string): PathKnowledge | undefined {
    return this.lookup(path);
  }

  /** Forgets every file: the session is done with (see RuleEngine.release). */
  release(): void {
    this.paths.clear();
    this.links.clear();
    this.folders.release();
    this.patternRewrites.clear();
    this.globs.clear();
    this.worktrees.clear();
    this.copies.clear();
  }

  /**
   * The line at `at` hangs from records the file does not hold: what the session read and wrote
   * there is unknown, so what it knew of any file may be short of what it saw.
   */
  noteGap(at: Span): void {
    // (A gap is said late when the line hung from the lost record may come before it: the latest line wins.)
    if (this.gapAt === undefined || at.line > this.gapAt.line) {
      this.gapAt = at;
    }
  }

  /** The last line hung from lost records (see noteGap), if one came after line `after`. */
  gapAfter(after: number): Span | undefined {
    return this.gapAt !== undefined && this.gapAt.line > after ? this.gapAt : undefined;
  }

  /** Has the session read or written this path (before now)? */
  hasSeen(path: string): boolean {
    const k = this.lookup(path);
    return k !== undefined && seenIn(k);
  }

  /** Has the session read or written this path, or run a read of it in a call that failed? */
  hasTried(path: string): boolean {
    return this.lostTrack || this.hasSeen(path) || this.lookup(path)?.attemptedAt !== undefined;
  }

  /**
   * The session ran a command that may have rewritten any file under `dir` (`git checkout main`,
   * `git stash`, `git pull`, a formatter on a folder), or any file a pattern `dir` matches
   * (`sed -i … src/*.ts`): what it knew of each is no longer sure, as after its own `sed -i`.
   */
  noteRewrite(dir: string, at: Span): void {
    // Recorded here and taken in by each file when it is next looked at (see takeRewrites): a
    // session may rewrite its whole tree thousands of times.
    const rewrite: Rewrite = { seq: ++this.rewriteSeq, at };
    if (!hasWildcard(dir)) {
      this.folders.noteRewrite(this.canonical(dir), rewrite);
      return;
    }
    // A pattern (`/w/src/*.ts`, see FileAccess.glob) names the files it matches; a folder, all
    // below it. A pattern rewritten again replaces its earlier rewrite (only the last one shows).
    const known = this.patternRewrites.get(dir);
    this.patternRewrites.delete(dir);
    this.patternRewrites.set(dir, { ...rewrite, pattern: known?.pattern ?? shellPattern(dir) });
    if (this.patternRewrites.size > maxGlobReads) {
      const [oldestKey, oldest] = this.patternRewrites.entries().next().value!;
      this.patternRewrites.delete(oldestKey);
      this.rewriteFloor = { seq: oldest.seq, at: oldest.at };
    }
  }

  /**
   * Takes in the rewrites since `k` last did that named it, before the reads of patterns it has
   * not taken in (the order they always had). Only the last one shows: each forgets the same
   * things, and a file the session has seen stays seen. (Only what the session had seen: a
   * rewrite shows it nothing, so a file it never read stays unread.)
   */
  private takeRewrites(path: string, k: PathKnowledge): void {
    const after = k.rewritesTaken;
    k.rewritesTaken = this.rewriteSeq;
    if (!seenIn(k)) {
      return;
    }
    let last = this.folders.lastRewrite(path, after);
    if (this.rewriteFloor && this.rewriteFloor.seq > after && this.rewriteFloor.seq > (last?.seq ?? 0)) {
      // A dropped pattern rewrite may have named this file.
      last = this.rewriteFloor;
    }
    for (const r of this.patternRewrites.values()) {
      if (r.seq > after && r.seq > (last?.seq ?? 0) && r.pattern.test(path)) {
        last = r;
      }
    }
    if (last) {
      this.setBase(k, undefined);
      k.partials = [];
      k.opaqueSince = last.at;
    }
  }

  /**
   * The files a git worktree at `to` holds of those the session has seen under `from` (see
   * WorktreeEnteredEvent): each at the same place under `to`, taken against `from` and against
   * the folders above it, since `from` may be a folder inside the repository whose root the
   * worktree checks out (the one that exists is the copy; the others name nothing). Files the
   * session already knows under `to` are left out.
   */
  copiesInto(from: string, to: string): string[] {
    const pair = `${from}\0${to}`;
    if (!this.worktrees.has(pair) && this.worktrees.size >= maxWorktrees) {
      this.lostTrack = true;
    }
    if (this.lostTrack || ++this.worktreeLooks > maxWorktreeLooks) {
      this.lostTrack = true;
      return [];
    }
    this.worktrees.add(pair);
    const out: string[] = [];
    const roots = ancestors(from, worktreeRootLevels);
    const windows = /^[A-Za-z]:[\\/]/.test(to);
    const base = to.replace(/[\\/]+$/, '');
    for (const [path, k] of this.paths) {
      if (isUnder(path, base) || !seenIn(k)) {
        continue;
      }
      for (const root of roots) {
        if (path.length > root.length && isUnder(path, root)) {
          const rel = path.slice(root.length).replace(/^[\\/]+/, '');
          const copy = `${base}${windows ? '\\' : '/'}${windows ? rel.replace(/\//g, '\\') : rel.replace(/\\/g, '/')}`;
          // (The map, not lookup(): this only asks, and must not add entries while it walks them.)
          const known = this.paths.get(copy);
          if (!known || !seenIn(known)) {
            if (!this.copies.has(copy) && this.copies.size >= maxWorktreeCopies) {
              this.lostTrack = true;
              return out;
            }
            this.copies.add(copy);
            out.push(copy);
          }
        }
      }
    }
    return out;
  }

  /**
   * Paths under `from` and under `to` name the same files for the rest of the session (a folder
   * reached through a symbolic link, a VM's mount; see PathsAliasedEvent): what the session knew
   * under `from` moves to `to` (`alias`), and every later path under `from` is known under `to`.
   * Beyond `maxLinks` folders, a new one only moves what is known (later paths stay apart).
   */
  link(from: string, to: string): void {
    if (from === to) {
      return;
    }
    if (this.links.has(from) || this.links.size < maxLinks) {
      this.links.set(from, to);
    }
    this.alias(from, to);
  }

  /** The spelling a path is known under: its folder's `to` when it is under a linked `from`. */
  private canonical(path: string): string {
    if (this.links.size === 0) {
      return path;
    }
    for (const [from, to] of this.links) {
      if (isUnder(path, from)) {
        return to + path.slice(from.length);
      }
    }
    return path;
  }

  /**
   * Paths under `from` and under `to` name the same files (see PathsAliasedEvent): each entry
   * under `from` moves to its path under `to`, unless what the session knows under that path is
   * newer, and so does each read of a pattern there.
   */
  alias(from: string, to: string): void {
    for (const [path, k] of this.under(from).map((p) => [p, this.paths.get(p)!] as const)) {
      if (path.length > from.length && isUnder(path, from)) {
        const target = to + path.slice(from.length);
        const known = this.paths.get(target);
        // Each with the rewrites of its folders taken in: those of `from` would not find it under `to`.
        this.takeRewrites(path, k);
        if (known) {
          this.takeRewrites(target, known);
        }
        if (!known || lastTouched(known) < lastTouched(k)) {
          this.remove(path);
          k.path = target;
          this.put(target, k);
        }
      }
    }
    for (const [key, g] of [...this.globs]) {
      const kind = key.slice(0, key.indexOf(':') + 1);
      const pattern = key.slice(kind.length);
      if (pattern.startsWith(`${from}/`)) {
        const moved = to.replace(/[*?[\]\\]/g, '\\$&') + pattern.slice(from.length);
        if (!this.globs.has(kind + moved)) {
          this.globs.set(kind + moved, { ...g, pattern: shellPattern(moved) });
        }
      }
    }
  }

  /**
   * The session moved `from` to `to` (`mv`): a file goes with what the session knew of it (a move
   * changes no content), replacing whatever `to` was; a folder takes its files along (`alias`).
   * A path the session knew nothing under is as any write of `to` whose content is unknown.
   */
  noteMove(from: string, to: string, at: Span): void {
    // A folder first: a pattern read (`ls specs/*`) may have matched the folder's own path too.
    if (this.under(from).some((path) => path.length > from.length && isUnder(path, from))) {
      this.alias(from, to);
      return;
    }
    const file = this.lookup(from);
    if (file && seenIn(file)) {
      this.remove(from);
      file.path = to;
      file.lastWrite = at;
      this.put(to, file);
      return;
    }
    this.noteWrite(to, at, undefined);
  }

  /** The paths under `dir` the session has seen (read, written or seen whole). */
  seenUnder(dir: string): string[] {
    const out: string[] = [];
    for (const path of this.under(dir)) {
      if (path.length > dir.length && isUnder(path, dir) && seenIn(this.paths.get(path)!)) {
        out.push(path);
      }
    }
    return out;
  }

  /** The known paths that may be below `dir` (see FolderIndex.under), in the order of `paths`. */
  private under(dir: string): string[] {
    return this.folders.under(dir);
  }

  /** Adds or replaces the entry of `path` (a new path goes last, as in any Map). */
  private put(path: string, k: PathKnowledge): void {
    if (!this.paths.has(path)) {
      this.folders.add(path);
    }
    this.paths.set(path, k);
  }

  private remove(path: string): void {
    if (this.paths.delete(path)) {
      this.folders.remove(path);
    }
  }

  /** A look at the file that may have shown it (see PathKnowledge.attemptedAt). */
  noteAttempted(path: string, at: Span): void {
    this.entry(path).attemptedAt = at;
  }

  /**
   * The session read every file `pattern` (an absolute shell pattern) matched, as they were then:
   * whole files, as a shell read (`noteSeen`), or part of each (`partial`), as a shell read of
   * lines the transcript does not hold. Which files matched is not known here; a path takes the
   * read in when it is next looked at, in order with what else happened to it.
   */
  noteSeenGlob(pattern: string, at: Span, partial: boolean): void {
    const key = (partial ? 'part:' : 'whole:') + pattern;
    const known = this.globs.get(key);
    this.globs.delete(key);
    this.globs.set(key, { pattern: known?.pattern ?? shellPattern(pattern), at, partial, seq: ++this.globSeq });
    if (this.globs.size > maxGlobReads) {
      const [oldestKey, oldest] = this.globs.entries().next().value!;
      this.globs.delete(oldestKey);
      this.globFloor = oldest.seq;
      this.globFloorAt = oldest.at;
    }
  }

  /** The entry of `path`, with the pattern reads since it last changed taken in; undefined when there is none. */
  private lookup(spelled: string): PathKnowledge | undefined {
    const path = this.canonical(spelled);
    const k = this.paths.get(path);
    if (k && k.rewritesTaken !== this.rewriteSeq) {
      this.takeRewrites(path, k);
    }
    if (k?.globsTaken === this.globSeq || this.globs.size === 0) {
      return k;
    }
    return this.takeGlobs(path, k);
  }

  private entry(path: string): PathKnowledge {
    return this.lookup(path) ?? this.create(this.canonical(path));
  }

  private create(path: string): PathKnowledge {
    const k: PathKnowledge = { path, partials: [], globsTaken: this.globSeq, rewritesTaken: this.rewriteSeq };
    this.put(path, k);
    return k;
  }

  /** Applies, in order, the pattern reads after `k` last changed that matched `path`. */
  private takeGlobs(path: string, k: PathKnowledge | undefined): PathKnowledge | undefined {
    const after = k?.globsTaken ?? 0;
    if (k && after < this.globFloor) {
      // A dropped pattern read may have shown the session this file since it last changed: what
      // it expects is unknown. (A path with no entry only loses a read it may have had.)
      this.setBase(k, undefined);
      k.partials = [];
      k.opaqueSince = this.globFloorAt;
    }
    let out = k;
    for (const g of this.globs.values()) {
      if (g.seq <= after || !g.pattern.test(path)) {
        continue;
      }
      out ??= this.create(path);
      if (g.partial) {
        out.lastRead = g.at;
      } else {
        this.seen(out, g.at);
      }
    }
    if (out) {
      out.globsTaken = this.globSeq;
    }
    return out;
  }

  /**
   * Replaces what the session knows the whole file holds; the version it knew before is kept, by
   * its hash, among the earlier ones. (Hashing costs a pass over the text, once per version.)
   */
  private setBase(k: PathKnowledge, base: PathKnowledge['base']): void {
    const old = k.base;
    if (old && old.text !== base?.text) {
      const list = (k.earlier ??= []);
      if (list.length >= maxEarlierVersions) {
        list.shift();
      }
      list.push({ length: old.text.length, hash: contentHash(old.text), lines: lineHashes(splitLines(old.text)), at: old.at, source: old.source });
    }
    k.base = base;
  }

  /** The earlier whole version the session saw that `text` is, if any (see PathKnowledge.earlier). */
  private earlierVersion(k: PathKnowledge, text: string): EarlierVersion | undefined {
    let hash: string | undefined;
    for (let i = (k.earlier?.length ?? 0) - 1; i >= 0; i--) {
      const v = k.earlier![i]!;
      if (v.length === text.length && v.hash === (hash ??= contentHash(text))) {
        return v;
      }
    }
    return undefined;
  }

  /**
   * The earlier whole version the session saw that `before` (a file's lines) is but for lines it
   * has seen since as they are now (its partial reads of the file since `base`), if any. A file
   * put back to a version the session read, with a line or two changed that the session then
   * read again, held nothing the session never saw (thirty-fifth set: the person saved their own
   * copy of a prompt over the session's `Write`, with a typo fixed on line 3, which a 50-line
   * `Read` showed; the session then wrote the file whole again).
   */
  private earlierBarSeen(k: PathKnowledge, before: readonly string[], shownNow: () => Set<number>): EarlierVersion | undefined {
    if (!k.earlier || k.partials.length === 0) {
      return undefined;
    }
    let hashes: Uint32Array | undefined;
    for (let i = k.earlier.length - 1; i >= 0; i--) {
      const v = k.earlier[i]!;
      if (v.lines.length !== before.length) {
        continue;
      }
      hashes ??= lineHashes(before);
      const shown = shownNow();
      let same = true;
      for (let j = 0; j < hashes.length && same; j++) {
        same = v.lines[j] === hashes[j] || shown.has(j + 1);
      }
      if (same) {
        return v;
      }
    }
    return undefined;
  }

  noteRead(path: string, at: Span, snapshot?: ReadSnapshot): void {
    const k = this.entry(path);
    k.lastRead = at;
    if (!snapshot) {
      return;
    }
    const full = snapshot.startLine <= 1 && snapshot.numLines >= snapshot.totalLines;
    if (full) {
      this.setBase(k, { text: snapshot.content, source: 'read', at });
      k.partials = [];
      k.opaqueSince = undefined;
      k.blind = undefined;
    } else if (snapshot.numLines > 0) {
      addPartial(k, new PartialView(snapshot.startLine, snapshot.content, at));
    }
  }

  /**
   * The agent showed the model `lines` of the file from line `start`, as they are now (Claude
   * Code's note on a file that changed under the session): a partial read of them. A
   * `glimpse` (search output) only vouches that those lines were seen: not a read of the file.
   */
  noteShown(path: string, at: Span, start: number, lines: readonly string[], glimpse = false): void {
    const k = this.entry(path);
    if (!glimpse) {
      k.lastRead = at;
    }
    addPartial(k, new PartialView(start, lines.join('\n'), at, glimpse));
  }

  /** `write`: the write's snapshot, when its result recorded one (what it replaced, whether whole). */
  noteWrite(path: string, at: Span, after: string | undefined, write?: WriteSnapshot): void {
    const k = this.entry(path);
    k.lastWrite = at;
    if (after === undefined) {
      this.setBase(k, undefined);
      k.partials = [];
      k.opaqueSince = at;
      k.blind = undefined;
    } else {
      const blind = write && !write.whole && write.after === after ? this.blindAfter(k, write, after) : undefined;
      this.setBase(k, { text: after, source: 'write', at });
      k.partials = [];
      k.opaqueSince = undefined;
      k.blind = blind;
    }
  }

  /**
   * The lines an edit leaves that the session never saw: those of a change it went on top of
   * (judged here as stale-write judged it), and those the session had not seen before it and the
   * edit did not replace, moved to where the edit leaves them. An edit quotes what it replaces,
   * so lines it replaced are seen. Nothing when the edit overwrote the change (that finding says
   * it all) or the file went back to an earlier version.
   */
  private blindAfter(k: PathKnowledge, write: WriteSnapshot, after: string): Blind | undefined {
    if (!k.base || k.opaqueSince || write.before === null) {
      return undefined;
    }
    if (k.base.text === write.before || sameNormalised(k.base.text, write.before)) {
      if (!k.blind) {
        return undefined;
      }
      const before = splitLines(write.before);
      return moved({ ...k.blind, ranges: stillUnseen(k, k.blind.ranges, before) }, before, splitLines(after));
    }
    const before = splitLines(write.before);
    const verdict = this.judge(write);
    if (!verdict || verdict.overlaps || verdict.revertedTo) {
      return undefined;
    }
    const earlier = k.blind ? moved(k.blind, splitLines(k.base.text), before) : undefined;
    const ranges = mergeRanges([...verdict.unseen, ...(earlier ? stillUnseen(k, earlier.ranges, before) : [])]);
    return moved({ ranges, seenAt: earlier?.seenAt ?? verdict.seenAt, seenBy: earlier?.seenBy ?? verdict.seenBy }, before, splitLines(after));
  }

  /**
   * The session saw the whole file as it was then, but the transcript does not hold what it
   * held: a shell read (`cat`), or a file a person named with `@`. Whatever the session knew of it
   * before is superseded, and no staleness can be claimed until it reads or writes it again.
   */
  noteSeen(path: string, at: Span): void {
    this.seen(this.entry(path), at);
  }

  private seen(k: PathKnowledge, at: Span): void {
    k.lastRead = at;
    this.setBase(k, undefined);
    k.partials = [];
    k.opaqueSince = at;
    k.blind = undefined;
  }

  /** The agent noted that a hook changed the file (its content unknown here). */
  noteHookChange(path: string, at: Span, hook: string): void {
    this.entry(path).hookChange = { at, hook };
  }

  noteDelete(path: string, at: Span): void {
    const k = this.entry(path);
    k.lastWrite = at;
    this.setBase(k, undefined);
    k.partials = [];
    k.opaqueSince = undefined;
    k.blind = undefined;
  }

  /**
   * Was `write.before` (what the write actually replaced) something the session had seen?
   * Undefined when it was, or when the session's expectation is unknown.
   */
  judge(write: WriteSnapshot): StaleVerdict | undefined {
    const k = this.lookup(write.path);
    if (!k || k.opaqueSince || write.before === null) {
      return undefined;
    }
    let unseen: { start: number; count: number }[];
    let seenAt: Span;
    let seenBy: StaleVerdict['seenBy'];
    let revertedTo: StaleVerdict['revertedTo'];
    if (k.base) {
      // The common case, checked without copying either text.
      if (k.base.text === write.before || sameNormalised(k.base.text, write.before)) {
        return k.blind ? judgeBlind(k, k.blind, write) : undefined;
      }
      const before = splitLines(write.before);
      seenAt = k.base.at;
      seenBy = k.base.source;
      // Which lines the session's partial reads show as they are now: worked out once, for the
      // three questions below that need it.
      let shown: Set<number> | undefined;
      const shownNow = (): Set<number> => (shown ??= shownAsTheyAre(k.partials, before));
      const exact = this.earlierVersion(k, write.before);
      const earlier = exact ?? this.earlierBarSeen(k, before, shownNow);
      if (earlier) {
        revertedTo = exact ? { at: earlier.at, source: earlier.source } : { at: earlier.at, source: earlier.source, butSeen: true };
      }
      // (Beyond the diff's bounds, only lines the session never saw anywhere in the file.)
      let counts: Int32Array | undefined;
      const seenBefore = (): Int32Array => (counts ??= runningCounts(shownNow(), before.length));
      unseen = changedRegions(splitLines(k.base.text), before).map((h) => ({
        start: k.partials.length === 0 ? h.bStart + 1 : placedWhereSeen(h, before, seenBefore) + 1,
        // A pure deletion still marks the place it happened.
        count: Math.max(h.bCount, 0),
      }));
      unseen = subtractSeen(unseen, k.partials, before, shownNow);
    } else if (k.partials.some((p) => !p.glimpse)) {
      // Only partial views: each vouches for its own lines at their own positions.
      const before = splitLines(write.before);
      unseen = [];
      /** The read that showed each unseen line as it was, not as it is. */
      const shownBy = new Map<number, PartialView>();
      for (const p of k.partials) {
        if (p.glimpse) {
          // Search output shows lines as they were, maybe cut short: it only clears lines.
          continue;
        }
        for (let i = 0; i < p.lines.length; i++) {
          const lineNo = p.start + i;
          if (before[lineNo - 1] !== p.lines[i]) {
            unseen.push({ start: lineNo, count: 1 });
            shownBy.set(lineNo, p);
          }
        }
      }
      // Later partial reads supersede earlier ones over the same lines.
      unseen = subtractSeen(unseen, k.partials, before, () => shownAsTheyAre(k.partials, before));
      // The lines changed after the read that last showed them as they were, which need not be
      // the session's last read of the file (that one may have shown other lines).
      let from = k.partials.find((p) => !p.glimpse)!;
      for (const u of unseen) {
        const p = shownBy.get(u.start);
        if (p && p.at.line > from.at.line) {
          from = p;
        }
      }
      seenAt = from.at;
      seenBy = 'lines';
    } else {
      return undefined;
    }
    if (write.quoted && unseen.length > 0) {
      // Lines the edit's old_string quoted as they are: the session stated them, so no change
      // there went unseen (the edit applies only where old_string matches exactly).
      unseen = unquoted(unseen, write.quoted);
    }
    if (unseen.length === 0) {
      return undefined;
    }
    // An edit whose every old_string was found replaced those lines and nothing else, each quoted
    // as it is (`unquoted` took them out above). A deletion still unseen is then at the edge of
    // what it replaced, not between two lines it quoted: the deleted lines stay deleted, and the
    // edit overwrote no change (Claude Code 1.0.84: an overload removed by the person right above
    // the method the session then edited). A Write, or a patch's hunks, replaced whole regions:
    // there a deletion at the edge still counts.
    const changes = sameRanges(write.replaced, write.quoted) ? unseen.filter((u) => u.count > 0) : unseen;
    // A Write replaced every line, but it may have written the changed ones back as they are
    // (Claude Code 2.1.81: the person added `import Foundation` to a file the session then wrote
    // whole, its new text holding that import too): only the lines it changed can be lost.
    const overlaps = write.whole && write.after !== undefined
      ? rewritesAny(changes, diffLines(splitLines(write.before), splitLines(write.after)))
      : write.replaced.length === 0 || touchesAny(changes, write.replaced);
    const verdict: StaleVerdict = { unseen: mergeRanges(unseen), overlaps, seenAt, seenBy };
    if (revertedTo) {
      verdict.revertedTo = revertedTo;
    }
    if (k.hookChange && k.hookChange.at.line > seenAt.line) {
      verdict.byHook = k.hookChange;
    }
    return verdict;
  }
}

/**
 * Claude Code's auto-memory index, `<config>/projects/<project>/memory/MEMORY.md`: Claude Code
 * puts it in the system prompt at the start of a session, with no record in the transcript.
 */
const autoMemoryIndex = /[\\/]\.claude[\\/]projects[\\/][^\\/]+[\\/]memory[\\/]MEMORY\.md$/;

/**
 * Files Claude Code puts in the context itself at the start of a session, with no record in
 * the transcript (write-before-read and the guard's unread-write both honour it): its auto-memory index, and the CLAUDE.md (or CLAUDE.local.md) of the project
 * folder, of a folder above it, or of its .claude folder.
 */
export function loadedByClaudeCode(path: string, cwd: string | undefined): boolean {
  if (autoMemoryIndex.test(path)) {
    return true;
  }
  const m = /^(.*)[\\/](?:CLAUDE|CLAUDE\.local)\.md$/.exec(path);
  if (!m || cwd === undefined) {
    return false;
  }
  const dir = m[1]!.replace(/[\\/]\.claude$/, '');
  return dir === '' || isUnder(cwd, dir);
}

/** Has the session read or written the file, or seen it whole (see FileKnowledge.hasSeen)? */
function seenIn(k: PathKnowledge): boolean {
  return k.lastRead !== undefined || k.lastWrite !== undefined || k.opaqueSince !== undefined;
}

/** The line of the last thing the session did to or learned of the file. */
function lastTouched(k: PathKnowledge): number {
  return Math.max(k.lastRead?.line ?? 0, k.lastWrite?.line ?? 0, k.opaqueSince?.line ?? 0, k.attemptedAt?.line ?? 0);
}

/** Linked folders followed per session (see FileKnowledge.link): a few symbolic links, each named once per folder it holds. */
const maxLinks = 256;

/**
 * Worktrees a session is followed into, and how often they may be asked for (the live monitor
 * and the engine each ask once per record; a resumed session writes its record again). Each
 * one copies what the session has seen under up to `worktreeRootLevels` roots, copies
 * included: unbounded, a few dozen records of a chain of worktrees made the copies grow as a
 * power of their number (12 records of 50 files read: a minute and 2 GB).
 */
const maxWorktrees = 16;
const maxWorktreeLooks = 256;
/** Files copied into worktrees, in all (a session has seen a few thousand files at most). */
const maxWorktreeCopies = 50_000;

/**
 * How far above the session's folder a worktree's root may be: the session's folder is usually
 * the repository's root or one or two levels inside it.
 */
const worktreeRootLevels = 4;

/** `dir` and up to `levels - 1` folders above it, stopping short of the file system's root. */
function ancestors(dir: string, levels: number): string[] {
  const out: string[] = [];
  let d = dir.replace(/[\\/]+$/, '');
  while (out.length < levels && /[\\/]./.test(d) && !/^[A-Za-z]:$/.test(d)) {
    out.push(d);
    const cut = Math.max(d.lastIndexOf('/'), d.lastIndexOf('\\'));
    if (cut <= 0) {
      break;
    }
    d = d.slice(0, cut);
    if (/^[A-Za-z]:$/.test(d)) {
      break;
    }
  }
  return out;
}

/** Is `path` `dir` itself or a file below it (POSIX or Windows separators)? */
export function isUnder(path: string, dir: string): boolean {
  if (!path.startsWith(dir)) {
    return false;
  }
  const next = path.charCodeAt(dir.length);
  const last = dir.charCodeAt(dir.length - 1);
  return path.length === dir.length || next === 0x2f || next === 0x5c || last === 0x2f || last === 0x5c;
}

/**
 * `normalise(a) === normalise(b)` where normalise turns CRLF into LF and drops one final LF,
 * compared in place: no copy of either text (they are whole files).
 */
function sameNormalised(a: string, b: string): boolean {
  const aEnd = normalisedEnd(a);
  const bEnd = normalisedEnd(b);
  if (a.indexOf('\r') === -1 && b.indexOf('\r') === -1) {
    // Nothing to convert: equal when the kept parts are.
    return aEnd === bEnd && (aEnd === a.length ? a : a.slice(0, aEnd)) === (bEnd === b.length ? b : b.slice(0, bEnd));
  }
  let i = 0;
  let j = 0;
  while (i < aEnd && j < bEnd) {
    let ca = a.charCodeAt(i++);
    let cb = b.charCodeAt(j++);
    if (ca === cr && i < aEnd && a.charCodeAt(i) === lf) {
      ca = lf;
      i++;
    }
    if (cb === cr && j < bEnd && b.charCodeAt(j) === lf) {
      cb = lf;
      j++;
    }
    if (ca !== cb) {
      return false;
    }
  }
  return i === aEnd && j === bEnd;
}

const cr = 0x0d;
const lf = 0x0a;

/** Where the normalised text's last character comes from: before a final LF or CRLF. */
function normalisedEnd(text: string): number {
  const n = text.length;
  if (n > 0 && text.charCodeAt(n - 1) === lf) {
    return n > 1 && text.charCodeAt(n - 2) === cr ? n - 2 : n - 1;
  }
  return n;
}

/** Are `a` and `b` the same line ranges, in the same order (an edit's replaced region being exactly its quotes)? */
function sameRanges(a: readonly { start: number; count: number }[], b: readonly { start: number; count: number }[] | undefined): boolean {
  return b !== undefined && a.length === b.length && a.every((r, i) => r.start === b[i]!.start && r.count === b[i]!.count);
}

/** `unseen` without the lines `quoted` covers (a deletion counts where it happened: between two lines). */
function unquoted(unseen: { start: number; count: number }[], quoted: readonly { start: number; count: number }[]): { start: number; count: number }[] {
  const covered = (line: number): boolean => quoted.some((q) => line >= q.start && line < q.start + q.count);
  const out: { start: number; count: number }[] = [];
  for (const u of unseen) {
    if (u.count === 0) {
      if (!(covered(u.start - 1) && covered(u.start))) {
        out.push(u);
      }
      continue;
    }
    let run: { start: number; count: number } | undefined;
    for (let line = u.start; line < u.start + u.count; line++) {
      if (covered(line)) {
        run = undefined;
      } else if (run) {
        run.count++;
      } else {
        run = { start: line, count: 1 };
        out.push(run);
      }
    }
  }
  return out;
}

/**
 * A write of what the session last wrote, where its earlier edit went on top of a change it never
 * saw: does it replace those lines (not seen since as they are, nor quoted by this write),
 * overwriting the change? A whole write (Claude Code's `Write`) only where its text changes them:
 * written back as they are, nothing is lost, and the edit's own finding said the rest. Otherwise
 * where the lines it replaced are known (Gemini CLI's `write_file`: all of them).
 */
function judgeBlind(k: PathKnowledge, blind: Blind, write: WriteSnapshot): StaleVerdict | undefined {
  if (write.before === null) {
    return undefined;
  }
  const before = splitLines(write.before);
  let unseen = stillUnseen(k, blind.ranges, before);
  if (write.quoted) {
    unseen = unquoted(unseen, write.quoted);
  }
  // Only the lines this write overwrites: the finding names what it lost, not all the edit left.
  const hunks = write.whole && write.after !== undefined ? diffLines(before, splitLines(write.after)) : undefined;
  const overwritten = unseen.filter((u) => (hunks ? rewritesAny([u], hunks) : write.replaced.length > 0 && touchesAny([u], write.replaced)));
  if (overwritten.length === 0) {
    return undefined;
  }
  const verdict: StaleVerdict = { unseen: mergeRanges(overwritten), overlaps: true, seenAt: blind.seenAt, seenBy: blind.seenBy };
  if (k.hookChange && k.hookChange.at.line > blind.seenAt.line) {
    verdict.byHook = k.hookChange;
  }
  return verdict;
}

/** Of blind ranges of `before` (the file as it is now), those no partial read since showed as they are. */
function stillUnseen(k: PathKnowledge, ranges: { start: number; count: number }[], before: readonly string[]): { start: number; count: number }[] {
  return subtractSeen(ranges, k.partials, before, () => shownAsTheyAre(k.partials, before));
}

/**
 * Blind ranges of `before` where a write that turned it into `after` leaves them; those it
 * replaced (or split with an insertion) are dropped: an edit quotes what it replaces.
 */
function moved(blind: Blind, before: readonly string[], after: readonly string[]): Blind | undefined {
  const hunks = diffLines(before, after);
  const ranges: { start: number; count: number }[] = [];
  for (const r of blind.ranges) {
    const s = r.start - 1;
    const e = s + r.count;
    let shift = 0;
    let replaced = false;
    for (const h of hunks) {
      if (h.aStart + h.aCount <= s) {
        shift += h.bCount - h.aCount;
      } else if (h.aStart >= e) {
        break;
      } else {
        replaced = true;
        break;
      }
    }
    if (!replaced) {
      ranges.push({ start: r.start + shift, count: r.count });
    }
  }
  return ranges.length > 0 ? { ...blind, ranges } : undefined;
}

/**
 * Do the lines a whole-file write changed (`hunks`, of `before` against what it wrote) touch a
 * change the session never saw? A changed line it wrote back as it was is kept. A deletion is
 * touched by a change of a line on either side of it, and by lines inserted where it was (the
 * deleted lines may be back). Each change is one search (see touchesAny), not a pass over the hunks.
 */
function rewritesAny(unseen: readonly { start: number; count: number }[], hunks: readonly DiffHunk[]): boolean {
  const replaced: { start: number; count: number }[] = [];
  const insertedAt = new Set<number>();
  for (const h of hunks) {
    if (h.aCount > 0) {
      replaced.push({ start: h.aStart + 1, count: h.aCount });
    } else {
      insertedAt.add(h.aStart + 1);
    }
  }
  if (unseen.some((u) => u.count === 0 && insertedAt.has(u.start))) {
    return true;
  }
  // A deletion before line n, widened to lines n-1 and n.
  return touchesAny(unseen.map((u) => (u.count > 0 ? u : { start: u.start - 1, count: 2 })), replaced);
}

/**
 * Does a changed range touch a replaced range? A zero-length change (a deletion) counts at its
 * position; a zero-length replaced range (an insertion) touches nothing. The replaced ranges are
 * sorted once, with the furthest end reached so far: each change is one search, not a pass over
 * them all (tens of thousands of lines unseen and of patch hunks took seconds a write, growing
 * as the product).
 */
export function touchesAny(unseen: readonly { start: number; count: number }[], replaced: readonly { start: number; count: number }[]): boolean {
  // The write only inserted lines where a count is 0: it overwrote nothing, however close the change.
  const ranges = replaced.filter((r) => r.count > 0).sort((a, b) => a.start - b.start);
  const furthest: number[] = [];
  for (const r of ranges) {
    furthest.push(Math.max(furthest[furthest.length - 1] ?? -Infinity, r.start + r.count));
  }
  return unseen.some((u) => {
    const uEnd = u.start + Math.max(u.count, 1);
    // How many replaced ranges start before the change ends.
    let lo = 0;
    let hi = ranges.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (ranges[mid]!.start < uEnd) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo > 0 && furthest[lo - 1]! > u.start;
  });
}

/**
 * Adds a partial view, replacing the newest one when the new one shows the same lines the same
 * way, from a later line: a session that reads one window of a file (`sed -n 1,200p`, a Read with an offset) or
 * greps it again and again, with no whole read or write between, would otherwise keep every copy
 * of the same text until its next write. The replaced view can change no verdict: `judge` reads a
 * view's lines and start (the same), and a view's place only to find, among the views that
 * showed an unseen line, the newest, and else the first non-glimpse view. The new view is the
 * newest either way, and when the old one was the first non-glimpse view it was also the only
 * other one, so every unseen line was shown by the new one and it is chosen either way.
 */
function addPartial(k: PathKnowledge, view: PartialView): void {
  const last = k.partials[k.partials.length - 1];
  if (last !== undefined && view.at.line > last.at.line && last.start === view.start && last.glimpse === view.glimpse && last.content === view.content) {
    k.partials[k.partials.length - 1] = view;
    return;
  }
  k.partials.push(view);
}

/** The 1-based lines of `before` some partial view shows as they are. */
function shownAsTheyAre(partials: readonly PartialView[], before: readonly string[]): Set<number> {
  const seen = new Set<number>();
  for (const p of partials) {
    for (let i = 0; i < p.lines.length; i++) {
      const lineNo = p.start + i;
      if (before[lineNo - 1] === p.lines[i]) {
        seen.add(lineNo);
      }
    }
  }
  return seen;
}

/** How far an inserted block is moved along equal lines to find where the session saw it. */
const maxSlide = 64;

/**
 * Where a diff puts a block inserted next to lines equal to its own ends is its choice, not the
 * file's: `---`, a blank line, then 25 new lines ending in `---` and a blank line, inserted after
 * such a pair, may be the diff's lines 42–66 or the same text at 40–64. Thirty-seventh set: a
 * 65-line `Read` showed the whole insertion as it is, yet the diff's placement left its last
 * (blank) line at 66, unseen. Of the places the block can slide to, the one with the fewest lines
 * the session did not see as they are (the diff's own first, among equals).
 */
function placedWhereSeen(h: DiffHunk, b: readonly string[], seenBefore: () => Int32Array): number {
  const n = h.bCount;
  if (h.aCount !== 0 || n === 0) {
    return h.bStart;
  }
  // (Counted from one table of the whole file, made once per write: a hunk per line of a large
  // file, each counting its lines again, would be the square of the file.)
  const seen = seenBefore();
  const unseenAt = (s: number): number => n - (seen[s + n]! - seen[s]!);
  let best = h.bStart;
  let fewest = unseenAt(best);
  // Up: the line above the block equals its last line; down: the line below equals its first.
  for (let s = h.bStart, steps = 0; fewest > 0 && steps < maxSlide && s > 0 && b[s - 1] === b[s + n - 1]; steps++) {
    s--;
    const u = unseenAt(s);
    if (u < fewest) {
      best = s;
      fewest = u;
    }
  }
  for (let s = h.bStart, steps = 0; fewest > 0 && steps < maxSlide && s + n < b.length && b[s] === b[s + n]; steps++) {
    s++;
    const u = unseenAt(s);
    if (u < fewest) {
      best = s;
      fewest = u;
    }
  }
  return best;
}

/** For each i of 0..lines, how many of lines 1..i are in `seen`. */
function runningCounts(seen: ReadonlySet<number>, lines: number): Int32Array {
  const counts = new Int32Array(lines + 1);
  for (let i = 1; i <= lines; i++) {
    counts[i] = counts[i - 1]! + (seen.has(i) ? 1 : 0);
  }
  return counts;
}

/** Removes lines a later partial read showed the session exactly as they are now (`shown`, see shownAsTheyAre). */
function subtractSeen(
  ranges: { start: number; count: number }[],
  partials: readonly PartialView[],
  before: readonly string[],
  shown: () => ReadonlySet<number>,
): { start: number; count: number }[] {
  if (partials.length === 0) {
    return ranges;
  }
  const seen = shown();
  const out: { start: number; count: number }[] = [];
  for (const r of ranges) {
    if (r.count === 0) {
      // A deletion before line `r.start`: seen only if one read showed the lines on both sides
      // of it next to each other as they are now (or the first line as the file's first).
      if (!partials.some((p) => showsAdjacent(p, r.start, before))) {
        out.push(r);
      }
      continue;
    }
    for (let l = r.start; l < r.start + r.count; l++) {
      if (!seen.has(l)) {
        out.push({ start: l, count: 1 });
      }
    }
  }
  return out;
}

/** Did partial view `p` show lines `line - 1` and `line` of `before`, together and unchanged? */
function showsAdjacent(p: PartialView, line: number, before: readonly string[]): boolean {
  const first = line === 1 ? 1 : line - 1;
  const last = p.start + p.lines.length - 1;
  if (first < p.start || line > last || line > before.length) {
    return false;
  }
  for (let l = first; l <= line; l++) {
    if (p.lines[l - p.start] !== before[l - 1]) {
      return false;
    }
  }
  return true;
}

function mergeRanges(ranges: { start: number; count: number }[]): { start: number; count: number }[] {
  const sorted = [...ranges].sort((a, b) => a.start - b.start);
  const out: { start: number; count: number }[] = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r.start <= last.start + last.count) {
      last.count = Math.max(last.count, r.start + r.count - last.start);
    } else {
      out.push({ ...r });
    }
  }
  return out;
}

/** A folder of FolderIndex, reached by the steps of its path. */
interface FolderNode {
  /** By step: a name and the separator after it (`src/`). */
  children?: Map<string, FolderNode>;
  /** Paths known at or below it. */
  through: number;
  /** Paths known whose last separator leads here, with the order they became known in. */
  ends?: Map<string, number>;
  /** The last rewrite of this folder (of a path ending with a separator, as `/w/`). */
  rewrite?: Rewrite;
  /** The last rewrite of a path here that does not end with a separator, by its last name (`/w`, `/w/a.ts`). */
  named?: Map<string, Rewrite>;
}

/**
 * Known paths and rewritten folders, by the steps of their paths (each name with the separator
 * after it: `/`, `home/`, `dev/`, then the last name), so that `isUnder` is answered walking
 * one path, not every known one: `isUnder(p, d)` holds when `d` is `p`, or `p` goes on past `d`
 * with a separator, or `d` ends with one.
 */
class FolderIndex {
  private readonly root: FolderNode = { through: 0 };
  private order = 0;

  /** Emptied in place, not replaced: see RuleEngine.release for why. */
  release(): void {
    const root = this.root;
    root.children?.clear();
    root.ends?.clear();
    root.named?.clear();
    root.rewrite = undefined;
    root.through = 0;
  }

  add(path: string): void {
    const { steps } = splitSteps(path);
    let node = this.root;
    node.through++;
    for (const s of steps) {
      node = childOf(node, s);
      node.through++;
    }
    (node.ends ??= new Map<string, number>()).set(path, ++this.order);
  }

  remove(path: string): void {
    const { steps } = splitSteps(path);
    let node: FolderNode | undefined = this.root;
    node.through--;
    for (const s of steps) {
      node = node.children?.get(s);
      if (!node) {
        return;
      }
      node.through--;
    }
    node.ends?.delete(path);
  }

  /**
   * The known paths `p` with `isUnder(p, dir)` and more to them than `dir` (with some that are
   * `dir` itself), in the order they became known.
   */
  under(dir: string): string[] {
    const { steps, rest } = splitSteps(dir);
    let node: FolderNode | undefined = this.root;
    for (const s of steps) {
      node = node.children?.get(s);
      if (!node) {
        return [];
      }
    }
    const stack: (FolderNode | undefined)[] = rest === '' && dir !== '' ? [node] : [node.children?.get(`${rest}/`), node.children?.get(`${rest}\\`)];
    const found: [string, number][] = [];
    for (let n = stack.pop(); n !== undefined || stack.length > 0; n = stack.pop()) {
      if (!n || n.through === 0) {
        continue;
      }
      for (const e of n.ends ?? []) {
        found.push(e);
      }
      for (const c of n.children?.values() ?? []) {
        stack.push(c);
      }
    }
    return found.sort((a, b) => a[1] - b[1]).map((e) => e[0]);
  }

  /** Records a rewrite of everything `isUnder` `dir` (a path without wildcards). */
  noteRewrite(dir: string, rewrite: Rewrite): void {
    const { steps, rest } = splitSteps(dir);
    let node = this.root;
    for (const s of steps) {
      node = childOf(node, s);
    }
    if (rest === '' && dir !== '') {
      node.rewrite = rewrite;
    } else {
      (node.named ??= new Map<string, Rewrite>()).set(rest, rewrite);
    }
  }

  /** The last rewrite after sequence number `after` of a folder `path` is under (or of `path`). */
  lastRewrite(path: string, after: number): Rewrite | undefined {
    let last: Rewrite | undefined;
    const consider = (r: Rewrite | undefined): void => {
      if (r && r.seq > after && r.seq > (last?.seq ?? 0)) {
        last = r;
      }
    };
    const { steps, rest } = splitSteps(path);
    let node: FolderNode | undefined = this.root;
    for (const s of steps) {
      // `dir` is the folder this step names, without its separator.
      consider(node.named?.get(s.slice(0, -1)));
      node = node.children?.get(s);
      if (!node) {
        return last;
      }
      consider(node.rewrite);
    }
    consider(node.named?.get(rest));
    return last;
  }
}

/** The folder `node` holds at `step`, made if new. */
function childOf(node: FolderNode, step: string): FolderNode {
  const children = (node.children ??= new Map<string, FolderNode>());
  let next = children.get(step);
  if (!next) {
    next = { through: 0 };
    children.set(step, next);
  }
  return next;
}

/** `path` cut after each separator (`/` or `\`): the steps, then what follows the last one. */
function splitSteps(path: string): { steps: string[]; rest: string } {
  const steps: string[] = [];
  let from = 0;
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c === 0x2f || c === 0x5c) {
      steps.push(path.slice(from, i + 1));
      from = i + 1;
    }
  }
  return { steps, rest: path.slice(from) };
}
