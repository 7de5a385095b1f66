// Loaded instead of the test files by bench/activation.mjs: measures, inside the real extension
// host, what activation costs (module load + activate()) and what starting the language server
// costs when the first routing file opens. Writes bench-activation.json for the bench to print.
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SessionOpsApi } from '../../../src/extension/extension';

describe('activation benchmark', () => {
  it('measures activation and language-server start', async () => {
    const ext = vscode.extensions.getExtension<SessionOpsApi>('session-ops.session-ops');
    assert.ok(ext, 'extension not found');
    assert.equal(ext.isActive, false, 'the extension was already active: the benchmark would measure nothing');
    const t0 = performance.now();
    const api = await ext.activate();
    const activateCall = performance.now() - t0;
    const t1 = performance.now();
    await api.languageClient.start();
    const serverStart = performance.now() - t1;
    const out = process.env.SESSION_OPS_RESULTS_DIR;
    assert.ok(out, 'SESSION_OPS_RESULTS_DIR unset');
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(
      path.join(out, 'bench-activation.json'),
      JSON.stringify({
        activateCallMs: activateCall,
        activateBodyMs: api.activationMs,
        languageServerStartMs: serverStart,
      }),
    );
  });
});
