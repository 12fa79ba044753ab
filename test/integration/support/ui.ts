// Helpers for integration tests that look at the rendered workbench.
//
// The tests run in the extension host, which has no DOM. The browser that renders the
// workbench belongs to test/e2e/driver.mjs, so a UI check is a handshake with it: we log
// `[ui-check] {...}` (the driver sees the extension host's console), the driver waits for
// the element, takes the screenshot and answers in $AGS_UI_SIGNAL_DIR/<id>.json.
// Without the driver (e.g. under a desktop VS Code) the check skips the running test.
import * as fs from 'node:fs';
import * as path from 'node:path';
import type Mocha from 'mocha';

export interface UiCheck {
  /** Unique within the run; also the name of the answer file, so [A-Za-z0-9_.-] only. */
  id: string;
  /** CSS (or any Playwright) selector of an element that must be visible. */
  selector: string;
  /** Text the element must contain. */
  text?: string;
  /** Search the iframes whose URL contains this (webviews) instead of the page. */
  frame?: string;
  /** File name for a screenshot of the whole window, in the driver's artifacts dir. */
  screenshot?: string;
  /**
   * The file-decoration badge the element must show (e.g. a session row's finding count): VS
   * Code draws it as CSS `::after` content, which `text` does not see.
   */
  badge?: string;
  /**
   * Once found, the element (selector, text, badge) must stay for this long, looked for every
   * 10 ms (a CSS selector only): catches what blinks out between two refreshes.
   */
  steadyMs?: number;
}

/** The driver gives up after 20 s; this leaves it time to take and save the screenshot. */
const ANSWER_TIMEOUT_MS = 30_000;

let runner: Mocha.Runner | undefined;

/** Called by index.ts so that uiCheck can mark the running test as skipped. */
export function attachRunner(mochaRunner: Mocha.Runner): void {
  runner = mochaRunner;
}

/** True when a driver that can answer UI checks is watching this run. */
export function uiChecksAvailable(): boolean {
  return Boolean(process.env.AGS_UI_SIGNAL_DIR);
}

/** Polls pred every 100 ms until it returns a truthy value, which is returned. */
export async function waitFor<T>(pred: () => T | undefined | null | false | Promise<T | undefined | null | false>, ms: number, what: string): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await pred();
    if (value) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Asks the driver to find an element in the workbench (and screenshot it); throws with the
 * driver's reason if it can't. Skips the running test when no driver is watching.
 */
export async function uiCheck(spec: UiCheck): Promise<void> {
  if (!/^[\w.-]+$/.test(spec.id)) {
    throw new Error(`ui-check id "${spec.id}" must be a plain file name`);
  }
  const signalDir = process.env.AGS_UI_SIGNAL_DIR;
  if (!signalDir) {
    skipRunningTest(`ui-check "${spec.id}" needs test/e2e/driver.mjs (AGS_UI_SIGNAL_DIR is not set)`);
  }
  const answerFile = path.join(signalDir, `${spec.id}.json`);
  fs.rmSync(answerFile, { force: true });
  console.log(`[ui-check] ${JSON.stringify(spec)}`);
  const answer = await waitFor(() => readAnswer(answerFile), ANSWER_TIMEOUT_MS + (spec.steadyMs ?? 0), `the driver's answer to ui-check "${spec.id}"`);
  if (!answer.ok) {
    throw new Error(`ui-check "${spec.id}" failed: ${answer.error ?? 'no reason given'}`);
  }
}

function readAnswer(file: string): { ok: boolean; error?: string } | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as { ok: boolean; error?: string };
  } catch {
    return undefined; // not written yet
  }
}

/**
 * Mocha reports a test as pending when its `pending` flag is set by the time it fails;
 * that is what this.skip() does, done here without the test's `this`.
 */
function skipRunningTest(reason: string): never {
  const test = runner?.currentRunnable;
  if (!test) {
    throw new Error(reason);
  }
  console.log(`skipping "${test.fullTitle()}": ${reason}`);
  test.pending = true;
  throw new Error(reason);
}
