// Document symbols of a page: the heading outline, with tables and the page kind's items (fields,
// endpoints, entities and their fields, relationships, rules, edge cases, error codes, FIDs,
// chunks) nested in the heading or table that contains them.

import type { Position, Range } from '../../core/diagnostics';
import { LineIndex } from './markdown';
import type { PageModel } from './model';

export type PageSymbolKind =
  | 'heading'
  | 'table'
  | 'field'
  | 'module'
  | 'endpoint'
  | 'entity'
  | 'entity-field'
  | 'relationship'
  | 'feature'
  | 'rule'
  | 'edge-case'
  | 'error-code'
  | 'fid'
  | 'chunk';

export interface PageSymbol {
  name: string;
  detail?: string;
  kind: PageSymbolKind;
  range: Range;
  /** Contained in `range`. */
  selectionRange: Range;
  children: PageSymbol[];
}

/** LSP SymbolKind numbers for each symbol kind (for the language server's mapping). */
export const LSP_SYMBOL_KIND: Readonly<Record<PageSymbolKind, number>> = {
  heading: 15, // String (markdown outline convention)
  table: 18, // Array
  field: 20, // Key
  module: 2, // Module
  endpoint: 6, // Method
  entity: 5, // Class
  'entity-field': 8, // Field
  relationship: 25, // Operator
  feature: 3, // Namespace
  rule: 12, // Function
  'edge-case': 24, // Event
  'error-code': 14, // Constant
  fid: 22, // EnumMember
  chunk: 4, // Package
};

function before(a: Position, b: Position): boolean {
  return a.line < b.line || (a.line === b.line && a.character < b.character);
}

function contains(r: Range, p: Position): boolean {
  return !before(p, r.start) && before(p, r.end);
}

function clip(s: string, max = 80): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

/** The page kind's items, flat. */
function items(model: PageModel): PageSymbol[] {
  const sym = (
    name: string,
    kind: PageSymbolKind,
    range: Range,
    selectionRange: Range = range,
    detail?: string,
  ): PageSymbol => {
    const s: PageSymbol = { name: name || '(blank)', kind, range, selectionRange, children: [] };
    if (detail) s.detail = clip(detail);
    return s;
  };
  switch (model.kind) {
    case '01-source-overview':
      return [
        ...model.fields.map((f) => sym(f.label, 'field', f.range, f.range, f.value)),
        ...model.modules.map((m) => sym(m.text, 'module', m.range)),
      ];
    case '02-public-api':
      return model.endpoints.map((e) =>
        sym(e.endpoint, 'endpoint', e.range, e.endpointRange, e.errorsText ? `errors: ${e.errorsText}` : undefined),
      );
    case '03-data-model':
      return [
        ...model.entities.flatMap((en) =>
          en.fields.map((f) => sym(f.name, 'entity-field', f.range, f.nameRange, f.type)),
        ),
        ...model.relationships.map((r) => sym(r.text, 'relationship', r.range, r.range, r.cardinality ?? undefined)),
      ];
    case '04-business-logic':
      return [
        ...model.rules.map((r) => sym(r.id, 'rule', r.range, r.idRange, r.text)),
        ...model.edgeCases.map((e) => sym(e.text, 'edge-case', e.range)),
      ];
    case '05-error-handling':
      return model.errors.map((e) =>
        sym(e.code, 'error-code', e.range, e.codeRange, [e.statusText, e.message].filter(Boolean).join(' ')),
      );
    case '10-fidelity-baseline':
      return [
        ...model.rows.map((r) =>
          sym(r.fid, 'fid', r.range, r.fidRange, [r.type, r.chunk, r.behavior].filter(Boolean).join(' · ')),
        ),
        ...(model.declaredChunks ?? []).map((c) => sym(c.name, 'chunk', c.range)),
      ];
  }
}

export function documentSymbols(model: PageModel): PageSymbol[] {
  const lines = new LineIndex(model.text);
  const docEnd = lines.position(model.text.length);
  const entityHeadings =
    model.kind === '03-data-model' ? new Set(model.entities.map((e) => e.range.start.line)) : new Set<number>();
  const featureHeadings =
    model.kind === '04-business-logic' ? new Set(model.features.map((f) => f.range.start.line)) : new Set<number>();

  // Headings span their section: up to the next heading of the same or higher rank.
  const roots: PageSymbol[] = [];
  const stack: { depth: number; symbol: PageSymbol }[] = [];
  const hs = model.headings;
  hs.forEach((h, i) => {
    const next = hs.slice(i + 1).find((n) => n.depth <= h.depth);
    const end = next ? { line: next.range.start.line, character: 0 } : docEnd;
    const line = h.range.start.line;
    const kind: PageSymbolKind = entityHeadings.has(line)
      ? 'entity'
      : featureHeadings.has(line)
        ? 'feature'
        : 'heading';
    const symbol: PageSymbol = {
      name: h.text || '(untitled)',
      kind,
      range: { start: h.range.start, end },
      selectionRange: h.selectionRange,
      children: [],
    };
    while (stack.length > 0 && stack[stack.length - 1].depth >= h.depth) stack.pop();
    (stack.length > 0 ? stack[stack.length - 1].symbol.children : roots).push(symbol);
    stack.push({ depth: h.depth, symbol });
  });

  const containers: readonly PageSymbolKind[] = ['heading', 'entity', 'feature', 'table'];
  const place = (symbol: PageSymbol, into: PageSymbol[]): void => {
    const host = into.find((c) => containers.includes(c.kind) && contains(c.range, symbol.selectionRange.start));
    if (host) place(symbol, host.children);
    else into.push(symbol);
  };

  for (const t of model.tables) {
    const name = `Table: ${clip(t.columns.join(' | '), 60)}`;
    place({ name, kind: 'table', range: t.range, selectionRange: t.header.range, children: [] }, roots);
  }
  for (const item of items(model)) place(item, roots);

  const sort = (list: PageSymbol[]): void => {
    list.sort((a, b) => (before(a.range.start, b.range.start) ? -1 : before(b.range.start, a.range.start) ? 1 : 0));
    list.forEach((s) => sort(s.children));
  };
  sort(roots);
  return roots;
}
