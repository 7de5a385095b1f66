// `session-ops watch`: the headless daemon. A thin host over src/core/watch: loads the
// configuration (exit 2 on any problem, before anything is sampled), runs the WatchDaemon and its
// HTTP API (docs/daemon-api.md), and maps signals: SIGTERM/SIGINT stop it (exit 0 within 5 s), SIGHUP
// re-reads the configuration (a bad one is logged and the old one kept). Logs JSON lines on stdout.
//   exit 0  stopped by SIGTERM/SIGINT
//   1       the listen address could not be bound
//   2       usage error, or the configuration could not be read or has an error
//   7       a non-loopback --listen address without a tokens file (auth.tokensFile)
import { TIMING } from '../core/settings/timing';
import path from 'node:path';
import { systemClock, unrefTimer } from '../core/clock';
import { UsageError } from './args';
import { defineCommand, runCommand, type CommandIo } from './command';
import { EXIT } from './exit-codes';
import { openMarkStore } from './mark-store';
import { backendKey } from '../core/keys';
import { WatchDaemon } from '../core/watch/daemon';
import { isLoopbackListen, parseListen, WatchHttpServer, type ListenAddress } from '../core/watch/http-server';
import { loadWatchConfig } from '../core/watch/load';
import { answerRoute } from '../core/watch/route-api';
import { webPage } from '../core/watch/web-page';
import { readRoutes } from '../core/watch/api/read';
import { actRoutes } from '../core/watch/api/act';
import { EventHub } from '../core/watch/api/events';
import { FailureLimiter } from '../core/watch/auth/rate-limit';
import { TlsFileWatch, type TlsFiles } from '../core/watch/tls-files';
import type { LoadedConfig } from '../core/watch/load';
import { isLogLevel, jsonLineLogger, LOG_LEVELS, type Logger, type LogLevel } from '../core/watch/log';
import { describeError } from '../core/error-message';

const USAGE = `Usage: session-ops watch --config FILE [--listen HOST:PORT] [--log-level LEVEL]
                         [--allow-short-spacing]

Runs unattended: samples every configured backend continuously (the editor's monitor, verdicts
and limits), runs the automatic policy when the configuration switches it on, and serves:
  GET /metrics      Prometheus text exposition (OpenMetrics when the Accept header asks); public
                    unless auth.metrics is true
  GET /healthz      200 "ok" while the sampling loop runs, 503 when it is stuck; public
  GET /             the web page (its bundle at /assets/*: static, no fleet data in it); public
  /api/...          the API (docs/daemon-api.md): the fleet, providers, sessions, the audit trail,
                    the event stream, and acts; each needs "Authorization: Bearer TOKEN" of a token
                    in auth.tokensFile (session-ops token add); without a tokens file it is closed (401)
  GET /api/status   the "status --json" document of each backend directory (read token)
  GET /api/route?label=Kind/X[&label=...][&highRisk=1]
                    a ticket's effective route in the configuration's routing table (its routing:
                    key), as "route --json" answers it; 404 without one, 409 {"ambiguous": [...]},
                    422 {"diagnostics": [...]} for an invalid table, 400 for a bad query (read token)

Options:
  --config FILE            session-ops.yaml (YAML or JSON; schemas/session-ops.schema.json)
  --listen HOST:PORT       where the endpoints listen (default 127.0.0.1:9464); a non-loopback
                           address needs auth.tokensFile (else exit 7), and without tls: the
                           tokens travel in clear text (warned)
  --log-level LEVEL        debug, info, warn or error: the least severe line logged (default: the
                           configuration's logLevel, else info; debug adds one line per sampling round)
  --allow-short-spacing    accept sampleSpacingSeconds under 30 (for tests and demos only)

Signals: SIGTERM/SIGINT stop (exit 0), SIGHUP re-reads the configuration (a bad one is logged,
the old one kept). Logs one JSON line per event on stdout.
Exit codes: 0 stopped by a signal, 1 the listen address could not be bound, 2 usage or configuration error,
7 a non-loopback --listen address without auth.tokensFile.

Example:
  session-ops watch --config /etc/session-ops/session-ops.yaml --listen 127.0.0.1:9464`;

const STOP_DEADLINE_MS = TIMING.watchStopDeadlineMs;

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
  if (!isLoopbackListen(args.listen.host)) {
    if (!first.loaded.tokens) {
      io.stderr(
        `session-ops watch: refusing to listen on ${args.listen.host}: a non-loopback address needs a tokens file (auth.tokensFile in ${args.config}; create one with "session-ops token add NAME --scope read --tokens-file FILE"), or listen on 127.0.0.1\n`,
      );
      return EXIT.unprotectedListen;
    }
    if (!first.loaded.tls)
      log('warn', 'listen-not-loopback', {
        message: `listening on ${args.listen.host} without tls: tokens and fleet data travel in clear text; set tls.certFile/tls.keyFile or put a TLS reverse proxy in front (deploy/reverse-proxy/)`,
      });
    if (!first.loaded.config.auth.metrics)
      log('warn', 'metrics-public', {
        message: `/metrics is public on ${args.listen.host} and names sessions and directories; set auth.metrics: true to require a read token`,
      });
  }
  const daemon = new WatchDaemon({
    loaded: first.loaded,
    log,
    allowShortSpacing: args.allowShort,
    env: io.env,
    // The quota marks of stock opencode, in the same store as the other commands'.
    openMarks: (baseUrl) => openMarkStore(backendKey(baseUrl), io.env, systemClock.now),
  });
  // The event stream's clients: a slow one is dropped (its buffer bounded), never waited for.
  const events = new EventHub({
    onDrop: (name, bytes) => log('warn', 'events-client-dropped', { tokenName: name, bufferedBytes: bytes }),
  });
  const offEvents = daemon.feed(events);
  // The configuration in use (followed across reloads): its routing table and tokens.
  let current: LoadedConfig = first.loaded;
  const server = new WatchHttpServer(
    {
      metrics: (om) => daemon.metrics.render(om),
      health: () => daemon.health(),
      status: () => daemon.status(),
      statusBytes: () => daemon.statusBytes(),
      route: (query) => answerRoute(current.config.routing, query),
      // The page's bundle, built beside the CLI's (dist/web next to dist/cli.js).
      page: webPage(path.join(__dirname, 'web')),
    },
    {
      tokens: () => current.tokens ?? null,
      metricsNeedToken: () => current.config.auth.metrics,
      limiter: new FailureLimiter(),
      log,
      routes: [
        ...readRoutes(daemon.fleetView()),
        ...actRoutes(daemon.actView()),
        {
          method: 'GET',
          path: '/api/events',
          scope: 'read',
          handle: (ctx) => Promise.resolve(events.attach(ctx.req, ctx.res, ctx.principal.name)),
        },
      ],
      tls: first.loaded.tls ?? undefined,
    },
  );
  let address;
  try {
    address = await server.listen(args.listen);
  } catch (err) {
    io.stderr(`session-ops watch: cannot listen on ${args.listen.host}:${args.listen.port}: ${describeError(err)}\n`);
    return EXIT.failed;
  }
  // A renewed certificate and key are taken without a restart (looked at every 30 s, and on SIGHUP).
  let tlsWatch: TlsFileWatch | null = null;
  const followTls = async (files: TlsFiles | null) => {
    tlsWatch?.stop();
    tlsWatch = null;
    if (!files || server.protocol !== 'https') return;
    tlsWatch = new TlsFileWatch(files, (pair) => server.setTls(pair), log);
    await tlsWatch.start();
  };
  await followTls(first.loaded.config.tls);
  await daemon.start();
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  log('info', 'listening', {
    metricsUrl: `${server.protocol}://${host}:${address.port}/metrics`,
    apiUrl: `${server.protocol}://${host}:${address.port}/api/`,
    tokens: first.loaded.tokens?.size ?? 0,
  });
  return new Promise<number>((resolve) => {
    let reloading = false;
    const offs = [
      io.onSignal('SIGHUP', () => {
        if (reloading) return;
        reloading = true;
        void reload(load, daemon, log)
          .then(async (loaded) => {
            if (!loaded) return;
            configLevel = loaded.config.logLevel;
            const files = loaded.config.tls;
            if ((files !== null) !== (server.protocol === 'https'))
              log('warn', 'tls-needs-restart', {
                message: `the configuration now ${files ? 'names' : 'names no'} tls files but the daemon serves ${server.protocol}: restart to change that`,
              });
            else if (files) {
              const was = current.config.tls;
              // The same files: look at them now; other files: follow those (and take them now).
              if (was && was.certFile === files.certFile && was.keyFile === files.keyFile) await tlsWatch?.check();
              else {
                await followTls(null);
                tlsWatch = new TlsFileWatch(files, (pair) => server.setTls(pair), log);
                await tlsWatch.check();
                await tlsWatch.start();
              }
            }
            current = loaded;
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
      const deadline = unrefTimer(systemClock.setTimeout(() => finish(), STOP_DEADLINE_MS));
      offEvents();
      events.close();
      tlsWatch?.stop();
      void daemon
        .stop()
        .then(() => server.close())
        .then(() => {
          systemClock.clearTimeout(deadline);
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
): Promise<LoadedConfig | null> {
  const next = await load();
  if (!next.ok) {
    log('error', 'config-reload-failed', { errors: next.errors, kept: 'the configuration in use' });
    return null;
  }
  for (const w of next.loaded.warnings) log('warn', 'config-warning', { message: w });
  await daemon.reload(next.loaded);
  return next.loaded;
}
