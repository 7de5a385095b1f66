// Builds the bundles: the extension (main), the language server (started by the extension
// over IPC), the CLI (bin `session-ops`), the web page `session-ops watch` serves (dist/web,
// scripts/web-bundle.mjs), plus the editor test suite that runs inside the extension host. `--production` minifies (with source maps); `--watch` rebuilds on change.
import * as esbuild from 'esbuild';
import { chmodSync, readFileSync } from 'node:fs';
import { webBuildOptions } from './scripts/web-bundle.mjs';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  minify: production,
  legalComments: 'none',
  logLevel: 'warning',
  // main fields: prefer ES modules so that tree-shaking works on vscode-languageserver et al.
  mainFields: ['module', 'main'],
  define: { __SESSION_OPS_VERSION__: JSON.stringify(pkg.version) },
};

const builds = [
  { ...common, entryPoints: { extension: 'src/extension/extension.ts' }, outdir: 'dist', external: ['vscode'] },
  // The language client, loaded lazily by the extension (keeps activation cheap).
  { ...common, entryPoints: { client: 'src/extension/client/client.ts' }, outdir: 'dist', external: ['vscode'] },
  { ...common, entryPoints: { server: 'server/server.ts' }, outdir: 'dist' },
  {
    ...common,
    entryPoints: { cli: 'src/cli/main.ts' },
    outdir: 'dist',
    banner: { js: '#!/usr/bin/env node' },
  },
  // The editor suite runs in the extension host; mocha is loaded from node_modules at run time.
  {
    ...common,
    minify: false,
    entryPoints: { index: 'test/editor/suite/index.ts' },
    outdir: 'out/test/editor',
    external: ['vscode', 'mocha'],
  },
  // The page at / of `session-ops watch`: found beside dist/cli.js.
  webBuildOptions('dist/web', production),
];

function markExecutable() {
  try {
    chmodSync('dist/cli.js', 0o755);
  } catch {
    /* not built yet */
  }
}

if (watch) {
  const contexts = await Promise.all(builds.map((b) => esbuild.context(b)));
  await Promise.all(contexts.map((c) => c.watch()));
  console.log('[esbuild] watching for changes');
} else {
  const started = Date.now();
  await Promise.all(builds.map((b) => esbuild.build(b)));
  markExecutable();
  console.log(
    `[esbuild] built ${builds.length} bundles${production ? ' (production)' : ''} in ${Date.now() - started} ms`,
  );
}
