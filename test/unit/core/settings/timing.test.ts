// One set of timing constants (src/core/settings/timing.ts): the editor and the daemon keep no
// millisecond constant of their own; every value is a positive whole number of milliseconds.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { TIMING } from '../../../../src/core/settings/timing';

const ROOT = path.resolve(__dirname, '../../../..');

function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
}

describe('core/settings/timing', () => {
  it('every timing constant is a positive whole number of milliseconds', () => {
    for (const [name, ms] of Object.entries(TIMING)) assert.ok(Number.isInteger(ms) && ms > 0, `${name}: ${ms}`);
  });

  it('the editor, the daemon and its CLI host declare no millisecond constant of their own', () => {
    const own: string[] = [];
    for (const file of [...sources('src/extension'), 'src/core/watch/daemon.ts', 'src/cli/watch.ts']) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const m of text.matchAll(/^(?:export )?const ([A-Z_]+_MS) = [\d_]+;/gm)) own.push(`${file}: ${m[1]}`);
    }
    assert.deepEqual(own, []);
  });
});
