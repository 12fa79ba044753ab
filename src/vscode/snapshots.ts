import * as vscode from 'vscode';
import { readTranscriptLine, snapshotDocument, snapshotFromLine } from '../io/transcriptLine';
import { snapshotScheme } from './ids';

/**
 * Serves "what the session saw" of a file as a read-only document, for the left side of a
 * diff: `agent-guard-snapshot:/<file>?<transcript, line>`. The content comes from the
 * transcript line that recorded the read, read on demand.
 */
export class SnapshotProvider implements vscode.TextDocumentContentProvider {
  static uriFor(file: string, transcript: string, line: number): vscode.Uri {
    return vscode.Uri.from({
      scheme: snapshotScheme,
      path: vscode.Uri.file(file).path,
      query: new URLSearchParams({ transcript, line: String(line) }).toString(),
    });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const q = new URLSearchParams(uri.query);
    const transcript = q.get('transcript');
    const line = Number(q.get('line'));
    if (!transcript || !Number.isInteger(line) || line < 1) {
      return '(no snapshot: bad address)';
    }
    const text = await readTranscriptLine(transcript, line);
    const snap = text === undefined ? undefined : snapshotFromLine(text);
    if (!snap) {
      return `(the transcript does not record what the session saw of this file at line ${line} of ${transcript})`;
    }
    return snapshotDocument(snap);
  }
}
