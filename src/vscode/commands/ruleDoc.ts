import { promises as fsp } from 'node:fs';
import * as vscode from 'vscode';
import { allRules } from '../../core/rules/all';
import { ruleById } from '../../core/rules/registry';
import type { Services } from '../services';
import { asFinding } from './findingArg';

/** The rule a command argument names: a finding's, or a rule id. */
function ruleOf(arg: unknown): string | undefined {
  return typeof arg === 'string' ? arg : asFinding(arg)?.rule;
}

/**
 * Opens a rule's documentation from the extension's own files (packaged: see .vscodeignore),
 * in the Markdown preview, so it reads offline and at the version installed. The diagnostic's
 * code still links to the web page. Without a rule, asks which one.
 */
export const openRuleDoc = (s: Services) => async (arg?: unknown): Promise<vscode.Uri | undefined> => {
  const id =
    ruleOf(arg) ??
    (await vscode.window.showQuickPick(
      allRules.map((r) => ({ label: r.meta.id, detail: r.meta.docs.description })),
      { placeHolder: 'Documentation of which rule?', matchOnDetail: true },
    ))?.label;
  const rule = id !== undefined ? ruleById(id, allRules) : undefined;
  if (!rule) {
    return undefined;
  }
  const doc = vscode.Uri.joinPath(s.extensionUri, 'docs', 'rules', `${rule.meta.id}.md`);
  try {
    await fsp.access(doc.fsPath);
  } catch {
    // A build without the docs (a VSIX packaged by an older .vscodeignore): the web page then.
    await vscode.env.openExternal(vscode.Uri.parse(rule.meta.docs.url));
    return undefined;
  }
  await vscode.commands.executeCommand('markdown.showPreview', doc);
  return doc;
};
