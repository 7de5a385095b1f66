// Table header matching: case-insensitive, tolerant of spacing around slashes, underscores and
// hyphens, and of the obvious synonyms ("Method / Endpoint", "Endpoint", "HTTP Status", "Status").

import type { Range } from '../../core/diagnostics';
import { PageCodes, type Reporter } from './diag';
import type { TableInfo } from './markdown';

export interface ColumnSpec {
  /** Key used by the page modules. */
  key: string;
  /** Name used in messages, as the spec writes it. */
  label: string;
  /** Normalized header texts that name this column (see normalizeHeader). */
  aliases: readonly string[];
  /** Optional columns never produce page.missing-column. */
  optional?: boolean;
  /** Key of another spec whose column stands in for this one when this one is absent (a lone `Method` column for the endpoint). */
  standIn?: string;
}

/** Lowercase, markup and punctuation noise removed, single spaces, no spaces around '/'. */
export function normalizeHeader(s: string): string {
  return s
    .toLowerCase()
    .replace(/[*_`]/g, ' ')
    .replace(/[-–—]/g, ' ')
    .replace(/\(s\)/g, 's')
    .replace(/[():.?]/g, ' ')
    .replace(/\s*\/\s*/g, '/')
    .replace(/\s+/g, ' ')
    .trim();
}

export interface ColumnMatch {
  /** Column index per spec key, for the columns found. */
  index: Record<string, number>;
  /** Required specs with no matching header. */
  missing: ColumnSpec[];
  /** How many specs matched (a table qualifies as the page's table with two or more). */
  matched: number;
}

export function matchColumns(headers: readonly string[], specs: readonly ColumnSpec[]): ColumnMatch {
  const norm = headers.map(normalizeHeader);
  const index: Record<string, number> = {};
  const taken = new Set<number>();
  // Pass 1: a header as a whole; pass 2: one of its slash-separated parts ("Constraints / Notes").
  for (const pass of [1, 2]) {
    for (const spec of specs) {
      if (spec.key in index) continue;
      for (let i = 0; i < norm.length; i++) {
        if (taken.has(i)) continue;
        const candidates = pass === 1 ? [norm[i]] : norm[i].split('/').map((p) => p.trim());
        if (candidates.some((c) => spec.aliases.includes(c))) {
          index[spec.key] = i;
          taken.add(i);
          break;
        }
      }
    }
  }
  const missing = specs.filter(
    (s) => !s.optional && !(s.key in index) && !(s.standIn !== undefined && s.standIn in index),
  );
  return { index, missing, matched: Object.keys(index).length };
}

/**
 * The page's main tables: those matching at least two of the specs. When none qualifies, the
 * first table stands in (so its header gets the missing-column errors); none when there is no table.
 */
export function pickTables(
  tables: readonly TableInfo[],
  specs: readonly ColumnSpec[],
): { table: TableInfo; match: ColumnMatch }[] {
  const scored = tables.map((table) => ({ table, match: matchColumns(table.columns, specs) }));
  const qualifying = scored.filter((s) => s.match.matched >= 2);
  if (qualifying.length > 0) return qualifying;
  return scored.length > 0 ? [scored[0]] : [];
}

/**
 * Picks the page's main tables and reports what is wrong with their headers: page.no-table
 * (at the title) when the page has no table at all, one page.missing-column per missing required
 * column on the header row.
 */
export function requireTables(
  tables: readonly TableInfo[],
  specs: readonly ColumnSpec[],
  report: Reporter,
  anchor: Range,
  what: string,
): { table: TableInfo; match: ColumnMatch }[] {
  const picked = pickTables(tables, specs);
  if (picked.length === 0) {
    const cols = specs
      .filter((s) => !s.optional)
      .map((s) => s.label)
      .join(', ');
    report.error(anchor, PageCodes.noTable, `The page has no ${what} table (columns: ${cols}).`);
  }
  for (const { table, match } of picked) {
    for (const spec of match.missing) {
      report.error(table.header.range, PageCodes.missingColumn, `The ${what} table has no "${spec.label}" column.`, {
        column: spec.key,
        label: spec.label,
      });
    }
  }
  return picked;
}
