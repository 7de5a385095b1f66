// Child process of bench/watch.mjs (the `api` side): N clients of the daemon's event stream
// (GET /api/events with a read token), each reading as a page does. For every event id it notes
// when each client received it (Date.now(): same machine as the daemon); on "report" it sends the
// per-id latest receipt time and how many clients saw each id, over IPC.
import http from 'node:http';

const [url, token, countArg] = process.argv.slice(2);
const count = Number(countArg);
/** Per event id: [clients that received it, the latest receipt time]. */
const seen = new Map();
let connected = 0;
const agents = new http.Agent({ keepAlive: true, maxSockets: count + 5 });

for (let i = 0; i < count; i++) {
  const req = http.get(`${url}/api/events`, { agent: agents, headers: { authorization: `Bearer ${token}` } }, (res) => {
    if (res.statusCode !== 200) throw new Error(`events: ${res.statusCode}`);
    connected++;
    if (connected === count) process.send({ connected });
    let buf = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      const at = Date.now();
      buf += chunk;
      let end;
      while ((end = buf.indexOf('\n\n')) >= 0) {
        const block = buf.slice(0, end);
        buf = buf.slice(end + 2);
        const m = /^id: (\d+)$/m.exec(block);
        if (!m) continue;
        const s = seen.get(m[1]) ?? [0, 0];
        s[0]++;
        s[1] = Math.max(s[1], at);
        seen.set(m[1], s);
      }
    });
  });
  req.on('error', (e) => {
    throw e;
  });
}

process.on('message', (m) => {
  if (m === 'report') process.send({ seen: [...seen.entries()] });
  if (m === 'stop') process.exit(0);
});
