#!/usr/bin/env node
// In-process benchmark of the routing analysis alone (what the language server does on opening a
// routing table): a fresh RoutingAnalyzer analyses the bench/lsp.mjs table of N routes, in a fresh
// Node process per run, builds alternating. Per run: wall time of the analysis, the time V8's
// garbage collector took during it (perf_hooks 'gc' entries), the objects allocated, and the heap the
// finished analysis keeps (after a full gc). Several builds side by side in one run:
//
//   node bench/lsp-analysis.mjs [--routes 10000] [--runs 5] [--before REF]... [--node-args LABEL="FLAGS"]...
// --before REF: also measures the analysis of git revision REF (git archive into a temp dir), as "REF".
// --node-args LABEL="FLAGS": also measures this checkout in a process started with these Node flags
//   (e.g. semi="--max-semi-space-size=32"), as "LABEL"; the peak RSS column shows what they cost.
// --smoke: 100 routes, 1 run.
import * as esbuild from 'esbuild';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const SMOKE = args.includes('--smoke');
const opt = (name, def) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : def;
};
const ROUTES = Number(opt('--routes', SMOKE ? '100' : '10000'));
const RUNS = Number(opt('--runs', SMOKE ? '1' : '5'));
const befores = args.flatMap((a, i) => (a === '--before' ? [args[i + 1]] : []));
const variants = args.flatMap((a, i) => {
  if (a !== '--node-args') return [];
  const at = args[i + 1].indexOf('=');
  return [
    {
      label: args[i + 1].slice(0, at),
      flags: args[i + 1]
        .slice(at + 1)
        .split(' ')
        .filter(Boolean),
    },
  ];
});

// ------------------------------------------------------------------ the child: one measured analysis

async function child() {
  const [bundle, routes] = [process.argv[3], Number(process.argv[4])];
  const { RoutingAnalyzer } = await import(pathToFileURL(bundle).href);
  const { generate } = await import(pathToFileURL(path.join(root, 'bench', 'lsp', 'generate.mjs')).href);
  const { PerformanceObserver } = await import('node:perf_hooks');
  const v8 = await import('node:v8');
  // as the server does before a big table: one small document analysed (schema compiled, code warm)
  new RoutingAnalyzer().analyze('version: 1\ndefault: {}\nroutes:\n  Kind/Bug:\n    effort: hihg\n');
  const text = generate(routes);
  const gcs = [];
  const obs = new PerformanceObserver((list) => gcs.push(...list.getEntries()));
  obs.observe({ entryTypes: ['gc'] });
  globalThis.gc();
  const heap0 = v8.getHeapStatistics().used_heap_size;
  const t0 = performance.now();
  const analysis = new RoutingAnalyzer().analyze(text);
  const t1 = performance.now();
  await new Promise((r) => setTimeout(r, 50)); // let the observer deliver
  const gcMs = gcs.filter((e) => e.startTime >= t0 && e.startTime < t1).reduce((s, e) => s + e.duration, 0);
  const scavenges = gcs.filter((e) => e.startTime >= t0 && e.startTime < t1 && e.detail?.kind === 1).length;
  globalThis.gc();
  const kept = v8.getHeapStatistics().used_heap_size - heap0;
  if (analysis.diagnostics.length !== 0) throw new Error(`expected no diagnostics, got ${analysis.diagnostics.length}`);
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  process.stdout.write(JSON.stringify({ ms: t1 - t0, gcMs, scavenges, keptMb: kept / 1e6, peakRssMb }));
}

// ------------------------------------------------------------------ the parent

async function bundleOf(srcRoot, label) {
  const outfile = path.join(root, '.bench', `lsp-analysis-${label.replace(/[^A-Za-z0-9_-]/g, '_')}.mjs`);
  await esbuild.build({
    // The routing analysis moved to src/language (issue 30); an older revision has it in src/core.
    entryPoints: [
      ['language', 'core']
        .map((room) => path.join(srcRoot, 'src', room, 'routing', 'analyzer.ts'))
        .find((f) => existsSync(f)) ?? path.join(srcRoot, 'src', 'language', 'routing', 'analyzer.ts'),
    ],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    minify: true,
    mainFields: ['module', 'main'],
    nodePaths: [path.join(root, 'node_modules')],
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: 'error',
  });
  return outfile;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const spread = (xs, d = 1) => `${median(xs).toFixed(d)} (${Math.min(...xs).toFixed(d)}-${Math.max(...xs).toFixed(d)})`;

async function main() {
  mkdirSync(path.join(root, '.bench'), { recursive: true });
  const builds = [];
  const temps = [];
  for (const ref of befores) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'lsp-analysis-'));
    temps.push(dir);
    const tar = execFileSync('git', ['-C', root, 'archive', ref, 'src', 'schemas'], { maxBuffer: 1 << 28 });
    execFileSync('tar', ['-x', '-C', dir], { input: tar });
    builds.push({ label: ref, bundle: await bundleOf(dir, ref) });
  }
  const here = await bundleOf(root, 'this');
  builds.push({ label: 'this checkout', bundle: here });
  for (const v of variants) builds.push({ label: v.label, bundle: here, flags: v.flags });
  const results = new Map(builds.map((b) => [b.label, []]));
  for (let r = 0; r < RUNS; r++) {
    for (const b of builds) {
      const out = spawnSync(
        process.execPath,
        ['--expose-gc', ...(b.flags ?? []), fileURLToPath(import.meta.url), '--child', b.bundle, String(ROUTES)],
        { encoding: 'utf8', maxBuffer: 1 << 24 },
      );
      if (out.status !== 0) throw new Error(`${b.label}: ${out.stderr}`);
      results.get(b.label).push(JSON.parse(out.stdout));
    }
  }
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
  console.log(
    `Routing analysis of ${ROUTES.toLocaleString('en')} routes (bench/lsp.mjs's table), a fresh process per run, ${RUNS} runs per build, builds alternating; median (min-max)`,
  );
  const head = ['build', 'analysis ms', 'of which gc ms', 'scavenges', 'heap kept MB', 'peak RSS MB'];
  const body = builds.map((b) => {
    const rs = results.get(b.label);
    return [
      b.label,
      spread(rs.map((x) => x.ms)),
      spread(rs.map((x) => x.gcMs)),
      spread(
        rs.map((x) => x.scavenges),
        0,
      ),
      spread(rs.map((x) => x.keptMb)),
      spread(rs.map((x) => x.peakRssMb)),
    ];
  });
  const w = head.map((h, i) => Math.max(h.length, ...body.map((x) => x[i].length)));
  const line = (cells) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${w.map((x) => '-'.repeat(x + 2)).join('|')}|`);
  for (const b of body) console.log(line(b));
  console.log(
    `machine: ${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} at the end, Node ${process.version}`,
  );
}

if (args[0] === '--child') await child();
else await main();
