// One property of the decision table as a fast-check property over generated fleets: each fleet
// runs through the harness once and is checked; the traces of one seed are shared between the
// properties (they generate the same fleets), so every property is its own fast-check run (its own
// seed, counterexample and shrinking) without running each fleet once per property. The failing
// cases kept (test/unit/properties/regressions.json) are replayed first, as fast-check examples.
import fc from 'fast-check';
import regressions from '../../unit/properties/regressions.json';
import type { SpecServer } from '../spec-server';
import { fleetArbitrary, type Fleet } from './arbitraries';
import { runFleet, type Trace } from './harness';
import type { Property } from './invariants';

export interface Regression {
  property: string;
  /** The issue-28 class it hits (the branch fixing it). */
  class: string;
  /** How fast-check found it: replay with { seed, path } on the generator of the time. */
  seed: number;
  path: string;
  note: string;
  /** The shrunk counterexample, replayed as it is. */
  fleet: Fleet;
}

export const REGRESSIONS = regressions as unknown as Regression[];

/** Traces by fleet (JSON), kept while the properties of one seed run. */
export class TraceCache {
  private readonly traces = new Map<string, Trace>();
  runs = 0;
  constructor(
    private readonly server: () => SpecServer,
    private readonly limit = 2_000,
  ) {}

  async trace(fleet: Fleet): Promise<Trace> {
    const key = JSON.stringify(fleet);
    const kept = this.traces.get(key);
    if (kept) return kept;
    const trace = await runFleet(this.server(), fleet);
    this.runs++;
    if (this.traces.size < this.limit) this.traces.set(key, trace);
    return trace;
  }

  clear(): void {
    this.traces.clear();
  }
}

export function fleetProperty(p: Property, cache: TraceCache): fc.IAsyncPropertyWithHooks<[Fleet]> {
  return fc.asyncProperty(fleetArbitrary, async (fleet) => {
    const broken = p.check(await cache.trace(fleet));
    if (broken !== null) throw new Error(`${p.id}: ${broken}`);
  });
}

export function examplesFor(p: Property): Array<[Fleet]> {
  return REGRESSIONS.filter((r) => r.property === p.id).map((r) => [r.fleet]);
}

/** fast-check's assert of one property (the seed and the shrunk counterexample are in its error). */
export async function assertProperty(
  p: Property,
  cache: TraceCache,
  options: { numRuns: number; seed: number },
): Promise<void> {
  await fc.assert(fleetProperty(p, cache), {
    numRuns: options.numRuns,
    seed: options.seed,
    examples: examplesFor(p),
  });
}
