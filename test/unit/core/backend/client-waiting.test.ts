// The stock-opencode client methods for pending permissions and questions, todos and children,
// against a small fake server: exact paths, query and bodies; ids checked before a path; a 404
// list means none; a bad shape is a typed `malformed` error; pending requests land on the samples.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BackendClient } from '../../../../src/core/backend/client';
import { BackendError } from '../../../../src/core/backend/errors';

interface Seen {
  method: string;
  path: string;
  directory: string | null;
  body: string;
}

describe('backend client: permissions, questions, todos, children (stock opencode)', () => {
  let server: http.Server;
  let client: BackendClient;
  const seen: Seen[] = [];
  let routes: Record<string, () => [number, unknown]> = {};

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://x');
        seen.push({
          method: req.method ?? '',
          path: url.pathname,
          directory: url.searchParams.get('directory'),
          body: Buffer.concat(chunks).toString('utf8'),
        });
        const route = routes[`${req.method} ${url.pathname}`];
        const [status, body] = route ? route() : [404, { error: 'not found' }];
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    client = new BackendClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
      timeoutMs: 2_000,
    });
  });
  after(async () => {
    await client.close();
    await new Promise<void>((r) => server.close(() => r()));
  });
  beforeEach(() => {
    seen.length = 0;
    routes = {};
  });

  it('replies: POST /permission/{id}/reply and /question/{id}/reply|reject with the exact bodies', async () => {
    routes = {
      'POST /permission/per_1/reply': () => [200, true],
      'POST /question/que_1/reply': () => [200, true],
      'POST /question/que_1/reject': () => [200, true],
    };
    await client.replyPermission('/w', 'per_1', 'once');
    await client.replyPermission('/w', 'per_1', 'reject', 'not this one');
    await client.replyQuestion('/w', 'que_1', [['Red'], ['a', 'b']]);
    await client.rejectQuestion('/w', 'que_1');
    assert.deepEqual(
      seen.map((s) => [s.method, s.path, s.directory, s.body]),
      [
        ['POST', '/permission/per_1/reply', '/w', '{"reply":"once"}'],
        ['POST', '/permission/per_1/reply', '/w', '{"reply":"reject","message":"not this one"}'],
        ['POST', '/question/que_1/reply', '/w', '{"answers":[["Red"],["a","b"]]}'],
        ['POST', '/question/que_1/reject', '/w', ''],
      ],
    );
  });

  it('bad input is refused before any request: unsafe ids, unknown replies, empty answers', async () => {
    await assert.rejects(
      client.replyPermission('/w', '../x', 'once'),
      (e: unknown) => e instanceof BackendError && e.code === 'invalid-request' && /request id/.test(e.message),
    );
    await assert.rejects(
      client.replyPermission('/w', 'per_1', 'never' as never),
      /reply must be once, always or reject/,
    );
    await assert.rejects(client.replyQuestion('/w', 'que_1', []), /non-empty array/);
    await assert.rejects(client.rejectQuestion('', 'que_1'), /directory must be a non-empty string/);
    await assert.rejects(client.todos('/w', 'a/b'), /session id is not a safe path segment/);
    assert.equal(seen.length, 0);
  });

  it('a 404 list means none; a bad shape is a malformed error; a refused reply is a typed error', async () => {
    assert.deepEqual(await client.pendingRequests('/w'), { permissions: [], questions: [], warnings: [] });
    routes = {
      'GET /permission': () => [200, { not: 'a list' }],
      'POST /permission/per_9/reply': () => [404, { _tag: 'PermissionNotFoundError' }],
    };
    await assert.rejects(
      client.listPermissions('/w'),
      (e: unknown) =>
        e instanceof BackendError && e.code === 'malformed' && /permission list is not an array/.test(e.message),
    );
    await assert.rejects(
      client.replyPermission('/w', 'per_9', 'once'),
      (e: unknown) => e instanceof BackendError && e.code === 'not-found',
    );
  });

  it('todos and children', async () => {
    routes = {
      'GET /session/ses_1/todo': () => [
        200,
        [
          { content: 'a', status: 'completed', priority: 'high' },
          { content: 'b', status: 'in_progress', priority: 'low' },
        ],
      ],
      'GET /session/ses_1/children': () => [200, [{ id: 'ses_2', parentID: 'ses_1', title: 'child' }]],
    };
    assert.deepEqual(await client.todos('/w', 'ses_1'), { done: 1, total: 2, inProgress: 'b' });
    assert.deepEqual(await client.children('/w', 'ses_1'), ['ses_2']);
  });

  it('a sample round on stock opencode reads the pending lists once and attaches them to their sessions', async () => {
    routes = {
      'GET /session': () => [
        200,
        [
          { id: 'ses_1', title: 'a' },
          { id: 'ses_2', title: 'b', parentID: 'ses_1' },
        ],
      ],
      'GET /session/status': () => [200, { ses_1: { type: 'busy' }, ses_2: { type: 'busy' } }],
      'GET /session/ses_1/message': () => [
        200,
        [
          {
            info: { id: 'msg_1', role: 'assistant', time: { created: 1 } },
            parts: [{ type: 'tool', tool: 'bash', state: { status: 'running', time: { start: 1 } } }],
          },
        ],
      ],
      'GET /session/ses_2/message': () => [200, []],
      'GET /permission': () => [
        200,
        [{ id: 'per_1', sessionID: 'ses_1', permission: 'bash', patterns: ['ls'], metadata: {}, always: ['ls *'] }],
      ],
      'GET /question': () => [200, []],
    };
    const round = await client.sampleRound('/w');
    const [a, b] = round.samples;
    assert.equal(a.waiting?.requestID, 'per_1');
    assert.equal(b.waiting, null);
    assert.equal(b.session.parentId, 'ses_1');
    assert.equal(seen.filter((s) => s.path === '/permission').length, 1);
    assert.equal(seen.filter((s) => s.path === '/question').length, 1);
    if (a.newest?.runningTool) assert.equal(a.newest.runningTool.waitingFor, 'permission');
  });

  it('an empty directory learns the dialect from GET /session/status', async () => {
    routes = { 'GET /session': () => [200, []], 'GET /session/status': () => [200, {}] };
    const fresh = new BackendClient({ baseUrl: client.baseUrl, timeoutMs: 2_000 });
    try {
      const list = await fresh.listSessions('/w');
      assert.equal(list.dialect, 'opencode');
      assert.equal(fresh.capabilities?.questions, true);
    } finally {
      await fresh.close();
    }
  });
});
