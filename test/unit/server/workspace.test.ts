// The server's workspace searches over the bounded walker: group folders (Port analysis) and the
// route-key index (completion), including a new scan when the workspace folders change.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findFolders, GroupFiles } from '../../../server/groupFiles';
import { registerBuiltinKinds } from '../../../server/kinds/builtin';
import { pageKind } from '../../../server/kinds/page';
import { RouteKeyIndex } from '../../../server/workspaceIndex';

describe('server workspace searches', () => {
  let tmp: string;
  const write = (rel: string, text: string) => {
    const full = path.join(tmp, rel);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text);
    return full;
  };

  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'so-ws-'));
  });
  afterEach(() => {
    rmSync(tmp, { recursive: true, force: true });
  });

  it('findFolders: every source-analysis folder, not inside another, skipping node_modules and dot-folders; a root that is one counts', async () => {
    const g = pageKind.groups!;
    mkdirSync(path.join(tmp, 'a', 'source-analysis', 'source-analysis'), { recursive: true });
    mkdirSync(path.join(tmp, 'b', 'deep', 'Source-Analysis'), { recursive: true });
    mkdirSync(path.join(tmp, 'node_modules', 'x', 'source-analysis'), { recursive: true });
    mkdirSync(path.join(tmp, '.cache', 'source-analysis'), { recursive: true });
    assert.deepEqual(await findFolders([tmp], g.isGroupFolder), [
      path.join(tmp, 'a', 'source-analysis'),
      path.join(tmp, 'b', 'deep', 'Source-Analysis'),
    ]);
    const direct = path.join(tmp, 'a', 'source-analysis');
    assert.deepEqual(await findFolders([direct], g.isGroupFolder), [direct]);
    assert.deepEqual(await findFolders([path.join(tmp, 'absent')], g.isGroupFolder), []);
  });

  it('GroupFiles: members on disk with open texts over them, re-read after invalidate', async () => {
    const g = pageKind.groups!;
    const folder = path.join(tmp, 'p', 'source-analysis');
    const p02 = write('p/source-analysis/02-public-api.md', 'disk 02');
    write('p/source-analysis/notes.txt', 'not a page');
    const files = new GroupFiles();
    assert.deepEqual([...(await files.files(folder, g.member, new Map([[p02, 'open 02']])))], [[p02, 'open 02']]);
    const p03 = write('p/source-analysis/03-data-model.md', 'disk 03');
    assert.equal((await files.files(folder, g.member, new Map())).has(p03), false, 'cached until told');
    files.invalidate(p03);
    assert.deepEqual(
      [...(await files.files(folder, g.member, new Map()))],
      [
        [p02, 'disk 02'],
        [p03, 'disk 03'],
      ],
    );
  });

  it('RouteKeyIndex: keys of the routing tables on disk; rescan follows the roots', async () => {
    const registry = registerBuiltinKinds();
    write('one/routing.yaml', 'version: 1\nroutes:\n  Kind/One:\n    effort: high\n');
    write('one/node_modules/x/routing.yaml', 'version: 1\nroutes:\n  Kind/Hidden: {}\n');
    write('one/notes.yaml', 'routes:\n  Kind/NotRouting: {}\n'); // no $schema, not a routing name
    write('two/team.routing.yaml', 'version: 1\nroutes:\n  Kind/Two: {}\n');
    let roots = [path.join(tmp, 'one')];
    const index = new RouteKeyIndex(
      () => roots,
      () => registry.all(),
      () => ({ extraGlobs: [], roots }),
    );
    assert.equal(index.rescan(), undefined, 'no scan before one is wanted');
    await index.ensureScanned();
    assert.deepEqual(index.keys(), ['Kind/One']);
    assert.deepEqual(index.keys(path.join(tmp, 'one', 'routing.yaml')), []);
    roots = [path.join(tmp, 'two')];
    await index.rescan();
    assert.deepEqual(index.keys(), ['Kind/Two']);
  });
});
