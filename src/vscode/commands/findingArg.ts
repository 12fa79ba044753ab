import type { Finding } from '../../core/model/finding';

/** Commands get a Finding from tree items and quick fixes, or a tree node from context menus. */
export function asFinding(arg: unknown): Finding | undefined {
  if (typeof arg !== 'object' || arg === null) {
    return undefined;
  }
  const node = arg as { kind?: unknown; finding?: unknown };
  if (node.kind === 'finding' && typeof node.finding === 'object') {
    return node.finding as Finding;
  }
  const f = arg as Partial<Finding>;
  return typeof f.rule === 'string' && typeof f.file === 'string' && typeof f.line === 'number' ? (f as Finding) : undefined;
}

export function asSessionFile(arg: unknown): string | undefined {
  if (typeof arg !== 'object' || arg === null) {
    return undefined;
  }
  const node = arg as { kind?: unknown; session?: { file?: unknown } };
  return node.kind === 'session' && typeof node.session?.file === 'string' ? node.session.file : undefined;
}
