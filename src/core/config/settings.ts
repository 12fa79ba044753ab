import { z } from 'zod';
import type { AgentKind } from '../model/agent';
import type { RuleConfig, RuleLevel } from './ruleConfig';

/**
 * The extension's settings (`agentGuard.*`), one schema. package.json's
 * `contributes.configuration` is the UI; a test keeps the two in step.
 */
export const settingsPrefix = 'agentGuard';

const level = z.enum(['error', 'warning', 'info', 'off']);
const guardAction = z.enum(['deny', 'warn', 'off']);

const settingsSchema = z.object({
  'agents.claudeCode': z.boolean().default(true),
  'agents.codex': z.boolean().default(true),
  'agents.gemini': z.boolean().default(true),
  'agents.amplifier': z.boolean().default(true),
  sessionFolders: z.array(z.string()).default([]),
  rules: z.record(z.string(), level).default({}),
  ignoredPaths: z.array(z.string()).default([]),
  watchWorkingTree: z.boolean().default(true),
  liveMinutes: z.number().min(1).max(24 * 60).default(5),
  stalledCallMinutes: z.number().min(1).max(24 * 60).default(10),
  // `current` by default: agents in the editor read the Problems panel too (see DiagnosticsPublisher).
  'problems.sessions': z.enum(['current', 'all']).default('current'),
  'guard.staleWrite': guardAction.default('deny'),
  'guard.dirtyBuffer': guardAction.default('deny'),
  'guard.unreadWrite': guardAction.default('deny'),
  'guard.concurrentWrite': guardAction.default('deny'),
  'guard.failClosed': z.boolean().default(false),
  'editorGuard.mode': z.enum(['block', 'warn', 'off']).default('warn'),
});

export type Settings = z.output<typeof settingsSchema>;
export type SettingKey = keyof Settings;

export const settingKeys = Object.keys(settingsSchema.shape) as SettingKey[];

export const defaultSettings: Settings = settingsSchema.parse({});

/**
 * Settings each workspace folder may set for itself (`"scope": "resource"` in package.json): in
 * a multi-root workspace every folder has its own monitor, working tree, guard service and
 * hooks, and these are read for that folder. The others are the window's.
 */
export const folderSettings: ReadonlySet<SettingKey> = new Set<SettingKey>([
  'sessionFolders',
  'rules',
  'ignoredPaths',
  'watchWorkingTree',
  'guard.staleWrite',
  'guard.dirtyBuffer',
  'guard.unreadWrite',
  'guard.concurrentWrite',
  'guard.failClosed',
]);

/** Settings that change only what the views show (applied without re-reading the sessions). */
export const viewOnlySettings: ReadonlySet<SettingKey> = new Set<SettingKey>(['liveMinutes', 'problems.sessions']);

export interface SettingsProblem {
  key: string;
  message: string;
}

/**
 * Parses raw values read from the host, key by key: an invalid value falls back to its
 * default and is reported (naming the setting), never fatal.
 */
export function parseSettings(read: (key: SettingKey) => unknown): { settings: Settings; problems: SettingsProblem[] } {
  const problems: SettingsProblem[] = [];
  const out: Record<string, unknown> = {};
  for (const key of settingKeys) {
    const raw = read(key);
    const field = settingsSchema.shape[key];
    const r = field.safeParse(raw);
    if (r.success) {
      out[key] = r.data;
    } else {
      problems.push({ key: `${settingsPrefix}.${key}`, message: r.error.issues.map((i) => i.message).join('; ') });
      out[key] = defaultSettings[key];
    }
  }
  return { settings: out as Settings, problems };
}

/** The setting that turns each agent's sessions on or off. */
export const agentSettingKeys = {
  'claude-code': 'agents.claudeCode',
  codex: 'agents.codex',
  gemini: 'agents.gemini',
  amplifier: 'agents.amplifier',
} as const satisfies Record<AgentKind, SettingKey>;

export function enabledAgents(s: Settings): Record<AgentKind, boolean> {
  return {
    'claude-code': s[agentSettingKeys['claude-code']],
    codex: s[agentSettingKeys.codex],
    gemini: s[agentSettingKeys.gemini],
    amplifier: s[agentSettingKeys.amplifier],
  };
}

export function ruleConfigFromSettings(s: Settings): RuleConfig {
  const levels: Record<string, RuleLevel> = { ...s.rules };
  // missing-result's live wait for a call the session went on without is the same limit.
  return { levels, options: { 'stalled-call': { minutes: s.stalledCallMinutes }, 'missing-result': { minutes: s.stalledCallMinutes } } };
}
