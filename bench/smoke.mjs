#!/usr/bin/env node
// npm test's bench-smoke layer: every bench at a tiny size (--smoke), one after the other. No
// timing is asserted; each must exit 0 and print its table. Prints how long each took.
//   node bench/smoke.mjs [name ...]    (names: poll, alloc, lsp, lsp-requests, lsp-analysis, activation, views, fuzz, watch)
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnTracked } from '../test/support/processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// bench/fuzz.mjs is written by another change: it joins as soon as it exists.
const benches = ['poll', 'alloc', 'lsp', 'lsp-requests', 'lsp-analysis', 'activation', 'views', 'fuzz', 'watch'];
const only = process.argv.slice(2);
const results = [];
for (const name of benches.filter((b) => only.length === 0 || only.includes(b))) {
  const file = path.join(root, 'bench', `${name}.mjs`);
  if (!existsSync(file)) {
    if (only.includes(name)) results.push({ name, ok: false, seconds: 0, why: 'missing' });
    else console.log(`[bench-smoke] ${name}: bench/${name}.mjs not in the tree yet`);
    continue;
  }
  console.log(`\n[bench-smoke] ${name}`);
  const t0 = Date.now();
  const child = spawnTracked(process.execPath, [file, '--smoke'], { cwd: root, stdio: 'inherit' });
  const { code, signal } = await new Promise((resolve) =>
    child.once('exit', (c, s) => resolve({ code: c, signal: s })),
  );
  results.push({
    name,
    ok: code === 0,
    seconds: (Date.now() - t0) / 1000,
    why: signal ? `killed by ${signal}` : `exit ${code}`,
  });
}
console.log('\n[bench-smoke] bench        result  seconds');
for (const r of results)
  console.log(
    `[bench-smoke] ${r.name.padEnd(12)} ${(r.ok ? 'pass' : 'FAIL').padEnd(7)} ${r.seconds.toFixed(1).padStart(7)}${r.ok ? '' : `  (${r.why})`}`,
  );
process.exit(results.length > 0 && results.every((r) => r.ok) ? 0 : 1);
