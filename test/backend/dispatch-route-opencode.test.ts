// Dispatch by route against the real opencode server (issue 31 item 3): the model lists a variant
// table (config models.m1.variants), the route's effort maps to its variant and the prompt_async
// body carries it (logged by the proxy); --new-session creates the worker's session titled with the
// ticket and the prompt lands there, confirmed by a new assistant message.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BackendClient } from '../../src/core/backend/client';
import { QUOTA_SELF_REPORT_CLAUSE } from '../../src/core/prompt/clauses';
import { startLoggingProxy, type LoggingProxy } from '../support/logging-proxy';
import { startOpencode, withBackupProvider, type OpencodeServer } from '../support/opencode';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';
import { cli } from './actions-cli';
import { waitFor } from './helpers';

const ROUTING = `version: 1
default: {entry: {skill: null, mode: null}}
routes:
  Kind/Bug:
    entry: {skill: implement, mode: bugfix}
    skip: [review-dag]
    keep_gates: [review-code, verify]
    preflight:
      - {id: reproduce-first, item: Reproduce the bug with a failing test first., evidence: retro C12 finding 3, added_cycle: C12}
    notes: Bugs go straight to implementation.
    effort: high
`;

describe('dispatch by route against the real opencode server', function () {
  let model: ScriptedModel;
  let oc: OpencodeServer;
  let proxy: LoggingProxy;
  let client: BackendClient;
  const dirs: string[] = [];

  before(async function () {
    model = await startScriptedModel();
    oc = await startOpencode({
      modelUrl: model.url,
      configure: (config) => {
        const c = withBackupProvider(model.url)(config);
        const provider = c.provider as Record<string, { models: Record<string, unknown> }>;
        // The local model lists a variant table: high and max (their options are opencode's business).
        provider.local.models = {
          m1: { name: 'M1', variants: { high: { reasoningEffort: 'high' }, max: { reasoningEffort: 'high' } } },
        };
        return c;
      },
    });
    proxy = await startLoggingProxy(oc.baseUrl);
    client = new BackendClient({ baseUrl: oc.baseUrl });
  });
  after(async function () {
    await client?.close();
    await proxy?.stop();
    await oc?.stop();
    await model?.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const newDir = () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'session-ops-route-oc-'));
    dirs.push(d);
    writeFileSync(path.join(d, 'routing.yaml'), ROUTING);
    return d;
  };
  const args = (dir: string, ticket: string) => [
    '--base-url',
    proxy.url,
    '--directory',
    dir,
    '--model',
    'local/m1',
    '--routing',
    path.join(dir, 'routing.yaml'),
    '--label',
    'Kind/Bug',
    '--ticket',
    ticket,
    '--json',
  ];
  const env = (dir: string) => ({
    SESSION_OPS_STATE_DIR: path.join(dir, '.state'),
    SESSION_OPS_ORCHESTRATOR: 'ses_orch',
  });
  const prompts = () => proxy.log.filter((r) => r.method === 'POST' && r.path.endsWith('/prompt_async'));
  const answered = (dir: string, id: string) =>
    waitFor(
      `an assistant message in ${id}`,
      async () => {
        const m = await client.newestMessage(dir, id);
        return m?.role === 'assistant' && m.completedAt !== null;
      },
      60_000,
    );

  it("the provider listing shows the variant table; the prompt_async body carries the effort's variant", async () => {
    const dir = newDir();
    const listing = await client.listProviders(dir);
    assert.deepEqual(
      listing.providers.find((p) => p.id === 'local')?.variants?.m1 &&
        [...listing.providers.find((p) => p.id === 'local')!.variants!.m1].sort(),
      ['high', 'max'],
    );
    const made = await fetch(`${oc.baseUrl}session?directory=${encodeURIComponent(dir)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const { id } = (await made.json()) as { id: string };
    proxy.log.length = 0;
    const r = await cli('dispatch', [id, ...args(dir, 'PROJ-40')], { env: env(dir) });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.json, {
      session: id,
      model: { providerID: 'local', modelID: 'm1' },
      sent: true,
      instead: null,
      variant: 'high',
      newSession: false,
    });
    assert.equal(prompts().length, 1);
    const body = JSON.parse(prompts()[0].body) as { variant?: string; parts: Array<{ text: string }> };
    assert.equal(body.variant, 'high');
    const text = body.parts[0].text;
    assert.match(
      text,
      /^Start: ticket PROJ-40 takes the Kind\/Bug route of the routing table: enter the implement skill, mode bugfix\./,
    );
    assert.match(
      text,
      /1\. \[reproduce-first\] Reproduce the bug with a failing test first\. \(evidence: retro C12 finding 3\)/,
    );
    assert.ok(text.includes(QUOTA_SELF_REPORT_CLAUSE));
    await answered(dir, id);
  });

  it('--new-session: creates the session titled with the ticket, and the prompt lands there (a new assistant message)', async () => {
    const dir = newDir();
    const before = (await client.listSessions(dir)).sessions.map((s) => s.id);
    proxy.log.length = 0;
    const r = await cli('dispatch', ['--new-session', ...args(dir, 'PROJ-41')], { env: env(dir) });
    assert.equal(r.code, 0, r.stderr);
    const id = (r.json as { session: string }).session;
    assert.equal((r.json as { newSession: boolean }).newSession, true);
    assert.ok(!before.includes(id));
    const created = proxy.log.filter((x) => x.method === 'POST' && x.path === '/session');
    assert.equal(created.length, 1);
    assert.deepEqual(JSON.parse(created[0].body), { title: 'PROJ-41' });
    assert.ok(created[0].query.get('directory'));
    assert.deepEqual(
      prompts().map((p) => p.path),
      [`/session/${id}/prompt_async`],
    );
    const listed = (await client.listSessions(dir)).sessions.find((s) => s.id === id);
    assert.equal(listed?.title, 'PROJ-41');
    await answered(dir, id);
    const newest = await client.newestMessage(dir, id);
    assert.equal(newest?.role, 'assistant');
  });
});
