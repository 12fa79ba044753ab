import type { CallRecord } from '../../engine/conversation';
import type { FileAccess } from '../../model/events';

const writeOps = new Set(['write', 'edit', 'create', 'delete']);

export function isWrite(a: FileAccess): boolean {
  return writeOps.has(a.op);
}

/** Earlier calls of the same assistant message (one parallel batch) touching `path`. */
export function batchSiblings(call: CallRecord, path: string, pick: (a: FileAccess) => boolean): { sibling: CallRecord; access: FileAccess }[] {
  const out: { sibling: CallRecord; access: FileAccess }[] = [];
  for (const other of call.message.calls) {
    if (other === call) {
      break;
    }
    const access = other.call.accesses.find((x) => x.path === path && pick(x));
    if (access) {
      out.push({ sibling: other, access });
    }
  }
  return out;
}
