/**
 * readResponse(): the hook's hand-written check of the service's answer. Anything it does not
 * accept is "no usable answer", which the hook treats as no service (allow with a note, or deny
 * when failing closed), so what it lets through is what the hook obeys.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readResponse } from '../../../src/core/guard/protocol';

const hit = { decision: 'stale-write', action: 'deny', path: '/p/a.ts', reason: 'changed' };
const verdict = { action: 'deny', decision: 'stale-write', reason: 'changed', hits: [hit] };
const line = (v: unknown): string => JSON.stringify(v);

void describe('the hook reading the service’s answer', () => {
  void test('each kind of answer, as the service sends it', () => {
    assert.deepEqual(readResponse(line({ v: 1, ok: true, type: 'verdict', verdict })), { v: 1, ok: true, type: 'verdict', verdict });
    assert.deepEqual(readResponse(line({ v: 1, ok: true, type: 'recorded' })), { v: 1, ok: true, type: 'recorded' });
    const writes = [{ path: '/p/a.ts', since: 5 }, { path: '/p/b.ts', callId: 'toolu_1', since: 6 }];
    assert.deepEqual(readResponse(line({ v: 1, ok: true, type: 'inflight', writes })), { v: 1, ok: true, type: 'inflight', writes });
    const service = { pid: 1, workspace: '/p', version: '1.0.0', startedAt: 0 };
    assert.deepEqual(readResponse(line({ v: 1, ok: true, type: 'pong', service })), { v: 1, ok: true, type: 'pong', service });
    assert.deepEqual(readResponse(line({ v: 1, ok: false, error: 'request longer than 1048576 bytes' })), { v: 1, ok: false, error: 'request longer than 1048576 bytes' });
    assert.deepEqual(readResponse(line({ v: 1, ok: false })), { v: 1, ok: false, error: 'unknown error' });
  });

  void test('anything else is no answer: another version, no ok, a verdict, hit or write out of shape', () => {
    const bad: [string, unknown][] = [
      ['not JSON', 'deny'],
      ['another version', { v: 2, ok: true, type: 'recorded' }],
      ['no version', { ok: true, type: 'recorded' }],
      ['ok neither true nor false', { v: 1, type: 'recorded' }],
      ['ok as a string', { v: 1, ok: 'true', type: 'recorded' }],
      ['an unknown type', { v: 1, ok: true, type: 'later' }],
      ['an unknown action', { v: 1, ok: true, type: 'verdict', verdict: { ...verdict, action: 'ask' } }],
      ['a reason that is no text', { v: 1, ok: true, type: 'verdict', verdict: { ...verdict, reason: 1 } }],
      ['no hits', { v: 1, ok: true, type: 'verdict', verdict: { ...verdict, hits: undefined } }],
      ['a hit without a reason', { v: 1, ok: true, type: 'verdict', verdict: { ...verdict, hits: [{ ...hit, reason: undefined }] } }],
      ['a hit without a path', { v: 1, ok: true, type: 'verdict', verdict: { ...verdict, hits: [{ ...hit, path: 7 }] } }],
      ['a hit that is no object', { v: 1, ok: true, type: 'verdict', verdict: { ...verdict, hits: ['stale'] } }],
      ['writes that are no list', { v: 1, ok: true, type: 'inflight', writes: {} }],
      ['a write without since', { v: 1, ok: true, type: 'inflight', writes: [{ path: '/p/a.ts' }] }],
      ['a write with a since that is no number', { v: 1, ok: true, type: 'inflight', writes: [{ path: '/p/a.ts', since: '5' }] }],
      ['a write whose call id is no text', { v: 1, ok: true, type: 'inflight', writes: [{ path: '/p/a.ts', since: 5, callId: 1 }] }],
      ['a pong without its service', { v: 1, ok: true, type: 'pong' }],
      ['a pong whose service is null', { v: 1, ok: true, type: 'pong', service: null }],
    ];
    for (const [name, v] of bad) {
      assert.equal(readResponse(typeof v === 'string' ? v : line(v)), undefined, name);
    }
  });
});
