import { existsSync } from 'node:fs';
import * as path from 'node:path';

/** The repository root (the folder holding package.json), from wherever the compiled test runs. */
export function repoRoot(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) {
      throw new Error('package.json not found above ' + __dirname);
    }
    dir = up;
  }
  return dir;
}

/** The shared real fixtures, when this machine has them (CI clones have the committed copies under test/fixtures). */
export function sharedFixtures(): string | undefined {
  const p = path.resolve(repoRoot(), '..', 'shared', 'fixtures', 'real');
  return existsSync(p) ? p : undefined;
}

export function fixture(...parts: string[]): string {
  return path.join(repoRoot(), 'test', 'fixtures', ...parts);
}
