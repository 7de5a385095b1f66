// The demo's embedded backends, on loopback:
//   - a spec-dialect server with a session in every state the views show (healthy, idle with
//     unfinished work, hung, quota wall with a reset time, done and blocked reports), kept alive
//     by a ticker that advances the healthy session;
//   - the real opencode server (npm opencode-ai) with a scripted local model, with one session
//     that finished with a completion report and one that keeps working with tool calls.
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startOpencodeWithModel, startSpecServer } from '../test/support/backends.mjs';

const SPEC_DIR = '/demo/ports/payments';

function seedSpec(spec) {
  const now = Date.now();
  spec.setProviders([{ id: 'anthropic', name: 'Anthropic' }, { id: 'openai', name: 'OpenAI' }, { id: 'local', name: 'Local' }], ['anthropic', 'openai', 'local']);
  spec.setQuota('anthropic', { markedAt: now - 25 * 60_000, resetAt: now + 3 * 3600_000 });
  const d = spec.directory(SPEC_DIR);
  const healthy = d.addSession({ title: 'PAY-101 port the invoice API', state: 'generating', progress: { stepCount: 41, lastStepAt: now } });
  d.addMessage(healthy, { role: 'assistant', text: 'Porting the invoice endpoints...', info: { providerID: 'openai', modelID: 'gpt-5' } });
  const hung = d.addSession({ title: 'PAY-102 data model', state: 'generating', progress: { stepCount: 17, lastStepAt: now - 12 * 60_000 } });
  d.addMessage(hung, { role: 'assistant', text: 'Compacting...', info: { providerID: 'openai', modelID: 'gpt-5' } });
  const idle = d.addSession({ title: 'PAY-103 error codes', state: 'idle' });
  d.addMessage(idle, { role: 'assistant', text: 'I mapped half of the error codes; next I will do the rest.' });
  const wall = d.addSession({ title: 'PAY-104 fidelity baseline', state: 'idle' });
  d.addMessage(wall, { role: 'assistant', finish: 'error', error: { text: 'Weekly usage limit reached. Resets in about 3 hours.', reason: 'account_usage_limit', provider: 'anthropic' } });
  const done = d.addSession({ title: 'PAY-105 business rules', state: 'idle' });
  d.addMessage(done, { role: 'assistant', text: 'ticket=PAY-105 label=Kind/Port status=done pr=#88 summary="RULE-01..RULE-14 ported, all green"' });
  const blocked = d.addSession({ title: 'PAY-106 public API', state: 'idle' });
  d.addMessage(blocked, { role: 'assistant', text: 'ticket=PAY-106 status=blocked reason=quota-exhausted summary="usage limit on the second provider"' });
  const ticker = setInterval(() => d.step(healthy, 1), 5_000);
  ticker.unref();
  return () => clearInterval(ticker);
}

export async function startDemoBackends() {
  const spec = await startSpecServer();
  const stopTicker = seedSpec(spec);
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-demo-'));
  let oc;
  try {
    oc = await startOpencodeWithModel();
    oc.model.when('[report]', { kind: 'reply', text: 'All checks pass.\nticket=DEMO-1 status=done pr=#1 summary="README example verified"', chunks: 4 });
    oc.model.when('[busy]', { kind: 'tool-loop', command: 'sleep 1', rounds: 100000 });
    for (const [title, text] of [['DEMO-1 verify the README', 'verify [report]'], ['DEMO-2 long refactor', 'refactor [busy]']]) {
      const res = await fetch(`${oc.baseUrl}session?directory=${encodeURIComponent(workDir)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ title }) });
      const { id } = await res.json();
      await fetch(`${oc.baseUrl}session/${id}/prompt_async?directory=${encodeURIComponent(workDir)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ agent: 'build', model: { providerID: 'local', modelID: 'm1' }, parts: [{ type: 'text', text }] }),
      });
    }
  } catch (err) {
    console.error(`(the opencode backend could not start: ${err.message}; the demo goes on with the spec-dialect backend)`);
  }
  const settings = [{ name: 'spec-dialect backend', baseUrl: spec.url.replace(/\/$/, ''), directories: [SPEC_DIR] }];
  if (oc) settings.push({ name: 'opencode (scripted model)', baseUrl: oc.baseUrl.replace(/\/$/, ''), directories: [workDir] });
  return {
    settings,
    env: {},
    describe: settings.map((s) => `${s.name} ${s.baseUrl}`).join(', '),
    stop: async () => {
      stopTicker();
      await oc?.stop().catch(() => {});
      await spec.stop();
    },
  };
}
