// Act once across processes, in the editor: the extension host with automatic wake on and
// `session-ops wake` CLI runs started at the same moment on one idle session (spec-dialect server,
// where an accepted prompt turns the session generating) send exactly one prompt. They share the
// per-session lock of the state directory (the extension's default and the CLI's SESSION_OPS_STATE_DIR
// are the same); the CLI runs that did not send exit 3 naming why.
import { strict as assert } from 'node:assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { stateDir } from '../../../src/core/state/state-dir';
import type { SessionOpsApi } from '../../../src/extension/extension';
import { startSpecServer, type SpecServer } from '../../support/spec-server';
import { waitFor } from './harness';

const DIR = '/work/act-once';
const MIN_SPACING_MS = 3_000;
const CLI_RUNS = 3;
const configureMonitor = (settings: { minSpacingMs?: number | null }) =>
  vscode.commands.executeCommand('sessionOps.test.configureMonitor', settings);
const config = () => vscode.workspace.getConfiguration('sessionOps');

interface Run {
  code: number | null;
  stderr: string;
}

function runCli(args: string[], env: Record<string, string>): Promise<Run> {
  const cli = path.join(process.env.SESSION_OPS_REPO_ROOT ?? process.cwd(), 'dist', 'cli.js');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [cli, ...args], {
      env: { PATH: process.env.PATH ?? '', ELECTRON_RUN_AS_NODE: '1', ...env },
    });
    let stderr = '';
    child.stderr.on('data', (c) => (stderr += c));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

describe('Act once: the editor with automatic wake and CLI runs on one idle session', function () {
  this.timeout(300_000);
  let api: SessionOpsApi;
  let spec: SpecServer;
  const stepping: NodeJS.Timeout[] = [];

  before(async () => {
    const ext = vscode.extensions.getExtension<SessionOpsApi>('session-ops.session-ops')!;
    api = await ext.activate();
    await configureMonitor({ minSpacingMs: MIN_SPACING_MS });
    spec = await startSpecServer();
    // An accepted prompt turns the session generating for the whole test (spec: idle -> generating),
    // stepping while it generates (the winner confirms the wake by that movement).
    spec.answerPrompts = { delayMs: 240_000 };
    spec.onPrompt = (record, dir) => {
      stepping.push(setInterval(() => dir.step(record.sessionId), 200));
    };
    spec.setProviders([{ id: 'openai', name: 'OpenAI', models: { 'gpt-x': { id: 'gpt-x' } } }], ['openai']);
  });

  after(async () => {
    for (const t of stepping) clearInterval(t);
    await config().update('automatic.wakeIdle', undefined, vscode.ConfigurationTarget.Global);
    await config().update('backends', undefined, vscode.ConfigurationTarget.Global);
    await spec?.stop();
    await configureMonitor({ minSpacingMs: null });
  });

  it(`one prompt from the extension and ${CLI_RUNS} CLI runs together; the others refused, naming why`, async () => {
    const d = spec.directory(DIR);
    const id = d.addSession({ title: 'contested worker', state: 'idle' });
    d.addMessage(id, { role: 'assistant', text: 'Half done.', info: { providerID: 'openai', modelID: 'gpt-x' } });
    await config().update(
      'backends',
      [{ name: 'act once', baseUrl: spec.url, directories: [DIR] }],
      vscode.ConfigurationTarget.Global,
    );
    await waitFor(
      'the idle verdict',
      async () => {
        await vscode.commands.executeCommand('sessionOps.refresh');
        const r = api.monitor.rows().find((x) => x.id === id);
        return r?.verdict === 'idle' && r.action === 'wake' ? r : undefined;
      },
      60_000,
    );
    const shared = stateDir(process.env);
    assert.ok(shared, 'the extension host has a state directory');
    const env = { HOME: mkdtempSync(path.join(os.tmpdir(), 'session-ops-cli-home-')), SESSION_OPS_STATE_DIR: shared };
    const args = ['wake', id, '--base-url', spec.url, '--directory', DIR, '--compose', 'wake', '--wait', '10'];
    // All at once: automatic wake on (acting at the next round) and the CLI runs.
    const runs = Promise.all(Array.from({ length: CLI_RUNS }, () => runCli(args, env)));
    await config().update('automatic.wakeIdle', true, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('sessionOps.refresh');
    const cli = await runs;
    // Give automatic mode its rounds after the CLI runs ended.
    for (let i = 0; i < 2; i++) {
      await new Promise((r) => setTimeout(r, MIN_SPACING_MS));
      await vscode.commands.executeCommand('sessionOps.refresh');
    }
    const row = api.monitor.rows().find((x) => x.id === id)!;
    const op = api.operations.get(row.key);
    const figures = {
      actors: CLI_RUNS + 1,
      prompts: spec.prompts.filter((p) => p.sessionId === id).length,
      cli: cli.map((r) => r.code),
      cliReasons: cli.map((r) =>
        r.code === 0
          ? 'sent'
          : /moved since the decision/.test(r.stderr)
            ? 'stale'
            : /not idle/.test(r.stderr)
              ? 'not-idle'
              : /is busy/.test(r.stderr)
                ? 'busy'
                : r.stderr.trim(),
      ),
      extension: op ? `${op.outcome}: ${op.text}` : 'no action (the session no longer read idle)',
    };
    // The extension host's console is not the runner's: the figures go to the results directory.
    const results = process.env.SESSION_OPS_RESULTS_DIR;
    if (results) writeFileSync(path.join(results, 'act-once-figures.json'), `${JSON.stringify(figures, null, 2)}\n`);
    assert.equal(figures.prompts, 1, JSON.stringify(figures));
    for (const r of cli) assert.ok(r.code === 0 || r.code === 3, `exit 0 or 3: ${r.code} ${r.stderr}`);
    for (const reason of figures.cliReasons) assert.ok(['sent', 'stale', 'not-idle', 'busy'].includes(reason), reason);
    await config().update('automatic.wakeIdle', undefined, vscode.ConfigurationTarget.Global);
  });
});
