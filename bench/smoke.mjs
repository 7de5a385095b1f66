#!/usr/bin/env node
// npm test's bench-smoke layer: every bench at a tiny size (--smoke), the editor ones one after the
// other beside the others one after the other. No timing is asserted; each must exit 0 and print
// its table. Prints how long each took.
//   node bench/smoke.mjs [name ...]    (names: poll, alloc, lsp, lsp-requests, lsp-analysis, activation, views, fuzz, watch, providers)
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnTracked } from '../test/support/processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// bench/fuzz.mjs is written by another change: it joins as soon as it exists.
const benches = [
  'poll',
  'alloc',
  'lsp',
  'lsp-requests',
  'lsp-analysis',
  'activation',
  'views',
  'fuzz',
  'watch',
  'providers',
];
const only = process.argv.slice(2);
// Two chains at once: the benches that run a real editor (activation, views: mostly waiting on
// code-server, the monitor's rounds and real servers) beside the others (plain Node, CPU-bound).
// Each bench's output is kept and printed whole when it ends, so each reads in one piece.
const EDITOR = new Set(['activation', 'views']);
const selected = benches.filter((b) => only.length === 0 || only.includes(b));
const results = new Map();

async function runBench(name) {
  const file = path.join(root, 'bench', `${name}.mjs`);
  if (!existsSync(file)) {
    if (only.includes(name)) results.set(name, { name, ok: false, seconds: 0, why: 'missing' });
    else console.log(`[bench-smoke] ${name}: bench/${name}.mjs not in the tree yet`);
    return;
  }
  const t0 = Date.now();
  const child = spawnTracked(process.execPath, [file, '--smoke'], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  const kept = [];
  child.stdout.on('data', (c) => kept.push([process.stdout, c]));
  child.stderr.on('data', (c) => kept.push([process.stderr, c]));
  const { code, signal } = await new Promise((resolve) =>
    child.once('close', (c, s) => resolve({ code: c, signal: s })),
  );
  console.log(`\n[bench-smoke] ${name}`);
  for (const [stream, chunk] of kept) stream.write(chunk);
  results.set(name, {
    name,
    ok: code === 0,
    seconds: (Date.now() - t0) / 1000,
    why: signal ? `killed by ${signal}` : `exit ${code}`,
  });
}

const chain = async (names) => {
  for (const name of names) await runBench(name);
};
await Promise.all([chain(selected.filter((b) => EDITOR.has(b))), chain(selected.filter((b) => !EDITOR.has(b)))]);
const ran = selected.map((b) => results.get(b)).filter(Boolean);
console.log('\n[bench-smoke] bench        result  seconds');
for (const r of ran)
  console.log(
    `[bench-smoke] ${r.name.padEnd(12)} ${(r.ok ? 'pass' : 'FAIL').padEnd(7)} ${r.seconds.toFixed(1).padStart(7)}${r.ok ? '' : `  (${r.why})`}`,
  );
process.exit(ran.length > 0 && ran.every((r) => r.ok) ? 0 : 1);
