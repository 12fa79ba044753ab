import * as vscode from 'vscode';
import { parseSettings, settingKeys, settingsPrefix, viewOnlySettings, type Settings } from '../core/config/settings';
import type { Logger } from '../core/lib/logger';

/**
 * Reads the settings through the core's schema: an invalid value falls back to its default
 * and is logged with the setting's name. Nothing is cached here; callers re-read on change.
 * `scope`: a folder for its own values; null (the window's: user and workspace values) says so
 * to VS Code, which otherwise logs a warning for each folder-scoped setting read without one.
 */
export function readSettings(log: Logger, scope: vscode.ConfigurationScope | null = null): Settings {
  const config = vscode.workspace.getConfiguration(settingsPrefix, scope);
  const { settings, problems } = parseSettings((key) => config.get(key));
  for (const p of problems) {
    log.warn(`[config] ${p.key}: ${p.message} — using the default instead`);
  }
  return settings;
}

export function affectsUs(e: vscode.ConfigurationChangeEvent): boolean {
  return e.affectsConfiguration(settingsPrefix);
}

/**
 * Does the change need the monitors rebuilt? That re-reads every session (tens of seconds on a
 * large history); a setting that only changes what the views show does not.
 */
export function needsRestart(e: vscode.ConfigurationChangeEvent): boolean {
  return settingKeys.some((k) => !viewOnlySettings.has(k) && e.affectsConfiguration(`${settingsPrefix}.${k}`));
}
