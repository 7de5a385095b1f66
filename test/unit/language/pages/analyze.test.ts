import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import {
  analyzePage,
  validatePage,
  type BusinessLogicModel,
  type DataModelModel,
  type ErrorHandlingModel,
  type FidelityModel,
  type OverviewModel,
  type PublicApiModel,
} from '../../../../src/language/pages';
import { loadSet } from './fixtures';

function page<T>(set: string, kind: string): { model: T; text: string; file: string } {
  const { pages, folder } = loadSet('valid', set);
  const file = [...pages.keys()].find((p) => path.basename(p).startsWith(kind)) ?? path.join(folder, kind);
  const text = pages.get(file) as string;
  return { model: analyzePage(text, file) as T, text, file };
}

/** The source text a range covers (single-line ranges). */
function at(
  text: string,
  r: { start: { line: number; character: number }; end: { line: number; character: number } },
): string {
  return text.split(/\r?\n/)[r.start.line].slice(r.start.character, r.end.character);
}

describe('pages: analyzePage', () => {
  it('returns null for a file that is not a page, unless a kind is given', () => {
    assert.equal(analyzePage('# x', '/w/notes.md'), null);
    assert.deepEqual(validatePage('# x', '/w/notes.md'), []);
    assert.equal(analyzePage('# x', '/w/notes.md', '05-error-handling')?.kind, '05-error-handling');
  });

  it('01: fields from a table, modules from a comma-separated cell', () => {
    const { model, text } = page<OverviewModel>('tables-md', '01');
    assert.equal(model.projectName, 'todo-service');
    assert.equal(model.language, 'Python 3.11 (CPython)');
    assert.equal(model.fileCount, 42);
    assert.equal(model.lineCount, 5310);
    assert.deepEqual(
      model.modules.map((m) => m.text),
      ['auth', 'lists', 'tasks', 'sharing'],
    );
    assert.deepEqual(
      model.modules.map((m) => at(text, m.range)),
      ['auth', 'lists', 'tasks', 'sharing'],
    );
  });

  it('01: bold labels, modules as bullets under a heading or nested under the item', () => {
    const wiki = page<OverviewModel>('wiki-lists', '01').model;
    assert.equal(wiki.framework, 'Spring Boot 3.2');
    assert.deepEqual(
      wiki.modules.map((m) => m.text),
      ['invoicing', 'payments', 'refunds', 'customer accounts'],
    );
    const mixed = page<OverviewModel>('mixed', '01');
    assert.equal(mixed.model.fileCount, 0);
    assert.deepEqual(
      mixed.model.modules.map((m) => m.text),
      ['rooms', 'messages', 'presence'],
    );
    const fw = mixed.model.fields.find((f) => f.key === 'framework');
    assert.equal(fw && at(mixed.text, fw.valueRange), 'none (net/http)');
  });

  it('02: endpoints with their errors cell and each code located', () => {
    const { model, text } = page<PublicApiModel>('tables-md', '02');
    assert.equal(model.endpoints.length, 5);
    const del = model.endpoints[3];
    assert.equal(del.endpoint, 'DELETE /lists/{id}');
    assert.deepEqual(
      del.errors.map((e) => e.code),
      ['AUTH_003', 'LIST_404'],
    );
    assert.deepEqual(
      del.errors.map((e) => at(text, e.range)),
      ['AUTH_003', 'LIST_404'],
    );
    assert.equal(at(text, del.errorsRange), 'AUTH_003, LIST_404');
    const split = page<PublicApiModel>('mixed', '02').model;
    assert.equal(split.endpoints[1].endpoint, 'POST /rooms/{id}/messages', 'method and path columns combine');
    assert.deepEqual(split.endpoints[0].errors, [], '"none" names no code');
  });

  it('03: entities under their headings, relationships with cardinality and ends', () => {
    const { model } = page<DataModelModel>('tables-md', '03');
    assert.deepEqual(
      model.entities.map((e) => e.name),
      ['User', 'TaskList', 'Task'],
    );
    assert.deepEqual(
      model.entities[1].fields.map((f) => f.name),
      ['id', 'owner_id', 'title', 'deleted_at'],
    );
    assert.deepEqual(
      model.relationships.map((r) => [r.from, r.cardinality, r.to]),
      [
        ['User', '1:N', 'TaskList'],
        ['TaskList', '1:N', 'Task'],
        ['User', 'N:M', 'TaskList'],
      ],
    );
    const wiki = page<DataModelModel>('wiki-lists', '03').model;
    assert.deepEqual(
      wiki.relationships.map((r) => [r.from, r.cardinality, r.to]),
      [
        ['Customer', 'one-to-many', 'Invoice'],
        ['Invoice', '1..*', 'Payment'],
        ['Payment', '0..1', 'Refund'],
        ['Customer', 'N:M', 'Invoice'],
      ],
    );
    assert.deepEqual(
      wiki.entities[0].fields.map((f) => f.constraints),
      ['generated', 'required', '>= 0', 'DRAFT, OPEN, PAID, VOID'],
    );
  });

  it('04: rules with features and assertions (code span, fenced block, nested bullet), edge cases', () => {
    const { model, text } = page<BusinessLogicModel>('wiki-lists', '04');
    assert.deepEqual(
      model.rules.map((r) => [r.id, r.feature]),
      [
        ['RULE-01', 'Invoicing'],
        ['RULE-02', 'Invoicing'],
        ['RULE-10', 'Payments'],
        ['RULE-11', 'Payments'],
      ],
    );
    assert.match(model.rules[0].assertion ?? '', /^assertEquals/);
    assert.equal(model.rules[2].assertion, 'pay(inv, inv.open() + 1).status() == 409');
    assert.equal(model.rules[3].assertion, 'payment.amountCents() instanceof Long');
    assert.equal(at(text, model.rules[2].idRange), 'RULE-10');
    assert.equal(model.rules[2].text.startsWith('a payment above'), true);
    assert.equal(model.edgeCases.length, 2);
    assert.deepEqual(
      model.features.map((f) => [f.name, f.rules.length]),
      [
        ['Invoicing', 2],
        ['Payments', 2],
      ],
    );
    const mixed = page<BusinessLogicModel>('mixed', '04').model;
    assert.deepEqual(
      mixed.rules.map((r) => r.feature),
      ['Joining', 'Leaving', 'Messages'],
    );
  });

  it('05: error rows with status parsed', () => {
    const wiki = page<ErrorHandlingModel>('wiki-lists', '05').model;
    assert.deepEqual(wiki.errors[0], {
      ...wiki.errors[0],
      code: 'INV_404',
      status: 404,
      statusText: '404 Not Found',
      message: 'Invoice not found',
    });
    assert.deepEqual(
      wiki.errors.map((e) => e.status),
      [404, 422, 404, 402, 409],
    );
  });

  it('10: rows with fid, behavior, type, source test, chunk and ranges; declared chunks', () => {
    const { model, text } = page<FidelityModel>('tables-md', '10');
    const r = model.rows[1];
    assert.equal(r.fid, 'FID-002');
    assert.equal(r.behavior, 'Login with a wrong password is refused');
    assert.equal(r.behaviorType, 'error path');
    assert.equal(r.sourceTest, 'tests/test_auth.py::test_login_bad_password');
    assert.equal(r.chunkName, 'auth');
    assert.equal(at(text, r.fidRange), 'FID-002');
    assert.equal(at(text, r.chunkRange), 'auth');
    assert.equal(r.range.start.line, 7);
    assert.deepEqual(
      model.declaredChunks?.map((c) => c.name),
      ['auth', 'lists', 'tasks'],
    );
    const wiki = page<FidelityModel>('wiki-lists', '10').model;
    assert.deepEqual(
      wiki.rows.map((x) => x.behaviorType),
      ['happy path', 'error path', 'edge case', 'error path', 'edge case'],
    );
    assert.equal(wiki.declaredChunks, null);
    const mixed = page<FidelityModel>('mixed', '10').model;
    assert.equal(mixed.rows.length, 4, 'rows of every inventory table');
  });

  it('handles CRLF line endings with the same positions', () => {
    const { text, file } = page<FidelityModel>('tables-md', '10');
    const crlf = text.replace(/\n/g, '\r\n');
    const a = analyzePage(text, file) as FidelityModel;
    const b = analyzePage(crlf, file) as FidelityModel;
    assert.deepEqual(
      b.rows.map((r) => r.chunkRange),
      a.rows.map((r) => r.chunkRange),
    );
    const broken = crlf.replace('| FID-003 |', '| FID-002 |');
    const d = validatePage(broken, file);
    assert.deepEqual(
      d.map((x) => [x.code, x.range.start.line, x.range.start.character]),
      [['page.duplicate-id', 8, 2]],
    );
  });

  it('reports every missing column once, on the header row, and skips per-row checks of those columns', () => {
    const text = '# Fidelity baseline\n\n| ID | Behavior |\n|---|---|\n| FID-001 | x |\n| FID-002 | y |\n';
    const d = validatePage(text, '/p/source-analysis/10-fidelity-baseline.md');
    assert.deepEqual(
      d.map((x) => [x.code, x.range.start.line]),
      [
        ['page.missing-column', 2],
        ['page.missing-column', 2],
        ['page.missing-column', 2],
      ],
    );
    assert.deepEqual(
      d.map((x) => (x.data as { column: string }).column),
      ['type', 'sourceTest', 'chunk'],
    );
  });
});

describe('pages: front matter', () => {
  it('ignores a leading YAML front matter block and keeps positions', () => {
    const text =
      '---\ntitle: Business logic\ntags: [port]\n---\n# Business logic\n\n- RULE-01: outside `a == b`\n\n## Edge cases\n\n- x\n';
    const d = validatePage(text, '/p/source-analysis/04-business-logic.md');
    assert.deepEqual(
      d.map((x) => [x.code, x.range.start.line, x.range.start.character]),
      [['page.rule-outside-feature', 6, 2]],
    );
    const m = analyzePage(text, '/p/source-analysis/04-business-logic.md') as BusinessLogicModel;
    assert.equal(m.title?.text, 'Business logic');
    assert.equal(m.headings.length, 2);
  });
});

describe('pages: 01 values', () => {
  const base = (framework: string): string =>
    `# Overview\n\n- Project name: p\n- Language/runtime: Go\n- Framework: ${framework}\n- Feature scope: all\n- Source file count: 1\n- Source line count: 2\n- Functional modules: a\n`;
  it('accepts "none" as a framework but not a blank or TBD', () => {
    const file = '/p/source-analysis/01-source-overview.md';
    assert.deepEqual(validatePage(base('none'), file), []);
    assert.deepEqual(validatePage(base('n/a'), file), []);
    assert.deepEqual(
      validatePage(base('TBD'), file).map((d) => [d.code, d.range.start.line]),
      [['page.empty-field', 4]],
    );
    assert.deepEqual(
      validatePage(base(''), file).map((d) => [d.code, d.range.start.line]),
      [['page.empty-field', 4]],
    );
  });
});
