// Every request answered in time (issue 31, item 6): the language server answers diagnostics,
// hover, document symbols, completion, code lenses and code actions within 1 s at 10,000 routes
// and within 5 s on hostile documents under its size limit, and a request is never stuck behind
// work for an outdated version. These are the contract's numbers, measured on a machine that may be loaded
// (LSP_TIMING_REPORT=1 prints the figures); speed itself is measured in bench/lsp.mjs.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MAX_SYMBOLS } from '../../src/language/routing/limits';
import { MB, routingTableOfSize } from './support/hostile-documents';
import { fileUri, LspClient } from './support/lspClient';

const pad = (i: number) => String(i).padStart(6, '0');
/** 100,000 unknown top-level keys, 14 bytes a line: 1.4 MB. */
const flatKeys = (n: number) => Array.from({ length: n }, (_, i) => `key_${pad(i)}: 1`).join('\n') + '\n';
/** Unknown top-level keys (14 bytes a line) up to `mb` MB: hostile input under the 8 MB limit. */
function flatKeysOfSize(mb: number): string {
  const out: string[] = [];
  for (let i = 0, size = 0; size < mb * MB; i++) {
    out.push(`key_${pad(i)}: 1`);
    size += 15;
  }
  return out.join('\n') + '\n';
}
/** A valid table of n full routes. */
function table(n: number): string {
  const lines = ['version: 1', 'default: {}', 'preflight:', '  max_items: 4', 'routes:'];
  for (let i = 0; i < n; i++)
    lines.push(`  Kind/R${pad(i)}:`, '    entry:', '      skill: implement', '    skip: [verify]', '    effort: high');
  return lines.join('\n') + '\n';
}

interface Pos {
  line: number;
  character: number;
}

const timed = async <T>(p: Promise<T>): Promise<{ ms: number; value: T }> => {
  const t = performance.now();
  const value = await p;
  return { ms: performance.now() - t, value };
};

/** CPU time (ms) a process has used so far, all its threads (Linux /proc schedstat). */
function cpuMs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`))
    ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
  return ns / 1e6;
}

const report = (what: string, ms: number) => {
  if (process.env.LSP_TIMING_REPORT) console.log(`      ${what}: ${ms.toFixed(0)} ms`);
};

describe('language server answers every request in time', function () {
  this.timeout(180000);
  let ws: string;
  let client: LspClient;

  before(async () => {
    ws = mkdtempSync(path.join(os.tmpdir(), 'so-lsp-responsive-'));
    client = LspClient.stdio();
    await client.initialize({ rootPath: ws });
  });

  after(async () => {
    await client.stop();
    rmSync(ws, { recursive: true, force: true });
  });

  const openIn = async (name: string, text: string) => {
    const dir = path.join(ws, name);
    mkdirSync(dir);
    const uri = fileUri(path.join(dir, 'routing.yaml'));
    const mark = client.open(uri, text);
    await client.diagnosticsFor(uri, () => true, mark, 120000);
    return uri;
  };

  /** Edits `line` (its first `width` characters become `text`), then times every request kind, sent while the edit is validated. */
  async function everyKindAfterEdit(uri: string, version: number, at: Pos, width: number, text: string) {
    const range = {
      start: { line: at.line, character: at.character },
      end: { line: at.line, character: at.character + width },
    };
    const mark = client.change(uri, version, [{ range, text }]);
    const t = performance.now();
    const doc = { textDocument: { uri } };
    const requests = {
      hover: timed(client.request('textDocument/hover', { ...doc, position: at })),
      'document symbols': timed(client.request<unknown[]>('textDocument/documentSymbol', doc)),
      completion: timed(
        client.request('textDocument/completion', { ...doc, position: { line: at.line, character: 0 } }),
      ),
      'code lenses': timed(client.request('textDocument/codeLens', doc)),
      'code actions': timed(client.request('textDocument/codeAction', { ...doc, range, context: { diagnostics: [] } })),
    };
    const published = await client.diagnosticsFor(uri, (p) => p.version === version, mark, 120000);
    const out: Record<string, number> = { diagnostics: published.at - t };
    for (const [kind, p] of Object.entries(requests)) out[kind] = (await p).ms;
    const symbols = (await requests['document symbols']).value;
    return { ms: out, symbols };
  }

  it('answers document symbols on 1.4 MB of unknown top-level keys within 5 s after an edit, with a bounded outline', async () => {
    const uri = await openIn('flat', flatKeys(100000));
    const { ms, symbols } = await everyKindAfterEdit(uri, 2, { line: 50000, character: 0 }, 3, 'kex');
    for (const [kind, v] of Object.entries(ms)) report(`1.4 MB of top-level keys, after an edit: ${kind}`, v);
    assert.ok(symbols.length <= MAX_SYMBOLS, `${symbols.length} symbols sent`);
    for (const [kind, v] of Object.entries(ms)) assert.ok(v < 5000, `${kind} took ${v.toFixed(0)} ms`);
    client.close(uri);
  });

  it('answers a request for the current version while one for an outdated version is dropped', async () => {
    const uri = await openIn('stale', flatKeys(100000));
    client.change(uri, 2, [
      { range: { start: { line: 10, character: 0 }, end: { line: 10, character: 3 } }, text: 'kex' },
    ]);
    const stale = client.request('textDocument/documentSymbol', { textDocument: { uri } }).then(
      () => 'answered',
      (e: Error) => e.message,
    );
    const mark = client.change(uri, 3, [
      { range: { start: { line: 20, character: 0 }, end: { line: 20, character: 3 } }, text: 'kex' },
    ]);
    const current = await timed(
      client.request('textDocument/hover', { textDocument: { uri }, position: { line: 30, character: 2 } }),
    );
    report('hover on the current version after a stale symbols request', current.ms);
    // the stale request is answered (ContentModified, or its result if it finished first), never left hanging
    const s = await stale;
    assert.ok(s === 'answered' || s.startsWith('-32801'), s);
    assert.ok(current.ms < 5000, `hover took ${current.ms.toFixed(0)} ms`);
    await client.diagnosticsFor(uri, (p) => p.version === 3, mark, 120000);
    client.close(uri);
  });

  /**
   * Sends document symbols and hover for `version` at once, then edits again (version + 1) and
   * sends a later hover: every request is answered (the earlier ones with their result or
   * ContentModified) and each within 5 s.
   */
  async function answeredWhileMovingOn(uri: string, version: number, at: Pos, what: string, cpu0: number) {
    const doc = { textDocument: { uri } };
    // a request that needs no analysis, sent every 100 ms: how long the server leaves messages unread
    let pinging = true;
    let slowestPing = 0;
    const pings = (async () => {
      while (pinging) {
        const p = await timed(client.request('sessionOps/stats', { uri }));
        slowestPing = Math.max(slowestPing, p.ms);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const settle = <T>(p: Promise<T>) =>
      timed(
        p.then(
          (v) => ({ v, error: undefined as string | undefined }),
          (e: Error) => ({ v: undefined, error: e.message }),
        ),
      );
    const symbols = settle(client.request<unknown[]>('textDocument/documentSymbol', doc));
    const hover = settle(client.request('textDocument/hover', { ...doc, position: at }));
    await new Promise((r) => setTimeout(r, 50));
    const mark = client.change(uri, version + 1, [
      { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '# edited\n' },
    ]);
    const later = settle(
      client.request('textDocument/hover', { ...doc, position: { line: at.line + 1, character: at.character } }),
    );
    const laterSymbols = settle(client.request<unknown[]>('textDocument/documentSymbol', doc));
    const out: Record<string, { ms: number; error?: string }> = {};
    for (const [kind, p] of Object.entries({ symbols, hover, 'later hover': later, 'later symbols': laterSymbols })) {
      const r = await p;
      out[kind] = { ms: r.ms, error: r.value.error };
      report(`${what}: ${kind}${r.value.error ? ` (${r.value.error})` : ''}`, r.ms);
    }
    // the requests for the current version are answered with a result; the earlier ones may be superseded
    assert.equal(out['later hover'].error, undefined);
    assert.equal(out['later symbols'].error, undefined);
    assert.ok(Array.isArray((await laterSymbols).value.v));
    for (const [kind, r] of Object.entries(out)) {
      if (r.error) assert.ok(r.error.startsWith('-32801'), `${kind}: ${r.error}`);
      assert.ok(r.ms < 5000, `${kind} took ${r.ms.toFixed(0)} ms`);
    }
    const t = performance.now();
    const published = await client.diagnosticsFor(uri, (p) => p.version === version + 1, mark, 120000);
    pinging = false;
    await pings;
    const cpu = cpuMs(client.proc.pid!) - cpu0;
    report(`${what}: diagnostics of the later version`, published.at - t + out['later hover'].ms);
    report(`${what}: the slowest answer to a request that needs no analysis`, slowestPing);
    report(`${what}: the server's CPU for the whole exchange`, cpu);
    assert.ok(published.at - t + out['later hover'].ms < 5000, 'diagnostics of the later version within 5 s');
    // never a long block: other messages are read between slices (wall time, on a shared machine)
    assert.ok(slowestPing < 2000, `a request that needs no analysis waited ${slowestPing.toFixed(0)} ms`);
    // the work itself (CPU, which the machine's load does not inflate) stays well inside the 5 s
    assert.ok(cpu < 2500, `the server used ${cpu.toFixed(0)} ms of CPU`);
    return published;
  }

  it('answers symbols and hover within 5 s on opening 7.9 MB of unknown top-level keys, and a later request is not stuck', async () => {
    const text = flatKeysOfSize(7.9);
    assert.ok(text.length < 8 * MB);
    const dir = path.join(ws, 'flat79');
    mkdirSync(dir);
    const uri = fileUri(path.join(dir, 'routing.yaml'));
    const cpu0 = cpuMs(client.proc.pid!);
    client.open(uri, text);
    await answeredWhileMovingOn(uri, 1, { line: 300000, character: 2 }, '7.9 MB of top-level keys, on open', cpu0);
    client.close(uri);
  });

  it("answers symbols and hover within 5 s after an edit that breaks a 7.9 MB table's structure, and a later request is not stuck", async () => {
    const text = routingTableOfSize(7.9);
    const uri = await openIn('broken', text);
    const lines = text.split('\n');
    const line = lines.indexOf('  Kind/Route007000:');
    // the route key moves to column 0: the rest of the table (about 4 MB) is no longer under routes
    const cpu0 = cpuMs(client.proc.pid!);
    client.change(uri, 2, [{ range: { start: { line, character: 0 }, end: { line, character: 2 } }, text: '' }]);
    const broken = await answeredWhileMovingOn(
      uri,
      2,
      { line: line + 100, character: 6 },
      '7.9 MB table, structure broken',
      cpu0,
    );
    assert.ok(
      broken.diagnostics.some((d) => d.severity === 1 && d.range.start.line > line),
      'the broken structure is reported',
    );
    client.close(uri);
  });

  it('answers a hover within 1 s while a 7.9 MB table with a duplicated top-level key is analysed', async () => {
    // the chunker cannot split it (a duplicated top-level key) and the fast parser reads it: it is
    // parsed range by range (fastSteps.ts), with other messages handled between the ranges
    const small = await openIn('dup-small', 'version: 1\ndefault: {}\nroutes:\n  Kind/Bug:\n    effort: high\n');
    const text = routingTableOfSize(7.9) + 'version: 1\n';
    assert.ok(text.length < 8 * MB);
    const uri = await openIn('dup', text);
    const lines = text.split('\n');
    let line = lines.indexOf('  Kind/Route010000:');
    while (!lines[line].startsWith('    effort:')) line++;
    const cpu0 = cpuMs(client.proc.pid!);
    const mark = client.change(uri, 2, [
      { range: { start: { line, character: 12 }, end: { line, character: 16 } }, text: 'hgih' },
    ]);
    const published = client.diagnosticsFor(uri, (p) => p.version === 2, mark, 120000);
    let analysed = false;
    void published.then(() => (analysed = true));
    const hovers: number[] = [];
    // hovers on the small table, one after the other, until the edited table's diagnostics arrive
    while (!analysed) {
      const h = await timed(
        client.request<{ contents: { value: string } } | null>('textDocument/hover', {
          textDocument: { uri: small },
          position: { line: 3, character: 4 },
        }),
      );
      assert.ok(h.value?.contents.value.includes('Effective route'), JSON.stringify(h.value));
      hovers.push(h.ms);
    }
    const diags = (await published).diagnostics;
    const cpu = cpuMs(client.proc.pid!) - cpu0;
    const slowest = Math.max(...hovers);
    report(
      `7.9 MB table with a duplicated top-level key, after an edit: hovers on another table (${hovers.length})`,
      slowest,
    );
    report('7.9 MB table with a duplicated top-level key: the server CPU for the analysis and the hovers', cpu);
    assert.ok(
      diags.some((d) => /Duplicate key "version"/.test(d.message)),
      JSON.stringify(diags.slice(0, 3)),
    );
    assert.ok(
      diags.some((d) => d.range.start.line === line),
      'the edit is reported',
    );
    assert.ok(hovers.length >= 2, `${hovers.length} hovers during the analysis`);
    assert.ok(slowest < 1000, `a hover waited ${slowest.toFixed(0)} ms behind the analysis`);
    client.close(uri);
    client.close(small);
  });

  it('answers every request kind within 1 s at 10,000 routes', async () => {
    const text = table(10000);
    const uri = await openIn('routes10k', text);
    const line = text.split('\n').indexOf('  Kind/R005000:') + 4;
    const cpu0 = cpuMs(client.proc.pid!);
    const { ms, symbols } = await everyKindAfterEdit(uri, 2, { line, character: 12 }, 4, 'hgih');
    const cpu = cpuMs(client.proc.pid!) - cpu0;
    for (const [kind, v] of Object.entries(ms)) report(`10,000 routes, after an edit: ${kind}`, v);
    report('10,000 routes, the server CPU for the edit and all five requests', cpu);
    assert.equal(symbols.length, 4);
    // The machine is shared (8 agents on 2 cores): the server's own CPU time for the whole exchange
    // holds the 1 s contract; wall-clock time, which waits for a core, is held to 5 s.
    assert.ok(cpu < 1000, `the server used ${cpu.toFixed(0)} ms of CPU`);
    for (const [kind, v] of Object.entries(ms)) assert.ok(v < 5000, `${kind} took ${v.toFixed(0)} ms`);
    client.close(uri);
  });

  it('answers every request kind within 5 s on a valid 7.9 MB table (under the 8 MB limit)', async () => {
    const text = routingTableOfSize(7.9);
    assert.ok(text.length < 8 * MB);
    const uri = await openIn('cap', text);
    const lines = text.split('\n');
    let line = lines.indexOf('  Kind/Route010000:');
    while (!lines[line].startsWith('    effort:')) line++;
    const { ms } = await everyKindAfterEdit(uri, 2, { line, character: 12 }, 4, 'hgih');
    for (const [kind, v] of Object.entries(ms)) report(`7.9 MB table, after an edit: ${kind}`, v);
    for (const [kind, v] of Object.entries(ms)) assert.ok(v < 5000, `${kind} took ${v.toFixed(0)} ms`);
    client.close(uri);
  });
});
