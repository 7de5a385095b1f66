// Completion, hover, quick fixes and document symbols over routing tables (pure functions).
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  complete,
  documentSymbols,
  hover,
  quickFixes,
  RoutingAnalyzer,
  validateRouting,
  type SymbolEntry,
} from '../../../../src/language/routing';
import { cursorContext } from '../../../../src/language/routing/cursor-context';
import type { Range } from '../../../../src/core/diagnostics';

const fixtures = path.resolve(__dirname, '../../../fixtures/routing');

/** Text with a cursor marker `|`: the text without it and the cursor position. */
function at(marked: string): { text: string; pos: { line: number; character: number } } {
  const i = marked.indexOf('|');
  const text = marked.slice(0, i) + marked.slice(i + 1);
  const before = marked.slice(0, i).split('\n');
  return { text, pos: { line: before.length - 1, character: before[before.length - 1].length } };
}

function labels(marked: string, routeKeys: string[] = []): string[] {
  const { text, pos } = at(marked);
  const a = new RoutingAnalyzer().analyze(text);
  return complete(text, a.lineStarts, pos, routeKeys).map((c) => c.label);
}

export function applyEdits(text: string, edits: { range: Range; newText: string }[]): string {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  const off = (p: { line: number; character: number }) => starts[p.line] + p.character;
  const sorted = [...edits].sort((a, b) => off(b.range.start) - off(a.range.start));
  let out = text;
  for (const e of sorted) out = out.slice(0, off(e.range.start)) + e.newText + out.slice(off(e.range.end));
  return out;
}

const HEAD = 'version: 1\ndefault:\n  effort: high\n';

describe('routing completion', () => {
  it('top-level keys, without those already present', () => {
    assert.deepEqual(labels(`${HEAD}routes: {}\n|`), ['$schema', 'preflight', 'dag', 'filing', 'review']);
  });
  it('route keys', () => {
    assert.deepEqual(labels(`${HEAD}routes:\n  Kind/Bug:\n    e|`), [
      'entry',
      'skip',
      'keep_gates',
      'preflight',
      'notes',
      'effort',
    ]);
    assert.deepEqual(labels(`${HEAD}routes:\n  Kind/Bug:\n    effort: high\n    |\n    skip: []\n`), [
      'entry',
      'keep_gates',
      'preflight',
      'notes',
    ]);
  });
  it('entry keys and values', () => {
    assert.deepEqual(labels(`${HEAD}routes:\n  Kind/Bug:\n    entry:\n      |`), ['skill', 'mode']);
    assert.deepEqual(labels(`${HEAD}routes:\n  Kind/Bug:\n    entry:\n      skill: |`), [
      'implement',
      'review-artifact',
      'review-code',
      'verify',
      'analyze-dag',
      'null',
    ]);
    assert.deepEqual(labels(`${HEAD}routes:\n  Kind/Bug:\n    entry: {skill: implement, mode: |}`), [
      'bugfix',
      'refactor',
      'port',
      'null',
    ]);
    assert.deepEqual(labels(`${HEAD}routes:\n  Kind/Bug:\n    entry: {skill: implement, |}`), ['mode']);
  });
  it('stages in flow and block lists, without those already listed; retired ids never offered', () => {
    assert.deepEqual(labels(`${HEAD}routes:\n  Kind/Bug:\n    skip: [verify, |]`), [
      'review-dag',
      'review-code',
      'audit-process',
      'merge-pr',
    ]);
    assert.deepEqual(labels(`${HEAD}routes:\n  Kind/Bug:\n    keep_gates:\n      - |`), [
      'review-dag',
      'review-code',
      'verify',
      'audit-process',
      'merge-pr',
    ]);
  });
  it('effort, modes, dimensions, oversize signal ids, parent kinds, booleans, the version constant', () => {
    assert.deepEqual(labels(`${HEAD.replace('effort: high', 'effort: |')}routes: {}\n`), ['low', 'high', 'max']);
    assert.deepEqual(labels('version: |\n'), ['1']);
    const dag = 'version: 1\ndefault: {}\nroutes: {}\ndag:\n';
    assert.deepEqual(labels(`${dag}  route:\n    single_gate:\n      dimensions: [TOPO, |]\n`), ['REQMAP', 'RELEASE']);
    assert.deepEqual(labels(`${dag}  size_derivation:\n    oversize_signals:\n      - id: |\n`), [
      'node_split',
      'new_cross_session_edge',
      'draft_contract_breaking',
      'frozen_contract_breaking',
      'node_scope_drift',
    ]);
    assert.deepEqual(labels(`${dag}  ticket_creation:\n    inherit_parent:\n      - |\n`), [
      'Kind/Epic',
      'Kind/Feature',
    ]);
    assert.deepEqual(labels(`${dag}  ticket_creation:\n    per_node: |\n`), ['true', 'false']);
    assert.deepEqual(labels(`${dag}  task_route:\n    inherit: |\n`), ['parent_dag']);
  });
  it('preflight item keys in a list item', () => {
    assert.deepEqual(labels(`${HEAD}routes:\n  Kind/Bug:\n    preflight:\n      - id: a\n        |`), [
      'item',
      'evidence',
      'added_cycle',
    ]);
    assert.deepEqual(labels(`${HEAD}routes:\n  Kind/Bug:\n    preflight:\n      - |`), [
      'id',
      'item',
      'evidence',
      'added_cycle',
    ]);
  });
  it('Kind/* route keys used elsewhere in the workspace, and the parent kinds', () => {
    assert.deepEqual(labels(`${HEAD}routes:\n  Kind/Bug:\n    effort: high\n  |`, ['Kind/Chore', 'Kind/Bug']), [
      'Kind/Chore',
      'Kind/Epic',
      'Kind/Feature',
    ]);
  });
  it('replaces the word under the cursor and adds a space after a bare colon', () => {
    const { text, pos } = at(`${HEAD}routes:\n  Kind/Bug:\n    effort:|`);
    const a = new RoutingAnalyzer().analyze(text);
    const items = complete(text, a.lineStarts, pos);
    assert.equal(items[0].insertText, ' low');
    const m = at(`${HEAD}routes:\n  Kind/Bug:\n    skip: [ver|ify]`);
    const b = new RoutingAnalyzer().analyze(m.text);
    const it = complete(m.text, b.lineStarts, m.pos).find((c) => c.label === 'verify');
    assert.deepEqual(it?.range, { start: { line: 5, character: 11 }, end: { line: 5, character: 17 } });
  });
  it('nothing in comments or outside the schema', () => {
    assert.deepEqual(labels(`${HEAD}routes: {} # |`), []);
    assert.deepEqual(labels(`${HEAD}routes:\n  Kind/Bug:\n    notes: |`), []);
  });
  it('the cursor context reads paths through nested lists', () => {
    const { text, pos } = at('dag:\n  size_derivation:\n    oversize_signals:\n      - id: node_split\n        trig|');
    const lines = text.split('\n');
    const offset = lines.slice(0, pos.line).reduce((n, l) => n + l.length + 1, 0) + pos.character;
    const ctx = cursorContext(text, offset);
    assert.deepEqual(ctx?.path, ['dag', 'size_derivation', 'oversize_signals', '*']);
    assert.equal(ctx?.mode, 'key');
    assert.deepEqual([...(ctx?.siblings ?? [])], ['id']);
  });
});

describe('routing hover', () => {
  const text = readFileSync(path.join(fixtures, 'valid/complete.routing.yaml'), 'utf8');
  const a = new RoutingAnalyzer().analyze(text);
  const lineOf = (s: string) => text.split('\n').findIndex((l) => l.includes(s));
  it('shows the spec notes of a key', () => {
    const l = lineOf('    effort: high');
    const h = hover(a, { line: l, character: 5 });
    assert.match(h?.markdown ?? '', /^\*\*effort\*\*/);
    assert.match(h?.markdown ?? '', /low is reserved for lightweight routes without a pipeline/);
    assert.deepEqual(h?.range, { start: { line: l, character: 4 }, end: { line: l, character: 10 } });
  });
  it('shows the notes and the allowed values on a value', () => {
    const l = lineOf('    skip: [review-dag]');
    const h = hover(a, { line: l, character: 13 });
    assert.match(h?.markdown ?? '', /Allowed: `review-dag`, `review-code`/);
  });
  it('says a retired stage is retired', () => {
    const t = 'version: 1\ndefault:\n  skip: [roadmap-exit]\nroutes: {}\n';
    const h = hover(new RoutingAnalyzer().analyze(t), { line: 2, character: 12 });
    assert.match(h?.markdown ?? '', /`roadmap-exit` is a retired stage id/);
  });
  it('describes a route key and the preflight cap note', () => {
    const l = lineOf('  Kind/Bug:');
    assert.match(hover(a, { line: l, character: 4 })?.markdown ?? '', /Route for tickets labelled `Kind\/Bug`/);
    const p = lineOf('    preflight:');
    assert.match(
      hover(a, { line: p, character: 6 })?.markdown ?? '',
      /cap is governed by preflight.max_items, not by the schema/,
    );
  });
});

describe('routing hover: the effective route on a route key', () => {
  const text = [
    'version: 1',
    'default:',
    '  entry: {skill: null, mode: null}',
    '  effort: high',
    'preflight:',
    '  max_items: 1',
    'routes:',
    '  Kind/Bug:',
    '    entry: {skill: implement, mode: bugfix}',
    '    skip: [review-dag]',
    '    keep_gates: [verify]',
    '    preflight:',
    '      - {id: old, item: Old check., evidence: retro C9, added_cycle: C9}',
    '      - {id: new, item: New check., evidence: retro C10, added_cycle: C10}',
    '    effort: max',
    '',
  ].join('\n');
  for (const chunking of [true, false]) {
    const a = new RoutingAnalyzer({ chunking }).analyze(text);
    it(`one block: entry, gates, preflight after the cap, effort (${chunking ? 'chunked' : 'whole'})`, () => {
      const md = hover(a, { line: 7, character: 4 })?.markdown ?? '';
      assert.match(md, /Route for tickets labelled `Kind\/Bug`/);
      const block = md.slice(md.indexOf('**Effective route**'));
      assert.equal(
        block,
        [
          '**Effective route**',
          '',
          '```text',
          'Entry: skill implement, mode bugfix',
          'Skip: review-dag',
          'Keep gates: verify',
          'Preflight (1 of 2 kept by preflight.max_items):',
          '  - new: New check. (evidence: retro C10; added_cycle C10)',
          'Dropped by preflight.max_items (oldest added_cycle first):',
          '  - old: Old check. (evidence: retro C9; added_cycle C9)',
          "Effort: max (the model's variant of that name, when it has a variant table)",
          '```',
        ].join('\n'),
      );
    });
  }
  it('on default too; not on other keys; alone when another YAML server gives the schema hover', () => {
    const a = new RoutingAnalyzer().analyze(text);
    assert.match(hover(a, { line: 1, character: 2 })?.markdown ?? '', /Entry: natural-language routing \(skill null\)/);
    assert.doesNotMatch(hover(a, { line: 9, character: 5 })?.markdown ?? '', /Effective route/);
    const only = hover(a, { line: 7, character: 4 }, { schema: false })?.markdown ?? '';
    assert.match(only, /^\*\*Effective route\*\*/);
    assert.equal(hover(a, { line: 9, character: 5 }, { schema: false }), undefined);
  });
});

describe('routing document symbols', () => {
  const text = readFileSync(path.join(fixtures, 'valid/complete.routing.yaml'), 'utf8');
  for (const mode of [true, false]) {
    it(`routes and dag blocks for the outline (${mode ? 'chunked' : 'whole'})`, () => {
      const syms = documentSymbols(new RoutingAnalyzer({ chunking: mode }).analyze(text));
      const names = (s: SymbolEntry[]) => s.map((x) => x.name);
      assert.deepEqual(names(syms), [
        '$schema',
        'version',
        'default',
        'routes',
        'preflight',
        'filing',
        'review',
        'dag',
      ]);
      const routes = syms.find((s) => s.name === 'routes') as SymbolEntry;
      assert.equal(routes.kind, 'namespace');
      assert.deepEqual(names(routes.children ?? []), [
        'Kind/Bug',
        'Kind/Refactor',
        'Kind/Port',
        'Kind/Review',
        'Kind/Artifact',
        'Kind/Verify',
        'Kind/Epic',
        'Kind/Chore',
      ]);
      assert.equal(routes.children?.[0].detail, 'implement · bugfix, effort high');
      const last = routes.children?.[routes.children.length - 1] as SymbolEntry;
      assert.deepEqual(routes.range.end, last.range.end, 'routes spans its routes');
      const dag = syms.find((s) => s.name === 'dag') as SymbolEntry;
      assert.deepEqual(names(dag.children ?? []), [
        'route',
        'task_route',
        'ticket_creation',
        'verify_milestone',
        'size_derivation',
        'review_depth',
      ]);
      assert.ok(dag.children?.[0].children?.some((c) => c.name === 'single_gate'));
      for (const s of [...syms, ...(routes.children ?? [])]) {
        assert.ok(
          s.selectionRange.start.line >= s.range.start.line && s.selectionRange.end.line <= s.range.end.line,
          `${s.name}: selection inside range`,
        );
      }
    });
  }
});

describe('routing document symbols of a huge table', () => {
  const routes = Array.from({ length: 30 }, (_, i) => `  Kind/R${i}:\n    effort: high`).join('\n');
  const keys = Array.from({ length: 10 }, (_, i) => `extra_${i}: 1`).join('\n');
  const text = `version: 1\nroutes:\n${routes}\n${keys}\n`;
  const count = (xs: SymbolEntry[]): number => xs.reduce((n, x) => n + 1 + count(x.children ?? []), 0);
  for (const mode of [true, false]) {
    it(`lists at most the limit's entries, nested ones counted, the first in document order (${mode ? 'chunked' : 'whole'})`, () => {
      const a = new RoutingAnalyzer({ chunking: mode }).analyze(text);
      assert.equal(count(documentSymbols(a)), 1 + 1 + 30 + 10);
      const syms = documentSymbols(a, 12);
      assert.equal(count(syms), 12);
      assert.deepEqual(
        syms.map((s) => s.name),
        ['version', 'routes'],
      );
      const r = syms[1];
      assert.equal(r.children?.length, 10);
      assert.equal(r.children?.[0].name, 'Kind/R0');
      assert.equal(r.detail, '30 routes', 'the count of routes is the whole table');
    });
  }
});

describe('routing quick fixes', () => {
  it('applying the preferred fix of an invalid corpus file removes its problem and adds none', () => {
    const dir = path.join(fixtures, 'invalid');
    let fixed = 0;
    for (const f of readdirSync(dir).filter((x) => x.endsWith('.yaml'))) {
      const text = readFileSync(path.join(dir, f), 'utf8');
      const a = new RoutingAnalyzer().analyze(text);
      if (a.diagnostics.length !== 1) continue;
      const d = a.diagnostics[0];
      const fix = quickFixes(a, d.range).find((q) => q.isPreferred);
      if (!fix) continue;
      const after = validateRouting(applyEdits(text, fix.edits));
      assert.deepEqual(
        after.map((x) => `${x.code} ${x.message}`),
        [],
        `${f}: "${fix.title}" leaves problems`,
      );
      fixed++;
    }
    assert.ok(fixed >= 60, `fixed ${fixed} files`);
  });

  it('removes a retired stage from a flow list, a block list, or the only item', () => {
    const cases: [string, string][] = [
      ['skip: [verify, roadmap-exit]', 'skip: [verify]'],
      ['skip: [roadmap-exit, verify]', 'skip: [verify]'],
      ['skip: [roadmap-exit]', 'skip: []'],
      ['skip:\n    - verify\n    - design-exit\n    - merge-pr', 'skip:\n    - verify\n    - merge-pr'],
      ['skip:\n    - design-exit', 'skip: []'],
    ];
    for (const [from, to] of cases) {
      const text = `version: 1\ndefault:\n  ${from}\nroutes: {}\n`;
      const a = new RoutingAnalyzer().analyze(text);
      const fix = quickFixes(a, a.diagnostics[0].range).find((q) => q.title.startsWith('Remove retired stage'));
      assert.ok(fix, from);
      assert.equal(applyEdits(text, fix.edits), `version: 1\ndefault:\n  ${to}\nroutes: {}\n`);
    }
  });

  it('replaces a misspelt enum value with the nearest one', () => {
    const text = 'version: 1\ndefault:\n  entry: {skill: implemnt, mode: "bugfx"}\nroutes: {}\n';
    const a = new RoutingAnalyzer().analyze(text);
    const fixes = a.diagnostics.map((d) => quickFixes(a, d.range)[0]);
    assert.deepEqual(
      fixes.map((f) => f.title),
      ['Replace with implement', 'Replace with bugfix'],
    );
    let out = text;
    for (const f of [...fixes].reverse()) out = applyEdits(out, f.edits);
    assert.equal(out, 'version: 1\ndefault:\n  entry: {skill: implement, mode: "bugfix"}\nroutes: {}\n');
  });

  it('adds a missing required block with a skeleton that validates', () => {
    const text =
      'version: 1\ndefault: {}\nroutes: {}\nreview:\n  max_rounds:\n    default: 2\ndag:\n  route:\n    entry: {}\n    skip: []\n    keep_gates: []\n';
    const a = new RoutingAnalyzer().analyze(text);
    let out = text;
    // apply one "Add" fix at a time (each is computed against the current text)
    for (let guard = 0; guard < 10; guard++) {
      const an = new RoutingAnalyzer().analyze(out);
      const d = an.diagnostics.find((x) => x.code === 'schema.required');
      if (!d) break;
      const fix = quickFixes(an, d.range).find((q) => q.title.startsWith('Add'));
      assert.ok(fix, d.message);
      out = applyEdits(out, fix.edits);
    }
    assert.ok(a.diagnostics.length >= 7);
    assert.deepEqual(
      validateRouting(out).map((d) => d.message),
      [],
    );
    assert.match(out, /single_gate:\n {6}id: review-dag\n {6}dimensions: \[TOPO, REQMAP, RELEASE\]/);
  });

  it('fills an empty block', () => {
    const text = 'version: 1\ndefault: {}\nroutes: {}\nreview:\n';
    const a = new RoutingAnalyzer().analyze(text);
    const fix = quickFixes(a, a.diagnostics[0].range)[0];
    assert.equal(fix.title, 'Fill in "review"');
    assert.equal(
      applyEdits(text, fix.edits),
      'version: 1\ndefault: {}\nroutes: {}\nreview:\n  max_rounds:\n    default: 0\n    high_risk: 0\n',
    );
  });
});
