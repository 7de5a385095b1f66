// The summary above a dispatch-by-route task in the editor (Dispatch Ticket...): the effective
// route (cap and variant said) in a comment that Send drops whole, whatever the table holds.
import assert from 'node:assert/strict';
import { routeSummaryComment } from '../../../../src/core/prompt/route-summary';
import { composeRouteTask } from '../../../../src/core/prompt/route-task';
import { resolveRoute, type EffectiveRoute } from '../../../../src/language/routing';

const TABLE = [
  'version: 1',
  'default:',
  '  entry: {skill: null, mode: null}',
  'preflight:',
  '  max_items: 1',
  'routes:',
  '  Kind/Bug:',
  '    entry: {skill: implement, mode: bugfix}',
  '    skip: [review-dag]',
  '    keep_gates: [review-code, verify]',
  '    preflight:',
  '      - {id: newer, item: Reproduce first., evidence: retro C10 --> note, added_cycle: C10}',
  '      - {id: older, item: Old check., evidence: retro C9, added_cycle: C9}',
  '    notes: Keep the diff small.',
  '    effort: high',
  '',
].join('\n');

function route(labels: string[], variants?: string[]): EffectiveRoute {
  const r = resolveRoute(TABLE, labels, variants ? { modelVariants: variants } : {});
  assert.equal(r.kind, 'route', JSON.stringify(r));
  return (r as { route: EffectiveRoute }).route;
}

/** What prompt/send.ts sends of a document: everything after its leading comment. */
const sentPart = (doc: string) => doc.replace(/^<!--[\s\S]*?-->\n?/, '');

describe('dispatch by route: the summary above the task in the editor', () => {
  it('holds the effective route: the items the cap keeps and drops, the effort and its variant', () => {
    const doc = routeSummaryComment(route(['Kind/Bug'], ['low', 'high']), 'BUG-12', 'routing.yaml');
    assert.match(doc, /^<!-- Dispatch of ticket BUG-12 by routing\.yaml\nRoute: Kind\/Bug\n/);
    assert.match(doc, /Preflight \(1 of 2 kept by preflight\.max_items\):/);
    assert.match(doc, /Dropped by preflight\.max_items \(oldest added_cycle first\):\n {2}- older: Old check\./);
    assert.match(doc, /Effort: high; variant: high/);
    assert.match(doc, /\n-->$/);
  });

  it('is dropped whole on send, even when the table or the ticket holds "-->": only the task goes', () => {
    const r = route(['Kind/Bug']);
    const task = composeRouteTask({ route: r, ticket: 'BUG-12' });
    for (const ticket of ['BUG-12', 'X-->Y']) {
      const doc = `${routeSummaryComment(r, ticket, 'a-->b.yaml')}\n${task}\n`;
      assert.equal(sentPart(doc), `${task}\n`);
    }
    assert.match(task, /Reproduce first\./);
  });
});
