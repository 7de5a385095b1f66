// Child process of bench/poll.mjs: the spec-dialect server (bundled from test/support) with N
// sessions per directory /bench/N, each with progress and a realistic newest message (~1.5 kB).
// Runs in its own process so that the client's CPU is measured alone.
import { startSpecServer } from '../../.bench/spec-server.mjs';

const sizes = JSON.parse(process.argv[2] ?? '[10,100,1000]');
const server = await startSpecServer();
server.setProviders([{ id: 'anthropic' }, { id: 'openai' }], ['anthropic', 'openai']);
const now = Date.now();
for (const n of sizes) {
  const d = server.directory(`/bench/${n}`);
  for (let i = 0; i < n; i++) {
    const id = d.addSession({
      state: i % 3 === 0 ? 'idle' : 'generating',
      progress: { stepCount: 100 + i, lastStepAt: now - i * 1000 },
      title: `Session ${i}: port the parser module`,
    });
    d.addMessage(id, {
      text: `Round ${i}: I read src/parser.ts and the failing test. `.repeat(12),
      parts: [
        { type: 'step-start' },
        {
          type: 'tool',
          tool: 'bash',
          state: {
            status: 'completed',
            input: { command: 'npm test -- parser' },
            output: 'ok '.repeat(120),
            time: { start: now - 5000, end: now - 4000 },
          },
        },
      ],
      info: {
        providerID: i % 2 ? 'anthropic' : 'openai',
        modelID: 'm',
        time: { created: now - 6000, completed: now - 1000 },
      },
    });
  }
}
process.send({ url: server.url });
process.on('message', (m) => {
  if (m === 'count') process.send({ count: server.requests.length });
  if (m === 'stop') server.stop().then(() => process.exit(0));
});
process.on('disconnect', () => process.exit(0)); // the bench went away
