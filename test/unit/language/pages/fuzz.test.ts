// A bounded fuzz run over mutated source-analysis pages (bench/fuzz.mjs runs many more): no throw,
// a bounded time, every position inside the page, symbols, hover and cross-page checks answering.
import fc from 'fast-check';
import { readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { checkPageText, pageCase, type PageBase } from './fuzzCases';

export function loadPageBases(root: string): PageBase[] {
  const out: PageBase[] = [];
  const sets = [
    ...readdirSync(path.join(root, 'test/editor/workspace/ports')).map((p) =>
      path.join(root, 'test/editor/workspace/ports', p, 'source-analysis'),
    ),
    ...readdirSync(path.join(root, 'test/fixtures/pages/valid')).map((p) =>
      path.join(root, 'test/fixtures/pages/valid', p, 'source-analysis'),
    ),
  ];
  // fuzzed pages are validated under a made-up folder, one per set, so that sets never mix
  sets.forEach((dir, i) => {
    for (const f of readdirSync(dir).sort())
      out.push({ file: `/fuzz/set${i}/source-analysis/${f}`, text: readFileSync(path.join(dir, f), 'utf8') });
  });
  return out;
}

const bases = loadPageBases(path.join(__dirname, '../../../..'));

describe('page fuzz (bounded)', () => {
  it('30 mutated pages (inputs up to a fiftieth of the bench sizes): no throw, bounded time, positions inside the page', () => {
    fc.assert(
      fc.property(pageCase(bases, 0.02), (page) => {
        checkPageText(
          page,
          bases.filter((b) => path.dirname(b.file) === path.dirname(page.file)),
          10_000,
        );
      }),
      { numRuns: 30, seed: 14 },
    );
  }).timeout(60_000);
});
