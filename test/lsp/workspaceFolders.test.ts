// The built language server follows workspace/didChangeWorkspaceFolders: a folder added is searched
// for page sets (sessionOps/portAnalysis) and indexed for route keys (completion), a folder removed
// no longer is; the client declares workspace-folder support, and the server still sends no request.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PortAnalysisResult } from '../../src/shared/protocol';
import { fileUri, LspClient, ROOT } from './support/lspClient';

const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'pages', 'valid');

describe('language server: workspace folders added and removed', function () {
  this.timeout(60000);
  let first: string;
  let second: string;
  let client: LspClient;

  const folders = async () =>
    (await client.request<PortAnalysisResult>('sessionOps/portAnalysis', {})).folders.map((f) => f.folder);
  const change = (added: string[], removed: string[]) =>
    client.notify('workspace/didChangeWorkspaceFolders', {
      event: {
        added: added.map((p) => ({ uri: fileUri(p), name: path.basename(p) })),
        removed: removed.map((p) => ({ uri: fileUri(p), name: path.basename(p) })),
      },
    });
  /** Polls `read` until `ok` holds (the server handles the notification before later requests, but scans in the background). */
  const until = async <T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string): Promise<T> => {
    let v = await read();
    for (let i = 0; i < 50 && !ok(v); i++) {
      await new Promise((r) => setTimeout(r, 100));
      v = await read();
    }
    assert.ok(ok(v), `${what}: ${JSON.stringify(v)}`);
    return v;
  };

  before(async () => {
    first = mkdtempSync(path.join(os.tmpdir(), 'so-lsp-wsf-a-'));
    second = mkdtempSync(path.join(os.tmpdir(), 'so-lsp-wsf-b-'));
    cpSync(path.join(FIXTURES, 'tables-md'), path.join(first, 'alpha'), { recursive: true });
    cpSync(path.join(FIXTURES, 'tables-md'), path.join(second, 'beta'), { recursive: true });
    mkdirSync(path.join(second, 'team'), { recursive: true });
    writeFileSync(
      path.join(second, 'team', 'team.routing.yaml'),
      'version: 1\ndefault: {}\nroutes:\n  Kind/FromSecondFolder:\n    effort: high\n',
    );
    client = LspClient.stdio();
    const init = await client.initialize({
      rootPath: first,
      capabilities: {
        workspace: { workspaceFolders: true },
        textDocument: {
          documentSymbol: { hierarchicalDocumentSymbolSupport: true },
          publishDiagnostics: { versionSupport: true },
        },
      },
    });
    assert.deepEqual((init.capabilities.workspace as { workspaceFolders?: unknown } | undefined)?.workspaceFolders, {
      supported: true,
      changeNotifications: true,
    });
  });

  after(async () => {
    await client.stop();
    rmSync(first, { recursive: true, force: true });
    rmSync(second, { recursive: true, force: true });
  });

  it('searches page sets in the folders as they are added and removed', async () => {
    assert.deepEqual(await folders(), [path.join(first, 'alpha', 'source-analysis')]);
    change([second], []);
    await until(folders, (f) => f.length === 2, 'both folders');
    assert.deepEqual(
      await folders(),
      [path.join(first, 'alpha', 'source-analysis'), path.join(second, 'beta', 'source-analysis')].sort(),
    );
    change([], [first]);
    await until(folders, (f) => f.length === 1, 'the second folder only');
    assert.deepEqual(await folders(), [path.join(second, 'beta', 'source-analysis')]);
  });

  it('indexes the route keys of an added folder, and forgets those of a removed one', async () => {
    change([first], [second]); // back to the first folder alone
    const uri = fileUri(path.join(first, 'routing.yaml'));
    const mark = client.open(uri, 'version: 1\ndefault: {}\nroutes:\n  Kind/Here:\n    effort: high\n  \n');
    await client.diagnosticsFor(uri, () => true, mark);
    type Item = { label: string };
    const keys = async () =>
      (
        (
          await client.request<{ items: Item[] }>('textDocument/completion', {
            textDocument: { uri },
            position: { line: 5, character: 2 },
          })
        ).items ?? []
      ).map((i) => i.label);
    assert.ok(!(await keys()).includes('Kind/FromSecondFolder'));
    change([second], []);
    await until(keys, (k) => k.includes('Kind/FromSecondFolder'), 'route key of the added folder');
    change([], [second]);
    await until(keys, (k) => !k.includes('Kind/FromSecondFolder'), 'route key of the removed folder gone');
    client.close(uri);
  });

  it('never sends a request to the client', () => {
    assert.deepEqual(
      client.serverRequests.map((r) => r.method),
      [],
    );
  });
});
