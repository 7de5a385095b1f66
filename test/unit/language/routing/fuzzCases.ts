// Mutated routing tables for the fuzz tests (unit layer) and bench/fuzz.mjs: valid tables
// (test/fixtures/routing/valid) hit by truncation, random and invalid-UTF-8 bytes, deep nesting,
// huge scalars, anchors and aliases (billion laughs, missing and self-referential), merge keys,
// duplicate keys, tags, directives, several documents, tabs, a BOM, CRLF and lone-CR line ends.
// `checkRouting` is the property: no throw, a bounded time, every position inside the document,
// and the editor features answering on the result.
import fc from 'fast-check';
import { RoutingAnalyzer } from '../../../../src/language/routing/analyzer';
import {
  complete,
  documentSymbols,
  hover,
  quickFixes,
  type SymbolEntry,
} from '../../../../src/language/routing/features';
import { assertDiagnosticsInside, assertRangeInside } from './ranges';

type Mutation = (text: string) => string;

const at = (text: string, n: number) => (text.length ? n % (text.length + 1) : 0);
const insert = (text: string, n: number, s: string) => {
  const p = at(text, n);
  return text.slice(0, p) + s + text.slice(p);
};
/** The start of a line near offset n. */
const lineStart = (text: string, n: number) => text.lastIndexOf('\n', at(text, n) - 1) + 1;
const insertLine = (text: string, n: number, line: string) => {
  const p = lineStart(text, n);
  return text.slice(0, p) + line + '\n' + text.slice(p);
};

const laughs = (levels: number) => {
  const L = 'abcdefghijklmnop';
  const lines = [`l${L[0]}: &${L[0]} [lol, lol, lol, lol, lol, lol, lol, lol, lol]`];
  for (let i = 1; i < levels; i++)
    lines.push(
      `l${L[i]}: &${L[i]} [${Array(9)
        .fill('*' + L[i - 1])
        .join(', ')}]`,
    );
  return lines.join('\n') + '\n';
};

/** `scale` shrinks the huge inputs (1: up to 3,000 levels and 300,000-character scalars). */
export function routingMutation(scale = 1): fc.Arbitrary<Mutation> {
  const n = fc.nat();
  const big = (max: number) => Math.max(50, Math.round(max * scale));
  return fc.oneof(
    n.map(
      (k): Mutation =>
        (t) =>
          t.slice(0, at(t, k)),
    ),
    fc.tuple(n, fc.string({ unit: 'binary', maxLength: 24 })).map(
      ([k, s]): Mutation =>
        (t) =>
          insert(t, k, s),
    ),
    fc.tuple(n, fc.uint8Array({ maxLength: 24 })).map(
      ([k, b]): Mutation =>
        (t) =>
          insert(t, k, Buffer.from(b).toString('utf8')),
    ),
    fc.tuple(n, fc.constantFrom('[', '{', '[{a: ', '- ', '? '), fc.integer({ min: 20, max: big(3000) })).map(
      ([k, open, depth]): Mutation =>
        (t) =>
          insert(t, k, open.repeat(depth)),
    ),
    fc.tuple(n, fc.integer({ min: 20, max: big(2500) })).map(
      ([k, depth]): Mutation =>
        (t) =>
          insertLine(t, k, Array.from({ length: depth }, (_, i) => ' '.repeat(i) + 'k:').join('\n')),
    ),
    fc.tuple(n, fc.integer({ min: 1000, max: big(300_000) }), fc.constantFrom('x', ' ', '"', "'", '#', ':')).map(
      ([k, len, c]): Mutation =>
        (t) =>
          insert(t, k, c.repeat(len)),
    ),
    fc
      .tuple(
        n,
        fc.constantFrom(
          '&a ',
          '*a',
          '*missing',
          '&s [*s]',
          '&x ',
          '*x',
          '<<: *a',
          '!!str ',
          '!tag ',
          '!!map ',
          '? ',
          '|\n',
          '>-\n',
        ),
      )
      .map(
        ([k, s]): Mutation =>
          (t) =>
            insert(t, k, s),
      ),
    fc
      .tuple(
        n,
        fc.constantFrom(
          '<<: *a',
          'merge: &a {x: 1}',
          'dup: 1',
          'dup: 2',
          'version: 2',
          '%YAML 1.2',
          '---',
          '...',
          '--- !tag',
          '\tkey: v',
          '  k: &a [1]',
          '  k2: *a',
        ),
      )
      .map(
        ([k, line]): Mutation =>
          (t) =>
            insertLine(t, k, line),
      ),
    fc.integer({ min: 2, max: 9 }).map(
      (levels): Mutation =>
        (t) =>
          laughs(levels) + t,
    ),
    fc.integer({ min: 2, max: big(700) }).map(
      (links): Mutation =>
        (t) =>
          t +
          'chain0: &c0 [x]\n' +
          Array.from({ length: links }, (_, i) => `chain${i + 1}: &c${i + 1} [*c${i}]`).join('\n') +
          '\n',
    ),
    n.map((k): Mutation => (t) => {
      // duplicate a line
      const p = lineStart(t, k);
      const e = t.indexOf('\n', p);
      return insertLine(t, k, t.slice(p, e < 0 ? t.length : e));
    }),
    fc.constantFrom<Mutation>(
      (t) => '\ufeff' + t,
      (t) => t.replace(/\r?\n/g, '\r\n'),
      (t) => t.replace(/\r?\n/g, '\r'),
      (t) => t.replace(/\n/g, (_m, o: number) => ['\n', '\r\n', '\r'][o % 3]),
      (t) => t.replace(/^ {2}/gm, '\t'),
      (t) => t + '\n---\n' + t,
      (t) => '%YAML 1.2\n---\n' + t,
      (t) => t.replace(/: /g, ':\t'),
    ),
  );
}

/** A valid table with one to four mutations applied. */
export function routingCase(bases: readonly string[], scale = 1): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom(...bases), fc.array(routingMutation(scale), { minLength: 1, maxLength: 4 }))
    .map(([base, ms]) => ms.reduce((t, m) => m(t), base));
}

/** The property: returns the time taken (ms); throws on a violation. */
export function checkRouting(text: string, boundMs: number): number {
  const t0 = performance.now();
  const analyzer = new RoutingAnalyzer();
  const analysis = analyzer.analyze(text);
  const took = performance.now() - t0;
  if (took > boundMs) throw new Error(`analysis took ${Math.round(took)} ms (bound ${boundMs} ms)`);
  assertDiagnosticsInside(text, analysis.diagnostics);
  // the editor features answer on what was read
  const symbols = (list: SymbolEntry[]): void => {
    for (const s of list) {
      assertRangeInside(text, s.range, `symbol ${s.name}`);
      assertRangeInside(text, s.selectionRange, `symbol ${s.name}`);
      if (s.children) symbols(s.children);
    }
  };
  symbols(documentSymbols(analysis));
  const lines = analysis.lineStarts.length;
  for (const line of [0, Math.floor(lines / 2), lines - 1]) {
    const pos = { line, character: 4 };
    hover(analysis, pos);
    for (const c of complete(text, analysis.lineStarts, pos)) assertRangeInside(text, c.range, `completion ${c.label}`);
  }
  quickFixes(analysis, { start: { line: 0, character: 0 }, end: { line: lines, character: 0 } });
  // the same text analysed again (incrementally) gives the same answer
  const again = new RoutingAnalyzer();
  again.analyze(text.slice(0, Math.floor(text.length / 2)));
  const second = again.analyze(text).diagnostics;
  if (JSON.stringify(second) !== JSON.stringify(analysis.diagnostics))
    throw new Error('incremental analysis differs from a fresh one');
  return took;
}
