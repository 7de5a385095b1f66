// `compose fact-baseline --facts FILE`: a facts file with an empty part is a usage error (exit 2)
// naming the part, before any request is made.
import assert from 'node:assert/strict';
import { runCompose } from '../../../src/cli/compose';

const good = {
  event: 'the orchestrator restarted',
  facts: [{ statement: 'PR #34 merged', source: 'https://git.example/pr/34', at: '2026-01-05T11:00:00Z' }],
  invalidAssumptions: ['none'],
  assignment: { kind: 'standby', until: 'noon' },
};

async function compose(facts: unknown) {
  let stdout = '';
  let stderr = '';
  const code = await runCompose(
    ['fact-baseline', 'ses_1', '--base-url', 'http://127.0.0.1:9', '--directory', '/w', '--facts', 'facts.json'],
    {
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      readFile: async () => JSON.stringify(facts),
    },
  );
  return { code, stdout, stderr };
}

describe('session-ops compose fact-baseline --facts: empty parts', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['an empty timestamp', { ...good, facts: [{ ...good.facts[0], at: '' }] }, /fact 1: the timestamp is empty/],
    ['an empty assignment', { ...good, assignment: '' }, /part 3: the assignment is empty/],
    ['a standby without an end', { ...good, assignment: { kind: 'standby' } }, /part 3: a standby needs its end/],
    ['no invalid assumption named', { ...good, invalidAssumptions: [] }, /write "none"/],
  ];
  for (const [what, facts, message] of cases)
    it(`${what}: exit 2 naming the part`, async () => {
      const r = await compose(facts);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, message);
      assert.equal(r.stdout, '');
    });
});
