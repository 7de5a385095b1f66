// The message ledger against the real opencode server (opencode-ai 1.18, loopback, hermetic; model
// priced, the scripted model reporting usage). Behind a proxy that strips `cost` and `tokens` from
// the session list (a backend whose list gives no totals, as an older opencode), the figures of
// `status --json` and of `session-ops watch` come from summing the assistant messages: they equal
// the sum over each whole transcript (read once here, for the truth), a sub-agent's toward its
// parent; a long transcript is read in pages with the `before` cursor the server names; liveness
// reads stay limit=1; after a move only the moved session's newer messages are read. Without the
// proxy (stock opencode: list totals), `messages` is the count of assistant messages; a move is
// counted from the event stream's message.updated, without a page read.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ActivityCounter } from '../../src/core/backend/activity';
import { BackendClient } from '../../src/core/backend/client';
import { readEventStream } from '../../src/core/backend/events';
import { BODY_LIMITS } from '../../src/core/backend/limits';
import { MessageLedger } from '../../src/core/cost/message-ledger';
import { SampleHistory } from '../../src/core/health/sample-history';
import { sampleDirectoryOnce } from '../../src/core/health/sample-directory';
import { startLoggingProxy, type LoggedRequest, type LoggingProxy } from '../support/logging-proxy';
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

/** GET /session without `cost` and `tokens` on its entries. */
function stripTotals(body: string): string {
  const list = JSON.parse(body) as Array<Record<string, unknown>>;
  return JSON.stringify(list.map(({ cost: _cost, tokens: _tokens, ...rest }) => rest));
}

const isMessageRead = (r: LoggedRequest) => r.method === 'GET' && /^\/session\/[^/]+\/message$/.test(r.path);
const isLiveness = (r: LoggedRequest) => r.query.get('limit') === '1' && !r.query.has('before');

describe('the message ledger against the real opencode server (list totals stripped by a proxy)', function () {
  let model: ScriptedModel;
  let oc: OpencodeServer;
  let proxy: LoggingProxy;
  let dir: string;
  let tmp: string;
  let watch: WatchProcess | undefined;

  const metric = (name: string, labels: string) => watch!.metric(name, labels);

  before(async function () {
    model = await startScriptedModel();
    model.when('[delegate]', {
      kind: 'tool-calls',
      calls: [{ tool: 'task', args: { description: 'look', prompt: 'look [child]', subagent_type: 'general' } }],
      then: 'delegated',
    });
    model.when('[child]', { kind: 'reply', text: 'the child is done' });
    model.when('[loop]', { kind: 'tool-loop', command: 'true', rounds: 24, then: 'looped' });
    oc = await startOpencode({
      modelUrl: model.url,
      configure: (config) => {
        (config.provider as { local: { models: { m1: Record<string, unknown> } } }).local.models.m1.cost = PRICE;
        return config;
      },
    });
    proxy = await startLoggingProxy(oc.baseUrl, {
      rewrite: (e) => (e.method === 'GET' && e.path === '/session' ? stripTotals : null),
    });
    dir = mkdtempSync(path.join(os.tmpdir(), 'session-ops-ledger-'));
    tmp = mkdtempSync(path.join(os.tmpdir(), 'session-ops-ledger-watch-'));
  });
  after(async function () {
    watch?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
    await proxy?.stop();
    await oc?.stop();
    await model?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const get = (p: string): Promise<unknown> => getJson(oc.baseUrl, dir, p);
  const truthOf = (id: string): Promise<Truth> => transcriptCost(oc.baseUrl, dir, id);
  const close = assertCloseUsd;

  async function settled(count: number, finalOf: string[]): Promise<void> {
    await waitFor(
      'the sessions settled',
      async () => {
        const list = (await get('session')) as unknown[];
        const busy = Object.keys((await get('session/status')) as object).length;
        if (list.length !== count || busy !== 0) return false;
        for (const id of finalOf) {
          const newest = (await get(`session/${id}/message?limit=1`)) as Array<{ info: { finish?: string } }>;
          if (newest[0]?.info.finish !== 'stop') return false;
        }
        return true;
      },
      90_000,
    );
  }

  it('status --json and watch: the sums equal the transcripts; pages with before; liveness limit=1; a move reads only the moved session', async () => {
    const parent = await launchSession(oc, dir, 'parent', 'please [delegate] this');
    const long = await launchSession(oc, dir, 'long', 'go [loop]');
    const lone = await launchSession(oc, dir, 'lone', 'hello');
    await settled(4, [parent, long, lone]);
    const list = (await get('session')) as Array<{ id: string; parentID?: string; cost?: number }>;
    const child = list.find((s) => s.parentID === parent)!.id;
    assert.ok(typeof list[0].cost === 'number', 'the server itself gives totals; the proxy hides them');
    const truth = {
      parent: await truthOf(parent),
      child: await truthOf(child),
      long: await truthOf(long),
      lone: await truthOf(lone),
    };
    assert.ok(truth.long.messages > 20, `the long session spans more than one page (${truth.long.messages})`);

    // status through the proxy: no totals in the list, so every figure is a sum of messages.
    const run = await status(statusArgs(proxy.url, dir));
    assert.equal(run.code, 0, run.stderr);
    for (const [id, want] of [
      [child, truth.child],
      [long, truth.long],
      [lone, truth.lone],
    ] as const) {
      const s = run.session(id);
      assert.equal(s.costPending, false, id);
      close(s.cost?.usd, want.usd, id);
      assert.deepEqual(s.cost?.tokens, want.tokens, id);
      assert.equal(s.cost?.messages, want.messages, id);
    }
    const p = run.session(parent);
    close(p.cost?.usd, truth.parent.usd + truth.child.usd, 'parent with its sub-agent');
    assert.equal(p.cost?.messages, truth.parent.messages + truth.child.messages);
    assert.equal(p.cost?.tokens.output, truth.parent.tokens.output + truth.child.tokens.output);
    const all = truth.parent.usd + truth.child.usd + truth.long.usd + truth.lone.usd;
    close(run.doc!.cost?.usd, all, 'in all');

    // The requests: liveness reads limit=1; cost pages carry a limit (never a transcript), the long
    // session's second page the cursor the server named; each page under the body cap.
    const reads = proxy.log.filter(isMessageRead);
    assert.ok(
      reads.every((r) => r.query.has('limit')),
      'never a message read without limit',
    );
    const pages = reads.filter((r) => !isLiveness(r));
    assert.ok(
      pages.some((r) => r.path.includes(long) && r.query.has('before')),
      'the long transcript was paged',
    );
    assert.ok(pages.every((r) => r.status === 200 && (r.bytes ?? Infinity) < BODY_LIMITS.messagePage));
    assert.equal(pages.filter((r) => !r.query.has('before')).length, 4, 'one first page per session, read once');

    // Stock opencode (list totals): usd and tokens from the list, messages counted.
    const stock = await status(statusArgs(oc.baseUrl, dir));
    assert.equal(stock.code, 0, stock.stderr);
    assert.equal(stock.session(long).cost?.messages, truth.long.messages);
    assert.equal(stock.session(parent).cost?.messages, truth.parent.messages + truth.child.messages);
    close(stock.session(lone).cost?.usd, truth.lone.usd, 'stock lone');

    // watch through the proxy: its gauges are the same sums.
    watch = await startWatch(tmp, proxy.url, dir);
    const near = (v: number | undefined, want: number) => v !== undefined && Math.abs(v - want) < 1e-9;
    const gauge = (id: string) => metric('session_ops_session_cost_usd', `session="${id}"`);
    await waitFor(
      'the cost gauges of watch',
      async () =>
        near(await gauge(parent), truth.parent.usd + truth.child.usd) &&
        near(await gauge(long), truth.long.usd) &&
        near(await gauge(lone), truth.lone.usd),
      30_000,
    );
    assert.equal(await metric('session_ops_session_tokens', `session="${long}",type="input"`), truth.long.tokens.input);

    // Stock opencode with its event stream (as watch and the editor read it): a first round reads
    // each session once; after a move, the ledger counts from message.updated, without a page.
    const stockProxy = await startLoggingProxy(oc.baseUrl);
    const stockClient = new BackendClient({ baseUrl: stockProxy.url, timeoutMs: 10_000 });
    const counter = new ActivityCounter();
    const events = new AbortController();
    let streamOpen = false;
    void readEventStream(stockClient.transport, {
      directory: dir,
      signal: events.signal,
      onEvent: (e) => counter.onEvent(e),
      onState: (s) => {
        streamOpen = s === 'open';
        counter.onStreamState(s);
      },
    });
    const stockLedger = new MessageLedger();
    const stockHistory = new SampleHistory({ spacingMs: 45_000 });
    const stockRound = async () => {
      const at = stockProxy.log.length;
      const r = await sampleDirectoryOnce(stockClient, dir, stockHistory, { ledger: stockLedger, activity: counter });
      const pages = stockProxy.log.slice(at).filter((x) => isMessageRead(x) && !isLiveness(x));
      return { session: (id: string) => r!.samples.find((x) => x.session.id === id)!.session, pages };
    };
    try {
      await waitFor('the event stream open', () => streamOpen, 10_000);
      const first = await stockRound();
      assert.equal(first.session(long).cost?.messages, truth.long.messages);
      assert.ok(first.pages.length >= 4, 'first sight: each session read');

      // A move: the lone session gets another turn; only its newer messages are read, within a round or two.
      const mark = proxy.log.length;
      const q = `directory=${encodeURIComponent(dir)}`;
      const sent = await fetch(`${oc.baseUrl}session/${lone}/prompt_async?${q}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: { providerID: 'local', modelID: 'm1' },
          parts: [{ type: 'text', text: 'again' }],
        }),
      });
      assert.equal(sent.status, 204);
      await settled(4, [lone]);
      const after = await truthOf(lone);
      assert.equal(after.messages, truth.lone.messages + 1);
      const newest = (await get(`session/${lone}/message?limit=1`)) as Array<{ info: { id: string } }>;
      await waitFor(
        'message.updated of the new answer, finished',
        () => counter.announcedAfter(lone, null).some((m) => m.id === newest[0].info.id && m.final),
        10_000,
      );
      const stockMoved = await stockRound();
      assert.deepEqual(stockMoved.pages, [], 'the move was counted from the event stream');
      assert.equal(stockMoved.session(lone).cost?.messages, after.messages);
      close(stockMoved.session(lone).cost?.usd, after.usd, 'stock lone after the move');
      await waitFor('the lone gauge to follow', async () => near(await gauge(lone), after.usd), 30_000);
      // The spend counter: the sessions summed in watch's first rounds are its baseline; the move is spend.
      const spent = await metric('session_ops_provider_cost_usd_total', 'provider="local"');
      assert.ok(near(spent, after.usd - truth.lone.usd), `spent ${spent}, the move ${after.usd - truth.lone.usd}`);
      const moved = proxy.log.slice(mark).filter((r) => isMessageRead(r) && !isLiveness(r));
      assert.ok(moved.length >= 1, 'the moved session was read');
      assert.ok(
        moved.every((r) => r.path.includes(lone) && !r.query.has('before') && r.query.get('limit') === '4'),
        JSON.stringify(moved.map((r) => `${r.path}?${r.query}`)),
      );
    } finally {
      events.abort();
      await stockClient.close();
      await stockProxy.stop();
    }
  });
});
