import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { portAnalysis } from '../../../../src/language/pages';
import { loadSet } from './fixtures';

describe('pages: portAnalysis', () => {
  it('lists the six pages with problem counts and the baseline as chunks > FIDs', () => {
    const { pages, folder } = loadSet('valid', 'tables-md');
    const baseline = [...pages.keys()].find((p) => path.basename(p).startsWith('10')) as string;
    pages.set(
      baseline,
      (pages.get(baseline) as string)
        .replace(
          '| happy path | `tests/test_lists.py::test_create` | lists |',
          '| happy path | `tests/test_lists.py::test_create` | lists, tasks |',
        )
        .replace('- tasks: task CRUD', '- tasks: task CRUD\n- sharing: shared lists'),
    );
    pages.delete([...pages.keys()].find((p) => path.basename(p).startsWith('03')) as string);

    const { folders } = portAnalysis(pages);
    assert.equal(folders.length, 1);
    const f = folders[0];
    assert.equal(f.folder, folder);
    assert.deepEqual(
      f.pages.map((p) => [p.kind, p.filePath !== null, p.errors, p.warnings]),
      [
        ['01-source-overview', true, 0, 0],
        ['02-public-api', true, 0, 0],
        ['03-data-model', false, 0, 0],
        ['04-business-logic', true, 0, 0],
        ['05-error-handling', true, 0, 0],
        ['10-fidelity-baseline', true, 1, 1],
      ],
    );
    assert.deepEqual(
      f.pages[5].diagnostics.map((d) => d.code),
      ['page.multiple-chunks', 'page.chunk-without-fid'],
    );
    assert.deepEqual(
      f.folderDiagnostics.map((d) => d.code),
      ['page.missing-page'],
    );

    const fid = f.fidelity;
    assert.ok(fid);
    assert.deepEqual(
      fid.chunks.map((c) => [c.name, c.declared, c.fids.map((x) => x.fid)]),
      [
        ['auth', true, ['FID-001', 'FID-002']],
        ['lists', true, ['FID-004']],
        ['tasks', true, ['FID-005']],
        ['sharing', true, []],
      ],
    );
    assert.deepEqual(
      fid.unchunked.map((x) => x.fid),
      ['FID-003'],
    );
    assert.deepEqual(fid.totals, {
      fids: 5,
      chunks: 4,
      byType: { 'happy path': 2, 'error path': 2, 'edge case': 1 },
      untyped: 0,
    });
    const f2 = fid.chunks[0].fids[1];
    assert.deepEqual(
      [f2.behavior, f2.type, f2.range.start.line],
      ['Login with a wrong password is refused', 'error path', 7],
    );
  });

  it('chunks come from the rows, in order, when no Chunks section exists; one entry per folder', () => {
    const a = loadSet('valid', 'wiki-lists').pages;
    const b = loadSet('valid', 'mixed').pages;
    const { folders } = portAnalysis(new Map([...a, ...b]));
    assert.equal(folders.length, 2);
    const wiki = folders.find((f) => f.folder.includes('wiki-lists'));
    assert.deepEqual(
      wiki?.fidelity?.chunks.map((c) => [c.name, c.declared, c.fids.length]),
      [
        ['invoicing', false, 3],
        ['payments', false, 2],
      ],
    );
    for (const f of folders) for (const p of f.pages) assert.equal(p.errors + p.warnings, 0, `${p.kind}`);
  });
});
