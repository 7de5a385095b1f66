// The fast parser against `yaml`: whatever it accepts, it must read exactly as `yaml` does (same
// value, same ranges, no error), and it must accept the ordinary routing-table subset.
import assert from 'node:assert/strict';
import { parseDocument } from 'yaml';
import { BAIL, fastParse } from '../../../../src/language/routing/fastParse';
import { fromYaml, type RNode } from '../../../../src/language/routing/rnode';

function strip(n: RNode | null): unknown {
  if (!n) return null;
  switch (n.kind) {
    case 'scalar':
      return ['S', n.start, n.end, n.value, n.style];
    case 'alias':
      return ['A', n.start, n.end];
    case 'seq':
      return ['Q', n.start, n.end, n.flow, n.items.map(strip)];
    case 'map':
      return ['M', n.start, n.end, n.flow, n.pairs.map((p) => [p.name, strip(p.key), strip(p.value)])];
  }
}

function reference(src: string): { tree: unknown; value: unknown } | 'error' {
  const doc = parseDocument(src, { uniqueKeys: false });
  if (doc.errors.length) return 'error';
  return { tree: strip(doc.contents ? fromYaml(doc.contents, doc, src) : null), value: doc.toJS() ?? null };
}

function mulberry(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SCALARS = [
  'a',
  'foo bar',
  'x#y',
  'x #c',
  "'q'",
  "'it''s'",
  '"dq"',
  '"a\\"b"',
  '1',
  '-1',
  '-0',
  '0.5',
  '1.',
  '.5',
  '1e3',
  '0x1F',
  '0o7',
  '.inf',
  '.nan',
  'null',
  '~',
  'Null',
  'true',
  'False',
  'yes',
  '2024-01-01',
  '-x',
  ':x',
  '?x',
  'a: b',
  'a:b',
  'a:',
  '"a # b"',
  '[a, b]',
  '[ a , "b" ]',
  '{a: 1, b: [c]}',
  '{}',
  '[]',
  '[a,]',
  '[a: b]',
  '{a: }',
  '&x y',
  '*x',
  '!t x',
  '|',
  '>',
  '@x',
  '`x',
  'a\tb',
  ' ',
  '%x',
  'Kind/Bug',
  'review-code',
  '"unterminated',
  "'un",
  '[a',
  '{a: 1',
  '#c',
  'a  ',
  '"x":y',
  '9007199254740993',
  '+12',
  '012',
];
const KEYS = [
  'a',
  'b',
  'c',
  'Kind/X',
  'my key',
  '"q k"',
  "'s k'",
  '$schema',
  '-k',
  'a:b',
  '<<',
  'x#y',
  '? k',
  '- k',
  'k ',
  'true',
  '1',
];

function randomDoc(rnd: () => number): string {
  const pick = <T>(a: T[]): T => a[Math.floor(rnd() * a.length)];
  const out: string[] = [];
  const gen = (ind: number, depth: number) => {
    const sp = ' '.repeat(ind);
    const n = 1 + Math.floor(rnd() * 3);
    const isSeq = rnd() < 0.35;
    for (let i = 0; i < n; i++) {
      if (rnd() < 0.08) out.push(pick(['', `${sp}# c`, '  # c', '#']));
      const extra = rnd() < 0.04 ? pick([' ', '  ', '\t']) : '';
      if (isSeq) {
        if (depth < 3 && rnd() < 0.3) {
          out.push(`${sp}${extra}- ${pick(KEYS)}: ${pick(SCALARS)}`);
          gen(ind + 2, depth + 1);
        } else if (depth < 3 && rnd() < 0.2) {
          out.push(`${sp}${extra}-`);
          gen(ind + 2, depth + 1);
        } else out.push(`${sp}${extra}- ${pick(SCALARS)}${rnd() < 0.1 ? ' # c' : ''}`);
      } else if (depth < 3 && rnd() < 0.35) {
        out.push(`${sp}${extra}${pick(KEYS)}:${pick(['', ' ', ' # c'])}`);
        gen(ind + pick([2, 2, 4, 0, 1]), depth + 1);
      } else out.push(`${sp}${extra}${pick(KEYS)}: ${pick(SCALARS)}${rnd() < 0.1 ? pick([' # c', '#c']) : ''}`);
    }
  };
  gen(pick([0, 0, 0, 2]), 0);
  return out.join(pick(['\n', '\n', '\r\n'])) + pick(['\n', '', '\n\n']);
}

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
