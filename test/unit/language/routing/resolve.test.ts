// Route resolution (issue 31 item 1): every field of the effective route, the preflight cap and its
// order (as a property), ambiguity, the default, the DAG blocks, and invalid tables.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import {
  applyCap,
  effectiveRouteLines,
  itemsToDrop,
  resolveRoute,
  validateRouting,
  type EffectiveRoute,
  type Resolution,
} from '../../../../src/language/routing';

const complete = readFileSync(path.join(__dirname, '../../../fixtures/routing/valid/complete.routing.yaml'), 'utf8');

function route(r: Resolution): EffectiveRoute {
  assert.equal(r.kind, 'route', JSON.stringify(r));
  return (r as { route: EffectiveRoute }).route;
}

describe('routing resolution', () => {
  it('a Kind route: every field', () => {
    const r = route(resolveRoute(complete, ['Kind/Bug'], { modelVariants: ['low', 'high', 'max'] }));
    assert.equal(r.matched, 'Kind/Bug');
    assert.deepEqual(r.entry, { skill: 'implement', mode: 'bugfix' });
    assert.deepEqual(r.skip, ['review-dag']);
    assert.deepEqual(r.keepGates, ['review-code', 'verify']);
    assert.deepEqual(r.preflight, [
      {
        id: 'reproduce-first',
        item: 'Reproduce the bug with a failing test before fixing it.',
        evidence: 'retro C12 finding 3',
        addedCycle: 'C12',
      },
      {
        id: 'check-callers',
        item: 'List the callers of the function you change.',
        evidence: 'retro C14 finding 1',
        addedCycle: null,
      },
    ]);
    assert.deepEqual(r.preflightDropped, []);
    assert.equal(r.effort, 'high');
    assert.equal(r.variant, 'high');
    assert.equal(r.variantSource, 'variant');
    assert.equal(r.notes, 'Bugs go straight to implementation.');
    assert.equal(r.reviewRounds, 2);
    assert.equal(r.reviewBudget, 'default');
    assert.equal(r.dag, null);
  });

  it('high risk takes review.max_rounds.high_risk; no review block gives null', () => {
    assert.equal(route(resolveRoute(complete, ['Kind/Bug'], { highRisk: true })).reviewRounds, 3);
    const noReview = 'version: 1\ndefault: {effort: max}\nroutes: {}\n';
    const r = route(resolveRoute(noReview, ['Kind/Bug'], { highRisk: true }));
    assert.equal(r.reviewRounds, null);
    assert.equal(r.reviewBudget, null);
    assert.ok(effectiveRouteLines(r).includes('Review rounds: none (the table has no review block)'));
  });

  it('no Kind route matches: default; non-Kind labels are ignored; null skill is natural-language routing', () => {
    for (const labels of [['Kind/Unknown'], ['bug', 'Priority/High'], []]) {
      const r = route(resolveRoute(complete, labels));
      assert.equal(r.matched, 'default');
      assert.deepEqual(r.entry, { skill: null, mode: null });
      assert.deepEqual(r.skip, ['audit-process']);
      assert.equal(r.notes, 'Natural-language routing when no kind route matches.');
    }
    const lines = effectiveRouteLines(route(resolveRoute(complete, ['Kind/Unknown'])));
    assert.ok(lines.includes('Entry: natural-language routing (skill null), mode none'), lines.join('\n'));
  });

  it('a label without a route beside one with a route takes the one with a route', () => {
    assert.equal(route(resolveRoute(complete, ['Kind/Unknown', 'Kind/Port'])).matched, 'Kind/Port');
  });

  it('Kind labels resolving to different routes are ambiguous, naming them in the order given', () => {
    assert.deepEqual(resolveRoute(complete, ['Kind/Refactor', 'bug', 'Kind/Bug', 'Kind/Unknown']), {
      kind: 'ambiguous',
      labels: ['Kind/Refactor', 'Kind/Bug'],
    });
  });

  it('labels resolving to the same route are not ambiguous: the same key twice, or routes of equal content', () => {
    assert.equal(route(resolveRoute(complete, ['Kind/Bug', 'Kind/Bug'])).matched, 'Kind/Bug');
    const t = [
      'version: 1',
      'default: {}',
      'routes:',
      '  Kind/Bug: &r',
      '    entry: {skill: implement, mode: bugfix}',
      '  Kind/Defect: *r',
      '  Kind/Other:',
      '    entry: {skill: implement, mode: bugfix}',
      '    effort: max',
      '',
    ].join('\n');
    assert.equal(route(resolveRoute(t, ['Kind/Defect', 'Kind/Bug'])).matched, 'Kind/Defect');
    assert.equal(resolveRoute(t, ['Kind/Bug', 'Kind/Other']).kind, 'ambiguous');
  });

  it('effort and variant: no model, no variant table, no such variant, no effort', () => {
    const none = route(resolveRoute(complete, ['Kind/Refactor']));
    assert.equal(none.effort, 'max');
    assert.equal(none.variant, null);
    assert.equal(none.variantSource, 'no-model');
    assert.ok(effectiveRouteLines(none).includes('Effort: max; variant: unknown (no model was given)'));
    for (const table of [null, []]) {
      const r = route(resolveRoute(complete, ['Kind/Refactor'], { modelVariants: table }));
      assert.equal(r.variant, null);
      assert.ok(effectiveRouteLines(r).includes('Effort: max; ignored: the model has no variant table'));
    }
    const other = route(resolveRoute(complete, ['Kind/Refactor'], { modelVariants: ['low', 'high'] }));
    assert.equal(other.variant, null);
    assert.equal(other.variantSource, 'no-such-variant');
    assert.ok(
      effectiveRouteLines(other).includes("Effort: max; ignored: the model's variants (low, high) have none named max"),
    );
    const port = route(resolveRoute(complete, ['Kind/Port'], { modelVariants: ['high'] }));
    assert.equal(port.effort, null);
    assert.equal(port.variant, null);
    assert.equal(port.variantSource, 'no-effort');
  });

  it('the cap: preflight.max_items keeps the newest, drops the oldest added_cycle first (natural order)', () => {
    const t = [
      'version: 1',
      'default: {}',
      'preflight: {max_items: 2}',
      'routes:',
      '  Kind/Bug:',
      '    preflight:',
      '      - {id: c10, item: a, evidence: e, added_cycle: C10}',
      '      - {id: none1, item: b, evidence: e}',
      '      - {id: c9, item: c, evidence: e, added_cycle: C9}',
      '      - {id: none2, item: d, evidence: e}',
      '',
    ].join('\n');
    const r = route(resolveRoute(t, ['Kind/Bug']));
    assert.deepEqual(
      r.preflight.map((p) => p.id),
      ['none1', 'none2'],
    );
    assert.deepEqual(
      r.preflightDropped.map((p) => p.id),
      ['c10', 'c9'],
    );
    const lines = effectiveRouteLines(r);
    assert.ok(lines.includes('Preflight (2 of 4 kept by preflight.max_items):'), lines.join('\n'));
    // the diagnostic names the same items, in the order the cap drops them
    const d = validateRouting(t).find((x) => x.code === 'routing.preflight-over-cap');
    assert.equal(d?.severity, 'information');
    assert.match(d?.message ?? '', /would drop "c9" \(added_cycle C9\), "c10" \(added_cycle C10\)\.$/);
  });

  it('items without a cycle are dropped last, the later in the document first; no max_items drops nothing', () => {
    const items = (n: number) =>
      Array.from({ length: n }, (_, i) => `      - {id: p${i}, item: i, evidence: e}`).join('\n');
    const t = (policy: string) =>
      `version: 1\ndefault: {}\n${policy}routes:\n  Kind/Bug:\n    preflight:\n${items(4)}\n`;
    const r = route(resolveRoute(t('preflight: {max_items: 1}\n'), ['Kind/Bug']));
    assert.deepEqual(
      r.preflight.map((p) => p.id),
      ['p0'],
    );
    assert.deepEqual(
      r.preflightDropped.map((p) => p.id),
      ['p1', 'p2', 'p3'],
    );
    const all = route(resolveRoute(t(''), ['Kind/Bug']));
    assert.equal(all.preflight.length, 4);
    assert.deepEqual(all.preflightDropped, []);
  });

  it('the cap as a property: its size, its order, and document order of what it returns', () => {
    const cycle = fc.option(
      fc.integer({ min: 0, max: 30 }).map((n) => `C${n}`),
      { nil: undefined },
    );
    fc.assert(
      fc.property(
        fc.array(cycle, { maxLength: 30 }),
        fc.option(fc.integer({ min: 1, max: 35 }), { nil: undefined }),
        (cycles, max) => {
          const items = cycles.map((c, index) => ({ cycle: c, index }));
          const { kept, dropped } = applyCap(items, max);
          const n = (c: string) => Number(c.slice(1));
          // size: nothing dropped without a max; otherwise exactly what is over it
          assert.equal(dropped.length, max === undefined ? 0 : Math.max(0, items.length - max));
          assert.equal(kept.length + dropped.length, items.length);
          assert.equal(new Set([...kept, ...dropped]).size, items.length);
          // both in document order
          for (const l of [kept, dropped]) for (let i = 1; i < l.length; i++) assert.ok(l[i - 1].index < l[i].index);
          for (const d of dropped)
            for (const k of kept) {
              if (d.cycle !== undefined && k.cycle !== undefined)
                assert.ok(n(d.cycle) <= n(k.cycle), 'oldest cycle first');
              // an item without a cycle is dropped only after every item with one
              if (d.cycle === undefined) assert.equal(k.cycle, undefined, 'items without a cycle last');
              if (d.cycle === undefined && k.cycle === undefined) assert.ok(d.index > k.index, 'the later first');
            }
          // the drop order itself: cycles ascending, then cycle-less items from the end
          const order = itemsToDrop(items, max);
          for (let i = 1; i < order.length; i++) {
            const [a, b] = [order[i - 1], order[i]];
            if (a.cycle !== undefined && b.cycle !== undefined) assert.ok(n(a.cycle) <= n(b.cycle));
            else if (a.cycle === undefined) assert.ok(b.cycle === undefined && b.index < a.index);
          }
        },
      ),
    );
  });

  it('a Kind/Epic or Kind/Feature ticket gets the DAG blocks when the table has dag', () => {
    const r = route(resolveRoute(complete, ['Kind/Epic']));
    assert.equal(r.matched, 'Kind/Epic');
    assert.deepEqual(r.entry, { skill: 'analyze-dag', mode: null });
    const dag = r.dag;
    assert.ok(dag);
    assert.deepEqual(dag.route.entry, { skill: 'analyze-dag', mode: null });
    assert.deepEqual(dag.route.keepGates, ['review-dag']);
    assert.deepEqual(
      dag.route.preflight.map((p) => p.id),
      ['map-requirements'],
    );
    assert.deepEqual(dag.taskRoute.entry, { skill: 'implement', mode: null });
    assert.deepEqual(dag.taskRoute.skip, ['review-dag']);
    assert.equal(dag.taskRoute.inherit, 'parent_dag');
    assert.deepEqual(dag.singleGate, {
      id: 'review-dag',
      dimensions: ['TOPO', 'REQMAP', 'RELEASE'],
      replaces: ['review-design-space', 'review-iteration-plan'],
      depthFrom: 'size_derivation',
      neverTrim: true,
    });
    assert.deepEqual(dag.reviewDepth.D3, { reviewers: 2, rounds: 2, dimSplit: 'TOPO+REQMAP / RELEASE' });
    assert.deepEqual(Object.keys(dag.reviewDepth), ['D1', 'D2', 'D3', 'D4']);
    // Kind/Feature has no route of its own: default, with the DAG blocks
    const f = route(resolveRoute(complete, ['Kind/Feature']));
    assert.equal(f.matched, 'default');
    assert.ok(f.dag);
    assert.ok(effectiveRouteLines(f).includes('Task route (inherit: parent_dag):'));
    // other kinds, or a table without dag: none
    assert.equal(route(resolveRoute(complete, ['Kind/Bug'])).dag, null);
    assert.equal(route(resolveRoute('version: 1\ndefault: {}\nroutes: {}\n', ['Kind/Epic'])).dag, null);
  });

  it('a table that fails validation resolves nothing: its errors are the answer', () => {
    const bad = 'version: 2\ndefault: {}\nroutes:\n  Kind/Bug: {entry: {skill: roadmap}}\n';
    const r = resolveRoute(bad, ['Kind/Bug']);
    assert.equal(r.kind, 'invalid');
    const ds = (r as { diagnostics: { severity: string; code: string }[] }).diagnostics;
    assert.deepEqual(
      ds.filter((d) => d.severity === 'error').map((d) => d.code),
      validateRouting(bad)
        .filter((d) => d.severity === 'error')
        .map((d) => d.code),
    );
    assert.ok(ds.length >= 2);
    assert.equal(resolveRoute('routes: [\n', ['Kind/Bug']).kind, 'invalid');
    // warnings alone do not stop resolution
    const warned = 'version: 1\ndefault: {skip: [verify], keep_gates: [verify]}\nroutes: {}\n';
    assert.equal(resolveRoute(warned, []).kind, 'route');
  });
});
