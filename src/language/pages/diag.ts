// Diagnostic construction and the stable codes of source-analysis page validation.

import type { Diagnostic, Range, Severity } from '../../core/diagnostics';

export const PAGES_SOURCE = 'session-ops.pages';

/** Every code this module emits. Codes are stable: quick fixes and tests key on them. */
export const PageCodes = {
  // Any page
  tooLarge: 'page.too-large',
  notChecked: 'page.not-checked',
  noTable: 'page.no-table',
  missingColumn: 'page.missing-column',
  emptyCell: 'page.empty-cell',
  invalidId: 'page.invalid-id',
  duplicateId: 'page.duplicate-id',
  // 01
  missingField: 'page.missing-field',
  emptyField: 'page.empty-field',
  duplicateField: 'page.duplicate-field',
  invalidCount: 'page.invalid-count',
  // 02
  duplicateEndpoint: 'page.duplicate-endpoint',
  // 03
  missingEntityHeading: 'page.missing-entity-heading',
  duplicateEntity: 'page.duplicate-entity',
  missingCardinality: 'page.missing-cardinality',
  // 03 and 04
  missingSection: 'page.missing-section',
  emptySection: 'page.empty-section',
  // 04
  noRules: 'page.no-rules',
  ruleOutsideFeature: 'page.rule-outside-feature',
  missingAssertion: 'page.missing-assertion',
  // 05
  invalidStatus: 'page.invalid-status',
  // 10
  invalidType: 'page.invalid-type',
  missingChunk: 'page.missing-chunk',
  multipleChunks: 'page.multiple-chunks',
  chunkWithoutFid: 'page.chunk-without-fid',
  undeclaredChunk: 'page.undeclared-chunk',
  // Cross-page (validatePageSet)
  missingPage: 'page.missing-page',
  duplicatePage: 'page.duplicate-page',
  unknownErrorCode: 'page.unknown-error-code',
  unknownFid: 'page.unknown-fid',
  sourceTestNotFound: 'page.source-test-not-found',
} as const;

export type PageCode = (typeof PageCodes)[keyof typeof PageCodes];

export function diag(range: Range, severity: Severity, code: PageCode, message: string, data?: unknown): Diagnostic {
  const d: Diagnostic = { range, severity, code, message, source: PAGES_SOURCE };
  if (data !== undefined) d.data = data;
  return d;
}

/** Collects diagnostics and remembers first occurrences for duplicate checks. */
export class Reporter {
  readonly diagnostics: Diagnostic[] = [];

  error(range: Range, code: PageCode, message: string, data?: unknown): void {
    this.diagnostics.push(diag(range, 'error', code, message, data));
  }

  warning(range: Range, code: PageCode, message: string, data?: unknown): void {
    this.diagnostics.push(diag(range, 'warning', code, message, data));
  }
}

/** Tracks ids seen on a page; `seen` returns the first occurrence's range when the id repeats. */
export class IdRegistry {
  private readonly first = new Map<string, Range>();

  seen(id: string, range: Range): Range | null {
    const prior = this.first.get(id);
    if (prior) return prior;
    this.first.set(id, range);
    return null;
  }
}

/** 1-based line for messages. */
export function lineOf(range: Range): number {
  return range.start.line + 1;
}
