// The custom LSP messages, typed in one module (src/shared/protocol.ts): method names as the
// server and the clients of other editors know them. (That the extension and src/shared import no
// server code is lint's: import-x/no-restricted-paths, eslint/layers.mjs.)
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import {
  EnvironmentNotification,
  PortAnalysisChangedNotification,
  PortAnalysisRequest,
  StatsRequest,
} from '../../../src/shared/protocol';

const ROOT = path.resolve(__dirname, '..', '..', '..');

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? tsFiles(full) : name.endsWith('.ts') ? [full] : [];
  });
}

describe('shared protocol', () => {
  it('names the messages once', () => {
    assert.equal(PortAnalysisRequest.method, 'sessionOps/portAnalysis');
    assert.equal(PortAnalysisChangedNotification.method, 'sessionOps/portAnalysisChanged');
    assert.equal(EnvironmentNotification.method, 'sessionOps/environment');
    assert.equal(StatsRequest.method, 'sessionOps/stats');
  });

  it('no other source file spells a sessionOps/ method name', () => {
    const offenders = [...tsFiles(path.join(ROOT, 'src')), ...tsFiles(path.join(ROOT, 'server'))]
      .filter((f) => !f.endsWith(path.join('shared', 'protocol.ts')))
      .filter((f) => /['"`]sessionOps\/\w+['"`]/.test(readFileSync(f, 'utf8')));
    assert.deepEqual(
      offenders.map((f) => path.relative(ROOT, f)),
      [],
    );
  });
});
