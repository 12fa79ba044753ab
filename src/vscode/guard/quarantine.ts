import * as nodePath from 'node:path';
import * as vscode from 'vscode';
import type { QuarantineEntry } from '../../io/guard/editorWrites';
import { QuarantineFiles } from '../../io/guard/quarantineFiles';

/** Content-addressed, so the same version set aside twice is stored once. */
export const quarantineScheme = 'agent-guard-quarantine';

/** The quarantine in the extension's global storage, shown in diffs. */
export class QuarantineStore extends QuarantineFiles implements vscode.TextDocumentContentProvider {
  constructor(storage: vscode.Uri) {
    super(nodePath.join(storage.fsPath, 'quarantine'));
  }

  uriFor(entry: QuarantineEntry): vscode.Uri {
    return vscode.Uri.from({ scheme: quarantineScheme, path: `/${entry.id}/${nodePath.basename(entry.path)}` });
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const id = uri.path.split('/')[1] ?? '';
    return new TextDecoder().decode(await this.read(id));
  }
}
