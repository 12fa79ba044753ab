/** How long `agent-guard watch` runs: until it is stopped, and no longer. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, test } from 'node:test';
import { spawnCli } from '../support/cli';
import { sleep, waitFor } from '../support/wait';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'ag-life-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

void describe('agent-guard watch lifetime', () => {
  void test('with no agent folder yet and no guard it keeps waiting, and stops cleanly on SIGTERM', async () => {
    const home = path.join(tmp, 'home');
    const ws = path.join(tmp, 'ws');
    mkdirSync(home, { recursive: true });
    mkdirSync(ws, { recursive: true });
    const w = spawnCli(['watch', '--workspace', ws, '--no-guard'], {
      cwd: ws,
      env: { HOME: home, CLAUDE_CONFIG_DIR: undefined, XDG_CONFIG_HOME: undefined, CODEX_HOME: undefined, GEMINI_CLI_HOME: undefined, AMPLIFIER_HOME: undefined, AGENT_GUARD_DIR: path.join(tmp, 'gd') },
    });
    let exited: string | undefined;
    void w.exited.then((e) => (exited = e));
    try {
      await waitFor(() => w.err().includes('Press Ctrl-C') || exited, 10_000, 'the start banner');
      assert.match(w.err(), /not there yet; waiting for it/);
      await sleep(1000);
      assert.equal(exited, undefined, `still running a second after the banner: ${w.err()}`);
    } finally {
      w.child.kill('SIGTERM');
    }
    assert.equal(await w.exited, 'exit 0', w.err());
    assert.match(w.err(), /SIGTERM, stopping/);
  });
});
