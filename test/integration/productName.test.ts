/// <reference types="mocha" />
// One product name as VS Code shows it: the activity bar container was titled "Agent Sessions"
// while the palette said "Agent Guard" and the rest "Agent Session Guard".
import * as vscode from 'vscode';
import { productName } from '../../src/vscode/ids';
import { uiCheck } from './support/ui';

suite('product name', () => {
  test('the side bar shows the sessions under the product name (checked in the browser)', async () => {
    await vscode.commands.executeCommand('workbench.view.extension.agentGuard');
    await uiCheck({ id: 'container-title', selector: '.part.sidebar .composite.title', text: productName, screenshot: 'container-title.png' });
  });
});
