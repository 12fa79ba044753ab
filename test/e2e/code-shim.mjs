#!/usr/bin/env node
// A stand-in "VS Code executable" for @vscode/test-electron:
//   runTests({ vscodeExecutablePath: 'test/e2e/code-shim.mjs', ... })
// test-electron starts it the way it starts Electron VS Code:
//   code-shim.mjs [launchArgs...] --no-sandbox ... --extensionTestsPath=F --extensionDevelopmentPath=D
//                 --extensions-dir=... --user-data-dir=...
// We keep what the test run needs (development paths, tests path, the workspace folder),
// run driver.mjs with it, and exit with the driver's exit code, which test-electron reports.
// Everything else is Electron/profile specific; the driver makes its own per-run profile.
// Driver options (artifacts, settings, timeout, ...) travel in AGS_E2E_* environment
// variables, which test-electron passes through (its extensionTestsEnv).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const driverArgs = [];
const ignored = [];
let folder;
for (const arg of process.argv.slice(2)) {
  const [, name, value] = /^--([^=]+)=(.*)$/s.exec(arg) ?? [];
  if (name === 'extensionDevelopmentPath') driverArgs.push('--extension-development-path', value);
  else if (name === 'extensionTestsPath') driverArgs.push('--extension-tests-path', value);
  else if (name === 'folder-uri') folder = fileURLToPath(value);
  else if (!arg.startsWith('-') && folder === undefined) folder = arg; // the workspace from launchArgs
  else ignored.push(arg);
}
if (folder) driverArgs.push('--folder', folder);
console.log(`[code-shim] ignoring Electron-only arguments: ${ignored.join(' ') || '(none)'}`);

const driver = spawn(process.execPath, [fileURLToPath(new URL('driver.mjs', import.meta.url)), ...driverArgs], {
  stdio: 'inherit',
});
// test-electron stops "VS Code" with SIGINT on Ctrl-C: let the driver clean up.
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => driver.kill(signal));
driver.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGTERM' ? 143 : 130)));
