// Re-splitting after an edit: the same chunks and line starts as splitting the edited text whole,
// under random edits of a routing table (route lines, route keys, indentation, top-level lines,
// comments, blank lines, insertions and deletions anywhere), and the cases that must fall back.
import assert from 'node:assert/strict';
import { splitDocument } from '../../../../src/language/routing/chunks';
import { diffTexts, resplit } from '../../../../src/language/routing/resplit';

function table(n: number): string {
  const lines = ['version: 1', 'default: {}', 'preflight:', '  max_items: 2', 'routes:'];
  for (let i = 0; i < n; i++)
    lines.push(
      `  Kind/R${i}:`,
      '    entry:',
      '      skill: implement',
      '    skip: [verify]',
      `    notes: Route ${i}.`,
      '',
      '    # comment',
      '    effort: high',
    );
  return lines.join('\n') + '\n';
}

function rng(seed: number): () => number {
  return () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
}

describe('routing resplit', () => {
  it('finds the common prefix and suffix of two texts', () => {
    assert.deepEqual(diffTexts('abcdef', 'abXdef'), { prefix: 2, suffix: 3 });
    assert.deepEqual(diffTexts('abc', 'abc'), { prefix: 3, suffix: 0 });
    assert.deepEqual(diffTexts('aaaa', 'aaaaaa'), { prefix: 4, suffix: 0 });
    assert.deepEqual(diffTexts('xab', 'ab'), { prefix: 0, suffix: 2 });
    assert.deepEqual(diffTexts('', 'ab'), { prefix: 0, suffix: 0 });
  });

  it('equals a whole split under random edits', () => {
    const rnd = rng(11);
    const pieces = [
      '  Kind/New:\n',
      '    effort: low\n',
      'x',
      '\n',
      '  ',
      ' ',
      '#',
      'top: 1\n',
      '\t',
      ':',
      '  Kind/R3:\n',
      '   odd: 1\n',
      '\r\n',
    ];
    let resplitUsed = 0;
    for (let t = 0; t < 1500; t++) {
      const before = table(6 + Math.floor(rnd() * 6));
      const old = splitDocument(before);
      let after = before;
      const edits = 1 + Math.floor(rnd() * 2);
      for (let k = 0; k < edits; k++) {
        const at = Math.floor(rnd() * after.length);
        const del = rnd() < 0.5 ? Math.floor(rnd() * 30) : 0;
        const ins = rnd() < 0.8 ? pieces[Math.floor(rnd() * pieces.length)] : '';
        after = after.slice(0, at) + ins + after.slice(Math.min(after.length, at + del));
      }
      const whole = splitDocument(after);
      const r = resplit(before, old, after, diffTexts(before, after));
      if (!r) continue;
      resplitUsed++;
      assert.deepEqual(r.lineStarts, whole.lineStarts, JSON.stringify(after));
      assert.deepEqual(r.chunks, whole.chunks, JSON.stringify(after));
    }
    assert.ok(resplitUsed > 500, `resplit answered ${resplitUsed} times`);
  });

  it('gives up (null) when an edit reaches a top-level line or the first route', () => {
    const before = table(3);
    const old = splitDocument(before);
    const top = before.replace('version: 1', 'version: 2');
    assert.equal(resplit(before, old, top, diffTexts(before, top)), null);
    const out = before.replace('  Kind/R1:', 'other: 1');
    assert.equal(resplit(before, old, out, diffTexts(before, out)), null);
    const inRoute = before.replace('Route 1.', 'Route one.');
    const r = resplit(before, old, inRoute, diffTexts(before, inRoute));
    assert.ok(r);
    assert.deepEqual(r, splitDocument(inRoute));
  });
});
