// Act once: N `session-ops wake SESSION --compose wake` processes started at once against one
// idle session, sharing one state directory (so one per-session lock), send exactly one prompt;
// every other process exits 3 naming why (the session moved since its decision, it no longer
// reads idle, or another actor held its lock past the wait). Against the spec-dialect server (an
// accepted prompt is stored as the session's newest user message and turns it generating, as the
// spec's transition table says) and the real opencode server with the scripted model.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BackendClient } from '../../src/core/backend/client';
import { launchSession, startOpencode, type OpencodeServer } from '../support/opencode';
import { startScriptedModel, type ScriptedModel } from '../support/scripted-model';
import { startSpecServer, type SpecServer } from '../support/spec-server';
import { bundleCli, runCliProcess, type CliProcessRun } from './cli-bundle';
import { waitFor } from './helpers';

const ACTORS = 5;

/** Why a process did not send, from its stderr. */
function reasonOf(run: CliProcessRun): string {
  if (/the session moved since the decision/.test(run.stderr)) return 'stale';
  if (/reads generating, not idle/.test(run.stderr)) return 'not-idle';
  if (/is busy: .* holds its lock/.test(run.stderr)) return 'busy';
  return `unexplained: ${run.stderr.trim()}`;
}

interface Figures {
  actors: number;
  prompts: number;
  sent: number;
  refusals: Record<string, number>;
}

/** Starts the actors at once; returns their runs and the figures. */
async function actors(cli: string, args: string[], env: Record<string, string>): Promise<CliProcessRun[]> {
  return Promise.all(Array.from({ length: ACTORS }, () => runCliProcess(cli, args, env)));
}

function figures(runs: CliProcessRun[], prompts: number): Figures {
  const refusals: Record<string, number> = {};
  for (const r of runs.filter((x) => x.code !== 0)) refusals[reasonOf(r)] = (refusals[reasonOf(r)] ?? 0) + 1;
  return { actors: runs.length, prompts, sent: runs.filter((r) => r.code === 0).length, refusals };
}

function assertActedOnce(runs: CliProcessRun[], prompts: number): void {
  const f = figures(runs, prompts);
  console.log(`      figures: ${JSON.stringify(f)}`);
  assert.equal(prompts, 1, `exactly one prompt reached the backend: ${JSON.stringify(f)}`);
  assert.equal(runs.filter((r) => r.code === 0).length, 1, runs.map((r) => r.stderr).join('\n---\n'));
  for (const r of runs.filter((x) => x.code !== 0)) {
    assert.equal(r.code, 3, `refused with exit 3: ${r.stderr}`);
    assert.doesNotMatch(reasonOf(r), /^unexplained/);
  }
}

describe('act once: concurrent wake processes on one idle session', function () {
  let out: string;
  let cli: string;
  const env = () => ({ HOME: out, SESSION_OPS_STATE_DIR: path.join(out, 'state') });

  before(async () => {
    out = mkdtempSync(path.join(os.tmpdir(), 'session-ops-act-once-'));
    cli = path.join(out, 'cli.js');
    await bundleCli(cli);
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  describe('spec-dialect server', function () {
    let server: SpecServer;
    const stepping: NodeJS.Timeout[] = [];
    before(async () => {
      server = await startSpecServer();
    });
    after(async () => {
      for (const t of stepping) clearInterval(t);
      await server?.stop();
    });

    it(`${ACTORS} wake processes at once: one prompt sent, the others exit 3 naming the reason`, async () => {
      server.setProviders([{ id: 'anthropic', models: ['sonnet'] }], ['anthropic']);
      // An accepted prompt turns the session generating (spec: idle -> generating) for the test's
      // span, stepping while it generates (the winner confirms the wake by that movement).
      server.answerPrompts = { delayMs: 120_000 };
      server.onPrompt = (record, dir) => {
        stepping.push(setInterval(() => dir.step(record.sessionId), 200));
      };
      const dir = mkdtempSync(path.join(out, 'work-'));
      const d = server.directory(dir);
      const id = d.addSession({ state: 'idle', title: 'Port the parser' });
      d.addMessage(id, { text: 'Stopped halfway.', info: { providerID: 'anthropic', modelID: 'sonnet' } });
      const runs = await actors(
        cli,
        ['wake', id, '--base-url', server.url, '--directory', dir, '--compose', 'wake', '--wait', '10'],
        env(),
      );
      const prompts = server.prompts.filter((p) => p.sessionId === id).length;
      assertActedOnce(runs, prompts);
      const newest = d.sessions.get(id)!.messages.at(-1)!;
      assert.equal(newest.info.role, 'user', 'the prompt is the session’s newest message');
      assert.deepEqual(readdirSync(path.join(out, 'state', 'locks')), [], 'every lock released');
    });
  });

  describe('real opencode server', function () {
    let model: ScriptedModel;
    let oc: OpencodeServer;
    let client: BackendClient;
    before(async () => {
      model = await startScriptedModel();
      oc = await startOpencode({
        modelUrl: model.url,
        configure: (config) => ({ ...config, disabled_providers: ['opencode'] }),
      });
      client = new BackendClient({ baseUrl: oc.baseUrl });
    });
    after(async () => {
      await client?.close();
      model?.releaseStalls();
      await oc?.stop();
      await model?.stop();
    });

    it(`${ACTORS} wake processes at once: one prompt sent, the others exit 3 naming the reason`, async () => {
      const dir = mkdtempSync(path.join(out, 'work-'));
      model.when('[first]', { kind: 'reply', text: 'Part one done; more later.' });
      const id = await launchSession(oc, dir, 'Port the parser', 'start [first]');
      await waitFor('the reply', async () => (await client.newestMessage(dir, id))?.completedAt);
      await waitFor(
        `${id} idle`,
        async () => (await client.listSessions(dir)).sessions.find((s) => s.id === id)?.state === 'idle',
        60_000,
      );
      // The woken turn keeps generating for the test's span.
      model.when('[act-once]', { kind: 'stall', text: 'Resuming' });
      const before = model.requests.filter((r) => r.marker === '[act-once]').length;
      const runs = await actors(
        cli,
        [
          'wake',
          id,
          '--base-url',
          oc.baseUrl,
          '--directory',
          dir,
          '--compose',
          'wake',
          '--resume',
          'the next step [act-once]',
          '--wait',
          '20',
        ],
        env(),
      );
      await waitFor('the model to receive the wake prompt', async () =>
        model.requests.some((r) => r.marker === '[act-once]'),
      );
      // Every prompt opencode stored is a user message of the session; count them.
      const res = await fetch(`${oc.baseUrl}session/${id}/message?directory=${encodeURIComponent(dir)}`);
      const messages = (await res.json()) as Array<{ info: { role: string }; parts: Array<{ text?: string }> }>;
      const wakes = messages.filter(
        (m) => m.info.role === 'user' && m.parts.some((p) => p.text?.includes('[act-once]')),
      ).length;
      assertActedOnce(runs, wakes);
      assert.equal(model.requests.filter((r) => r.marker === '[act-once]').length - before, 1);
      model.releaseStalls();
    });
  });
});
