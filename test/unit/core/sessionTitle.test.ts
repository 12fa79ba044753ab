/** What a session is called in the editor's own widgets (tabs, the sessions view, pickers). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sessionTitle, tabTitle } from '../../../src/core/model/sessionTitle';

void describe('sessionTitle', () => {
  void test('its title, else its first prompt, else its id; blank ones skipped', () => {
    assert.equal(sessionTitle({ title: 'Fix the port', firstPrompt: 'make it 8080', sessionId: 's1' }), 'Fix the port');
    assert.equal(sessionTitle({ title: '  ', firstPrompt: 'make it 8080', sessionId: 's1' }), 'make it 8080');
    assert.equal(sessionTitle({ firstPrompt: '', sessionId: 's1' }), 's1');
    assert.equal(sessionTitle({}), undefined);
  });

  void test('directional formatting characters are shown as escapes, not obeyed (VS Code draws the title as it is)', () => {
    // "fix src/<RLO>gnp.ts" would read "fix src/st.png".
    assert.equal(sessionTitle({ firstPrompt: 'fix src/\u202egnp.ts' }), 'fix src/\\u202egnp.ts');
    assert.equal(sessionTitle({ title: '\u2066a\u2069 \u202ab\u202c' }), '\\u2066a\\u2069 \\u202ab\\u202c');
    assert.equal(tabTitle(sessionTitle({ firstPrompt: 'x\u202ey' })!), 'x\\u202ey');
  });
});
