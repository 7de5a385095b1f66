// Source-analysis pages (the porting document set): page kinds, single-page validation, the
// parsed model with positions, cross-page checks, hover/definition, document symbols and the Port
// analysis view's data. Pure: no 'vscode' here; the language server and the CLI adapt it.

import type { Diagnostic } from '../../core/diagnostics';
import { checkPage } from './analyze';
import type { PageKind } from './kinds';
import type { PageModel } from './model';

export { checkPage, type PageCheck } from './analyze';
export { PAGE_KINDS, PAGE_TITLES, SOURCE_ANALYSIS_FOLDER, pageFolderOf, pageKindOf, type PageKind } from './kinds';
export { PAGES_SOURCE, PageCodes, type PageCode } from './diag';
export {
  groupPageSet,
  sourceTestPath,
  validateAllPages,
  validatePageSet,
  type PageFolder,
  type PageSetOptions,
} from './crossPage';
export {
  definitionAt,
  findSiblingModel,
  hoverAt,
  idAt,
  type PageDefinition,
  type PageHover,
  type SiblingPages,
} from './hover';
export { documentSymbols, LSP_SYMBOL_KIND, type PageSymbol, type PageSymbolKind } from './symbols';
export {
  portAnalysis,
  type ChunkSummary,
  type FidelitySummary,
  type FidSummary,
  type PageSummary,
  type PortAnalysis,
  type PortFolderAnalysis,
} from './portAnalysis';
export { BEHAVIOR_TYPES } from './fidelity-baseline';
export type * from './model';

/**
 * Single-page diagnostics (source "session-ops.pages"). [] when the path is not a source-analysis
 * page and no kind is given. Cross-page checks are in validatePageSet.
 */
export function validatePage(text: string, filePath: string, kind?: PageKind): Diagnostic[] {
  return checkPage(text, filePath, kind ?? undefined)?.diagnostics ?? [];
}

/** The parsed model of a page, or null when the path is not a source-analysis page and no kind is given. */
export function analyzePage(text: string, filePath: string, kind?: PageKind): PageModel | null {
  return checkPage(text, filePath, kind ?? undefined)?.model ?? null;
}
