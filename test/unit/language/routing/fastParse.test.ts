// The fast parser against `yaml`: whatever it accepts, it must read exactly as `yaml` does (same
// value, same ranges, no error), and it must accept the ordinary routing-table subset.
import assert from 'node:assert/strict';
import { BAIL, fastParse } from '../../../../src/language/routing/fastParse';
import type { RNode } from '../../../../src/language/routing/rnode';
import { mulberry, randomDoc, reference, strip } from './yamlDocs';

describe('fast YAML parser', () => {
  it('agrees with yaml on 20,000 random documents (or gives up)', () => {
    let accepted = 0;
    for (const seed of [1, 2, 3, 4]) {
      const rnd = mulberry(seed);
      for (let t = 0; t < 5000; t++) {
        const src = randomDoc(rnd);
        const f = fastParse(src);
        if (f === BAIL) continue;
        accepted++;
        const ref = reference(src);
        assert.notEqual(ref, 'error', `accepted a document yaml rejects: ${JSON.stringify(src)}`);
        if (ref === 'error') continue;
        assert.deepEqual(strip(f), ref.tree, JSON.stringify(src));
        assert.deepEqual(f ? f.value : null, ref.value, JSON.stringify(src));
      }
    }
    assert.ok(accepted > 3000, `accepted ${accepted}`);
  });

  const accepted = {
    'block mappings and sequences': 'a: 1\nb:\n  c: [x, \'y\', "z"]\n  d:\n    - 1\n    - e: f\n      g: h\n',
    'an indented root (a route chunk)':
      "  Kind/X:\n    entry:\n      skill: implement # c\n    skip: [verify, 'a' ]\n    notes:\n    pre:\n      - id: a\n        item: b\n\n      - x\n  # trailing\n\n",
    'an empty value followed by a comment': 'a:   # comment\nb: 2\n',
    'a sequence at the key indentation': 'a:\n- 1\n- 2\nb: {x: 1, y: [a, b]}\n',
    'CRLF line ends': 'a: 1\r\nb: 2\r\n',
    'core schema scalars': 'a: 0.50\nb: -0\nc: 1e3\nd: 012\ne: 2024-01-01\nf: null\ng: ~\nh:\ni: True\nj: -x\n',
    'quoted keys': '"q": 1\n\'r\': 2\n',
    'empty flow collections': 'a: [ ]\nb: { }\n',
    'duplicate keys (last wins)': 'a: 1\na: 2\n',
  };
  for (const [name, src] of Object.entries(accepted)) {
    it(`accepts ${name}, exactly as yaml reads it`, () => {
      const f = fastParse(src);
      assert.notEqual(f, BAIL);
      const ref = reference(src);
      assert.notEqual(ref, 'error');
      if (f === BAIL || ref === 'error') return;
      assert.deepEqual(strip(f), ref.tree);
      assert.deepEqual(f ? f.value : null, ref.value);
    });
  }

  const bails = {
    'anchors and aliases': 'a: &x 1\nb: *x\n',
    'block scalars': 'a: |\n  text\n',
    'multi-line plain scalars': 'a: x\n  y\n',
    'escapes in double quotes': 'a: "x\\ny"\n',
    'tabs in indentation': 'a:\n\tb: 1\n',
    'directives and document markers': '%YAML 1.2\n---\na: 1\n',
    'a byte-order mark': '\ufeffa: 1\n',
    'hex and special floats': 'a: 0x1F\n',
    'multi-line flow collections': 'a: [x,\n  y]\n',
    'an unclosed quote': 'a: "x\n',
  };
  for (const [name, src] of Object.entries(bails)) {
    it(`gives up on ${name}`, () => assert.equal(fastParse(src), BAIL));
  }

  it('parses a 1,000-route table without giving up', () => {
    const lines = ['version: 1', 'default: {}', 'routes:'];
    for (let i = 0; i < 1000; i++)
      lines.push(
        `  Kind/R${i}:`,
        '    entry:',
        '      skill: implement',
        `    skip: [verify]`,
        '    preflight:',
        `      - id: p${i}`,
        '        item: Check it.',
        '        evidence: retro C1',
        `    notes: Route ${i}.`,
        '    effort: high',
      );
    const r = fastParse(lines.join('\n') + '\n');
    assert.notEqual(r, BAIL);
    assert.equal(Object.keys(((r as RNode).value as { routes: object }).routes).length, 1000);
  });
});
