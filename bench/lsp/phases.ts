// Where the open time goes, measured in process with the language server's own core modules
// (bundled by bench/lsp.mjs): read = decoding the didOpen notification as it arrives (JSON-RPC
// frame to text), parse = splitting into chunks and parsing each (the fast YAML subset, `yaml`
// where it bails), validate = the rest of a fresh RoutingAnalyzer's analysis (schema, checks,
// ranges), serialize = encoding the publishDiagnostics notification. And the same for a one-token
// edit (measureEditPhases): read = decoding didChange and applying it to the document, split =
// finding the change and re-splitting around it, parse = the changed chunk, validate = the rest.
import { TextDocument } from 'vscode-languageserver-textdocument';
import { RoutingAnalyzer } from '../../src/language/routing/analyzer';
import { splitDocument } from '../../src/language/routing/chunks';
import { parseText } from '../../src/language/routing/parse';
import { diffTexts, resplit } from '../../src/language/routing/resplit';

export interface OpenPhases {
  readMs: number;
  parseMs: number;
  validateMs: number;
  serializeMs: number;
  diagnostics: number;
}

function once(text: string, uri: string): OpenPhases {
  const frame = Buffer.from(
    JSON.stringify({
      jsonrpc: '2.0',
      method: 'textDocument/didOpen',
      params: { textDocument: { uri, languageId: 'yaml', version: 1, text } },
    }),
  );
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
  JSON.stringify({
    jsonrpc: '2.0',
    method: 'textDocument/publishDiagnostics',
    params: { uri, version: 1, diagnostics: analysis.diagnostics },
  });
  const serializeMs = performance.now() - t;
  return {
    readMs,
    parseMs,
    validateMs: Math.max(0, analyzeMs - parseMs),
    serializeMs,
    diagnostics: analysis.diagnostics.length,
  };
}

/** Median of each phase over `runs` fresh opens. */
export function measureOpenPhases(text: string, runs: number): OpenPhases {
  const all = Array.from({ length: runs }, () => once(text, 'file:///bench/routing.yaml'));
  const med = (k: keyof OpenPhases) => {
    const s = all.map((p) => p[k]).sort((a, b) => a - b);
    return s[s.length >> 1];
  };
  return {
    readMs: med('readMs'),
    parseMs: med('parseMs'),
    validateMs: med('validateMs'),
    serializeMs: med('serializeMs'),
    diagnostics: all[0].diagnostics,
  };
}

export interface EditPhases {
  /** Decoding the didChange notification and applying it to the document (TextDocument, as the server does). */
  readMs: number;
  /** Finding what changed and re-splitting around it (diffTexts + resplit). */
  splitMs: number;
  /** Parsing the changed chunk. */
  parseMs: number;
  /** The rest of the analysis: the chunk's checks, the cross-chunk checks, ranges. */
  validateMs: number;
  serializeMs: number;
}

/**
 * Where a one-token edit's time goes (median of `runs` edits alternately breaking and fixing the
 * value at `line`, `character`), on an analyzer that has analysed `text` before, as the server's does.
 */
export function measureEditPhases(text: string, line: number, character: number, runs: number): EditPhases {
  const uri = 'file:///bench/routing.yaml';
  const doc = TextDocument.create(uri, 'yaml', 1, text);
  const analyzer = new RoutingAnalyzer();
  analyzer.analyze(text);
  const all: EditPhases[] = [];
  for (let k = 0; k < runs; k++) {
    const range = { start: { line, character }, end: { line, character: character + 4 } };
    const frame = Buffer.from(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'textDocument/didChange',
        params: {
          textDocument: { uri, version: k + 2 },
          contentChanges: [{ range, text: k % 2 === 0 ? 'hihg' : 'high' }],
        },
      }),
    );
    const before = doc.getText();
    let t = performance.now();
    const msg = JSON.parse(frame.toString('utf8')) as {
      params: { textDocument: { version: number }; contentChanges: { range: typeof range; text: string }[] };
    };
    TextDocument.update(doc, msg.params.contentChanges, msg.params.textDocument.version);
    const after = doc.getText();
    const readMs = performance.now() - t;

    const old = splitDocument(before); // the analyzer keeps this from the previous version: not timed
    const t1 = performance.now();
    const change = diffTexts(before, after);
    const split = resplit(before, old, after, change) ?? splitDocument(after);
    const splitMs = performance.now() - t1;
    const at = split.chunks?.find((c) => c.start <= change.prefix && change.prefix < c.end);
    t = performance.now();
    if (at) parseText(after.slice(at.start, at.end));
    const parseMs = performance.now() - t;

    t = performance.now();
    const analysis = analyzer.analyze(after);
    const analyzeMs = performance.now() - t;

    t = performance.now();
    JSON.stringify({
      jsonrpc: '2.0',
      method: 'textDocument/publishDiagnostics',
      params: { uri, version: k + 2, diagnostics: analysis.diagnostics },
    });
    const serializeMs = performance.now() - t;
    all.push({ readMs, splitMs, parseMs, validateMs: Math.max(0, analyzeMs - splitMs - parseMs), serializeMs });
  }
  const med = (key: keyof EditPhases) => {
    const s = all.map((p) => p[key]).sort((a, b) => a - b);
    return s[s.length >> 1];
  };
  return {
    readMs: med('readMs'),
    splitMs: med('splitMs'),
    parseMs: med('parseMs'),
    validateMs: med('validateMs'),
    serializeMs: med('serializeMs'),
  };
}
