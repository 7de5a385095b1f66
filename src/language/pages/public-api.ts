// 02-public-api: a table of method/endpoint, input schema, output schema, errors, notes.

import type { Diagnostic, Range } from '../../core/diagnostics';
import { requireTables, type ColumnSpec } from './columns';
import { IdRegistry, lineOf, PageCodes, Reporter } from './diag';
import { ERROR_CODE_SCAN } from './id-formats';
import { cellAt, pageAnchor, ParsedDoc, tablesOf, titleOf, type CellInfo } from './markdown';
import type { Endpoint, ErrorCodeRef, PublicApiModel } from './model';

export const API_COLUMNS: readonly ColumnSpec[] = [
  {
    key: 'endpoint',
    label: 'Method/endpoint',
    standIn: 'method',
    aliases: [
      'method/endpoint',
      'endpoint',
      'endpoints',
      'method endpoint',
      'method/path',
      'method/route',
      'method/function',
      'function/method',
      'operation',
      'function',
      'route',
      'api',
      'command',
      'signature',
      'path',
      'url',
    ],
  },
  { key: 'method', label: 'Method', aliases: ['method', 'http method', 'verb'], optional: true },
  {
    key: 'input',
    label: 'Input schema',
    aliases: [
      'input schema',
      'input',
      'inputs',
      'request',
      'request body',
      'request schema',
      'parameters',
      'params',
      'arguments',
      'args',
      'input/params',
    ],
  },
  {
    key: 'output',
    label: 'Output schema',
    aliases: [
      'output schema',
      'output',
      'outputs',
      'response',
      'response schema',
      'response body',
      'returns',
      'return',
      'return type',
      'result',
    ],
  },
  {
    key: 'errors',
    label: 'Errors',
    aliases: ['errors', 'error', 'error codes', 'errors raised', 'throws', 'raises', 'failures', 'error responses'],
  },
  { key: 'notes', label: 'Notes', aliases: ['notes', 'note', 'remarks', 'comments', 'description', 'details'] },
];

/** The error codes named in a cell, each with its range in the source. */
export function errorCodesIn(doc: ParsedDoc, cell: CellInfo): ErrorCodeRef[] {
  const s = doc.lines.offset(cell.range.start);
  const raw = doc.text.slice(s, doc.lines.offset(cell.range.end));
  const out: ErrorCodeRef[] = [];
  for (const m of raw.matchAll(ERROR_CODE_SCAN)) {
    out.push({ code: m[0], range: doc.lines.range(s + (m.index ?? 0), s + (m.index ?? 0) + m[0].length) });
  }
  return out;
}

export function analyze02(doc: ParsedDoc, filePath: string): { model: PublicApiModel; diagnostics: Diagnostic[] } {
  const report = new Reporter();
  const tables = tablesOf(doc);
  const picked = requireTables(tables, API_COLUMNS, report, pageAnchor(doc), 'API');
  const endpoints: Endpoint[] = [];
  const seen = new IdRegistry();

  for (const { match, table } of picked) {
    const ix = match.index;
    for (const row of table.rows) {
      const method = ix.method !== undefined ? cellAt(row, ix.method) : null;
      const path = ix.endpoint !== undefined ? cellAt(row, ix.endpoint) : null;
      const epCell = path ?? method;
      if (!epCell) continue;
      const endpoint = [method?.text, path?.text].filter((t): t is string => !!t && t.length > 0).join(' ');
      const errorsCell = ix.errors !== undefined ? cellAt(row, ix.errors) : null;
      const e: Endpoint = {
        endpoint,
        input: ix.input !== undefined ? cellAt(row, ix.input).text : '',
        output: ix.output !== undefined ? cellAt(row, ix.output).text : '',
        errors: errorsCell ? errorCodesIn(doc, errorsCell) : [],
        errorsText: errorsCell?.text ?? '',
        errorsRange: errorsCell?.range ?? row.range,
        notes: ix.notes !== undefined ? cellAt(row, ix.notes).text : '',
        range: row.range,
        endpointRange: method && path ? spanning(method.range, path.range) : epCell.range,
      };
      endpoints.push(e);

      if (endpoint.length === 0) {
        report.error(epCell.range, PageCodes.emptyCell, 'This row names no method/endpoint.');
        continue;
      }
      const prior = seen.seen(endpoint.toLowerCase(), e.endpointRange);
      if (prior)
        report.warning(
          e.endpointRange,
          PageCodes.duplicateEndpoint,
          `"${endpoint}" is already listed on line ${lineOf(prior)}.`,
        );
      for (const key of ['input', 'output', 'errors'] as const) {
        if (ix[key] === undefined) continue;
        const cell = cellAt(row, ix[key]);
        if (cell.text.length === 0) {
          const label = API_COLUMNS.find((c) => c.key === key)?.label ?? key;
          report.warning(
            cell.range,
            PageCodes.emptyCell,
            `"${label}" of ${endpoint} is blank: write "none" when there is none.`,
          );
        }
      }
    }
  }

  const model: PublicApiModel = {
    kind: '02-public-api',
    filePath,
    text: doc.text,
    title: titleOf(doc),
    headings: doc.headings,
    tables,
    endpoints,
  };
  return { model, diagnostics: report.diagnostics };
}

function spanning(a: Range, b: Range): Range {
  const before = (p: Range['start'], q: Range['start']): boolean =>
    p.line < q.line || (p.line === q.line && p.character <= q.character);
  return { start: before(a.start, b.start) ? a.start : b.start, end: before(a.end, b.end) ? b.end : a.end };
}
