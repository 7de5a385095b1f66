// Child process of bench/views.mjs (run with --expose-gc): the reference. The bare session monitor
// (src/core/monitor, bundled like the extension bundles it) in plain Node, no editor and no view,
// doing the same rounds as test/editor/suite/views.bench.ts does inside the extension host:
// for each size (N = 200 and 1,000 sessions over 5 backends, 5,000 over 20), the cold first round, the first round with a
// baseline >= 30 s old (first verdicts), then steady rounds. Prints one JSON line on stdout.
import { monitorEventLoopDelay, PerformanceObserver } from 'node:perf_hooks';
import { BackendClient, parseBackendConfigs, SessionMonitor } from '../../.bench/views/monitor.mjs';

const [urlsJson, sizesJson, roundsArg, minSpacingArg] = process.argv.slice(2);
const urls = JSON.parse(urlsJson);
const sizes = JSON.parse(sizesJson); // [{ backends, perBackend }]
const rounds = Number(roundsArg ?? 10);
// The spec's 30 s, unless the smoke run lowers it (the same as the editor side does).
const minSpacingMs = minSpacingArg ? Number(minSpacingArg) : 30_000;
const gc = globalThis.gc;
if (!gc) throw new Error('run with --expose-gc');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function mem() {
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, rss: m.rss };
}
function memAfterGc() {
  gc();
  gc();
  return mem();
}

async function measure(monitor, run) {
  let emits = 0;
  let changedRows = 0;
  const off = monitor.onDidChange((c) => {
    emits++;
    changedRows += c.rows.length;
  });
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  // Garbage-collection pauses in the window (the extension host side records the same).
  let gcMs = 0;
  let maxGcMs = 0;
  const onGc = (list) => {
    for (const e of list.getEntries()) {
      gcMs += e.duration;
      maxGcMs = Math.max(maxGcMs, e.duration);
    }
  };
  const observer = new PerformanceObserver(onGc);
  observer.observe({ entryTypes: ['gc'] });
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await run();
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  delay.disable();
  onGc({ getEntries: () => observer.takeRecords() });
  observer.disconnect();
  off();
  const after = mem();
  const gced = memAfterGc();
  return {
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    maxBlockMs: Math.max(0, delay.max / 1e6 - 10),
    gcMs,
    maxGcMs,
    heapUsed: after.heapUsed,
    rss: after.rss,
    heapAfterGc: gced.heapUsed,
    rssAfterGc: gced.rss,
    emits,
    changedRows,
    rows: monitor.rows().length,
  };
}

const baseline = memAfterGc();
const out = { node: process.version, baseline, sizes: [] };
for (const { backends: backendCount, perBackend } of sizes) {
  const n = perBackend * backendCount;
  const { backends } = parseBackendConfigs(
    urls
      .slice(0, backendCount)
      .map((baseUrl, i) => ({ name: `bench ${i + 1}`, baseUrl, directories: [`/bench/s${perBackend}`] })),
    [],
  );
  const monitor = new SessionMonitor({
    createClient: (config) => new BackendClient({ baseUrl: config.baseUrl }),
    getCredentials: async () => undefined,
    spacingMs: 60_000,
    resetWithinReachMs: 120 * 60_000,
    useEventStream: true,
    ...(minSpacingArg ? { minSpacingMs } : {}),
  });
  monitor.setBackends(backends);
  const cold = await measure(monitor, async () => {
    monitor.setActive(true);
    await monitor.refresh();
  });
  if (cold.rows !== n) throw new Error(`expected ${n} rows after the first round, got ${cold.rows}`);
  await sleep(minSpacingMs + 1_000); // the next round has a baseline >= the min spacing old: verdicts
  const verdict = await measure(monitor, () => monitor.refresh());
  const steady = [];
  for (let i = 0; i < rounds; i++) steady.push(await measure(monitor, () => monitor.refresh()));
  const badges = {};
  for (const r of monitor.rows()) badges[r.badge] = (badges[r.badge] ?? 0) + 1;
  out.sizes.push({ n, backends: backendCount, perBackend, cold, verdict, steady, badges });
  monitor.dispose();
  await sleep(200);
}
process.stdout.write(`${JSON.stringify(out)}\n`, () => process.exit(0));
