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
  showTimeline: 'agentGuard.showTimeline',
  repairSession: 'agentGuard.repairSession',
  installHooks: 'agentGuard.installHooks',
  uninstallHooks: 'agentGuard.uninstallHooks',
  hooksStatus: 'agentGuard.hooksStatus',
  showQuarantine: 'agentGuard.showQuarantine',
  showWatchedFolders: 'agentGuard.showWatchedFolders',
  openRuleDoc: 'agentGuard.openRuleDoc',
} as const;

export const viewIds = {
  container: 'agentGuard',
  sessions: 'agentGuard.sessions',
} as const;

/** Webview panel types: the manifest activates the extension to restore one (`onWebviewPanel:`). */
export const webviewPanelIds = {
  timeline: 'agentGuard.timeline',
} as const;

export const contextKeys = {
  ready: 'agentGuard.ready',
  noSessions: 'agentGuard.noSessions',
  /** Some folder's agent settings hold the guard hooks: the walkthrough's hooks step is done. */
  hooksInstalled: 'agentGuard.hooksInstalled',
} as const;

export const productName = 'Agent Session Guard';

/** The URI scheme of the read snapshots shown on the left of a diff. */
export const snapshotScheme = 'agent-guard-snapshot';

/** The URI scheme of a repaired transcript shown before it is written. */
export const repairPreviewScheme = 'agent-guard-repair';

/** The query of a session row's URI in the sessions view: its finding count is a decoration of it. */
export const sessionRowQuery = 'agent-guard-session';
