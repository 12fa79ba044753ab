import * as vscode from 'vscode';
import type { Logger } from '../core/lib/logger';
import { productName } from './ids';

/**
 * One LogOutputChannel for the whole extension. It already has trace…error, so it is the
 * core's Logger as is; the user picks the level with "Developer: Set Log Level".
 */
export function createLog(): vscode.LogOutputChannel & Logger {
  return vscode.window.createOutputChannel(productName, { log: true });
}
