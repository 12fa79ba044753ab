import { promises as fsp } from 'node:fs';
import * as vscode from 'vscode';
import { errnoCode, errorMessage } from '../../core/lib/errors';
import type { Finding } from '../../core/model/finding';
import type { Span } from '../../core/model/events';
import { findingRange } from '../diagnostics';
import { productName } from '../ids';
import type { Services } from '../services';
import { jumpProblemMessage, statProblem, type JumpProblem } from '../jumpProblem';
import { asFinding, asSessionFile } from './findingArg';
import { notify } from '../notify';

/**
 * Opens a file with a range selected (in the active editor group, or in `viewColumn`). When
 * that cannot be done, or the line is no longer there, the user is told why (see jumpProblem).
 */
export async function reveal(uri: vscode.Uri, range: vscode.Range, viewColumn?: vscode.ViewColumn): Promise<vscode.TextEditor | undefined> {
  const line = range.start.line + 1;
  const before = uri.scheme === 'file' ? await statBeforeOpen(uri.fsPath) : undefined;
  if (before) {
    void notify.error(jumpProblemMessage(uri.fsPath, line, before));
    return undefined;
  }
  let editor: vscode.TextEditor;
  try {
    editor = await vscode.window.showTextDocument(uri, { selection: range, preview: true, ...(viewColumn !== undefined ? { viewColumn } : {}) });
  } catch (e) {
    void notify.error(jumpProblemMessage(uri.fsPath, line, { kind: 'failed', reason: errorMessage(e) }));
    return undefined;
  }
  const doc = editor.document;
  // VS Code clamps a selection past the end to the last line without a word: say so, or the
  // user is left looking at the wrong place.
  if (range.start.line >= doc.lineCount) {
    // A final newline ends the last line; VS Code counts the empty line after it, people don't.
    const lines = doc.lineCount > 1 && doc.lineAt(doc.lineCount - 1).text === '' ? doc.lineCount - 1 : doc.lineCount;
    void notify.warn(jumpProblemMessage(uri.fsPath, line, { kind: 'beyondEnd', lines }));
  }
  editor.revealRange(editor.selection, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  return editor;
}

async function statBeforeOpen(file: string): Promise<JumpProblem | undefined> {
  try {
    const s = await fsp.stat(file);
    return statProblem({ isFile: s.isFile(), size: s.size });
  } catch (e) {
    return statProblem({ code: errnoCode(e), message: errorMessage(e) });
  }
}

/**
 * Asks for a finding when a command is run without one (from the palette or a keybinding).
 * `aboutFile`: only the findings about a workspace file, for the commands that open that file.
 * Undefined when there is none (said so) or the pick was dismissed (nothing to say).
 */
export async function pickFinding(s: Services, opts: { aboutFile?: boolean } = {}): Promise<Finding | undefined> {
  const all = (s.scope()?.findings() ?? []).filter((f) => !opts.aboutFile || f.subject !== undefined);
  if (all.length === 0) {
    void notify.info(`${productName} has no findings${opts.aboutFile ? ' about a workspace file' : ''}.`);
    return undefined;
  }
  const pick = await vscode.window.showQuickPick(
    all.map((f) => ({ label: f.message, description: `${f.rule} · line ${f.line}`, finding: f })),
    { placeHolder: 'Open which finding?', matchOnDescription: true },
  );
  return pick?.finding;
}

export const openFinding = (s: Services) => async (arg?: unknown): Promise<vscode.TextEditor | undefined> => {
  const f = asFinding(arg) ?? (await pickFinding(s));
  return f ? reveal(vscode.Uri.file(f.file), findingRange(f)) : undefined;
};

export const openCall = (s: Services) => async (arg?: unknown): Promise<vscode.TextEditor | undefined> => {
  const f = asFinding(arg) ?? (await pickFinding(s));
  if (!f) {
    return undefined;
  }
  const at: Span | undefined = f.callId !== undefined ? await s.scope()?.monitorOf(f.file)?.callLocation(f.file, f.callId) : undefined;
  if (at) {
    return reveal(vscode.Uri.file(f.file), new vscode.Range(at.line - 1, at.start, at.line - 1, at.end));
  }
  const related = f.related.find((r) => r.file === f.file && / call/.test(r.message));
  if (related) {
    return reveal(vscode.Uri.file(f.file), new vscode.Range(related.line - 1, (related.column ?? 1) - 1, related.line - 1, (related.endColumn ?? related.column ?? 1) - 1));
  }
  return reveal(vscode.Uri.file(f.file), findingRange(f));
};

export const openWorkspaceFile = (s: Services) => async (arg?: unknown): Promise<vscode.TextEditor | undefined> => {
  const f = asFinding(arg) ?? (await pickFinding(s, { aboutFile: true }));
  if (!f) {
    return undefined;
  }
  if (!f.subject) {
    void notify.info('This finding is not about a workspace file.');
    return undefined;
  }
  const first = f.subject.lines?.[0];
  const range = first ? new vscode.Range(first.start - 1, 0, first.start - 1 + Math.max(first.count, 1) - 1, 0) : new vscode.Range(0, 0, 0, 0);
  return reveal(vscode.Uri.file(s.editorPath(f.subject.path)), range);
};

export const openTranscript = () => async (arg?: unknown): Promise<vscode.TextEditor | undefined> => {
  const file = asSessionFile(arg) ?? asFinding(arg)?.file;
  return file ? reveal(vscode.Uri.file(file), new vscode.Range(0, 0, 0, 0)) : undefined;
};
