// Root hook: the LSP tests start dist/server.js; rebuild it first when the sources are newer.
import { ensureBuilt } from './support/build';

before(function () {
  this.timeout(120000);
  ensureBuilt();
});
