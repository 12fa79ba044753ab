/// <reference types="mocha" />
// An activation that fails partway: whatever it had registered is disposed, and the user is
// told why. Run here against the real VS Code API, with a failure made at each of the calls
// activation makes into it in turn (the extension under test is already active in this window:
// the calls that would clash with it, or change what it shows, are answered by stand-ins).
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activate } from '../../src/vscode/extension';

type Fn = (...args: unknown[]) => unknown;

/** What a call into the API returned that can be disposed, and whether it was. */
interface Made {
  what: string;
  disposed: boolean;
}

/** An object standing in for `target` (or for nothing), whose dispose is recorded. */
function recorded(what: string, made: Made[], target?: object): { dispose(): void } {
  const rec: Made = { what, disposed: false };
  made.push(rec);
  const own = new Map<PropertyKey, unknown>();
  // A proxy of an empty object, not of `target`: some of VS Code's objects are frozen, and a
  // proxy of a frozen object must give its own dispose back.
  return new Proxy({} as { dispose(): void }, {
    get: (_t, key) => {
      if (key === 'dispose') {
        return () => {
          rec.disposed = true;
          (target as { dispose?: () => void } | undefined)?.dispose?.();
        };
      }
      if (own.has(key)) {
        return own.get(key);
      }
      if (target === undefined) {
        return () => undefined;
      }
      const v = Reflect.get(target, key, target) as unknown;
      return typeof v === 'function' ? (v as Fn).bind(target) : v;
    },
    set: (_t, key, value) => {
      if (target === undefined) {
        own.set(key, value);
        return true;
      }
      return Reflect.set(target, key, value, target);
    },
  });
}

/**
 * Answered by stand-ins, never by VS Code: a second registration of the extension's commands,
 * its webview serializer or its tree view would clash with the running extension's; a status
 * bar item of the same id, or an output channel of the same name, disposed would take the
 * running one's away; a context key set would change what the running one shows.
 */
const standIns = new Set(['registerCommand', 'registerWebviewPanelSerializer', 'createTreeView', 'createStatusBarItem', 'createOutputChannel', 'executeCommand']);
/** Not calls activation makes, but how it tells the user: recorded apart. */
const messages = new Set(['showErrorMessage', 'showWarningMessage', 'showInformationMessage']);

suite('activation', () => {
  test('an activation that fails partway disposes what it had registered, and tells the user why', () => {
    const storage = fs.mkdtempSync(path.join(os.tmpdir(), 'ag-act-'));
    const real = vscode.extensions.getExtension('agent-session-guard.agent-session-guard')!;
    const namespaces = { window: vscode.window, workspace: vscode.workspace, languages: vscode.languages, commands: vscode.commands } as unknown as Record<string, Record<string, unknown>>;
    const restore: (() => void)[] = [];
    let armed = false;
    let calls = 0;
    let failAt = 0;
    let made: Made[] = [];
    const errors: string[] = [];
    for (const [ns, api] of Object.entries(namespaces)) {
      for (const name of Object.keys(api)) {
        const d = Object.getOwnPropertyDescriptor(api, name);
        if (!d || typeof d.value !== 'function' || !d.writable) {
          continue;
        }
        const original = d.value as Fn;
        const wrapped: Fn = messages.has(name)
          ? (...args) => {
              if (!armed) {
                return original.apply(api, args);
              }
              errors.push(String(args[0]));
              return Promise.resolve(undefined);
            }
          : (...args) => {
              if (!armed) {
                return original.apply(api, args);
              }
              calls++;
              if (calls === failAt) {
                throw new Error(`failure made at call ${calls}, ${ns}.${name}`);
              }
              if (standIns.has(name)) {
                return name === 'executeCommand' ? Promise.resolve(undefined) : recorded(`${ns}.${name}`, made);
              }
              const result = original.apply(api, args);
              return typeof result === 'object' && result !== null && typeof (result as { dispose?: unknown }).dispose === 'function' ? recorded(`${ns}.${name}`, made, result) : result;
            };
        api[name] = wrapped;
        restore.push(() => (api[name] = original));
      }
    }
    // No folder: a scope built (the last step) starts no watcher and no guard service.
    const folders = Object.getOwnPropertyDescriptor(vscode.workspace, 'workspaceFolders')!;
    const context = {
      subscriptions: [] as vscode.Disposable[],
      extension: real,
      extensionUri: real.extensionUri,
      extensionPath: real.extensionPath,
      asAbsolutePath: (p: string) => path.join(real.extensionPath, p),
      globalStorageUri: vscode.Uri.file(storage),
      workspaceState: { get: () => undefined, update: () => Promise.resolve(), keys: () => [] },
      globalState: { get: () => undefined, update: () => Promise.resolve(), keys: () => [], setKeysForSync: () => undefined },
    } as unknown as vscode.ExtensionContext;
    let total: number | undefined;
    try {
      for (failAt = 1; total === undefined; failAt++) {
        calls = 0;
        made = [];
        errors.length = 0;
        let thrown: unknown;
        Object.defineProperty(vscode.workspace, 'workspaceFolders', { get: () => undefined, configurable: true });
        armed = true;
        try {
          activate(context);
        } catch (e) {
          thrown = e;
        } finally {
          armed = false;
          Object.defineProperty(vscode.workspace, 'workspaceFolders', folders);
        }
        if (thrown === undefined) {
          // Past the last call: activation went through. What it made is the context's to dispose.
          total = failAt - 1;
          for (const d of context.subscriptions.splice(0)) {
            d.dispose();
          }
          assert.deepEqual(made.filter((m) => !m.disposed).map((m) => m.what), [], 'disposed with the context');
          assert.deepEqual(errors, []);
          break;
        }
        const why = `failure made at call ${failAt}`;
        assert.match(thrown instanceof Error ? thrown.message : '', new RegExp(`^${why},`), 'activation throws the error that stopped it');
        assert.deepEqual(context.subscriptions, [], 'nothing was handed to VS Code');
        assert.deepEqual(
          made.filter((m) => !m.disposed).map((m) => m.what),
          [],
          `with a ${why}, all that was registered before it is disposed (of ${made.length})`,
        );
        assert.equal(errors.length, 1, JSON.stringify(errors));
        assert.match(errors[0]!, new RegExp(`could not start: ${why},`));
      }
    } finally {
      for (const r of restore) {
        r();
      }
      // `storage` stays: the hook shim may still be being written there (the run's temporary folder goes with the run).
    }
    // Every call a failure was made at: the test must have gone through activation.
    assert.ok(total !== undefined && total >= 20, `activation makes ${total} calls into the API`);
  });
});
