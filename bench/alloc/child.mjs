// Child process of bench/alloc.mjs (run with --expose-gc and a 256 MB young generation): measures,
// per round, the JS heap bytes it allocates, the bytes of those that are still alive after one
// scavenge (what a minor GC has to copy) and the heap it keeps after a full GC, for the floor,
// floor+parse, BackendClient.sampleRound and SessionMonitor rounds (steady, first verdicts, cold)
// of one build (argv[2], a bundle). Prints one JSON line on stdout.
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
const heap = () => process.memoryUsage().heapUsed;

let gcs = 0;
new PerformanceObserver((list) => (gcs += list.getEntries().length)).observe({ entryTypes: ['gc'] });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * Per round of `fn` (median of `count` rounds in which no GC ran): bytes allocated (heap after
 * minus before, gc() twice before); survived = heap after one scavenge (gc minor) minus before: the
 * round's objects still alive, which a scavenge copies; retained = heap after a full gc minus
 * before. `before` runs ahead of each round and `after(result)` once it is measured (both unmeasured);
 * the round's result is held until then (a caller keeps what a round returns).
 */
async function perRound(fn, { before = async () => {}, after = async () => {}, warm = true, count = rounds } = {}) {
  if (warm) {
    await before();
    await after(await fn()); // warm-up: connections, JIT, caches
  }
  const bytes = [];
  const survived = [];
  const retained = [];
  let dropped = 0;
  while (bytes.length < count) {
    await before();
    gc();
    gc();
    await sleep(5); // the GC entries of gc() itself are delivered before counting starts
    const g0 = gcs;
    const h0 = heap();
    const result = await fn();
    const h1 = heap();
    await sleep(5);
    const clean = gcs === g0;
    gc({ type: 'minor' });
    const h2 = heap();
    gc();
    gc();
    const h3 = heap();
    await after(result);
    if (!clean) {
      if (++dropped > 3 * count) throw new Error('the GC ran inside every round: raise the semi-space size');
      continue;
    }
    bytes.push(h1 - h0);
    survived.push(h2 - h0);
    retained.push(h3 - h0);
  }
  return { bytes: median(bytes), survived: median(survived), retained: median(retained), dropped };
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
clients.floor = { steady: await perRound(() => floor(false)) };
clients['floor+parse'] = { steady: await perRound(() => floor(true)) };

const sampleOnce = async (client) => {
  const round = await client.sampleRound(directory);
  if (round.errors.length) throw round.errors[0].error;
  if (round.samples.length !== size) throw new Error(`sampleRound: ${round.samples.length} samples`);
  return round;
};
// One directory of N sessions: the per-round bound of sessions sampled is raised to N.
const client = new BackendClient({ baseUrl: url, connections: 8, maxSessionsPerRound: size });
clients.sampleRound = { steady: await perRound(() => sampleOnce(client)) };
await client.close();
// Cold: a new client's first round (the dialect read from the first answer, connections opened).
let fresh = null;
clients.sampleRound.cold = await perRound(
  () => sampleOnce((fresh = new BackendClient({ baseUrl: url, connections: 8, maxSessionsPerRound: size }))),
  {
    after: () => fresh.close(),
    warm: false,
  },
);

// The monitor: verdicts need a baseline at least minSpacingMs old, so each round waits that long first.
const minSpacingMs = 300;
const spaced = () => sleep(minSpacingMs + 50);
const { backends } = parseBackendConfigs([{ name: 'alloc', baseUrl: url, directories: [directory] }], []);
const newMonitor = () => {
  const m = new SessionMonitor({
    createClient: (config) => new BackendClient({ baseUrl: config.baseUrl, maxSessionsPerRound: size }),
    getCredentials: async () => undefined,
    spacingMs: 60_000,
    minSpacingMs,
    resetWithinReachMs: 120 * 60_000,
    useEventStream: false,
  });
  m.setBackends(backends);
  return m;
};
/** The first round of a new monitor (its rows all new, no verdict yet). */
const coldRound = async (m) => {
  m.setActive(true);
  await m.refresh();
  if (m.rows().length !== size) throw new Error(`monitor: ${m.rows().length} rows`);
};

const monitor = newMonitor();
await coldRound(monitor);
const monitorRound = () => monitor.refresh();
clients.monitor = { steady: await perRound(monitorRound, { before: spaced }) };
const badges = {};
for (const r of monitor.rows()) badges[r.badge] = (badges[r.badge] ?? 0) + 1;

// First verdicts: the second round of a new monitor, a spacing after its first (every row changes).
const fewer = Math.max(1, Math.min(rounds, 3));
let other = null;
clients.monitor['first verdicts'] = await perRound(() => other.refresh(), {
  before: async () => {
    other = newMonitor();
    await coldRound(other);
    await spaced();
  },
  after: () => other.dispose(),
  warm: false,
  count: fewer,
});
clients.monitor.cold = await perRound(
  async () => {
    other = newMonitor();
    await coldRound(other);
  },
  { after: () => other.dispose(), warm: false, count: fewer },
);

/** Top functions by sampled bytes of a sampling heap profile (`per` rounds). */
function topOf(p, per, n) {
  const byFn = new Map();
  let total = 0;
  const walk = (node) => {
    const f = node.callFrame;
    const where = f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}` : '(native)';
    const name = `${f.functionName || '(anonymous)'} ${where}`;
    total += node.selfSize;
    if (node.selfSize > 0) byFn.set(name, (byFn.get(name) ?? 0) + node.selfSize);
    for (const c of node.children) walk(c);
  };
  walk(p.head);
  const top = [...byFn.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, bytes]) => ({ name, bytes: bytes / per }));
  return { rounds: per, total: total / per, top };
}

let profile = null;
if (profileArg === 'profile') {
  const session = new Session();
  session.connect();
  /** Samples `run` (collected objects included, or only what is alive after one scavenge). */
  const sampled = async (run, collected) => {
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 256,
      includeObjectsCollectedByMajorGC: collected,
      includeObjectsCollectedByMinorGC: collected,
    });
    await run();
    if (!collected) gc({ type: 'minor' });
    const { profile: p } = await session.post('HeapProfiler.stopSampling');
    return p;
  };
  const profRounds = 3;
  await spaced();
  gc();
  const allocated = await sampled(async () => {
    for (let i = 0; i < profRounds; i++) {
      await monitorRound();
      await spaced();
    }
  }, true);
  await spaced();
  gc();
  const steadySurvivors = await sampled(monitorRound, false);
  other = newMonitor();
  await coldRound(other);
  await spaced();
  gc();
  const verdictSurvivors = await sampled(() => other.refresh(), false);
  other.dispose();
  gc();
  const coldSurvivors = await sampled(async () => {
    other = newMonitor();
    await coldRound(other);
  }, false);
  other.dispose();
  session.disconnect();
  profile = {
    allocated: topOf(allocated, profRounds, 45),
    'survivors, steady': topOf(steadySurvivors, 1, 25),
    'survivors, first verdicts': topOf(verdictSurvivors, 1, 25),
    'survivors, cold': topOf(coldSurvivors, 1, 25),
  };
}
monitor.dispose();
await pool.close();
process.stdout.write(`${JSON.stringify({ clients, badges, profile })}\n`, () => process.exit(0));
