// The backend client's provider listings on stock opencode: the connected providers alone once the
// dialect is known, the whole catalogue before, and where the route is missing.
import assert from 'node:assert/strict';
import { BackendClient } from '../../../../src/core/backend/client';
import { fakeOpencode } from '../../../support/fake-opencode';

const DIR = '/work/project';

describe('backend client: provider listings of stock opencode (fake with the observed shapes)', () => {
  it('providers: the connected ones from GET /config/providers once the dialect is known (not the 6.4 MB catalogue); GET /provider before, and where the route is missing', async () => {
    const messages = {
      ses_i: [
        {
          info: { id: 'msg_1', role: 'assistant', providerID: 'local', time: { created: 10, completed: 20 } },
          parts: [],
        },
      ],
    };
    const fake = await fakeOpencode({ status: {}, messages });
    const count = (path: string) => fake.seen.filter((r) => r.startsWith(`GET ${path}?`)).length;
    const shown = (l: Awaited<ReturnType<BackendClient['listProviders']>>) =>
      l.providers
        .filter((p) => p.connected)
        .map((p) => ({ id: p.id, models: p.models, defaultModel: p.defaultModel, variants: p.variants ?? null }))
        .sort((a, b) => a.id.localeCompare(b.id));
    try {
      // Nothing tells the dialect yet: the whole listing (whose `default` map tells it).
      const first = new BackendClient({ baseUrl: fake.url });
      const whole = await first.listProviders(DIR);
      assert.deepEqual([count('/provider'), count('/config/providers')], [1, 0]);
      assert.deepEqual(whole.connected.sort(), ['local', 'opencode']);
      // Known to be stock opencode: the connected providers alone, the same records.
      const connected = await first.listProviders(DIR);
      assert.deepEqual([count('/provider'), count('/config/providers')], [1, 1]);
      assert.deepEqual(shown(connected), shown(whole));
      assert.deepEqual(connected.connected.sort(), ['local', 'opencode']);
      assert.equal(
        connected.providers.find((p) => p.id === 'anthropic'),
        undefined,
        'no catalogue',
      );
      assert.ok(!JSON.stringify(connected).includes('SECRET'), 'options never read');
      await first.close();

      // A round and a provider read started together (the monitor, an action): the listing waits for
      // the round's session list, which tells the dialect.
      const second = new BackendClient({ baseUrl: fake.url });
      const [, listing] = await Promise.all([second.sampleRound(DIR), second.listProviders(DIR)]);
      assert.deepEqual([count('/provider'), count('/config/providers')], [1, 2]);
      assert.deepEqual(shown(listing), shown(whole));
      await second.close();
    } finally {
      await fake.stop();
    }

    // A server without the route (404): GET /provider, and the route is not asked again.
    const older = await fakeOpencode({ status: {}, messages, configProviders: false });
    try {
      const c = new BackendClient({ baseUrl: older.url });
      await c.sampleRound(DIR);
      await c.listProviders(DIR);
      await c.listProviders(DIR);
      const n = (path: string) => older.seen.filter((r) => r.startsWith(`GET ${path}?`)).length;
      assert.deepEqual([n('/config/providers'), n('/provider')], [1, 2]);
      await c.close();
    } finally {
      await older.stop();
    }
  });
});
