/**
 * Entry of the session timeline webview (bundled to media/dist/timeline.js). Validates every
 * message from the host before it touches the view, says `ready` once it listens, and keeps
 * its scroll position and its transcript's path in the webview state (webviewStateSchema), so
 * a panel that was hidden comes back where it was, and one VS Code restores shows its session.
 */
// First: configures zod before the protocol's schemas are built.
import './jitless';
import { hostMessageSchema, webviewStateSchema, type WebviewMessage, type WebviewState } from '../../protocol/timeline';
import { TimelineView } from './view';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

function main(): void {
  const vscode = acquireVsCodeApi();
  const saved = webviewStateSchema.safeParse(vscode.getState());
  const root = document.getElementById('app');
  if (!root) {
    return;
  }
  const state: WebviewState = saved.success ? { ...saved.data } : { scrollTop: 0 };
  const view = new TimelineView(
    root,
    {
      post: (m: WebviewMessage) => vscode.postMessage(m),
      saveScroll: (scrollTop) => {
        if (Math.abs(scrollTop - state.scrollTop) >= 1) {
          state.scrollTop = scrollTop;
          vscode.setState(state);
        }
      },
    },
    saved.success ? saved.data.scrollTop : undefined,
  );
  window.addEventListener('message', (event: MessageEvent<unknown>) => {
    const parsed = hostMessageSchema.safeParse(event.data);
    if (!parsed.success) {
      // Not ours, or not valid: either way nothing of it is shown.
      return;
    }
    if (parsed.data.type === 'init' && parsed.data.path !== state.path) {
      state.path = parsed.data.path;
      vscode.setState(state);
    }
    view.handle(parsed.data);
  });
  root.setAttribute('aria-busy', 'false');
  vscode.postMessage({ type: 'ready' } satisfies WebviewMessage);
}

main();
