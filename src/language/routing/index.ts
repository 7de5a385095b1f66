// Routing tables: the pure core shared by the language server and `session-ops validate`.
export {
  RoutingAnalyzer,
  validateRouting,
  chunkAt,
  type RoutingAnalysis,
  type AnalyzedChunk,
  type AnalysisStats,
  type AnalyzerOptions,
} from './analyzer';
export {
  claimsRouting,
  isRoutingFileName,
  pointsAtRoutingSchema,
  matchesGlob,
  globToRegExp,
  DEFAULT_ROUTING_GLOBS,
} from './associate';
export {
  complete,
  hover,
  quickFixes,
  documentSymbols,
  routeKeysOf,
  routeKeyRanges,
  type RouteKeyRange,
  type CompletionEntry,
  type HoverResult,
  type QuickFix,
  type SymbolEntry,
  type SymbolKindName,
} from './features';
export {
  routingSchema,
  SCHEMA_ID,
  SCHEMA_FILE_NAME,
  validators,
  STAGES,
  RETIRED_STAGES,
  SKILLS,
  LEGACY_SKILLS,
  MODES,
  EFFORTS,
  DIMENSIONS,
  OVERSIZE_SIGNAL_IDS,
  PARENT_KINDS,
} from './schema';
export { SOURCE as ROUTING_SOURCE, type RoutingDiagnosticData, type FixData } from './types';
export { applyCap, itemsToDrop, compareCycleIds, type CapItem } from './cap';
export {
  resolveRoute,
  resolveTable,
  resolveRouteBlock,
  matchRoute,
  maxItemsOf,
  variantFor,
  type Resolution,
  type EffectiveRoute,
  type ResolvedRoute,
  type ResolvedDag,
  type ResolvedEntry,
  type ResolvedPreflightItem,
  type ResolveOptions,
  type VariantSource,
} from './resolve';
export { effectiveRouteLines, routeBlockLines, effortText, entryText, preflightLines } from './describe';
