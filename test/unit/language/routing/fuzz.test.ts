// A bounded fuzz run over mutated routing tables (bench/fuzz.mjs runs many more): no throw, a
// bounded time, every position inside the document, the editor features answering afterwards.
import fc from 'fast-check';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { checkRouting, routingCase } from './fuzzCases';

const dir = path.join(__dirname, '../../../fixtures/routing/valid');
const bases = readdirSync(dir).map((f) => readFileSync(path.join(dir, f), 'utf8'));

describe('routing fuzz (bounded)', () => {
  it('60 mutated tables (inputs up to a tenth of the bench sizes): no throw, bounded time, positions inside the document', () => {
    fc.assert(
      fc.property(routingCase(bases, 0.1), (text) => {
        checkRouting(text, 10_000);
      }),
      { numRuns: 60, seed: 14 },
    );
  });
});
