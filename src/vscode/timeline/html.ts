import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/** A fresh nonce per load: the only script the page may run is the one carrying it. */
export function newNonce(): string {
  return randomBytes(18).toString('base64');
}

/**
 * The timeline page: a static shell (nothing from the transcript is in it), its stylesheet and
 * its bundled script from media/, under a CSP that allows nothing else — no inline script or
 * style, no eval, no network, images only from the extension.
 */
export function timelineHtml(webview: vscode.Webview, media: vscode.Uri, nonce: string): string {
  const css = webview.asWebviewUri(vscode.Uri.joinPath(media, 'timeline.css'));
  const script = webview.asWebviewUri(vscode.Uri.joinPath(media, 'dist', 'timeline.js'));
  const csp = [`default-src 'none'`, `style-src ${webview.cspSource}`, `script-src 'nonce-${nonce}'`, `img-src ${webview.cspSource}`].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp};">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${css.toString()}">
<title>Session timeline</title>
</head>
<body>
<div id="app" class="app" aria-busy="true"></div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}
