#!/usr/bin/env node
// On-demand fuzzing of the routing-table and page validators (issue 14): many more fast-check
// cases than the unit layer, at full size (up to 3,000 nesting levels, 300,000-character scalars,
// 700-link alias chains, 30,000-row tables, 1 MB lines). The mutation generators and the property
// (no throw, a bounded time, every position inside the document, the editor features answering)
// are the unit tests' own (test/unit/core/*/fuzzCases.ts), bundled with esbuild into .bench/.
// Prints the cases run, crashes (property violations, with the first few), the slowest case and
// the peak RSS.
//
//   node bench/fuzz.mjs [--cases 2000] [--seed 1] [--bound-ms 10000] [--only routing|pages] [--smoke]
// --smoke (npm test's bench-smoke layer): 10 cases of each kind.
import * as esbuild from 'esbuild';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : def;
};
const CASES = Number(opt('--cases', args.includes('--smoke') ? '10' : '2000'));
const SEED = Number(opt('--seed', '1'));
const BOUND = Number(opt('--bound-ms', '10000'));
const ONLY = opt('--only', '');

const outdir = path.join(root, '.bench');
mkdirSync(outdir, { recursive: true });
await esbuild.build({
  stdin: {
    contents: [
      "export { routingCase, checkRouting } from './test/unit/language/routing/fuzzCases';",
      "export { pageCase, checkPageText } from './test/unit/language/pages/fuzzCases';",
      "export { default as fc } from 'fast-check';",
    ].join('\n'),
    resolveDir: root,
    sourcefile: 'fuzz-entry.ts',
    loader: 'ts',
  },
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  mainFields: ['module', 'main'],
  outfile: path.join(outdir, 'fuzz.cjs'),
  logLevel: 'warning',
});
const require = createRequire(import.meta.url);
const { routingCase, checkRouting, pageCase, checkPageText, fc } = require(path.join(outdir, 'fuzz.cjs'));

const routingDir = path.join(root, 'test/fixtures/routing/valid');
const routingBases = readdirSync(routingDir).map((f) => readFileSync(path.join(routingDir, f), 'utf8'));
const pageBases = [];
const sets = [
  ...readdirSync(path.join(root, 'test/editor/workspace/ports')).map((p) =>
    path.join(root, 'test/editor/workspace/ports', p, 'source-analysis'),
  ),
  ...readdirSync(path.join(root, 'test/fixtures/pages/valid')).map((p) =>
    path.join(root, 'test/fixtures/pages/valid', p, 'source-analysis'),
  ),
];
sets.forEach((dir, i) => {
  for (const f of readdirSync(dir).sort())
    pageBases.push({ file: `/fuzz/set${i}/source-analysis/${f}`, text: readFileSync(path.join(dir, f), 'utf8') });
});

function run(name, arb, check) {
  let crashes = 0;
  let slowest = { ms: 0, size: 0 };
  const failures = [];
  const t0 = performance.now();
  // generated lazily in batches, so that memory holds one batch of cases
  const batch = 10;
  let done = 0;
  for (let b = 0; done < CASES; b++) {
    const cases = fc.sample(arb, { numRuns: Math.min(batch, CASES - done), seed: SEED * 1_000_003 + b });
    for (const c of cases) {
      const size = typeof c === 'string' ? c.length : c.text.length;
      const s = performance.now();
      try {
        check(c);
      } catch (e) {
        crashes++;
        if (failures.length < 3) {
          const file = path.join(outdir, `fuzz-${name}-crash-${failures.length}.txt`);
          writeFileSync(file, typeof c === 'string' ? c : c.text);
          failures.push(
            `${String(e?.message ?? e)
              .split('\n')[0]
              .slice(0, 160)} (input: ${path.relative(root, file)})`,
          );
        }
      }
      const ms = performance.now() - s;
      if (ms > slowest.ms) {
        slowest = { ms, size };
        writeFileSync(path.join(outdir, `fuzz-${name}-slowest.txt`), typeof c === 'string' ? c : c.text);
      }
      done++;
    }
  }
  const rss = Math.round(process.resourceUsage().maxRSS / 1024);
  console.log(
    `${name.padEnd(8)} cases ${done}  crashes ${crashes}  slowest ${Math.round(slowest.ms)} ms (${slowest.size.toLocaleString('en-US')} chars, saved in .bench/fuzz-${name}-slowest.txt)  total ${((performance.now() - t0) / 1000).toFixed(1)} s  peak RSS ${rss} MB`,
  );
  for (const f of failures) console.log(`  ${f}`);
  return crashes;
}

let crashes = 0;
if (ONLY !== 'pages') crashes += run('routing', routingCase(routingBases), (t) => checkRouting(t, BOUND));
if (ONLY !== 'routing') {
  crashes += run('pages', pageCase(pageBases), (p) =>
    checkPageText(
      p,
      pageBases.filter((b) => path.dirname(b.file) === path.dirname(p.file)),
      BOUND,
    ),
  );
}
process.exitCode = crashes ? 1 : 0;
