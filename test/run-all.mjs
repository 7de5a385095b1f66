#!/usr/bin/env node
// `npm test`: builds (with type-check) and lints, then runs every test layer in order and prints a summary.
//   0. build, lint  required: nothing else runs when either fails (ESLint, zero warnings)
//   1. unit       mocha, plain Node, the pure modules
//   2. lsp        the built language server spoken to over LSP
//   3. backend    the real opencode server (opencode-ai) and the spec-dialect test server (two files at a time)
//   4. editor     the suite inside the extension host of a real VS Code (code-server + Chromium)
//   5. demo       `npm run demo -- --screenshots`: every state on the demo backends settles, the screenshots are taken
//   6. vsix       the packaged .vsix installed into code-server activates
//   7. bench-smoke every bench at a tiny size (bench/smoke.mjs): completes and prints its table
// Every layer runs even when an earlier one failed; the exit code is non-zero if any failed.
// A layer that cannot run fails with its reason: nothing skips itself to green.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const only = process.argv.slice(2);
const npx = (...args) => ['npx', ['--no-install', ...args]];

const layers = [
  { name: 'build', cmd: ['npm', ['run', 'build']], required: true },
  { name: 'lint', cmd: ['npm', ['run', 'lint']], required: true },
  { name: 'unit', cmd: npx('mocha', '--config', 'test/unit/.mocharc.json') },
  { name: 'lsp', cmd: npx('mocha', '--config', 'test/lsp/.mocharc.json') },
  { name: 'backend', cmd: npx('mocha', '--config', 'test/backend/.mocharc.json') },
  { name: 'editor', cmd: ['node', ['test/editor/run-code-server.mjs']] },
  { name: 'demo', cmd: ['node', ['scripts/demo.mjs', '--screenshots', 'test-results/demo']] },
  { name: 'vsix', cmd: ['node', ['test/editor/run-vsix-check.mjs']] },
  { name: 'bench-smoke', cmd: ['node', ['bench/smoke.mjs']] },
].filter((l) => only.length === 0 || l.required || only.includes(l.name));

const TAIL_LINES = 60;

/** Runs a layer with its output shown as it comes, keeping its last lines for the summary. */
function runLayer(layer) {
  return new Promise((resolve) => {
    const tail = [];
    let partial = '';
    const keep = (chunk) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      tail.push(...lines);
      if (tail.length > TAIL_LINES) tail.splice(0, tail.length - TAIL_LINES);
    };
    const child = spawn(layer.cmd[0], layer.cmd[1], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    child.stdout.on('data', (c) => {
      process.stdout.write(c);
      keep(c);
    });
    child.stderr.on('data', (c) => {
      process.stderr.write(c);
      keep(c);
    });
    child.on('error', (err) => resolve({ status: null, signal: null, error: err, tail }));
    child.on('close', (status, signal) => {
      if (partial) tail.push(partial);
      resolve({ status, signal, error: undefined, tail: tail.slice(-TAIL_LINES) });
    });
  });
}

const results = [];
const started = Date.now();
for (const layer of layers) {
  console.log(`\n=== ${layer.name} ===`);
  const t0 = Date.now();
  const r = await runLayer(layer);
  const ok = r.status === 0;
  results.push({
    name: layer.name,
    ok,
    seconds: (Date.now() - t0) / 1000,
    why: r.error?.message ?? (r.signal ? `killed by ${r.signal}` : `exit ${r.status}`),
    tail: r.tail,
  });
  if (!ok && layer.required) break;
}

console.log('\n=== summary ===');
console.log('layer       result  seconds');
for (const r of results)
  console.log(
    `${r.name.padEnd(11)} ${(r.ok ? 'pass' : 'FAIL').padEnd(7)} ${r.seconds.toFixed(1).padStart(7)}${r.ok ? '' : `  (${r.why})`}`,
  );
console.log(`total                 ${((Date.now() - started) / 1000).toFixed(1).padStart(7)}`);
const failed = results.filter((r) => !r.ok);
// A failed layer's last lines again, next to the summary: a log read from its end shows why.
for (const r of failed) {
  console.log(`\n=== last ${r.tail.length} lines of the failed layer ${r.name} ===`);
  console.log(r.tail.join('\n'));
}

if (failed.length > 0 || results.length < layers.length) {
  console.error(`\nnpm test FAILED: ${failed.map((r) => r.name).join(', ') || 'build'}`);
  process.exit(1);
}
console.log('\nnpm test passed');
