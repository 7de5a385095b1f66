// The checks the schema cannot express find the same problems in short lists (searched by a scan)
// and long ones (searched through a Map): a duplicate preflight id, a stage both skipped and kept,
// a duplicate key, each named with the first occurrence.
import assert from 'node:assert/strict';
import { validateRouting, type RoutingDiagnosticData } from '../../../../src/language/routing';

/** code, line, message and the first fix's first edit of every diagnostic of a one-route table. */
function findings(route: string[]): string[] {
  const text = ['version: 1', 'default: {}', 'routes:', '  Kind/Bug:', ...route.map((l) => `    ${l}`)].join('\n');
  return validateRouting(`${text}\n`).map((d) => {
    const e = (d.data as RoutingDiagnosticData | undefined)?.fixes?.[0]?.edits[0];
    const fix = e
      ? ` [${e.range.start.line}:${e.range.start.character}-${e.range.end.line}:${e.range.end.character}]`
      : '';
    return `${d.code} ${d.range.start.line}: ${d.message}${fix}`;
  });
}

const STAGES = ['review-dag', 'review-code', 'verify', 'audit-process', 'merge-pr'];

describe('routing checks: short and long lists alike', () => {
  for (const n of [3, 40]) {
    it(`a duplicate preflight id among ${n} items names the first item with that id`, () => {
      const items: string[] = ['preflight:'];
      for (let i = 0; i < n; i++) items.push(`  - id: p${i === n - 1 ? 1 : i}`, `    item: Item ${i}.`);
      const f = findings(items).filter((x) => x.startsWith('routing.duplicate-preflight-id'));
      assert.deepEqual(f, [
        `routing.duplicate-preflight-id ${4 + 1 + 2 * (n - 1)}: Duplicate preflight id "p1" in route "Kind/Bug" (also item 2); ids must be stable and unique. [${5 + 2 * (n - 1)}:0-${5 + 2 * n}:0]`,
      ]);
    });

    it(`a stage in skip (${n} items) and in keep_gates is reported once, from its first place in skip`, () => {
      const skip = Array.from({ length: n }, (_, i) => (i === n - 1 ? 'verify' : `x${i}`));
      const first = `    skip: [${skip.join(', ')}`.length - 'verify'.length;
      const f = findings([`skip: [${skip.join(', ')}, verify]`, `keep_gates: [verify, verify, ${STAGES[0]}]`]).filter(
        (x) => x.startsWith('routing.skip-and-keep'),
      );
      assert.deepEqual(f, [
        `routing.skip-and-keep 5: Stage "verify" is both in skip and in keep_gates of route "Kind/Bug"; list it in only one of them. [4:${first}-4:${first + 'verify, '.length}]`,
      ]);
    });

    it(`a duplicate key among ${n} keys of a preflight item is an error on the second`, () => {
      const item = ['preflight:', '  - id: a'];
      for (let i = 0; i < n; i++) item.push(`    k${i}: v`);
      item.push('    k1: w');
      const f = findings(item).filter((x) => x.startsWith('yaml.duplicate-key'));
      assert.deepEqual(f, [`yaml.duplicate-key ${5 + 1 + n}: Duplicate key "k1": keys of a mapping must be unique.`]);
    });
  }
});
