// `session-ops dispatch --routing FILE --label Kind/X --ticket T` (issue 31 item 3) on the spec's
// dialect: the sent prompt is the routed task then the completion-report block; an invalid table
// exits 1 and ambiguous labels exit 3 before anything is read from the backend; the route's effort
// is not sent as a variant on a dialect whose payload defines none; --new-session is refused where
// the backend does not show session creation.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ActionIo } from '../../../src/cli/action-io';
import { runDispatch } from '../../../src/cli/dispatch';
import { EXIT } from '../../../src/cli/exit-codes';
import { QUOTA_SELF_REPORT_CLAUSE } from '../../../src/core/prompt/clauses';
import { startSpecServer, type SpecServer } from '../../support/spec-server';

const complete = readFileSync(path.join(__dirname, '../../fixtures/routing/valid/complete.routing.yaml'), 'utf8');

describe('session-ops dispatch --routing (spec dialect)', function () {
  let server: SpecServer;
  let tmp: string;
  let id: string;
  let routing: string;
  beforeEach(async () => {
    server = await startSpecServer();
    server.setProviders(
      [
        { id: 'anthropic', models: { sonnet: { variants: { high: {}, max: {} } } } },
        { id: 'openai', models: ['gpt-5'] },
      ],
      ['anthropic', 'openai'],
    );
    tmp = mkdtempSync(path.join(os.tmpdir(), 'session-ops-dispatch-route-'));
    id = server.directory(tmp).addSession({ state: 'idle' });
    routing = path.join(tmp, 'routing.yaml');
    writeFileSync(routing, complete);
    writeFileSync(path.join(tmp, 'task.md'), 'Fix the crash in the parser.');
  });
  afterEach(async () => {
    await server.stop();
    rmSync(tmp, { recursive: true, force: true });
  });
  const io = (): Partial<ActionIo> & { out: string[]; err: string[] } => {
    const out: string[] = [];
    const err: string[] = [];
    return {
      out,
      err,
      env: { SESSION_OPS_STATE_DIR: path.join(tmp, 'state'), SESSION_OPS_ORCHESTRATOR: 'ses_orch' },
      stdout: (t) => out.push(t),
      stderr: (t) => err.push(t),
      localInventory: [],
    };
  };
  const base = () => ['--base-url', server.url, '--directory', tmp, '--model', 'anthropic/sonnet'];

  it('sends the routed task (entry, gates, preflight after the cap, notes, task), then the report block with the quota clause', async () => {
    const o = io();
    const code = await runDispatch(
      [
        id,
        ...base(),
        '--routing',
        routing,
        '--label',
        'Area/Parser',
        '--label',
        'Kind/Bug',
        '--ticket',
        'PROJ-12',
        '--prompt-file',
        path.join(tmp, 'task.md'),
        '--json',
      ],
      o,
    );
    assert.equal(code, EXIT.done, o.err.join(''));
    assert.equal(server.prompts.length, 1);
    const text = server.prompts[0].payload.parts[0].text;
    const order = [
      'Start: ticket PROJ-12 takes the Kind/Bug route of the routing table: enter the implement skill, mode bugfix.',
      '- skip: review-dag\n- keep (never skip these): review-code, verify',
      '1. [reproduce-first] Reproduce the bug with a failing test before fixing it. (evidence: retro C12 finding 3)',
      '2. [check-callers] List the callers of the function you change. (evidence: retro C14 finding 1)',
      'Route notes: Bugs go straight to implementation.',
      'Task:\nFix the crash in the parser.',
      'Completion report protocol:',
      'ticket=PROJ-12 label=Kind/Bug status=<done|blocked|handoff>',
      QUOTA_SELF_REPORT_CLAUSE,
    ];
    let at = -1;
    for (const n of order) {
      const i = text.indexOf(n, at + 1);
      assert.ok(i > at, `"${n}" in order in:\n${text}`);
      at = i;
    }
    // The spec's payload defines agent, model and parts: the effort's variant is not sent there.
    assert.deepEqual(Object.keys(server.prompts[0].payload).sort(), ['agent', 'model', 'parts']);
    const doc = JSON.parse(o.out.join('')) as Record<string, unknown>;
    assert.equal(doc.variant, null);
    assert.equal(doc.newSession, false);
    assert.match(
      o.err.join(''),
      /effort high \(variant high\) not sent: this backend's prompt payload defines no variant/,
    );
  });

  it('--prompt-file is optional with --routing: the route alone, then the report block', async () => {
    const o = io();
    assert.equal(
      await runDispatch([id, ...base(), '--routing', routing, '--label', 'Kind/Chore', '--ticket', 'PROJ-3'], o),
      EXIT.done,
      o.err.join(''),
    );
    const text = server.prompts[0].payload.parts[0].text;
    assert.match(text, /^Start: ticket PROJ-3 takes the Kind\/Chore route/);
    assert.doesNotMatch(text, /Task:/);
    assert.match(text, /Route notes: Lightweight, no pipeline\.\n\nCompletion report protocol:/);
  });

  it('ambiguous Kind labels: exit 3, {"ambiguous": [...]}, nothing read or sent', async () => {
    const o = io();
    const code = await runDispatch(
      [
        id,
        ...base(),
        '--routing',
        routing,
        '--label',
        'Kind/Bug',
        '--label',
        'Kind/Refactor',
        '--ticket',
        'P-1',
        '--json',
      ],
      o,
    );
    assert.equal(code, EXIT.refused);
    assert.deepEqual(JSON.parse(o.out.join('')), { ambiguous: ['Kind/Bug', 'Kind/Refactor'] });
    assert.equal(server.requests.length, 0, 'the backend is not read');
  });

  it('an invalid table: exit 1 with its diagnostics, nothing read or sent', async () => {
    writeFileSync(routing, 'version: 2\ndefault: {}\nroutes: {}\n');
    const o = io();
    const code = await runDispatch([id, ...base(), '--routing', routing, '--label', 'Kind/Bug', '--ticket', 'P-1'], o);
    assert.equal(code, EXIT.failed);
    assert.match(o.out.join(''), /error/);
    assert.match(o.err.join(''), /failed validation/);
    assert.equal(server.requests.length, 0);
  });

  it('--new-session on the spec dialect: refused (exit 3) with the reason, nothing created or sent', async () => {
    const o = io();
    const code = await runDispatch(
      ['--new-session', ...base(), '--routing', routing, '--label', 'Kind/Bug', '--ticket', 'PROJ-9'],
      o,
    );
    assert.equal(code, EXIT.refused, o.err.join(''));
    assert.match(o.err.join(''), /does not create sessions: the spec does not show session creation/);
    assert.equal(server.requests.filter((r) => r.method !== 'GET').length, 0);
  });

  it('usage: --routing needs --ticket and --label; SESSION and --new-session exclude each other; --high-risk needs --routing', async () => {
    const cases: string[][] = [
      [id, ...base(), '--routing', routing, '--label', 'Kind/Bug'],
      [id, ...base(), '--routing', routing, '--ticket', 'P-1'],
      [id, '--new-session', ...base(), '--routing', routing, '--label', 'Kind/Bug', '--ticket', 'P-1'],
      [id, ...base(), '--prompt-file', path.join(tmp, 'task.md'), '--high-risk'],
      [id, ...base(), '--prompt-file', path.join(tmp, 'task.md'), '--label', 'a', '--label', 'b'],
      ['--new-session', ...base(), '--prompt-file', path.join(tmp, 'task.md')],
    ];
    for (const argv of cases) {
      const o = io();
      assert.equal(await runDispatch(argv, o), EXIT.usage, argv.join(' '));
    }
    assert.equal(server.requests.length, 0);
  });
});
