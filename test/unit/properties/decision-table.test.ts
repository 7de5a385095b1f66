// Issue 28 item 11: the decision table as properties. Generated fleets (test/support/fleet) run
// through the real core (the spec-dialect server's recorded HTTP, BackendClient, SessionMonitor,
// Operator) and every invariant in test/support/fleet/invariants.ts is a fast-check property
// here; the failing cases kept in ./regressions.json are replayed first.
// A fixed budget: PROPS_RUNS fleets per property (default 60; the traces of one seed are shared,
// so this runs 60 fleets once). fast-check prints the seed and the shrunk counterexample of a
// failure; PROPS_SEED replays a seed. The long run: `npm run props -- --runs 100000`.
import assert from 'node:assert/strict';
import { assertProperty, REGRESSIONS, TraceCache } from '../../support/fleet/check';
import { PROPERTIES } from '../../support/fleet/invariants';
import { startSpecServer, type SpecServer } from '../../support/spec-server';

const RUNS = Number(process.env.PROPS_RUNS ?? 60);
const SEED = process.env.PROPS_SEED !== undefined ? Number(process.env.PROPS_SEED) : Date.now() % 2_147_483_647;

describe('properties: the decision table on generated fleets (issue 28 item 11)', function () {
  this.timeout(120_000);
  let server: SpecServer;
  const cache = new TraceCache(() => server);

  before(async () => {
    server = await startSpecServer();
  });
  after(async () => {
    cache.clear();
    await server.stop();
  });

  it('the invariants have unique ids; every kept case names a property', () => {
    assert.ok(PROPERTIES.length > 0);
    assert.equal(new Set(PROPERTIES.map((p) => p.id)).size, PROPERTIES.length, 'property ids are unique');
    for (const r of REGRESSIONS)
      assert.ok(
        PROPERTIES.some((p) => p.id === r.property),
        `regression case for unknown property ${r.property}`,
      );
  });

  for (const p of PROPERTIES) {
    it(`${p.title} [${p.id}]`, async () => {
      await assertProperty(p, cache, { numRuns: RUNS, seed: SEED });
    });
  }
});
