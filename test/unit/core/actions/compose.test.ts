import assert from 'node:assert/strict';
import { resolveAuthority } from '../../../../src/core/actions/authority';
import { composePrompt, readBaselineFacts, type ComposeInputs } from '../../../../src/core/actions/compose';
import { ANTI_RE_HANG_CLAUSE, EVIDENCE_RULE, QUOTA_SELF_REPORT_CLAUSE } from '../../../../src/core/prompt/clauses';

const NOW = Date.UTC(2026, 10, 23, 12, 0, 0);
const inputs = (extra: Partial<ComposeInputs> = {}): ComposeInputs => ({
  now: NOW,
  authority: resolveAuthority({ ticket: 'PROJ-12', orchestrator: 'ses_orch1' }),
  inventory: {
    files: ['src/a.ts', 'odd`name.ts'],
    commits: ['abc1234 Parser: accept CRLF'],
    source: 'git',
    note: 'from git',
  },
  ...extra,
});

describe('composePrompt', () => {
  it('wake: why, task, resume, uncommitted files, evidence rule, anti-re-hang clause, report block', () => {
    const c = composePrompt('wake', inputs({ task: 'Fix the parser', resume: 'run the tests' }));
    assert.ok(c.ok);
    for (const part of [
      'went idle while the task is unfinished',
      'Task: Fix the parser',
      'Resume with: run the tests',
      '`src/a.ts`',
      '"odd`name.ts"',
      EVIDENCE_RULE,
      ANTI_RE_HANG_CLAUSE,
      'ticket=PROJ-12',
      'ses_orch1',
      QUOTA_SELF_REPORT_CLAUSE,
    ]) {
      assert.ok(c.text.includes(part), `missing: ${part}`);
    }
    assert.ok(!/Fill </.test(c.text), 'no fill note when ticket and orchestrator are known');
  });
  it('wake after an abort never says queued prompts "were dropped" (the wake re-sends them); without an inventory it says so', () => {
    const c = composePrompt(
      'wake',
      inputs({ wakeReason: 'hung', inventory: { files: null, commits: [], source: null, note: 'x' } }),
    );
    assert.ok(c.ok && c.text.includes('the session was frozen and has been aborted'));
    assert.ok(c.ok && !/dropped/.test(c.text), 'no "dropped" without the text');
    assert.ok(c.ok && c.text.includes('the inventory was not available'));
  });
  it('quota-wake: what happened (provider, reset), what is done (commits, PR, files), resume, evidence, self-report clause', () => {
    const c = composePrompt(
      'quota-wake',
      inputs({
        wall: { provider: 'anthropic', category: 'usage-limit', resetAt: NOW + 3_600_000, text: 'Weekly limit' },
        nextModel: { providerID: 'openai', modelID: 'gpt-5' },
        pullRequest: '#34 open',
      }),
    );
    assert.ok(c.ok);
    for (const part of [
      'killed by a usage limit on anthropic',
      'expected reset 2026-11-23T13:00:00.000Z',
      'You now run on openai/gpt-5',
      'abc1234 Parser',
      'Pull request: #34 open',
      '`src/a.ts`',
      'Where to resume:',
      EVIDENCE_RULE,
      ANTI_RE_HANG_CLAUSE,
      QUOTA_SELF_REPORT_CLAUSE,
    ]) {
      assert.ok(c.text.includes(part), `missing: ${part}`);
    }
  });
  it('quota-wake refuses without a wall, without a model, and on the wall provider', () => {
    assert.match(
      (composePrompt('quota-wake', inputs({ nextModel: { providerID: 'o', modelID: 'm' } })) as { problem: string })
        .problem,
      /not at a quota wall/,
    );
    assert.match(
      (
        composePrompt('quota-wake', inputs({ wall: { provider: 'a', category: 'rate-limit', resetAt: null } })) as {
          problem: string;
        }
      ).problem,
      /--model/,
    );
    const same = composePrompt(
      'quota-wake',
      inputs({
        wall: { provider: 'a', category: 'rate-limit', resetAt: null },
        nextModel: { providerID: 'a', modelID: 'm' },
      }),
    );
    assert.ok(!same.ok && /failed provider is not acceptable/.test(same.problem));
  });
  it('fact-baseline: the four parts from the facts', () => {
    const baseline = readBaselineFacts({
      event: 'orchestrator restarted',
      facts: [{ statement: 'PR #34 merged', source: 'https://x/pr/34', at: '2026-11-23T11:00Z' }],
      invalidAssumptions: ['PR #34 is open'],
      assignment: 'rebase on main',
    });
    assert.ok(typeof baseline !== 'string');
    const c = composePrompt('fact-baseline', inputs({ baseline }));
    assert.ok(c.ok);
    assert.match(
      c.text,
      /^1\. You were woken: your worldview is stale\. Event: orchestrator restarted\. Current time: 2026-11-23T12:00:00.000Z/,
    );
    for (const part of [
      '2. Authoritative facts:',
      'PR #34 merged (source: https://x/pr/34',
      'PR #34 is open',
      '3. Assignment: rebase on main',
      `4. ${EVIDENCE_RULE}`,
    ])
      assert.ok(c.text.includes(part), part);
    assert.match((composePrompt('fact-baseline', inputs()) as { problem: string }).problem, /--facts FILE/);
  });
  it('dispatch: the task, then the completion-report block with the quota self-report clause unchanged', () => {
    const c = composePrompt('dispatch', inputs({ task: 'Implement PROJ-12.\nDetails below.' }));
    assert.ok(c.ok);
    assert.ok(c.text.startsWith('Implement PROJ-12.\nDetails below.\n\nCompletion report protocol:'));
    assert.ok(c.text.includes(`\n${QUOTA_SELF_REPORT_CLAUSE}`));
    assert.match((composePrompt('dispatch', inputs({ task: '  ' })) as { problem: string }).problem, /--prompt-file/);
  });
  it('unknown ticket and orchestrator: said to be unknown (no placeholder), the worker takes them from its assignment', () => {
    const c = composePrompt('dispatch', inputs({ task: 'Do it', authority: resolveAuthority({}) }));
    assert.ok(c.ok);
    assert.ok(!c.text.includes('ticket=<ticket>') && !c.text.includes('<orchestrator session id>'));
    assert.ok(c.text.includes('ticket=<the ticket reference of your assignment>'));
    assert.match(
      c.text,
      /Session Ops did not read your ticket reference or your orchestrator session id \(unknown: .*take them from your assignment/,
    );
  });
  it('readBaselineFacts says what is wrong with a facts file', () => {
    assert.match(readBaselineFacts(null) as string, /JSON object/);
    assert.match(readBaselineFacts({ facts: [] }) as string, /"event"/);
    assert.match(readBaselineFacts({ event: 'e', facts: [] }) as string, /non-empty/);
    assert.match(readBaselineFacts({ event: 'e', facts: [{ statement: 's' }] }) as string, /source/);
    assert.match(
      readBaselineFacts({ event: 'e', facts: [{ statement: 's', source: 'x', at: 1 }] }) as string,
      /assignment/,
    );
    assert.deepEqual(
      (
        readBaselineFacts({
          event: 'e',
          facts: [{ statement: 's', source: 'x', at: 1 }],
          invalidAssumptions: ['none'],
          assignment: { kind: 'standby', until: 'noon' },
        }) as { assignment: unknown }
      ).assignment,
      { kind: 'standby', until: 'noon' },
    );
  });
});
