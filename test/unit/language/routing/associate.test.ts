// Which files are routing tables.
import assert from 'node:assert/strict';
import {
  claimsRouting,
  globToRegExp,
  isRoutingFileName,
  matchesGlob,
  pointsAtRoutingSchema,
} from '../../../../src/language/routing';

describe('routing file association', () => {
  it('default names', () => {
    for (const p of ['/w/routing.yaml', '/w/a/routing.yml', 'C:\\w\\team.routing.yaml', 'routing.yaml'])
      assert.ok(isRoutingFileName(p), p);
    for (const p of [
      '/w/routing.json',
      '/w/my-routing.yaml',
      '/w/.routing.yaml',
      '/w/routing.yaml.bak',
      '/w/team.routing.yml',
    ])
      assert.ok(!isRoutingFileName(p), p);
  });

  it('extra globs: by name without a slash, by path (relative to a root or any trailing part) with one', () => {
    assert.ok(isRoutingFileName('/w/config/routes.yaml', ['routes.yaml']));
    assert.ok(isRoutingFileName('/w/config/kinds-1.yml', ['**/kinds-*.{yml,yaml}']));
    assert.ok(isRoutingFileName('/w/config/routes.yaml', ['config/*.yaml'], ['/w']));
    assert.ok(isRoutingFileName('/other/deep/config/routes.yaml', ['config/*.yaml']));
    assert.ok(!isRoutingFileName('/w/config/sub/routes.yaml', ['config/*.yaml'], ['/w']));
    assert.ok(matchesGlob('/w/a/b/c.yaml', '/w/**/c.yaml'));
    assert.ok(globToRegExp('a/**/b').test('a/b'));
    assert.ok(globToRegExp('a/**/b').test('a/x/y/b'));
    assert.ok(globToRegExp('[ab].yaml').test('a.yaml'));
  });

  it('a $schema key or a yaml-language-server modeline pointing at routing.schema.json', () => {
    assert.ok(pointsAtRoutingSchema('$schema: ./schemas/routing.schema.json\nversion: 1\n'));
    assert.ok(pointsAtRoutingSchema('"$schema": "https://example.invalid/x/routing.schema.json"\n'));
    assert.ok(pointsAtRoutingSchema('# yaml-language-server: $schema=../routing.schema.json\nversion: 1\n'));
    assert.ok(pointsAtRoutingSchema('$schema: urn:session-ops:routing.schema.json\n'));
    assert.ok(!pointsAtRoutingSchema('$schema: ./other.schema.json\n'));
    assert.ok(!pointsAtRoutingSchema('notes: see routing.schema.json\n'));
    assert.ok(claimsRouting('/w/kinds.yaml', '$schema: routing.schema.json\n'));
    assert.ok(!claimsRouting('/w/kinds.yaml', 'version: 1\n'));
    assert.ok(!claimsRouting('/w/kinds.yaml', undefined));
  });
});
