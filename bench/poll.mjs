#!/usr/bin/env node
// Sampling-round benchmark (run on demand): one round over N = 10, 100, 1,000 sessions against
// the spec-dialect server in a child process, side by side in the same run:
//   naive  a sequential client: fetch() each request in turn, parse the JSON
//   floor  the same requests through a bare undici Pool, all issued at once, bodies read, no parsing
//   ours   BackendClient.sampleRound (pool, bounded concurrency, timeouts, shape checks, normalization)
// Reports wall time and client CPU (medians), requests counted at the server.
// Goal: at 1,000 sessions within 1.3x of the floor (in every run of five) and at least 5x faster than naive.
// --repeat K: K runs in this one invocation (each with its own warm-up and --runs interleaved
// rounds; the same server child), each run's table, then ours/floor per run, their median and spread.
//   node bench/poll.mjs [--sizes 10,100,1000] [--runs 5] [--repeat 5] [--smoke]
// --smoke: N = 10, one run (npm test's bench-smoke layer: it must complete and print its table).
import { mkdirSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import { Pool } from 'undici';
import { forkTracked, stopGroup } from '../test/support/processes.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const smoke = process.argv.includes('--smoke');
const sizes = arg('--sizes', smoke ? '10' : '10,100,1000')
  .split(',')
  .map(Number);
const runs = Number(arg('--runs', smoke ? '1' : '5'));
const repeat = Math.max(1, Number(arg('--repeat', '1')));
const CONNECTIONS = 8;

// Bundle the shipped client and the test server as plain ESM (what the extension runs is bundled too).
mkdirSync(path.join(root, '.bench'), { recursive: true });
await esbuild.build({
  entryPoints: {
    client: path.join(root, 'src/core/backend/client.ts'),
    'spec-server': path.join(root, 'test/support/spec-server.ts'),
  },
  outdir: path.join(root, '.bench'),
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['undici'],
  // undici is CommonJS and loaded lazily with require(): give the ESM bundle a real require().
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'error',
});
const { BackendClient } = await import(path.join(root, '.bench', 'client.mjs'));

const child = forkTracked(path.join(root, 'bench/poll/server-child.mjs'), [JSON.stringify(sizes)], {
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const ask = (msg) => new Promise((resolve) => child.once('message', resolve) && child.send(msg));
const { url } = await new Promise((resolve, reject) => {
  child.once('message', resolve);
  child.once('exit', (code) => reject(new Error(`the spec server child exited (${code})`)));
});
const base = new URL(url);
const q = (dir, extra = '') => `?directory=${encodeURIComponent(dir)}${extra}`;

async function naive(dir) {
  const list = await (await fetch(`${url}session${q(dir)}`)).json();
  const out = [];
  for (const s of list) {
    const msgs = await (await fetch(`${url}session/${encodeURIComponent(s.id)}/message${q(dir, '&limit=1')}`)).json();
    out.push({ session: s, newest: msgs[0] ?? null });
  }
  return out.length;
}

const floorPool = new Pool(base.origin, { connections: CONNECTIONS, pipelining: 1 });
const idsByDir = new Map();
async function floor(dir) {
  const ids = idsByDir.get(dir);
  const list = await floorPool.request({ path: `/session${q(dir)}`, method: 'GET' });
  await list.body.arrayBuffer();
  await Promise.all(
    ids.map(async (id) => {
      const r = await floorPool.request({ path: `/session/${id}/message${q(dir, '&limit=1')}`, method: 'GET' });
      await r.body.arrayBuffer();
    }),
  );
  return ids.length;
}

const client = new BackendClient({ baseUrl: url, connections: CONNECTIONS });
async function ours(dir) {
  const round = await client.sampleRound(dir);
  if (round.errors.length) throw round.errors[0].error;
  return round.samples.length;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Runs the three clients interleaved (naive, floor, ours, naive, ...) so that load from anything
 * else on the machine hits all three alike; medians per client. Requests are counted at the server. */
async function measureAll(clients, dir, n) {
  const acc = Object.fromEntries(clients.map(([name]) => [name, { walls: [], cpus: [], requests: 0 }]));
  for (const [, fn] of clients) await fn(dir); // warm-up (connections, JIT)
  for (let i = 0; i < runs; i++) {
    for (const [name, fn] of clients) {
      const before = (await ask('count')).count;
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      const got = await fn(dir);
      const wall = Number(process.hrtime.bigint() - t0) / 1e6;
      const c = process.cpuUsage(c0);
      if (got !== n) throw new Error(`${name}: expected ${n} samples, got ${got}`);
      acc[name].walls.push(wall);
      acc[name].cpus.push((c.user + c.system) / 1000);
      acc[name].requests = (await ask('count')).count - before;
    }
  }
  return Object.fromEntries(
    Object.entries(acc).map(([name, a]) => [
      name,
      { wall: median(a.walls), cpu: median(a.cpus), requests: a.requests },
    ]),
  );
}

async function run() {
  const rows = [];
  for (const n of sizes) {
    const dir = `/bench/${n}`;
    if (!idsByDir.has(dir))
      idsByDir.set(
        dir,
        (await client.listSessions(dir)).sessions.map((s) => s.id),
      );
    rows.push({
      n,
      ...(await measureAll(
        [
          ['naive', naive],
          ['floor', floor],
          ['ours', ours],
        ],
        dir,
        n,
      )),
    });
  }

  const f = (x) => x.toFixed(1);
  console.log(
    `\nSampling round: 1 list + N newest-message reads (limit=1), spec server in a child process, ${CONNECTIONS} connections, median of ${runs} runs`,
  );
  console.log(
    `${'N'.padStart(5)}  ${'client'.padEnd(6)}  ${'wall ms'.padStart(9)}  ${'requests'.padStart(8)}  ${'CPU ms'.padStart(8)}  ${'ours vs this'.padStart(12)}`,
  );
  for (const row of rows) {
    for (const name of ['naive', 'floor', 'ours']) {
      const m = row[name];
      const ratio =
        name === 'ours'
          ? ''
          : name === 'floor'
            ? `${(row.ours.wall / m.wall).toFixed(2)}x floor`
            : `${(m.wall / row.ours.wall).toFixed(1)}x faster`;
      console.log(
        `${String(row.n).padStart(5)}  ${name.padEnd(6)}  ${f(m.wall).padStart(9)}  ${String(m.requests).padStart(8)}  ${f(m.cpu).padStart(8)}  ${ratio.padStart(12)}`,
      );
    }
  }
  const big = rows.find((r) => r.n === 1000);
  if (!big) return null;
  const vsFloor = big.ours.wall / big.floor.wall;
  const vsNaive = big.naive.wall / big.ours.wall;
  console.log(
    `\nGoal at 1,000 sessions: within 1.3x of the floor: ${vsFloor.toFixed(2)}x ${vsFloor <= 1.3 ? 'OK' : 'MISSED'}; at least 5x faster than naive: ${vsNaive.toFixed(1)}x ${vsNaive >= 5 ? 'OK' : 'MISSED'}`,
  );
  return { vsFloor, requests: big.ours.requests };
}

try {
  const ratios = [];
  let requests = 0;
  for (let i = 0; i < repeat; i++) {
    if (repeat > 1)
      console.log(
        `\n[run ${i + 1} of ${repeat}] load average ${loadavg()
          .map((x) => x.toFixed(2))
          .join(' ')}`,
      );
    const r = await run();
    if (r) {
      ratios.push(r.vsFloor);
      requests = r.requests;
    }
  }
  if (repeat > 1 && ratios.length > 0) {
    const worst = Math.max(...ratios);
    console.log(
      `\nours/floor at 1,000 sessions, ${ratios.length} runs: ${ratios.map((x) => x.toFixed(2)).join(', ')}; median ${median(ratios).toFixed(2)}x, spread ${Math.min(...ratios).toFixed(2)}-${worst.toFixed(2)}x; ${requests} requests per round`,
    );
    console.log(
      `Goal within 1.3x in every run: ${worst <= 1.3 ? 'OK' : `MISSED (worst run ${worst.toFixed(2)}x, ${((worst / 1.3 - 1) * 100).toFixed(0)} % over)`}`,
    );
  }
} finally {
  await client.close();
  await floorPool.close();
  await Promise.race([ask('stop'), new Promise((r) => setTimeout(r, 2_000))]).catch(() => {});
  await stopGroup(child);
}
