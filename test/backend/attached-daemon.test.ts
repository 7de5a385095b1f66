// A window's attached fleet (src/core/daemon: AttachedDaemon, DaemonActor, what the editor's views
// and commands run on) against a real `session-ops watch` over real opencode (the scripted model):
// the attached rows' badges equal the daemon's /api/status; Wake on a row is the daemon's act (its
// audit names the token, the backend gets one prompt); two attach points waking together send one
// prompt, the other is refused; a prompt document's Send (a custom wake) and Dispatch... through the
// attached actor each send exactly one prompt with the given text, on a model the daemon's
// /api/providers offered, audited with the token's name.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { systemClock } from '../../src/core/clock';
import { parseDaemonConfigs } from '../../src/core/config/daemons';
import { AttachedDaemon } from '../../src/core/daemon/attached-daemon';
import { DaemonClient } from '../../src/core/daemon/client';
import { DaemonActor } from '../../src/core/daemon/daemon-actor';
import { headline } from '../../src/core/health/precedence';
import type { SessionRow } from '../../src/core/monitor/row';
import { launchSession, startOpencode, type OpencodeServer } from '../support/opencode';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';
import { waitFor } from './helpers';
import { startWatch, type WatchProcess } from './watch-process';

const ALICE = 'sot_backend-attached-alice-token-aaaaaaaaaaaaaaaa';
const BOB = 'sot_backend-attached-bob-token-bbbbbbbbbbbbbbbbbb';

describe('an editor window attached to watch over real opencode (views and acts through the daemon)', function () {
  let model: ScriptedModel;
  let oc: OpencodeServer;
  let tmp: string;
  let watch: WatchProcess | undefined;
  let url: string;
  let sessionId: string;
  let attached: AttachedDaemon;

  before(async function () {
    this.timeout(120_000);
    tmp = mkdtempSync(path.join(os.tmpdir(), 'session-ops-attached-'));
    const dir = path.join(tmp, 'work');
    mkdirSync(dir);
    model = await startScriptedModel();
    oc = await startOpencode({ modelUrl: model.url });
    sessionId = await launchSession(oc, dir, 'attached worker', 'say hello');
    watch = await startWatch(tmp, oc.baseUrl, dir, {
      tokens: [
        { name: 'alice', scope: 'act', token: ALICE },
        { name: 'bob', scope: 'act', token: BOB },
      ],
    });
    url = `${new URL(watch.metricsUrl).origin}/`;
    attached = new AttachedDaemon({
      config: parseDaemonConfigs([{ url, name: 'ops' }]).daemons[0],
      token: () => Promise.resolve(ALICE),
      clock: systemClock,
      onChange: () => undefined,
    });
    attached.start();
  });

  after(async () => {
    attached?.stop();
    watch?.stop();
    await oc?.stop();
    await model?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  const row = (): SessionRow | undefined =>
    attached
      .backends()
      .flatMap((b) => b.directories.flatMap((d) => d.rows))
      .find((r) => r.id === sessionId);

  it("the attached rows' badges equal the daemon's /api/status", async function () {
    this.timeout(60_000);
    const settled = await waitFor(
      'a settled idle row',
      () => {
        if (row()?.badge === 'idle') return row();
        throw new Error(
          `row ${JSON.stringify(row())}; states ${JSON.stringify(attached.backends().map((b) => [b.config.key, b.status, b.error, b.directories.map((d) => d.rows.length)]))}`,
        );
      },
      40_000,
      200,
    );
    const status = (await new DaemonClient({ url, token: ALICE }).status()) as {
      backends: Array<{ documents: Array<{ sessions: Array<{ id: string; headline: string }> }> }>;
    };
    const s = status.backends[0].documents[0].sessions.find((x) => x.id === sessionId)!;
    assert.equal(s.headline, settled.badge);
    assert.equal(headline({ verdict: settled.verdict, quotaWall: null, report: null }), s.headline);
  });

  it("Wake is the daemon's act (its audit names the token, one prompt); two attach points at once: one prompt, the other refused", async function () {
    this.timeout(60_000);
    const target = row()!;
    const before = model.requests.filter((r) => !r.auxiliary).length;
    const bob = new DaemonClient({ url, token: BOB });
    const [mine, theirs] = await Promise.all([
      new DaemonActor(attached).wake(target, {}),
      bob.act(sessionId, 'wake', {}).then(
        (body) => ({ ok: true as const, body }),
        (err: { kind?: string; code?: string }) => ({ ok: false as const, err }),
      ),
    ]);
    const confirmed = [mine.outcome === 'confirmed' || mine.outcome === 'not-confirmed', theirs.ok];
    assert.equal(
      confirmed.filter(Boolean).length,
      1,
      `exactly one wake went out: ${mine.outcome} ${mine.message} / ${JSON.stringify(theirs)}`,
    );
    if (!theirs.ok) assert.equal(theirs.err.kind, 'refused');
    else assert.ok(['refused', 'busy'].includes(mine.outcome), mine.outcome);
    await waitFor(
      'the wake prompt reached the model',
      () => model.requests.filter((r) => !r.auxiliary).length > before,
      30_000,
      200,
    );
    const audit = (await (
      await fetch(`${url}api/audit?session=${sessionId}`, {
        headers: { authorization: `Bearer ${ALICE}` },
      })
    ).json()) as { entries: Array<{ who: { name: string }; action: string; outcome: { sent: unknown } }> };
    const sent = audit.entries.filter((e) => e.action === 'wake' && e.outcome.sent === true);
    assert.equal(sent.length, 1, JSON.stringify(audit.entries));
    assert.equal(sent[0].who.name, mine.outcome === 'confirmed' || mine.outcome === 'not-confirmed' ? 'alice' : 'bob');
    assert.equal(model.requests.filter((r) => !r.auxiliary).length - before, 1, 'one prompt at the backend');
    await waitFor('who acted is on the attached row', () => row()?.actedBy?.action === 'wake', 20_000, 200);
  });

  /** The row settled idle again (the previous act's turn ended), as the daemon shows it. */
  const idleRow = (): Promise<SessionRow> =>
    waitFor(
      'the row idle again',
      () => {
        const r = row();
        if (r?.badge === 'idle' && r.state === 'idle') return r;
        throw new Error(`row ${r?.badge}/${r?.state}`);
      },
      40_000,
      200,
    );

  const auditOf = async (action: string) =>
    (
      (await (
        await fetch(`${url}api/audit?session=${sessionId}`, { headers: { authorization: `Bearer ${ALICE}` } })
      ).json()) as {
        entries: Array<{ who: { name: string }; action: string; model: string | null; outcome: { sent: unknown } }>;
      }
    ).entries.filter((e) => e.action === action && e.outcome.sent === true);

  it("a custom-prompt wake (a prompt document's Send) through the attached actor: one prompt with that text, audited as alice", async function () {
    this.timeout(90_000);
    const target = await idleRow();
    // The daemon's row carries its latest sample's newest message id (/api/fleet newestId).
    assert.match(target.evidence.latest.newestId ?? '', /^msg_/);
    const actor = new DaemonActor(attached);
    const listing = await actor.providers(target);
    // The scripted model's provider is offered (the person picks it; any other would leave the machine).
    const usable = listing.providers.find((p) => p.id === 'local');
    assert.deepEqual(usable?.models, ['m1'], `the daemon offers local/m1: ${JSON.stringify(listing)}`);
    const chosen = { providerID: 'local', modelID: 'm1' };
    const text = 'CUSTOM-WAKE-7f3: continue with the next step of the task.';
    const before = (await auditOf('wake')).length;
    const o = await actor.send(target, { text, model: chosen });
    assert.ok(['confirmed', 'not-confirmed'].includes(o.outcome), `${o.outcome}: ${o.message}`);
    assert.deepEqual(o.model, chosen);
    await waitFor(
      'the custom prompt reached the model',
      () => model.requests.some((r) => r.lastUserText.includes('CUSTOM-WAKE-7f3')),
      30_000,
      200,
    );
    assert.equal(model.requests.filter((r) => !r.auxiliary && r.lastUserText.includes('CUSTOM-WAKE-7f3')).length, 1);
    const sent = await auditOf('wake');
    assert.equal(sent.length - before, 1);
    assert.deepEqual([sent.at(-1)?.who.name, sent.at(-1)?.model], ['alice', `${chosen.providerID}/${chosen.modelID}`]);
  });

  it('Dispatch... through the attached actor: one prompt with the task (and its completion-report block), audited as alice', async function () {
    this.timeout(90_000);
    const target = await idleRow();
    const actor = new DaemonActor(attached);
    const listing = await actor.providers(target);
    assert.deepEqual(listing.providers.find((p) => p.id === 'local')?.models, ['m1']);
    const chosen = { providerID: 'local', modelID: 'm1' };
    const o = await actor.dispatch(target, { task: 'DISPATCH-TASK-4c1: write the release notes.', model: chosen });
    assert.ok(['confirmed', 'not-confirmed'].includes(o.outcome), `${o.outcome} ${o.code}: ${o.message}`);
    assert.equal(o.action, 'dispatch');
    await waitFor(
      'the task reached the model',
      () => model.requests.some((r) => r.lastUserText.includes('DISPATCH-TASK-4c1')),
      30_000,
      200,
    );
    const got = model.requests.filter((r) => !r.auxiliary && r.lastUserText.includes('DISPATCH-TASK-4c1'));
    assert.equal(got.length, 1);
    assert.match(got[0].lastUserText, /status=/, 'the completion-report block is appended');
    const sent = await auditOf('dispatch');
    assert.deepEqual(
      sent.map((e) => [e.who.name, e.model]),
      [['alice', `${chosen.providerID}/${chosen.modelID}`]],
    );
    await waitFor('who acted is on the attached row', () => row()?.actedBy?.action === 'dispatch', 20_000, 200);
  });
});
