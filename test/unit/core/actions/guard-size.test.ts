// The prompt size cap (prompt.maxKiB) in the send guard below every caller: a prompt above it is
// refused before anything is sent, whichever host sends it (here the Operator, the editor's and
// the daemon's path, with the setting changed).
import assert from 'node:assert/strict';
import { guardPrompt } from '../../../../src/core/actions/guard';
import { BackendClient } from '../../../../src/core/backend/client';
import { rowKey } from '../../../../src/core/keys';
import type { ProviderListing } from '../../../../src/core/model';
import { Operator } from '../../../../src/core/operations/operator';
import { operatorDefaults } from '../../../../src/core/settings/operator-settings';
import { rowsMonitor } from '../../../support/session-rows';
import { startSpecServer, type SpecServer } from '../../../support/spec-server';

const listing: ProviderListing = {
  providers: [{ id: 'openai', name: null, connected: true, quota: null, models: ['gpt-5'] }],
  connected: ['openai'],
};
const base = {
  directory: '/w',
  sessionId: 'ses_1',
  agent: 'build',
  model: { providerID: 'openai', modelID: 'gpt-5' },
  listing,
  wallProvider: null,
};
const KiB = 1024;

describe('send guard: the prompt size cap', () => {
  it('passes a prompt at the default cap of 256 KiB and refuses one byte more, keeping the prompt', () => {
    assert.ok(guardPrompt({ ...base, text: 'x'.repeat(256 * KiB) }).ok);
    const text = 'x'.repeat(256 * KiB + 1);
    const r = guardPrompt({ ...base, text });
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.refusal.code, 'prompt-too-large');
    assert.match(r.refusal.reason, /262145 bytes\), above the cap of 256\.0 KiB \(setting prompt\.maxKiB\)/);
    assert.equal(r.refusal.prompt, text);
  });

  it('counts UTF-8 bytes, not characters, against the cap the caller passes', () => {
    const text = 'é'.repeat(600); // 1200 bytes
    assert.ok(guardPrompt({ ...base, text, maxPromptBytes: 1200 }).ok);
    const r = guardPrompt({ ...base, text, maxPromptBytes: 1199 });
    assert.ok(!r.ok && r.refusal.code === 'prompt-too-large');
  });

  it('a 20 MB prompt is refused before any provider check', () => {
    const r = guardPrompt({ ...base, model: { providerID: 'gone', modelID: 'x' }, text: 'y'.repeat(20_000_000) });
    assert.ok(!r.ok && r.refusal.code === 'prompt-too-large', r.ok ? '' : r.refusal.code);
    assert.match(r.ok ? '' : r.refusal.reason, /the prompt is 19\.1 MiB/);
  });
});

describe('send guard: the cap follows the host setting through the Operator', function () {
  let server: SpecServer;
  let client: BackendClient;

  beforeEach(async () => {
    server = await startSpecServer();
    server.answerPrompts = { delayMs: 50, text: 'Resumed.' };
    server.setProviders([{ id: 'openai', models: ['gpt-5'] }], ['openai']);
    client = new BackendClient({ baseUrl: server.url });
  });
  afterEach(async () => {
    await client.close();
    await server.stop();
  });

  const wakeWith = async (maxKiB: number, prompt: string) => {
    const operator = new Operator({
      monitor: rowsMonitor(() => client).monitor,
      settings: { ...operatorDefaults(), 'prompt.maxKiB': maxKiB },
      log: () => undefined,
      inventory: () => [],
      waits: { abortMs: 3000, confirmMs: 3000 },
    });
    try {
      const id = server.directory('/w').addSession({ state: 'idle' });
      const target = { key: rowKey('cli', '/w', id), backendKey: 'cli', directory: '/w', id, title: null };
      return await operator.wake({
        target,
        request: { prompt, model: { providerID: 'openai', modelID: 'gpt-5' }, confirm: { withinMs: 3000 } },
        promptOrigin: 'custom',
      });
    } finally {
      operator.dispose();
    }
  };

  it('prompt.maxKiB 1: a 2 KiB wake is refused and nothing is posted; 4 lets it through', async () => {
    const prompt = 'Continue with the next step. '.padEnd(2 * KiB, '.');
    const refused = await wakeWith(1, prompt);
    assert.equal(refused.result?.outcome, 'refused', refused.outcome.message);
    assert.match(refused.outcome.message, /above the cap of 1\.0 KiB/);
    assert.equal(server.prompts.length, 0, 'nothing sent');
    const sent = await wakeWith(4, prompt);
    assert.equal(sent.result?.outcome, 'confirmed', sent.outcome.message);
    assert.equal(server.prompts.length, 1);
  });
});
