// The page document kind as the server and the CLI use it: cross-page checks of a page set with
// folder-level diagnostics on one anchor page, and `session-ops validate --kind page` over folders
// and single files (with the other pages of their folder read from disk), exit codes 0/1/2.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runValidate, type JsonDiagnostic } from '../../../src/cli/validate';
import { registerBuiltinKinds } from '../../../server/kinds/builtin';
import { anchorPage, checkPageSets, pageKind } from '../../../server/kinds/page';

const fixtures = path.resolve(__dirname, '../../fixtures/pages');

async function run(argv: string[]): Promise<{ code: number; out: string; err: string; diags: JsonDiagnostic[] }> {
  let out = '';
  let err = '';
  const code = await runValidate(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s) });
  const diags =
    argv.includes('--json') && out ? (JSON.parse(out) as { diagnostics: JsonDiagnostic[] }).diagnostics : [];
  return { code, out, err, diags };
}

const brief = (d: JsonDiagnostic) => `${path.basename(d.file)}:${d.line}:${d.column} ${d.severity} ${d.code}`;

describe('page kind: page sets (server and CLI)', () => {
  let tmp: string;
  let port: string;
  let folder: string;
  const page = (name: string) => path.join(folder, name);

  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'so-pages-'));
    port = path.join(tmp, 'todo');
    cpSync(path.join(fixtures, 'valid', 'tables-md'), port, { recursive: true });
    folder = path.join(port, 'source-analysis');
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  it('is registered with groups, hover, definition and symbols', () => {
    const kind = registerBuiltinKinds().get('page');
    assert.equal(kind, pageKind);
    assert.ok(kind?.groups);
    const session = kind.open(page('10-fidelity-baseline.md'));
    assert.ok(session.hover && session.definition && session.symbols);
    assert.equal(kind.groups.folderOf(page('02-public-api.md')), folder);
    assert.equal(kind.groups.folderOf(path.join(port, 'README.md')), null);
  });

  it('anchors folder-level diagnostics on 10-fidelity-baseline, else the first page in page order', () => {
    const all = ['02-public-api.md', '10-fidelity-baseline.md', '04-business-logic.md'].map(page);
    assert.equal(anchorPage(folder, all), page('10-fidelity-baseline.md'));
    assert.equal(
      anchorPage(
        folder,
        all.filter((p) => !p.includes('10-')),
      ),
      page('02-public-api.md'),
    );
    assert.equal(anchorPage(path.join(tmp, 'other', 'source-analysis'), all), null);
  });

  it('checkPageSets: a missing page on the anchor page (first line), only for the reported pages', () => {
    const files = new Map<string, string>();
    for (const n of [
      '01-source-overview.md',
      '02-public-api.md',
      '03-data-model.md',
      '04-business-logic.md',
      '10-fidelity-baseline.md',
    ])
      files.set(page(n), readFileSync(page(n), 'utf8'));
    const out = checkPageSets(files, {});
    const anchor = out.get(page('10-fidelity-baseline.md'));
    assert.deepEqual(
      anchor?.map((d) => [d.code, d.severity, d.range]),
      [
        [
          'page.missing-page',
          'warning',
          { start: { line: 0, character: 0 }, end: { line: 0, character: '# Fidelity baseline'.length } },
        ],
      ],
    );
    assert.deepEqual(out.get(page('02-public-api.md')), [], "02's codes are not checked without 05");
    const only02 = checkPageSets(files, {}, new Set([page('02-public-api.md')]));
    assert.deepEqual([...only02.keys()], [page('02-public-api.md')]);
    assert.deepEqual(
      only02.get(page('02-public-api.md'))?.map((d) => d.code),
      ['page.missing-page'],
    );
  });

  it('checkPageSets: on a lone-CR page the folder-level diagnostic stays inside the first line', () => {
    const files = new Map<string, string>();
    for (const n of [
      '01-source-overview.md',
      '02-public-api.md',
      '03-data-model.md',
      '04-business-logic.md',
      '10-fidelity-baseline.md',
    ]) {
      files.set(page(n), readFileSync(page(n), 'utf8').replace(/\r?\n/g, '\r'));
    }
    const anchor = checkPageSets(files, {}).get(page('10-fidelity-baseline.md'));
    assert.deepEqual(
      anchor?.map((d) => d.range),
      [{ start: { line: 0, character: 0 }, end: { line: 0, character: '# Fidelity baseline'.length } }],
    );
  });

  it('checkPageSets: source tests are checked against pagesSourceRoot, relative to the port folder', () => {
    const files = new Map<string, string>();
    const p10 = page('10-fidelity-baseline.md');
    files.set(p10, readFileSync(p10, 'utf8').replace('tests/test_tasks.py', 'tests/test_gone.py'));
    assert.ok(
      !checkPageSets(files, {})
        .get(p10)
        ?.some((d) => d.code === 'page.source-test-not-found'),
    );
    const diags = checkPageSets(files, { pagesSourceRoot: 'src' }).get(p10) ?? [];
    const missing = diags.filter((d) => d.code === 'page.source-test-not-found');
    assert.equal(missing.length, 1);
    assert.match(missing[0].message, /tests\/test_gone\.py/);
  });

  it('validate --kind page over a valid folder: exit 0, no diagnostics', async () => {
    const r = await run(['--json', '--kind', 'page', '--source-root', 'src', path.join(fixtures, 'valid')]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(r.diags, []);
    assert.match(
      (await run(['--kind', 'page', path.join(fixtures, 'valid')])).err,
      /18 files checked: 0 errors, 0 warnings/,
    );
  });

  it('validate over a folder reports the cross-page warnings on the right lines; warnings alone exit 0', async () => {
    unlinkSync(page('05-error-handling.md'));
    const p04 = page('04-business-logic.md');
    writeFileSync(p04, readFileSync(p04, 'utf8').replace('RULE-05: a task', 'RULE-05 (FID-042): a task'));
    const p10 = page('10-fidelity-baseline.md');
    writeFileSync(p10, readFileSync(p10, 'utf8').replace('tests/test_tasks.py', 'tests/test_gone.py'));
    const r = await run(['--json', '--kind', 'page', '--source-root', 'src', tmp]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(r.diags.map(brief), [
      '04-business-logic.md:15:12 warning page.unknown-fid',
      '10-fidelity-baseline.md:1:1 warning page.missing-page',
      '10-fidelity-baseline.md:11:66 warning page.source-test-not-found',
    ]);
    assert.ok(r.diags.every((d) => d.source === 'session-ops.pages'));
    // The human format and its summary.
    const human = await run(['--source-root', 'src', tmp]);
    assert.equal(human.code, 0);
    assert.match(
      human.out,
      /10-fidelity-baseline\.md:1:1: warning: The source-analysis set has no 05-error-handling page\. \[page\.missing-page\]/,
    );
    assert.match(human.err, /5 files checked: 0 errors, 3 warnings/);
  });

  it('a single page named alone is checked with the other pages of its folder from disk', async () => {
    const p02 = page('02-public-api.md');
    writeFileSync(p02, readFileSync(p02, 'utf8').replace('AUTH_003, LIST_001', 'AUTH_003, LIST_999'));
    const r = await run(['--json', p02]);
    assert.equal(r.code, 0);
    assert.deepEqual(r.diags.map(brief), ['02-public-api.md:9:58 warning page.unknown-error-code']);
    unlinkSync(page('10-fidelity-baseline.md'));
    const again = await run(['--json', p02]);
    assert.deepEqual(
      again.diags.map(brief),
      ['02-public-api.md:1:1 warning page.missing-page', '02-public-api.md:9:58 warning page.unknown-error-code'],
      'the missing page goes on the only page validated',
    );
  });

  it('an error on any page exits 1; usage and I/O errors exit 2', async () => {
    const p05 = page('05-error-handling.md');
    writeFileSync(p05, readFileSync(p05, 'utf8').replace('| 429 |', '| 4xx |'));
    const r = await run(['--json', '--kind', 'page', port]);
    assert.equal(r.code, 1);
    assert.deepEqual(
      r.diags.filter((d) => d.severity === 'error').map((d) => `${path.basename(d.file)}:${d.line} ${d.code}`),
      ['05-error-handling.md:6 page.invalid-status'],
    );
    assert.equal((await run(['--kind', 'page', path.join(tmp, 'missing')])).code, 2);
    assert.equal((await run(['--kind', 'page', '--source-root'])).code, 2);
    assert.equal((await run(['--source-root=', port])).code, 2);
  });

  it('a source-analysis folder with pages of another port next to it: each folder is its own set', async () => {
    const other = path.join(tmp, 'lonely', 'source-analysis');
    mkdirSync(other, { recursive: true });
    cpSync(page('10-fidelity-baseline.md'), path.join(other, '10-fidelity-baseline.md'));
    const r = await run(['--json', '--kind', 'page', tmp]);
    assert.equal(r.code, 0);
    const missing = r.diags.filter((d) => d.code === 'page.missing-page');
    assert.equal(missing.length, 5);
    assert.ok(missing.every((d) => d.file === path.join(other, '10-fidelity-baseline.md')));
    assert.equal(r.diags.length, 5, 'the complete set next to it has nothing');
  });
});
