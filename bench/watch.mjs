#!/usr/bin/env node
// bench/watch: the `session-ops watch` daemon against the bare session monitor, side by side in
// one run, over N sessions on B spec-dialect backends (default 5,000 over 20; the servers in a
// child process, bench/views/server-child.mjs, shared by both sides). Each side runs in its own
// process on its own schedule at the spacing (default 2 s, the spec's 30 s lowered to compress
// time; --spacing 45 for the real one) until every backend did R rounds (default 30):
//   CPU per round (all backends), the daemon's vs the bare monitor's (goal: within 1.3x)
//   RSS after the last round vs after round 3, both after gc (goal: growth under 10 %), and the JS heap after gc
//   /metrics render time (median of 7) and size, Prometheus text and OpenMetrics (goal: < 100 ms at 5,000)
//   the daemon serving its API with SSE clients connected (default 50, another process) beside the
//   same daemon with none (issue 32): CPU per round (goal: within 1.3x), a change's latency to every
//   client (goal: within 1 s), GET /api/status over HTTP with a token, from another process
//   (goal: < 100 ms at 5,000), how long the event loop was held, memory over the rounds (flat; RSS
//   at every 5th round too, to tell growth that goes on from growth that levels off)
//   node bench/watch.mjs [--size 20x250] [--rounds 30] [--spacing 2] [--clients 50] [--smoke]
// --smoke: 2 backends x 10 sessions, 4 rounds, 1 s spacing, the three sides at once (npm test's
// bench-smoke layer: it must complete and print its table).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { forkTracked, stopGroup } from '../test/support/processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const smoke = process.argv.includes('--smoke');
const [backendCount, perBackend] = arg('--size', smoke ? '2x10' : '20x250')
  .split('x')
  .map(Number);
const rounds = Number(arg('--rounds', smoke ? '4' : '30'));
const spacing = Number(arg('--spacing', smoke ? '1' : '2'));
const clients = Number(arg('--clients', smoke ? '3' : '50'));
// --before DIR: another tree of the project (a `git worktree` of an earlier commit); its daemon runs
// the same sides in the same run, interleaved with this tree's (before, after, before, after).
const before = arg('--before', null);
const sides = arg('--sides', 'bare,daemon,api').split(',');
if (!(backendCount >= 1 && perBackend >= 1 && rounds >= 4 && spacing > 0))
  throw new Error('--size BxN (B, N >= 1), --rounds (>= 4) and --spacing (> 0 s)');

const banner = "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);";
mkdirSync(path.join(root, '.bench', 'watch'), { recursive: true });
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
const bundle = (tree, outfile) =>
  esbuild.build({
    stdin: {
      contents: [
        "export { SessionMonitor } from './src/core/monitor/sessionMonitor';",
        "export { BackendClient } from './src/core/backend';",
        "export { parseBackendConfigs } from './src/core/config/backends';",
        "export { parseWatchConfig } from './src/core/watch/config';",
        "export { WatchDaemon } from './src/core/watch/daemon';",
        "export { WatchHttpServer } from './src/core/watch/http-server';",
        "export { EventHub } from './src/core/watch/api/events';",
        "export { readRoutes } from './src/core/watch/api/read';",
        "export { TokenBook, hashToken } from './src/core/watch/auth/tokens';",
      ].join('\n'),
      resolveDir: tree,
      loader: 'ts',
    },
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    mainFields: ['module', 'main'],
    banner: { js: banner },
    logLevel: 'error',
  });
await bundle(root, path.join(root, '.bench', 'watch', 'watch.mjs'));
const beforeBundle = before ? path.join(root, '.bench', 'watch', 'watch-before.mjs') : null;
if (before) await bundle(path.resolve(before), beforeBundle);

const servers = forkTracked(
  path.join(root, 'bench/views/server-child.mjs'),
  [JSON.stringify([perBackend]), String(backendCount)],
  { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
);
const { urls } = await new Promise((resolve, reject) => {
  servers.once('message', resolve);
  servers.once('exit', (code) => reject(new Error(`the spec servers exited (${code})`)));
});

function side(mode, tree = null) {
  if (!sides.includes(mode)) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const child = forkTracked(
      path.join(root, 'bench/watch/child.mjs'),
      [
        mode,
        JSON.stringify(urls.slice(0, backendCount)),
        `/bench/s${perBackend}`,
        String(rounds),
        String(spacing),
        String(clients),
        ...(tree ? [tree] : []),
      ],
      { execArgv: ['--expose-gc'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) =>
      code === 0
        ? resolve(JSON.parse(out.trim().split('\n').pop()))
        : reject(new Error(`${mode} run failed (exit ${code})`)),
    );
  });
}

const n = backendCount * perBackend;
try {
  console.log(
    `[bench] ${n} sessions over ${backendCount} backends, ${rounds} rounds at ${spacing} s spacing, each side alone`,
  );
  // Each side alone (its CPU its own); at smoke size, where only completing counts, side by side.
  // With --before: each of daemon and api first on the earlier tree, then on this one.
  const runs = {};
  if (smoke) [runs.bare, runs.daemon, runs.api] = await Promise.all([side('bare'), side('daemon'), side('api')]);
  else {
    runs.bare = await side('bare');
    for (const mode of ['daemon', 'api']) {
      if (beforeBundle) runs[`${mode}Before`] = await side(mode, beforeBundle);
      runs[mode] = await side(mode);
    }
  }
  const { bare, daemon, api } = runs;
  for (const r of Object.values(runs))
    if (r && r.rows !== n) throw new Error(`${r.mode}: expected ${n} rows, got ${r.rows}`);
  const mb = (b) => (b / 1024 / 1024).toFixed(1);
  const growth = (r) => ((r.rssEnd / r.rss3 - 1) * 100).toFixed(1);
  const loop = (r) =>
    `${r.loopDelayMs.p50.toFixed(0)} / ${r.loopDelayMs.p99.toFixed(0)} / ${r.loopDelayMs.max.toFixed(0)}`;
  // RSS without gc at every 5th round from 3: growth that goes on, or levels off.
  const byRound = (r) =>
    r.rssByRound
      .map((v, i) => [i + 3, v])
      .filter(([round]) => (round - 3) % 5 === 0 || round === r.rssByRound.length + 2)
      .map(([round, v]) => `${round}: ${mb(v)}`)
      .join(', ');
  if (bare && daemon) {
    console.log('');
    console.log(`| ${n} sessions / ${backendCount} backends | bare monitor | watch daemon | ratio |`);
    console.log('|---|---|---|---|');
    console.log(
      `| CPU per round (ms, rounds ${bare.measuredRounds.toFixed(0)} / ${daemon.measuredRounds.toFixed(0)}) | ${bare.cpuMsPerRound.toFixed(1)} | ${daemon.cpuMsPerRound.toFixed(1)} | ${(daemon.cpuMsPerRound / bare.cpuMsPerRound).toFixed(2)}x |`,
    );
    console.log(`| RSS after round 3 (MB) | ${mb(bare.rss3)} | ${mb(daemon.rss3)} | |`);
    console.log(`| RSS after round ${rounds} (MB) | ${mb(bare.rssEnd)} | ${mb(daemon.rssEnd)} | |`);
    console.log(`| RSS growth 3 -> ${rounds} | ${growth(bare)} % | ${growth(daemon)} % | |`);
    const heapGrowth = (r) => ((r.heapEnd / r.heap3 - 1) * 100).toFixed(1);
    console.log(
      `| heap after gc, round 3 -> ${rounds} (MB) | ${mb(bare.heap3)} -> ${mb(bare.heapEnd)} (${heapGrowth(bare)} %) | ${mb(daemon.heap3)} -> ${mb(daemon.heapEnd)} (${heapGrowth(daemon)} %) | |`,
    );
    const path3 = (r, key) => `${mb(r[`${key}3`])} -> ${mb(r[`${key}Half`])} -> ${mb(r[`${key}End`])}`;
    console.log(
      `| RSS / heap after gc, round 3 -> ${bare.half} -> ${rounds} (MB) | ${path3(bare, 'rss')} / ${path3(bare, 'heap')} | ${path3(daemon, 'rss')} / ${path3(daemon, 'heap')} | |`,
    );
    console.log(
      `| external / arrayBuffers, round 3 -> ${rounds} (MB) | ${mb(bare.external3)} -> ${mb(bare.externalEnd)} / ${mb(bare.arrayBuffers3)} -> ${mb(bare.arrayBuffersEnd)} | ${mb(daemon.external3)} -> ${mb(daemon.externalEnd)} / ${mb(daemon.arrayBuffers3)} -> ${mb(daemon.arrayBuffersEnd)} | |`,
    );
    console.log(`| /metrics render, text (ms, median of 7) | | ${daemon.render.textMs.toFixed(1)} | |`);
    console.log(`| /metrics render, OpenMetrics (ms) | | ${daemon.render.openMetricsMs.toFixed(1)} | |`);
    console.log(`| /metrics size, text (kB) | | ${(daemon.render.textBytes / 1024).toFixed(0)} | |`);
    console.log(`| log lines / kB over the run | | ${daemon.log.lines} / ${(daemon.log.bytes / 1024).toFixed(0)} | |`);
  }
  if (daemon && api) {
    console.log('');
    console.log(
      `| ${n} sessions / ${backendCount} backends | daemon, no API client | daemon + ${clients} SSE clients | ratio |`,
    );
    console.log('|---|---|---|---|');
    console.log(
      `| CPU per round (ms) | ${daemon.cpuMsPerRound.toFixed(1)} | ${api.cpuMsPerRound.toFixed(1)} | ${(api.cpuMsPerRound / daemon.cpuMsPerRound).toFixed(2)}x |`,
    );
    console.log(`| RSS growth 3 -> ${rounds} | ${growth(daemon)} % | ${growth(api)} % | |`);
    console.log(
      `| heap after gc, round 3 -> ${rounds} (MB) | ${mb(daemon.heap3)} -> ${mb(daemon.heapEnd)} | ${mb(api.heap3)} -> ${mb(api.heapEnd)} | |`,
    );
    const l = api.latency;
    console.log(
      `| change -> every client (ms): p50 / p99 / max over ${l.events} events | | ${l.p50} / ${l.p99} / ${l.max} | |`,
    );
    console.log(`| events missed by a client / clients dropped | | ${l.incomplete} / ${api.dropped} | |`);
    console.log(
      `| GET /api/status over HTTP from a process of its own (ms, median / max of 7; kB) | | ${api.statusMs.toFixed(1)} / ${api.statusMaxMs.toFixed(1)} (${(api.statusBytes / 1024).toFixed(0)}) | |`,
    );
    console.log(
      `| its body's bytes between rounds, in the daemon (ms, median of 7) | | ${api.statusBytesMs.toFixed(2)} | |`,
    );
    const loop = (r) =>
      `${r.loopDelayMs.p50.toFixed(0)} / ${r.loopDelayMs.p99.toFixed(0)} / ${r.loopDelayMs.max.toFixed(0)}`;
    console.log(`| event loop held (ms): p50 / p99 / max | ${loop(daemon)} | ${loop(api)} | |`);
    console.log(`| RSS by round, no gc (MB) | ${byRound(daemon)} | ${byRound(api)} | |`);
  }
  if (runs.daemonBefore && runs.apiBefore && daemon && api) {
    const cols = [runs.daemonBefore, runs.apiBefore, daemon, api];
    const row = (label, f) => console.log(`| ${label} | ${cols.map((r) => f(r) ?? '').join(' | ')} |`);
    console.log('');
    console.log(
      `| ${n} sessions / ${backendCount} backends | before: no client | before: ${clients} SSE clients | after: no client | after: ${clients} SSE clients |`,
    );
    console.log('|---|---|---|---|---|');
    row('CPU per round (ms)', (r) =>
      r.mode === 'api'
        ? `${r.cpuMsPerRound.toFixed(1)} (${(r.cpuMsPerRound / (r === api ? daemon : runs.daemonBefore).cpuMsPerRound).toFixed(2)}x)`
        : r.cpuMsPerRound.toFixed(1),
    );
    row(`RSS growth 3 -> ${rounds} (after gc)`, (r) => `${growth(r)} %`);
    row(`heap after gc, round 3 -> ${rounds} (MB)`, (r) => `${mb(r.heap3)} -> ${mb(r.heapEnd)}`);
    row('RSS by round, no gc (MB)', byRound);
    row('event loop held (ms): p50 / p99 / max', loop);
    row('change -> every client (ms): p50 / p99 / max', (r) =>
      r.latency ? `${r.latency.p50} / ${r.latency.p99} / ${r.latency.max} (${r.latency.events} events)` : null,
    );
    row('events missed by a client / clients dropped', (r) =>
      r.latency ? `${r.latency.incomplete} / ${r.dropped}` : null,
    );
    row('GET /api/status from a process of its own (ms, median / max of 7; kB)', (r) =>
      r.statusMs !== undefined
        ? `${r.statusMs.toFixed(1)} / ${r.statusMaxMs.toFixed(1)} (${(r.statusBytes / 1024).toFixed(0)})`
        : null,
    );
  }
} finally {
  if (servers.connected) servers.send('stop');
  await stopGroup(servers, 2_000);
}
