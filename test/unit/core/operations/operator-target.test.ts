// The operator's actions on a session named by id (the CLI's one-shot actions): the same session
// lock as a click (busy while another action runs), the core action's result beside the outcome,
// and a one-shot host's wait-for-reset that arms no retry.
import assert from 'node:assert/strict';
import { BackendClient } from '../../../../src/core/backend/client';
import { rowKey } from '../../../../src/core/keys';
import { Operator, type ActionTarget } from '../../../../src/core/operations/operator';
import { operatorDefaults } from '../../../../src/core/settings/operator-settings';
import { rowsMonitor } from '../../../support/session-rows';
import { startSpecServer, type SpecServer } from '../../../support/spec-server';

const DIR = '/work/project';
const HOUR = 3_600_000;

describe('core/operations/operator: actions on a target named by id', function () {
  let server: SpecServer;
  let client: BackendClient;
  let log: string[];

  const operatorWith = (armRetries?: boolean) =>
    new Operator({
      monitor: rowsMonitor(() => client).monitor,
      settings: operatorDefaults(),
      log: (level, message) => log.push(`${level} ${message}`),
      inventory: () => [],
      waits: { abortMs: 3000, confirmMs: 3000 },
      armRetries,
    });
  const target = (id: string): ActionTarget => ({
    key: rowKey('cli', DIR, id),
    backendKey: 'cli',
    directory: DIR,
    id,
    title: null,
  });

  beforeEach(async () => {
    server = await startSpecServer();
    server.answerPrompts = { delayMs: 50, text: 'Resumed.' };
    server.setProviders(
      [
        { id: 'anthropic', models: ['sonnet'] },
        { id: 'openai', models: ['gpt-5'] },
      ],
      ['anthropic', 'openai'],
    );
    client = new BackendClient({ baseUrl: server.url });
    log = [];
  });
  afterEach(async () => {
    await client.close();
    await server.stop();
  });

  it('wakeTarget: the result beside the outcome; a second action on the session meanwhile is busy and sends nothing', async () => {
    const operator = operatorWith();
    try {
      const id = server.directory(DIR).addSession({ state: 'idle' });
      const request = {
        prompt: 'Continue with the next step.',
        model: { providerID: 'openai', modelID: 'gpt-5' },
        confirm: { withinMs: 3000 },
      };
      const first = operator.wake({ target: target(id), request, promptOrigin: 'custom' });
      const second = await operator.wake({ target: target(id), request, promptOrigin: 'custom' });
      assert.equal(second.outcome.outcome, 'busy');
      assert.equal(second.result, null);
      const done = await first;
      assert.equal(done.result?.outcome, 'confirmed', done.outcome.message);
      assert.equal(done.outcome.outcome, 'confirmed');
      assert.equal(done.outcome.label, id, 'a target without a title is labelled by its id');
      assert.equal(server.prompts.length, 1, 'one prompt for two orders');
      assert.deepEqual(
        log.map((l) => l.split(':')[0]),
        [`info wake ${id}`, `info wake ${id}`],
      );
    } finally {
      operator.dispose();
    }
  });

  it('recoverTarget with armRetries false: wait-for-reset is returned with its time, no retry armed', async () => {
    const now = Date.now();
    server.setQuota('openai', { markedAt: now - 5000, resetAt: now + HOUR });
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, {
      error: { text: 'Weekly usage limit reached', reason: 'account_usage_limit', provider: 'anthropic' },
    });
    const request = {
      prompt: () => ({
        ok: true as const,
        text: 'unused: nothing is sent while waiting',
        template: 'quota-wake' as const,
      }),
      spacingMs: 50,
      minSpacingMs: 0,
    };
    for (const arm of [false, true]) {
      const operator = operatorWith(arm);
      try {
        const acted = await operator.recover({ target: target(id), request });
        assert.equal(acted.result?.decision, 'wait-for-reset', acted.outcome.message);
        assert.equal(acted.result?.waitUntil, now + HOUR);
        assert.equal(acted.outcome.at, now + HOUR);
        assert.equal(Boolean(operator.retries.get(target(id).key)), arm, `retry armed: ${arm}`);
        if (!arm) assert.match(acted.outcome.rowText, /^wait for the reset: retry after /);
      } finally {
        operator.dispose();
      }
    }
    assert.equal(server.prompts.length, 0);
  });
});
