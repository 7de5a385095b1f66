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
//   client (goal: within 1 s), GET /api/status over HTTP with a token (goal: < 100 ms at 5,000),
//   memory over the rounds (flat)
//   node bench/watch.mjs [--size 20x250] [--rounds 30] [--spacing 2] [--clients 50] [--smoke]
// --smoke: 2 backends x 10 sessions, 4 rounds, 1 s spacing (npm test's bench-smoke layer: it must
// complete and print its table).
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
await esbuild.build({
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
    resolveDir: root,
    loader: 'ts',
  },
  outfile: path.join(root, '.bench', 'watch', 'watch.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  mainFields: ['module', 'main'],
  banner: { js: banner },
  logLevel: 'error',
});

const servers = forkTracked(
  path.join(root, 'bench/views/server-child.mjs'),
  [JSON.stringify([perBackend]), String(backendCount)],
  { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
);
const { urls } = await new Promise((resolve, reject) => {
  servers.once('message', resolve);
  servers.once('exit', (code) => reject(new Error(`the spec servers exited (${code})`)));
});

function side(mode) {
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
  const bare = await side('bare');
  const daemon = await side('daemon');
  const api = await side('api');
  for (const r of [bare, daemon, api])
    if (r.rows !== n) throw new Error(`${r.mode}: expected ${n} rows, got ${r.rows}`);
  const mb = (b) => (b / 1024 / 1024).toFixed(1);
  const growth = (r) => ((r.rssEnd / r.rss3 - 1) * 100).toFixed(1);
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
    `| GET /api/status over HTTP (ms, median of 7; kB) | | ${api.statusMs.toFixed(1)} (${(api.statusBytes / 1024).toFixed(0)}) | |`,
  );
} finally {
  if (servers.connected) servers.send('stop');
  await stopGroup(servers, 2_000);
}
