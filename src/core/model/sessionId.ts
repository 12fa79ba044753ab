/**
 * What names a transcript's session until the transcript names one itself: the file's name
 * (Claude Code's `<uuid>.jsonl`, a Codex rollout), or for Amplifier, whose every transcript is
 * `sessions/<session-id>/transcript.jsonl`, the folder. Without it `check` named every Amplifier
 * session "transcript".
 */
export function sessionIdFromPath(file: string): string {
  const parts = file.split(/[\\/]/);
  const base = parts.pop() ?? file;
  const folder = parts.pop();
  if (base === 'transcript.jsonl' && folder) {
    return folder;
  }
  return base.replace(/\.jsonl?$/, '');
}
