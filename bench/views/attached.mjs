// bench/views.mjs's attached mode (issue 33): the control server the editor suite asks to start a
// real `session-ops watch` (dist/cli.js) over the bench's fleet and to stop it, the check that the
// attached window read nothing of the backends (every request counted by the process holding its
// connection, bench/views/readers.mjs, in the servers' child), and the table beside the bare monitor.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';

/**
 * The attached mode of a run (null with --no-attached): its size is the one with 1,000 sessions,
 * else the last; --daemon-spacing SECONDS (default 5, smoke 2) the daemon's spacing.
 */
export async function attachMode({ sizes, smoke, urls, root, servers }) {
  if (process.argv.includes('--no-attached') || sizes.length === 0) return null;
  const size = sizes.find((s) => s.backends * s.perBackend === 1000) ?? sizes[sizes.length - 1];
  const i = process.argv.indexOf('--daemon-spacing');
  const spacingS = Number(i >= 0 ? process.argv[i + 1] : smoke ? '2' : '5');
  if (!(spacingS >= 1)) throw new Error('--daemon-spacing: a number of seconds >= 1');
  const control = await attachControl(size, { urls, root, servers, spacingS });
  return {
    ...control,
    env: { SESSION_OPS_BENCH_ATTACH: JSON.stringify({ control: control.url, ...size, spacingS }) },
  };
}

/** The control server of the attached mode: POST /attach starts watch, POST /detach stops it. */
async function attachControl({ backends, perBackend }, { urls, root, servers, spacingS }) {
  const askServers = (message) =>
    new Promise((resolve) => {
      servers.once('message', resolve);
      servers.send(message);
    });
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'session-ops-bench-attach-'));
  let daemon = null;
  const reports = [];
  const startDaemon = async () => {
    const token = `sot_${randomBytes(32).toString('base64url')}`;
    writeFileSync(
      path.join(tmp, 'tokens.json'),
      JSON.stringify({
        version: 1,
        tokens: [{ name: 'bench', scope: 'act', sha256: createHash('sha256').update(token, 'utf8').digest('hex') }],
      }),
    );
    const config = path.join(tmp, 'session-ops.yaml');
    writeFileSync(
      config,
      [
        'backends:',
        ...urls
          .slice(0, backends)
          .map((u, i) => `  - { name: "bench ${i + 1}", baseUrl: "${u}", directories: ["/bench/s${perBackend}"] }`),
        `sampleSpacingSeconds: ${spacingS}`,
        'auth: { tokensFile: tokens.json }',
        '',
      ].join('\n'),
    );
    const child = spawn(
      process.execPath,
      [
        path.join(root, 'dist', 'cli.js'),
        'watch',
        '--config',
        config,
        '--listen',
        '127.0.0.1:0',
        '--allow-short-spacing',
      ],
      { env: { PATH: process.env.PATH ?? '', HOME: tmp, XDG_STATE_HOME: tmp }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    const metricsUrl = await new Promise((resolve, reject) => {
      const timer = setInterval(() => {
        const m = /"metricsUrl":"([^"]+)"/.exec(out);
        if (m) done(() => resolve(m[1]));
        else if (child.exitCode !== null) done(() => reject(new Error(`watch exited: ${out}`)));
      }, 50);
      const deadline = setTimeout(() => done(() => reject(new Error(`watch did not listen in 30 s: ${out}`))), 30_000);
      const done = (f) => {
        clearInterval(timer);
        clearTimeout(deadline);
        f();
      };
    });
    daemon = { child, output: () => out, metricsUrl };
    // From now on every request to the backends is counted by the process reading.
    await askServers({ attribute: { expected: [child.pid] } });
    return { url: `${new URL(metricsUrl).origin}/`, token, pid: child.pid };
  };
  const stopDaemon = async () => {
    const readers = (await askServers({ report: true })).readers;
    const report = { daemonPid: daemon?.child.pid ?? null, readers };
    reports.push(report);
    if (daemon && daemon.child.exitCode === null) {
      daemon.child.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 200));
      if (daemon.child.exitCode === null) daemon.child.kill('SIGKILL');
    }
    daemon = null;
    return report;
  };
  // The daemon's sampling rounds so far: its rounds of a directory, summed over the backends
  // (read by this process, so that the window's CPU does not pay for /metrics).
  const rounds = async () => {
    if (!daemon) throw new Error('no daemon');
    const body = await (await fetch(daemon.metricsUrl, { signal: AbortSignal.timeout(10_000) })).text();
    let sum = 0;
    for (const line of body.split('\n'))
      if (line.startsWith('session_ops_sample_round_duration_seconds_count{'))
        sum += Number(line.slice(line.lastIndexOf(' ') + 1));
    return { rounds: sum };
  };
  const server = http.createServer((req, res) => {
    const reply = (status, body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const routes = { '/attach': startDaemon, '/detach': stopDaemon, '/rounds': rounds };
    const run = req.method === 'POST' && Object.hasOwn(routes, req.url) ? routes[req.url] : undefined;
    if (!run) return reply(404, { error: 'POST /attach, /rounds or /detach' });
    run().then(
      (body) => reply(200, body),
      (err) => reply(500, { error: String(err?.message ?? err) }),
    );
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    reports: () => reports,
    spacingS,
    async close() {
      if (daemon) await stopDaemon().catch(() => undefined);
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      rmSync(tmp, { recursive: true, force: true });
    },
  };
}

/** The attached window must read nothing of the fleet: every request to the backends came from the daemon. */
function checkReaders(report) {
  if (!report) throw new Error('attached mode: the editor suite never detached from the daemon (no request count)');
  const others = report.readers.filter((r) => r.pid !== report.daemonPid);
  const daemon = report.readers.find((r) => r.pid === report.daemonPid);
  if (others.length > 0)
    throw new Error(
      `attached mode: the backends were read by a process other than the daemon (pid ${report.daemonPid}) while the window was attached: ${others
        .map((r) => `pid ${r.pid} (${r.command}): ${r.requests} requests ${JSON.stringify(r.paths)}`)
        .join('; ')}`,
    );
  if (!daemon || daemon.requests === 0)
    throw new Error('attached mode: no request from the daemon was counted (the count itself is broken)');
}

/** The attached window beside the bare monitor sampling the same fleet (the same run's reference). */
export function printAttached(ext, ref, attach) {
  const reports = attach.reports();
  if (reports.length === 0) checkReaders(null);
  for (const report of reports) checkReaders(report); // aborts when the attached window read the backends
  const a = ext.attached;
  if (!a) throw new Error('attached mode: the editor suite wrote no attached rounds');
  const before = ext.attachedBefore ?? null;
  const median = (xs) => {
    const v = xs.filter((x) => x !== null && x !== undefined).sort((x, y) => x - y);
    if (v.length === 0) return null;
    return v.length % 2 ? v[(v.length - 1) / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  };
  const f1 = (x) => (x === null || x === undefined ? 'n/a' : x.toFixed(1));
  const pick = (rs, key) => median(rs.map((r) => r[key]));
  const r = ref?.sizes.find((x) => x.n === a.n);
  const base = r ? pick(r.steady, 'cpuMs') : null;
  // The windows' share of the idle extension host's CPU (code-server's own work), as the sampled rounds' goal line does.
  const net = (x) => x.perRound.cpuMs - (x.idleCpuMsPerS * x.perRound.windowMs) / 1000;
  console.log(
    `\nAttached (issue 33): the window attached to a real \`session-ops watch\` (spacing ${attach.spacingS} s) sampling ${a.n} sessions over ${a.backends} backends, Sessions view visible; the window samples nothing.`,
  );
  console.log(
    "The daemon samples each backend on its own schedule: its events reach the window in bursts, each measured like a sampled round's window (first event to 500 ms after the last event and tree item); per round = the bursts' sum over the daemon's fleet rounds in the span. Plain Node: median of its steady rounds.",
  );
  const cols = [
    ['where', 44],
    ['CPU ms / round', 14],
    ['x bare', 6],
    ['less idle', 9],
    ['windows ms', 10],
    ['max block ms', 12],
    ['rows changed', 12],
    ['tree items', 10],
  ];
  const line = (vals) => `| ${vals.map((v, i) => String(v).padStart(cols[i][1])).join(' | ')} |`;
  console.log(line(cols.map((c) => c[0])));
  console.log(`|${cols.map((c) => '-'.repeat(c[1] + 2)).join('|')}|`);
  const x2 = (v) => (base ? `${(v / base).toFixed(2)}x` : 'n/a');
  const sides = [
    ...(before ? [['extension host, attached, a change per event', before]] : []),
    [`extension host, attached${before ? ', coalesced' : ''}`, a],
  ];
  for (const [label, x] of sides)
    console.log(
      line([
        label,
        f1(x.perRound.cpuMs),
        x2(x.perRound.cpuMs),
        f1(net(x)),
        f1(x.perRound.windowMs),
        f1(x.perRound.maxBlockMs),
        f1(x.perRound.changedRows),
        f1(x.perRound.treeItems),
      ]),
    );
  if (r)
    console.log(
      line([
        'plain Node, bare monitor',
        f1(base),
        '1.00x',
        '-',
        f1(pick(r.steady, 'wallMs')),
        f1(pick(r.steady, 'maxBlockMs')),
        f1(pick(r.steady, 'changedRows')),
        '-',
      ]),
    );
  for (const [label, x] of sides)
    console.log(
      `${label}: ${f1(x.rounds)} fleet rounds in the span, bursts (CPU ms / events) ${x.bursts.map((b) => `${f1(b.cpuMs)}/${b.events}`).join(', ')}; idle extension host ${f1(x.idleCpuMsPerS)} ms/s (between bursts); ` +
        `the window's reads of the daemon: ${x.counts.fleetReads} fleet, ${x.counts.providerReads} providers, ${x.counts.events} events; took ${(x.elapsedMs / 1000).toFixed(1)} s`,
    );
  for (const report of reports) {
    const readers = report.readers
      .map(
        (x) =>
          `${x.pid === report.daemonPid ? 'the daemon' : `pid ${x.pid}`}: ${x.requests} (${Object.entries(x.paths)
            .map(([path, c]) => `${path} ${c}`)
            .join(', ')})`,
      )
      .join('; ');
    console.log(`requests to the backends while attached, by reading process: ${readers}; the extension host: 0`);
  }
  if (base) {
    const ratio = a.perRound.cpuMs / base;
    console.log(
      `goal N=${a.n} attached: extension-host CPU per round <= 0.3x the bare monitor's sampling the same fleet: ${ratio.toFixed(2)}x ${ratio <= 0.3 ? 'met' : 'MISSED'} (less the idle extension host's ${f1(a.idleCpuMsPerS)} ms/s over the windows: ${(net(a) / base).toFixed(2)}x)` +
        (before ? `; a change per event (before): ${(before.perRound.cpuMs / base).toFixed(2)}x` : ''),
    );
  }
}
