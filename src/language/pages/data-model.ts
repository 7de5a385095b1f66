// 03-data-model: per entity (a heading each) a table of field, type, constraints; under a
// `Relationships` heading, bullets (or a table) where every relationship states a cardinality.

import type { Diagnostic } from '../../core/diagnostics';
import { matchColumns, normalizeHeader, type ColumnSpec } from './columns';
import { IdRegistry, lineOf, PageCodes, Reporter } from './diag';
import {
  cellAt,
  firstLineRange,
  itemLeadText,
  listsOf,
  pageAnchor,
  ParsedDoc,
  tablesOf,
  titleOf,
  type HeadingInfo,
  type TableInfo,
} from './markdown';
import type { DataModelModel, Entity, Relationship } from './model';

export const ENTITY_COLUMNS: readonly ColumnSpec[] = [
  {
    key: 'field',
    label: 'Field',
    aliases: ['field', 'fields', 'name', 'field name', 'column', 'column name', 'attribute', 'property', 'key'],
  },
  { key: 'type', label: 'Type', aliases: ['type', 'data type', 'datatype', 'field type', 'kind'] },
  {
    key: 'constraints',
    label: 'Constraints',
    aliases: [
      'constraints',
      'constraint',
      'rules',
      'validation',
      'validations',
      'restrictions',
      'constraints and notes',
    ],
  },
];

const CARDINALITY = new RegExp(
  [
    String.raw`(?<![\w.])(?:[01nm*]|\d+)\s*:\s*(?:[01nm*]|\d+)(?![\w.])`,
    String.raw`(?<![\w.])(?:\d+|[nm*])\s*\.\.\s*(?:\d+|[nm*])(?![\w.])`,
    String.raw`\b(?:one|many|zero)[- ]to[- ](?:one|many)\b`,
    String.raw`\b(?:zero|one)[- ]or[- ](?:one|more|many)\b`,
  ].join('|'),
  'i',
);

/** The cardinality stated in a relationship's text, or null. */
export function findCardinality(text: string): { value: string; index: number } | null {
  const m = CARDINALITY.exec(text);
  return m ? { value: m[0], index: m.index } : null;
}

function ends(text: string, card: { value: string; index: number } | null): { from: string | null; to: string | null } {
  if (!card) return { from: null, to: null };
  const clean = (s: string): string | null => {
    const t = s.replace(/^[\s:,;—–-]+|[\s:,;—–-]+$/g, '').trim();
    return t.length > 0 ? t : null;
  };
  const before = text.slice(0, card.index);
  const after = text.slice(card.index + card.value.length);
  if (clean(after)) return { from: clean(before), to: clean(after.split(/[(,;]/)[0]) };
  const pair = before.split(/\s+[—–-]+\s+|\s*->\s*|\s*→\s*|\s+to\s+/);
  return pair.length >= 2 ? { from: clean(pair[0]), to: clean(pair[1]) } : { from: clean(before), to: null };
}

function isRelationshipsHeading(h: HeadingInfo | null): boolean {
  return h !== null && /^relationships?\b/.test(normalizeHeader(h.text));
}

/** The page title: the first heading, when it is the only `#` heading. */
function pageTitle(doc: ParsedDoc): HeadingInfo | null {
  const first = doc.headings[0];
  return first && first.depth === 1 && doc.headings.filter((h) => h.depth === 1).length === 1 ? first : null;
}

export function analyze03(doc: ParsedDoc, filePath: string): { model: DataModelModel; diagnostics: Diagnostic[] } {
  const report = new Reporter();
  const tables = tablesOf(doc);
  const title = pageTitle(doc);
  const entities: Entity[] = [];
  const byHeading = new Map<HeadingInfo, Entity>();
  const relationships: Relationship[] = [];
  const entityNames = new IdRegistry();

  const addRelationship = (text: string, range: Relationship['range'], cardText: string = text): void => {
    const card = findCardinality(cardText);
    const { from, to } = ends(text, card && cardText === text ? card : null);
    relationships.push({ text, cardinality: card?.value ?? null, from, to, range });
    if (!card) {
      report.error(
        range,
        PageCodes.missingCardinality,
        'This relationship states no cardinality (1:1, 1:N, N:M, 0..1, 1..*, one-to-many ...).',
      );
    }
  };

  for (const table of tables) {
    if (isRelationshipsHeading(table.section)) {
      relationshipRows(table, addRelationship);
      continue;
    }
    if (table.section === null || table.section === title) {
      report.error(
        table.header.range,
        PageCodes.missingEntityHeading,
        'This table has no entity heading: put a heading naming the entity directly over it.',
      );
      continue;
    }
    let entity = byHeading.get(table.section);
    if (!entity) {
      const h = table.section;
      entity = { name: h.text, range: h.range, selectionRange: h.selectionRange, fields: [], tableRange: table.range };
      byHeading.set(h, entity);
      entities.push(entity);
      const prior = entityNames.seen(h.text.toLowerCase(), h.range);
      if (prior)
        report.warning(
          h.selectionRange,
          PageCodes.duplicateEntity,
          `Entity "${h.text}" is already described on line ${lineOf(prior)}.`,
        );
    }
    readEntityTable(table, entity, report);
  }

  if (entities.length === 0 && !tables.some((t) => !isRelationshipsHeading(t.section))) {
    report.error(
      pageAnchor(doc),
      PageCodes.noTable,
      'The data model describes no entity: add a heading per entity with a table of field, type, constraints.',
    );
  }

  const relHeading = doc.headings.find((h) => isRelationshipsHeading(h)) ?? null;
  for (const { list, section } of listsOf(doc)) {
    if (!isRelationshipsHeading(section)) continue;
    for (const item of list.children) {
      const text = itemLeadText(item);
      if (text.length > 0) addRelationship(text, firstLineRange(doc, item));
    }
  }
  if (entities.length >= 2) {
    if (!relHeading) {
      report.error(
        pageAnchor(doc),
        PageCodes.missingSection,
        'The data model has no "Relationships" section listing how its entities relate, with cardinality.',
      );
    } else if (relationships.length === 0) {
      report.warning(relHeading.range, PageCodes.emptySection, 'The "Relationships" section lists no relationship.');
    }
  }

  const model: DataModelModel = {
    kind: '03-data-model',
    filePath,
    text: doc.text,
    title: titleOf(doc),
    headings: doc.headings,
    tables,
    entities,
    relationships,
    relationshipsHeading: relHeading,
  };
  return { model, diagnostics: report.diagnostics };
}

function readEntityTable(table: TableInfo, entity: Entity, report: Reporter): void {
  const match = matchColumns(table.columns, ENTITY_COLUMNS);
  for (const spec of match.missing) {
    report.error(
      table.header.range,
      PageCodes.missingColumn,
      `The table of "${entity.name}" has no "${spec.label}" column.`,
      { column: spec.key, label: spec.label },
    );
  }
  const ix = match.index;
  const fieldNames = new IdRegistry();
  for (const row of table.rows) {
    const name = cellAt(row, ix.field);
    const type = cellAt(row, ix.type);
    const constraints = cellAt(row, ix.constraints);
    entity.fields.push({
      name: name.text,
      type: type.text,
      constraints: constraints.text,
      range: row.range,
      nameRange: name.range,
    });
    if (ix.field !== undefined) {
      if (name.text.length === 0)
        report.error(name.range, PageCodes.emptyCell, `A field of "${entity.name}" has no name.`);
      else {
        const prior = fieldNames.seen(name.text, name.range);
        if (prior)
          report.warning(
            name.range,
            PageCodes.duplicateField,
            `"${entity.name}.${name.text}" is already listed on line ${lineOf(prior)}.`,
          );
      }
    }
    if (ix.type !== undefined && type.text.length === 0) {
      report.error(type.range, PageCodes.emptyCell, `Field "${name.text}" of "${entity.name}" has no type.`);
    }
    if (ix.constraints !== undefined && constraints.text.length === 0) {
      report.warning(
        constraints.range,
        PageCodes.emptyCell,
        `Field "${name.text}" of "${entity.name}" has blank constraints: write "none" when there are none.`,
      );
    }
  }
}

/** A relationships table: each row is a relationship; the cardinality may be in any cell. */
function relationshipRows(
  table: TableInfo,
  add: (text: string, range: Relationship['range'], cardText?: string) => void,
): void {
  for (const row of table.rows) {
    const text = row.cells
      .map((c) => c.text)
      .filter((t) => t.length > 0)
      .join(' — ');
    if (text.length > 0) add(text, row.range, row.cells.map((c) => c.text).join(' | '));
  }
}
