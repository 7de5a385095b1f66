#!/usr/bin/env node
// Allocation per sampling round (run on demand): the JS heap bytes one round allocates at
// N = 1,000 sessions on one spec-dialect backend (bench/views/server-child.mjs: the realistic
// session mix, healthy sessions stepping on every list), side by side in the same run:
//   floor        the same requests (1 list + N newest-message reads) through a bare undici Pool, bodies read, no parsing
//   floor+parse  the same, each body read as text and JSON.parse'd (the least a client that parses JSON allocates)
//   sampleRound  BackendClient.sampleRound: the read path and wire parsing
//   monitor      SessionMonitor.refresh on that one backend: the sample, the verdicts and the rows (steady rounds)
// Method: each measuring child runs with --expose-gc and a 256 MB young generation
// (--min/--max-semi-space-size), so that no garbage collection happens inside a round; before each
// round gc() twice, then bytes = process.memoryUsage().heapUsed after the round minus before. A
// round during which the GC ran anyway (seen by a PerformanceObserver of 'gc' entries) is
// dropped and repeated. Buffers outside the JS heap (socket chunks) are not counted.
// Medians of R rounds per client. Beside the bytes allocated, the bytes that survive a round: heap
// after one scavenge (gc({type: 'minor'})) minus before it (what a minor GC has to copy: its pause is
// proportional to them) and heap after a full gc minus before (what the round keeps); for the
// monitor also its first-verdicts round (the second of a new monitor) and its cold round (the first).
// --ref LABEL=GITREF adds a build of that commit's src/ (from
// `git archive`), measured in its own child beside the working tree's ("this").
// --profile prints, for the working tree, where the bytes are allocated (V8's sampling heap
// profiler, objects collected by the GC included): the top functions by bytes; and what a steady,
// a first-verdicts and a cold monitor round leave alive after one scavenge (live objects only).
//   node bench/alloc.mjs [--size 1000|5000] [--rounds 7] [--ref before=HEAD~1] [--profile]
// --smoke: N = 10, 2 rounds (npm test's bench-smoke layer: it must complete and print its table).
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { forkTracked, stopGroup } from '../test/support/processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : fallback;
};
const args = (name) => argv.flatMap((a, i) => (a === name && argv[i + 1] ? [argv[i + 1]] : []));
const smoke = argv.includes('--smoke');
const size = Number(arg('--size', smoke ? '10' : '1000'));
const rounds = Number(arg('--rounds', smoke ? '2' : '7'));
const profile = argv.includes('--profile');
if (!(size >= 1 && rounds >= 1)) throw new Error('--size (>= 1) and --rounds (>= 1)');
const refs = args('--ref').map((spec) => {
  const [label, ref] = spec.split('=');
  if (!label || !ref) throw new Error(`--ref LABEL=GITREF, got ${spec}`);
  return { label, ref };
});

const outdir = path.join(root, '.bench', 'alloc');
mkdirSync(outdir, { recursive: true });
const banner = "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);";

/** Bundles the monitor and the client of a source tree (the working tree, or an extracted commit). */
async function bundle(label, srcRoot) {
  const outfile = path.join(outdir, `${label}.mjs`);
  await esbuild.build({
    stdin: {
      contents: [
        "export { SessionMonitor } from './src/core/monitor/sessionMonitor';",
        "export { BackendClient } from './src/core/backend';",
        "export { parseBackendConfigs } from './src/core/config/backends';",
      ].join('\n'),
      resolveDir: srcRoot,
      loader: 'ts',
    },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // undici from this checkout for every build: only our code differs between the columns.
    nodePaths: [path.join(root, 'node_modules')],
    mainFields: ['module', 'main'],
    banner: { js: banner },
    logLevel: 'error',
  });
  return outfile;
}

await esbuild.build({
  entryPoints: { 'spec-server': path.join(root, 'test/support/spec-server.ts') },
  outdir: path.join(root, '.bench', 'views'),
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'error',
});
const builds = [{ label: 'this', file: await bundle('this', root) }];
for (const { label, ref } of refs) {
  const dir = path.join(outdir, `src-${label}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('sh', ['-c', `git -C "${root}" archive "${ref}" src | tar -x -C "${dir}"`]);
  builds.push({ label, file: await bundle(label, dir), ref });
}

const servers = forkTracked(path.join(root, 'bench/views/server-child.mjs'), [JSON.stringify([size]), '1'], {
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const { urls } = await new Promise((resolve, reject) => {
  servers.once('message', resolve);
  servers.once('exit', (code) => reject(new Error(`the spec server exited (${code})`)));
});

function measure(build, withProfile) {
  return new Promise((resolve, reject) => {
    const child = forkTracked(
      path.join(root, 'bench/alloc/child.mjs'),
      [build.file, urls[0], `/bench/s${size}`, String(size), String(rounds), withProfile ? 'profile' : ''],
      {
        execArgv: ['--expose-gc', '--min-semi-space-size=256', '--max-semi-space-size=256'],
        stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
      },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${build.label}: the measuring child exited ${code}`));
      resolve(JSON.parse(out.trim().split('\n').pop()));
    });
  });
}

try {
  const results = [];
  for (const build of builds) results.push({ build, ...(await measure(build, profile && build.label === 'this')) });
  const kb = (b) => (b / 1024).toFixed(0);
  console.log(
    `\nAllocation per sampling round at N = ${size} sessions (1 list + ${size} newest-message reads, spec dialect), JS heap bytes, median of ${rounds} rounds without a GC inside (first verdicts and cold: ${Math.max(1, Math.min(rounds, 3))})`,
  );
  console.log(
    "allocated = heap after the round minus before (gc twice before); survived = heap after one scavenge minus before (the round's objects still alive: what a minor GC copies); retained = heap after a full gc minus before",
  );
  const cols = [
    ['build', 10, false],
    ['client', 12, false],
    ['round', 14, false],
    ['KB/round', 9, true],
    ['B/session', 9, true],
    ['vs floor+parse', 14, true],
    ['survived KB', 11, true],
    ['B/session', 9, true],
    ['retained KB', 11, true],
    ['dropped', 7, true],
  ];
  const line = (cells) =>
    cells.map((c, i) => (cols[i][2] ? String(c).padStart(cols[i][1]) : String(c).padEnd(cols[i][1]))).join('  ');
  console.log(line(cols.map((c) => c[0])));
  for (const r of results) {
    const parse = r.clients['floor+parse'].steady.bytes;
    for (const [name, byRound] of Object.entries(r.clients)) {
      for (const [round, m] of Object.entries(byRound)) {
        console.log(
          line([
            r.build.label,
            name,
            round,
            kb(m.bytes),
            (m.bytes / size).toFixed(0),
            `${(m.bytes / parse).toFixed(2)}x`,
            kb(m.survived),
            (m.survived / size).toFixed(0),
            kb(m.retained),
            m.dropped,
          ]),
        );
      }
    }
  }
  if (refs.length > 0) {
    const mine = results[0].clients;
    for (const r of results.slice(1)) {
      const parts = [];
      for (const name of ['sampleRound', 'monitor'])
        for (const round of Object.keys(mine[name])) {
          const a = mine[name][round];
          const b = r.clients[name]?.[round];
          if (!b) continue;
          parts.push(
            `${name} ${round}: allocated ${(a.bytes / b.bytes).toFixed(2)}x, survived ${(a.survived / b.survived).toFixed(2)}x`,
          );
        }
      console.log(`this vs ${r.build.label} (${r.build.ref}):\n  ${parts.join('\n  ')}`);
    }
  }
  const prof = results[0].profile;
  if (prof) {
    for (const [what, p] of Object.entries(prof)) {
      console.log(
        what === 'allocated'
          ? `\nWhere monitor rounds allocate (sampling heap profiler, ${p.rounds} steady rounds, collected objects included; top functions by bytes)`
          : `\nWhat the monitor's round leaves alive after one scavenge (${what}; sampling heap profiler, live objects only; top functions by bytes)`,
      );
      console.log(`${'KB/round'.padStart(9)}  ${'share'.padStart(6)}  function`);
      for (const f of p.top)
        console.log(
          `${kb(f.bytes).padStart(9)}  ${`${((100 * f.bytes) / p.total).toFixed(1)}%`.padStart(6)}  ${f.name}`,
        );
    }
  }
  console.log(
    `machine: load average ${(await import('node:os'))
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}, Node ${process.version}`,
  );
} finally {
  await stopGroup(servers);
}
