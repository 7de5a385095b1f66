// The daemon's API against a real daemon (the bundled CLI, `watch` over HTTPS with a certificate made
// by openssl now) over real opencode (the scripted model, a bash permission set to ask): the fleet
// shows the waiting permission; no token is 401; a read token's POST is 403 and reaches nothing; a
// wrong token five times is slowed (429 with Retry-After); answering the permission through the API
// with an act token lets the session go on (seen on the backend), arrives on the event stream as an
// `outcome` (a reconnect with Last-Event-ID replays what came after it) and is in the audit trail
// with the token's name; rejecting a question through the API
// (stock opencode's reject route) lets that session go on.
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { BackendClient } from '../../src/core/backend/client';
import { hashToken } from '../../src/core/watch/auth/tokens';
import { launchSession, startOpencode, type OpencodeServer } from '../support/opencode';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';
import { bundleCli } from './cli-bundle';
import { waitFor } from './helpers';

const ACT = 'sot_backend-daemon-api-act-token-aaaaaaaaaaaaaaa';
const READ = 'sot_backend-daemon-api-read-token-bbbbbbbbbbbbbb';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

describe('watch: the API over real opencode (HTTPS, tokens, acts, audit, events)', function () {
  let model: ScriptedModel;
  let oc: OpencodeServer;
  let tmp: string;
  let child: ChildProcess;
  let out = '';
  let port: number;
  let ca: Buffer;
  let dir: string;
  let sessionId: string;

  function call(method: string, p: string, token?: string, body?: unknown): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const data = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: p,
          method,
          ca,
          headers: {
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(data ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } : {}),
          },
        },
        (res) => {
          let text = '';
          res.on('data', (c: Buffer) => (text += c.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        },
      );
      req.on('error', reject);
      req.end(data);
    });
  }

  before(async function () {
    this.timeout(120_000);
    tmp = mkdtempSync(path.join(os.tmpdir(), 'session-ops-daemon-api-'));
    dir = path.join(tmp, 'work');
    mkdirSync(dir);
    model = await startScriptedModel();
    oc = await startOpencode({ modelUrl: model.url, configure: (c) => ({ ...c, permission: { bash: 'ask' } }) });
    model.when('[perm]', {
      kind: 'tool-calls',
      calls: [{ tool: 'bash', args: { command: 'ls -la', description: 'list the files' } }],
      then: 'listed the files',
    });
    model.when('[ask]', {
      kind: 'tool-calls',
      calls: [
        {
          tool: 'question',
          args: {
            questions: [
              {
                question: 'Which colour?',
                header: 'Colour',
                options: [
                  { label: 'Red', description: 'warm' },
                  { label: 'Blue', description: 'cool' },
                ],
              },
            ],
          },
        },
      ],
      then: 'went on without an answer',
    });
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1']
        .concat(['-addext', 'subjectAltName=IP:127.0.0.1'])
        .concat(['-keyout', path.join(tmp, 'key.pem'), '-out', path.join(tmp, 'cert.pem')]),
      { stdio: 'ignore' },
    );
    ca = readFileSync(path.join(tmp, 'cert.pem'));
    writeFileSync(
      path.join(tmp, 'tokens.json'),
      JSON.stringify({
        version: 1,
        tokens: [
          { name: 'alice', scope: 'act', sha256: hashToken(ACT) },
          { name: 'viewer', scope: 'read', sha256: hashToken(READ) },
        ],
      }),
    );
    const config = path.join(tmp, 'session-ops.yaml');
    writeFileSync(
      config,
      [
        'backends:',
        `  - { name: oc, baseUrl: "${oc.baseUrl}", directories: ["${dir}"] }`,
        'sampleSpacingSeconds: 2',
        'auth: { tokensFile: tokens.json }',
        'tls: { certFile: cert.pem, keyFile: key.pem }',
        '',
      ].join('\n'),
    );
    const cli = path.join(tmp, 'cli.js');
    await bundleCli(cli);
    sessionId = await launchSession(oc, dir, undefined, 'list the files [perm]');
    child = spawn(
      process.execPath,
      [cli, 'watch', '--config', config, '--listen', '127.0.0.1:0', '--allow-short-spacing'],
      {
        env: { PATH: process.env.PATH ?? '', HOME: tmp, SESSION_OPS_STATE_DIR: path.join(tmp, 'state') },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child.stdout!.on('data', (c) => (out += c));
    child.stderr!.on('data', (c) => (out += c));
    const apiUrl = await waitFor(
      'watch to listen',
      () => /"apiUrl":"([^"]+)"/.exec(out)?.[1] ?? (child.exitCode !== null ? Promise.reject(new Error(out)) : null),
      20_000,
    );
    assert.match(apiUrl, /^https:\/\//);
    port = Number(new URL(apiUrl).port);
  });

  after(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await oc?.stop();
    await model?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('the fleet shows the waiting permission (HTTPS, read token); no token is 401', async () => {
    const none = await call('GET', '/api/fleet');
    assert.equal(none.status, 401);
    assert.match(String(none.headers['www-authenticate']), /^Bearer/);
    const session = await waitFor(
      'the waiting session in the fleet',
      async () => {
        const fleet = JSON.parse((await call('GET', '/api/fleet', READ)).body) as {
          backends: Array<{
            key: string;
            directories: Array<{
              sessions: Array<{ id: string; verdict: string; waiting: { requestID: string } | null }>;
            }>;
          }>;
        };
        const s = fleet.backends[0]?.directories[0]?.sessions.find((x) => x.id === sessionId);
        return s?.waiting && s.verdict === 'waiting' ? { ...s, backend: fleet.backends[0].key } : undefined;
      },
      60_000,
      250,
    );
    assert.match(session.waiting!.requestID, /^per/);
    const who = JSON.parse((await call('GET', '/api/whoami', READ)).body) as unknown;
    assert.deepEqual(who, { name: 'viewer', scope: 'read' });
    assert.equal((await call('GET', '/api/sessions/ses_not_watched', READ)).status, 404);
  });

  it("a read token's POST is 403; a wrong token five times is slowed (429, Retry-After)", async () => {
    const fleet = JSON.parse((await call('GET', '/api/fleet', READ)).body) as {
      backends: Array<{ directories: Array<{ sessions: Array<{ id: string; waiting: { requestID: string } }> }> }>;
    };
    const requestID = fleet.backends[0].directories[0].sessions.find((s) => s.id === sessionId)!.waiting.requestID;
    const forbidden = await call('POST', `/api/sessions/${sessionId}/permissions/${requestID}`, READ, {
      reply: 'once',
    });
    assert.equal(forbidden.status, 403);
    assert.equal((JSON.parse(forbidden.body) as { error: { code: string } }).error.code, 'forbidden');
    const client = new BackendClient({ baseUrl: oc.baseUrl });
    assert.equal(
      (await client.listPermissions(dir)).requests.length,
      1,
      'still pending: the forged POST reached nothing',
    );
    for (let i = 0; i < 5; i++) assert.equal((await call('GET', '/api/fleet', 'sot_wrong')).status, 401);
    const slowed = await call('GET', '/api/fleet', ACT);
    assert.equal(slowed.status, 429);
    assert.ok(Number(slowed.headers['retry-after']) >= 1);
    assert.ok(!out.includes('sot_wrong'), 'the wrong token is never logged');
    assert.match(out, /"event":"auth-failed"/);
    await new Promise((r) => setTimeout(r, Number(slowed.headers['retry-after']) * 1000 + 100));
  });

  it('answering the permission through the API lets the session go on; the outcome is streamed and audited', async function () {
    this.timeout(90_000);
    const fleet = JSON.parse((await call('GET', '/api/fleet', READ)).body) as {
      backends: Array<{
        key: string;
        directories: Array<{ sessions: Array<{ id: string; waiting: { requestID: string } }> }>;
      }>;
    };
    const key = fleet.backends[0].key;
    const requestID = fleet.backends[0].directories[0].sessions.find((s) => s.id === sessionId)!.waiting.requestID;
    // The event stream, read as a person's page reads it (the Bearer header, a stream reader).
    let stream = '';
    const events = request(
      { host: '127.0.0.1', port, path: '/api/events', ca, headers: { authorization: `Bearer ${READ}` } },
      (res) => {
        assert.equal(res.headers['content-type'], 'text/event-stream; charset=utf-8');
        res.on('data', (c: Buffer) => (stream += c.toString()));
      },
    );
    events.end();
    await waitFor('the stream to open', () => stream.includes(': connected'), 10_000);
    const answered = await call('POST', `/api/sessions/${sessionId}/permissions/${requestID}`, ACT, {
      reply: 'once',
      backend: key,
    });
    assert.equal(answered.status, 200, answered.body);
    const body = JSON.parse(answered.body) as { session: string; sent: unknown; outcome: { outcome: string } };
    assert.equal(body.session, sessionId);
    assert.equal(body.outcome.outcome, 'answered');
    assert.equal(body.sent, true);
    const client = new BackendClient({ baseUrl: oc.baseUrl });
    await waitFor(
      'the session to go on after Allow Once (on the backend)',
      async () => {
        return ((await client.newestMessage(dir, sessionId))?.text ?? '').includes('listed the files');
      },
      30_000,
      200,
    );
    assert.equal((await client.listPermissions(dir)).requests.length, 0);
    await waitFor(
      'the outcome on the event stream',
      () => /event: outcome\ndata: .*"name":"alice"/.test(stream),
      10_000,
    );
    // A reconnect with Last-Event-ID replays the events after it, in order (no reset): every event the
    // live stream got after the first one (the outcome may be its only event so far: the rows the
    // act's new sample brings come after it, on both).
    const ids = (text: string) => [...text.matchAll(/^id: (\d+)$/gm)].map((m) => m[1]);
    const first = ids(stream)[0];
    let replayed = '';
    const again = request(
      {
        host: '127.0.0.1',
        port,
        path: '/api/events',
        ca,
        headers: { authorization: `Bearer ${READ}`, 'last-event-id': first },
      },
      (res) => res.on('data', (c: Buffer) => (replayed += c.toString())),
    );
    again.end();
    const after = () => ids(stream).slice(1);
    await waitFor(
      'the replay',
      () => after().length > 0 && after().every((id) => ids(replayed).includes(id)),
      30_000,
    ).catch((e: Error) => {
      // What came instead (a reset says why), for the failure's message.
      throw new Error(
        `${e.message}: asked from ${first} (live stream: ${ids(stream).join(', ')}), got ${JSON.stringify(replayed.slice(0, 1500))}`,
      );
    });
    const live = after();
    assert.deepEqual(ids(replayed).slice(0, live.length), live);
    assert.ok(!replayed.includes('event: reset'), replayed.slice(0, 500));
    again.destroy();
    events.destroy();
    const audit = JSON.parse((await call('GET', `/api/audit?session=${sessionId}`, READ)).body) as {
      entries: Array<{ who: { kind: string; name: string }; action: string; outcome: { code: string; sent: unknown } }>;
    };
    assert.deepEqual(
      audit.entries.map((e) => [e.who.kind, e.who.name, e.action, e.outcome.code]),
      [['token', 'alice', 'permission', 'answered']],
    );
    const lines = readFileSync(path.join(tmp, 'state', 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n');
    assert.equal(lines.length, 1);
  });

  it('rejecting a question through the API lets the session go on (stock opencode POST /question/{id}/reject)', async function () {
    this.timeout(90_000);
    const asking = await launchSession(oc, dir, undefined, 'pick a colour [ask]');
    const requestID = await waitFor(
      'the waiting question in the fleet',
      async () => {
        const fleet = JSON.parse((await call('GET', '/api/fleet', READ)).body) as {
          backends: Array<{
            directories: Array<{
              sessions: Array<{ id: string; waiting: { kind: string; requestID: string } | null }>;
            }>;
          }>;
        };
        const w = fleet.backends[0]?.directories[0]?.sessions.find((x) => x.id === asking)?.waiting;
        return w?.kind === 'question' ? w.requestID : undefined;
      },
      60_000,
      250,
    );
    // Just after the question comes, the session's messages may still move: a new sample starts its
    // verdict over (pending, no request offered: 404 unknown-request, nothing sent) until two
    // samples agree again, so the reject is repeated while it is 404.
    const rejected = await waitFor(
      'the reject to be taken',
      async () => {
        const r = await call('POST', `/api/sessions/${asking}/questions/${requestID}`, ACT, { reject: true });
        return r.status === 404 && r.body.includes('unknown-request') ? undefined : r;
      },
      30_000,
      500,
    );
    assert.equal(rejected.status, 200, rejected.body);
    assert.equal((JSON.parse(rejected.body) as { outcome: { outcome: string } }).outcome.outcome, 'answered');
    const client = new BackendClient({ baseUrl: oc.baseUrl });
    await waitFor(
      'the question to go (on the backend)',
      async () => (await client.listQuestions(dir)).requests.length === 0,
    );
    await waitFor(
      'the session to turn idle',
      async () => (await client.listSessions(dir)).sessions.find((s) => s.id === asking)?.state === 'idle',
      30_000,
      200,
    );
    const audit = JSON.parse((await call('GET', `/api/audit?session=${asking}`, READ)).body) as {
      entries: Array<{ action: string; outcome: { code: string } }>;
    };
    assert.deepEqual(
      audit.entries.map((e) => [e.action, e.outcome.code]),
      [['question', 'answered']],
    );
  });
});
