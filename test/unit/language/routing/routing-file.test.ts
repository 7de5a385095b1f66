// sessionOps.routingFile: where the table is (relative under each workspace folder, absolute as
// is, empty as the default), and the route keys Dispatch Ticket... offers.
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { routeChoices, routingFileCandidates } from '../../../../src/language/routing/routing-file';

describe('sessionOps.routingFile', () => {
  it('a relative path is looked for under each workspace folder in order; empty is the default routing.yaml', () => {
    assert.deepEqual(routingFileCandidates('config/routes.yaml', ['/w/a', '/w/b']), [
      path.join('/w/a', 'config/routes.yaml'),
      path.join('/w/b', 'config/routes.yaml'),
    ]);
    assert.deepEqual(routingFileCandidates('  ', ['/w/a']), [path.join('/w/a', 'routing.yaml')]);
    assert.deepEqual(routingFileCandidates('routing.yaml', []), []);
  });

  it('an absolute path is the table whatever the folders', () => {
    assert.deepEqual(routingFileCandidates('/etc/team/../team/routing.yaml', ['/w/a']), ['/etc/team/routing.yaml']);
  });

  it('the route keys offered: the Kind/* routes in order, then default when the table has one', () => {
    assert.deepEqual(routeChoices({ default: {}, routes: { 'Kind/Bug': {}, 'Kind/Epic': {} } }), [
      'Kind/Bug',
      'Kind/Epic',
      'default',
    ]);
    assert.deepEqual(routeChoices({ routes: { 'Kind/Bug': {} } }), ['Kind/Bug']);
    assert.deepEqual(routeChoices(null), []);
  });
});
