import * as vscode from 'vscode';
import { plainMessage } from './plainMessage';

/**
 * The one way this extension shows a notification: its text goes through plainMessage, so a
 * name a transcript or an agent chose can never become a `command:` link in it. A lint rule
 * (eslint.config.mjs) keeps `vscode.window.show…Message` out of every other file; a call site
 * that forgot the wrapping was how a transcript's path could run a command.
 */
type Rest = string[] | [vscode.MessageOptions, ...string[]];
type Show = (message: string, ...rest: Rest) => Thenable<string | undefined>;

function wrap(key: 'showInformationMessage' | 'showWarningMessage' | 'showErrorMessage'): Show {
  return (message, ...rest) => {
    // Looked up at each call and called on `window`, as a direct call would be.
    const show: Show = vscode.window[key];
    return show.call(vscode.window, plainMessage(message), ...rest);
  };
}

export const notify = {
  info: wrap('showInformationMessage'),
  warn: wrap('showWarningMessage'),
  error: wrap('showErrorMessage'),
};
