// Build entry points with esbuild.
//   node esbuild.config.mjs               dist/ bundles (extension, cli, hook) + media/dist (webview)
//   node esbuild.config.mjs --production  same, minified, no source maps (what `npm run package` ships)
//   node esbuild.config.mjs --tests       transpile src/ + test/ + bench/ file by file into out/ for `node --test`
import * as esbuild from 'esbuild';
import { readdirSync, statSync, rmSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const production = process.argv.includes('--production');
const tests = process.argv.includes('--tests');

/** Every .ts file below `dir` (tests are transpiled one file at a time, not bundled). */
function tsFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return tsFiles(p);
    return p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

const node = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: production ? false : 'linked',
  minify: production,
  logLevel: 'warning',
  // jsonc-parser's "main" is a UMD build whose dynamic require()s esbuild cannot follow; its
  // "module" build bundles. Packages with an "exports" map (zod, chokidar) are unaffected.
  mainFields: ['module', 'main'],
};

if (tests) {
  rmSync('out', { recursive: true, force: true });
  await esbuild.build({
    entryPoints: [...tsFiles('src'), ...tsFiles('test'), ...tsFiles('bench')].filter(
      (f) => !f.startsWith(join('src', 'webview')) && !f.startsWith(join('test', 'fixtures')),
    ),
    outdir: 'out',
    outbase: '.',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  // bench:check times the code that ships: `agent-guard check` is one bundle, in which a call
  // into another module is a plain call, where the file-by-file build above goes through an
  // export getter (2–3 % of check's time in profiles). Its worker threads' script goes beside
  // it, where src/io/checkPool.ts looks for it. The source map is linked, as in dist/: inline,
  // its megabytes stayed in every memory child's heap (peak RSS 149 -> 176 MiB).
  await esbuild.build({
    ...node,
    entryPoints: { 'bench/check.bench': 'bench/check.bench.ts', 'bench/checkWorker': 'src/io/checkWorker.ts', 'bench/passes': 'bench/passes.ts' },
    outdir: 'out',
    sourcemap: 'linked',
  });
} else {
  await Promise.all([
    esbuild.build({ ...node, entryPoints: ['src/vscode/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'] }),
    esbuild.build({ ...node, entryPoints: ['src/cli/main.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' } }),
    // check's worker threads (src/io/checkPool.ts looks for it beside the CLI's bundle).
    esbuild.build({ ...node, entryPoints: ['src/io/checkWorker.ts'], outfile: 'dist/checkWorker.js' }),
    // The hook runs before every tool call of every agent: it must start fast, so it
    // is its own small bundle that never pulls in chokidar or the rules engine, and Node
    // parses no indentation of it even in a development build (names are kept: its
    // errors still read, and the linked map still points into src/).
    esbuild.build({ ...node, minifyWhitespace: true, entryPoints: ['src/cli/hook.ts'], outfile: 'dist/hook.js', banner: { js: '#!/usr/bin/env node' } }),
    // The session timeline webview: browser code, loaded by the panel's HTML under a strict CSP.
    esbuild.build({
      entryPoints: ['src/webview/timeline/main.ts'],
      outfile: 'media/dist/timeline.js',
      bundle: true,
      platform: 'browser',
      format: 'iife',
      target: 'es2020',
      // Inline in development: media/** is packaged whole, so no stale .map file can ship.
      sourcemap: production ? false : 'inline',
      minify: production,
      logLevel: 'warning',
    }),
  ]);
}
