// The real opencode server killed mid-sampling and restarted behind the same address (a TCP
// relay on a fixed loopback port stands for the backend's address): the SessionMonitor in plain
// Node reports the backend in error with a clear message, never crashes or leaves an unhandled
// rejection, never POSTs, and recovers by itself: rows, status and the event stream come back.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BackendClient } from '../../src/core/backend/client';
import { parseBackendConfigs } from '../../src/core/config/backends';
import { SessionMonitor } from '../../src/core/monitor/sessionMonitor';
import { launchSession, startOpencode, type OpencodeServer } from '../support/opencode';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';
import { waitFor } from './helpers';

interface Relay {
  url: string;
  target: number | null;
  /** Request lines seen from the client side ("GET /session?..."), for the no-POST check. */
  requestLines: string[];
  stop(): Promise<void>;
}

async function startRelay(): Promise<Relay> {
  const sockets = new Set<net.Socket>();
  const relay: Relay = { url: '', target: null, requestLines: [], stop: async () => undefined };
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => undefined);
    if (relay.target === null) return void client.destroy();
    const upstream = net.connect(relay.target, '127.0.0.1');
    sockets.add(upstream);
    upstream.on('close', () => (sockets.delete(upstream), client.destroy()));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.on('data', (chunk: Buffer) => {
      for (const m of chunk
        .toString('latin1')
        .matchAll(/(?:^|\r\n)((?:GET|POST|PUT|PATCH|DELETE) \/[^ \r\n]*) HTTP\/1\.1\r\n/g))
        relay.requestLines.push(m[1]);
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  relay.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  relay.stop = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => server.close(() => r()));
  };
  return relay;
}

function portOf(baseUrl: string): number {
  return Number(new URL(baseUrl).port);
}

describe('the real opencode server killed mid-sampling and restarted: the monitor recovers', function () {
  this.timeout(300_000); // two opencode starts and their first turns: slow on a loaded machine
  let model: ScriptedModel;
  let relay: Relay;
  const servers: OpencodeServer[] = [];
  let monitor: SessionMonitor | undefined;
  let dir: string;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  before(async () => {
    process.on('unhandledRejection', onUnhandled);
    model = await startScriptedModel();
    relay = await startRelay();
    dir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-restart-'));
  });
  after(async () => {
    process.off('unhandledRejection', onUnhandled);
    monitor?.dispose();
    model?.releaseStalls();
    for (const s of servers) await s.stop();
    await relay?.stop();
    await model?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const launch = (oc: OpencodeServer, text: string): Promise<string> => launchSession(oc, dir, undefined, text);

  it('error while down (typed, clear), rows and the event stream back after the restart, no POST', async () => {
    model.when('[busy]', { kind: 'tool-loop', command: 'sleep 0.3', rounds: 400 });
    const first = await startOpencode({ modelUrl: model.url });
    servers.push(first);
    relay.target = portOf(first.baseUrl);
    const before = await launch(first, 'keep working [busy]');

    const logs: string[] = [];
    const { backends } = parseBackendConfigs([{ baseUrl: relay.url, directories: [dir] }], []);
    monitor = new SessionMonitor({
      createClient: (config) => new BackendClient({ baseUrl: config.baseUrl, timeoutMs: 5_000 }),
      getCredentials: async () => undefined,
      spacingMs: 500,
      minSpacingMs: 0,
      resetWithinReachMs: 2 * 3600_000,
      useEventStream: true,
      log: (level, message) => logs.push(`${level} ${message}`),
    });
    monitor.setBackends(backends);
    monitor.setActive(true);
    const state = () => monitor!.backends()[0];
    await waitFor(
      'the busy session in the rows and the event stream open',
      () => monitor!.rows().some((r) => r.id === before) && state().eventStream === 'open',
      120_000,
    );

    // Killed while a round is in flight.
    const round = monitor.refresh();
    relay.target = null;
    const killedAt = Date.now();
    await first.stop();
    await round;
    await waitFor('the backend in error', () => state().status === 'error', 10_000);
    const downFor = Date.now() - killedAt;
    assert.ok(downFor < 10_000, `error reported within ${downFor} ms`);
    // The round's listing is GET /session, then its status map and the /api engine's active sessions
    // (stock 1.18 runs both engines): killed between them, the error names the one that failed.
    assert.match(
      state().error ?? '',
      /^GET \/(session|session\/status|api\/session\/active) on http:\/\/127\.0\.0\.1:\d+\/: /,
      state().error ?? '',
    );
    await waitFor('the event stream left open', () => state().eventStream !== 'open', 10_000);

    // Restarted (a fresh server behind the same address): everything comes back by itself.
    const second = await startOpencode({ modelUrl: model.url });
    servers.push(second);
    const after = await launch(second, 'and again [busy]');
    relay.target = portOf(second.baseUrl);
    const restartedAt = Date.now();
    await waitFor(
      'rows from the restarted server',
      () => state().status === 'ok' && monitor!.rows().some((r) => r.id === after),
      60_000,
    );
    const rowsBackIn = Date.now() - restartedAt;
    await waitFor('the event stream open again', () => state().eventStream === 'open', 120_000);
    const streamBackIn = Date.now() - restartedAt;
    console.log(
      `      restart: error after ${downFor} ms; rows back in ${rowsBackIn} ms, event stream in ${streamBackIn} ms`,
    );

    assert.deepEqual(unhandled, [], 'no unhandled rejection');
    const posts = relay.requestLines.filter((l) => !l.startsWith('GET '));
    assert.deepEqual(posts, [], 'the monitor never POSTs');
    assert.ok(
      logs.some((l) => l.startsWith('warn ') && l.includes(relay.url)),
      'the outage is logged once, naming the backend',
    );
    monitor.dispose();
    monitor = undefined;
  });
});
