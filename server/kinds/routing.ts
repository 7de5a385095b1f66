// The routing-table document kind: the pure core (src/language/routing) behind the DocumentKind shape.
import {
  RoutingAnalyzer,
  type RoutingAnalysis,
  claimsRouting,
  complete,
  documentSymbols,
  hover,
  isRoutingFileName,
  pointsAtRoutingSchema,
  quickFixes,
  routeKeysOf,
  routeKeyRanges,
  ROUTING_SOURCE,
} from '../../src/language/routing';
import { topLevelOutline, yamlTopLevelKey } from '../../src/core/document-size';
import type { DocumentKind, DocumentSession, ServerSymbol } from './types';

const ROUTE_KEY_RE = /^[ \t]+(["']?)(Kind\/[^\s:'"#]+)\1[ \t]*:/gm;

/** The Kind/* route keys a routing table's text defines (a quick scan, for files not open). */
export function routeKeysInText(text: string): string[] {
  const keys: string[] = [];
  ROUTE_KEY_RE.lastIndex = 0;
  for (let m = ROUTE_KEY_RE.exec(text); m; m = ROUTE_KEY_RE.exec(text)) keys.push(m[2]);
  return keys;
}

class RoutingSession implements DocumentSession {
  private readonly analyzer = new RoutingAnalyzer();

  /** The outline of the latest analysis (symbols are asked for again on every edit and refocus). */
  private outlineOf: { analysis: RoutingAnalysis; symbols: ServerSymbol[] } | undefined;

  private current(text: string) {
    return this.analyzer.analyze(text);
  }

  prepare(text: string) {
    return this.analyzer.steps(text);
  }

  *validate(text: string) {
    const analysis = yield* this.analyzer.steps(text);
    return analysis.diagnostics;
  }

  completion(
    text: string,
    pos: Parameters<typeof complete>[2],
    env: { routeKeys: readonly string[]; schemaFeatures: boolean },
  ) {
    const a = this.current(text);
    return complete(text, a.lineStarts, pos, env.routeKeys, env.schemaFeatures);
  }

  hover(text: string, pos: Parameters<typeof hover>[1], env: { schemaFeatures: boolean }) {
    // next to another YAML server only the effective route of a route key (the schema's hover is its)
    return hover(this.current(text), pos, { schema: env.schemaFeatures });
  }

  quickFixes(text: string, range: Parameters<typeof quickFixes>[1]) {
    return quickFixes(this.current(text), range);
  }

  symbols(text: string) {
    const analysis = this.current(text);
    if (this.outlineOf?.analysis !== analysis) this.outlineOf = { analysis, symbols: documentSymbols(analysis) };
    return this.outlineOf.symbols;
  }

  outline(text: string): ServerSymbol[] {
    return topLevelOutline(text, yamlTopLevelKey).map((e) => ({ ...e, kind: 'property' as const }));
  }

  routeLenses(text: string) {
    return routeKeyRanges(this.current(text));
  }

  routeKeys() {
    const a = this.analyzer.latest;
    return a ? routeKeysOf(a) : [];
  }

  stats() {
    return this.analyzer.latest?.stats;
  }
}

export const routingKind: DocumentKind = {
  id: 'routing',
  title: 'routing table',
  source: ROUTING_SOURCE,
  claims: (filePath, text, settings) => claimsRouting(filePath, text, settings.extraGlobs, settings.roots),
  candidate: (filePath, settings) =>
    isRoutingFileName(filePath, settings.extraGlobs, settings.roots) || /\.ya?ml$/i.test(filePath),
  fallbackFor: (filePath) => /\.ya?ml$/i.test(filePath),
  routeKeysIn: routeKeysInText,
  overlapWithYamlServer: (filePath, text) => {
    // Red Hat's server applies our schema to the yamlValidation names (but not under a dot-folder:
    // its glob matching skips them, checked with yaml-language-server 2.0.0) and to $schema
    // pointers; not to files matched only by sessionOps.routing.extraGlobs. It reports YAML syntax
    // errors for every YAML file.
    const byName = isRoutingFileName(filePath) && !/[\\/]\.[^\\/]+[\\/]/.test(filePath);
    const associated = byName || pointsAtRoutingSchema(text);
    return {
      reports: (code) => code.startsWith('yaml.') || (associated && code.startsWith('schema.')),
      schemaFeatures: associated,
    };
  },
  open: () => new RoutingSession(),
};
