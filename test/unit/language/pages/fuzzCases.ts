// Mutated source-analysis pages for the fuzz tests (unit layer) and bench/fuzz.mjs: valid pages hit
// by truncation, random and invalid-UTF-8 bytes, huge tables, unclosed fences, very long lines,
// deep lists and quotes, nested emphasis, a BOM, CRLF and lone-CR line ends. `checkPageText` is
// the property: no throw, a bounded time, every position inside the page, and the page's
// symbols, hover and the cross-page checks answering on the result.
import fc from 'fast-check';
import { checkPage, documentSymbols, hoverAt, validateAllPages, type PageSymbol } from '../../../../src/language/pages';
import { assertDiagnosticsInside, assertRangeInside } from '../routing/ranges';

type Mutation = (text: string) => string;

const at = (text: string, n: number) => (text.length ? n % (text.length + 1) : 0);
const insert = (text: string, n: number, s: string) => {
  const p = at(text, n);
  return text.slice(0, p) + s + text.slice(p);
};
const insertLine = (text: string, n: number, line: string) => {
  const p = text.lastIndexOf('\n', at(text, n) - 1) + 1;
  return text.slice(0, p) + line + '\n' + text.slice(p);
};

/** `scale` shrinks the huge inputs (1: tables of up to 30,000 rows, lines of up to 1 MB). */
export function pageMutation(scale = 1): fc.Arbitrary<Mutation> {
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
    fc.tuple(n, fc.integer({ min: 10, max: big(30_000) })).map(([k, rows]): Mutation => (t) => {
      // repeat a table row (or write a table) many times
      const row = (/^\|.*\|$/m.exec(t)?.[0] ?? '| FID-001 | x | happy path | t.py | c |').slice(0, 300);
      return insertLine(t, k, Array(rows).fill(row).join('\n'));
    }),
    fc.tuple(n, fc.constantFrom('```', '~~~', '```js', '<!--', '<div>', '$$')).map(
      ([k, s]): Mutation =>
        (t) =>
          insertLine(t, k, s),
    ),
    fc
      .tuple(n, fc.integer({ min: 1000, max: big(1_000_000) }), fc.constantFrom('x', '|', '*', '_', '`', '[', ' ', '<'))
      .map(
        ([k, len, c]): Mutation =>
          (t) =>
            insert(t, k, c.repeat(len)),
      ),
    fc.tuple(n, fc.integer({ min: 10, max: big(3000) }), fc.constantFrom('- ', '> ', '1. ', '* ', '  - ')).map(
      ([k, depth, m]): Mutation =>
        (t) =>
          insertLine(t, k, m.repeat(depth) + 'x'),
    ),
    fc.tuple(n, fc.integer({ min: 10, max: big(400) })).map(
      ([k, depth]): Mutation =>
        (t) =>
          insertLine(t, k, Array.from({ length: depth }, (_, i) => ' '.repeat(2 * i) + '- x').join('\n')),
    ),
    fc.tuple(n, fc.integer({ min: 10, max: big(7500) })).map(
      ([k, depth]): Mutation =>
        (t) =>
          insert(t, k, '*a '.repeat(depth) + 'x' + ' a*'.repeat(depth)),
    ),
    n.map((k): Mutation => (t) => {
      const p = t.lastIndexOf('\n', at(t, k) - 1) + 1;
      const e = t.indexOf('\n', p);
      return insertLine(t, k, t.slice(p, e < 0 ? t.length : e));
    }),
    fc.constantFrom<Mutation>(
      (t) => '\ufeff' + t,
      (t) => t.replace(/\r?\n/g, '\r\n'),
      (t) => t.replace(/\r?\n/g, '\r'),
      (t) => t.replace(/\n/g, (_m, o: number) => ['\n', '\r\n', '\r'][o % 3]),
      (t) => t.replace(/\|/g, ''),
      (t) => '---\ntitle: x\n---\n' + t,
    ),
  );
}

export interface PageBase {
  /** The page's path (its name gives the kind). */
  file: string;
  text: string;
}

/** A valid page with one to three mutations applied. */
export function pageCase(bases: readonly PageBase[], scale = 1): fc.Arbitrary<PageBase> {
  return fc
    .tuple(fc.constantFrom(...bases), fc.array(pageMutation(scale), { minLength: 1, maxLength: 3 }))
    .map(([base, ms]) => ({ file: base.file, text: ms.reduce((t, m) => m(t), base.text) }));
}

/** The property: returns the time taken (ms); throws on a violation. `siblings`: the rest of its set. */
export function checkPageText(page: PageBase, siblings: readonly PageBase[], boundMs: number): number {
  const t0 = performance.now();
  const check = checkPage(page.text, page.file);
  if (!check) throw new Error(`not a page: ${page.file}`);
  const set = new Map(siblings.filter((s) => s.file !== page.file).map((s) => [s.file, s.text] as [string, string]));
  set.set(page.file, page.text);
  const all = validateAllPages(set);
  const took = performance.now() - t0;
  if (took > boundMs) throw new Error(`validation took ${Math.round(took)} ms (bound ${boundMs} ms)`);
  assertDiagnosticsInside(page.text, check.diagnostics);
  assertDiagnosticsInside(page.text, all.get(page.file) ?? []);
  const symbols = (list: PageSymbol[]): void => {
    for (const s of list) {
      assertRangeInside(page.text, s.range, `symbol ${s.name}`);
      assertRangeInside(page.text, s.selectionRange, `symbol ${s.name}`);
      if (s.children) symbols(s.children);
    }
  };
  symbols(documentSymbols(check.model));
  const lines = page.text.split(/\r\n|\r|\n/).length;
  for (const line of [0, Math.floor(lines / 2), lines - 1]) hoverAt(page.text, page.file, { line, character: 5 });
  return took;
}
