// The analysis size limit (src/core/document-size.ts): the size is measured without encoding, the
// one diagnostic names the size, the limit and the setting, and the outline of a document too large
// to analyse is a line scan of its top level.
import assert from 'node:assert/strict';
import {
  DOCUMENT_TOO_LARGE,
  markdownTopHeading,
  MAX_OUTLINE_ENTRIES,
  oversize,
  tooLargeDiagnostic,
  topLevelOutline,
  yamlTopLevelKey,
} from '../../../src/core/document-size';

const MB = 1024 * 1024;

describe('document size limit', () => {
  it('oversize: undefined within the limit, the UTF-8 size past it', () => {
    assert.equal(oversize('a'.repeat(MB), 1), undefined);
    assert.equal(oversize('a'.repeat(MB + 1), 1), MB + 1);
    // 400,000 three-byte characters: 1.2 MB of UTF-8 in 400,000 UTF-16 units
    assert.equal(oversize('€'.repeat(400000), 1), 1200000);
    assert.equal(oversize('€'.repeat(300000), 1), undefined);
  });

  it('the diagnostic: first line, the size, the limit and the setting', () => {
    const d = tooLargeDiagnostic(9.5 * MB, 8, 'session-ops.routing');
    assert.equal(d.code, DOCUMENT_TOO_LARGE);
    assert.deepEqual(d.range.start, { line: 0, character: 0 });
    assert.equal(d.source, 'session-ops.routing');
    assert.match(d.message, /^This document is 9\.5 MB, over the 8 MB limit: .* Raise sessionOps\.maxDocumentMB/);
  });

  it('outlines the top-level keys of YAML, each to the line before the next', () => {
    const text = '# head\nversion: 1\n"default": {}\nroutes:\n  Kind/A:\n    effort: high\n- item\nlast:\r\n  x: 1';
    const o = topLevelOutline(text, yamlTopLevelKey);
    assert.deepEqual(
      o.map((e) => [e.name, e.range.start.line, e.range.end.line]),
      [
        ['version', 1, 1],
        ['default', 2, 2],
        ['routes', 3, 6],
        ['last', 7, 8],
      ],
    );
    assert.deepEqual(o[3].selectionRange.end, { line: 7, character: 5 });
    assert.equal(topLevelOutline('a:b\nhttp://x\n', yamlTopLevelKey).length, 0, 'a colon not followed by a space');
  });

  it('outlines the level-1 and level-2 headings of Markdown', () => {
    const text = '# Title\n\n## Part\n### Sub\n#nospace\n| a |\n## End';
    assert.deepEqual(
      topLevelOutline(text, markdownTopHeading).map((e) => [e.name, e.range.start.line, e.range.end.line]),
      [
        ['Title', 0, 1],
        ['Part', 2, 5],
        ['End', 6, 6],
      ],
    );
  });

  it('outlines at most MAX_OUTLINE_ENTRIES entries and cuts long names', () => {
    const many = Array.from({ length: MAX_OUTLINE_ENTRIES + 10 }, (_, i) => `k${i}: 1`).join('\n');
    assert.equal(topLevelOutline(many, yamlTopLevelKey).length, MAX_OUTLINE_ENTRIES);
    const long = topLevelOutline(`${'k'.repeat(1000)}: 1\n`, yamlTopLevelKey);
    assert.equal(long[0].name.length, 120);
  });
});
