// The source-analysis page document kind: the pure core (src/language/pages) behind the DocumentKind
// shape. A document session gives the single-page diagnostics, hover and go-to-definition on ids
// (with the other pages of the set as `related`) and document symbols; the kind's `groups` run the
// cross-page checks of a page set (the pages of one source-analysis folder). No LSP runtime
// imports here (the CLI bundles this file too).
import { basename } from 'node:path';
import type { Diagnostic, Range } from '../../src/core/diagnostics';
import {
  checkPage,
  definitionAt,
  documentSymbols,
  hoverAt,
  LSP_SYMBOL_KIND,
  PAGE_KINDS,
  pageFolderOf,
  pageKindOf,
  PAGES_SOURCE,
  SOURCE_ANALYSIS_FOLDER,
  validatePage,
  validatePageSet,
  type PageKind,
  type PageSymbol,
} from '../../src/language/pages';
import { markdownTopHeading, topLevelOutline } from '../../src/core/document-size';
import type { DocumentGroups, DocumentKind, DocumentSession, FeatureEnv, GroupSettings, ServerSymbol } from './types';

function toSymbol(s: PageSymbol): ServerSymbol {
  return {
    name: s.name,
    ...(s.detail ? { detail: s.detail } : {}),
    kind: LSP_SYMBOL_KIND[s.kind],
    range: s.range,
    selectionRange: s.selectionRange,
    ...(s.children.length ? { children: s.children.map(toSymbol) } : {}),
  };
}

class PageSession implements DocumentSession {
  constructor(private readonly filePath: string) {}

  validate(text: string): Diagnostic[] {
    return validatePage(text, this.filePath);
  }

  hover(text: string, pos: Range['start'], env: FeatureEnv) {
    const h = hoverAt(text, this.filePath, pos, env.related);
    return h ? { markdown: h.contents, range: h.range } : undefined;
  }

  definition(text: string, pos: Range['start'], env: FeatureEnv) {
    return definitionAt(text, this.filePath, pos, env.related) ?? undefined;
  }

  symbols(text: string): ServerSymbol[] {
    const model = checkPage(text, this.filePath)?.model;
    return model ? documentSymbols(model).map(toSymbol) : [];
  }

  outline(text: string): ServerSymbol[] {
    return topLevelOutline(text, markdownTopHeading).map((e) => ({ ...e, kind: LSP_SYMBOL_KIND.heading }));
  }
}

/** Page order of a path's kind (for choosing the anchor page of folder-level diagnostics). */
function rank(filePath: string): number {
  const kind = pageKindOf(filePath);
  if (kind === '10-fidelity-baseline') return -1;
  return kind ? PAGE_KINDS.indexOf(kind as PageKind) : PAGE_KINDS.length;
}

/**
 * The page that carries a folder's folder-level diagnostics (a missing page): its
 * 10-fidelity-baseline (the master inventory) when that is among `reported`, else the first of
 * `reported` in page order. Null when none of the folder's pages is reported.
 */
export function anchorPage(folder: string, reported: Iterable<string>): string | null {
  let best: string | null = null;
  for (const p of reported) {
    if (pageFolderOf(p) !== folder || !pageKindOf(p)) continue;
    if (best === null || rank(p) < rank(best) || (rank(p) === rank(best) && p < best)) best = p;
  }
  return best;
}

function firstLine(text: string): Range {
  // LSP ends a line at CR, LF or CRLF: a lone-CR page's first line stops at its first CR.
  const nl = text.search(/[\r\n]/);
  const end = nl < 0 ? text.length : nl;
  return { start: { line: 0, character: 0 }, end: { line: 0, character: end } };
}

/**
 * Cross-page diagnostics of the page sets among `files` (texts by path), for the `reported`
 * paths (default: all). Folder-level diagnostics go on each folder's anchor page (see
 * anchorPage), at its first line.
 */
export function checkPageSets(
  files: ReadonlyMap<string, string>,
  settings: GroupSettings,
  reported?: ReadonlySet<string>,
): Map<string, Diagnostic[]> {
  const sourceRoot = settings.pagesSourceRoot || undefined;
  const all = validatePageSet(files, sourceRoot ? { sourceRoot } : {});
  const out = new Map<string, Diagnostic[]>();
  const wanted = (p: string) => files.has(p) && (!reported || reported.has(p));
  for (const [key, diags] of all) if (wanted(key)) out.set(key, [...diags]);
  for (const [key, diags] of all) {
    if (files.has(key) || diags.length === 0) continue; // a folder key
    const anchor = anchorPage(key, [...files.keys()].filter(wanted));
    if (!anchor) continue;
    const at = firstLine(files.get(anchor) ?? '');
    out.get(anchor)?.push(...diags.map((d) => ({ ...d, range: at })));
  }
  return out;
}

const pageGroups: DocumentGroups = {
  folderName: SOURCE_ANALYSIS_FOLDER,
  folderOf: (filePath) => (pageKindOf(filePath) ? pageFolderOf(filePath) : null),
  isGroupFolder: (folderPath) => basename(folderPath).toLowerCase() === SOURCE_ANALYSIS_FOLDER,
  member: (filePath) => pageKindOf(filePath) !== null,
  check: checkPageSets,
};

export const pageKind: DocumentKind = {
  id: 'page',
  title: 'source-analysis page',
  source: PAGES_SOURCE,
  claims: (filePath) => pageKindOf(filePath) !== null,
  candidate: (filePath) => pageKindOf(filePath) !== null,
  groups: pageGroups,
  open: (filePath) => new PageSession(filePath),
};
