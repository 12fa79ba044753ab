export const agentKinds = ['claude-code', 'codex', 'gemini', 'amplifier'] as const;
export type AgentKind = (typeof agentKinds)[number];

export const agentLabels: Record<AgentKind, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex CLI',
  gemini: 'Gemini CLI',
  amplifier: 'Amplifier',
};
