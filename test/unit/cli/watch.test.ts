// `session-ops watch` refuses to start (exit 2, nothing sampled, nothing bound) on a usage or
// configuration error, and its help names the endpoints.
import { strict as assert } from 'node:assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runWatch } from '../../../src/cli/watch';
import { waitFor } from '../../support/wait-for';

async function run(argv: string[], env: Record<string, string> = {}) {
  let out = '';
  let err = '';
  const signals: string[] = [];
  const code = await runWatch(argv, {
    stdout: (t) => (out += t),
    stderr: (t) => (err += t),
    env,
    onSignal: (s) => {
      signals.push(s);
      return () => undefined;
    },
  });
  return { code, out, err, signals };
}

/** The daemon started in process with signal handlers the test calls; its JSON log lines as events. */
function startInProcess(argv: string[], stateDir: string) {
  let out = '';
  const handlers = new Map<string, () => void>();
  const running = runWatch(argv, {
    stdout: (t) => (out += t),
    stderr: (t) => (out += t),
    env: { SESSION_OPS_STATE_DIR: stateDir },
    onSignal: (signal, handler) => {
      handlers.set(signal, handler);
      return () => handlers.delete(signal);
    },
  });
  const events = () =>
    out
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { event: string; level?: string; [k: string]: unknown });
  return { running, handlers, events };
}

describe('cli/watch', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(tmpdir(), 'watch-cli-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('--help names the endpoints; a missing --config or a bad --listen is exit 2', async () => {
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.out, /GET \/metrics[\s\S]*GET \/healthz[\s\S]*GET \/api\/status/);
    assert.match((await run([])).err, /--config is required/);
    const bad = await run(['--config', 'x.yaml', '--listen', 'nope']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /expected HOST:PORT/);
    assert.equal((await run(['--config', 'x', '--bogus'])).code, 2);
    const level = await run(['--config', 'x.yaml', '--log-level', 'verbose']);
    assert.equal(level.code, 2);
    assert.match(level.err, /--log-level must be one of debug, info, warn, error \(got "verbose"\)/);
  });

  it("sampling rounds are logged at debug only: the configuration's logLevel, followed on SIGHUP; --log-level wins", async function () {
    this.timeout(30_000);
    const file = path.join(dir, 'session-ops.yaml');
    const config = (level: string) =>
      `backends:\n  - { name: a, baseUrl: "http://127.0.0.1:1", directories: [/w] }\nsampleSpacingSeconds: 1\n${level}`;
    const start = (argv: string[]) => {
      const { running, handlers, events } = startInProcess(
        ['--config', file, '--listen', '127.0.0.1:0', '--allow-short-spacing', ...argv],
        path.join(dir, 'state'),
      );
      /** The rounds timed so far, read from /metrics. */
      const rounds = async () => {
        const url = String(events().find((e) => e.event === 'listening')!.metricsUrl);
        const m = /session_ops_sample_round_duration_seconds_count\{backend="a"\} (\d+)/.exec(
          await (await fetch(url)).text(),
        );
        return m ? Number(m[1]) : 0;
      };
      /** Waits until a round more than now has run (its line, if any, written after this call). */
      const anotherRound = async () => {
        const now = await rounds();
        await waitFor('another sampling round', async () => (await rounds()) > now, 10_000);
      };
      return { running, handlers, events, anotherRound };
    };
    writeFileSync(file, config('logLevel: debug\n'));
    const w = start([]);
    await waitFor('listening', () => w.events().some((e) => e.event === 'listening'));
    await waitFor('a debug round line', () => w.events().some((e) => e.event === 'sample-round-failed'));
    // Back to the default (info) by a reload: no more round lines.
    writeFileSync(file, config(''));
    w.handlers.get('SIGHUP')!();
    await waitFor('the reload', () => w.events().some((e) => e.event === 'config-reloaded'));
    const reloadedAt = w.events().length;
    await w.anotherRound();
    assert.deepEqual(
      w
        .events()
        .slice(reloadedAt)
        .filter((e) => e.level === 'debug'),
      [],
    );
    w.handlers.get('SIGTERM')!();
    assert.equal(await w.running, 0);
    // --log-level info over a configuration at debug.
    writeFileSync(file, config('logLevel: debug\n'));
    const flagged = start(['--log-level', 'info']);
    await waitFor('listening', () => flagged.events().some((e) => e.event === 'listening'));
    await flagged.anotherRound();
    assert.ok(flagged.events().some((e) => e.event === 'started'));
    assert.deepEqual(
      flagged.events().filter((e) => e.level === 'debug'),
      [],
    );
    flagged.handlers.get('SIGTERM')!();
    assert.equal(await flagged.running, 0);
  });

  it('refuses a non-loopback --listen without a tokens file (exit 7, nothing started)', async () => {
    const file = path.join(dir, 'session-ops.yaml');
    writeFileSync(file, 'backends:\n  - { name: a, baseUrl: "http://127.0.0.1:1", directories: [/w] }\n');
    const r = await run(['--config', file, '--listen', '0.0.0.0:0']);
    assert.equal(r.code, 7);
    assert.match(
      r.err,
      /refusing to listen on 0\.0\.0\.0: a non-loopback address needs a tokens file \(auth\.tokensFile/,
    );
    assert.equal(r.out, '', 'nothing logged: the daemon never started');
  });

  it('runs until SIGTERM (exit 0), warns about a non-loopback --listen without tls, reloads on SIGHUP keeping a good config', async () => {
    const file = path.join(dir, 'session-ops.yaml');
    writeFileSync(path.join(dir, 'tokens.json'), '{"version": 1, "tokens": []}');
    writeFileSync(
      file,
      'backends:\n  - { name: a, baseUrl: "http://127.0.0.1:1", directories: [/w] }\nauth: { tokensFile: tokens.json }\n',
    );
    const { running, handlers, events } = startInProcess(
      ['--config', file, '--listen', '0.0.0.0:0'],
      path.join(dir, 'state'),
    );
    await waitFor('listening', () => events().some((e) => e.event === 'listening'));
    assert.ok(events().some((e) => e.event === 'listen-not-loopback'));
    writeFileSync(file, 'backends: nope\n');
    handlers.get('SIGHUP')!();
    await waitFor('the failed reload', () => events().some((e) => e.event === 'config-reload-failed'));
    handlers.get('SIGTERM')!();
    assert.equal(await running, 0);
    assert.deepEqual([...handlers.keys()], [], 'signal handlers removed');
    assert.equal(events().at(-1)!.event, 'stopped');
  });

  it('an unknown key, an inline password or an unreadable passwordFile: exit 2 before anything runs', async () => {
    const base = 'backends:\n  - name: a\n    baseUrl: http://127.0.0.1:1\n    directories: [/w]\n';
    const cases: Array<[string, RegExp]> = [
      [`${base}sampleSpacing: 45\n`, /unknown key "sampleSpacing"/],
      [`${base}    password: hunter2\n`, /a password is never written in the configuration/],
      [`${base}    passwordFile: ${path.join(dir, 'absent')}\n`, /cannot read passwordFile .*ENOENT/],
      [`${base}sampleSpacingSeconds: 2\n`, /under 30.*--allow-short-spacing/],
    ];
    for (const [text, message] of cases) {
      const file = path.join(dir, 'session-ops.yaml');
      writeFileSync(file, text);
      const r = await run(['--config', file]);
      assert.equal(r.code, 2, text);
      assert.match(r.err, message);
      assert.doesNotMatch(r.err, /hunter2/);
      assert.equal(r.out, '', 'nothing logged: the daemon never started');
      assert.deepEqual(r.signals, [], 'no signal handler installed');
    }
  });
});
