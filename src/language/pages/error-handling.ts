// 05-error-handling: a table of error code (<PREFIX>_<NNN>), HTTP status (100-599), message,
// source condition; codes unique.

import type { Diagnostic } from '../../core/diagnostics';
import { requireTables, type ColumnSpec } from './columns';
import { IdRegistry, lineOf, PageCodes, Reporter } from './diag';
import { ERROR_CODE_RE } from './id-formats';
import { cellAt, pageAnchor, ParsedDoc, tablesOf, titleOf } from './markdown';
import type { ErrorCodeRow, ErrorHandlingModel } from './model';

export const ERROR_COLUMNS: readonly ColumnSpec[] = [
  {
    key: 'code',
    label: 'Error code',
    aliases: ['error code', 'code', 'error', 'error id', 'id', 'codes', 'error codes'],
  },
  {
    key: 'status',
    label: 'HTTP status',
    aliases: ['http status', 'status', 'http', 'http code', 'status code', 'http status code', 'http status codes'],
  },
  { key: 'message', label: 'Message', aliases: ['message', 'error message', 'messages', 'text', 'description'] },
  {
    key: 'condition',
    label: 'Source condition',
    aliases: [
      'source condition',
      'condition',
      'conditions',
      'trigger',
      'when',
      'cause',
      'source',
      'raised when',
      'thrown when',
      'triggering condition',
    ],
  },
];

/** "404" or "404 Not Found" → 404 when in 100-599, else null. */
export function parseStatus(text: string): number | null {
  const m = /^(\d{3})(?:\s+\S.*)?$/.exec(text.trim());
  if (!m) return null;
  const n = Number(m[1]);
  return n >= 100 && n <= 599 ? n : null;
}

export function analyze05(doc: ParsedDoc, filePath: string): { model: ErrorHandlingModel; diagnostics: Diagnostic[] } {
  const report = new Reporter();
  const tables = tablesOf(doc);
  const picked = requireTables(tables, ERROR_COLUMNS, report, pageAnchor(doc), 'error-code');
  const errors: ErrorCodeRow[] = [];
  const ids = new IdRegistry();

  for (const { table, match } of picked) {
    const ix = match.index;
    for (const row of table.rows) {
      const code = cellAt(row, ix.code);
      const status = cellAt(row, ix.status);
      const message = cellAt(row, ix.message);
      const condition = cellAt(row, ix.condition);
      errors.push({
        code: code.text,
        status: parseStatus(status.text),
        statusText: status.text,
        message: message.text,
        condition: condition.text,
        range: row.range,
        codeRange: ix.code !== undefined ? code.range : row.range,
      });
      if (ix.code !== undefined) {
        if (code.text.length === 0) report.error(code.range, PageCodes.emptyCell, 'This row has no error code.');
        else if (!ERROR_CODE_RE.test(code.text)) {
          report.error(
            code.range,
            PageCodes.invalidId,
            `"${code.text}" is not an error code: write <PREFIX>_<NNN> (uppercase prefix, underscore, three digits).`,
          );
        } else {
          const prior = ids.seen(code.text, code.range);
          if (prior)
            report.error(
              code.range,
              PageCodes.duplicateId,
              `${code.text} is already defined on line ${lineOf(prior)}.`,
            );
        }
      }
      const label = code.text || 'this row';
      if (ix.status !== undefined && parseStatus(status.text) === null) {
        report.error(
          status.range,
          status.text.length === 0 ? PageCodes.emptyCell : PageCodes.invalidStatus,
          status.text.length === 0
            ? `${label} has no HTTP status.`
            : `"${status.text}" is not an HTTP status (a number from 100 to 599).`,
        );
      }
      if (ix.message !== undefined && message.text.length === 0)
        report.error(message.range, PageCodes.emptyCell, `${label} has no message.`);
      if (ix.condition !== undefined && condition.text.length === 0) {
        report.error(
          condition.range,
          PageCodes.emptyCell,
          `${label} has no source condition (when the source raises it).`,
        );
      }
    }
  }

  const model: ErrorHandlingModel = {
    kind: '05-error-handling',
    filePath,
    text: doc.text,
    title: titleOf(doc),
    headings: doc.headings,
    tables,
    errors,
  };
  return { model, diagnostics: report.diagnostics };
}
