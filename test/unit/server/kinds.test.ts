// The kinds registry (server/kinds): claim order, hooks instead of kind names, no import cycle.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { registerBuiltinKinds } from '../../../server/kinds/builtin';
import { pageKind } from '../../../server/kinds/page';
import { KindRegistry, runToEnd, unavailableKind } from '../../../server/kinds/registry';
import { routeKeysInText, routingKind } from '../../../server/kinds/routing';
import { watchConfigKind } from '../../../server/kinds/watch-config';

const KINDS_DIR = path.resolve(__dirname, '../../../server/kinds');
const settings = { extraGlobs: [], roots: [] };

describe('server kinds', () => {
  it('watch-config: the checks of watch, with ranges, warnings kept as warnings', () => {
    const text =
      'backends:\n  - baseUrl: http://127.0.0.1:1\n    directories: [/w]\n    password: x\nsampleSpacingSeconds: 5\n';
    const diags = runToEnd(watchConfigKind.open('/w/session-ops.yaml').validate(text));
    assert.deepEqual(
      diags.map((d) => [d.code, d.severity, d.range.start.line, d.range.start.character, d.source]),
      [
        ['config.inline-password', 'error', 3, 4, 'session-ops.config'],
        ['config.short-spacing', 'warning', 4, 22, 'session-ops.config'],
      ],
    );
  });

  it('registers watch-config, routing then page; the first available kind claiming a file gets it', () => {
    const r = registerBuiltinKinds();
    assert.deepEqual(
      r.all().map((k) => k.id),
      ['watch-config', 'routing', 'page'],
    );
    assert.equal(r.kindFor('/etc/session-ops.yaml', 'backends: []\n', settings), watchConfigKind);
    assert.equal(r.kindFor('/w/night.session-ops.yaml', undefined, settings), watchConfigKind);
    assert.equal(r.kindFor('/w/routing.yaml', 'version: 1\n', settings), routingKind);
    assert.equal(r.kindFor('/w/p/source-analysis/02-public-api.md', '', settings), pageKind);
    assert.equal(r.kindFor('/w/readme.md', '', settings), undefined);
    const without = new KindRegistry()
      .register(routingKind)
      .register(unavailableKind('page', 'page', 'x', 'not built', () => true));
    assert.equal(without.kindFor('/w/p/source-analysis/02-public-api.md', '', settings), undefined);
  });

  it('register replaces a kind with the same id in place', () => {
    const other = unavailableKind('routing', 'r', 's', 'gone');
    const r = registerBuiltinKinds().register(other);
    assert.deepEqual(
      r.all().map((k) => k.id),
      ['watch-config', 'routing', 'page'],
    );
    assert.equal(r.get('routing'), other);
  });

  it('kind-specific behaviour is behind hooks: fallback, route keys, group folders', () => {
    assert.equal(routingKind.fallbackFor?.('/x/any.yml'), true);
    assert.equal(routingKind.fallbackFor?.('/x/any.md'), false);
    assert.equal(pageKind.fallbackFor, undefined);
    assert.deepEqual(
      routingKind.routeKeysIn?.('routes:\n  Kind/A:\n    effort: high\n  "Kind/B": {}\nKind/NotIndented: 1\n'),
      ['Kind/A', 'Kind/B'],
    );
    assert.deepEqual(routeKeysInText(''), []);
    assert.equal(pageKind.routeKeysIn, undefined);
    const g = pageKind.groups!;
    assert.equal(g.folderName, 'source-analysis');
    assert.equal(g.isGroupFolder('/w/port/Source-Analysis'), true);
    assert.equal(g.isGroupFolder('/w/port/docs'), false);
    assert.equal(g.folderOf('/w/port/source-analysis/10-fidelity-baseline.md'), '/w/port/source-analysis');
    assert.equal(routingKind.groups, undefined);
  });

  it('runToEnd drives a generator validation to its diagnostics', () => {
    const run = routingKind.open('/w/routing.yaml').validate('version: 2\n');
    const diags = runToEnd(run);
    assert.ok(diags.length > 0);
    assert.deepEqual(runToEnd([]), []);
  });

  it('no import cycle: the kinds import only types.ts, the registry imports no kind', () => {
    const importsOf = (file: string) =>
      [...readFileSync(path.join(KINDS_DIR, file), 'utf8').matchAll(/from '(\.\/[^']+)'/g)].map((m) => m[1]);
    assert.deepEqual(readdirSync(KINDS_DIR).sort(), [
      'builtin.ts',
      'page.ts',
      'registry.ts',
      'routing.ts',
      'types.ts',
      'watch-config.ts',
    ]);
    assert.deepEqual(importsOf('types.ts'), []);
    assert.deepEqual(importsOf('registry.ts'), ['./types']);
    assert.deepEqual(importsOf('routing.ts'), ['./types']);
    assert.deepEqual(importsOf('page.ts'), ['./types']);
    assert.deepEqual(importsOf('watch-config.ts'), ['./types']);
    assert.deepEqual(importsOf('builtin.ts').sort(), ['./page', './registry', './routing', './watch-config']);
  });
});
