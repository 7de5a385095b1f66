// 10-fidelity-baseline: the master inventory table of ID (FID-<nnn>, unique), behavior, type
// (happy path, error path, edge case), source test, chunk. Every FID maps to exactly one chunk.
// An optional `Chunks` section (bullets or a table) declares the chunks; a declared chunk with
// no FID is reported.

import type { Diagnostic } from '../../core/diagnostics';
import { normalizeHeader, requireTables, type ColumnSpec } from './columns';
import { IdRegistry, lineOf, PageCodes, Reporter } from './diag';
import { FID_RE } from './id-formats';
import {
  cellAt,
  firstLineRange,
  isPlaceholder,
  itemLeadText,
  listsOf,
  pageAnchor,
  ParsedDoc,
  tablesOf,
  titleOf,
  type HeadingInfo,
} from './markdown';
import type { BehaviorType, ChunkDeclaration, FidelityModel, FidRow } from './model';

export const INVENTORY_COLUMNS: readonly ColumnSpec[] = [
  {
    key: 'id',
    label: 'ID',
    aliases: ['id', 'fid', 'fids', 'fid id', 'behavior id', 'behaviour id', 'feature id', 'item id'],
  },
  {
    key: 'behavior',
    label: 'Behavior',
    aliases: [
      'behavior',
      'behaviour',
      'behaviors',
      'behaviours',
      'description',
      'behavior description',
      'behaviour description',
      'expected behavior',
    ],
  },
  {
    key: 'type',
    label: 'Type',
    aliases: ['type', 'kind', 'category', 'behavior type', 'behaviour type', 'path type', 'case type'],
  },
  {
    key: 'sourceTest',
    label: 'Source test',
    aliases: [
      'source test',
      'source tests',
      'test',
      'tests',
      'original test',
      'source test path',
      'test reference',
      'test ref',
      'source test reference',
    ],
  },
  { key: 'chunk', label: 'Chunk', aliases: ['chunk', 'chunks', 'chunk id', 'chunk name', 'port chunk'] },
];

export const BEHAVIOR_TYPES: readonly BehaviorType[] = ['happy path', 'error path', 'edge case'];

export function normalizeBehaviorType(text: string): BehaviorType | null {
  const t = text.toLowerCase().replace(/[-_]/g, ' ').replace(/\s+/g, ' ').trim();
  return (BEHAVIOR_TYPES as readonly string[]).includes(t) ? (t as BehaviorType) : null;
}

/** The chunk names of a chunk cell (comma- or semicolon-separated; placeholders dropped). */
export function chunkNames(text: string): string[] {
  return text
    .split(/[,;]/)
    .map((p) => p.trim())
    .filter((p) => !isPlaceholder(p));
}

function isChunksHeading(h: HeadingInfo | null): boolean {
  return h !== null && /^chunks?\b/.test(normalizeHeader(h.text));
}

/** "auth-core: login and tokens" → "auth-core". */
function declaredName(text: string): string {
  return text.split(/:|\s[—–-]\s/)[0].trim();
}

export function analyze10(doc: ParsedDoc, filePath: string): { model: FidelityModel; diagnostics: Diagnostic[] } {
  const report = new Reporter();
  const tables = tablesOf(doc);
  const inventory = tables.filter((t) => !isChunksHeading(t.section));
  const picked = requireTables(inventory, INVENTORY_COLUMNS, report, pageAnchor(doc), 'master inventory');
  const rows: FidRow[] = [];
  const ids = new IdRegistry();

  for (const { table, match } of picked) {
    const ix = match.index;
    for (const row of table.rows) {
      const id = cellAt(row, ix.id);
      const behavior = cellAt(row, ix.behavior);
      const type = cellAt(row, ix.type);
      const test = cellAt(row, ix.sourceTest);
      const chunk = cellAt(row, ix.chunk);
      const names = chunkNames(chunk.text);
      const behaviorType = normalizeBehaviorType(type.text);
      rows.push({
        fid: id.text,
        behavior: behavior.text,
        type: type.text,
        behaviorType,
        sourceTest: test.text,
        sourceTestRange: test.range,
        chunk: chunk.text,
        chunkName: names.length === 1 ? names[0] : null,
        range: row.range,
        fidRange: ix.id !== undefined ? id.range : row.range,
        chunkRange: chunk.range,
      });
      const label = id.text || 'This row';
      if (ix.id !== undefined) {
        if (id.text.length === 0) report.error(id.range, PageCodes.emptyCell, 'This row has no FID.');
        else if (!FID_RE.test(id.text))
          report.error(
            id.range,
            PageCodes.invalidId,
            `"${id.text}" is not a FID: write FID-<nnn> (FID-, then three digits).`,
          );
        else {
          const prior = ids.seen(id.text, id.range);
          if (prior)
            report.error(id.range, PageCodes.duplicateId, `${id.text} is already defined on line ${lineOf(prior)}.`);
        }
      }
      if (ix.behavior !== undefined && behavior.text.length === 0)
        report.error(behavior.range, PageCodes.emptyCell, `${label} describes no behavior.`);
      if (ix.type !== undefined && behaviorType === null) {
        report.error(
          type.range,
          type.text.length === 0 ? PageCodes.emptyCell : PageCodes.invalidType,
          type.text.length === 0
            ? `${label} has no type (happy path, error path or edge case).`
            : `"${type.text}" is not a behavior type: use happy path, error path or edge case.`,
          { expected: BEHAVIOR_TYPES },
        );
      }
      if (ix.sourceTest !== undefined && test.text.length === 0) {
        report.warning(
          test.range,
          PageCodes.emptyCell,
          `${label} names no source test: write "none" when the source has no test for it.`,
        );
      }
      if (ix.chunk !== undefined) {
        if (names.length === 0)
          report.error(
            chunk.range,
            PageCodes.missingChunk,
            `${label} is in no chunk: every FID maps to exactly one chunk.`,
          );
        else if (names.length > 1) {
          report.error(
            chunk.range,
            PageCodes.multipleChunks,
            `${label} names ${names.length} chunks (${names.join(', ')}): every FID maps to exactly one chunk.`,
          );
        }
      }
    }
  }

  const declaredChunks = readDeclaredChunks(doc);
  if (declaredChunks) {
    const used = new Set(rows.map((r) => r.chunkName?.toLowerCase()).filter((n): n is string => !!n));
    const declared = new Set(declaredChunks.map((c) => c.name.toLowerCase()));
    for (const c of declaredChunks) {
      if (!used.has(c.name.toLowerCase()))
        report.warning(c.range, PageCodes.chunkWithoutFid, `Chunk "${c.name}" has no FID: no inventory row names it.`);
    }
    for (const r of rows) {
      if (r.chunkName && !declared.has(r.chunkName.toLowerCase())) {
        report.warning(
          r.chunkRange,
          PageCodes.undeclaredChunk,
          `Chunk "${r.chunkName}" is not listed in the "Chunks" section.`,
        );
      }
    }
  }

  const model: FidelityModel = {
    kind: '10-fidelity-baseline',
    filePath,
    text: doc.text,
    title: titleOf(doc),
    headings: doc.headings,
    tables,
    rows,
    declaredChunks,
  };
  return { model, diagnostics: report.diagnostics };
}

/** Chunks declared under a `Chunks` heading: bullets, or the first column of a table. Null when there is no such section. */
function readDeclaredChunks(doc: ParsedDoc): ChunkDeclaration[] | null {
  if (!doc.headings.some((h) => isChunksHeading(h))) return null;
  const out: ChunkDeclaration[] = [];
  for (const { list, section } of listsOf(doc)) {
    if (!isChunksHeading(section)) continue;
    for (const item of list.children) {
      const name = declaredName(itemLeadText(item));
      if (name.length > 0) out.push({ name, range: firstLineRange(doc, item) });
    }
  }
  for (const t of tablesOf(doc)) {
    if (!isChunksHeading(t.section)) continue;
    const col = Math.max(
      0,
      t.columns.findIndex((c) => /^(chunk|chunks|name|chunk name|chunk id|id)$/.test(normalizeHeader(c))),
    );
    for (const row of t.rows) {
      const cell = cellAt(row, col);
      if (cell.text.length > 0) out.push({ name: cell.text, range: cell.range });
    }
  }
  return out;
}
