import type * as vscode from 'vscode';
import { AgentGuard, type AgentGuardApi } from './agentGuard';
import { productName } from './ids';
import { notify } from './notify';
import { errorMessage } from '../core/lib/errors';

/**
 * A composition root and nothing else: build the extension, hand its lifetime to VS Code.
 * VS Code shows no notification when an extension fails to activate, so we do. A failure
 * partway leaves nothing registered: AgentGuard disposes what it had made before it throws.
 */
export function activate(context: vscode.ExtensionContext): AgentGuardApi {
  try {
    const guard = new AgentGuard(context);
    context.subscriptions.push(guard);
    return guard.api;
  } catch (e) {
    void notify.error(`${productName} could not start: ${errorMessage(e)}`);
    throw e;
  }
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
