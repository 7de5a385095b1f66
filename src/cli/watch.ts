// `session-ops watch`: the headless daemon. A thin host over src/core/watch: loads the
// configuration (exit 2 on any problem, before anything is sampled), runs the WatchDaemon and its
// read-only HTTP endpoints, and maps signals: SIGTERM/SIGINT stop it (exit 0 within 5 s), SIGHUP
// re-reads the configuration (a bad one is logged and the old one kept). Logs JSON lines on stdout.
//   exit 0  stopped by SIGTERM/SIGINT
//   1       the listen address could not be bound
//   2       usage error, or the configuration could not be read or has an error
import path from 'node:path';
import { UsageError } from './args';
import { defineCommand, runCommand, type CommandIo } from './command';
import { EXIT } from './exit-codes';
import { openMarkStore } from './mark-store';
import { WatchDaemon } from '../core/watch/daemon';
import { isLoopbackListen, parseListen, WatchHttpServer, type ListenAddress } from '../core/watch/http-server';
import { loadWatchConfig } from '../core/watch/load';
import { answerRoute } from '../core/watch/route-api';
import { webPage } from '../core/watch/web-page';
import { isLogLevel, jsonLineLogger, LOG_LEVELS, type Logger, type LogLevel } from '../core/watch/log';
import { describeError } from '../core/error-message';
import type { WatchConfig } from '../core/watch/config';

const USAGE = `Usage: session-ops watch --config FILE [--listen HOST:PORT] [--log-level LEVEL]
                         [--allow-short-spacing]

Runs unattended: samples every configured backend continuously (the editor's monitor, verdicts
and limits), runs the automatic policy when the configuration switches it on, and serves
read-only endpoints for Prometheus:
  GET /metrics      Prometheus text exposition (OpenMetrics when the Accept header asks)
  GET /healthz      200 "ok" while the sampling loop runs, 503 when it is stuck
  GET /api/status   the "status --json" document of each backend directory
  GET /             the web page (its bundle at /assets/*: static, no fleet data in it)
  GET /api/route?label=Kind/X[&label=...][&highRisk=1]
                    a ticket's effective route in the configuration's routing table (its routing:
                    key), as "route --json" answers it; 404 without one, 409 {"ambiguous": [...]},
                    422 {"diagnostics": [...]} for an invalid table, 400 for a bad query

Options:
  --config FILE            session-ops.yaml (YAML or JSON; schemas/session-ops.schema.json)
  --listen HOST:PORT       where the endpoints listen (default 127.0.0.1:9464); a non-loopback
                           address is warned about (the metrics name sessions)
  --log-level LEVEL        debug, info, warn or error: the least severe line logged (default: the
                           configuration's logLevel, else info; debug adds one line per sampling round)
  --allow-short-spacing    accept sampleSpacingSeconds under 30 (for tests and demos only)

Signals: SIGTERM/SIGINT stop (exit 0), SIGHUP re-reads the configuration (a bad one is logged,
the old one kept). Logs one JSON line per event on stdout.
Exit codes: 0 stopped by a signal, 1 the listen address could not be bound, 2 usage or configuration error.

Example:
  session-ops watch --config /etc/session-ops/session-ops.yaml --listen 127.0.0.1:9464`;

/** The longest a stop may take: in-flight requests are abandoned after this. */
const STOP_DEADLINE_MS = 4_500;

export interface WatchIo extends CommandIo {
  env: Record<string, string | undefined>;
  /** Subscribes to a process signal; returns the unsubscribe. */
  onSignal: (signal: 'SIGTERM' | 'SIGINT' | 'SIGHUP', handler: () => void) => () => void;
}

const defaultIo = (): WatchIo => ({
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  env: process.env,
  onSignal: (signal, handler) => {
    process.on(signal, handler);
    return () => process.off(signal, handler);
  },
});

interface WatchOptions {
  config: string;
  listen: ListenAddress;
  allowShort: boolean;
  /** --log-level; null: the configuration's logLevel. */
  logLevel: LogLevel | null;
}

export const watchCommand = defineCommand<WatchOptions, WatchIo>({
  name: 'watch',
  usage: USAGE,
  args: { flags: ['--allow-short-spacing'], options: ['--config', '--listen', '--log-level'] },
  io: defaultIo,
  options(parsed) {
    const config = parsed.values.get('--config');
    if (!config) throw new UsageError('--config is required');
    let listen: ListenAddress;
    try {
      listen = parseListen(parsed.values.get('--listen') ?? '127.0.0.1:9464');
    } catch (err) {
      throw new UsageError(describeError(err));
    }
    const level = parsed.values.get('--log-level') ?? null;
    if (level !== null && !isLogLevel(level))
      throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')} (got "${level}")`);
    return { config, listen, allowShort: parsed.flags.has('--allow-short-spacing'), logLevel: level };
  },
  run: watch,
});

export const runWatch = (argv: string[], io: Partial<WatchIo> = {}) => runCommand(watchCommand, argv, io);

async function watch(args: WatchOptions, io: WatchIo): Promise<number> {
  const load = () => loadWatchConfig(args.config, { allowShortSpacing: args.allowShort, env: io.env });
  const first = await load();
  if (!first.ok) {
    for (const e of first.errors) io.stderr(`session-ops watch: ${e}\n`);
    return EXIT.usage;
  }
  // --log-level wins; else the configuration's logLevel, followed across reloads.
  let configLevel = first.loaded.config.logLevel;
  const log = jsonLineLogger(io.stdout, { minLevel: () => args.logLevel ?? configLevel });
  for (const w of first.loaded.warnings) log('warn', 'config-warning', { message: w });
  if (!isLoopbackListen(args.listen.host))
    log('warn', 'listen-not-loopback', {
      message: `listening on ${args.listen.host}: the metrics and /api/status name sessions and directories; keep the port off untrusted networks`,
    });
  const daemon = new WatchDaemon({
    loaded: first.loaded,
    log,
    allowShortSpacing: args.allowShort,
    env: io.env,
    // The quota marks of stock opencode, in the same store as the other commands'.
    openMarks: (baseUrl) => openMarkStore(`${baseUrl}/`, io.env, Date.now),
  });
  // The routing table of the configuration in use (followed across reloads).
  let routing = first.loaded.config.routing;
  const server = new WatchHttpServer({
    metrics: (om) => daemon.metrics.render(om),
    health: () => daemon.health(),
    status: () => daemon.status(),
    route: (query) => answerRoute(routing, query),
    // The page's bundle, built beside the CLI's (dist/web next to dist/cli.js).
    page: webPage(path.join(__dirname, 'web')),
  });
  let address;
  try {
    address = await server.listen(args.listen);
  } catch (err) {
    io.stderr(`session-ops watch: cannot listen on ${args.listen.host}:${args.listen.port}: ${describeError(err)}\n`);
    return EXIT.failed;
  }
  await daemon.start();
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  log('info', 'listening', { metricsUrl: `http://${host}:${address.port}/metrics` });
  return new Promise<number>((resolve) => {
    let reloading = false;
    const offs = [
      io.onSignal('SIGHUP', () => {
        if (reloading) return;
        reloading = true;
        void reload(load, daemon, log)
          .then((config) => {
            if (!config) return;
            configLevel = config.logLevel;
            routing = config.routing;
          })
          .finally(() => (reloading = false));
      }),
      io.onSignal('SIGTERM', () => stop('SIGTERM')),
      io.onSignal('SIGINT', () => stop('SIGINT')),
    ];
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      log('info', 'stopping', { signal });
      for (const off of offs) off();
      const deadline = setTimeout(() => finish(), STOP_DEADLINE_MS);
      deadline.unref?.();
      void daemon
        .stop()
        .then(() => server.close())
        .then(() => {
          clearTimeout(deadline);
          finish();
        });
    };
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      log('info', 'stopped');
      resolve(EXIT.done);
    };
  });
}

/** Applies the configuration file again; the configuration, or null when it was refused. */
async function reload(
  load: () => ReturnType<typeof loadWatchConfig>,
  daemon: WatchDaemon,
  log: Logger,
): Promise<WatchConfig | null> {
  const next = await load();
  if (!next.ok) {
    log('error', 'config-reload-failed', { errors: next.errors, kept: 'the configuration in use' });
    return null;
  }
  for (const w of next.loaded.warnings) log('warn', 'config-warning', { message: w });
  await daemon.reload(next.loaded);
  return next.loaded.config;
}
