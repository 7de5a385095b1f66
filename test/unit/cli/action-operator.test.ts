// The one-shot action commands act through the core Operator (the editor's and the daemon's path):
// each run's action gives the Operator's log line (its outcome as data), the machine-wide lock of
// the state directory is taken around the POST, a wait-for-reset arms no retry and persists no plan,
// and the commands' output and exit codes are those of their contract.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runAbort } from '../../../src/cli/abort';
import type { ActionIo } from '../../../src/cli/action-io';
import { runDispatch } from '../../../src/cli/dispatch';
import { EXIT } from '../../../src/cli/exit-codes';
import { runRecover } from '../../../src/cli/recover';
import { runWake } from '../../../src/cli/wake';
import { wakeKey } from '../../../src/core/operations/charge';
import {
  emptyOperatorState,
  operatorStateFile,
  parseOperatorState,
} from '../../../src/core/operations/state-store-operator';
import { startSpecServer, type SpecServer } from '../../support/spec-server';
import type { AuditEntry } from '../../../src/core/audit/audit-log';

const DIR = '/work/project';
const HOUR = 3_600_000;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  log: string[];
}

describe('cli: one-shot actions through the core Operator', function () {
  let server: SpecServer;
  let tmp: string;
  let base: string[];
  let env: Record<string, string>;

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
    tmp = mkdtempSync(path.join(os.tmpdir(), 'so-cli-operator-'));
    env = { SESSION_OPS_STATE_DIR: path.join(tmp, 'state') };
    base = ['--base-url', server.url, '--directory', DIR];
  });
  afterEach(async () => {
    await server.stop();
    rmSync(tmp, { recursive: true, force: true });
  });

  /** Until the session answered the prompt and is idle again. */
  async function waitIdle(id: string): Promise<void> {
    const session = server.directory(DIR).sessions.get(id)!;
    while (session.state !== 'idle' || session.messages[session.messages.length - 1].info.role !== 'assistant')
      await new Promise((r) => setTimeout(r, 10));
  }

  async function run(command: (argv: string[], io: Partial<ActionIo>) => Promise<number>, argv: string[]) {
    const r: Run = { code: -1, stdout: '', stderr: '', log: [] };
    r.code = await command(argv, {
      env,
      localInventory: [],
      stdout: (t) => (r.stdout += t),
      stderr: (t) => (r.stderr += t),
      operatorLog: (level, message) => r.log.push(`${level} ${message}`),
    });
    return r;
  }

  it('abort and wake: the Operator logs each outcome once; JSON (with sent) and exit codes', async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'generating' });
    const aborted = await run(runAbort, [id, ...base, '--wait', '5', '--json']);
    assert.equal(aborted.code, EXIT.done, aborted.stderr);
    assert.deepEqual(JSON.parse(aborted.stdout), { session: id, idle: true, sent: true });
    assert.equal(aborted.log.length, 1);
    assert.match(aborted.log[0], new RegExp(`^info abort ${id}: `));

    const file = path.join(tmp, 'wake.md');
    writeFileSync(file, 'Continue with the next step.');
    const woken = await run(runWake, [id, ...base, '--prompt-file', file, '--model', 'openai/gpt-5', '--json']);
    assert.equal(woken.code, EXIT.done, woken.stderr);
    const doc = JSON.parse(woken.stdout) as Record<string, unknown>;
    assert.deepEqual(Object.keys(doc), ['session', 'model', 'aborted', 'confirmed', 'sent']);
    assert.equal(doc.confirmed, true);
    assert.equal(doc.sent, true);
    assert.equal(server.prompts.length, 1);
    assert.equal(woken.log.length, 1);
    assert.match(woken.log[0], new RegExp(`^info wake ${id}: .*openai/gpt-5`));
    // Both in the audit trail the daemon serves: who is this host (cli), the prompt as hash and first line.
    const audit = readFileSync(path.join(tmp, 'state', 'audit.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as AuditEntry);
    assert.deepEqual(
      audit.map((e) => [e.who, e.action, e.sessionId, e.backend, e.directory, e.outcome.code, e.outcome.sent]),
      [
        [{ kind: 'cli', name: os.hostname() }, 'abort', id, server.url, DIR, 'idle', true],
        [{ kind: 'cli', name: os.hostname() }, 'wake', id, server.url, DIR, 'confirmed', true],
      ],
    );
    assert.equal(audit[1].model, 'openai/gpt-5');
    assert.equal(audit[1].prompt?.firstLine, 'Continue with the next step.');
    const text = server.prompts[0].payload.parts.map((p) => p.text).join('');
    assert.equal(audit[1].prompt?.sha256, createHash('sha256').update(text).digest('hex'), 'the hash of the text sent');
  });

  it('a refused wake: exit 3, the refusal on stderr and in the log line, nothing sent', async () => {
    const id = server.directory(DIR).addSession({ state: 'generating' });
    const file = path.join(tmp, 'wake.md');
    writeFileSync(file, 'Continue.');
    const r = await run(runWake, [id, ...base, '--prompt-file', file, '--model', 'openai/gpt-5']);
    assert.equal(r.code, EXIT.refused);
    assert.match(r.stderr, /^session-ops wake: /m);
    assert.equal(r.log.length, 1);
    assert.match(r.log[0], new RegExp(`^info wake ${id}: `));
    assert.equal(server.prompts.length, 0);
  });

  it('recover at a wall with a reset within reach: exit 4 with the reset time; no retry armed, no plan persisted', async () => {
    const now = Date.now();
    server.setQuota('openai', { markedAt: now - 5000, resetAt: now + HOUR });
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, {
      error: { text: 'Weekly usage limit reached', reason: 'account_usage_limit', provider: 'anthropic' },
    });
    const args = [id, ...base, '--spacing', '0.1', '--allow-short-spacing', '--wait', '5'];
    const r = await run(runRecover, args);
    assert.equal(r.code, EXIT.waitForReset, r.stderr);
    assert.match(r.stdout, new RegExp(`retry after ${new Date(now + HOUR).toISOString()}`));
    assert.equal(r.log.length, 1);
    assert.match(r.log[0], new RegExp(`^info recover ${id}: `));
    assert.equal(server.prompts.length, 0);
    const stateFiles = existsSync(env.SESSION_OPS_STATE_DIR) ? readdirSync(env.SESSION_OPS_STATE_DIR) : [];
    assert.ok(!stateFiles.includes('operator-state.json'), `no persisted plan: ${stateFiles.join(', ')}`);
  });

  it("a person's action starts automatic mode's count of wakes again (in the state directory); none there, no file written", async () => {
    const d = server.directory(DIR);
    const id = d.addSession({ state: 'idle' });
    d.addMessage(id, { text: 'Half done.', info: { providerID: 'openai', modelID: 'gpt-5' } });
    const file = path.join(tmp, 'wake.md');
    writeFileSync(file, 'Continue with the next step.');
    const args = [id, ...base, '--prompt-file', file, '--model', 'openai/gpt-5'];
    const first = await run(runWake, args);
    assert.equal(first.code, EXIT.done, first.stderr);
    // Nothing to reset: no count written (the file holds only who assigned the worker, read once: authority rule 1).
    const written = path.join(env.SESSION_OPS_STATE_DIR, 'operator-state.json');
    assert.deepEqual(
      existsSync(written) ? parseOperatorState(JSON.parse(readFileSync(written, 'utf8'))).wakes : {},
      {},
      'nothing to reset',
    );

    // Automatic mode (the daemon, an editor) woke it three times without a report.
    const state = operatorStateFile(env.SESSION_OPS_STATE_DIR, Date.now);
    await state.save({
      ...emptyOperatorState(),
      wakes: { [wakeKey(DIR, id)]: { count: 3, changedAt: Date.now() - 1000 } },
    });
    await waitIdle(id);
    const second = await run(runWake, args);
    assert.equal(second.code, EXIT.done, second.stderr);
    assert.equal((await state.load()).state.wakes[wakeKey(DIR, id)]?.count, 0);
  });

  it('dispatch: the log line names the session by its title; --json fields as before', async () => {
    const id = server.directory(DIR).addSession({ state: 'idle', title: 'PROJ-12 worker' });
    const file = path.join(tmp, 'task.md');
    writeFileSync(file, 'Implement the parser.');
    const r = await run(runDispatch, [id, ...base, '--prompt-file', file, '--model', 'anthropic/sonnet', '--json']);
    assert.equal(r.code, EXIT.done, r.stderr);
    // The keys as before, in order; dispatch by route added two after them (issue 31).
    assert.deepEqual(Object.keys(JSON.parse(r.stdout) as object), [
      'session',
      'model',
      'sent',
      'instead',
      'variant',
      'newSession',
    ]);
    assert.equal(r.log.length, 1);
    assert.match(r.log[0], new RegExp(`^info dispatch ${id}: `));
    assert.equal(server.prompts.length, 1);
  });
});
