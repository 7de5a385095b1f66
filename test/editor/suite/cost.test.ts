// Budgets in the real editor against the real opencode server: the scripted model answers with
// usage (10 in / 5 out) and `local/m1` is priced as in the demo, so every assistant message costs
// $0.05. A tool loop with a budget of $0.24 reaches 80 % at its fourth message and 100 % at its
// fifth: each is notified once. With sessionOps.automatic.abortOverBudget off nothing aborts it;
// switched on, the generating session past its budget is aborted automatically, logged, once.
// The backend row's "$x spent" and the Providers view's spend follow the cost as it grows.
import { strict as assert } from 'node:assert';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { providerSpendText, totalCostText } from '../../../src/core/cost/present';
import { formatUsd } from '../../../src/core/cost/rollup';
import type { AutomaticAction } from '../../../src/core/operations/automatic';
import type { SessionRow } from '../../../src/core/monitor/row';
import type { SessionOpsApi } from '../../../src/extension/extension';
import { startLoggingProxy, type LoggingProxy } from '../../support/logging-proxy';
import { findOpencodeBinary, launchSession, startOpencode, type OpencodeServer } from '../../support/opencode';
import { startScriptedModel, type ScriptedModel } from '../../support/scripted-model';
import { hasBrowser, query, rows, screenshot, waitFor } from './harness';

/** The demo's price of `local/m1` per million tokens (scripts/demo-backends.mjs DEMO_PRICE): $0.05 a message. */
const PRICE = { input: 2000, output: 6000, cache_read: 200, cache_write: 2500 };
const BUDGET_USD = 0.24;
const SPACING_MS = 1_500;
const MIN_SPACING_MS = 1_000;

type Config = Record<string, unknown> & {
  provider: { local: { models: { m1: Record<string, unknown> } } & Record<string, unknown> } & Record<string, unknown>;
};
const priced = (c: Record<string, unknown>): Record<string, unknown> => {
  const config = c as Config;
  const local = config.provider.local;
  return {
    ...config,
    provider: { ...config.provider, local: { ...local, models: { m1: { ...local.models.m1, cost: PRICE } } } },
  };
};

const config = () => vscode.workspace.getConfiguration('sessionOps');
/** Sampling every SPACING_MS (a settings change restores the configured spacing: applied after each). */
const fastSampling = () =>
  vscode.commands.executeCommand('sessionOps.test.configureMonitor', {
    minSpacingMs: MIN_SPACING_MS,
    spacingMs: SPACING_MS,
  });

describe('Cost and budgets against the real opencode server', function () {
  this.timeout(180_000);
  let api: SessionOpsApi;
  let model: ScriptedModel;
  let oc: OpencodeServer;
  let proxy: LoggingProxy;
  let dir: string;
  const automatic: Array<{ action: AutomaticAction; id: string }> = [];
  /** The outcomes of automatic actions: a refusal's code (`stale`: the session outran the decision, nothing sent). */
  const automaticEnded: Array<{ action: string; id: string; outcome: string; code: string | null }> = [];
  let offAutomatic: (() => void) | undefined;
  let offActed: (() => void) | undefined;
  /** The automatic starts so far (read through a call: an assertion on the array does not narrow it). */
  const started = () => automatic;
  const byId = (id: string): SessionRow | undefined => api.monitor.rows().find((r) => r.id === id);
  const abortPosts = (id: string) => proxy.log.filter((r) => r.method === 'POST' && r.path === `/session/${id}/abort`);
  const explain = (id: string) => {
    const r = byId(id);
    return r
      ? `${r.title}: ${r.state} ${r.verdict} ${r.cost ? formatUsd(r.cost.usd) : 'no cost'} level ${r.budgetLevel}; shown ${api.notifier.shown.join(', ')}`
      : `${id} not listed`;
  };

  before(async () => {
    const ext = vscode.extensions.getExtension<SessionOpsApi>('session-ops.session-ops')!;
    api = await ext.activate();
    model = await startScriptedModel();
    model.when('[spend]', { kind: 'tool-loop', command: 'sleep 1', rounds: 100_000 });
    oc = await startOpencode({
      modelUrl: model.url,
      apiKey: 'sk-local-never-shown',
      binary: findOpencodeBinary(process.env.SESSION_OPS_REPO_ROOT ?? process.cwd()),
      configure: priced,
    });
    proxy = await startLoggingProxy(oc.baseUrl);
    dir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-cost-'));
    offAutomatic = api.operator.onDidStartAutomatic((action, row) => automatic.push({ action, id: row.id }));
    offActed = api.operator.onDidAct((o) => {
      if (o.automatic) automaticEnded.push({ action: o.action, id: o.sessionId, outcome: o.outcome, code: o.code });
    });
    const g = vscode.ConfigurationTarget.Global;
    await config().update('budget.sessionUsd', BUDGET_USD, g);
    await config().update('automatic.abortOverBudget', false, g);
    await config().update('backends', [{ name: 'opencode', baseUrl: proxy.url, directories: [dir] }], g);
    await fastSampling();
    // Both views open: the Providers view shows the spend while the session generates.
    await vscode.commands.executeCommand('sessionOps.providers.focus');
    await vscode.commands.executeCommand('sessionOps.sessions.focus');
    // The directory's first round (no session yet): what follows is spent since watching began.
    await waitFor('the backend read', () => api.monitor.backends()[0]?.status === 'ok', 30_000);
  });

  after(async () => {
    offAutomatic?.();
    offActed?.();
    const g = vscode.ConfigurationTarget.Global;
    await config().update('backends', undefined, g);
    await config().update('automatic.abortOverBudget', undefined, g);
    await config().update('budget.sessionUsd', undefined, g);
    await proxy?.stop();
    await oc?.stop();
    await model?.stop();
    await vscode.commands.executeCommand('sessionOps.test.configureMonitor', { minSpacingMs: null });
  });

  it('80 % and 100 % notified once each; no abort with abortOverBudget off; one automatic abort once it is on', async () => {
    const id = await launchSession(oc, dir, 'spends', 'work through the backlog [spend]');
    const shown = (kind: string) => api.notifier.shown.filter((s) => s === `${kind} ${id}`).length;

    // 80 %, then 100 %, while the session generates.
    await waitFor('the 80 % notification', () => shown('budget-80') === 1, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${explain(id)}`, { cause: err });
    });
    assert.equal(shown('budget-100'), 0, `80 % is told before 100 %: ${explain(id)}`);
    if (hasBrowser())
      await waitFor(
        'the 80 % notification on screen',
        async () =>
          (await query('.notification-list-item-message')).some((n) =>
            /Session "spends" reached 80 % of its budget: \$0\.\d{4} of \$0\.2400/.test(n.text),
          ),
        15_000,
      );
    const over = await waitFor(
      'the 100 % notification on a settled, generating row',
      () => {
        const r = byId(id);
        return shown('budget-100') === 1 && r?.budgetLevel === 100 && r.verdict !== null && r.state === 'generating'
          ? r
          : undefined;
      },
      60_000,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n${explain(id)}`, { cause: err });
    });
    assert.ok(over.cost && over.cost.usd >= BUDGET_USD, explain(id));
    if (hasBrowser()) {
      await waitFor(
        'the 100 % notification on screen',
        async () =>
          (await query('.notification-list-item-message')).some((n) =>
            /Session "spends" reached its budget: \$0\.\d{4} of \$0\.2400/.test(n.text),
          ),
        15_000,
      );
      await waitFor(
        'the row says over budget',
        async () => (await rows(/^spends, .*\(over budget\)/)).length === 1,
        15_000,
      );
      await screenshot('cost-over-budget');
      // The Providers view follows the spend as it grows (each round changes it; its countdown
      // alone would refresh it only every 30 s).
      const spendNow = () => providerSpendText(api.monitor.backends()[0].spend, 'local');
      await waitFor(
        'the provider row showing the spend of the latest round',
        async () => {
          const spend = spendNow();
          return spend !== '' && (await query('.monaco-list-row')).some((n) => n.text.includes(spend));
        },
        15_000,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\nwant ${spendNow()}`, { cause: err });
      });
    }

    // Off: the session keeps generating past its budget for several rounds; nothing aborts it.
    const rounds = api.monitor.stats().rounds;
    await waitFor('three more rounds', () => api.monitor.stats().rounds >= rounds + 3, 30_000);
    if (hasBrowser()) {
      // The backend row's "$x spent" follows the cost (at most 30 s behind): last built when the
      // session appeared, it reads past the 80 % mark now without any change to the tree's structure.
      await waitFor(
        'the backend row showing what was spent past 80 %',
        async () =>
          (await query('.monaco-list-row')).some((n) => {
            const m = /\$(\d+\.\d+) spent/.exec(n.text);
            return m !== null && Number(m[1]) >= 0.8 * BUDGET_USD;
          }),
        40_000,
      ).catch(async (err: Error) => {
        const texts = (await query('.monaco-list-row')).map((n) => n.text).join(' | ');
        const total = totalCostText(api.monitor.backends()[0].directories.flatMap((d) => d.rows));
        throw new Error(`${err.message}\nrows: ${texts}\nmonitor total: ${total}`, { cause: err });
      });
    }
    assert.equal(byId(id)?.state, 'generating', explain(id));
    assert.deepEqual(abortPosts(id), [], 'no abort with abortOverBudget off');
    assert.deepEqual(automatic, []);

    // On: aborted automatically, through the operator (logged), once.
    await config().update('automatic.abortOverBudget', true, vscode.ConfigurationTarget.Global);
    await fastSampling();
    await waitFor('the automatic abort', () => abortPosts(id).length > 0, 30_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${explain(id)}`, { cause: err });
    });
    await waitFor('the aborted session idle', () => byId(id)?.state === 'idle', 30_000);
    // Every automatic start is an abort of this session. A decision the session outran (still
    // generating, its newest message moved before the POST) is refused with nothing sent, and the
    // next sample decides again: one abort goes out (counted below, at the backend and in the outcomes).
    assert.ok(
      started().length >= 1 && started().every((a) => a.action === 'abort' && a.id === id),
      JSON.stringify(started()),
    );
    // The row reads idle from the monitor's sample; the abort's own idle confirmation (its read)
    // may still be finishing, so wait for the operation to end before reading its outcome.
    const opOf = () => api.operations.get(byId(id)!.key);
    await waitFor('the abort operation ended', () => opOf()?.outcome !== 'running', 30_000);
    const op = opOf();
    assert.equal(op?.outcome, 'idle', `operation: ${JSON.stringify(op)}`);
    // Later rounds (the row still over budget, now idle) abort nothing more and tell nothing again.
    const after = api.monitor.stats().rounds;
    await waitFor('three more rounds', () => api.monitor.stats().rounds >= after + 3, 30_000);
    assert.equal(abortPosts(id).length, 1, 'aborted once');
    assert.ok(
      started().length >= 1 && started().every((a) => a.action === 'abort' && a.id === id),
      JSON.stringify(started()),
    );
    const ended = automaticEnded.filter((o) => o.id === id);
    assert.equal(ended.length, started().length, `each automatic start ended: ${JSON.stringify(ended)}`);
    assert.deepEqual(
      ended.filter((o) => o.code !== 'stale').map((o) => [o.action, o.outcome]),
      [['abort', 'idle']],
      `one automatic abort sent, the others refused as stale before any POST: ${JSON.stringify(ended)}`,
    );
    assert.equal(shown('budget-80'), 1);
    assert.equal(shown('budget-100'), 1);

    // The provider's spend since watching began is all the session spent: it started after the first round.
    if (hasBrowser()) {
      const spentNow = () => totalCostText(api.monitor.backends()[0].directories.flatMap((d) => d.rows));
      await vscode.commands.executeCommand('sessionOps.providers.focus');
      await waitFor(
        'the provider row with the spend',
        async () => {
          const usd = spentNow().replace(' spent', '');
          return (await query('.monaco-list-row')).some((n) =>
            n.text.includes(`${usd} today, ${usd} since watching began`),
          );
        },
        15_000,
      );
      await screenshot('cost-providers-spend');
    }
  });
});
