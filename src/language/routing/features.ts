// Editor features over a routing table, as pure functions the language server adapts to LSP, one
// module each: completion (completion.ts), hover (hover.ts), quick fixes (quick-fixes.ts) and
// document symbols (document-symbols.ts). Positions are 0-based like LSP. Pure: never import 'vscode'.
export { complete, type CompletionEntry } from './completion';
export { hover, type HoverResult } from './hover';
export { quickFixes, type QuickFix } from './quick-fixes';
export {
  documentSymbols,
  routeKeyRanges,
  routeKeysOf,
  type RouteKeyRange,
  type SymbolEntry,
  type SymbolKindName,
} from './document-symbols';
