// Authority rule 1 whatever the newest message is (issue 28, item 3): once the worker has answered,
// its assignment is read from the durable record (Session Ops' dispatch record in the operator
// state, else its first user message, read once and remembered there), and every dispatch and
// fact baseline (composed, or a --prompt-file) speaking for another orchestrator is refused (exit
// 3, nothing sent) unless --i-hold-authority confirms the authority.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCompose } from '../../../src/cli/compose';
import { runDispatch } from '../../../src/cli/dispatch';
import { runWake } from '../../../src/cli/wake';
import type { ActionIo } from '../../../src/cli/action-io';
import { startSpecServer, type SpecServer } from '../../support/spec-server';

const ASSIGNMENT = 'Port the parser. ticket=PROJ-7. Report to orchestrator ses_mine when done.';
const FACTS = {
  event: 'orchestrator restarted',
  facts: [{ statement: 'PR #34 merged', source: 'https://x/pr/34', at: '2026-11-23T11:00Z' }],
  invalidAssumptions: ['PR #34 is open'],
  assignment: 'rebase on main',
};

describe('authority rule 1 on the durable record (CLI: dispatch, wake --compose fact-baseline, wake --prompt-file)', function () {
  let server: SpecServer;
  let tmp: string;
  let id: string;
  beforeEach(async () => {
    server = await startSpecServer();
    server.setProviders(
      [
        { id: 'anthropic', models: ['sonnet'] },
        { id: 'openai', models: ['gpt-5'] },
      ],
      ['anthropic', 'openai'],
    );
    tmp = mkdtempSync(path.join(os.tmpdir(), 'session-ops-authority-record-'));
    const d = server.directory(tmp);
    id = d.addSession({ state: 'idle' });
    d.addMessage(id, { role: 'user', text: ASSIGNMENT });
    // The worker answered: its newest message names no orchestrator.
    d.addMessage(id, { text: 'On it: the lexer is done, the parser is next.' });
    writeFileSync(path.join(tmp, 'facts.json'), JSON.stringify(FACTS));
    writeFileSync(path.join(tmp, 'task.md'), 'Take over the lexer.');
  });
  afterEach(async () => {
    await server.stop();
    rmSync(tmp, { recursive: true, force: true });
  });
  const io = (orchestrator?: string): Partial<ActionIo> & { out: string[] } => {
    const out: string[] = [];
    return {
      out,
      env: { SESSION_OPS_STATE_DIR: path.join(tmp, 'state'), SESSION_OPS_ORCHESTRATOR: orchestrator },
      stdout: (t) => out.push(t),
      stderr: (t) => out.push(t),
      localInventory: [],
    };
  };
  const base = () => ['--base-url', server.url, '--directory', tmp];
  const transcriptReads = () =>
    server.requests.filter((r) => r.method === 'GET' && r.path.endsWith(`/session/${id}/message`) && !r.query.limit)
      .length;
  const dispatch = (extra: string[], o = io()) =>
    runDispatch(
      [id, ...base(), '--prompt-file', path.join(tmp, 'task.md'), '--model', 'anthropic/sonnet', ...extra],
      o,
    );

  it('dispatch --orchestrator OTHER after the worker answered: exit 3 naming its first user message, nothing sent; read once', async () => {
    const refused = io();
    assert.equal(await dispatch(['--orchestrator', 'ses_other'], refused), 3, refused.out.join(''));
    assert.match(
      refused.out.join(''),
      /authority rule 1: the worker's assignment \(its first user message\) names orchestrator ses_mine, but this prompt speaks for ses_other/,
    );
    assert.equal(server.prompts.length, 0);
    const again = io();
    assert.equal(await dispatch(['--orchestrator', 'ses_other'], again), 3);
    assert.equal(transcriptReads(), 1, 'the first user message is read once and remembered in the operator state');
    const state = JSON.parse(readFileSync(path.join(tmp, 'state', 'operator-state.json'), 'utf8')) as {
      assignments: Record<string, { orchestrator: string; source: string; ticket: string }>;
    };
    assert.deepEqual(
      Object.values(state.assignments).map((a) => [a.orchestrator, a.source, a.ticket]),
      [['ses_mine', 'first-message', 'PROJ-7']],
    );
  });

  it('a dispatch is recorded: a later dispatch by another orchestrator is refused on the dispatch record; --i-hold-authority re-tasks and is recorded', async () => {
    const fresh = server.directory(tmp).addSession({ state: 'idle' });
    const args = [fresh, ...base(), '--prompt-file', path.join(tmp, 'task.md'), '--model', 'anthropic/sonnet'];
    const first = io();
    assert.equal(await runDispatch([...args, '--orchestrator', 'ses_mine'], first), 0, first.out.join(''));
    server.directory(tmp).addMessage(fresh, { text: 'Started on the lexer.' });
    const other = io();
    assert.equal(await runDispatch([...args, '--orchestrator', 'ses_other'], other), 3);
    assert.match(
      other.out.join(''),
      /the worker's assignment \(its dispatch record\) names orchestrator ses_mine, but this prompt speaks for ses_other/,
    );
    assert.equal(server.prompts.length, 1);
    const held = io();
    assert.equal(await runDispatch([...args, '--orchestrator', 'ses_other', '--i-hold-authority'], held), 0);
    assert.equal(server.prompts.length, 2);
    server.directory(tmp).addMessage(fresh, { text: 'Switched to the new task.' });
    const old = io();
    assert.equal(await runDispatch([...args, '--orchestrator', 'ses_mine'], old), 3, 'the re-task is the record now');
    assert.match(old.out.join(''), /names orchestrator ses_other, but this prompt speaks for ses_mine/);
  });

  it('wake --compose fact-baseline speaking for another orchestrator after the worker answered: exit 3', async () => {
    const args = [id, ...base(), '--model', 'anthropic/sonnet', '--wait', '0', '--compose', 'fact-baseline'];
    const refused = io('ses_other');
    assert.equal(await runWake([...args, '--facts', path.join(tmp, 'facts.json')], refused), 3);
    assert.match(refused.out.join(''), /authority rule 1: the worker's assignment \(its first user message\)/);
    assert.equal(server.prompts.length, 0);
    const mine = io('ses_mine');
    assert.notEqual(await runWake([...args, '--facts', path.join(tmp, 'facts.json')], mine), 3, mine.out.join(''));
    assert.equal(server.prompts.length, 1);
  });

  it('wake --prompt-file with a fact baseline: checked; one redirecting its reports to another orchestrator is refused', async () => {
    // The document as `compose` writes it, speaking for ses_other (compose only reads).
    const file = path.join(tmp, 'baseline.md');
    const composed = io('ses_other');
    assert.equal(
      await runCompose(
        ['fact-baseline', id, ...base(), '--facts', path.join(tmp, 'facts.json'), '--out', file, '--i-hold-authority'],
        composed,
      ),
      0,
      composed.out.join(''),
    );
    assert.match(readFileSync(file, 'utf8'), /to the orchestrator session ses_other through/);
    // compose checks the record too: without --i-hold-authority it prints nothing (exit 3).
    const unheld = io('ses_other');
    assert.equal(
      await runCompose(['fact-baseline', id, ...base(), '--facts', path.join(tmp, 'facts.json')], unheld),
      3,
    );
    assert.match(unheld.out.join(''), /authority rule 1: the worker's assignment \(its first user message\)/);
    const args = [id, ...base(), '--model', 'anthropic/sonnet', '--wait', '0', '--prompt-file', file];
    // Sent as ses_mine (the environment), its reports still go to ses_other: a redirect.
    const redirect = io('ses_mine');
    assert.equal(await runWake(args, redirect), 3, redirect.out.join(''));
    assert.match(redirect.out.join(''), /but this prompt speaks for ses_other; only the session holding/);
    assert.equal(server.prompts.length, 0);
    const held = io('ses_other');
    assert.notEqual(await runWake([...args, '--i-hold-authority'], held), 3, held.out.join(''));
    assert.equal(server.prompts.length, 1);
  });
});
