// Hover and go-to-definition for the ids of the page set: a FID shows its inventory row (10), an
// error code its row of 05, a rule id its rule in 04 — on any page of the set, so siblings are
// consulted when the id is defined on another page.

import type { Position, Range } from '../../core/diagnostics';
import { checkPage } from './analyze';
import { ANY_ID_SCAN, idKindOf, type IdKind } from './id-formats';
import { pageFolderOf, pageKindOf, type PageKind } from './kinds';
import { LineIndex } from './markdown';
import type { BusinessLogicModel, ErrorHandlingModel, FidelityModel, PageModel } from './model';

/** Other pages of the set: texts or already-analyzed models, keyed by file path. */
export type SiblingPages = ReadonlyMap<string, string | PageModel> | readonly PageModel[];

export interface PageHover {
  /** Markdown. */
  contents: string;
  /** The id under the cursor. */
  range: Range;
}

export interface PageDefinition {
  filePath: string;
  /** The id's cell or span on its defining page. */
  range: Range;
}

const TARGET: Readonly<Record<IdKind, PageKind>> = {
  fid: '10-fidelity-baseline',
  'error-code': '05-error-handling',
  rule: '04-business-logic',
};

/** The id under a position, if any. */
export function idAt(text: string, position: Position): { id: string; kind: IdKind; range: Range } | null {
  const lines = new LineIndex(text);
  if (position.line < 0 || position.line >= lines.lineCount) return null;
  const line = lines.lineText(position.line);
  for (const m of line.matchAll(ANY_ID_SCAN)) {
    const start = m.index ?? 0;
    const end = start + m[0].length;
    if (position.character < start || position.character > end) continue;
    const kind = idKindOf(m[0]);
    if (!kind) continue;
    return {
      id: m[0],
      kind,
      range: { start: { line: position.line, character: start }, end: { line: position.line, character: end } },
    };
  }
  return null;
}

function asModel(entry: string | PageModel, filePath: string): PageModel | null {
  return typeof entry === 'string' ? (checkPage(entry, filePath)?.model ?? null) : entry;
}

/** The page of `kind` for the set `filePath` belongs to: the page itself, else a sibling (same folder first). */
export function findSiblingModel(
  kind: PageKind,
  self: PageModel | null,
  filePath: string,
  siblings?: SiblingPages,
): PageModel | null {
  if (self?.kind === kind) return self;
  if (!siblings) return null;
  const folder = pageFolderOf(filePath);
  const candidates: { path: string; entry: string | PageModel }[] = Array.isArray(siblings)
    ? (siblings as readonly PageModel[]).map((m) => ({ path: m.filePath, entry: m }))
    : [...(siblings as ReadonlyMap<string, string | PageModel>)].map(([path, entry]) => ({ path, entry }));
  const ofKind = candidates.filter((c) => (typeof c.entry === 'string' ? pageKindOf(c.path) : c.entry.kind) === kind);
  const pick = ofKind.find((c) => pageFolderOf(c.path) === folder) ?? ofKind[0];
  return pick ? asModel(pick.entry, pick.path) : null;
}

function fence(code: string): string {
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(longest + 1);
  return `${f}\n${code}\n${f}`;
}

function lineNote(filePath: string, range: Range): string {
  const base = filePath.split(/[\\/]/).pop() ?? filePath;
  return `*${base}, line ${range.start.line + 1}*`;
}

function lookup(id: string, kind: IdKind, target: PageModel): { contents: string; definition: Range } | null {
  switch (kind) {
    case 'fid': {
      const row = (target as FidelityModel).rows.find((r) => r.fid === id);
      if (!row) return null;
      const head = [`**${row.fid}**`, row.type || null, row.chunk ? `chunk \`${row.chunk}\`` : null]
        .filter(Boolean)
        .join(' · ');
      const parts = [head, row.behavior || '*(no behavior)*'];
      if (row.sourceTest) parts.push(`Source test: \`${row.sourceTest}\``);
      parts.push(lineNote(target.filePath, row.range));
      return { contents: parts.join('\n\n'), definition: row.fidRange };
    }
    case 'error-code': {
      const row = (target as ErrorHandlingModel).errors.find((e) => e.code === id);
      if (!row) return null;
      const parts = [
        [`**${row.code}**`, row.statusText ? `HTTP ${row.statusText}` : null].filter(Boolean).join(' · '),
        row.message || '*(no message)*',
      ];
      if (row.condition) parts.push(`When: ${row.condition}`);
      parts.push(lineNote(target.filePath, row.range));
      return { contents: parts.join('\n\n'), definition: row.codeRange };
    }
    case 'rule': {
      const rule = (target as BusinessLogicModel).rules.find((r) => r.id === id);
      if (!rule) return null;
      const parts = [[`**${rule.id}**`, rule.feature].filter(Boolean).join(' · '), rule.text || '*(no text)*'];
      if (rule.assertion) parts.push(fence(rule.assertion));
      parts.push(lineNote(target.filePath, rule.range));
      return { contents: parts.join('\n\n'), definition: rule.idRange };
    }
  }
}

const MISSING: Readonly<Record<IdKind, string>> = {
  fid: 'is not in the fidelity baseline (10-fidelity-baseline).',
  'error-code': 'is not in the error table (05-error-handling).',
  rule: 'is not defined in the business logic (04-business-logic).',
};

/**
 * Hover for the id at `position`. `doc` is the page's text or its model; `siblings` are the
 * other pages of the set (needed when the id is defined on another page). Null when there is no
 * id there or its defining page is not available.
 */
export function hoverAt(
  doc: string | PageModel,
  filePath: string,
  position: Position,
  siblings?: SiblingPages,
): PageHover | null {
  const self = typeof doc === 'string' ? (checkPage(doc, filePath)?.model ?? null) : doc;
  const text = typeof doc === 'string' ? doc : doc.text;
  const at = idAt(text, position);
  if (!at) return null;
  const target = findSiblingModel(TARGET[at.kind], self, filePath, siblings);
  if (!target) return null;
  const found = lookup(at.id, at.kind, target);
  return { contents: found ? found.contents : `**${at.id}** ${MISSING[at.kind]}`, range: at.range };
}

/** Where the id at `position` is defined (its row on 10, 05 or 04), or null. */
export function definitionAt(
  doc: string | PageModel,
  filePath: string,
  position: Position,
  siblings?: SiblingPages,
): PageDefinition | null {
  const self = typeof doc === 'string' ? (checkPage(doc, filePath)?.model ?? null) : doc;
  const text = typeof doc === 'string' ? doc : doc.text;
  const at = idAt(text, position);
  if (!at) return null;
  const target = findSiblingModel(TARGET[at.kind], self, filePath, siblings);
  const found = target ? lookup(at.id, at.kind, target) : null;
  return found && target ? { filePath: target.filePath, range: found.definition } : null;
}
