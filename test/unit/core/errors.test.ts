import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgentGuardError, errorMessage } from '../../../src/core/lib/errors';

void test('errorMessage: an Error gives its message without the stack, anything else its string', () => {
  assert.equal(errorMessage(new AgentGuardError('io', 'cannot read x')), 'cannot read x');
  assert.equal(errorMessage(new TypeError('bad')), 'bad');
  assert.equal(errorMessage('plain'), 'plain');
  assert.equal(errorMessage(42), '42');
  assert.equal(errorMessage(undefined), 'undefined');
});
