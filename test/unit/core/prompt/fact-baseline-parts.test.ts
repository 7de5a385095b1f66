// A fact baseline with an empty part is refused with the part named: an empty timestamp, an empty
// assignment, a standby without an end, no invalid assumption named ("none" says so).
import assert from 'node:assert/strict';
import { readBaselineFacts } from '../../../../src/core/actions/compose';
import { composeFactBaseline, factBaselineProblem } from '../../../../src/core/prompt/fact-baseline';

const NOW = Date.UTC(2026, 0, 5, 12);
const good = {
  event: 'the orchestrator restarted',
  facts: [{ statement: 'PR #34 merged', source: 'https://git.example/pr/34', at: '2026-01-05T11:00:00Z' }],
  invalidAssumptions: ['PR #34 is still open'],
  assignment: { kind: 'task' as const, step: 'rebase onto main' },
};

describe('fact baseline: every part filled', () => {
  it('a complete baseline has no problem', () => {
    assert.equal(factBaselineProblem(good), null);
    assert.equal(factBaselineProblem({ ...good, invalidAssumptions: ['none'] }), null);
  });

  it('an empty timestamp is refused, naming the fact', () => {
    const p = factBaselineProblem({ ...good, facts: [{ ...good.facts[0], at: '  ' }] });
    assert.match(p ?? '', /part 2.*fact 1.*timestamp is empty/);
  });

  it('an empty assignment is refused', () => {
    assert.match(
      factBaselineProblem({ ...good, assignment: { kind: 'task', step: ' ' } }) ?? '',
      /part 3.*assignment is empty/,
    );
  });

  it('a standby without an end is refused', () => {
    assert.match(
      factBaselineProblem({ ...good, assignment: { kind: 'standby', until: '' } }) ?? '',
      /part 3.*standby needs its end/,
    );
  });

  it('no invalid assumption named is refused; "none" says so', () => {
    assert.match(factBaselineProblem({ ...good, invalidAssumptions: [] }) ?? '', /part 2.*invalid.*write "none"/);
    assert.match(factBaselineProblem({ ...good, invalidAssumptions: ['', ' '] }) ?? '', /write "none"/);
  });

  it('an empty event is refused as part 1', () => {
    assert.match(factBaselineProblem({ ...good, event: ' ' }) ?? '', /part 1.*event/);
  });

  it('composeFactBaseline refuses the same (below every caller)', () => {
    assert.throws(
      () => composeFactBaseline({ ...good, invalidAssumptions: [], now: NOW, uncommittedFiles: [] }),
      /write "none"/,
    );
    const text = composeFactBaseline({ ...good, invalidAssumptions: ['none'], now: NOW, uncommittedFiles: [] });
    assert.match(text, /Standing assumptions now invalid: none\./);
  });

  it('readBaselineFacts (compose fact-baseline --facts) refuses an empty part, naming it', () => {
    assert.match(
      readBaselineFacts({ ...good, assignment: { kind: 'standby', until: '' } }) as string,
      /standby needs its end/,
    );
    assert.match(readBaselineFacts({ ...good, invalidAssumptions: undefined }) as string, /write "none"/);
    assert.match(readBaselineFacts({ ...good, facts: [{ ...good.facts[0], at: '' }] }) as string, /timestamp is empty/);
    assert.match(readBaselineFacts({ ...good, assignment: '' }) as string, /assignment is empty/);
  });
});
