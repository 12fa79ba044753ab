// Notifications as the extension shows them: recorded instead of shown, so that a test can
// check what a command told the user (the extension's notify module looks up
// vscode.window.show…Message at each call, and this test bundle shares the extension's vscode API).
import * as vscode from 'vscode';

type Show = (message: string, ...rest: unknown[]) => Thenable<string | undefined>;

type ShowKey = 'showInformationMessage' | 'showWarningMessage' | 'showErrorMessage';

/**
 * Runs `body` with the extension's information messages (or, by `key`, its warnings or errors)
 * and their buttons recorded, each answered with nothing.
 */
export async function withMessages<T>(body: (shown: string[], buttons: string[][]) => Promise<T>, key: ShowKey = 'showInformationMessage'): Promise<T> {
  const window = vscode.window as Record<ShowKey, Show>;
  const show = window[key];
  const shown: string[] = [];
  const buttons: string[][] = [];
  window[key] = (message, ...rest) => {
    const options = rest.find((r): r is vscode.MessageOptions => typeof r === 'object' && r !== null);
    shown.push([message, options?.detail].filter(Boolean).join('\n'));
    buttons.push(rest.filter((r): r is string => typeof r === 'string'));
    return Promise.resolve(undefined);
  };
  try {
    return await body(shown, buttons);
  } finally {
    window[key] = show;
  }
}
