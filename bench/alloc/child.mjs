// Child process of bench/alloc.mjs (run with --expose-gc and a 256 MB young generation): measures
// the JS heap bytes one round allocates, for the floor, floor+parse, BackendClient.sampleRound and
// a SessionMonitor round of one build (argv[2], a bundle). Prints one JSON line on stdout.
import { createRequire } from 'node:module';
import path from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';

const [bundleFile, url, directory, sizeArg, roundsArg, profileArg] = process.argv.slice(2);
const size = Number(sizeArg);
const rounds = Number(roundsArg);
const { BackendClient, parseBackendConfigs, SessionMonitor } = await import(bundleFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { Pool } = createRequire(path.join(root, 'package.json'))('undici');
const gc = globalThis.gc;
if (!gc) throw new Error('run with --expose-gc');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let gcs = 0;
new PerformanceObserver((list) => (gcs += list.getEntries().length)).observe({ entryTypes: ['gc'] });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Heap bytes `fn` allocates, median of `rounds` rounds in which no GC ran; `between` runs before each (unmeasured). */
async function bytesPerRound(fn, between = async () => {}) {
  await between();
  await fn(); // warm-up: connections, JIT, caches
  const bytes = [];
  let dropped = 0;
  while (bytes.length < rounds) {
    await between();
    gc();
    gc();
    await sleep(5); // the GC entries of gc() itself are delivered before counting starts
    const g0 = gcs;
    const h0 = process.memoryUsage().heapUsed;
    await fn();
    const h1 = process.memoryUsage().heapUsed;
    await sleep(5);
    if (gcs !== g0) {
      if (++dropped > 3 * rounds) throw new Error('the GC ran inside every round: raise the semi-space size');
      continue;
    }
    bytes.push(h1 - h0);
  }
  return { bytes: median(bytes), min: Math.min(...bytes), max: Math.max(...bytes), dropped };
}

const base = new URL(url);
const q = `?directory=${encodeURIComponent(directory)}`;
const pool = new Pool(base.origin, { connections: 8, pipelining: 1 });
const ids = JSON.parse(await (await pool.request({ path: `/session${q}`, method: 'GET' })).body.text()).map(
  (s) => s.id,
);
if (ids.length !== size) throw new Error(`expected ${size} sessions, the server listed ${ids.length}`);

async function floor(parse) {
  const read = parse ? async (r) => JSON.parse(await r.body.text()) : (r) => r.body.arrayBuffer();
  await read(await pool.request({ path: `/session${q}`, method: 'GET' }));
  await Promise.all(
    ids.map(async (id) => read(await pool.request({ path: `/session/${id}/message${q}&limit=1`, method: 'GET' }))),
  );
}

const clients = {};
clients.floor = await bytesPerRound(() => floor(false));
clients['floor+parse'] = await bytesPerRound(() => floor(true));

const client = new BackendClient({ baseUrl: url, connections: 8 });
clients.sampleRound = await bytesPerRound(async () => {
  const round = await client.sampleRound(directory);
  if (round.errors.length) throw round.errors[0].error;
  if (round.samples.length !== size) throw new Error(`sampleRound: ${round.samples.length} samples`);
});
await client.close();

// The monitor: verdicts need a baseline at least minSpacingMs old, so each round waits that long first.
const minSpacingMs = 300;
const { backends } = parseBackendConfigs([{ name: 'alloc', baseUrl: url, directories: [directory] }], []);
const monitor = new SessionMonitor({
  createClient: (config) => new BackendClient({ baseUrl: config.baseUrl }),
  getCredentials: async () => undefined,
  spacingMs: 60_000,
  minSpacingMs,
  resetWithinReachMs: 120 * 60_000,
  useEventStream: false,
});
monitor.setBackends(backends);
monitor.setActive(true);
await monitor.refresh();
if (monitor.rows().length !== size) throw new Error(`monitor: ${monitor.rows().length} rows`);
const monitorRound = () => monitor.refresh();
const spaced = () => sleep(minSpacingMs + 50);
clients.monitor = await bytesPerRound(monitorRound, spaced);
const badges = {};
for (const r of monitor.rows()) badges[r.badge] = (badges[r.badge] ?? 0) + 1;

let profile = null;
if (profileArg === 'profile') {
  const session = new Session();
  session.connect();
  const profRounds = 3;
  await spaced();
  gc();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  for (let i = 0; i < profRounds; i++) {
    await monitorRound();
    await spaced();
  }
  const { profile: p } = await session.post('HeapProfiler.stopSampling');
  session.disconnect();
  const byFn = new Map();
  let total = 0;
  const walk = (node) => {
    const f = node.callFrame;
    const where = f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}` : '(native)';
    const name = `${f.functionName || '(anonymous)'} ${where}`;
    const self = node.selfSize;
    total += self;
    if (self > 0) byFn.set(name, (byFn.get(name) ?? 0) + self);
    for (const c of node.children) walk(c);
  };
  walk(p.head);
  const top = [...byFn.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 45)
    .map(([name, bytes]) => ({ name, bytes: bytes / profRounds }));
  profile = { rounds: profRounds, total: total / profRounds, top };
}
monitor.dispose();
await pool.close();
process.stdout.write(`${JSON.stringify({ clients, badges, profile })}\n`, () => process.exit(0));
