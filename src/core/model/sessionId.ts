import type { AgentKind } from './agent';

/** The files of an Amplifier session folder (`sessions/<session-id>/`): both name no session. */
const amplifierFiles = new Set(['transcript.jsonl', 'events.jsonl']);

/**
 * What names a transcript's session until the transcript names one itself: the file's name
 * (Claude Code's `<uuid>.jsonl`, a Codex rollout), or for Amplifier, whose every session is
 * `sessions/<session-id>/transcript.jsonl` and `events.jsonl`, the folder. (Without it `check`
 * named every Amplifier session "transcript".) `agent`, when known, decides; else the file name.
 */
export function sessionIdFromPath(file: string, agent?: AgentKind): string {
  const parts = file.split(/[\\/]/);
  const base = parts.pop() ?? file;
  const folder = parts.pop();
  if (folder && (agent === 'amplifier' || (agent === undefined && amplifierFiles.has(base)))) {
    return folder;
  }
  return base.replace(/\.jsonl?$/, '');
}
