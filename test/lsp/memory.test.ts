// The language server's memory budget: 400 MB peak RSS (VmHWM of the server process) for one
// document of up to 10 MB, opened, changed and outlined, the server alive afterwards. A 5 MB
// scalar where a name is expected is analysed without a copy of itself (messages quote a cut
// value, no "did you mean" alignment over its length); the largest table analysed by default
// (just under sessionOps.maxDocumentMB, 8 MB) stays within budget; a 9 MB routing table and a
// 9 MB fidelity-baseline page are past the limit: one diagnostic (size, limit, setting) and a
// top-level outline only.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hugeFidelityBaseline, MB, peakRssMb, routingTableOfSize } from './support/hostile-documents';
import { fileUri, LspClient, type LspDiagnostic } from './support/lspClient';

const BUDGET_MB = 400;
/** A routing table whose one route's effort is a 5 MB scalar. */
const hugeScalarTable = () =>
  `version: 1\ndefault: {}\nroutes:\n  Kind/Big:\n    entry:\n      skill: implement\n    effort: ${'x'.repeat(5 * MB)}\n`;

interface Run {
  peak: number;
  diags: LspDiagnostic[];
  outline: { name: string }[];
}

describe('language server memory on hostile documents', function () {
  this.timeout(240000);
  let ws: string;

  before(() => {
    ws = mkdtempSync(path.join(os.tmpdir(), 'so-lsp-memory-'));
  });

  after(() => rmSync(ws, { recursive: true, force: true }));

  /** Opens `text` in a fresh server, changes its second line, outlines it; the peak RSS of it all. */
  async function run(file: string, text: string, languageId: string): Promise<Run> {
    mkdirSync(path.dirname(file), { recursive: true });
    const client = LspClient.stdio();
    try {
      await client.initialize({ rootPath: ws });
      const uri = fileUri(file);
      const m1 = client.open(uri, text, languageId);
      const opened = await client.diagnosticsFor(uri, () => true, m1, 180000);
      const at = { line: 1, character: 0 };
      const m2 = client.change(uri, 2, [{ range: { start: at, end: at }, text: '\n' }]);
      const changed = await client.diagnosticsFor(uri, (p) => p.version === 2, m2, 180000);
      const outline = await client.request<{ name: string }[]>('textDocument/documentSymbol', {
        textDocument: { uri },
      });
      const peak = peakRssMb(client.proc.pid!);
      if (process.env.LSP_MEMORY_REPORT)
        console.log(
          `      peak RSS ${peak.toFixed(0)} MB for ${(text.length / MB).toFixed(1)} MB (${path.basename(file)})`,
        );
      assert.equal(client.proc.exitCode, null, 'the server is alive');
      assert.deepEqual(
        opened.diagnostics.map((d) => d.code),
        changed.diagnostics.map((d) => d.code),
      );
      return { peak, diags: changed.diagnostics, outline: outline ?? [] };
    } finally {
      await client.stop();
    }
  }

  it(`a 5 MB scalar as a route's effort: under ${BUDGET_MB} MB, its one error quoting a cut value`, async () => {
    const r = await run(path.join(ws, 'scalar', 'routing.yaml'), hugeScalarTable(), 'yaml');
    assert.ok(r.peak < BUDGET_MB, `peak RSS ${r.peak.toFixed(0)} MB`);
    assert.deepEqual(
      r.diags.map((d) => d.code),
      ['schema.enum'],
    );
    assert.match(r.diags[0].message, /^Unknown effort "x{80}\.\.\. \(5,242,880 characters\)": expected one of/);
    assert.ok(r.diags[0].message.length < 300);
  });

  it(`the largest table analysed by default (just under 8 MB): under ${BUDGET_MB} MB, fully analysed`, async () => {
    const text = routingTableOfSize(7.9);
    assert.ok(text.length < 8 * MB);
    const r = await run(path.join(ws, 'large', 'routing.yaml'), text, 'yaml');
    assert.ok(r.peak < BUDGET_MB, `peak RSS ${r.peak.toFixed(0)} MB`);
    assert.deepEqual(r.diags, []);
    const routes = r.outline.find((s) => s.name === 'routes') as { children?: unknown[] } | undefined;
    assert.ok((routes?.children?.length ?? 0) > 10000, 'the full outline');
  });

  it(`a 9 MB routing table: one diagnostic (size, limit, setting), a top-level outline, under ${BUDGET_MB} MB`, async () => {
    const r = await run(path.join(ws, 'big', 'routing.yaml'), routingTableOfSize(9), 'yaml');
    assert.ok(r.peak < BUDGET_MB, `peak RSS ${r.peak.toFixed(0)} MB`);
    assert.deepEqual(
      r.diags.map((d) => [d.code, d.range.start.line]),
      [['document.too-large', 0]],
    );
    assert.match(r.diags[0].message, /^This document is 9\.0 MB, over the 8 MB limit: .*sessionOps\.maxDocumentMB/);
    assert.deepEqual(
      r.outline.map((s) => s.name),
      ['version', 'default', 'preflight', 'routes'],
    );
  });

  it(`a 9 MB fidelity-baseline page: one diagnostic, its top headings, under ${BUDGET_MB} MB`, async () => {
    const file = path.join(ws, 'port', 'source-analysis', '10-fidelity-baseline.md');
    const r = await run(file, hugeFidelityBaseline(), 'markdown');
    assert.ok(r.peak < BUDGET_MB, `peak RSS ${r.peak.toFixed(0)} MB`);
    assert.deepEqual(
      r.diags.map((d) => d.code),
      ['document.too-large'],
    );
    assert.match(r.diags[0].message, /sessionOps\.maxDocumentMB/);
    assert.deepEqual(
      r.outline.map((s) => s.name),
      ['Fidelity baseline', 'Master inventory', 'Chunks'],
    );
  });

  it('the limit follows sessionOps.maxDocumentMB: raised, the 9 MB table is analysed', async () => {
    const client = LspClient.stdio();
    try {
      await client.initialize({ rootPath: ws, initializationOptions: { maxDocumentMB: 10 } });
      const uri = fileUri(path.join(ws, 'raised', 'routing.yaml'));
      mkdirSync(path.join(ws, 'raised'));
      const m = client.open(uri, routingTableOfSize(9));
      const d = await client.diagnosticsFor(uri, () => true, m, 180000);
      assert.deepEqual(d.diagnostics, []);
    } finally {
      await client.stop();
    }
  });

  it('a change of sessionOps.maxDocumentMB re-validates the open documents', async () => {
    const client = LspClient.stdio();
    try {
      await client.initialize({ rootPath: ws });
      const uri = fileUri(path.join(ws, 'changed', 'routing.yaml'));
      mkdirSync(path.join(ws, 'changed'));
      const m1 = client.open(uri, routingTableOfSize(9));
      const d1 = await client.diagnosticsFor(uri, () => true, m1, 180000);
      assert.deepEqual(
        d1.diagnostics.map((d) => d.code),
        ['document.too-large'],
      );
      const m2 = client.published.length;
      client.notify('workspace/didChangeConfiguration', { settings: { sessionOps: { maxDocumentMB: 10 } } });
      await client.diagnosticsFor(uri, (p) => p.diagnostics.length === 0, m2, 180000);
    } finally {
      await client.stop();
    }
  });
});
