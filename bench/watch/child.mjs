// Child process of bench/watch.mjs (run with --expose-gc): one side of the comparison, alone in its
// process so its CPU is its own. `bare`: the session monitor only (what the editor runs);
// `daemon`: the whole `session-ops watch` core (WatchDaemon: the same monitor plus the metrics,
// the JSON-line log to a counting sink and the operator with automatic mode off). Both run on
// their own schedule at the given spacing over the same spec-dialect servers until every backend
// did `rounds` rounds; RSS and heap (after gc) after round 3 and after the last; CPU per round between them.
// The daemon side then renders /metrics (Prometheus text and OpenMetrics) and times it.
// Prints one JSON line on stdout.
import {
  BackendClient,
  parseBackendConfigs,
  parseWatchConfig,
  SessionMonitor,
  WatchDaemon,
} from '../../.bench/watch/watch.mjs';

const [mode, urlsJson, dir, roundsArg, spacingArg] = process.argv.slice(2);
const urls = JSON.parse(urlsJson);
const rounds = Number(roundsArg);
const spacingS = Number(spacingArg);
const gc = globalThis.gc;
if (!gc) throw new Error('run with --expose-gc');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
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

const backendRounds = () => monitor.stats().rounds / urls.length;
const waitRounds = async (n) => {
  while (backendRounds() < n) await sleep(20);
};
await waitRounds(1);
const cold = process.cpuUsage();
await waitRounds(3);
const mem3 = afterGc();
const c0 = process.cpuUsage();
const r0 = monitor.stats().rounds;
const t0 = performance.now();
// Halfway too (no CPU cost worth counting: two gc), to tell growth that goes on from growth that levels off.
const half = Math.max(4, Math.floor(rounds / 2));
await waitRounds(half);
const memHalf = afterGc();
await waitRounds(rounds);
const cpu = process.cpuUsage(c0);
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
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  out.render = {
    textMs: median(times.text),
    openMetricsMs: median(times.openMetrics),
    textBytes: size.text,
    openMetricsBytes: size.openMetrics,
  };
  out.log = { lines: logLines, bytes: logBytes };
  await daemon.stop(0);
} else monitor.dispose();
process.stdout.write(`${JSON.stringify(out)}\n`, () => process.exit(0));
