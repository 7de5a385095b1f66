#!/usr/bin/env node
// bench/views (issues #4, #15): the Sessions view in the real editor (code-server, VS Code 1.100.3)
// with 1,000 sessions across 5 backends and 5,000 across 20. Prints, side by side from one run:
//   1. per sampling round: wall time, CPU, heap and RSS, the longest event-loop block, for N = 200
//      and 1,000 sessions (5 backends) and 5,000 (20 backends), in the extension host with the
//      view visible (tree refresh included) and, as the reference, the bare session monitor in
//      plain Node (same bundle code, same servers, no editor, no view);
//   2. on stock opencode (scripted model): the delay from the backend's session.idle to the badge
//      turning report-done, with the event stream on vs off (off: the next 60 s polling round).
//   3. --load MINUTES (issue #14): only a load run: 1,000 sessions over 5 backends sampled for
//      MINUTES in the extension host with a 2 s spacing: heap and RSS at start and end, open
//      handles and sockets, round overlaps, and one grouped notification for many sessions
//      turning hung at once.
//      --load-no-recycle: the Sessions TreeView is never recreated (src/extension/views/
//      recyclingTreeView.ts), to show what VS Code's per-item stores cost over the run;
//      --load-compare: both runs, one after the other, and a table side by side.
//   4. attached (issue 33): a real `session-ops watch` (dist/cli.js) samples the N = 1,000 fleet
//      (the size of --sizes with 1,000 sessions, else the last), the window is attached to it
//      (sessionOps.daemons and its token) and samples nothing: extension-host CPU per daemon round
//      (from its first event to 500 ms after the last event and tree item) beside the bare
//      monitor's round over the same fleet. The backends count every request by the process that
//      holds its connection (bench/views/readers.mjs): the bench aborts when any reader other than
//      the daemon shows up. --no-attached skips it.
// The spec-dialect servers run in a child process (bench/views/server-child.mjs) shared by
// both measurements, so neither pays for the server side.
//   node esbuild.mjs --production && node bench/views.mjs [--sizes 5x40,5x200,20x250] [--rounds 10] [--trials 3] [--smoke] [--load MINUTES [--load-size 5x200] [--load-no-tree] [--load-no-recycle | --load-compare]]
// --smoke: 20 sessions over the 5 backends, 1 round, 1 trial (stream on), min spacing lowered to
// 2 s on both sides, and a 6 s load run over 50 sessions (5 hung at once) (npm test's bench-smoke layer:
// it must complete and print its tables).
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { forkTracked, stopGroup } from '../test/support/processes.mjs';
import { attachMode, printAttached } from './views/attached.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const smoke = process.argv.includes('--smoke');
const rounds = Number(arg('--rounds', smoke ? '1' : '10'));
const trials = Number(arg('--trials', smoke ? '1' : '3'));
const loadMinutes = smoke ? 0.1 : Number(arg('--load', '0'));
const loadOnly = !smoke && loadMinutes > 0;
const loadCompare = loadOnly && process.argv.includes('--load-compare');
// --visible-only: only the rounds with the view visible (no "no tree events", "views hidden" or opencode trials).
const visibleOnly = process.argv.includes('--visible-only');
// --no-port-scan: code-server's port finder reads terminal output only (remote.autoForwardPortsSource
// "output"): its extension host otherwise scans /proc (every socket and process) every few seconds
// even with remote.autoForwardPorts off, CPU that grows with the sockets the monitor holds open and
// that is no part of Session Ops (a local VS Code runs no port finder).
const noPortScan = process.argv.includes('--no-port-scan');
// Sizes as backends x sessions per backend.
const parseSizes = (text) =>
  text.split(',').map((x) => {
    const [b, n] = x.split('x').map(Number);
    if (!(b >= 1 && b <= 50 && n >= 1)) throw new Error(`--sizes: "${x}" is not <backends>x<sessions per backend>`);
    return { backends: b, perBackend: n };
  });
const sizeList = loadOnly ? [] : parseSizes(arg('--sizes', smoke ? '5x4' : '5x40,5x200,20x250'));
const loadSize = parseSizes(arg('--load-size', smoke ? '5x10' : '5x200'))[0];
const perBackendSizes = [
  ...new Set([...sizeList.map((s) => s.perBackend), ...(loadMinutes > 0 ? [loadSize.perBackend] : [])]),
];
const backendCount = Math.max(5, ...sizeList.map((s) => s.backends), loadMinutes > 0 ? loadSize.backends : 0);
const minSpacingMs = smoke ? 2_000 : null;
// Attached mode: the size with 1,000 sessions (else the last), the daemon's spacing in seconds.
const suite = path.join(root, 'out', 'test', 'editor', 'index.js');
if (
  !existsSync(path.join(root, 'dist', 'extension.js')) ||
  !existsSync(suite) ||
  !readFileSync(suite, 'utf8').includes('views benchmark') ||
  !existsSync(path.join(root, 'dist', 'cli.js'))
) {
  console.error('build first: node esbuild.mjs --production (the editor suite must include views.bench.ts)');
  process.exit(2);
}
// The suite (30+ minutes of sleeps and trials at most) must not hit the harness's default limit.
process.env.SESSION_OPS_EDITOR_TIMEOUT_MS ??= String(45 * 60_000);
const { runEditorSuite } = await import('../test/editor/run-code-server.mjs');

// Bundle the test server and the pure monitor (what the extension bundles) as plain ESM.
const outdir = path.join(root, '.bench', 'views');
await esbuild.build({
  entryPoints: { 'spec-server': path.join(root, 'test/support/spec-server.ts') },
  outdir,
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'error',
});
await esbuild.build({
  stdin: {
    contents: [
      "export { SessionMonitor } from './src/core/monitor/sessionMonitor';",
      "export { BackendClient } from './src/core/backend';",
      "export { parseBackendConfigs } from './src/core/config/backends';",
    ].join('\n'),
    resolveDir: root,
    loader: 'ts',
  },
  outfile: path.join(outdir, 'monitor.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  mainFields: ['module', 'main'],
  // undici is CommonJS: give the ESM bundle a require().
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'error',
});

const servers = forkTracked(
  path.join(root, 'bench/views/server-child.mjs'),
  [JSON.stringify(perBackendSizes), String(backendCount)],
  { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
);
const { urls } = await new Promise((resolve, reject) => {
  servers.once('message', resolve);
  servers.once('exit', (code) => reject(new Error(`the spec servers exited (${code})`)));
});
const stopServers = async () => {
  if (servers.connected) servers.send('stop');
  await stopGroup(servers, 2_000);
};
// Attached mode: the editor suite asks this process (a control server on 127.0.0.1) to start the
// daemon when its turn comes, and to stop it (with the backends' readers counted) after.
const attach = loadOnly ? null : await attachMode({ sizes: sizeList, smoke, urls, root, servers });

try {
  // 1. The reference: the bare monitor in plain Node.
  if (!loadOnly)
    console.log(`[bench] reference: the bare session monitor in plain Node (${smoke ? 'about 5 s' : 'about 3 min'})`);
  const reference = loadOnly
    ? null
    : await new Promise((resolve, reject) => {
        const child = forkTracked(
          path.join(root, 'bench/views/monitor-child.mjs'),
          [
            JSON.stringify(urls),
            JSON.stringify(sizeList),
            String(rounds),
            ...(minSpacingMs ? [String(minSpacingMs)] : []),
          ],
          {
            execArgv: ['--expose-gc'],
            stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
          },
        );
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.on('exit', (code) =>
          code === 0
            ? resolve(JSON.parse(out.trim().split('\n').pop()))
            : reject(new Error(`reference run failed (exit ${code})`)),
        );
      });

  // 2. The extension host.
  console.log(
    `[bench] extension host: code-server with the Sessions view visible (${smoke ? 'about 1 min' : loadOnly ? `about ${loadMinutes + 1} min` : 'about 15 min'})`,
  );
  const resultsFile = path.join(root, 'test-results', 'bench-views.json');
  const runExtensionHost = async (noRecycle) => {
    rmSync(resultsFile, { force: true });
    const code = await runEditorSuite({
      env: {
        SESSION_OPS_EDITOR_SUITE: 'bench-views',
        SESSION_OPS_BENCH_SPEC_URLS: JSON.stringify(urls),
        SESSION_OPS_BENCH_SIZES: JSON.stringify(sizeList),
        ...(loadMinutes > 0
          ? {
              SESSION_OPS_BENCH_LOAD: JSON.stringify({
                minutes: loadMinutes,
                ...loadSize,
                noTree: process.argv.includes('--load-no-tree'),
                noRecycle,
              }),
            }
          : {}),
        ...(loadOnly ? { SESSION_OPS_BENCH_LOAD_ONLY: '1' } : {}),
        ...(visibleOnly ? { SESSION_OPS_BENCH_VISIBLE_ONLY: '1' } : {}),
        SESSION_OPS_BENCH_ROUNDS: String(rounds),
        SESSION_OPS_BENCH_TRIALS: String(trials),
        ...(smoke ? { SESSION_OPS_BENCH_SMOKE: '1' } : {}),
        ...attach?.env,
      },
      tag: 'bench',
      ...(noPortScan ? { settings: { 'remote.autoForwardPortsSource': 'output' } } : {}),
    });
    if (code !== 0 || !existsSync(resultsFile)) throw new Error(`the editor run failed (exit ${code})`);
    return JSON.parse(readFileSync(resultsFile, 'utf8'));
  };
  const ext = await runExtensionHost(process.argv.includes('--load-no-recycle'));
  const deaf = (ext.treeProbes ?? []).filter((p) => !p.ok);
  if (deaf.length > 0)
    console.log(
      `[bench] WARNING: the Sessions tree was not fetched after a whole refresh: ${deaf.map((p) => p.label).join('; ')} (rounds measured then include no tree refresh)`,
    );
  if (!loadOnly) print(ext, reference);
  if (attach) printAttached(ext, reference, attach); // aborts when the window read the backends
  if (ext.load) printLoad(ext.load);
  if (loadCompare && ext.load) {
    // The same load run again in a fresh editor with the tree view never recycled: VS Code's
    // per-item stores side by side with the recycling that bounds them.
    console.log(
      `[bench] the same load run with the tree view never recycled (--load-compare, about ${loadMinutes + 1} min)`,
    );
    const off = await runExtensionHost(true);
    printLoad(off.load);
    printLoadCompare([ext.load, off.load]);
  }
} finally {
  await attach?.close();
  await stopServers();
}

function median(xs) {
  const s = xs.filter((x) => x !== null && x !== undefined).sort((a, b) => a - b);
  if (s.length === 0) return null;
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function print(ext, ref) {
  const MB = (b) => (b === null || b === undefined ? 'n/a' : (b / 1048576).toFixed(1));
  const f0 = (x) => (x === null || x === undefined ? 'n/a' : x.toFixed(0));
  const f1 = (x) => (x === null || x === undefined ? 'n/a' : x.toFixed(1));
  const cols = [
    ['N', 9],
    ['round', 18],
    ['where', 17],
    ['wall ms', 8],
    ['CPU ms', 8],
    ['max block ms', 12],
    ['on CPU', 6],
    ['heap MB', 8],
    ['heap after gc', 13],
    ['RSS MB', 7],
    ['tree items', 10],
    ['rows changed', 12],
  ];
  const line = (vals) => `| ${vals.map((v, i) => String(v).padStart(cols[i][1])).join(' | ')} |`;
  const pick = (rs, key) => median(rs.map((r) => r[key]));
  const summarize = (label, r, where, baseGc, memory = true) => {
    const rs = Array.isArray(r) ? r : [r];
    const heapGc = pick(rs, 'heapAfterGc');
    return line([
      '',
      label,
      where,
      f1(pick(rs, 'wallMs')),
      f1(pick(rs, 'cpuMs')),
      f1(pick(rs, 'maxBlockMs')),
      rs[0].maxBlockCpuMs === undefined ? '-' : f1(pick(rs, 'maxBlockCpuMs')),
      memory ? MB(pick(rs, 'heapUsed')) : '*',
      !memory ? '*' : heapGc === null ? 'n/a' : `${MB(heapGc)} (+${MB(heapGc - baseGc)})`,
      memory ? MB(pick(rs, 'rss')) : '*',
      rs[0].treeItems === undefined ? '-' : f0(pick(rs, 'treeItems')),
      f0(pick(rs, 'changedRows')),
    ]);
  };

  console.log(
    `\nSampling round over spec-dialect backends (servers in a child process), view visible in code-server 4.100.3 vs the bare monitor in plain Node ${ref.node}`,
  );
  console.log(
    `steady = median of ${ext.rounds} back-to-back rounds (each with a baseline >= ${smoke ? '2 s old: smoke run, min spacing lowered' : '30 s old'}); CPU in the extension host covers the round and the debounced tree refresh after it; max block = the longest event-loop delay in the window (perf_hooks.monitorEventLoopDelay, 10 ms resolution), median over the rounds; on CPU = the same from a 10 ms drift probe counting only CPU the process used in the gap (a late timer on this shared machine may be starvation, not a block)`,
  );
  console.log(
    'where: "extension host" = view visible; "no tree events" = the same, the Sessions view\'s onDidChangeTreeData swallowed (no VS Code tree refresh); "views hidden" = both Session Ops views hidden, rounds called directly (as with an automatic action armed)',
  );
  console.log(
    'cold = the first round of new backends: in the extension host from writing sessionOps.backends to all rows listed; first verdicts = the first round with a baseline',
  );
  console.log(line(cols.map((c) => c[0])));
  console.log(`|${cols.map((c) => '-'.repeat(c[1] + 2)).join('|')}|`);
  for (let i = 0; i < ext.sizes.length; i++) {
    const e = ext.sizes[i];
    const r = ref.sizes.find((x) => x.n === e.n);
    console.log(line([`${e.n}/${e.backends ?? 5}b`, '', '', '', '', '', '', '', '', '', '', '']));
    console.log(
      summarize('steady (median)', e.steady, 'extension host', ext.baseline.heapAfterGc ?? ext.baseline.heapUsed),
    );
    if (e.noTree) console.log(summarize('steady (median)', e.noTree, 'no tree events', 0, false));
    if (e.hidden) console.log(summarize('steady (median)', e.hidden, 'views hidden', 0, false));
    if (r) console.log(summarize('steady (median)', r.steady, 'plain Node', ref.baseline.heapUsed));
    console.log(
      summarize('first verdicts', e.verdict, 'extension host', ext.baseline.heapAfterGc ?? ext.baseline.heapUsed),
    );
    if (r) console.log(summarize('first verdicts', r.verdict, 'plain Node', ref.baseline.heapUsed));
    console.log(
      summarize('cold (first sample)', e.cold, 'extension host', ext.baseline.heapAfterGc ?? ext.baseline.heapUsed),
    );
    if (r) console.log(summarize('cold (first sample)', r.cold, 'plain Node', ref.baseline.heapUsed));
  }
  // The goals of issue 15, from this run.
  const e1000 = ext.sizes.find((e) => e.n === 1000);
  const r1000 = ref.sizes.find((x) => x.n === 1000);
  for (const [e, r] of [
    [e1000, r1000],
    ...(e1000 ? [] : [[ext.sizes[ext.sizes.length - 1], ref.sizes[ref.sizes.length - 1]]]),
  ]) {
    if (!e || !r) continue;
    const ratio = pick(e.steady, 'cpuMs') / pick(r.steady, 'cpuMs');
    const hidden = e.hidden ? pick(e.hidden, 'cpuMs') / pick(r.steady, 'cpuMs') : null;
    // The extension host's window also holds ~0.5 s of quiet, when code-server's own extension
    // host work (idle CPU, measured before the rounds) runs: that share subtracted.
    const idle = e.idleCpuMsPerS ?? 0;
    const net = median(e.steady.map((x) => x.cpuMs - (idle * x.windowMs) / 1000));
    const netRatio = net / pick(r.steady, 'cpuMs');
    console.log(
      `\ngoal N=${e.n} (${e.backends ?? 5} backends): extension-host CPU per steady round <= 1.3x the bare monitor's: ${ratio.toFixed(2)}x ${ratio <= 1.3 ? 'met' : 'MISSED'}; ` +
        `less the idle extension host's ${f1(idle)} ms/s over the window: ${f1(net)} ms, ${netRatio.toFixed(2)}x ${netRatio <= 1.3 ? 'met' : 'MISSED'} (views hidden: ${hidden === null ? 'n/a' : `${hidden.toFixed(2)}x`})`,
    );
  }
  const e5000 = ext.sizes.find((e) => e.n >= 5000);
  if (e5000) {
    for (const [label, key] of [
      ['wall', 'maxBlockMs'],
      ['on CPU', 'maxBlockCpuMs'],
    ]) {
      const blocks = e5000.steady.map((x) => x[key]).filter((x) => typeof x === 'number');
      const worst = blocks.length ? Math.max(...blocks) : null;
      console.log(
        `goal N=${e5000.n} (${e5000.backends} backends): longest extension-host event-loop block per round < 50 ms (${label}): median ${f1(median(blocks))} ms, worst ${f1(worst)} ms ${worst !== null && worst < 50 ? 'met' : 'MISSED'}` +
          ` (cold first sample ${f1(e5000.cold[key])} ms, first verdicts ${f1(e5000.verdict[key])} ms; steady rounds ${blocks.map(f1).join(', ')})`,
      );
    }
  }
  // Garbage collection (PerformanceObserver 'gc' entries) per round, and how much of each
  // round's longest block (the drift probe's longest gap) was collection.
  if (ext.sizes.some((s) => s.steady[0]?.gcMs !== undefined)) {
    console.log(
      `\nGarbage collection per round (PerformanceObserver 'gc'): pauses in the window (ms), the longest pause, and inside the round's longest block (drift probe's gap: collection ms of the gap, kinds)`,
    );
    const gcText = (x) =>
      x?.gcMs === undefined
        ? 'n/a'
        : `block ${f1(x.probeBlockMs)} ms, GC in it ${f1(x.gcInBlockMs)} ms${x.gcInBlockKinds ? ` (${x.gcInBlockKinds})` : ''}; GC in the window ${f1(x.gcMs)} ms, longest pause ${f1(x.maxGcMs)} ms`;
    for (const e of ext.sizes) {
      const r = ref.sizes.find((x) => x.n === e.n);
      console.log(`N=${e.n}: cold: ${gcText(e.cold)}`);
      console.log(`N=${e.n}: first verdicts: ${gcText(e.verdict)}`);
      e.steady.forEach((x, i) => console.log(`N=${e.n}: steady ${i + 1}: ${gcText(x)}`));
      if (r?.steady[0]?.gcMs !== undefined)
        console.log(
          `N=${e.n}: plain Node GC per steady round ${f1(pick(r.steady, 'gcMs'))} ms (longest pause ${f1(pick(r.steady, 'maxGcMs'))} ms) vs extension host ${f1(pick(e.steady, 'gcMs'))} ms (${f1(pick(e.steady, 'maxGcMs'))} ms); first verdicts ${f1(r.verdict.gcMs)} (${f1(r.verdict.maxGcMs)}) vs ${f1(e.verdict.gcMs)} (${f1(e.verdict.maxGcMs)}); cold ${f1(r.cold.gcMs)} (${f1(r.cold.maxGcMs)}) vs ${f1(e.cold.gcMs)} (${f1(e.cold.maxGcMs)})`,
        );
    }
  }
  const [small, big] = [ext.sizes[0], ext.sizes[ext.sizes.length - 1]];
  const [rsmall, rbig] = [ref.sizes[0], ref.sizes[ref.sizes.length - 1]];
  if (small && big && small !== big) {
    const per = (s, key) => pick(s.steady, key) / s.n;
    console.log(`\nScaling ${small.n} -> ${big.n} sessions (x${big.n / small.n}), steady round:`);
    console.log(
      `| ${'where'.padEnd(16)} | ${'wall x'.padStart(7)} | ${'CPU x'.padStart(7)} | ${'CPU µs/session'.padStart(16)} | ${'retained heap KB/session'.padStart(24)} |`,
    );
    console.log(`|${'-'.repeat(18)}|${'-'.repeat(9)}|${'-'.repeat(9)}|${'-'.repeat(18)}|${'-'.repeat(26)}|`);
    const scale = (where, a, b, baseKey) => {
      const ratio = (k) => (pick(b.steady, k) / pick(a.steady, k)).toFixed(2);
      const heapPer =
        pick(b.steady, baseKey) === null
          ? 'n/a'
          : ((pick(b.steady, baseKey) - pick(a.steady, baseKey)) / (b.n - a.n) / 1024).toFixed(1);
      console.log(
        `| ${where.padEnd(16)} | ${ratio('wallMs').padStart(7)} | ${ratio('cpuMs').padStart(7)} | ${`${(per(a, 'cpuMs') * 1000).toFixed(0)} -> ${(per(b, 'cpuMs') * 1000).toFixed(0)}`.padStart(16)} | ${heapPer.padStart(24)} |`,
      );
    };
    scale('extension host', small, big, 'heapAfterGc');
    if (rsmall && rbig) scale('plain Node', rsmall, rbig, 'heapAfterGc');
  }
  console.log(
    `\nExtension host: forced gc ${ext.gcAvailable ? 'available (v8 flag at run time)' : 'unavailable: "heap after gc" is n/a'}; idle CPU with the view visible ${f1(ext.baseline.idleCpuMsPerS)} ms/s ` +
      `(${ext.sizes.map((s) => `${f1(s.idleCpuMsPerS)} ms/s with ${s.n} rows`).join(', ')}); a measured window lasts the round + ~0.5 s of quiet.`,
  );
  console.log(
    `* memory not comparable: these rounds follow the visible ones, with ${ext.rounds} (${2 * ext.rounds}) more samples per session in the history.`,
  );
  console.log(
    `Baseline heap after activation, view visible, no backend: extension host ${MB(ext.baseline.heapUsed)} MB (RSS ${MB(ext.baseline.rss)}), plain Node ${MB(ref.baseline.heapUsed)} MB (RSS ${MB(ref.baseline.rss)}).`,
  );
  // Retained heap per round: the slope of heap-after-gc over the steady rounds (sample history).
  const slope = (rs) => {
    const ys = rs.map((r) => r.heapAfterGc);
    if (ys.some((y) => y === null || y === undefined) || ys.length < 2) return null;
    return (ys[ys.length - 1] - ys[0]) / (ys.length - 1);
  };
  for (const s of ext.sizes) {
    const r = ref.sizes.find((x) => x.n === s.n);
    const grow = (rs) => (slope(rs) === null ? 'n/a' : `${(slope(rs) / s.n / 1024).toFixed(2)} KB`);
    console.log(
      `N=${s.n}: badges ${Object.entries(s.badges)
        .map(([b, c]) => `${b} ${c}`)
        .join(', ')}; notifications at the first verdicts ${s.verdict.notifications}; ` +
        `per steady round: tree items resolved in ${f1(pick(s.steady, 'treeItemMs'))} ms, change listeners (view, status bar) ${f1(pick(s.steady, 'listenerMs'))} ms (longest change event ${f1(pick(s.steady, 'maxEmitMs'))} ms; first verdicts ${f1(s.verdict.listenerMs)} ms, longest ${f1(s.verdict.maxEmitMs)} ms), ` +
        `the view's change turns ${f1(pick(s.steady, 'changeTurnMs'))} ms (longest ${f1(pick(s.steady, 'maxChangeTurnMs'))} ms; first verdicts ${f1(s.verdict.changeTurnMs)} ms, longest ${f1(s.verdict.maxChangeTurnMs)} ms), looks compared in refresh slices ${f1(pick(s.steady, 'lookMs'))} ms (first verdicts ${f1(s.verdict.lookMs)} ms), ` +
        `tree refresh ends ${f0(pick(s.steady, 'renderTailMs'))} ms after the round (debounce); rows rendered in the DOM ${s.domRowsRendered ?? 'n/a'}; ` +
        `retained heap grows ${grow(s.steady)} per session per round in the extension host, ${r ? grow(r.steady) : 'n/a'} in plain Node (sample history, pruned after 3 min).`,
    );
  }

  if (!Array.isArray(ext.trials)) return;
  const trialsOf = (mode) => (ext.trials ?? []).filter((t) => t.mode === mode);
  console.log(
    `\nStock opencode (scripted model), session.idle on our own /event subscription -> badge report-done; polling spacing ${ext.spacingS} s; prompts sent ${[...new Set((ext.trials ?? []).map((t) => t.offsetS))].join('/')} s into the polling cycle`,
  );
  const dcols = [
    ['event stream', 12],
    ['trials', 6],
    ['idle -> row badge ms', 22],
    ['idle -> tree item ms', 22],
    ['idle -> DOM row ms', 22],
    ['prompt -> idle ms', 17],
  ];
  const dline = (vals) => `| ${vals.map((v, i) => String(v).padStart(dcols[i][1])).join(' | ')} |`;
  console.log(dline(dcols.map((c) => c[0])));
  console.log(`|${dcols.map((c) => '-'.repeat(c[1] + 2)).join('|')}|`);
  const stat = (xs) => {
    const v = xs.filter((x) => x !== null);
    if (v.length === 0) return 'n/a';
    return `${f0(median(v))} (${f0(Math.min(...v))}-${f0(Math.max(...v))})`;
  };
  for (const mode of ['on', 'off']) {
    const ts = trialsOf(mode);
    if (ts.length === 0) continue;
    console.log(
      dline([
        mode,
        ts.length,
        stat(ts.map((t) => t.idleToBadgeMs)),
        stat(ts.map((t) => t.idleToTreeItemMs)),
        stat(ts.map((t) => t.idleToDomMs)),
        stat(ts.map((t) => t.sendToIdleMs)),
      ]),
    );
  }
  console.log('(median, min-max in brackets)');
}

function printLoadCompare(runs) {
  const MB = (b) => (b / 1048576).toFixed(1);
  console.log(
    '\nLoad run side by side: the Sessions tree view recycled past its item budget vs never recycled (same size, spacing and length, each in a fresh editor)',
  );
  console.log(
    '| tree view | tree items | recycled | heap MB at start | heap MB at end | max heap MB (2nd half) | growth MB | bytes per tree item |',
  );
  console.log(
    '|-----------|------------|----------|------------------|----------------|------------------------|-----------|---------------------|',
  );
  for (const l of runs) {
    const heap = l.series.map((p) => p.heapAfterGc ?? p.heapUsed);
    const start = heap[0];
    const end = heap[heap.length - 1];
    const max = Math.max(...heap.slice(Math.floor(heap.length / 2)));
    const growth = end - start;
    const label = l.tree?.budget ? 'recycled' : 'never';
    console.log(
      `| ${label.padEnd(9)} | ${l.tree.items.toLocaleString('en-US').padStart(10)} | ${String(l.tree.recycled).padStart(8)} | ${MB(start).padStart(16)} | ${MB(end).padStart(14)} | ${MB(max).padStart(22)} | ${((growth >= 0 ? '+' : '') + MB(growth)).padStart(9)} | ${String(Math.round(growth / Math.max(1, l.tree.items))).padStart(19)} |`,
    );
  }
}

function printLoad(l) {
  const MB = (b) => (b === null || b === undefined ? 'n/a' : (b / 1048576).toFixed(1));
  console.log(
    `\nLoad run (issue 14): ${l.n} sessions over ${l.backends} spec-dialect backends sampled for ${(l.durationMs / 60_000).toFixed(1)} min in the extension host, spacing ${l.spacingMs} ms (min spacing ${l.minSpacingMs} ms), view visible${l.noTree ? ', its tree events swallowed (--load-no-tree)' : ''}${l.tree && !l.tree.budget ? ', tree view never recycled (--load-no-recycle)' : ''}`,
  );
  console.log(
    '| when  | heap MB (after gc) | RSS MB | handles | sockets | timeouts | monitor timers | streams | clients | rounds | samples | overlaps |',
  );
  console.log(
    '|-------|--------------------|--------|---------|---------|----------|----------------|---------|---------|--------|---------|----------|',
  );
  for (const [label, p] of [
    ['start', l.start],
    ['end', l.end],
    ['after', l.after],
  ]) {
    if (!p) continue;
    const st = p.stats ?? {};
    console.log(
      `| ${label.padEnd(5)} | ${MB(p.heapAfterGc ?? p.heapUsed).padStart(18)} | ${MB(p.rss).padStart(6)} | ${String(p.handles).padStart(7)} | ${String(p.sockets).padStart(7)} | ${String(p.timeouts).padStart(8)} | ${String(st.timers ?? 'n/a').padStart(14)} | ${String(st.streams ?? 'n/a').padStart(7)} | ${String(st.clients ?? 'n/a').padStart(7)} | ${String(st.rounds ?? 'n/a').padStart(6)} | ${String(st.samples ?? 'n/a').padStart(7)} | ${String(st.overlaps ?? 'n/a').padStart(8)} |`,
    );
  }
  const heap = l.series.map((p) => p.heapAfterGc ?? p.heapUsed);
  const half = heap.slice(Math.floor(heap.length / 2));
  console.log(
    `heap after gc over the run (every ${(l.probeEveryMs / 1000).toFixed(0)} s): ${heap.map((h) => MB(h)).join(', ')} MB; second half min-max ${MB(Math.min(...half))}-${MB(Math.max(...half))} MB`,
  );
  console.log(
    `rounds in the run: ${l.end.stats.rounds - l.start.stats.rounds} backend rounds, ${l.end.stats.samples - l.start.stats.samples} directory samples, overlaps ${l.end.stats.overlaps}; longest event-loop block ${l.maxBlockMs.toFixed(1)} ms wall, ${(l.maxBlockCpuMs ?? 0).toFixed(1)} ms on CPU`,
  );
  console.log(
    `socket descriptors of the extension host (/proc/self/fd): before ${l.before.fdSockets ?? 'n/a'}, start ${l.start.fdSockets ?? 'n/a'}, end ${l.end.fdSockets ?? 'n/a'}, after ${l.after?.fdSockets ?? 'n/a'}`,
  );
  console.log(
    `handles, sockets, timeouts: the extension host's whole process (process.getActiveResourcesInfo: code-server's own included); "after" = backends removed 2 s earlier: sockets ${l.after?.sockets ?? 'n/a'} vs ${l.before.sockets} before the backends were added, handles ${l.after?.handles ?? 'n/a'} vs ${l.before.handles}, timeouts ${l.after?.timeouts ?? 'n/a'} vs ${l.before.timeouts}.`,
  );
  if (l.tree)
    console.log(
      `Sessions tree: ${l.tree.items.toLocaleString('en-US')} tree items handed to VS Code in the run (its extension host keeps ~170 bytes for each until the TreeView is disposed); ${l.tree.budget ? `view recycled ${l.tree.recycled} time(s) (budget: ${l.tree.budget.visible.toLocaleString('en-US')} items while visible, ${l.tree.budget.hidden.toLocaleString('en-US')} while hidden)` : 'recycling off (--load-no-recycle)'}`,
    );
  console.log(
    `hung wave: ${l.hungWave.transitions} sessions turned hung in one round over ${l.hungWave.backends} backend(s) -> ${l.hungWave.displayed} notification(s) displayed (one grouped notification expected)`,
  );
}
