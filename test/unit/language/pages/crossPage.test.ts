import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { Diagnostic } from '../../../../src/core/diagnostics';
import {
  analyzePage,
  sourceTestPath,
  validateAllPages,
  validatePageSet,
  type PageModel,
} from '../../../../src/language/pages';
import { loadSet } from './fixtures';

function keyOf(pages: Map<string, string>, kind: string): string {
  const k = [...pages.keys()].find((p) => path.basename(p).startsWith(kind));
  assert.ok(k, kind);
  return k;
}

function codes(diags: Diagnostic[] | undefined): [string, number, string][] {
  return (diags ?? []).map((d) => [d.code, d.range.start.line + 1, d.severity]);
}

describe('pages: validatePageSet (cross-page)', () => {
  it('warns about an error code of 02 that 05 does not define, at the code in the errors cell', () => {
    const { pages } = loadSet('valid', 'tables-md');
    const api = keyOf(pages, '02');
    pages.set(api, (pages.get(api) as string).replace('AUTH_003, LIST_001', 'AUTH_003, LIST_999'));
    const out = validatePageSet(pages);
    assert.deepEqual(codes(out.get(api)), [['page.unknown-error-code', 9, 'warning']]);
    const d = (out.get(api) as Diagnostic[])[0];
    const line = (pages.get(api) as string).split('\n')[8];
    assert.equal(line.slice(d.range.start.character, d.range.end.character), 'LIST_999');
    assert.deepEqual(d.data, { code: 'LIST_999' });
  });

  it('reports a missing page under the folder key, not on another page', () => {
    const { pages, folder } = loadSet('valid', 'tables-md');
    pages.delete(keyOf(pages, '05'));
    const out = validatePageSet(pages);
    assert.deepEqual(codes(out.get(folder)), [['page.missing-page', 1, 'warning']]);
    assert.deepEqual((out.get(folder) as Diagnostic[])[0].data, { kind: '05-error-handling' });
    for (const p of pages.keys())
      assert.deepEqual(out.get(p), [], `${path.basename(p)}: no diagnostic (02's codes are not checked without 05)`);
  });

  it('reports every missing page of a lone page', () => {
    const { pages, folder } = loadSet('valid', 'mixed');
    const only = new Map([[keyOf(pages, '10'), pages.get(keyOf(pages, '10')) as string]]);
    const out = validatePageSet(only);
    assert.equal(out.get(folder)?.length, 5);
  });

  it('warns about a FID named on another page that 10 does not define', () => {
    const { pages } = loadSet('valid', 'mixed');
    const logic = keyOf(pages, '04');
    pages.set(logic, (pages.get(logic) as string).replace('FID-003', 'FID-030'));
    const out = validatePageSet(pages);
    assert.deepEqual(codes(out.get(logic)), [['page.unknown-fid', 22, 'warning']]);
  });

  it('checks source-test paths only when the source tree is configured', () => {
    const { pages, portFolder } = loadSet('valid', 'tables-md');
    const baseline = keyOf(pages, '10');
    pages.set(baseline, (pages.get(baseline) as string).replace('tests/test_tasks.py', 'tests/test_gone.py'));
    assert.deepEqual(codes(validatePageSet(pages).get(baseline)), []);
    const out = validatePageSet(pages, { sourceRoot: path.join(portFolder, 'src') });
    assert.deepEqual(codes(out.get(baseline)), [['page.source-test-not-found', 11, 'warning']]);
    const seen: string[] = [];
    validatePageSet(pages, { sourceRoot: () => '/virtual', fileExists: (p) => (seen.push(p), true) });
    assert.ok(seen.includes(path.resolve('/virtual', 'tests/test_gone.py')));
  });

  it('extracts the path of a source-test cell', () => {
    assert.equal(sourceTestPath('tests/test_auth.py::test_login_ok'), 'tests/test_auth.py');
    assert.equal(sourceTestPath('rooms_test.go:42'), 'rooms_test.go');
    assert.equal(sourceTestPath('InvoiceTest.java#total'), 'InvoiceTest.java');
    assert.equal(sourceTestPath('see `spec/user_spec.rb` (line 3)'), 'spec/user_spec.rb');
    assert.equal(sourceTestPath('none'), null);
    assert.equal(sourceTestPath('manual check'), null);
  });

  it('warns about the same page twice (wiki page and .md file)', () => {
    const { pages, folder } = loadSet('valid', 'tables-md');
    const api = keyOf(pages, '02');
    pages.set(path.join(folder, '02-public-api'), pages.get(api) as string);
    const out = validatePageSet(pages);
    assert.deepEqual(
      codes(out.get(api)),
      [['page.duplicate-page', 1, 'warning']],
      'the later path (sorted) is the duplicate',
    );
    assert.deepEqual(out.get(path.join(folder, '02-public-api')), []);
  });

  it('accepts models as well as texts, and groups folders separately', () => {
    const a = loadSet('valid', 'tables-md');
    const b = loadSet('valid', 'wiki-lists');
    const all = new Map<string, string | PageModel>();
    for (const [p, t] of a.pages) all.set(p, analyzePage(t, p) as PageModel);
    for (const [p, t] of b.pages) all.set(p, t);
    all.set('/elsewhere/readme.md', '# not a page');
    const out = validatePageSet(all);
    assert.equal(out.size, 14, '12 pages + 2 folders; non-pages skipped');
    for (const diags of out.values()) assert.deepEqual(diags, []);
  });

  it('validateAllPages merges single-page and cross-page diagnostics', () => {
    const { pages, folder } = loadSet('valid', 'tables-md');
    const api = keyOf(pages, '02');
    pages.set(
      api,
      (pages.get(api) as string)
        .replace('AUTH_003, LIST_001', 'AUTH_003, LIST_999')
        .replace('| `GET /lists` |', '| `POST /login` |'),
    );
    pages.delete(keyOf(pages, '03'));
    const out = validateAllPages(pages);
    assert.deepEqual(codes(out.get(api)), [
      ['page.duplicate-endpoint', 8, 'warning'],
      ['page.unknown-error-code', 9, 'warning'],
    ]);
    assert.deepEqual(codes(out.get(folder)), [['page.missing-page', 1, 'warning']]);
  });
});
