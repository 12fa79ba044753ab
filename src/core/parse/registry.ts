import type { FormatAdapter } from './adapter';
import { amplifierEventsAdapter } from './amplifier/events';
import { amplifierAdapter } from './amplifier/parser';
import { claudeAdapter } from './claude/parser';
import { codexAdapter } from './codex/parser';
import { geminiAdapter } from './gemini/parser';

/**
 * Format adapters in sniffing order. Gemini before Claude Code: Gemini's user records carry
 * `type:"user"` and a `sessionId`, which Claude Code's sniff would also accept. Amplifier's
 * execution log (events.jsonl) before its bare chat messages, which come last: their sniff
 * rejects every shape the others use.
 */
export const adapters: readonly FormatAdapter[] = [codexAdapter, geminiAdapter, claudeAdapter, amplifierEventsAdapter, amplifierAdapter];
