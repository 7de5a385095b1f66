// Shared by the fast parser's tests: random YAML documents around the routing-table subset (and
// past its edges), and a parsed tree as plain data (every range and value) for deep comparison.
import { parseDocument } from 'yaml';
import { fromYaml, type RNode } from '../../../../src/language/routing/rnode';

export function strip(n: RNode | null): unknown {
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

export function reference(src: string): { tree: unknown; value: unknown } | 'error' {
  const doc = parseDocument(src, { uniqueKeys: false });
  if (doc.errors.length) return 'error';
  return { tree: strip(doc.contents ? fromYaml(doc.contents, doc, src) : null), value: doc.toJS() ?? null };
}

export function mulberry(seed: number) {
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

export function randomDoc(rnd: () => number): string {
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
