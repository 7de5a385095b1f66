// `session-ops validate` over folders with the shared walker: files in path order (depth-first by
// name), dot-folders and node_modules skipped, a symbolic-link loop ends.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runValidate, type JsonDiagnostic } from '../../../src/cli/validate';

describe('validate: folder walk', () => {
  let tmp: string;
  const write = (rel: string, text: string) => {
    const full = path.join(tmp, rel);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, text);
  };

  beforeEach(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'so-validate-walk-'));
  });
  afterEach(() => {
    rmSync(tmp, { recursive: true, force: true });
  });

  it('reports files in path order, skips node_modules and dot-folders, and survives a link loop', async () => {
    const bad = 'version: 2\n';
    write('b/routing.yaml', bad);
    write('a/z/routing.yaml', bad);
    write('a/routing.yaml', bad);
    write('node_modules/p/routing.yaml', bad);
    write('.hidden/routing.yaml', bad);
    symlinkSync(tmp, path.join(tmp, 'a', 'loop'));
    let out = '';
    let err = '';
    const code = await runValidate(['--json', tmp], { stdout: (s) => (out += s), stderr: (s) => (err += s) });
    const diags = (JSON.parse(out) as { diagnostics: JsonDiagnostic[] }).diagnostics;
    const files = [...new Set(diags.map((d) => path.relative(tmp, d.file)))];
    assert.deepEqual(
      files,
      ['a/routing.yaml', 'a/z/routing.yaml', 'b/routing.yaml'].map((f) => f.split('/').join(path.sep)),
    );
    assert.equal(code, 1);
    assert.equal(err, '');
  });
});
