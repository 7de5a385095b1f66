#!/usr/bin/env node
// bench/providers: what a provider listing costs on the real stock opencode server, the client's
// whole-catalogue read (GET /provider: what every fresh listing was before, and still is while the
// dialect is unknown) beside its connected-providers read (GET /config/providers, once the dialect
// is known), side by side in one run, interleaved (whole, connected, whole, connected ...):
//   the server's CPU per read (its process's utime + stime from /proc), the client's CPU per read
//   (this process: the request, the JSON parse and the listing's reading), wall time per read, and
//   the bytes each route answers; median and spread (min-max) over the runs. Both listings must
//   name the same connected providers with the same models, or the bench fails.
//   node bench/providers.mjs [--reads 10] [--runs 5] [--smoke]
// --smoke: 2 reads per run, 1 run (npm test's bench-smoke layer: it must complete and print its table).
import { readFileSync, readdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tsImport } from 'tsx/esm/api';
import { startOpencodeWithModel } from '../test/support/backends.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
};
const smoke = process.argv.includes('--smoke');
const reads = Number(arg('--reads', smoke ? '2' : '10'));
const runs = Number(arg('--runs', smoke ? '1' : '5'));
if (!(reads >= 1 && runs >= 1)) {
  console.error('--reads and --runs must be at least 1');
  process.exit(2);
}

const { BackendClient } = await tsImport('../src/core/backend/client.ts', import.meta.url);
const TICK_MS = 1000 / 100; // USER_HZ

/** The CPU milliseconds of every process whose HOME is the server's (the server and its children). */
function serverCpuMs(home) {
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`HOME=${home}`)) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      /* gone meanwhile */
    }
  }
  return ticks * TICK_MS;
}

const clientCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

const backend = await startOpencodeWithModel();
const dir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-bench-providers-'));
const baseUrl = backend.baseUrl;
const home = backend.opencode.home;
try {
  // A session, so that a session list tells the dialect (stock opencode lists sessions without `state`).
  const { launchSession } = await tsImport('../test/support/opencode.ts', import.meta.url);
  await launchSession(backend.opencode, dir, 'bench', 'hello');

  const bytes = {};
  for (const route of ['provider', 'config/providers']) {
    const res = await fetch(`${baseUrl}${route}?directory=${encodeURIComponent(dir)}`);
    bytes[route] = (await res.arrayBuffer()).byteLength;
  }

  /** One read per call: `whole` from a client that does not know the dialect yet, `connected` from one that does. */
  const sides = {
    whole: async () => {
      const c = new BackendClient({ baseUrl });
      try {
        return await c.listProviders(dir);
      } finally {
        await c.close();
      }
    },
    connected: await (async () => {
      const c = new BackendClient({ baseUrl });
      await c.sampleRound(dir);
      return () => c.listProviders(dir);
    })(),
  };
  const shown = (l) =>
    JSON.stringify(
      l.providers
        .filter((p) => p.connected)
        .map((p) => [p.id, p.models, p.defaultModel])
        .sort(),
    );
  const a = await sides.whole();
  const b = await sides.connected();
  if (shown(a) !== shown(b)) {
    console.error(`the two listings differ:\nwhole:     ${shown(a)}\nconnected: ${shown(b)}`);
    process.exit(1);
  }

  const figures = { whole: [], connected: [] };
  for (let run = 0; run < runs; run++) {
    for (const side of ['whole', 'connected']) {
      const s0 = serverCpuMs(home);
      const c0 = clientCpuMs();
      const t0 = performance.now();
      for (let i = 0; i < reads; i++) await sides[side]();
      figures[side].push({
        server: (serverCpuMs(home) - s0) / reads,
        client: (clientCpuMs() - c0) / reads,
        wall: (performance.now() - t0) / reads,
      });
    }
  }

  const median = (xs) => {
    const s = [...xs].sort((x, y) => x - y);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const cell = (side, key) => {
    const xs = figures[side].map((f) => f[key]);
    return `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)})`;
  };
  console.log(
    `provider listings on stock opencode, ${reads} read(s) per run, ${runs} run(s), interleaved; ms per read: median (min-max)`,
  );
  console.log('read                              bytes      server CPU ms        client CPU ms        wall ms');
  for (const [side, route] of [
    ['whole', 'GET /provider'],
    ['connected', 'GET /config/providers'],
  ])
    console.log(
      `${`${side} (${route})`.padEnd(34)}${String(bytes[side === 'whole' ? 'provider' : 'config/providers']).padStart(9)}  ${cell(side, 'server').padEnd(20)} ${cell(side, 'client').padEnd(20)} ${cell(side, 'wall')}`,
    );
  const ratio =
    median(figures.whole.map((f) => f.server)) / Math.max(0.1, median(figures.connected.map((f) => f.server)));
  console.log(`the server's CPU per read, whole / connected: ${ratio.toFixed(0)}x`);
} finally {
  await backend.stop();
  rmSync(dir, { recursive: true, force: true });
}
