/** The core stays pure (STYLE.md): no vscode, chokidar or fs under src/core — checked on the sources. */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../support/repo';

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? files(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const forbidden = /^\s*import\s[^;]*?from\s+['"](vscode|chokidar|node:fs|fs|node:fs\/promises|fs\/promises|node:child_process|node:net)['"]/m;

void test('src/core imports no vscode, chokidar, fs, child_process or net', () => {
  const offenders = files(path.join(repoRoot(), 'src', 'core')).filter((f) => forbidden.test(readFileSync(f, 'utf8')));
  assert.deepEqual(offenders, []);
});

void test('nothing outside src/vscode imports vscode or src/vscode', () => {
  const offenders = ['core', 'io', 'cli', 'protocol']
    .flatMap((d) => (statSync(path.join(repoRoot(), 'src', d), { throwIfNoEntry: false }) ? files(path.join(repoRoot(), 'src', d)) : []))
    .filter((f) => /from\s+['"](vscode|[./]+vscode\/[^'"]*)['"]/.test(readFileSync(f, 'utf8')));
  assert.deepEqual(offenders, []);
});

/**
 * Events VS Code itself subscribes to (a TreeDataProvider's), so no call in src names them.
 */
const eventsVscodeListensTo = new Set(['onDidChangeTreeData']);

void test('every event src declares is listened to outside the file that declares it (no dead API)', () => {
  const sources = files(path.join(repoRoot(), 'src')).map((f) => ({ f, text: readFileSync(f, 'utf8') }));
  const unheard: string[] = [];
  for (const { f, text } of sources) {
    // An event an emitter exposes: `readonly onDidX = this.x.event`.
    for (const [, name] of text.matchAll(/^\s*readonly (on[A-Z]\w*) = [\w.]+\.event\b/gm)) {
      if (eventsVscodeListensTo.has(name!)) {
        continue;
      }
      const call = new RegExp(`\\.${name}\\(`);
      if (!sources.some((s) => s.f !== f && call.test(s.text))) {
        unheard.push(`${path.relative(repoRoot(), f)}: ${name}`);
      }
    }
  }
  assert.deepEqual(unheard, []);
});
