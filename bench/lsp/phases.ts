// Where the open time goes, measured in process with the language server's own core modules
// (bundled by bench/lsp.mjs): read = decoding the didOpen notification as it arrives (JSON-RPC
// frame to text), parse = splitting into chunks and parsing each (the fast YAML subset, `yaml`
// where it bails), validate = the rest of a fresh RoutingAnalyzer's analysis (schema, checks,
// ranges), serialize = encoding the publishDiagnostics notification.
import { RoutingAnalyzer } from '../../src/core/routing/analyzer';
import { splitDocument } from '../../src/core/routing/chunks';
import { parseText } from '../../src/core/routing/parse';

export interface OpenPhases {
  readMs: number;
  parseMs: number;
  validateMs: number;
  serializeMs: number;
  diagnostics: number;
}

function once(text: string, uri: string): OpenPhases {
  const frame = Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { uri, languageId: 'yaml', version: 1, text } } }));
  let t = performance.now();
  const msg = JSON.parse(frame.toString('utf8')) as { params: { textDocument: { text: string } } };
  const received = msg.params.textDocument.text;
  const readMs = performance.now() - t;

  t = performance.now();
  const split = splitDocument(received);
  for (const c of split.chunks ?? [{ start: 0, end: received.length }]) parseText(received.slice(c.start, c.end));
  const parseMs = performance.now() - t;

  t = performance.now();
  const analysis = new RoutingAnalyzer().analyze(received);
  const analyzeMs = performance.now() - t;

  t = performance.now();
  JSON.stringify({ jsonrpc: '2.0', method: 'textDocument/publishDiagnostics', params: { uri, version: 1, diagnostics: analysis.diagnostics } });
  const serializeMs = performance.now() - t;
  return { readMs, parseMs, validateMs: Math.max(0, analyzeMs - parseMs), serializeMs, diagnostics: analysis.diagnostics.length };
}

/** Median of each phase over `runs` fresh opens. */
export function measureOpenPhases(text: string, runs: number): OpenPhases {
  const all = Array.from({ length: runs }, () => once(text, 'file:///bench/routing.yaml'));
  const med = (k: keyof OpenPhases) => {
    const s = all.map((p) => p[k]).sort((a, b) => a - b);
    return s[s.length >> 1];
  };
  return { readMs: med('readMs'), parseMs: med('parseMs'), validateMs: med('validateMs'), serializeMs: med('serializeMs'), diagnostics: all[0].diagnostics };
}
