import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import {
  analyzePage,
  documentSymbols,
  LSP_SYMBOL_KIND,
  type PageModel,
  type PageSymbol,
} from '../../../../src/language/pages';
import { loadSet } from './fixtures';

function model(set: string, kind: string): PageModel {
  const { pages } = loadSet('valid', set);
  const k = [...pages.keys()].find((p) => path.basename(p).startsWith(kind)) as string;
  return analyzePage(pages.get(k) as string, k) as PageModel;
}

function outline(symbols: PageSymbol[], depth = 0): string[] {
  return symbols.flatMap((s) => [`${'  '.repeat(depth)}${s.kind} ${s.name}`, ...outline(s.children, depth + 1)]);
}

function contained(s: PageSymbol): void {
  const le = (a: PageSymbol['range']['start'], b: PageSymbol['range']['start']): boolean =>
    a.line < b.line || (a.line === b.line && a.character <= b.character);
  assert.ok(
    le(s.range.start, s.selectionRange.start) && le(s.selectionRange.end, s.range.end),
    `${s.name}: selectionRange inside range`,
  );
  for (const c of s.children) {
    assert.ok(le(s.range.start, c.range.start) && le(c.range.end, s.range.end), `${c.name} inside ${s.name}`);
    contained(c);
  }
}

describe('pages: document symbols', () => {
  it('10: title > section > table > FIDs, and declared chunks', () => {
    const syms = documentSymbols(model('tables-md', '10'));
    assert.deepEqual(outline(syms), [
      'heading Fidelity baseline',
      '  heading Master inventory',
      '    table Table: ID | Behavior | Type | Source test | Chunk',
      '      fid FID-001',
      '      fid FID-002',
      '      fid FID-003',
      '      fid FID-004',
      '      fid FID-005',
      '  heading Chunks',
      '    chunk auth',
      '    chunk lists',
      '    chunk tasks',
    ]);
    syms.forEach(contained);
    const fid = syms[0].children[0].children[0].children[1];
    assert.equal(fid.detail, 'error path · auth · Login with a wrong password is refused');
  });

  it('03 and 04: entity and feature headings, fields, relationships, rules and edge cases', () => {
    const data = documentSymbols(model('tables-md', '03'));
    const lines = outline(data);
    assert.ok(lines.includes('  entity User'));
    assert.ok(lines.includes('      entity-field email'));
    assert.ok(lines.includes('  heading Relationships'));
    assert.ok(lines.includes('    relationship User 1:N TaskList'));
    data.forEach(contained);
    const logic = outline(documentSymbols(model('mixed', '04')));
    assert.deepEqual(logic, [
      'heading Business logic',
      '  feature Rooms',
      '    feature Joining',
      '      rule RULE-01',
      '    feature Leaving',
      '      rule RULE-02',
      '  feature Messages',
      '    rule RULE-03',
      '  heading Edge cases',
      '    edge-case A message to a room deleted meanwhile yields ROOM_404 (covered by FID-003).',
    ]);
  });

  it('01, 02 and 05 items, and an LSP kind for every symbol kind', () => {
    assert.ok(outline(documentSymbols(model('tables-md', '01'))).includes('    field Framework'));
    assert.ok(outline(documentSymbols(model('wiki-lists', '01'))).includes('    module customer accounts'));
    assert.ok(outline(documentSymbols(model('wiki-lists', '02'))).includes('      endpoint POST /payments'));
    assert.ok(outline(documentSymbols(model('mixed', '05'))).includes('      error-code MSG_413'));
    for (const n of Object.values(LSP_SYMBOL_KIND)) assert.ok(n >= 1 && n <= 26);
  });
});
