// The built language server (dist/server.js) spoken to over LSP: source-analysis pages. Single-page
// and cross-page diagnostics (siblings read from disk, open documents over disk, siblings
// re-validated on a change, folder-level diagnostics on the anchor page), file events, hover and
// go-to-definition across pages, document symbols, the sourceRoot setting, and the Port analysis
// messages (request sessionOps/portAnalysis, notification sessionOps/portAnalysisChanged).
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PortAnalysisChangedParams, PortAnalysisResult } from '../../src/shared/protocol';
import { fileUri, LspClient, ROOT, type InitializeResultLike, type LspDiagnostic } from './support/lspClient';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'pages', 'valid');
const show = (d: LspDiagnostic) => `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.code}`;
const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle));

interface DocSymbol {
  name: string;
  detail?: string;
  kind: number;
  range: { start: { line: number; character: number } };
  children?: DocSymbol[];
}

function flat(list: DocSymbol[]): DocSymbol[] {
  return list.flatMap((s) => [s, ...flat(s.children ?? [])]);
}

describe('language server: source-analysis pages', function () {
  this.timeout(60000);
  let ws: string;
  let client: LspClient;
  let init: InitializeResultLike;
  let n = 0;

  /** A fresh copy of a valid set under the workspace: its folder and a page path helper. */
  const port = (set: string) => {
    const dir = path.join(ws, 'ports', `${set}-${n++}`);
    cpSync(path.join(FIXTURES, set), dir, { recursive: true });
    const folder = path.join(dir, 'source-analysis');
    const file = (kind: string) => path.join(folder, set === 'wiki-lists' ? kind : `${kind}.md`);
    return {
      dir,
      folder,
      file,
      uri: (kind: string) => fileUri(file(kind)),
      text: (kind: string) => readFileSync(file(kind), 'utf8'),
    };
  };
  const changedSince = (mark: number, folder: string) =>
    client.waitUntil(
      () =>
        client.notifications
          .slice(mark)
          .find(
            (m) =>
              m.method === 'sessionOps/portAnalysisChanged' &&
              (m.params as PortAnalysisChangedParams).folders.includes(folder),
          ),
      15000,
      `portAnalysisChanged for ${folder}`,
    );

  before(async () => {
    ws = mkdtempSync(path.join(os.tmpdir(), 'so-lsp-pages-'));
    client = LspClient.stdio();
    init = await client.initialize({ rootPath: ws });
  });

  after(async () => {
    await client.stop();
    rmSync(ws, { recursive: true, force: true });
  });

  it('announces hover, definition and document symbols', () => {
    assert.equal(init.capabilities.hoverProvider, true);
    assert.equal(init.capabilities.definitionProvider, true);
    assert.ok(init.capabilities.documentSymbolProvider);
  });

  it('a valid page opened alone has no diagnostics: its siblings are read from disk', async () => {
    const p = port('tables-md');
    const uri = p.uri('02-public-api');
    const mark = client.open(uri, p.text('02-public-api'), 'markdown');
    assert.deepEqual((await client.diagnosticsFor(uri, () => true, mark)).diagnostics, []);
  });

  it('reports single-page errors and cross-page warnings on the right rows', async () => {
    const p = port('tables-md');
    const text = p
      .text('02-public-api')
      .replace('AUTH_003, LIST_001', 'AUTH_003, LIST_999')
      .replace('| `GET /lists` | none |', '| `GET /lists` |  |');
    const uri = p.uri('02-public-api');
    const mark = client.open(uri, text, 'markdown');
    const d = (await client.diagnosticsFor(uri, () => true, mark)).diagnostics;
    const post = lineOf(text, 'LIST_999');
    const get = lineOf(text, '`GET /lists`');
    assert.deepEqual(
      d.map(show),
      [`${get + 1}:17 page.empty-cell`, `${post + 1}:58 page.unknown-error-code`].sort(
        (a, b) => parseInt(a) - parseInt(b),
      ),
    );
    const cross = d.find((x) => x.code === 'page.unknown-error-code')!;
    assert.equal(cross.severity, 2);
    assert.equal(cross.source, 'session-ops.pages');
    assert.equal(text.split('\n')[post].slice(cross.range.start.character, cross.range.end.character), 'LIST_999');
    assert.match(cross.message, /LIST_999 is not defined in 05-error-handling/);
  });

  it('an open sibling overrides the disk, and its edits re-validate the other open pages', async () => {
    const p = port('tables-md');
    const api = p.uri('02-public-api');
    const errors = p.uri('05-error-handling');
    const m1 = client.open(
      api,
      p.text('02-public-api').replace('AUTH_003, LIST_001', 'AUTH_003, LIST_999'),
      'markdown',
    );
    await client.diagnosticsFor(api, (x) => x.diagnostics.some((d) => d.code === 'page.unknown-error-code'), m1);
    // 05 opens with LIST_999 added (unsaved): 02's warning goes away.
    const e05 = p.text('05-error-handling');
    const m2 = client.open(errors, `${e05.trimEnd()}\n| LIST_999 | 500 | Odd | never |\n`, 'markdown');
    assert.deepEqual((await client.diagnosticsFor(api, (x) => x.diagnostics.length === 0, m2)).diagnostics, []);
    // Removing AUTH_001 from the open 05 warns on 02's row of POST /login.
    const row = lineOf(e05, 'AUTH_001');
    const m3 = client.change(errors, 2, [
      { range: { start: { line: row, character: 0 }, end: { line: row + 1, character: 0 } }, text: '' },
    ]);
    const after = await client.diagnosticsFor(api, (x) => x.diagnostics.length > 0, m3);
    assert.deepEqual(
      after.diagnostics.map((d) => d.code),
      ['page.unknown-error-code'],
    );
    assert.equal(after.diagnostics[0].range.start.line, lineOf(p.text('02-public-api'), 'POST /login'));
    assert.match(after.diagnostics[0].message, /AUTH_001/);
    // Closing 05 drops its unsaved text: the disk (which has AUTH_001, not LIST_999) counts again.
    const m4 = client.close(errors);
    const reverted = await client.diagnosticsFor(api, (x) => x.diagnostics.some((d) => /LIST_999/.test(d.message)), m4);
    assert.deepEqual(
      reverted.diagnostics.map((d) => d.code),
      ['page.unknown-error-code'],
    );
  });

  it('a missing page goes on the first line of the open 10-fidelity-baseline, else of the first open page', async () => {
    const p = port('tables-md');
    unlinkSync(p.file('05-error-handling'));
    const api = p.uri('02-public-api');
    const m1 = client.open(api, p.text('02-public-api'), 'markdown');
    const alone = await client.diagnosticsFor(api, (x) => x.diagnostics.length > 0, m1);
    assert.deepEqual(alone.diagnostics.map(show), ['1:1 page.missing-page']);
    assert.equal(alone.diagnostics[0].severity, 2);
    assert.deepEqual(alone.diagnostics[0].range.end, { line: 0, character: '# Public API'.length });
    assert.match(alone.diagnostics[0].message, /no 05-error-handling page/);
    const base = p.uri('10-fidelity-baseline');
    const m2 = client.open(base, p.text('10-fidelity-baseline'), 'markdown');
    assert.deepEqual((await client.diagnosticsFor(base, () => true, m2)).diagnostics.map(show), [
      '1:1 page.missing-page',
    ]);
    assert.deepEqual(
      (await client.diagnosticsFor(api, () => true, m2)).diagnostics,
      [],
      'moved to 10, once per folder',
    );
  });

  it('file events from the client re-read the disk, re-validate the open pages and announce portAnalysisChanged', async () => {
    const p = port('tables-md');
    const e05 = p.text('05-error-handling');
    unlinkSync(p.file('05-error-handling'));
    const base = p.uri('10-fidelity-baseline');
    const m1 = client.open(base, p.text('10-fidelity-baseline'), 'markdown');
    await client.diagnosticsFor(base, (x) => x.diagnostics.length === 1, m1);
    writeFileSync(p.file('05-error-handling'), e05);
    const m2 = client.published.length;
    const n2 = client.notifications.length;
    client.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: p.uri('05-error-handling'), type: 1 }] });
    assert.deepEqual((await client.diagnosticsFor(base, () => true, m2)).diagnostics, []);
    await changedSince(n2, p.folder);
  });

  it('hovers a FID with its inventory row and an error code with its row of 05, across pages', async () => {
    const p = port('mixed');
    const logic = p.uri('04-business-logic');
    const text = p.text('04-business-logic');
    const m = client.open(logic, text, 'markdown');
    await client.diagnosticsFor(logic, () => true, m);
    const line = lineOf(text, 'covered by FID-003');
    const fid = await client.request<{
      contents: { kind: string; value: string };
      range: { start: { character: number } };
    }>('textDocument/hover', {
      textDocument: { uri: logic },
      position: { line, character: text.split('\n')[line].indexOf('FID-003') + 2 },
    });
    assert.equal(fid.contents.kind, 'markdown');
    assert.match(fid.contents.value, /\*\*FID-003\*\* · error path · chunk `messages`/);
    assert.match(fid.contents.value, /Posting to a deleted room fails/);
    assert.match(fid.contents.value, /messages_test\.go:12/);
    assert.match(fid.contents.value, /10-fidelity-baseline\.md, line 14/);
    assert.equal(fid.range.start.character, text.split('\n')[line].indexOf('FID-003'));
    const code = await client.request<{ contents: { value: string } }>('textDocument/hover', {
      textDocument: { uri: logic },
      position: { line, character: text.split('\n')[line].indexOf('ROOM_404') + 1 },
    });
    assert.match(code.contents.value, /\*\*ROOM_404\*\* · HTTP 404/);
    assert.match(code.contents.value, /Room not found/);
    assert.match(code.contents.value, /05-error-handling\.md, line 7/);
    const none = await client.request('textDocument/hover', {
      textDocument: { uri: logic },
      position: { line: 0, character: 2 },
    });
    assert.equal(none, null);
  });

  it('goes to the definition of an id on its defining page', async () => {
    const p = port('mixed');
    const api = p.uri('02-public-api');
    const text = p.text('02-public-api');
    const m = client.open(api, text, 'markdown');
    await client.diagnosticsFor(api, () => true, m);
    const line = lineOf(text, 'MSG_413');
    const loc = await client.request<{
      uri: string;
      range: { start: { line: number; character: number }; end: { character: number } };
    }>('textDocument/definition', {
      textDocument: { uri: api },
      position: { line, character: text.split('\n')[line].indexOf('MSG_413') + 3 },
    });
    assert.equal(loc.uri, p.uri('05-error-handling'));
    const e05 = p.text('05-error-handling').split('\n');
    assert.equal(loc.range.start.line, 7);
    assert.equal(e05[7].slice(loc.range.start.character, loc.range.end.character), 'MSG_413');
    assert.equal(
      await client.request('textDocument/definition', {
        textDocument: { uri: api },
        position: { line: 0, character: 0 },
      }),
      null,
    );
  });

  it('outlines a page: headings, tables and the page items (FIDs, chunks)', async () => {
    const p = port('tables-md');
    const uri = p.uri('10-fidelity-baseline');
    const m = client.open(uri, p.text('10-fidelity-baseline'), 'markdown');
    await client.diagnosticsFor(uri, () => true, m);
    const syms = await client.request<DocSymbol[]>('textDocument/documentSymbol', { textDocument: { uri } });
    assert.equal(syms[0].name, 'Fidelity baseline');
    const all = flat(syms);
    const fids = all.filter((s) => s.kind === 22);
    assert.deepEqual(
      fids.map((s) => s.name),
      ['FID-001', 'FID-002', 'FID-003', 'FID-004', 'FID-005'],
    );
    assert.match(fids[0].detail ?? '', /happy path · auth · Login with valid credentials/);
    assert.deepEqual(
      all.filter((s) => s.kind === 4).map((s) => s.name),
      ['auth', 'lists', 'tasks'],
    );
    assert.ok(all.some((s) => s.kind === 18 && /^Table: ID \| Behavior/.test(s.name)));
  });

  it('checks source tests once sessionOps.pages.sourceRoot is set (relative to the port folder)', async () => {
    const p = port('tables-md');
    const uri = p.uri('10-fidelity-baseline');
    const text = p.text('10-fidelity-baseline').replace('tests/test_tasks.py', 'tests/test_gone.py');
    const m1 = client.open(uri, text, 'markdown');
    assert.deepEqual((await client.diagnosticsFor(uri, () => true, m1)).diagnostics, []);
    const m2 = client.published.length;
    client.notify('workspace/didChangeConfiguration', { settings: { sessionOps: { pages: { sourceRoot: 'src' } } } });
    const d = (await client.diagnosticsFor(uri, (x) => x.diagnostics.length > 0, m2)).diagnostics;
    assert.deepEqual(d.map(show), [`${lineOf(text, 'test_gone') + 1}:66 page.source-test-not-found`]);
    assert.match(d[0].message, new RegExp(`under ${path.join(p.dir, 'src').replace(/[\\/.]/g, '\\$&')}`));
    const m3 = client.published.length;
    client.notify('workspace/didChangeConfiguration', { settings: { sessionOps: { routing: {} } } });
    assert.deepEqual(
      (await client.diagnosticsFor(uri, (x) => x.diagnostics.length === 0, m3)).diagnostics,
      [],
      'unset again',
    );
  });

  it('sessionOps/portAnalysis: every source-analysis folder with its six pages, counts, chunks and FIDs (0-based ranges, URIs)', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'so-lsp-ports-'));
    try {
      cpSync(path.join(FIXTURES, 'tables-md'), path.join(root, 'billing'), { recursive: true });
      cpSync(path.join(FIXTURES, 'wiki-lists'), path.join(root, 'nested', 'invoices'), { recursive: true });
      mkdirSync(path.join(root, 'empty', 'source-analysis'), { recursive: true });
      mkdirSync(path.join(root, 'node_modules', 'x', 'source-analysis'), { recursive: true });
      const broken = path.join(root, 'broken', 'source-analysis');
      mkdirSync(broken, { recursive: true });
      const b10 = readFileSync(path.join(FIXTURES, 'tables-md', 'source-analysis', '10-fidelity-baseline.md'), 'utf8');
      writeFileSync(
        path.join(broken, '10-fidelity-baseline.md'),
        b10.replace(
          '| happy path | `tests/test_lists.py::test_create` |',
          '| cheerful path | `tests/test_lists.py::test_create` |',
        ),
      );
      const r = await client.request<PortAnalysisResult>('sessionOps/portAnalysis', { folders: [fileUri(root)] });
      assert.deepEqual(
        r.folders.map((f) => path.relative(root, f.folder)),
        [
          'billing/source-analysis',
          'broken/source-analysis',
          'empty/source-analysis',
          'nested/invoices/source-analysis',
        ],
      );
      const [billing, brk, empty, invoices] = r.folders;
      assert.equal(billing.portName, 'billing');
      assert.equal(billing.port, path.join(root, 'billing'));
      assert.equal(billing.folderUri, fileUri(path.join(root, 'billing', 'source-analysis')));
      assert.deepEqual(
        billing.pages.map((pg) => pg.kind),
        [
          '01-source-overview',
          '02-public-api',
          '03-data-model',
          '04-business-logic',
          '05-error-handling',
          '10-fidelity-baseline',
        ],
      );
      assert.ok(billing.pages.every((pg) => pg.errors === 0 && pg.warnings === 0 && pg.uri === fileUri(pg.filePath!)));
      assert.deepEqual(
        billing.fidelity?.chunks.map((c) => `${c.name}: ${c.fids.map((f) => f.fid).join(' ')}`),
        ['auth: FID-001 FID-002', 'lists: FID-003 FID-004', 'tasks: FID-005'],
      );
      const fid1 = billing.fidelity!.chunks[0].fids[0];
      assert.equal(fid1.behavior, 'Login with valid credentials returns a token');
      assert.equal(fid1.type, 'happy path');
      assert.deepEqual(fid1.range.start, { line: 6, character: 0 }, '0-based: the first inventory row is line 7');
      assert.equal(
        billing.fidelity?.uri,
        fileUri(path.join(root, 'billing', 'source-analysis', '10-fidelity-baseline.md')),
      );
      // the broken port: five missing pages (folder diagnostics), an error counted on 10
      assert.deepEqual(
        brk.pages.map((pg) => pg.filePath === null),
        [true, true, true, true, true, false],
      );
      assert.equal(brk.pages[0].uri, null);
      assert.deepEqual(
        brk.folderDiagnostics.map((d) => d.code),
        Array(5).fill('page.missing-page'),
      );
      assert.equal(brk.pages[5].errors, 1);
      assert.equal(brk.pages[5].diagnostics[0].code, 'page.invalid-type');
      assert.equal(brk.pages[5].diagnostics[0].range.start.line, 8);
      assert.equal(empty.pages.filter((pg) => pg.filePath).length, 0);
      assert.equal(empty.fidelity, null);
      assert.equal(invoices.pages.filter((pg) => pg.filePath).length, 6, 'wiki pages without .md');
      // open documents count with their unsaved text
      const u10 = fileUri(path.join(broken, '10-fidelity-baseline.md'));
      const m = client.open(u10, b10, 'markdown');
      await client.diagnosticsFor(u10, () => true, m);
      const again = await client.request<PortAnalysisResult>('sessionOps/portAnalysis', { folders: [broken] });
      assert.deepEqual(
        again.folders.map((f) => f.folder),
        [broken],
      );
      assert.equal(again.folders[0].pages[5].errors, 0);
      assert.equal(again.folders[0].pages[5].uri, u10);
      client.close(u10);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('sessionOps/portAnalysis without folders searches the workspace folders', async () => {
    const r = await client.request<PortAnalysisResult>('sessionOps/portAnalysis', {});
    assert.ok(r.folders.length >= 5);
    assert.ok(r.folders.every((f) => f.folder.startsWith(path.join(ws, 'ports') + path.sep)));
  });

  it('announces portAnalysisChanged when the diagnostics of a page change', async () => {
    const p = port('tables-md');
    const uri = p.uri('05-error-handling');
    const text = p.text('05-error-handling');
    const m1 = client.open(uri, text, 'markdown');
    await client.diagnosticsFor(uri, () => true, m1);
    const n = client.notifications.length;
    const row = lineOf(text, '| 429 |');
    const col = text.split('\n')[row].indexOf('429');
    const m2 = client.change(uri, 2, [
      { range: { start: { line: row, character: col }, end: { line: row, character: col + 3 } }, text: '4x9' },
    ]);
    assert.deepEqual(
      (await client.diagnosticsFor(uri, (x) => x.version === 2, m2)).diagnostics.map((d) => d.code),
      ['page.invalid-status'],
    );
    await changedSince(n, p.folder);
  });

  it('clears the diagnostics of a closed page', async () => {
    const p = port('tables-md');
    const uri = p.uri('02-public-api');
    const m = client.open(uri, '# Public API\n\nno table\n', 'markdown');
    await client.diagnosticsFor(uri, (x) => x.diagnostics.length > 0, m);
    const m2 = client.close(uri);
    assert.deepEqual((await client.diagnosticsFor(uri, () => true, m2)).diagnostics, []);
  });

  it('never sends a request to the client', () => {
    assert.deepEqual(
      client.serverRequests.map((r) => r.method),
      [],
    );
  });
});

describe('language server: pages over IPC with initializationOptions', function () {
  this.timeout(30000);

  it('takes pages.sourceRoot from initializationOptions', async () => {
    const ws = mkdtempSync(path.join(os.tmpdir(), 'so-lsp-pages-ipc-'));
    const client = LspClient.ipc();
    try {
      cpSync(path.join(FIXTURES, 'tables-md'), path.join(ws, 'todo'), { recursive: true });
      await client.initialize({ rootPath: ws, initializationOptions: { pages: { sourceRoot: 'src' } } });
      const file = path.join(ws, 'todo', 'source-analysis', '10-fidelity-baseline.md');
      const text = readFileSync(file, 'utf8').replace(
        'tests/test_auth.py::test_login_ok',
        'tests/test_nope.py::test_login_ok',
      );
      const m = client.open(fileUri(file), text, 'markdown');
      const d = await client.diagnosticsFor(fileUri(file), () => true, m);
      assert.deepEqual(d.diagnostics.map(show), [
        `7:${text.split('\n')[6].indexOf('`tests/test_nope') + 1} page.source-test-not-found`,
      ]);
    } finally {
      await client.stop();
      rmSync(ws, { recursive: true, force: true });
    }
  });
});
