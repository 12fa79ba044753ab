/** The offer to install the guard hooks considers every workspace folder, not only the first. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answeredFolders, foldersToOffer, offerMessage, type OfferCandidate } from '../../../src/core/hooks/offer';

const folder = (name: string, over: Partial<OfferCandidate> = {}): OfferCandidate => ({ path: `/ws/${name}`, name, hasSessions: true, hasHooks: false, ...over });

void test('every folder with sessions and no hooks is offered, not only the first', () => {
  const folders = [folder('web', { hasSessions: false }), folder('api'), folder('cli'), folder('lib', { hasHooks: true })];
  assert.deepEqual(
    foldersToOffer(folders, new Set()).map((f) => f.name),
    ['api', 'cli'],
  );
});

void test('a folder whose offer was answered is not offered again', () => {
  const folders = [folder('api'), folder('cli'), folder('web')];
  assert.deepEqual(
    foldersToOffer(folders, new Set(['/ws/api', '/ws/web'])).map((f) => f.name),
    ['cli'],
  );
});

void test('the answer stored before the offer was per folder counts for the first folder only', () => {
  assert.deepEqual([...answeredFolders(true, '/ws/api')], ['/ws/api']);
  assert.deepEqual([...answeredFolders(['/ws/api', 3, '/ws/cli'], '/ws/api')], ['/ws/api', '/ws/cli']);
  assert.deepEqual([...answeredFolders(undefined, '/ws/api')], []);
});

void test('the offer names the folders of a multi-root workspace', () => {
  assert.match(offerMessage([folder('api')], true), /in this workspace\?$/);
  assert.match(offerMessage([folder('api')], false), /in the folder api\?$/);
  assert.match(offerMessage([folder('api'), folder('cli'), folder('web')], false), /in the folders api, cli and web\?$/);
});
