// Cost and tokens against the real opencode server (opencode-ai 1.18, loopback, hermetic), its
// model priced in the provider config and the scripted model reporting usage: the figures of
// `status --json` equal the sum over each session's assistant messages as the whole transcript
// gives them (read once here, for the truth), and so do the gauges of `session-ops watch`
// (bundled CLI, started before the sessions) within a sampling round, its provider spend counter
// the sum of them all; a sub-agent's cost counts toward its parent; --budget-usd marks the
// session that reached it and exits 6; the table prints the cost.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launchSession, startOpencode, type OpencodeServer } from '../support/opencode';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';
import { status, statusArgs, waitFor } from './helpers';
import { startWatch, type WatchProcess } from './watch-process';
import {
  assertCloseUsd,
  getJson,
  PRICE,
  transcriptCost,
  type TranscriptCost as Truth,
} from '../support/transcript-cost';

describe('cost and tokens against the real opencode server', function () {
  let model: ScriptedModel;
  let oc: OpencodeServer;
  let dir: string;
  let tmp: string;
  let watch: WatchProcess | undefined;

  const metric = (name: string, labels: string) => watch!.metric(name, labels);

  before(async function () {
    model = await startScriptedModel();
    model.when('[delegate]', {
      kind: 'tool-calls',
      calls: [
        {
          tool: 'task',
          args: { description: 'look around', prompt: 'list the files [child]', subagent_type: 'general' },
        },
      ],
      then: 'delegated',
    });
    model.when('[child]', { kind: 'reply', text: 'the child is done' });
    oc = await startOpencode({
      modelUrl: model.url,
      configure: (config) => {
        const provider = config.provider as { local: { models: { m1: Record<string, unknown> } } };
        provider.local.models.m1.cost = PRICE;
        return config;
      },
    });
    dir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-cost-'));
    tmp = mkdtempSync(path.join(os.tmpdir(), 'session-ops-cost-watch-'));
    watch = await startWatch(tmp, oc.baseUrl, dir);
    // Its first round (the baseline of the spend counter) is over before any session exists.
    await waitFor(
      'the first round of watch',
      async () => (await metric('session_ops_backend_up', 'backend="oc"')) === 1,
      20_000,
    );
  });
  after(async function () {
    watch?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
    await oc?.stop();
    await model?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const get = (p: string): Promise<unknown> => getJson(oc.baseUrl, dir, p);
  const truthOf = (id: string): Promise<Truth> => transcriptCost(oc.baseUrl, dir, id);
  const close = assertCloseUsd;

  it('status --json: per session and in all equal the transcripts; the sub-agent counts toward its parent; --budget-usd exits 6', async () => {
    const parent = await launchSession(oc, dir, 'parent', 'please [delegate] this');
    const lone = await launchSession(oc, dir, 'lone', 'hello');
    // Settled: three sessions (the sub-agent listed), none busy, the parent's final reply stored.
    let child = '';
    await waitFor(
      'the parent, its sub-agent and the lone session settled',
      async () => {
        const list = (await get('session')) as Array<{ id: string; parentID?: string }>;
        child = list.find((s) => s.parentID === parent)?.id ?? '';
        const busy = Object.keys((await get('session/status')) as object).length;
        const newest = (await get(`session/${parent}/message?limit=1`)) as Array<{ info: { finish?: string } }>;
        return list.length === 3 && child !== '' && busy === 0 && newest[0]?.info.finish === 'stop';
      },
      60_000,
    );
    const truth = {
      parent: await truthOf(parent),
      child: await truthOf(child),
      lone: await truthOf(lone),
    };
    assert.ok(truth.parent.usd > 0 && truth.child.usd > 0 && truth.lone.usd > 0, JSON.stringify(truth));

    // A budget the parent with its sub-agent reaches and the lone session does not.
    const budget = (truth.lone.usd + truth.parent.usd + truth.child.usd) / 2;
    assert.ok(truth.lone.usd < budget && truth.parent.usd + truth.child.usd >= budget);
    const run = await status(statusArgs(oc.baseUrl, dir, '--budget-usd', String(budget)));
    assert.equal(run.code, 6, run.stderr);
    const doc = run.doc!;

    const p = run.session(parent);
    const c = run.session(child);
    const l = run.session(lone);
    close(c.cost?.usd, truth.child.usd, 'sub-agent');
    close(l.cost?.usd, truth.lone.usd, 'lone');
    close(p.cost?.usd, truth.parent.usd + truth.child.usd, 'parent with its sub-agent');
    assert.deepEqual(l.cost?.tokens, truth.lone.tokens);
    assert.deepEqual(c.cost?.tokens, truth.child.tokens);
    assert.equal(p.cost?.tokens.input, truth.parent.tokens.input + truth.child.tokens.input);
    assert.equal(p.cost?.tokens.output, truth.parent.tokens.output + truth.child.tokens.output);
    assert.deepEqual(
      [p.overBudget, c.overBudget, l.overBudget],
      [true, false, false],
      JSON.stringify({ budget, truth }),
    );

    // In all, each session once; every message ran on provider local.
    const all = truth.parent.usd + truth.child.usd + truth.lone.usd;
    close(doc.cost?.usd, all, 'in all');
    close(doc.cost?.byProvider.local, all, 'provider local');
    assert.deepEqual(Object.keys(doc.cost!.byProvider), ['local']);
    assert.equal(doc.budgetUsd, budget);

    // Without a budget: exit 0, nobody over; the table prints the cost column and the total.
    const plain = await status(statusArgs(oc.baseUrl, dir).filter((a) => a !== '--json'));
    assert.equal(plain.code, 0, plain.stderr);
    assert.match(plain.stdout, /COST/);
    assert.match(plain.stdout, /Cost {6}\$0\.\d{4} \(local \$0\.\d{4}\)/);

    // watch: the same figures within a sampling round; the spend counter sums them all.
    const near = (v: number | undefined, want: number) => v !== undefined && Math.abs(v - want) < 1e-9;
    const session = (id: string) => `session="${id}"`;
    await waitFor(
      'the cost gauges and the spend counter of watch',
      async () =>
        near(await metric('session_ops_session_cost_usd', session(parent)), truth.parent.usd + truth.child.usd) &&
        near(await metric('session_ops_session_cost_usd', session(child)), truth.child.usd) &&
        near(await metric('session_ops_session_cost_usd', session(lone)), truth.lone.usd) &&
        near(await metric('session_ops_provider_cost_usd_total', 'provider="local"'), all),
      20_000,
    );
    assert.equal(await metric('session_ops_session_tokens', `${session(lone)},type="input"`), truth.lone.tokens.input);
    assert.equal(
      await metric('session_ops_session_tokens', `${session(lone)},type="output"`),
      truth.lone.tokens.output,
    );
    assert.equal(
      await metric('session_ops_session_tokens', `${session(parent)},type="output"`),
      truth.parent.tokens.output + truth.child.tokens.output,
    );
  });
});
