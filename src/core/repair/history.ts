import type { Lines } from './lines';

/**
 * Claude Code: where a line's history leaves the file. Walks up from the line by `parentUuid`
 * (and, at a compaction boundary, which is a root, by the `logicalParentUuid` it continues) and
 * returns the first line that hangs from a record the file does not hold (or cannot read);
 * undefined when the history starts in the file. A result line that names its call's record
 * (`sourceToolAssistantUUID`) outside the file leaves it at once.
 *
 * A session continued in a new file (a resume, a copy from the last compaction) hangs its first
 * record from the last record of the file before, which holds the calls made there: a result
 * whose history leaves the file may answer one of them. The repair, which sees one file, cannot
 * tell that from a result that answers nothing.
 *
 * The file's links are read in one pass, when first asked, and every line a walk passes keeps
 * its answer: asked for each of a file's orphan results, the walks re-read the chain above
 * each, line by line (10,000 orphans in a 20,000-line file took over three minutes).
 */
export function historyLeavesFile(doc: Lines): (line: number) => number | undefined {
  let links: { lineOf: Map<string, number>; up: (string | undefined)[] } | undefined;
  /** Per line walked: the line where its history leaves the file, or null where it does not. */
  const answer = new Map<number, number | null>();
  const read = (): { lineOf: Map<string, number>; up: (string | undefined)[] } => {
    const lineOf = new Map<string, number>();
    const up: (string | undefined)[] = [];
    for (let n = 1; n <= doc.count; n++) {
      const v = doc.peek(n);
      const uuid = v?.['uuid'];
      if (typeof uuid === 'string' && !lineOf.has(uuid)) {
        lineOf.set(uuid, n);
      }
      const parent = v?.['parentUuid'];
      const next = typeof parent === 'string' ? parent : parent === null ? v?.['logicalParentUuid'] : undefined;
      up[n] = typeof next === 'string' ? next : undefined;
    }
    return { lineOf, up };
  };
  return (start) => {
    links ??= read();
    const source = doc.value(start)?.['sourceToolAssistantUUID'];
    if (typeof source === 'string' && !links.lineOf.has(source)) {
      return start;
    }
    const walked: number[] = [];
    const seen = new Set<number>();
    let found: number | null = null;
    for (let n: number | undefined = start; ; ) {
      const known = answer.get(n);
      if (known !== undefined) {
        found = known;
        break;
      }
      if (seen.has(n)) {
        // A loop in the chain: no record outside the file is named.
        break;
      }
      seen.add(n);
      walked.push(n);
      const up = links.up[n];
      if (up === undefined) {
        break;
      }
      const next = links.lineOf.get(up);
      if (next === undefined) {
        found = n;
        break;
      }
      n = next;
    }
    // Every line of the walk leaves the file where the walk did (or not at all).
    for (const n of walked) {
      answer.set(n, found);
    }
    return found ?? undefined;
  };
}
