// Child process of bench/watch/child.mjs (the `api` side): times GET /api/status from a process of
// its own (neither the daemon's, whose loop runs the rounds, nor the event-stream clients', whose loop
// parses 50 streams): `count` requests one after the other, each to its last byte; prints
// {"times": [ms, ...], "bytes": N} on stdout.
const [url, token, countArg] = process.argv.slice(2);
const times = [];
let bytes = 0;
for (let i = 0; i < Number(countArg); i++) {
  const s = performance.now();
  const res = await fetch(`${url}/api/status`, { headers: { authorization: `Bearer ${token}` } });
  bytes = (await res.arrayBuffer()).byteLength;
  times.push(performance.now() - s);
}
process.stdout.write(`${JSON.stringify({ times, bytes })}\n`);
