import * as assert from 'node:assert/strict';
import type { Diagnostic } from '../../../../src/core/diagnostics';
import { validatePage, validatePageSet } from '../../../../src/language/pages';
import { expectationsOf, FIXTURES, invalidFixtures, listDirs, loadSet, pagePathFor } from './fixtures';
import * as path from 'node:path';

function show(diags: Diagnostic[]): string {
  return (
    diags
      .map((d) => `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.code} ${d.severity} — ${d.message}`)
      .join('\n') || '(none)'
  );
}

describe('pages corpus', () => {
  describe('valid page sets have no diagnostic', () => {
    for (const name of listDirs(path.join(FIXTURES, 'valid'))) {
      it(`${name}: every page, and the set with its source tree`, () => {
        const { pages, folder } = loadSet('valid', name);
        assert.equal(pages.size, 6, 'a valid set has all six pages');
        for (const [p, text] of pages) assert.equal(show(validatePage(text, p)), '(none)', path.basename(p));
        const cross = validatePageSet(pages, { sourceRoot: 'src' });
        for (const [key, diags] of cross) assert.equal(show(diags), '(none)', path.relative(folder, key) || 'folder');
        assert.ok(cross.has(folder), 'the folder key is present');
      });
    }
  });

  describe('invalid pages: exactly the expected diagnostic, on the offending line', () => {
    for (const fx of invalidFixtures()) {
      it(`${fx.kind}/${fx.name}`, () => {
        const expected = expectationsOf(fx.text);
        assert.equal(expected.length, 1, 'each invalid fixture states one expectation');
        const [want] = expected;
        const diags = validatePage(fx.text, pagePathFor(fx.kind));
        assert.equal(diags.length, 1, `exactly one diagnostic expected, got:\n${show(diags)}`);
        const [d] = diags;
        assert.equal(d.code, want.code, show(diags));
        assert.equal(d.range.start.line + 1, want.line, show(diags));
        if (want.column !== null) assert.equal(d.range.start.character + 1, want.column, show(diags));
        assert.equal(d.severity, want.severity, show(diags));
        assert.equal(d.source, 'session-ops.pages');
        // Precise: one line, never the whole file, within the line's text.
        assert.equal(d.range.end.line, d.range.start.line, 'single-line range');
        const lineText = fx.text.split(/\r?\n/)[d.range.start.line];
        assert.ok(d.range.end.character <= lineText.length, 'range ends within the line');
        assert.ok(d.range.end.character > d.range.start.character, 'range is not empty');
        assert.ok(d.message.length > 0 && !d.message.includes('\n'), 'one-sentence message');
      });
    }
  });
});
