// The fault matrix: every endpoint x every fault of test/support/fault-server.ts, through the
// client (both dialects) and through the built `session-ops status --json` as a process.
// Expected everywhere: a typed error naming the endpoint (or, for a POST whose 2xx status was
// seen, acceptance without reading the body), no crash, no unhandled rejection, bounded time and
// memory, no guessed verdict, no POST caused by a fault, no secret in any message, and recovery
// once the fault ends.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleCli, runCliProcess, type CliProcessRun } from './cli-bundle';
import { BackendClient } from '../../src/core/backend/client';
import { BackendError, type BackendErrorCode } from '../../src/core/backend/errors';
import { readEventStream, type EventStreamState } from '../../src/core/backend/events';
import { guardPrompt } from '../../src/core/actions/guard';
import { startSpecServer } from '../support/spec-server';
import { status } from './helpers';
import {
  startFaultServer,
  type FaultDialect,
  type FaultEndpoint,
  type FaultKind,
  type FaultServer,
} from '../support/fault-server';

const DIR = '/work/fault dir';
const PASSWORD = 'pw-SECRET-7f3a9c';
const API_KEY = 'sk-fault-server-SECRET-0123456789';
const AUTH = Buffer.from(`opencode:${PASSWORD}`).toString('base64');
const DEADLINE_MS = 400;
const HUGE_DEADLINE_MS = 10_000;
/** For a fault answered at once (a status, a malformed or wrong-shaped body): room for a loaded machine, where 400 ms once read a malformed /provider answer as a timeout. */
const ANSWERED_DEADLINE_MS = 3_000;

type MatrixFault = FaultKind | 'refused';
const FAULTS: MatrixFault[] = [
  'refused',
  'reset',
  'no-answer',
  'drip',
  '401',
  '404',
  '429',
  '500',
  '503',
  'malformed',
  'wrong-shape',
  'huge',
  'html',
];
const EVENT_FAULTS: MatrixFault[] = [...FAULTS, 'event-close', 'event-silent'];
const REQUEST_ENDPOINTS: Record<FaultDialect, FaultEndpoint[]> = {
  opencode: ['sessions', 'message', 'status', 'providers', 'abort', 'prompt'],
  spec: ['sessions', 'message', 'providers', 'abort', 'prompt'],
};
const OPERATION: Record<FaultEndpoint, string> = {
  sessions: 'GET /session',
  message: 'GET /session/{id}/message',
  status: 'GET /session/status',
  providers: 'GET /provider',
  abort: 'POST /session/{id}/abort',
  prompt: 'POST /session/{id}/prompt_async',
  events: 'GET /event',
};

/** The operation an error names: the status map is read after the list, whose failure comes first. */
function operationFor(endpoint: FaultEndpoint, fault: MatrixFault): string {
  return endpoint === 'status' && (fault === '404' || fault === 'refused') ? 'GET /session' : OPERATION[endpoint];
}

/** The outcome each fault must have on a request endpoint. */
function expected(endpoint: FaultEndpoint, fault: MatrixFault): BackendErrorCode | 'accepted' {
  const post = endpoint === 'abort' || endpoint === 'prompt';
  switch (fault) {
    case 'refused':
      return 'refused';
    case 'reset':
      return post ? 'accepted' : 'network';
    case 'no-answer':
      return 'timeout';
    case 'drip':
      return post ? 'accepted' : 'timeout';
    case '401':
      return 'unauthorized';
    case '404':
      // A missing status map means the list cannot carry states: not a vanished session.
      return endpoint === 'status' ? 'malformed' : 'not-found';
    case '429':
      return 'rejected';
    case '500':
    case '503':
      return 'server';
    case 'malformed':
    case 'wrong-shape':
      return post ? 'accepted' : 'malformed';
    case 'huge':
      return post ? 'accepted' : 'too-large';
    case 'html':
      return 'malformed';
    default:
      throw new Error(`no expectation for ${fault}`);
  }
}

function assertNoSecret(text: string, where: string): void {
  for (const secret of [PASSWORD, AUTH, API_KEY])
    assert.ok(!text.includes(secret), `${where} leaks a secret: ${text.slice(0, 300)}`);
}

async function call(
  client: BackendClient,
  server: FaultServer,
  endpoint: FaultEndpoint,
  timeoutMs: number,
): Promise<void> {
  const id = server.sessionIds[0];
  switch (endpoint) {
    case 'sessions':
    case 'status':
      await client.listSessions(DIR, { timeoutMs });
      return;
    case 'message':
      await client.newestMessage(DIR, id, { timeoutMs });
      return;
    case 'providers': {
      const listing = await client.listProviders(DIR, { timeoutMs });
      assertNoSecret(JSON.stringify(listing), 'the provider listing');
      assert.ok(!JSON.stringify(listing).includes('"options"'), 'provider options are dropped');
      return;
    }
    case 'abort':
      await client.abort(DIR, id, { timeoutMs });
      return;
    case 'prompt': {
      const guarded = guardPrompt({
        directory: DIR,
        sessionId: id,
        agent: 'build',
        model: { providerID: 'p', modelID: 'm' },
        text: 'go on',
        listing: {
          providers: [{ id: 'p', name: null, connected: true, quota: null, models: ['m'] }],
          connected: ['p'],
        },
        wallProvider: null,
      });
      assert.ok(guarded.ok);
      await client.promptAsync(guarded.prompt, { timeoutMs });
      return;
    }
    case 'events':
      throw new Error('events are read by readEventStream');
  }
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
const table: Array<{
  via: string;
  dialect: string;
  endpoint: string;
  fault: string;
  outcome: string;
  ms: number;
  rssMb?: number;
}> = [];

function sampleRss(): { stop(): number } {
  const base = process.memoryUsage().rss;
  let peak = base;
  const t = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  return {
    stop() {
      clearInterval(t);
      peak = Math.max(peak, process.memoryUsage().rss);
      return (peak - base) / 1024 / 1024;
    },
  };
}

describe('fault matrix', function () {
  this.timeout(60_000);

  before(() => process.on('unhandledRejection', onUnhandled));
  after(() => {
    process.off('unhandledRejection', onUnhandled);
    const rows = table.map(
      (r) =>
        `${r.via.padEnd(6)} ${r.dialect.padEnd(8)} ${r.endpoint.padEnd(9)} ${r.fault.padEnd(12)} ${r.outcome.padEnd(22)} ${String(r.ms).padStart(5)} ms${r.rssMb !== undefined ? (r.via === 'cli' ? `  peak RSS ${r.rssMb.toFixed(0)} MB` : `  RSS +${r.rssMb.toFixed(0)} MB`) : ''}`,
    );
    if (process.env.SESSION_OPS_FAULT_TABLE) writeFileSync(process.env.SESSION_OPS_FAULT_TABLE, `${rows.join('\n')}\n`);
  });
  afterEach(() => assert.deepEqual(unhandled, [], 'no unhandled rejection'));

  for (const dialect of ['opencode', 'spec'] as const) {
    describe(`client, ${dialect} dialect: every request endpoint x every fault`, () => {
      let server: FaultServer;
      before(async () => (server = await startFaultServer({ dialect, apiKey: API_KEY })));
      after(async () => server?.stop());

      for (const endpoint of REQUEST_ENDPOINTS[dialect]) {
        it(`${OPERATION[endpoint]}: each fault gives its typed error (or a 2xx POST accepted), then recovers`, async () => {
          for (const fault of FAULTS) {
            const want = expected(endpoint, fault);
            // The short deadline only where a timeout is the expected outcome.
            const timeoutMs =
              fault === 'huge' ? HUGE_DEADLINE_MS : want === 'timeout' ? DEADLINE_MS : ANSWERED_DEADLINE_MS;
            const client = new BackendClient({
              baseUrl: server.url,
              password: PASSWORD,
              timeoutMs,
              providerTimeoutMs: timeoutMs,
            });
            const postsBefore = server.requests.filter((r) => r.method === 'POST').length;
            if (fault === 'refused') await server.stop();
            else server.setFault(endpoint, fault);
            const rss = sampleRss();
            const t0 = Date.now();
            let outcome: string;
            try {
              await call(client, server, endpoint, timeoutMs);
              outcome = 'accepted';
            } catch (err) {
              assert.ok(err instanceof BackendError, `${endpoint}/${fault}: not a BackendError: ${String(err)}`);
              outcome = err.code;
              const op = operationFor(endpoint, fault);
              assert.ok(
                err.message.startsWith(`${op} on ${server.url}`),
                `${endpoint}/${fault}: the message names the endpoint: ${err.message}`,
              );
              assertNoSecret(err.message, `${endpoint}/${fault}`);
            }
            const ms = Date.now() - t0;
            const grew = rss.stop();
            table.push({
              via: 'client',
              dialect,
              endpoint,
              fault,
              outcome,
              ms,
              rssMb: fault === 'huge' ? grew : undefined,
            });
            assert.equal(outcome, want, `${endpoint}/${fault}`);
            assert.ok(ms < timeoutMs + 2_500, `${endpoint}/${fault}: bounded time (${ms} ms)`);
            if (fault === 'huge')
              assert.ok(grew < 250, `${endpoint}/${fault}: bounded memory (+${grew.toFixed(0)} MB)`);
            const posts = server.requests.filter((r) => r.method === 'POST').length - postsBefore;
            assert.equal(
              posts,
              endpoint === 'abort' || endpoint === 'prompt' ? (fault === 'refused' ? 0 : 1) : 0,
              `${endpoint}/${fault}: no POST caused by the fault`,
            );
            // Recovery: the fault ends, the same client works again.
            if (fault === 'refused') await server.restart();
            server.clearFaults();
            await call(client, server, endpoint, 5_000);
            await client.close();
          }
        });
      }

      it('a sample round with every newest message failing: errors per session, no sample, so no verdict is guessed', async () => {
        const client = new BackendClient({ baseUrl: server.url, password: PASSWORD, timeoutMs: DEADLINE_MS });
        try {
          for (const fault of ['500', 'malformed', 'drip'] as const) {
            server.setFault('message', fault);
            const round = await client.sampleRound(DIR);
            assert.equal(round.samples.length, 0);
            assert.deepEqual(
              round.errors.map((e) => e.sessionId),
              server.sessionIds,
            );
            server.clearFaults();
            assert.equal((await client.sampleRound(DIR)).samples.length, server.sessionIds.length);
          }
        } finally {
          server.clearFaults();
          await client.close();
        }
      });
    });
  }

  describe('event stream (stock opencode dialect): every fault, observable states, reconnect', () => {
    let server: FaultServer;
    before(async () => (server = await startFaultServer({ dialect: 'opencode', apiKey: API_KEY, heartbeatMs: 100 })));
    after(async () => server?.stop());

    const want: Record<string, { state: EventStreamState; kind?: BackendErrorCode; terminal?: boolean }> = {
      refused: { state: 'backoff', kind: 'refused' },
      reset: { state: 'closed', kind: 'network' },
      'no-answer': { state: 'backoff', kind: 'timeout' },
      drip: { state: 'silent', kind: 'timeout' },
      '401': { state: 'unauthorized', kind: 'unauthorized', terminal: true },
      '404': { state: 'unsupported', kind: 'not-found', terminal: true },
      '429': { state: 'backoff', kind: 'rejected' },
      '500': { state: 'backoff', kind: 'server' },
      '503': { state: 'backoff', kind: 'server' },
      malformed: { state: 'backoff', kind: 'malformed' },
      'wrong-shape': { state: 'backoff', kind: 'malformed' },
      huge: { state: 'backoff', kind: 'malformed' },
      html: { state: 'backoff', kind: 'malformed' },
      'event-close': { state: 'closed', kind: 'network' },
      'event-silent': { state: 'silent', kind: 'timeout' },
    };

    for (const fault of EVENT_FAULTS) {
      it(`GET /event ${fault}: ${want[fault].state}${want[fault].terminal ? ' (the reader ends)' : ', then reconnects once the fault ends'}`, async () => {
        const client = new BackendClient({ baseUrl: server.url, password: PASSWORD, timeoutMs: DEADLINE_MS });
        const states: Array<{ state: EventStreamState; error?: BackendError; at: number }> = [];
        let events = 0;
        const stop = new AbortController();
        if (fault === 'refused') await server.stop();
        else server.setFault('events', fault);
        const t0 = Date.now();
        const reader = readEventStream(client.transport, {
          directory: DIR,
          signal: stop.signal,
          onEvent: () => events++,
          onState: (state, error) => states.push({ state, error, at: Date.now() }),
          minBackoffMs: 50,
          maxBackoffMs: 200,
          idleTimeoutMs: 500,
        });
        try {
          const w = want[fault];
          const seen = await waitUntil(
            () => states.find((s) => s.state === w.state && (w.kind === undefined || s.error?.code === w.kind)),
            5_000,
            `${fault}: state ${w.state}/${w.kind}; saw ${states.map((s) => `${s.state}/${s.error?.code ?? ''}`).join(' ')}`,
          );
          table.push({
            via: 'events',
            dialect: 'opencode',
            endpoint: 'events',
            fault,
            outcome: `${seen.state}/${seen.error?.code ?? ''}`,
            ms: seen.at - t0,
          });
          for (const s of states) if (s.error) assertNoSecret(s.error.message, `events/${fault}`);
          if (seen.error) assert.ok(seen.error.message.startsWith(`GET /event on ${server.url}`), seen.error.message);
          assert.equal(server.requests.filter((r) => r.method === 'POST').length, 0, 'no POST');
          if (fault === 'refused') await server.restart();
          server.clearFaults();
          if (w.terminal) {
            assert.equal(await reader, w.state);
            // A new reader (as the monitor starts on its next sync) opens once the fault ends.
            const again = new AbortController();
            let opened = false;
            const r2 = readEventStream(client.transport, {
              directory: DIR,
              signal: again.signal,
              onEvent: () => undefined,
              onState: (s) => (opened ||= s === 'open'),
            });
            await waitUntil(() => opened, 5_000, 'a new reader opens');
            again.abort();
            assert.equal(await r2, 'stopped');
          } else {
            const mark = events;
            const from = states.length;
            await waitUntil(
              () => states.slice(from).some((s) => s.state === 'open') && events > mark,
              5_000,
              `${fault}: reconnects and delivers events; saw ${states.map((s) => s.state).join(' ')}`,
            );
            // Reconnection waited for a backoff first.
            assert.ok(
              states
                .slice(0, from + states.slice(from).findIndex((s) => s.state === 'open'))
                .some((s) => s.state === 'backoff'),
              'a backoff before reconnecting',
            );
          }
        } finally {
          stop.abort();
          await reader;
          await client.close();
        }
      });
    }
  });

  describe('session-ops status --json as a process (bundled CLI): every GET endpoint x faults', function () {
    this.timeout(process.env.SESSION_OPS_FAULTS_FULL ? 600_000 : 120_000);
    let out: string;
    let cli: string;
    let preload: string;

    before(async () => {
      out = mkdtempSync(path.join(os.tmpdir(), 'session-ops-faults-'));
      cli = path.join(out, 'cli.js');
      preload = path.join(out, 'maxrss.cjs');
      // Reports the process's peak RSS on stderr as it exits.
      writeFileSync(
        preload,
        "process.on('exit', () => process.stderr.write(`\\nmaxrss=${process.resourceUsage().maxRSS}\\n`));\n",
      );
      await bundleCli(cli);
    });
    after(() => rmSync(out, { recursive: true, force: true }));

    // Every fault at least once, and the costly ones (no answer, drip, 50 MB) on every endpoint
    // they apply to; SESSION_OPS_FAULTS_FULL=1 runs the whole cross product (about 70 processes).
    const SUBSET: Partial<Record<FaultEndpoint, MatrixFault[]>> = {
      sessions: ['no-answer', 'drip', 'huge', 'reset', '401', 'html'],
      message: ['no-answer', 'drip', 'huge', '429', 'wrong-shape'],
      status: ['drip', 'huge', '503', '404'],
      providers: ['no-answer', 'drip', 'huge', 'malformed', '500'],
      events: ['event-silent', 'event-close', 'no-answer', '404'],
    };
    const cases: Array<{ endpoint: FaultEndpoint; fault: MatrixFault }> = [];
    for (const endpoint of ['sessions', 'message', 'status', 'providers', 'events'] as FaultEndpoint[]) {
      const faults = process.env.SESSION_OPS_FAULTS_FULL
        ? endpoint === 'events'
          ? EVENT_FAULTS
          : FAULTS
        : SUBSET[endpoint]!;
      for (const fault of faults) if (fault !== 'refused') cases.push({ endpoint, fault });
    }

    it(`${cases.length + 1} runs: exit 1 naming the endpoint (0 for an event-stream fault), no crash, bounded time and memory, no POST, no verdict without samples, no secret`, async () => {
      const run = async (endpoint: FaultEndpoint | null, fault: MatrixFault) => {
        const server = await startFaultServer({ dialect: 'opencode', apiKey: API_KEY, heartbeatMs: 100 });
        if (fault === 'refused') await server.stop();
        else if (endpoint) server.setFault(endpoint, fault as FaultKind);
        try {
          const t0 = Date.now();
          const r = await runCli(
            cli,
            preload,
            [
              'status',
              '--base-url',
              server.url,
              '--directory',
              DIR,
              '--spacing',
              '0',
              '--allow-short-spacing',
              '--max-samples',
              '2',
              // A deadline the fault must hit, not the machine: four CLI processes start at a time
              // beside the editor layer's browser, and a healthy GET /session missed 0.5 s there.
              '--timeout',
              '2',
              '--json',
            ],
            {
              SESSION_OPS_PASSWORD: PASSWORD,
            },
          );
          const ms = Date.now() - t0;
          const maxRss = Number(/maxrss=(\d+)/.exec(r.stderr)?.[1] ?? NaN) / 1024;
          const label = `${endpoint ?? 'backend'}/${fault}`;
          table.push({
            via: 'cli',
            dialect: 'opencode',
            endpoint: endpoint ?? 'all',
            fault,
            outcome: `exit ${r.code}`,
            ms,
            rssMb: maxRss,
          });
          assert.ok(!/\n\s+at .+:\d+:\d+\)?\n/.test(r.stderr), `${label}: no stack trace: ${r.stderr}`);
          assertNoSecret(r.stdout + r.stderr, label);
          assert.ok(ms < 15_000, `${label}: bounded time (${ms} ms)`);
          assert.ok(maxRss < 300, `${label}: bounded memory (${maxRss.toFixed(0)} MB peak RSS)`);
          assert.equal(server.requests.filter((q) => q.method === 'POST').length, 0, `${label}: status never POSTs`);
          if (endpoint === 'events') {
            assert.equal(r.code, 0, `${label}: the event stream is optional: ${r.stderr}`);
            const doc = JSON.parse(r.stdout);
            assert.equal(doc.sessions.length, server.sessionIds.length);
          } else if (endpoint === 'message' && fault === '404') {
            // 404 on a session's messages: the session was deleted between list and read.
            assert.equal(r.code, 0, `${label}: vanished sessions are not an error: ${r.stderr}`);
            assertNoVerdict(JSON.parse(r.stdout).sessions, label);
          } else {
            assert.equal(r.code, 1, `${label}: exit 1: ${r.stderr}`);
            const op = endpoint ? operationFor(endpoint, fault) : 'GET /session';
            assert.ok(r.stderr.includes(`${op} on ${server.url}`), `${label}: stderr names ${op}: ${r.stderr}`);
            if (endpoint === 'message') {
              const doc = JSON.parse(r.stdout);
              assertNoVerdict(doc.sessions, label);
              assert.equal(doc.errors.length, server.sessionIds.length);
            } else {
              assert.equal(r.stdout, '', `${label}: no document when the backend cannot be read`);
            }
          }
        } finally {
          if (fault !== 'refused') await server.stop();
        }
      };
      const all: Array<{ endpoint: FaultEndpoint | null; fault: MatrixFault }> = [
        { endpoint: null, fault: 'refused' },
        ...cases,
      ];
      let next = 0;
      const worker = async () => {
        while (next < all.length) {
          const c = all[next++];
          await run(c.endpoint, c.fault);
        }
      };
      await Promise.all(Array.from({ length: 4 }, worker));
    });
  });
});

/** Sessions whose newest message could not be read: listed at most as unknown, never acted on. */
function assertNoVerdict(
  sessions: Array<{ id: string; verdict: string; action: string; settled: boolean }>,
  label: string,
): void {
  for (const s of sessions) {
    assert.equal(s.verdict, 'unknown', `${label}: no verdict without samples (${s.id})`);
    assert.equal(s.action, 'leave-alone', `${label}: no action on unknown data (${s.id})`);
    assert.equal(s.settled, false);
  }
}

function runCli(cli: string, preload: string, args: string[], env: Record<string, string>): Promise<CliProcessRun> {
  return runCliProcess(cli, args, env, ['-r', preload]);
}

async function waitUntil<T>(probe: () => T | undefined | null | false, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('session-ops status: limits and warnings said in its output', function () {
  this.timeout(60_000);

  it('a plain-http backend off this machine: one warning on stderr, none in the JSON', async () => {
    const r = await status([
      '--base-url',
      'http://0.0.0.0:1/',
      '--directory',
      DIR,
      '--spacing',
      '0',
      '--allow-short-spacing',
      '--timeout',
      '0.5',
      '--json',
    ]);
    assert.equal(r.code, 1);
    assert.equal(r.stderr.match(/clear-text http:\/\//g)?.length, 1, r.stderr);
    assert.match(r.stderr, /^session-ops status: warning: http:\/\/0\.0\.0\.0:1 is reached over clear-text http:\/\//);
    const local = await status([
      '--base-url',
      'http://127.0.0.1:1/',
      '--directory',
      DIR,
      '--spacing',
      '0',
      '--allow-short-spacing',
      '--timeout',
      '0.5',
      '--json',
    ]);
    assert.ok(!/clear-text/.test(local.stderr), local.stderr);
  });

  it('more sessions than the per-round limit: the kept ones are sampled and the overflow is a warning in the table and the JSON', async () => {
    const server = await startSpecServer();
    try {
      server.setProviders([{ id: 'p' }], ['p']);
      const d = server.directory(DIR);
      for (let i = 0; i < 1_003; i++)
        d.addSession({ state: 'generating', progress: { stepCount: 1, lastStepAt: Date.now() } });
      const json = await status([
        '--base-url',
        server.url,
        '--directory',
        DIR,
        '--spacing',
        '0',
        '--allow-short-spacing',
        '--max-samples',
        '2',
        '--json',
      ]);
      assert.equal(json.code, 0, json.stderr);
      assert.equal(json.doc!.sessions.length, 1_000);
      assert.ok(
        json.doc!.warnings.includes(
          '1003 sessions listed; only the 1000 most recently updated were sampled (the limit per directory per round)',
        ),
        JSON.stringify(json.doc!.warnings),
      );
      const table = await status([
        '--base-url',
        server.url,
        '--directory',
        DIR,
        '--spacing',
        '0',
        '--allow-short-spacing',
        '--max-samples',
        '2',
      ]);
      assert.match(table.stdout, /warning: 1003 sessions listed; only the 1000 most recently updated were sampled/);
    } finally {
      await server.stop();
    }
  });
});
