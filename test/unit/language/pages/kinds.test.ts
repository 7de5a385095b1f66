import * as assert from 'node:assert/strict';
import { pageFolderOf, pageKindOf } from '../../../../src/language/pages';
import { matchColumns, normalizeHeader } from '../../../../src/language/pages/columns';
import { API_COLUMNS } from '../../../../src/language/pages/public-api';
import { ERROR_COLUMNS } from '../../../../src/language/pages/error-handling';

describe('pages: kinds and columns', () => {
  it('recognizes the six pages, with .md or no extension, only under source-analysis', () => {
    assert.equal(pageKindOf('/w/ports/todo/source-analysis/01-source-overview.md'), '01-source-overview');
    assert.equal(pageKindOf('/w/ports/todo/source-analysis/02-public-api'), '02-public-api');
    assert.equal(pageKindOf('/w/ports/todo/Source-Analysis/03-data-model.MD'), '03-data-model');
    assert.equal(pageKindOf('C:\\w\\todo\\SOURCE-ANALYSIS\\04-business-logic.md'), '04-business-logic');
    assert.equal(pageKindOf('source-analysis/05-error-handling.md'), '05-error-handling');
    assert.equal(pageKindOf('/w/source-analysis/10-fidelity-baseline'), '10-fidelity-baseline');
    assert.equal(pageKindOf('/w/docs/10-fidelity-baseline.md'), null, 'not under source-analysis');
    assert.equal(
      pageKindOf('/w/source-analysis/old/10-fidelity-baseline.md'),
      null,
      'the parent must be source-analysis',
    );
    assert.equal(pageKindOf('/w/source-analysis/10-fidelity-baseline.txt'), null);
    assert.equal(pageKindOf('/w/source-analysis/06-something.md'), null);
    assert.equal(pageKindOf('10-fidelity-baseline.md'), null);
    assert.equal(pageFolderOf('/w/p/source-analysis/01-source-overview.md'), '/w/p/source-analysis');
    assert.equal(pageFolderOf('C:\\p\\source-analysis\\01-source-overview'), 'C:\\p\\source-analysis');
  });

  it('matches headers case-insensitively, with variants and slash parts', () => {
    assert.equal(normalizeHeader(' **Method / Endpoint** '), 'method/endpoint');
    assert.equal(normalizeHeader('HTTP_Status'), 'http status');
    assert.equal(normalizeHeader('Error(s)'), 'errors');
    const api = matchColumns(['Method / Endpoint', 'INPUT SCHEMA', 'Output Schema', 'Errors', 'Notes'], API_COLUMNS);
    assert.deepEqual(api.missing, []);
    assert.equal(api.index.endpoint, 0);
    const split = matchColumns(['Method', 'Path', 'Request', 'Response', 'Error codes', 'Remarks'], API_COLUMNS);
    assert.deepEqual(split.missing, []);
    assert.deepEqual([split.index.method, split.index.endpoint], [0, 1]);
    const lone = matchColumns(['Method', 'Input', 'Output', 'Errors', 'Notes'], API_COLUMNS);
    assert.deepEqual(lone.missing, [], 'a lone Method column stands in for the endpoint');
    const errs = matchColumns(['Code', 'Status', 'Message', 'Source condition'], ERROR_COLUMNS);
    assert.deepEqual(errs.missing, []);
    const partial = matchColumns(['Error code', 'Message / text', 'Condition'], ERROR_COLUMNS);
    assert.deepEqual(
      partial.missing.map((m) => m.key),
      ['status'],
    );
    assert.equal(partial.index.message, 1);
  });
});
