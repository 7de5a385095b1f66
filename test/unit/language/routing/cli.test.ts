// `session-ops validate`, run in process with captured output.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runValidate, type JsonDiagnostic } from '../../../../src/cli/validate';
import { registerBuiltinKinds } from '../../../../server/kinds/builtin';
import { KindRegistry, unavailableKind } from '../../../../server/kinds/registry';
import { routingKind } from '../../../../server/kinds/routing';

const fixtures = path.resolve(__dirname, '../../../fixtures');

async function run(argv: string[], registry?: KindRegistry): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runValidate(argv, { stdout: (s) => (out += s), stderr: (s) => (err += s), registry });
  return { code, out, err };
}

describe('session-ops validate', () => {
  let tmp: string;
  before(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'so-validate-'));
    mkdirSync(path.join(tmp, 'a', 'node_modules'), { recursive: true });
    mkdirSync(path.join(tmp, 'a', '.hidden'), { recursive: true });
    mkdirSync(path.join(tmp, 'a', 'b'), { recursive: true });
    const bad = 'version: 1\ndefault:\n  effort: hgih\nroutes: {}\n';
    writeFileSync(path.join(tmp, 'a', 'node_modules', 'routing.yaml'), bad);
    writeFileSync(path.join(tmp, 'a', '.hidden', 'routing.yaml'), bad);
    writeFileSync(path.join(tmp, 'a', 'b', 'team.routing.yaml'), bad);
    writeFileSync(path.join(tmp, 'a', 'b', 'other.yaml'), 'not: a routing table\n');
    writeFileSync(
      path.join(tmp, 'a', 'b', 'pointed.yaml'),
      '$schema: ../schemas/routing.schema.json\nversion: 2\ndefault: {}\nroutes: {}\n',
    );
    writeFileSync(path.join(tmp, 'warn.routing.yaml'), 'version: 1\ndefault:\n  effort: low\nroutes: {}\n');
    writeFileSync(path.join(tmp, 'notes.txt'), 'hello\n');
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('exit 0 and no output lines for valid files', async () => {
    const r = await run([path.join(fixtures, 'routing', 'valid')]);
    assert.equal(r.code, 0, r.err);
    assert.equal(r.out, '');
    assert.match(r.err, /6 files checked: 0 errors, 0 warnings/);
  });

  it('a duplicate route key is an error: exit 1', async () => {
    const file = path.join(tmp, 'dup.routing.yaml');
    writeFileSync(file, 'version: 1\ndefault: {}\nroutes:\n  Kind/Bug: {}\n  Kind/Bug:\n    effort: max\n');
    try {
      const r = await run([file]);
      assert.equal(r.code, 1, r.out + r.err);
      assert.match(r.out, /dup\.routing\.yaml:5:3: error: Duplicate route key "Kind\/Bug" \(first on line 4\)/);
    } finally {
      rmSync(file);
    }
  });

  it('exit 1 with file:line:column: severity: message [code] for errors', async () => {
    const r = await run([path.join(tmp, 'a')]);
    assert.equal(r.code, 1);
    const lines = r.out.trim().split('\n');
    assert.deepEqual(lines, [
      `${path.join(tmp, 'a')}/b/pointed.yaml:2:10: error: "version" must be 1 (found 2). [schema.const]`,
      `${path.join(tmp, 'a')}/b/team.routing.yaml:3:11: error: Unknown effort "hgih": expected one of low, high or max. Did you mean "high"? [schema.enum]`,
    ]);
  });

  it('--json: exactly one document with 1-based positions', async () => {
    const r = await run(['--json', path.join(tmp, 'a', 'b', 'team.routing.yaml')]);
    assert.equal(r.code, 1);
    const doc = JSON.parse(r.out) as { diagnostics: JsonDiagnostic[] };
    assert.deepEqual(doc.diagnostics, [
      {
        file: path.join(tmp, 'a', 'b', 'team.routing.yaml'),
        line: 3,
        column: 11,
        endLine: 3,
        endColumn: 15,
        severity: 'error',
        code: 'schema.enum',
        message: 'Unknown effort "hgih": expected one of low, high or max. Did you mean "high"?',
        source: 'session-ops.routing',
      },
    ]);
  });

  it('warnings alone exit 0', async () => {
    const r = await run(['--json', path.join(tmp, 'warn.routing.yaml')]);
    assert.equal(r.code, 0);
    assert.equal((JSON.parse(r.out) as { diagnostics: JsonDiagnostic[] }).diagnostics[0].severity, 'warning');
  });

  it('a YAML file named explicitly is a routing table; --kind routing forces it', async () => {
    assert.equal((await run([path.join(tmp, 'a', 'b', 'other.yaml')])).code, 1);
    assert.equal((await run(['--kind', 'routing', path.join(tmp, 'notes.txt')])).code, 1);
    const r = await run([path.join(tmp, 'notes.txt')]);
    assert.equal(r.code, 2);
    assert.match(r.err, /cannot tell what kind of file/);
  });

  it('the whole invalid corpus: one JSON document, exit 1, every file reported', async () => {
    const r = await run(['--json', path.join(fixtures, 'routing', 'invalid')]);
    assert.equal(r.code, 1);
    const doc = JSON.parse(r.out) as { diagnostics: JsonDiagnostic[] };
    const files = new Set(doc.diagnostics.map((d) => path.basename(d.file)));
    assert.equal(
      files.size,
      readdirSync(path.join(fixtures, 'routing', 'invalid')).filter((f) => f.endsWith('.yaml')).length,
    );
    assert.ok(doc.diagnostics.every((d) => d.file.startsWith(path.join(fixtures, 'routing', 'invalid') + '/')));
  });

  it('--kind page validates source-analysis pages through the same registry', async () => {
    const r = await run(['--json', '--kind', 'page', path.join(fixtures, 'pages', 'valid')]);
    assert.equal(r.code, 0, r.out + r.err);
    // pages are recognised by their place: <folder>/source-analysis/<page>[.md]
    const pageDir = path.join(tmp, 'port', 'source-analysis');
    mkdirSync(pageDir, { recursive: true });
    writeFileSync(
      path.join(pageDir, '01-source-overview.md'),
      readFileSync(path.join(fixtures, 'pages', 'invalid', '01-source-overview', 'missing-field.md')),
    );
    const bad = await run(['--json', '--kind', 'page', path.join(tmp, 'port')]);
    assert.equal(bad.code, 1, bad.out + bad.err);
    assert.ok((JSON.parse(bad.out) as { diagnostics: JsonDiagnostic[] }).diagnostics.length > 0);
    // without --kind the walk finds the page too
    assert.equal((await run([path.join(tmp, 'port')])).code, 1);
    assert.ok(
      (JSON.parse(bad.out) as { diagnostics: JsonDiagnostic[] }).diagnostics.every(
        (d) => d.source === 'session-ops.pages',
      ),
    );
  });

  it('a kind missing from the build exits 2 and says it is not available', async () => {
    const registry = new KindRegistry()
      .register(routingKind)
      .register(
        unavailableKind(
          'page',
          'source-analysis page',
          'session-ops.pages',
          'src/language/pages is not part of this build',
        ),
      );
    const r = await run(['--kind', 'page', tmp], registry);
    assert.equal(r.code, 2);
    assert.match(r.err, /--kind page is not available in this build: src\/language\/pages is not part of this build/);
    assert.equal(r.out, '');
  });

  it('usage and I/O errors exit 2', async () => {
    assert.equal((await run([])).code, 2);
    assert.equal((await run(['--frobnicate', tmp])).code, 2);
    assert.equal((await run(['--kind'])).code, 2);
    assert.equal((await run(['--kind', 'nope', tmp])).code, 2);
    const missing = await run(['--json', path.join(tmp, 'missing.yaml')]);
    assert.equal(missing.code, 2);
    assert.deepEqual(JSON.parse(missing.out), { diagnostics: [] });
    assert.match(missing.err, /no such file or folder/);
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.out, /Usage: session-ops validate/);
  });

  it('the registry knows watch-config, routing and page', () => {
    const reg = registerBuiltinKinds();
    assert.deepEqual(
      reg.all().map((k) => k.id),
      ['watch-config', 'routing', 'page'],
    );
    const s = { extraGlobs: [], roots: [] };
    assert.equal(reg.kindFor('/w/routing.yaml', 'x: 1', s)?.id, 'routing');
    assert.equal(reg.kindFor('/w/source-analysis/02-public-api.md', '# x', s)?.id, 'page');
    assert.equal(reg.kindFor('/w/source-analysis/02-public-api', '# x', s)?.id, 'page');
    assert.equal(reg.kindFor('/w/README.md', '# x', s), undefined);
  });
});
