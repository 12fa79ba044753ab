import { displayPath } from '../../classify/paths';
import type { AgentKind } from '../../model/agent';
import type { Span } from '../../model/events';
import type { RuleContext } from '../../engine/rule';

const docsBase = 'https://github.com/agent-session-guard/agent-session-guard/blob/main/docs/rules/';

export function docsUrl(id: string): string {
  return `${docsBase}${id}.md`;
}

/** How the provider words the rejection a pairing problem causes, per agent (FORMATS.md §6). */
export function providerError(agent: AgentKind | 'unknown', kind: 'unexpected-result' | 'missing-result'): string {
  if (agent === 'gemini') {
    return 'the Gemini API answers "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn"';
  }
  const openai = agent === 'codex';
  if (kind === 'unexpected-result') {
    return openai
      ? 'the Responses API answers "No tool call found for function call output with call_id …"'
      : 'the API answers "unexpected `tool_use_id` found in `tool_result` blocks"';
  }
  // Current Codex CLI (codex-rs) puts an "aborted" output in place of a missing one before it
  // sends the history (logging "Function call output is missing for call id"); requests that
  // skip that step, and older versions, are refused.
  return openai
    ? 'Codex normally sends it to the model as "aborted", so the model never learns what the call did; where it does not, the Responses API answers "No tool output found for function call …"'
    : 'the API answers "`tool_use` ids were found without `tool_result` blocks immediately after"';
}

export function shortPath(ctx: RuleContext, path: string): string {
  return displayPath(path, ctx.session?.cwd);
}

/** "line 7" or "lines 7–9, 12": 1-based ranges for a message. */
export function formatRanges(ranges: readonly { start: number; count: number }[], max = 4): string {
  const plural = ranges.length > 1 || (ranges[0]?.count ?? 1) > 1;
  return (plural ? 'lines ' : 'line ') + formatRangeList(ranges, max);
}

function formatRangeList(ranges: readonly { start: number; count: number }[], max: number): string {
  const parts = ranges.slice(0, max).map((r) => (r.count <= 1 ? `${r.start}` : `${r.start}–${r.start + r.count - 1}`));
  const more = ranges.length > max ? ` and ${ranges.length - max} more` : '';
  return parts.join(', ') + more;
}

export function at(span: Span): string {
  return `line ${span.line}`;
}

/** Is this a Claude model (or unnamed, as in older transcripts)? Claude Code's own notes are `<synthetic>`. */
export function isAnthropicModel(model: string | undefined): boolean {
  return model === undefined || /claude|anthropic|<synthetic>/i.test(model);
}
