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
 */
export function historyLeavesFile(doc: Lines): (line: number) => number | undefined {
  let lineOf: Map<string, number> | undefined;
  const held = (uuid: string): number | undefined => {
    if (!lineOf) {
      lineOf = new Map();
      for (let n = 1; n <= doc.count; n++) {
        const uuid = doc.peek(n)?.['uuid'];
        if (typeof uuid === 'string' && !lineOf.has(uuid)) {
          lineOf.set(uuid, n);
        }
      }
    }
    return lineOf.get(uuid);
  };
  return (start) => {
    const source = doc.value(start)?.['sourceToolAssistantUUID'];
    if (typeof source === 'string' && held(source) === undefined) {
      return start;
    }
    const seen = new Set<number>();
    for (let n: number | undefined = start; n !== undefined && !seen.has(n); ) {
      seen.add(n);
      const v = doc.peek(n);
      const parent = v?.['parentUuid'];
      const up = typeof parent === 'string' ? parent : parent === null ? v?.['logicalParentUuid'] : undefined;
      if (typeof up !== 'string') {
        return undefined;
      }
      const next = held(up);
      if (next === undefined) {
        return n;
      }
      n = next;
    }
    // A loop in the chain: no record outside the file is named.
    return undefined;
  };
}
