// A YAML mapping with a duplicate key is an error everywhere: in the routes mapping (whole and
// chunked analysis alike), at the top level and inside a route.
import assert from 'node:assert/strict';
import { RoutingAnalyzer, validateRouting } from '../../../../src/language/routing';

const routes = (n: number, dup: string) => {
  const lines = ['version: 1', 'default: {}', 'routes:'];
  for (let i = 0; i < n; i++) lines.push(`  Kind/R${i}:`, '    effort: high');
  return `${lines.join('\n')}\n${dup}`;
};

describe('routing: duplicate keys are errors everywhere', () => {
  it('a route key defined twice is an error naming the first line (whole analysis)', () => {
    const text = 'version: 1\ndefault: {}\nroutes:\n  Kind/Bug:\n    effort: high\n  Kind/Bug:\n    effort: max\n';
    const ds = validateRouting(text).filter((d) => d.code === 'routing.duplicate-route');
    assert.equal(ds.length, 1);
    assert.equal(ds[0].severity, 'error');
    assert.equal(ds[0].range.start.line, 5);
    assert.match(ds[0].message, /first on line 4/);
  });

  it('a route key defined twice is an error in chunked analysis too', () => {
    const a = new RoutingAnalyzer().analyze(routes(40, '  Kind/R7:\n    effort: max\n'));
    assert.equal(a.stats.mode, 'chunked');
    const ds = a.diagnostics.filter((d) => d.code === 'routing.duplicate-route');
    assert.deepEqual(
      ds.map((d) => d.severity),
      ['error'],
    );
  });

  it('a flow mapping of routes with a duplicate key is an error', () => {
    const ds = validateRouting('version: 1\ndefault: {}\nroutes: {Kind/Bug: {}, Kind/Bug: {effort: max}}\n');
    assert.deepEqual(
      ds.filter((d) => /duplicate/.test(d.code)).map((d) => d.severity),
      ['error'],
    );
  });

  it('other duplicate keys stay errors (top level, inside a route)', () => {
    const top = validateRouting('version: 1\nversion: 1\ndefault: {}\nroutes: {}\n');
    assert.deepEqual(
      top.map((d) => [d.code, d.severity]),
      [['yaml.duplicate-key', 'error']],
    );
    const inner = validateRouting('version: 1\ndefault: {}\nroutes:\n  Kind/Bug:\n    effort: high\n    effort: max\n');
    assert.deepEqual(
      inner.map((d) => [d.code, d.severity]),
      [['yaml.duplicate-key', 'error']],
    );
  });
});
