/**
 * Entry of the session timeline webview (bundled to media/dist/timeline.js). Validates every
 * message from the host before it touches the view, says `ready` once it listens, and keeps
 * its scroll position in the webview state so a panel that was hidden comes back where it was.
 */
// First: configures zod before the protocol's schemas are built.
import './jitless';
import * as z from 'zod/mini';
import { hostMessageSchema, type WebviewMessage } from '../../protocol/timeline';
import { TimelineView } from './view';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const stateSchema = z.object({ scrollTop: z.number().check(z.minimum(0), z.maximum(1e9)) });

function main(): void {
  const vscode = acquireVsCodeApi();
  const saved = stateSchema.safeParse(vscode.getState());
  const root = document.getElementById('app');
  if (!root) {
    return;
  }
  let lastSaved = saved.success ? saved.data.scrollTop : 0;
  const view = new TimelineView(
    root,
    {
      post: (m: WebviewMessage) => vscode.postMessage(m),
      saveScroll: (scrollTop) => {
        if (Math.abs(scrollTop - lastSaved) >= 1) {
          lastSaved = scrollTop;
          vscode.setState({ scrollTop });
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
    view.handle(parsed.data);
  });
  root.setAttribute('aria-busy', 'false');
  vscode.postMessage({ type: 'ready' } satisfies WebviewMessage);
}

main();
