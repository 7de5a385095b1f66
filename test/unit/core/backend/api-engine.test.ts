// The `/api` engine's prompt on a loopback fake of its routes (shapes as 1.18.33's `GET /doc` and a
// real run show them): the variant travels in the model switch, the session's model and variant
// are read again before the prompt, and a variant the engine's model listing does not name, or a
// re-read that shows another model or variant, sends nothing.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiEngine } from '../../../../src/core/backend/api-engine';
import { HttpTransport } from '../../../../src/core/backend/http';

interface Fake {
  url: string;
  posts: Array<{ path: string; body: unknown }>;
  /** The session's model as GET /api/session/{id} shows it. */
  model: { id: string; providerID: string; variant?: string } | null;
  /** Set: every model switch is overwritten by this one (another client switching in between). */
  hijack: { id: string; providerID: string; variant?: string } | null;
  /** The session's `/api` messages, oldest first (GET .../message?order=asc pages them, cursor = an index). */
  messages: Array<Record<string, unknown>>;
  /** Every GET of the message list, as its query. */
  pages: string[];
  stop(): Promise<void>;
}

async function fakeApi(): Promise<Fake> {
  const fake: Fake = {
    url: '',
    posts: [],
    model: null,
    hijack: null,
    messages: [],
    pages: [],
    stop: async () => undefined,
  };
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const path = url.pathname;
      const json = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method === 'GET' && path === '/api/model')
        return json(200, {
          data: [
            {
              id: 'm1',
              providerID: 'local',
              enabled: true,
              variants: [
                { id: 'high', headers: {}, body: {} },
                { id: 'low', headers: {}, body: {} },
              ],
            },
          ],
        });
      if (req.method === 'GET' && path === '/api/session/ses_a/message') {
        fake.pages.push(url.search);
        if (url.searchParams.get('order') !== 'asc') return json(400, { _tag: 'InvalidRequestError' });
        const from = Number(url.searchParams.get('cursor') ?? 0);
        const limit = Number(url.searchParams.get('limit'));
        const data = fake.messages.slice(from, from + limit);
        return json(200, { data, cursor: { previous: null, next: String(from + data.length) } });
      }
      if (req.method === 'GET' && path === '/api/session/ses_a')
        return json(200, { data: { id: 'ses_a', agent: 'build', ...(fake.model ? { model: fake.model } : {}) } });
      if (req.method === 'POST') {
        const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : null;
        fake.posts.push({ path, body });
        if (path === '/api/session/ses_a/model') {
          const m = (body as { model: { id: string; providerID: string; variant?: string } }).model;
          fake.model = fake.hijack ?? { ...m, variant: m.variant ?? 'default' };
          return res.writeHead(204).end();
        }
        if (path === '/api/session/ses_a/prompt') return json(200, { data: { id: 'msg_1', sessionID: 'ses_a' } });
        return res.writeHead(204).end();
      }
      json(404, { _tag: 'NotFound' });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  fake.stop = () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r())));
  return fake;
}

describe('/api engine: a prompt on an explicit model and variant', () => {
  let fake: Fake;
  let http_: HttpTransport;
  let engine: ApiEngine;
  beforeEach(async () => {
    fake = await fakeApi();
    http_ = new HttpTransport({ baseUrl: fake.url, timeoutMs: 5_000 });
    engine = new ApiEngine(http_, fake.url);
  });
  afterEach(async () => {
    await http_.close();
    await fake.stop();
  });
  const send = (variant: string | null) =>
    engine.prompt(
      '/w/a',
      'ses_a',
      { agent: 'build', model: { providerID: 'local', modelID: 'm1' }, variant, text: 'go' },
      {},
    );
  const paths = () => fake.posts.map((p) => p.path.replace('/api/session/ses_a/', ''));

  it('the variant travels in the model switch; the re-read shows it; then the prompt', async () => {
    await send('high');
    assert.deepEqual(paths(), ['model', 'prompt']);
    assert.deepEqual(fake.posts[0].body, { model: { id: 'm1', providerID: 'local', variant: 'high' } });
    assert.deepEqual(fake.posts[1].body, { prompt: { text: 'go' }, delivery: 'queue' });
  });

  it('already on the model and variant: no switch; on another variant: switched back to none when none is asked', async () => {
    fake.model = { id: 'm1', providerID: 'local', variant: 'high' };
    await send('high');
    assert.deepEqual(paths(), ['prompt']);
    fake.posts.length = 0;
    await send(null);
    assert.deepEqual(paths(), ['model', 'prompt'], 'a prompt without a variant never runs on the session’s pinned one');
    assert.deepEqual(fake.posts[0].body, { model: { id: 'm1', providerID: 'local' } });
  });

  it("a variant the engine's model listing does not name is refused: nothing is sent", async () => {
    await assert.rejects(send('max'), /names no variant "max" for local\/m1: nothing was sent/);
    assert.deepEqual(fake.posts, []);
  });

  it('another client switching the variant in between is a refusal, not a send on the wrong variant', async () => {
    fake.hijack = { id: 'm1', providerID: 'local', variant: 'low' };
    await assert.rejects(send('high'), /reads local\/m1 variant low after the switch to local\/m1 variant high/);
    assert.deepEqual(paths(), ['model'], 'no prompt');
  });

  it("the first user message (authority rule 1's assignment) is read oldest first, a page at a time, past markers and turns", async () => {
    const at = (i: number) => ({ created: 1_000 + i });
    fake.messages = [
      { id: 'msg_001', type: 'model-switched', time: at(1), model: { id: 'm1', providerID: 'local' } },
      ...Array.from({ length: 25 }, (_, i) => ({
        id: `msg_1${String(i).padStart(2, '0')}`,
        type: 'assistant',
        time: at(2 + i),
        content: [],
      })),
      { id: 'msg_200', type: 'user', time: at(40), text: 'orchestrator ses_orch1 assigns PROJ-9' },
      { id: 'msg_201', type: 'user', time: at(41), text: 'a later one' },
    ];
    const first = await engine.firstUserMessage('/w/a', 'ses_a', {});
    assert.equal(first && (first.info as { id: string }).id, 'msg_200');
    assert.deepEqual(first?.parts, [{ type: 'text', text: 'orchestrator ses_orch1 assigns PROJ-9' }]);
    assert.equal(fake.pages.length, 2, 'two pages of 20');
    assert.match(fake.pages[0], /limit=20&order=asc/);
    fake.messages = fake.messages.slice(0, 3);
    assert.equal(await engine.firstUserMessage('/w/a', 'ses_a', {}), null, 'no user message: null');
  });
});
