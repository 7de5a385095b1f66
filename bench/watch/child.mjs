// Child process of bench/watch.mjs (run with --expose-gc): one side of the comparison, alone in its
// process so its CPU is its own. `bare`: the session monitor only (what the editor runs);
// `daemon`: the whole `session-ops watch` core (WatchDaemon: the same monitor plus the metrics,
// the JSON-line log to a counting sink and the operator with automatic mode off). Both run on
// their own schedule at the given spacing over the same spec-dialect servers until every backend
// did `rounds` rounds; RSS and heap (after gc) after round 3 and after the last; CPU per round between them.
// The daemon side then renders /metrics (Prometheus text and OpenMetrics) and times it.
// Prints one JSON line on stdout.
import { execFile, fork } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const [mode, urlsJson, dir, roundsArg, spacingArg, clientsArg, bundleArg] = process.argv.slice(2);
// The daemon's code: this tree's bundle, or (bench/watch.mjs --before DIR) another tree's.
const {
  BackendClient,
  EventHub,
  hashToken,
  parseBackendConfigs,
  parseWatchConfig,
  readRoutes,
  SessionMonitor,
  TokenBook,
  WatchDaemon,
  WatchHttpServer,
} = await import(
  pathToFileURL(bundleArg ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '../../.bench/watch/watch.mjs'))
    .href
);
const urls = JSON.parse(urlsJson);
const rounds = Number(roundsArg);
const spacingS = Number(spacingArg);
const gc = globalThis.gc;
if (!gc) throw new Error('run with --expose-gc');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const afterGc = () => {
  gc();
  gc();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
};

let monitor;
let daemon;
let logBytes = 0;
let logLines = 0;
if (mode === 'bare') {
  const { backends } = parseBackendConfigs(
    urls.map((baseUrl, i) => ({ name: `bench-${i + 1}`, baseUrl, directories: [dir] })),
    [],
  );
  monitor = new SessionMonitor({
    createClient: (config, _c, marks) => new BackendClient({ baseUrl: config.baseUrl, marks }),
    getCredentials: async () => undefined,
    spacingMs: spacingS * 1000,
    minSpacingMs: Math.min(spacingS * 1000, 30_000),
    resetWithinReachMs: 120 * 60_000,
    useEventStream: true,
  });
  monitor.setBackends(backends);
  monitor.setActive(true);
} else {
  // `daemon` and `api`: the whole daemon core (`api` also serves its HTTP API, below).
  const text = [
    'backends:',
    ...urls.map((u, i) => `  - { name: bench-${i + 1}, baseUrl: "${u}", directories: ["${dir}"] }`),
    `sampleSpacingSeconds: ${spacingS}`,
    '',
  ].join('\n');
  const parsed = parseWatchConfig(text, { allowShortSpacing: true });
  if (!parsed.config) throw new Error(JSON.stringify(parsed.problems));
  daemon = new WatchDaemon({
    loaded: { config: parsed.config, credentials: new Map(), warnings: [] },
    log: (level, event, fields) => {
      logLines++;
      logBytes += JSON.stringify({ time: new Date().toISOString(), level, event, ...fields }).length + 1;
    },
    allowShortSpacing: true,
    env: {},
  });
  monitor = daemon.monitor;
  await daemon.start();
}

// The `api` side: the daemon's HTTP API with its event stream, and SSE clients in another process.
const TOKEN = 'sot_bench-read-token-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
let server;
let hub;
let clientsChild;
let apiUrl;
/**
 * Per event id (from the first counted one): when it was published (0: not counted). Allocated
 * once, before the measured rounds, so the bench's own bookkeeping does not grow the heap it measures.
 */
const publishedAt = new Float64Array(1 << 19);
let firstCounted = null;
/** Events are counted until the end of the measured rounds (the later ones may still be on the way at the report). */
let counting = true;
if (mode === 'api') {
  hub = new EventHub();
  const publish = hub.publish.bind(hub);
  hub.publish = (events) => {
    // Counted once every client is connected (an event before that cannot reach all of them).
    if (counting && hub.size >= Number(clientsArg) && events.length > 0) {
      const at = Date.now();
      const first = hub.nextId;
      firstCounted ??= first;
      for (let i = 0; i < events.length; i++)
        if (first + i - firstCounted < publishedAt.length) publishedAt[first + i - firstCounted] = at;
    }
    publish(events);
  };
  daemon.feed(hub);
  server = new WatchHttpServer(
    {
      metrics: (om) => daemon.metrics.render(om),
      health: () => daemon.health(),
      status: () => daemon.status(),
      statusBytes: daemon.statusBytes ? () => daemon.statusBytes() : undefined,
    },
    {
      tokens: () => new TokenBook([{ name: 'bench', scope: 'read', sha256: hashToken(TOKEN), createdAt: null }]),
      routes: [
        ...readRoutes(daemon.fleetView()),
        {
          method: 'GET',
          path: '/api/events',
          scope: 'read',
          handle: (ctx) => Promise.resolve(hub.attach(ctx.req, ctx.res, 'bench')),
        },
      ],
    },
  );
  const addr = await server.listen({ host: '127.0.0.1', port: 0 });
  apiUrl = `http://127.0.0.1:${addr.port}`;
  clientsChild = fork(
    path.join(path.dirname(fileURLToPath(import.meta.url)), 'sse-clients.mjs'),
    [`http://127.0.0.1:${addr.port}`, TOKEN, clientsArg],
    { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
  );
  await new Promise((resolve) => clientsChild.once('message', resolve));
}

const backendRounds = () => monitor.stats().rounds / urls.length;
/** RSS (no gc) at each whole round from 3 on: growth that goes on or levels off, per round. */
const rssByRound = [];
const waitRounds = async (n) => {
  while (backendRounds() < n) {
    await sleep(20);
    const r = Math.floor(backendRounds());
    if (r >= 3 && rssByRound.length < r - 2) rssByRound.push(process.memoryUsage().rss);
  }
};
/** How long the event loop was held (a request's wait behind a round), over the measured rounds. */
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
await waitRounds(1);
const cold = process.cpuUsage();
await waitRounds(3);
const mem3 = afterGc();
loopDelay.enable();
const c0 = process.cpuUsage();
const r0 = monitor.stats().rounds;
const t0 = performance.now();
// Halfway too (no CPU cost worth counting: two gc), to tell growth that goes on from growth that levels off.
const half = Math.max(4, Math.floor(rounds / 2));
await waitRounds(half);
const memHalf = afterGc();
await waitRounds(rounds);
const cpu = process.cpuUsage(c0);
loopDelay.disable();
const wallS = (performance.now() - t0) / 1000;
const measuredRounds = (monitor.stats().rounds - r0) / urls.length;
const memEnd = afterGc();
const rows = monitor.rows().length;
const out = {
  mode,
  rows,
  backends: urls.length,
  cpuMsPerRound: (cpu.user + cpu.system) / 1000 / measuredRounds,
  measuredRounds,
  wallS,
  rss3: mem3.rss,
  rssEnd: memEnd.rss,
  heap3: mem3.heap,
  heapEnd: memEnd.heap,
  half,
  rssHalf: memHalf.rss,
  heapHalf: memHalf.heap,
  external3: mem3.external,
  externalEnd: memEnd.external,
  arrayBuffers3: mem3.arrayBuffers,
  arrayBuffersEnd: memEnd.arrayBuffers,
  coldCpuMs: (process.cpuUsage(cold).user + process.cpuUsage(cold).system) / 1000,
  rssByRound,
  loopDelayMs: {
    p50: loopDelay.percentile(50) / 1e6,
    p99: loopDelay.percentile(99) / 1e6,
    max: loopDelay.max / 1e6,
  },
};
if (daemon) {
  const times = { text: [], openMetrics: [] };
  let size = { text: 0, openMetrics: 0 };
  for (let i = 0; i < 7; i++) {
    for (const om of [false, true]) {
      const s = performance.now();
      const r = await daemon.metrics.render(om);
      times[om ? 'openMetrics' : 'text'].push(performance.now() - s);
      size[om ? 'openMetrics' : 'text'] = Buffer.byteLength(r.body);
    }
  }
  out.render = {
    textMs: median(times.text),
    openMetricsMs: median(times.openMetrics),
    textBytes: size.text,
    openMetricsBytes: size.openMetrics,
  };
  out.log = { lines: logLines, bytes: logBytes };
  if (mode === 'api') {
    // GET /api/status from a process of its own (not this one, whose loop is the daemon's, nor the
    // clients', busy with 50 streams), while the rounds go on: 7 requests one after the other.
    const st = await new Promise((resolve, reject) =>
      execFile(
        process.execPath,
        [path.join(path.dirname(fileURLToPath(import.meta.url)), 'status-client.mjs'), apiUrl, TOKEN, '7'],
        (err, stdout) => (err ? reject(err) : resolve(JSON.parse(stdout))),
      ),
    );
    out.statusMs = median(st.times);
    out.statusMaxMs = Math.max(...st.times);
    out.statusBytes = st.bytes;
    // In this process: the body's bytes as a request between rounds gets them (no serialising).
    const inProcess = [];
    for (let i = 0; i < 7; i++) {
      const s = performance.now();
      daemon.statusBytes();
      inProcess.push(performance.now() - s);
    }
    out.statusBytesMs = median(inProcess);
    // The events counted reach every client before the count (a round and a half's time); the
    // ones published from now on are not counted (they may still be on the way at the report).
    counting = false;
    await sleep(spacingS * 1500);
    clientsChild.send('report');
    const { seen } = await new Promise((resolve) => clientsChild.once('message', resolve));
    const clients = Number(clientsArg);
    const lat = [];
    let incomplete = 0;
    const seenIds = new Set();
    for (const [id, [count, last]] of seen) {
      const i = firstCounted === null ? -1 : Number(id) - firstCounted;
      const at = i >= 0 && i < publishedAt.length ? publishedAt[i] : 0;
      if (!at) continue;
      seenIds.add(i);
      if (count < clients) incomplete++;
      lat.push(last - at);
    }
    for (let i = 0; i < publishedAt.length; i++) if (publishedAt[i] && !seenIds.has(i)) incomplete++;
    lat.sort((a, b) => a - b);
    const q = (p) => (lat.length ? lat[Math.min(lat.length - 1, Math.floor(p * lat.length))] : null);
    out.latency = { events: lat.length, p50: q(0.5), p99: q(0.99), max: lat.at(-1) ?? null, incomplete };
    out.dropped = hub.dropped;
    clientsChild.send('stop');
    hub.close();
    await server.close();
  }
  await daemon.stop(0);
} else monitor.dispose();
process.stdout.write(`${JSON.stringify(out)}\n`, () => process.exit(0));
