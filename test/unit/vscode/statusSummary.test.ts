/**
 * The status bar's counts and their coalescing: a session read from the start reports its
 * findings one at a time, and the status bar must not walk every finding for each of them.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Finding, Severity } from '../../../src/core/model/finding';
import { FindingStore } from '../../../src/io/findingStore';
import { Coalescer } from '../../../src/core/lib/coalescer';
import { countStatus, statusText } from '../../../src/vscode/statusSummary';

function finding(i: number, severity: Severity): Finding {
  return { id: `f${i}`, rule: 'unparseable-line', severity, file: '/t.jsonl', line: i, column: 1, endLine: i, endColumn: 2, message: 'm', agent: 'claude-code', session: 's', related: [] };
}

void describe('countStatus', () => {
  void test('counts live sessions, errors and warnings; info is not counted', () => {
    const now = 1_000_000;
    const c = countStatus(
      [{ lastActivity: now - 10 }, { lastActivity: now - 5 * 60_000 }, { lastActivity: now - 60_000 }],
      [finding(1, 'error'), finding(2, 'warning'), finding(3, 'info'), finding(4, 'error')],
      now,
      5 * 60_000,
    );
    assert.deepEqual(c, { sessions: 3, live: 2, errors: 2, warnings: 1 });
    assert.equal(statusText(c).text, '$(shield) 2 live $(error) 2 $(warning) 1');
    assert.match(statusText(c).tooltip, /3 sessions \(2 live\), 2 errors, 1 warning —/);
    assert.equal(statusText({ sessions: 1, live: 0, errors: 0, warnings: 0 }).text, '$(shield) 0 live');
  });
});

void describe('Coalescer', () => {
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
    let shown = countStatus([], [], 0, 1);
    const status = new Coalescer(() => {
      const all = store.all();
      walked += all.length;
      shown = countStatus([], all, 0, 1);
    }, 100);
    store.onDidChange(() => status.schedule());
    for (let i = 0; i < 10_000; i++) {
      store.add(finding(i, i % 4 === 0 ? 'warning' : 'error'));
    }
    t.mock.timers.tick(100);
    assert.equal(walked, 10_000);
    assert.deepEqual(shown, { sessions: 0, live: 0, errors: 7500, warnings: 2500 });
  });
});
