/**
 * The status bar's counts and their coalescing: a session read from the start reports its
 * findings one at a time, and the status bar must not walk every finding for each of them.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Finding, Severity } from '../../../src/core/model/finding';
import { FindingStore } from '../../../src/io/findingStore';
import { Coalescer } from '../../../src/vscode/coalescer';
import { countStatus, statusText } from '../../../src/vscode/statusSummary';

function finding(i: number, severity: Severity): Finding {
  return { id: `f${i}`, rule: 'unparseable-line', severity, file: '/t.jsonl', line: i, column: 1, endLine: i, endColumn: 2, message: 'm', agent: 'claude-code', session: 's', related: [] };
}

void describe('countStatus', () => {
  const now = 1_000_000_000;
  const opened = now - 60 * 60_000;
  const liveMs = 5 * 60_000;

  void test('counts live sessions, errors and warnings; info is not counted', () => {
    const c = countStatus(
      [{ file: '/t.jsonl', lastActivity: now - 10 }, { file: '/u.jsonl', lastActivity: now - 5 * 60_000 }, { file: '/v.jsonl', lastActivity: now - 60_000 }],
      [finding(1, 'error'), finding(2, 'warning'), finding(3, 'info'), finding(4, 'error')],
      now,
      liveMs,
      opened,
    );
    assert.deepEqual(c, { sessions: 3, live: 2, errors: 2, warnings: 1, allErrors: 2, allWarnings: 1 });
    assert.equal(statusText(c).text, '$(shield) 2 live $(error) 2 $(warning) 1');
    assert.equal(statusText({ sessions: 1, live: 0, errors: 0, warnings: 0, allErrors: 0, allWarnings: 0 }).text, '$(shield) 0 live');
    // Nothing live, but problems in sessions written since the window opened: no "0 live" beside them.
    const idle = statusText({ sessions: 2, live: 0, errors: 1, warnings: 2, allErrors: 1, allWarnings: 2 });
    assert.equal(idle.text, '$(shield) $(error) 1 $(warning) 2');
    assert.match(idle.tooltip, /0 live sessions\n1 error and 2 warnings in live sessions or sessions written since this window opened/);
  });

  void test('only sessions that are live or were written since the window opened count; older ones do not colour the item', () => {
    const sessions = [
      { file: '/old.jsonl', lastActivity: opened - 24 * 60 * 60_000 },
      { file: '/today.jsonl', lastActivity: opened + 60_000 },
      { file: '/live.jsonl', lastActivity: now - 1000 },
    ];
    const at = (file: string, severity: Severity): Finding => ({ ...finding(0, severity), file });
    const old = countStatus(sessions, [at('/old.jsonl', 'error'), at('/old.jsonl', 'error'), at('/old.jsonl', 'warning')], now, liveMs, opened);
    assert.deepEqual(old, { sessions: 3, live: 1, errors: 0, warnings: 0, allErrors: 2, allWarnings: 1 });
    const quiet = statusText(old);
    assert.equal(quiet.text, '$(shield) 1 live');
    assert.equal(quiet.alert, false, 'an error in an old session does not colour the item');
    assert.match(quiet.tooltip, /All 3 sessions: 2 errors and 1 warning/);

    const idleSinceOpened = statusText(countStatus(sessions, [at('/old.jsonl', 'error'), at('/today.jsonl', 'error')], now, liveMs, opened));
    assert.equal(idleSinceOpened.text, '$(shield) 1 live $(error) 1');
    assert.equal(idleSinceOpened.alert, true, 'written since the window opened: still needs attention when idle');

    const warningsOnly = statusText(countStatus(sessions, [at('/live.jsonl', 'warning')], now, liveMs, opened));
    assert.equal(warningsOnly.text, '$(shield) 1 live $(warning) 1');
    assert.equal(warningsOnly.alert, false, 'warnings do not colour the item');

    const errorsOnly = statusText(countStatus(sessions, [at('/live.jsonl', 'error'), at('/live.jsonl', 'error')], now, liveMs, opened));
    assert.equal(errorsOnly.text, '$(shield) 1 live $(error) 2', 'no "$(warning) 0"');
  });

  void test('a screen reader hears words, and the tooltip says what the numbers are', () => {
    const v = statusText({ sessions: 4, live: 2, errors: 3, warnings: 1, allErrors: 7, allWarnings: 1 });
    assert.equal(
      v.ariaLabel,
      'Agent Session Guard: 2 live sessions, 3 errors and 1 warning in live sessions or sessions written since this window opened. All 4 sessions: 7 errors and 1 warning (the Sessions view lists them).',
    );
    assert.doesNotMatch(v.ariaLabel, /\$\(/);
    assert.equal(
      v.tooltip,
      [
        'Agent Session Guard: 2 live sessions',
        '3 errors and 1 warning in live sessions or sessions written since this window opened.',
        'All 4 sessions: 7 errors and 1 warning (the Sessions view lists them).',
        'Click to show the sessions.',
      ].join('\n'),
    );
  });
});

void describe('Coalescer', () => {
  void test('with quiet: a burst ends when requests stop for the delay, or at the longest wait', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout', 'Date'] });
    let runs = 0;
    const c = new Coalescer(() => runs++, 100, { maxMs: 250 });
    c.schedule();
    t.mock.timers.tick(90);
    c.schedule();
    t.mock.timers.tick(90);
    assert.equal(runs, 0, 'each request restarts the wait');
    t.mock.timers.tick(10);
    assert.equal(runs, 1);
    // Requests that never stop: run at the longest wait after the first.
    for (let i = 0; i < 5; i++) {
      c.schedule();
      t.mock.timers.tick(60);
    }
    assert.equal(runs, 2);
  });

  void test('a burst of requests runs the function once, after the delay', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let runs = 0;
    const c = new Coalescer(() => runs++, 100);
    for (let i = 0; i < 1000; i++) {
      c.schedule();
    }
    assert.equal(runs, 0);
    t.mock.timers.tick(99);
    assert.equal(runs, 0);
    t.mock.timers.tick(1);
    assert.equal(runs, 1);
    t.mock.timers.tick(1000);
    assert.equal(runs, 1, 'nothing pending, nothing run');
    c.schedule();
    t.mock.timers.tick(100);
    assert.equal(runs, 2, 'a later request runs again');
  });

  void test('flush runs a pending request now, and only a pending one; dispose drops it', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    let runs = 0;
    const c = new Coalescer(() => runs++, 100);
    c.flush();
    assert.equal(runs, 0);
    c.schedule();
    c.flush();
    assert.equal(runs, 1);
    t.mock.timers.tick(200);
    assert.equal(runs, 1, 'the flushed request does not run again');
    c.schedule();
    c.dispose();
    t.mock.timers.tick(200);
    assert.equal(runs, 1);
  });

  void test('10,000 findings added one by one: the counts walk the findings once, not once per finding', (t) => {
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const store = new FindingStore();
    let walked = 0;
    let shown = countStatus([], [], 0, 1, 0);
    const status = new Coalescer(() => {
      const all = store.all();
      walked += all.length;
      shown = countStatus([], all, 0, 1, 0);
    }, 100);
    store.onDidChange(() => status.schedule());
    for (let i = 0; i < 10_000; i++) {
      store.add(finding(i, i % 4 === 0 ? 'warning' : 'error'));
    }
    t.mock.timers.tick(100);
    assert.equal(walked, 10_000);
    assert.deepEqual(shown, { sessions: 0, live: 0, errors: 0, warnings: 0, allErrors: 7500, allWarnings: 2500 });
  });
});
