#!/usr/bin/env node
// bench/activation: extension activation inside the real editor (code-server, VS Code 1.100.3),
// over several cold starts, plus the bundle sizes. Prints a table.
//   node bench/activation.mjs [runs=5] [--smoke]
// --smoke: one cold start (npm test's bench-smoke layer: it must complete and print its tables).
import { mkdtempSync, readFileSync, statSync, existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { runEditorSuite } from '../test/editor/run-code-server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const positional = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const runs = process.argv.includes('--smoke') ? 1 : Number(positional[0] ?? 5);
if (!existsSync(path.join(root, 'dist', 'extension.js'))) {
  console.error('build first: npm run build');
  process.exit(2);
}

// A workspace with no routing file or analysis page: the extension must not activate at startup
// (test/editor/workspace has routing.yaml, whose workspaceContains event would activate it first).
const workspace = mkdtempSync(path.join(os.tmpdir(), 'session-ops-bench-activation-'));
writeFileSync(path.join(workspace, 'README.md'), 'Empty workspace of bench/activation.mjs.\n');

const samples = [];
for (let i = 0; i < runs; i++) {
  const code = await runEditorSuite({ workspace, env: { SESSION_OPS_EDITOR_SUITE: 'bench-activation' }, tag: 'bench' });
  if (code !== 0) {
    console.error(`run ${i + 1} failed (exit ${code})`);
    process.exit(1);
  }
  samples.push(JSON.parse(readFileSync(path.join(root, 'test-results', 'bench-activation.json'), 'utf8')));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const row = (label, key) => {
  const xs = samples.map((s) => s[key]);
  return `| ${label.padEnd(44)} | ${median(xs).toFixed(1).padStart(8)} | ${Math.min(...xs)
    .toFixed(1)
    .padStart(8)} | ${Math.max(...xs)
    .toFixed(1)
    .padStart(8)} |`;
};
console.log(`\nActivation in code-server 4.100.3 (VS Code 1.100.3), ${runs} cold starts`);
console.log(`| ${'measure (ms)'.padEnd(44)} | ${'median'.padStart(8)} | ${'min'.padStart(8)} | ${'max'.padStart(8)} |`);
console.log(`|${'-'.repeat(46)}|${'-'.repeat(10)}|${'-'.repeat(10)}|${'-'.repeat(10)}|`);
console.log(row('ext.activate() (bundle load + activate)', 'activateCallMs'));
console.log(row('activate() body', 'activateBodyMs'));
console.log(row('language server start (lazy, first file)', 'languageServerStartMs'));

console.log('\nBundles');
console.log(`| ${'bundle'.padEnd(20)} | ${'bytes'.padStart(10)} | ${'gzip'.padStart(10)} | loaded when |`);
console.log(`|${'-'.repeat(22)}|${'-'.repeat(12)}|${'-'.repeat(12)}|-------------|`);
const when = {
  'extension.js': 'activation',
  'client.js': 'first routing file/page',
  'server.js': 'first routing file/page (own process)',
  'cli.js': 'session-ops CLI',
};
for (const f of ['extension.js', 'client.js', 'server.js', 'cli.js']) {
  const p = path.join(root, 'dist', f);
  const buf = readFileSync(p);
  console.log(
    `| ${f.padEnd(20)} | ${String(statSync(p).size).padStart(10)} | ${String(gzipSync(buf).length).padStart(10)} | ${when[f]} |`,
  );
}
