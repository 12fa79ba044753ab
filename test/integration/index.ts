// extensionTestsPath entry: VS Code's extension host require()s the compiled
// out/test/integration/index.js and awaits run(), both under test/e2e/driver.mjs
// (code-server) and under a desktop VS Code started by @vscode/test-electron.
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import * as vscode from 'vscode';
import { attachRunner, uiCheck, uiChecksAvailable } from './support/ui';

/** One line of the results file that test/e2e/driver.mjs prints. */
interface TestResult {
  title: string;
  state: 'passed' | 'failed' | 'skipped';
  durationMs?: number;
  error?: string;
}

/** Every *.test.js below dir (a plain walk: fs.globSync needs Node 22, VS Code 1.90 ships 20). */
function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      return testFiles(file);
    }
    return entry.name.endsWith('.test.js') ? [file] : [];
  });
}

export function run(): Promise<void> {
  const files = testFiles(__dirname).sort();
  if (files.length === 0) {
    return Promise.reject(new Error(`no *.test.js under ${__dirname}: run \`npm run build:test\` first`));
  }
  const mocha = new Mocha({
    ui: 'tdd',
    color: false, // the output ends up in log files, not a terminal
    timeout: 60_000,
    ...(process.env.AGS_E2E_GREP ? { grep: process.env.AGS_E2E_GREP } : {}),
  });
  for (const file of files) {
    mocha.addFile(file);
  }
  // Under the driver, a screenshot of the moment a test failed: its failure.png comes only
  // after the extension host is gone, and with it e.g. every diagnostic.
  mocha.suite.afterEach(async function () {
    const test = this.currentTest;
    if (test?.state === 'failed' && uiChecksAvailable()) {
      const name = `failed-${test.fullTitle().replace(/[^\w.-]+/g, '-').slice(0, 80)}`;
      await uiCheck({ id: name, selector: '.monaco-workbench', screenshot: `${name}.png` }).catch(() => {});
    }
  });

  const tests: TestResult[] = [];
  const writeResults = (): void => {
    // Set by the driver; a desktop run just reads mocha's output instead.
    const out = process.env.VSC_TEST_RESULTS;
    if (!out) {
      return;
    }
    const environment = { appName: vscode.env.appName, vscode: vscode.version, node: process.version };
    fs.writeFileSync(out, JSON.stringify({ environment, tests }, null, 2));
  };

  return new Promise((resolve, reject) => {
    try {
      const runner = mocha.run((failures) => {
        writeResults();
        if (failures > 0) {
          reject(new Error(`${failures} test(s) failed`));
        } else {
          resolve();
        }
      });
      attachRunner(runner);
      runner.on('pass', (test) => tests.push({ title: test.fullTitle(), state: 'passed', durationMs: test.duration ?? 0 }));
      runner.on('pending', (test) => tests.push({ title: test.fullTitle(), state: 'skipped' }));
      runner.on('fail', (test, err: unknown) => {
        const error = err instanceof Error ? (err.stack ?? err.message) : String(err);
        tests.push({ title: test.fullTitle(), state: 'failed', error });
      });
    } catch (err) {
      // A test file that throws while loading lands here, before any test ran: report it
      // as a failure, or the summary would read "0 passed, 0 failed".
      const error = err instanceof Error ? err : new Error(String(err));
      tests.push({ title: 'loading the test files', state: 'failed', error: error.stack ?? error.message });
      writeResults();
      reject(error);
    }
  });
}
