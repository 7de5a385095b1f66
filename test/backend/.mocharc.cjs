/* eslint-disable @typescript-eslint/no-require-imports -- CommonJS: mocha loads its configuration with require() */
// The backend layer's mocha configuration: two test files at a time (parallel, 2 jobs), the files
// that take longest first. Mocha hands the files to its workers in the order given; in the
// alphabetical order the longest file (status-opencode, about 100 s of tests in a row) started among
// the last, and the layer ended on it with the other worker idle. The rest follow alphabetically, so
// a new file needs no entry here. Test seconds per file, from a run of the whole suite: status-opencode
// 103, opencode-waiting 61, actions-opencode 57, faults 42, watch 31, cost-ledger-opencode 30,
// alertmanager 28; every other file under 25.
const fs = require('node:fs');
const path = require('node:path');

const LONGEST_FIRST = [
  'status-opencode',
  'opencode-waiting',
  'actions-opencode',
  'faults',
  'watch',
  'cost-ledger-opencode',
  'alertmanager',
].map((name) => `test/backend/${name}.test.ts`);

const all = fs
  .readdirSync(path.join(__dirname), { recursive: true })
  .map((f) => path.posix.join('test/backend', String(f).split(path.sep).join('/')))
  .filter((f) => f.endsWith('.test.ts'))
  .sort();
for (const f of LONGEST_FIRST)
  if (!all.includes(f)) throw new Error(`test/backend/.mocharc.cjs names ${f}, which does not exist`);

module.exports = {
  'node-option': ['import=tsx'],
  extension: ['ts'],
  spec: [...LONGEST_FIRST, ...all.filter((f) => !LONGEST_FIRST.includes(f))],
  timeout: 120000,
  reporter: 'spec',
  require: ['test/support/mocha-habits.ts'],
  'forbid-only': true,
  'fail-zero': true,
  parallel: true,
  jobs: 2,
};
