import * as vscode from 'vscode';
import { folderSettings, parseSettings, settingKeys, settingsPrefix, viewOnlySettings, type Settings } from '../core/config/settings';
import type { Logger } from '../core/lib/logger';

/**
 * Reads the settings through the core's schema: an invalid value falls back to its default
 * and is logged with the setting's name. Nothing is cached here; callers re-read on change.
 * `folder`: that folder's own values of the `folderSettings` (`"scope": "resource"`), the
 * window's of the others. Each is read in its own scope: VS Code logs a warning for a
 * window-scoped setting read for a resource, and for a resource-scoped one read without (null
 * says that the window's value is meant).
 */
export function readSettings(log: Logger, folder?: vscode.Uri): Settings {
  const window = vscode.workspace.getConfiguration(settingsPrefix, null);
  const own = folder ? vscode.workspace.getConfiguration(settingsPrefix, folder) : window;
  const { settings, problems } = parseSettings((key) => (folderSettings.has(key) ? own : window).get(key));
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
