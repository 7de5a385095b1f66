// The fast parser in steps (fastSteps.ts) against the fast parser in one go: the same tree (every
// range and value) or the same giving up, on random documents split into the smallest ranges, and
// on large tables, which it reads in many slices.
import assert from 'node:assert/strict';
import { BAIL, fastParse } from '../../../../src/language/routing/fastParse';
import { fastParseSteps, FAST_STEPS, type FastStepOptions } from '../../../../src/language/routing/fastSteps';
import type { RNode } from '../../../../src/language/routing/rnode';
import { routingTableOfSize } from '../../../lsp/support/hostile-documents';
import { mulberry, randomDoc, strip } from './yamlDocs';

/** Runs the steps to the end: the result and how many times they yielded. */
function run(src: string, options?: FastStepOptions): { result: ReturnType<typeof fastParse>; yields: number } {
  const it = fastParseSteps(src, options);
  for (let yields = 0; ; yields++) {
    const r = it.next();
    if (r.done) return { result: r.value, yields };
  }
}

function assertSame(src: string, options?: FastStepOptions): void {
  const whole = fastParse(src);
  const { result } = run(src, options);
  const what = `${JSON.stringify(src.slice(0, 400))} ${JSON.stringify(options)}`;
  if (whole === BAIL) {
    assert.equal(result, BAIL, `the steps read what the whole parse gives up on: ${what}`);
    return;
  }
  assert.notEqual(result, BAIL, `the steps gave up on what the whole parse reads: ${what}`);
  assert.deepEqual(strip(result as RNode | null), strip(whole), what);
  assert.deepEqual(result ? (result as RNode).value : null, whole ? whole.value : null, what);
}

describe('fast YAML parser in steps', () => {
  it('reads 20,000 random documents exactly as the whole parse does, in ranges of every size', () => {
    for (const seed of [11, 12, 13, 14]) {
      const rnd = mulberry(seed);
      for (let t = 0; t < 5000; t++) {
        const src = randomDoc(rnd);
        const group = 1 + Math.floor(rnd() * 40);
        assertSame(src, { min: 0, group, big: Math.floor(rnd() * 60), linesPerStep: 1 + Math.floor(rnd() * 4) });
      }
    }
  });

  const cases = {
    'a routing table': 'version: 1\nroutes:\n  Kind/A:\n    effort: high\n  Kind/B:\n    skip: [x]\n# end\n',
    'a duplicated top-level key': 'a: 1\nroutes:\n  Kind/A:\n    e: 1\na: 2\n',
    'a sequence at the key indentation': 'a:\n- 1\n- 2\nb:\n  c:\n  - x\n',
    'a lone scalar below a key': 'a:\n  text\nb: 1\n',
    'a line indented between levels': 'a:\n    b: 1\n  c: 2\n',
    'a root sequence': '- a: 1\n- b: 2\n-   c\n',
    'comments and blank lines between entries': '# h\n\na: 1\n\n  # x\nb:\n\n  c: 1\n  # y\n\n  d: 2\n',
    'an item after a map entry': 'a: 1\n- b\n',
    'a flow map at the start of a line': 'a: 1\n{b: 2}\n',
    'document markers': 'a: 1\n---\nb: 2\n',
    'CRLF line ends': 'a: 1\r\nb:\r\n  c: 1\r\n  d: 2\r\n',
    'a tab in the indentation': 'a:\n  b: 1\n\tc: 2\n',
  };
  for (const [name, src] of Object.entries(cases))
    it(`reads ${name} exactly as the whole parse does`, () => {
      for (let group = 1; group < src.length; group += 3)
        for (const big of [0, 4, 12, 1000]) assertSame(src, { min: 0, group, big, linesPerStep: 2 });
    });

  it('reads a large table with a duplicated top-level key in many slices, exactly as the whole parse does', () => {
    const src = routingTableOfSize(1) + 'version: 2\n';
    const { result, yields } = run(src);
    assert.notEqual(fastParse(src), BAIL);
    assert.deepEqual(strip(result as RNode), strip(fastParse(src) as RNode));
    // at least one yield per `group` characters: no range handed to the parser is much larger
    assert.ok(yields >= src.length / FAST_STEPS.group, `${yields} yields for ${src.length} characters`);
  });
});
