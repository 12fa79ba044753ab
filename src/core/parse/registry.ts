import type { FormatAdapter } from './adapter';
import { claudeAdapter } from './claude/parser';
import { codexAdapter } from './codex/parser';

/** Format adapters in sniffing order (the most specific shapes first). */
export const adapters: readonly FormatAdapter[] = [codexAdapter, claudeAdapter];
