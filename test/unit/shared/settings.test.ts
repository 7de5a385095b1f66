// The server settings, defined once (src/shared/settings.ts): every accepted form, wrong types ignored.
import assert from 'node:assert/strict';
import { defaultSettings, initializationOptionsFrom, readSettings } from '../../../src/shared/settings';

describe('shared settings', () => {
  it('defaults', () => {
    assert.deepEqual(defaultSettings(), {
      extraGlobs: [],
      schemaDiagnostics: 'auto',
      redhatYamlPresent: false,
      debounceMs: 15,
      maxDocumentMB: 8,
      pagesSourceRoot: '',
    });
  });

  it('reads initializationOptions (flat, with pages)', () => {
    const s = defaultSettings();
    readSettings(s, {
      extraGlobs: ['a/*.yaml', 3],
      schemaDiagnostics: 'never',
      redhatYamlPresent: true,
      debounceMs: 0,
      maxDocumentMB: 12,
      pages: { sourceRoot: ' src ' },
    });
    assert.deepEqual(s, {
      extraGlobs: ['a/*.yaml'],
      schemaDiagnostics: 'never',
      redhatYamlPresent: true,
      debounceMs: 0,
      maxDocumentMB: 12,
      pagesSourceRoot: 'src',
    });
  });

  it('reads the didChangeConfiguration section: sessionOps.routing and sessionOps.pages', () => {
    const s = defaultSettings();
    s.pagesSourceRoot = 'old';
    readSettings(s, {
      sessionOps: { routing: { extraGlobs: ['x.yaml'], schemaDiagnostics: 'always' }, pages: { sourceRoot: 'lib' } },
    });
    assert.deepEqual(s.extraGlobs, ['x.yaml']);
    assert.equal(s.schemaDiagnostics, 'always');
    assert.equal(s.pagesSourceRoot, 'lib');
    readSettings(s, { sessionOps: { maxDocumentMB: 1000 } });
    assert.equal(s.maxDocumentMB, 64, 'out of range: the nearest bound');
    // a full sessionOps section without pages.sourceRoot: unset
    readSettings(s, { sessionOps: { routing: {} } });
    assert.equal(s.pagesSourceRoot, '');
  });

  it('ignores values of the wrong type and input that is not an object', () => {
    const s = defaultSettings();
    for (const bad of [null, undefined, 7, 'x', [1, 2]]) readSettings(s, bad);
    readSettings(s, {
      schemaDiagnostics: 'sometimes',
      debounceMs: -1,
      redhatYamlPresent: 'yes',
      extraGlobs: 'a.yaml',
      pages: 'src',
    });
    assert.deepEqual(s, defaultSettings());
  });

  it('initializationOptions from the editor settings: the model defaults for unset or wrong values', () => {
    assert.deepEqual(
      initializationOptionsFrom(() => undefined, true),
      {
        extraGlobs: [],
        redhatYamlPresent: true,
        schemaDiagnostics: 'auto',
        maxDocumentMB: 8,
        pages: { sourceRoot: '' },
      },
    );
    const raw: Record<string, unknown> = {
      'routing.extraGlobs': ['a/*.yaml', 3],
      'routing.schemaDiagnostics': 'sometimes',
      'pages.sourceRoot': 'src',
      maxDocumentMB: 20,
    };
    assert.deepEqual(
      initializationOptionsFrom((key) => raw[key], false),
      {
        extraGlobs: ['a/*.yaml'],
        redhatYamlPresent: false,
        schemaDiagnostics: 'auto',
        maxDocumentMB: 20,
        pages: { sourceRoot: 'src' },
      },
    );
  });
});
