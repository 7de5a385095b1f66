// Authority rule 1 enforced: a fact baseline or a dispatch to a worker whose newest assignment
// names another orchestrator is refused unless the person confirms holding the orchestrating
// authority (--i-hold-authority on the CLI); a plain wake keeps only the warning.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runDispatch } from '../../../../src/cli/dispatch';
import { runWake } from '../../../../src/cli/wake';
import type { ActionIo } from '../../../../src/cli/action-io';
import { assignedBy, resolveAuthority, retaskRefusal } from '../../../../src/core/actions/authority';
import { composePrompt, readBaselineFacts } from '../../../../src/core/actions/compose';
import { startSpecServer, type SpecServer } from '../../../support/spec-server';

const ASSIGNMENT = 'Port the parser. ticket=PROJ-7. Report to orchestrator ses_other when done.';

describe('authority rule 1 (fact baselines and dispatches)', function () {
  it('retaskRefusal: a mismatch refuses both, unless the authority is confirmed; no mismatch passes', () => {
    const mine = { orchestrator: 'ses_mine', newestUserText: ASSIGNMENT };
    const a = resolveAuthority(mine);
    assert.deepEqual([a.named, a.mismatch, a.held], ['ses_other', true, false]);
    assert.match(
      retaskRefusal(a, 'fact-baseline') ?? '',
      /^authority rule 1: the worker's newest assignment names orchestrator ses_other, but this prompt speaks for ses_mine; only the session holding the orchestrating authority may inject a fact baseline into the worker/,
    );
    assert.match(retaskRefusal(a, 'dispatch') ?? '', /may re-task the worker\. .*--i-hold-authority/);
    assert.equal(retaskRefusal(resolveAuthority({ ...mine, holdsAuthority: true }), 'dispatch'), null);
    assert.equal(
      retaskRefusal(resolveAuthority({ orchestrator: 'ses_other', newestUserText: ASSIGNMENT }), 'dispatch'),
      null,
    );
    assert.equal(retaskRefusal(resolveAuthority({ orchestrator: 'ses_mine' }), 'dispatch'), null);
    const none = resolveAuthority({ newestUserText: ASSIGNMENT });
    assert.match(retaskRefusal(none, 'dispatch') ?? '', /but this prompt names none/);
    // The assignment read later by the action counts too.
    const late = assignedBy(resolveAuthority({ orchestrator: 'ses_mine' }), { role: 'user', text: ASSIGNMENT });
    assert.equal(late.mismatch, true);
    assert.equal(
      assignedBy(resolveAuthority({ orchestrator: 'ses_mine' }), { role: 'assistant', text: ASSIGNMENT }).mismatch,
      false,
    );
  });

  it('composePrompt refuses a fact baseline on a mismatch (code not-authority); a wake composes with the warning', () => {
    const baseline = readBaselineFacts({
      event: 'orchestrator restarted',
      facts: [{ statement: 'PR #34 merged', source: 'https://x/pr/34', at: '2026-11-23T11:00Z' }],
      invalidAssumptions: ['PR #34 is open'],
      assignment: 'rebase on main',
    });
    assert.ok(typeof baseline !== 'string');
    const inputs = (holdsAuthority: boolean) => ({
      now: Date.UTC(2026, 10, 25, 12),
      authority: resolveAuthority({ orchestrator: 'ses_mine', newestUserText: ASSIGNMENT, holdsAuthority }),
      inventory: { files: [], commits: [], source: 'git' as const, note: 'from git' },
      baseline,
    });
    const refused = composePrompt('fact-baseline', inputs(false));
    assert.ok(!refused.ok);
    assert.equal(refused.ok ? null : refused.code, 'not-authority');
    assert.ok(composePrompt('fact-baseline', inputs(true)).ok);
    const wake = composePrompt('wake', inputs(false));
    assert.ok(wake.ok);
    assert.equal(inputs(false).authority.warnings.length, 1);
  });

  describe('the CLI', function () {
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
      tmp = mkdtempSync(path.join(os.tmpdir(), 'session-ops-authority-'));
      const d = server.directory(tmp);
      id = d.addSession({ state: 'idle' });
      d.addMessage(id, { role: 'user', text: ASSIGNMENT });
    });
    afterEach(async () => {
      await server.stop();
      rmSync(tmp, { recursive: true, force: true });
    });
    const io = (): Partial<ActionIo> & { out: string[] } => {
      const out: string[] = [];
      return {
        out,
        env: { SESSION_OPS_STATE_DIR: path.join(tmp, 'state'), SESSION_OPS_ORCHESTRATOR: 'ses_mine' },
        stdout: (t) => out.push(t),
        stderr: (t) => out.push(t),
        localInventory: [],
      };
    };
    const base = () => ['--base-url', server.url, '--directory', tmp];

    it('dispatch: exit 3 naming the rule, nothing sent; with --i-hold-authority, sent', async () => {
      const task = path.join(tmp, 'task.md');
      writeFileSync(task, 'Take over the lexer.');
      const args = [id, ...base(), '--prompt-file', task, '--model', 'anthropic/sonnet'];
      const refused = io();
      assert.equal(await runDispatch(args, refused), 3);
      assert.match(
        refused.out.join(''),
        /authority rule 1: the worker's newest assignment names orchestrator ses_other/,
      );
      assert.equal(server.prompts.length, 0);
      const held = io();
      assert.equal(await runDispatch([...args, '--i-hold-authority'], held), 0, held.out.join(''));
      assert.equal(server.prompts.length, 1);
    });

    it('wake --compose fact-baseline: exit 3 without --i-hold-authority; a plain wake goes with the warning', async () => {
      const facts = path.join(tmp, 'facts.json');
      writeFileSync(
        facts,
        JSON.stringify({
          event: 'orchestrator restarted',
          facts: [{ statement: 'PR #34 merged', source: 'https://x/pr/34', at: '2026-11-23T11:00Z' }],
          invalidAssumptions: ['PR #34 is open'],
          assignment: 'rebase on main',
        }),
      );
      const args = [id, ...base(), '--model', 'anthropic/sonnet', '--wait', '0'];
      const refused = io();
      assert.equal(await runWake([...args, '--compose', 'fact-baseline', '--facts', facts], refused), 3);
      assert.match(refused.out.join(''), /authority rule 1/);
      assert.equal(server.prompts.length, 0);
      const plain = io();
      await runWake([...args, '--compose', 'wake'], plain);
      assert.equal(server.prompts.length, 1, plain.out.join(''));
      assert.match(plain.out.join(''), /warning: the worker's newest user message names orchestrator ses_other/);
    });
  });
});
