/**
 * Every id the manifest declares, in one place. A unit test compares these maps with
 * package.json so the two cannot drift.
 */
export const commandIds = {
  openFinding: 'agentGuard.openFinding',
  openCall: 'agentGuard.openCall',
  openWorkspaceFile: 'agentGuard.openWorkspaceFile',
  copyFinding: 'agentGuard.copyFinding',
  showReadDiff: 'agentGuard.showReadDiff',
  recheck: 'agentGuard.recheck',
  clear: 'agentGuard.clear',
  openTranscript: 'agentGuard.openTranscript',
  showLog: 'agentGuard.showLog',
  openSettings: 'agentGuard.openSettings',
} as const;

export const viewIds = {
  container: 'agentGuard',
  sessions: 'agentGuard.sessions',
} as const;

export const contextKeys = {
  ready: 'agentGuard.ready',
  noSessions: 'agentGuard.noSessions',
} as const;

export const productName = 'Agent Session Guard';

/** The URI scheme of the read snapshots shown on the left of a diff. */
export const snapshotScheme = 'agent-guard-snapshot';
