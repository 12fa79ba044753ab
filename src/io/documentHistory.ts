import type { ForeignChangeVerdict } from '../core/engine/rule';
import type { NormalizedEvent } from '../core/model/events';

/**
 * What the earlier versions of a transcript rewritten whole (a Gemini CLI legacy session) did
 * to the working tree. Each version is read from its start, but the working tree must see each
 * read and write once, when it first appeared: fed again, an old read would count as seen now
 * (hiding a change someone made since) and an old write would open a window now (taking the
 * blame for someone else's change). And a write's verdict on the tree was given when the write
 * was new: asked again later, the tree would judge it against what the session did since.
 *
 * Kept for as long as the session: one entry per event that touches the tree and per write
 * judged, never the versions themselves.
 */
export class DocumentHistory {
  /** How many events of each key the tree has been fed, over all versions. */
  private readonly fed = new Map<string, number>();
  private readonly verdicts = new WriteVerdicts(true);

  /** A version starts: says of each of its events, in order, whether an earlier version fed it. */
  version(): (e: NormalizedEvent) => boolean {
    const counts = new Map<string, number>();
    return (e) => {
      const key = treeKey(e);
      if (key === undefined) {
        return false;
      }
      // The n-th event of a key in this version is the n-th of the earlier ones (a duplicate
      // result is a second event with its call's id).
      const n = (counts.get(key) ?? 0) + 1;
      counts.set(key, n);
      if (n <= (this.fed.get(key) ?? 0)) {
        return true;
      }
      this.fed.set(key, n);
      return false;
    };
  }

  /** The verdict given on this write when it was first judged; `judge` gives it the first time. */
  verdict(callId: string, path: string, judge: () => ForeignChangeVerdict | undefined): ForeignChangeVerdict | undefined {
    return this.verdicts.verdict(callId, path, judge);
  }
}

/**
 * The working tree's verdict on each write of a transcript, as it gave it when the write was new:
 * asked again once the transcript is read again, the tree would judge the write against what the
 * session did since. `keepNone`: remember that a write was judged clean too (a rewritten
 * document's few writes); otherwise only the changes found are kept, a few per transcript.
 */
export class WriteVerdicts {
  private readonly given = new Map<string, ForeignChangeVerdict | undefined>();

  constructor(private readonly keepNone: boolean) {}

  /** The verdict given on this write when it was first judged; `judge` gives it the first time. */
  verdict(callId: string, path: string, judge: () => ForeignChangeVerdict | undefined): ForeignChangeVerdict | undefined {
    const key = `${callId}\0${path}`;
    if (this.given.has(key)) {
      return this.given.get(key);
    }
    const v = judge();
    if (v || this.keepNone) {
      this.given.set(key, v);
    }
    return v;
  }
}

/** What identifies an event the working tree hears of across versions; undefined for the rest. */
function treeKey(e: NormalizedEvent): string | undefined {
  switch (e.kind) {
    case 'call':
      return `call\0${e.callId}`;
    case 'result':
      return `result\0${e.callId}`;
    case 'file-attached':
    case 'file-created':
      return `${e.kind}\0${e.path}`;
    case 'worktree-entered':
      return `worktree\0${e.from}\0${e.to}`;
    case 'text':
      return e.mentions ? `mentions\0${e.mentions.join('\0')}` : undefined;
    default:
      return undefined;
  }
}
