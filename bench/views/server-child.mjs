// Child process of bench/views.mjs: spec-dialect servers (bundled from test/support), as many as
// the largest size uses (argv[3], default 5), each with one directory per size /bench/s<n> (n
// sessions), so that 5 backends carry N = 200 or 1,000 sessions and 20 backends N = 5,000 (/bench/s250).
// Runs in its own process so that neither the extension host nor the plain-Node reference pays
// for the server side of a round.
//
// Session mix per directory (by index mod 10), each with a realistic newest message (~1.5 kB):
//   0-3 generating, progress stepped on every session list (healthy after two samples)
//   4   generating, progress frozen (hung after two samples)
//   5-6 idle, plain text (idle, wake)
//   7   idle, completion report done
//   8   idle, usage-limit failure on a quota-marked provider (quota wall)
//   9   idle, completion report blocked
//
// Attached mode: {attribute: {expected: [pid]}} starts counting every request by the process that
// holds its connection's client side (bench/views/readers.mjs), {report: true} answers with the
// counts ({readers: [{pid, command, requests, paths}]}) and stops counting.
import { startSpecServer } from '../../.bench/views/spec-server.mjs';
import { connectionOwner } from './readers.mjs';

const SIZES = JSON.parse(process.argv[2] ?? '[40,200]'); // sessions per backend; --smoke: [4]
const BACKENDS = Number(process.argv[3] ?? 5);
const now = Date.now();
const servers = [];

function populate(server) {
  server.setProviders(
    [
      { id: 'anthropic', name: 'Anthropic' },
      { id: 'openai', name: 'OpenAI' },
    ],
    ['anthropic', 'openai'],
  );
  server.setQuota('anthropic', { markedAt: now - 20 * 60_000, resetAt: now + 2 * 3600_000 });
  const moving = new Map();
  for (const n of SIZES) {
    const path = `/bench/s${n}`;
    const d = server.directory(path);
    const mine = [];
    for (let i = 0; i < n; i++) {
      const kind = i % 10;
      const generating = kind <= 4;
      const id = d.addSession({
        state: generating ? 'generating' : 'idle',
        progress: generating ? { stepCount: 100 + i, lastStepAt: now - (kind === 4 ? 600_000 : 1_000) } : undefined,
        title: `Session ${i}: port the parser module`,
      });
      if (kind <= 3) mine.push(id);
      const info = {
        providerID: i % 2 ? 'anthropic' : 'openai',
        modelID: 'm',
        time: { created: now - 6000, completed: now - 1000 },
      };
      const tool = {
        type: 'tool',
        tool: 'bash',
        state: {
          status: 'completed',
          input: { command: 'npm test -- parser' },
          output: 'ok '.repeat(120),
          time: { start: now - 5000, end: now - 4000 },
        },
      };
      const body = `Round ${i}: I read src/parser.ts and the failing test. `.repeat(12);
      if (kind === 7)
        d.addMessage(id, {
          text: `${body}\nticket=PROJ-${i} status=done pr=#${i} summary="parser fixed"`,
          parts: [{ type: 'step-start' }, tool],
          info,
        });
      else if (kind === 8)
        d.addMessage(id, {
          error: { text: 'Weekly usage limit reached', reason: 'account_usage_limit', provider: 'anthropic' },
          info: { ...info, providerID: 'anthropic' },
        });
      else if (kind === 9)
        d.addMessage(id, {
          text: `${body}\nticket=PROJ-${i} status=blocked reason=quota-exhausted summary="out of quota"`,
          info,
        });
      else d.addMessage(id, { text: body, parts: [{ type: 'step-start' }, tool], info });
    }
    moving.set(path, mine);
  }
  // Every session list moves the healthy ones (what a working agent does between two samples).
  server.onRequest = (rec) => {
    if (attribution) attribute(server, rec);
    if (rec.method !== 'GET' || rec.path !== '/session') return;
    const ids = moving.get(rec.query.directory);
    if (!ids) return;
    const d = server.directory(rec.query.directory);
    for (const id of ids) d.step(id, 1);
    server.requests.length = 0; // keep the log from growing over a long run
  };
}

/** While the attached mode counts: owner of each connection (by server and client port), requests by reader. */
let attribution = null;
function attribute(server, rec) {
  const key = `${server.port}:${rec.remotePort}`;
  let owner = attribution.owners.get(key);
  if (!owner) {
    owner = connectionOwner(rec.remotePort, server.port, attribution.expected);
    attribution.owners.set(key, owner);
  }
  const readerKey = `${owner.pid}`;
  let reader = attribution.readers.get(readerKey);
  if (!reader) attribution.readers.set(readerKey, (reader = { ...owner, requests: 0, paths: {} }));
  reader.requests++;
  const what = `${rec.method} ${rec.path.replace(/^\/session\/[^/]+\//, '/session/{id}/')}`;
  reader.paths[what] = (reader.paths[what] ?? 0) + 1;
}

for (let i = 0; i < BACKENDS; i++) {
  const server = await startSpecServer();
  populate(server);
  servers.push(server);
}
process.send({ urls: servers.map((s) => s.url), sizes: SIZES });
process.on('message', (m) => {
  if (m?.attribute) {
    attribution = { expected: m.attribute.expected ?? [], owners: new Map(), readers: new Map() };
    process.send({ attributing: true });
  }
  if (m?.report) {
    process.send({ readers: attribution ? [...attribution.readers.values()] : [] });
    attribution = null;
  }
  if (m === 'stop') Promise.all(servers.map((s) => s.stop())).then(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0)); // the bench went away
