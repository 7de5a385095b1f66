import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { analyzePage, definitionAt, hoverAt, idAt, type PageModel } from '../../../../src/language/pages';
import { loadSet } from './fixtures';

function keyOf(pages: Map<string, string>, kind: string): string {
  const k = [...pages.keys()].find((p) => path.basename(p).startsWith(kind));
  assert.ok(k, kind);
  return k;
}

/** Position of the n-th occurrence of `needle` in `text` (plus `offset` characters). */
function posOf(text: string, needle: string, offset = 0, nth = 0): { line: number; character: number } {
  let at = -1;
  for (let i = 0; i <= nth; i++) at = text.indexOf(needle, at + 1);
  assert.ok(at >= 0, needle);
  const before = text.slice(0, at);
  const line = before.split('\n').length - 1;
  return { line, character: at - (before.lastIndexOf('\n') + 1) + offset };
}

describe('pages: hover and definition', () => {
  const { pages } = loadSet('valid', 'tables-md');
  const api = keyOf(pages, '02');
  const logic = keyOf(pages, '04');
  const baseline = keyOf(pages, '10');
  const apiText = pages.get(api) as string;

  it('finds the id under the cursor, including at its end', () => {
    const p = posOf(apiText, 'LIST_404');
    assert.deepEqual(idAt(apiText, p)?.id, 'LIST_404');
    assert.deepEqual(idAt(apiText, { line: p.line, character: p.character + 8 })?.id, 'LIST_404');
    assert.equal(idAt(apiText, { line: 0, character: 2 }), null);
    assert.equal(idAt(apiText, { line: 999, character: 0 }), null);
  });

  it('an error code in 02 shows its 05 row (cross-page, siblings as texts)', () => {
    const p = posOf(apiText, 'LIST_404', 3);
    const h = hoverAt(apiText, api, p, pages);
    assert.ok(h);
    assert.match(h.contents, /\*\*LIST_404\*\* · HTTP 404/);
    assert.match(h.contents, /List not found/);
    assert.match(h.contents, /When: id unknown or list deleted/);
    assert.match(h.contents, /05-error-handling\.md, line 9/);
    assert.equal(
      apiText.split('\n')[h.range.start.line].slice(h.range.start.character, h.range.end.character),
      'LIST_404',
    );
  });

  it('a FID shows its row on the baseline itself and from another page (siblings as models)', () => {
    const text = pages.get(baseline) as string;
    const model = analyzePage(text, baseline) as PageModel;
    const own = hoverAt(model, baseline, posOf(text, 'FID-004'));
    assert.ok(own);
    assert.match(own.contents, /\*\*FID-004\*\* · edge case · chunk `lists`/);
    assert.match(own.contents, /A blank list title is refused/);
    assert.match(own.contents, /Source test: `tests\/test_lists.py::test_blank_title`/);

    const note = '# Business logic\n\n## Lists\n\n- RULE-01: see FID-004 `x() == 1`\n\n## Edge cases\n\n- none\n';
    const models = [...pages].map(([p, t]) => analyzePage(t, p) as PageModel);
    const h = hoverAt(note, logic, posOf(note, 'FID-004', 2), models);
    assert.ok(h);
    assert.match(h.contents, /A blank list title is refused/);
  });

  it('a rule id shows its rule with the assertion in a code block', () => {
    const logicText = pages.get(logic) as string;
    const h = hoverAt(logicText, logic, posOf(logicText, 'RULE-04'));
    assert.ok(h);
    assert.match(h.contents, /\*\*RULE-04\*\* · Lists/);
    assert.match(h.contents, /```\ncreate_list\(" {2}x {2}"\)\.title == "x"\n```/);
  });

  it('says when the id is not defined, and is silent without the defining page', () => {
    const text = apiText.replace('LIST_404', 'LIST_405');
    const h = hoverAt(text, api, posOf(text, 'LIST_405'), pages);
    assert.match(h?.contents ?? '', /LIST_405\*\* is not in the error table/);
    assert.equal(hoverAt(apiText, api, posOf(apiText, 'LIST_404')), null);
  });

  it('definitionAt points to the defining row on the sibling page', () => {
    const d = definitionAt(apiText, api, posOf(apiText, 'TASK_001'), pages);
    assert.ok(d);
    assert.equal(d.filePath, keyOf(pages, '05'));
    const errText = pages.get(d.filePath) as string;
    assert.equal(
      errText.split('\n')[d.range.start.line].slice(d.range.start.character, d.range.end.character),
      'TASK_001',
    );
    assert.equal(definitionAt(apiText, api, posOf(apiText, 'Public')), null);
  });
});
