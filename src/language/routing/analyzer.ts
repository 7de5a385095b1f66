// The routing-table analysis shared by the language server and `session-ops validate`:
// YAML syntax errors, schema errors (Ajv2020, compiled once) mapped to precise ranges, and the
// warnings the schema cannot express. A RoutingAnalyzer keeps the previous version's chunks, so
// re-analysing an edited document re-parses and re-validates only the chunks whose text changed.
// Pure: never import 'vscode'.
import type { Diagnostic } from '../../core/diagnostics';
import { checkDuplicateKeys, checkRoute, duplicateRouteDiag, overCapDiag, type PreflightInfo } from './checks';
import { splitSteps, type ChunkSpan, type Split } from './chunks';
import { MAX_DIAGNOSTICS, MAX_NESTING } from './limits';
import { lineEndAt, lineOf, normalizeLineEnds, rangeAt } from './lines';
import { mapSchemaErrors } from './messages';
import { parseTextSteps } from './parse';
import type { ParsedText } from './parsed-text';
import { diffTexts, resplit, type TextChange } from './resplit';
import { getPair, parsePointer, setProp, type PathSeg, type RMap, type RNode } from './rnode';
import { routingSchema, TOP_KEYS, validators, type ErrorObject } from './schema';
import { SOURCE, type RelDiag, type RoutingDiagnosticData } from './types';

export interface AnalyzedChunk {
  role: 'top' | 'route' | 'whole';
  /** Top-level key or route key ('' for a whole document). */
  name: string;
  /** Absolute offsets of the chunk's text in the document. */
  start: number;
  end: number;
  text: string;
  parsed: ParsedText;
  /** Path from the document root to the chunk's root node: [] or ['routes']. */
  prefix: readonly PathSeg[];
  header?: boolean;
  /** Not parsed: past MAX_DIAGNOSTICS problems, where none is listed (its text is ''). */
  skipped?: boolean;
  /** Unknown top-level keys after `name` in this chunk (see ChunkSpan.more). */
  more?: number;
}

export interface AnalysisStats {
  mode: 'chunked' | 'whole';
  chunks: number;
  /** Chunks taken from the previous version unchanged. */
  reused: number;
  /** Chunks the `yaml` library had to parse (outside the fast subset). */
  yamlParsed: number;
  /** Chunks not parsed: past MAX_DIAGNOSTICS problems (unknown top-level keys and routes). */
  skipped?: number;
  ms: number;
}

export interface RoutingAnalysis {
  /** The analysed text, lone CRs written as LF (the same offsets as the document). */
  text: string;
  lineStarts: number[];
  chunks: AnalyzedChunk[];
  diagnostics: Diagnostic[];
  stats: AnalysisStats;
}

interface ChunkResult {
  /**
   * The chunk's text. A slice of the document in the analysis without a previous version (that
   * text is the document's current one, kept anyway); after an edit, a copy of its own (a slice
   * would keep that version of the whole document alive as long as the chunk is reused).
   */
  text: string;
  parsed: ParsedText;
  /** Syntax errors, route-level schema errors (route chunks) and local checks. */
  local: readonly RelDiag[];
  preflights: readonly PreflightInfo[];
}

interface Placed {
  base: number;
  d: RelDiag;
}

const YIELD_EVERY = 200;
/** Chunks gone through between two yields in the passes over every chunk after they are parsed. */
const YIELD_POST = 20000;

/**
 * Of the top-level keys the schema does not know (each an error, whatever its value), the first
 * this many are validated and listed (hostile input has hundreds of thousands); the root's errors
 * are cut after them and the required keys' errors (which come first).
 */
const UNKNOWN_KEYS_LISTED = MAX_DIAGNOSTICS + 1;
const REQUIRED_KEYS = routingSchema.required?.length ?? 0;

/** The result of a chunk that is not parsed (after more than MAX_DIAGNOSTICS problems): nothing. */
const SKIPPED: ChunkResult = Object.freeze({
  text: '',
  parsed: Object.freeze({ root: null, syntax: Object.freeze([]), anchors: false, fast: true }),
  local: Object.freeze([]),
  preflights: Object.freeze([]),
});

/** The prefixes of route and top chunks, and the empty lists of a chunk without findings (shared by every chunk). */
const ROUTE_PREFIX: readonly PathSeg[] = Object.freeze(['routes']);
const TOP_PREFIX: readonly PathSeg[] = Object.freeze([]);
const NONE: readonly never[] = Object.freeze([]);

export interface AnalyzerOptions {
  /** Split into chunks and reuse unchanged ones (default true); false analyses every text whole. */
  chunking?: boolean;
}

/** The previous chunked analysis, for reuse by offsets after an edit. */
interface Previous {
  text: string;
  split: Split;
  results: ChunkResult[];
  chunks: AnalyzedChunk[];
}

interface Running {
  input: string;
  it: Generator<void, RoutingAnalysis, void>;
  result?: RoutingAnalysis;
}

export class RoutingAnalyzer {
  private prev: Previous | undefined;
  /** The latest analysis started by steps(), which analyze() of the same text finishes instead of starting anew. */
  private running: Running | undefined;
  private last: RoutingAnalysis | undefined;
  private lastInput: string | undefined;

  constructor(private readonly options: AnalyzerOptions = {}) {}

  /** The most recent analysis (for hover, completion, code actions on the same text). */
  get latest(): RoutingAnalysis | undefined {
    return this.last;
  }

  analyze(text: string): RoutingAnalysis {
    // an analysis of this text under way (a validation between slices): finish that one
    const run = this.running;
    if (run && run.input === text) {
      while (!run.result) {
        const r = run.it.next();
        if (r.done) run.result = r.value;
      }
      return run.result;
    }
    const it = this.steps(text);
    for (;;) {
      const r = it.next();
      if (r.done) return r.value;
    }
  }

  /** The analysis as a generator that yields between batches of chunks, so that a caller can abandon a stale version. */
  *steps(input: string): Generator<void, RoutingAnalysis, void> {
    if (this.last && this.lastInput === input) return this.last;
    // an analysis of this very text under way (a validation between slices, or a request waiting
    // for it): drive that one, so that two callers never analyse the same version twice
    let run = this.running;
    if (!run || run.input !== input) {
      run = { input, it: this.stepsOf(input) };
      this.running = run;
    }
    for (;;) {
      if (run.result) return run.result; // finished by analyze() meanwhile
      const r = run.it.next();
      if (r.done) return (run.result = r.value);
      yield;
    }
  }

  private *stepsOf(input: string): Generator<void, RoutingAnalysis, void> {
    if (this.last && this.lastInput === input) return this.last;
    const t0 = performance.now();
    // a lone CR is a line end (YAML 1.2, LSP) that `yaml` does not read as one: parse it as LF
    const text = normalizeLineEnds(input);
    const prev = this.prev; // replaced when this analysis completes (an abandoned one keeps it)
    const change = prev ? diffTexts(prev.text, text) : undefined;
    const split =
      (prev && change && this.options.chunking !== false ? resplit(prev.text, prev.split, text, change) : null) ??
      (yield* splitSteps(text));
    let result: RoutingAnalysis | undefined;
    try {
      if (split.chunks && split.chunks.length > 0 && this.options.chunking !== false) {
        result = yield* this.chunked(text, split, split.chunks, t0, prev, change);
      }
      if (!result) result = yield* this.whole(text, split.lineStarts, t0);
    } catch (e) {
      // the backstop behind tooDeepAt's estimate: nesting that still overflows a parser's stack
      if (!(e instanceof RangeError)) throw e;
      this.prev = undefined;
      const d: RelDiag = {
        start: 0,
        end: lineEndAt(text, 0),
        severity: 'error',
        code: 'yaml.syntax',
        message: `YAML syntax error: Nesting deeper than ${MAX_NESTING} levels is not checked.`,
        rule: 'yaml:NESTING_LIMIT',
      };
      const parsed: ParsedText = { root: null, syntax: [d], anchors: false, fast: false };
      const chunk: AnalyzedChunk = { role: 'whole', name: '', start: 0, end: text.length, text, parsed, prefix: [] };
      result = finish(
        text,
        split.lineStarts,
        [chunk],
        [{ base: 0, d }],
        { mode: 'whole', chunks: 1, reused: 0, yamlParsed: 1, ms: 0 },
        t0,
      );
    }
    this.last = result;
    this.lastInput = input;
    if (this.running?.input === input) this.running = undefined;
    return result;
  }

  private *chunked(
    text: string,
    split: Split,
    spans: ChunkSpan[],
    t0: number,
    prev: Previous | undefined,
    change: TextChange | undefined,
  ): Generator<void, RoutingAnalysis | undefined, void> {
    const lineStarts = split.lineStarts;
    const chunks: AnalyzedChunk[] = [];
    const results: ChunkResult[] = [];
    // A chunk wholly inside the unchanged prefix or suffix, with the same bounds and role as one
    // of the previous version, has the same text: its result is taken over (no hashing of texts).
    const old = prev?.split.chunks ?? [];
    const delta = prev ? text.length - prev.text.length : 0;
    const changedEnd = change ? text.length - change.suffix : 0;
    let a = 0;
    let reused = 0;
    let yamlParsed = 0;
    // Problems certain to be listed before the chunk at hand (its predecessors' own, and one per
    // key the schema does not know at the top, as many as the root's errors can take): once more
    // than MAX_DIAGNOSTICS, no problem further on is ever listed, so unknown top-level keys and
    // routes from there on are not parsed (known top-level keys still are: they decide the root's
    // problems, listed earlier).
    let certain = 0;
    let unknownKeys = 0;
    let skipped = 0;
    for (let i = 0; i < spans.length; i++) {
      const span = spans[i];
      const skip =
        (certain > MAX_DIAGNOSTICS || span.more !== undefined) && !(span.role === 'top' && TOP_KEYS.has(span.name));
      let r: ChunkResult | undefined;
      let chunk: AnalyzedChunk | undefined;
      if (skip) {
        r = SKIPPED;
        skipped++;
      } else if (prev && change) {
        const shift = span.end <= change.prefix ? 0 : span.start >= changedEnd ? delta : undefined;
        if (shift !== undefined) {
          const at = span.start - shift;
          while (a < old.length && old[a].start < at) a++;
          const o = old[a];
          if (
            o &&
            o.start === at &&
            o.end === span.end - shift &&
            o.role === span.role &&
            !o.header === !span.header &&
            prev.results[a] !== SKIPPED
          ) {
            r = prev.results[a];
            const c = prev.chunks[a];
            chunk = shift === 0 ? c : { ...c, start: span.start, end: span.end };
          }
        }
      }
      if (r) {
        if (!skip) reused++;
      } else {
        const slice = text.slice(span.start, span.end);
        r = yield* computeChunk(span, prev ? copyOf(slice) : slice);
        if (!r.parsed.fast) yamlParsed++;
        if (r.parsed.anchors) return undefined; // anchors may point across chunks: analyse whole
      }
      results.push(r);
      chunks.push(
        chunk ?? {
          role: span.role,
          name: span.name,
          start: span.start,
          end: span.end,
          text: r.text,
          parsed: r.parsed,
          prefix: span.role === 'route' ? ROUTE_PREFIX : TOP_PREFIX,
          header: span.header,
          skipped: r === SKIPPED,
          more: span.more,
        },
      );
      if (!skip) {
        certain += r.local.length;
        // an unknown key the root's errors name (as chosen below: its chunk parsed without error)
        if (span.role === 'top' && !TOP_KEYS.has(span.name) && unknownKeys < UNKNOWN_KEYS_LISTED) {
          const root = r.parsed.root;
          if (
            root &&
            root.kind === 'map' &&
            root.pairs.length === 1 &&
            !r.parsed.syntax.some((d) => d.severity === 'error')
          ) {
            unknownKeys++;
            certain++;
          }
        }
      }
      if (i % YIELD_EVERY === YIELD_EVERY - 1) yield;
    }
    this.prev = { text, split, results, chunks };

    const placed: Placed[] = [];
    for (let i = 0; i < chunks.length; i++) {
      for (const d of results[i].local) placed.push({ base: chunks[i].start, d });
      if (i % YIELD_POST === YIELD_POST - 1) yield;
    }

    // The root object, with the routes stubbed (route chunks are validated on their own), and
    // the first UNKNOWN_KEYS_LISTED unknown keys parsed without error.
    const rootValue: Record<string, unknown> = {};
    const broken = new Set<string>();
    const topByName = new Map<string, number>();
    let unknown = 0;
    for (let i = 0; i < chunks.length; i++) {
      if (i % YIELD_POST === YIELD_POST - 1) yield;
      const c = chunks[i];
      if (c.role !== 'top') continue;
      topByName.set(c.name, i);
      const root = c.parsed.root;
      const pair = root && root.kind === 'map' && root.pairs.length === 1 ? root.pairs[0] : undefined;
      if (c.parsed.syntax.some((d) => d.severity === 'error') || !pair) {
        broken.add(c.name);
        continue;
      }
      if (!TOP_KEYS.has(c.name) && ++unknown > UNKNOWN_KEYS_LISTED) continue;
      setProp(rootValue, c.name, c.header ? {} : pair.value.value);
    }
    const validate = validators().root;
    if (!validate(rootValue) && validate.errors) {
      const groups = new Map<number, ErrorObject[]>();
      for (const e of validate.errors.slice(0, UNKNOWN_KEYS_LISTED + REQUIRED_KEYS)) {
        const segs = parsePointer(e.instancePath);
        let target: number | undefined;
        if (segs.length === 0) {
          const p = e.params as { missingProperty?: string; additionalProperty?: string };
          if (e.keyword === 'required') target = broken.has(String(p.missingProperty)) ? undefined : firstTop(chunks);
          else if (e.keyword === 'additionalProperties') target = topByName.get(String(p.additionalProperty));
          else target = firstTop(chunks);
        } else if (!broken.has(segs[0])) {
          target = topByName.get(segs[0]);
        }
        if (target === undefined) continue;
        const list = groups.get(target) ?? [];
        list.push(e);
        groups.set(target, list);
      }
      for (const [i, errs] of groups) {
        const c = chunks[i];
        if (!c.parsed.root) continue;
        for (const d of mapSchemaErrors(errs, { root: c.parsed.root, text: c.text, prefix: [] }))
          placed.push({ base: c.start, d });
      }
    }

    // Cross-chunk checks: duplicate route keys, preflight lists over the policy's cap.
    const firstRoute = new Map<string, number>();
    for (let i = 0; i < chunks.length; i++) {
      if (i % YIELD_POST === YIELD_POST - 1) yield;
      const c = chunks[i];
      if (c.role !== 'route') continue;
      const root = c.parsed.root;
      const pair = root && root.kind === 'map' ? root.pairs[0] : undefined;
      if (!pair) continue;
      const prev = firstRoute.get(c.name);
      if (prev === undefined) firstRoute.set(c.name, c.start + pair.key.start);
      else
        placed.push({
          base: c.start,
          d: duplicateRouteDiag({ key: pair.key, name: c.name }, lineOf(lineStarts, prev) + 1),
        });
    }
    const max = maxItems(rootValue);
    if (max !== undefined) {
      for (let i = 0; i < chunks.length; i++) {
        for (const info of results[i].preflights) {
          const d = overCapDiag(info, max);
          if (d) placed.push({ base: chunks[i].start, d });
        }
      }
    }
    return finish(
      text,
      lineStarts,
      chunks,
      placed,
      { mode: 'chunked', chunks: chunks.length, reused, yamlParsed, ms: 0, ...(skipped ? { skipped } : {}) },
      t0,
    );
  }

  private *whole(text: string, lineStarts: number[], t0: number): Generator<void, RoutingAnalysis, void> {
    this.prev = undefined;
    const parsed = yield* parseTextSteps(text);
    const placed: Placed[] = parsed.syntax.map((d) => ({ base: 0, d }));
    const root: RNode = parsed.root ?? { kind: 'scalar', start: 0, end: 0, value: null, style: 'empty' };
    if (!parsed.pieces && !parsed.syntax.some((d) => d.severity === 'error')) {
      const out: RelDiag[] = [];
      // Like the chunked path: the root with its routes stubbed, then each route on its own (so
      // that both paths report the same, including routes shadowed by a duplicate key).
      const routesPair = root.kind === 'map' ? getPair(root, 'routes') : undefined;
      const routesMap = routesPair && routesPair.value.kind === 'map' ? routesPair.value : undefined;
      // built anew by each read of a fast-parsed map: read once, and without the routes' values
      // (megabytes in a large table: each route is validated on its own below)
      const rootValue = routesMap && root.kind === 'map' ? withRoutesStubbed(root) : root.value;
      const validate = validators().root;
      if (!validate(rootValue) && validate.errors)
        out.push(...mapSchemaErrors(validate.errors.slice(0, MAX_DIAGNOSTICS + 1), { root, text, prefix: [] }));
      if (routesMap) {
        const validateRoutes = validators().routes;
        let k = 0;
        for (const p of routesMap.pairs) {
          if (++k % YIELD_EVERY === 0) yield;
          const one: RMap = {
            kind: 'map',
            start: p.key.start,
            end: p.value.end,
            flow: routesMap.flow,
            pairs: [p],
            value: {},
          };
          setProp(one.value, p.name, p.value.value);
          if (!validateRoutes(one.value) && validateRoutes.errors)
            out.push(
              ...mapSchemaErrors(validateRoutes.errors.slice(0, MAX_DIAGNOSTICS + 1), {
                root: one,
                text,
                prefix: ['routes'],
              }),
            );
        }
      }
      const preflights: PreflightInfo[] = [];
      if (root.kind === 'map') {
        const def = getPair(root, 'default');
        if (def) checkRoute(text, def.value, ['default'], out, preflights);
        const routes = getPair(root, 'routes');
        if (routes && routes.value.kind === 'map')
          for (const [k, p] of routes.value.pairs.entries()) {
            if (k % YIELD_EVERY === YIELD_EVERY - 1) yield;
            checkRoute(text, p.value, ['routes', p.name], out, preflights);
          }
        checkDag(text, getPair(root, 'dag')?.value, out, preflights);
      }
      checkDuplicateKeys(root, [], out, (o) => lineOf(lineStarts, o));
      const max = maxItems(rootValue);
      if (max !== undefined) {
        for (const info of preflights) {
          const d = overCapDiag(info, max);
          if (d) out.push(d);
        }
      }
      for (const d of out) placed.push({ base: 0, d });
    }
    const chunk: AnalyzedChunk = { role: 'whole', name: '', start: 0, end: text.length, text, parsed, prefix: [] };
    return finish(
      text,
      lineStarts,
      [chunk],
      placed,
      { mode: 'whole', chunks: 1, reused: 0, yamlParsed: parsed.fast ? 0 : 1, ms: 0 },
      t0,
    );
  }
}

/** The root map's value with `routes` as {} (what toJS() gives, but the routes). */
function withRoutesStubbed(root: RMap): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  for (const p of root.pairs) setProp(value, p.name, p.name === 'routes' ? {} : p.value.value);
  return value;
}

function firstTop(chunks: AnalyzedChunk[]): number | undefined {
  const i = chunks.findIndex((c) => c.role === 'top');
  return i < 0 ? undefined : i;
}

function maxItems(rootValue: unknown): number | undefined {
  if (!rootValue || typeof rootValue !== 'object') return undefined;
  const pf = (rootValue as Record<string, unknown>).preflight;
  if (!pf || typeof pf !== 'object') return undefined;
  const m = (pf as Record<string, unknown>).max_items;
  return typeof m === 'number' && Number.isInteger(m) && m >= 1 ? m : undefined;
}

function checkDag(text: string, dag: RNode | undefined, out: RelDiag[], preflights: PreflightInfo[]): void {
  if (!dag || dag.kind !== 'map') return;
  for (const block of ['route', 'task_route']) {
    const p = getPair(dag, block);
    if (p) checkRoute(text, p.value, ['dag', block], out, preflights);
  }
}

/** A flat copy of `s`, so that slices taken from it (keys, values) keep only it alive, not the document. */
function copyOf(s: string): string {
  return (' ' + s).slice(1);
}

/** Parses and checks one chunk; the result depends only on the chunk's text. */
function* computeChunk(span: ChunkSpan, text: string): Generator<void, ChunkResult, void> {
  const r = checkChunk(span, text, yield* parseTextSteps(text));
  return {
    text,
    parsed: r.parsed,
    local: r.local.length ? r.local : NONE,
    preflights: r.preflights.length ? r.preflights : NONE,
  };
}

function checkChunk(span: ChunkSpan, text: string, parsed: ParsedText): ChunkResult {
  const local: RelDiag[] = [...parsed.syntax];
  const preflights: PreflightInfo[] = [];
  if (parsed.syntax.some((d) => d.severity === 'error')) return { text, parsed, local, preflights };
  const root = parsed.root;
  if (!root || root.kind !== 'map' || root.pairs.length !== 1) return { text, parsed, local, preflights };
  const pair = root.pairs[0];
  if (span.role === 'route') {
    const validate = validators().routes;
    // {name: route}, what the routes validator takes (root.value), as an object without a prototype:
    // a plain one would get a hidden class of its own for each route key
    const data = Object.create(null) as Record<string, unknown>;
    setProp(data, pair.name, pair.value.value);
    if (!validate(data) && validate.errors)
      local.push(...mapSchemaErrors(validate.errors.slice(0, MAX_DIAGNOSTICS + 1), { root, text, prefix: ['routes'] })); // more are never shown
    checkRoute(text, pair.value, ['routes', pair.name], local, preflights);
    checkDuplicateKeys(pair.value, ['routes', pair.name], local);
  } else {
    if (pair.name === 'default') checkRoute(text, pair.value, ['default'], local, preflights);
    else if (pair.name === 'dag') checkDag(text, pair.value, local, preflights);
    else if (pair.name === 'routes' && pair.value.kind === 'map') {
      for (const p of (pair.value as RMap).pairs) checkRoute(text, p.value, ['routes', p.name], local, preflights);
    }
    checkDuplicateKeys(root, [], local);
  }
  return { text, parsed, local, preflights };
}

function finish(
  text: string,
  lineStarts: number[],
  chunks: AnalyzedChunk[],
  placed: Placed[],
  stats: AnalysisStats,
  t0: number,
): RoutingAnalysis {
  placed.sort((a, b) => a.base + a.d.start - (b.base + b.d.start) || a.base + a.d.end - (b.base + b.d.end));
  const shown = placed.length > MAX_DIAGNOSTICS ? placed.slice(0, MAX_DIAGNOSTICS) : placed;
  const diagnostics = shown.map(({ base, d }) => toDiagnostic(lineStarts, base, d));
  if (shown !== placed) {
    const at = placed[MAX_DIAGNOSTICS].base + placed[MAX_DIAGNOSTICS].d.start;
    diagnostics.push(
      toDiagnostic(lineStarts, 0, {
        start: at,
        end: at,
        severity: 'warning',
        code: 'routing.limit',
        message: `More than ${MAX_DIAGNOSTICS.toLocaleString('en-US')} problems: the rest, from here on, are not listed.`,
        rule: 'limit:diagnostics',
      }),
    );
  }
  stats.ms = performance.now() - t0;
  return { text, lineStarts, chunks, diagnostics, stats };
}

export function toDiagnostic(lineStarts: readonly number[], base: number, d: RelDiag): Diagnostic {
  const data: RoutingDiagnosticData = {};
  if (d.fixes && d.fixes.length) {
    data.fixes = d.fixes.map((f) => ({
      title: f.title,
      ...(f.preferred ? { isPreferred: true } : {}),
      edits: f.edits.map((e) => ({ range: rangeAt(lineStarts, base + e.start, base + e.end), newText: e.newText })),
    }));
  }
  if (d.rule) data.rule = d.rule;
  return {
    range: rangeAt(lineStarts, base + d.start, base + d.end),
    severity: d.severity,
    code: d.code,
    message: d.message,
    source: SOURCE,
    ...(data.fixes || data.rule ? { data } : {}),
  };
}

/** Analyses one routing table from scratch (the CLI's entry point). */
export function validateRouting(text: string): Diagnostic[] {
  return new RoutingAnalyzer().analyze(text).diagnostics;
}

/** The chunk holding absolute offset `offset` (binary search). */
export function chunkAt(analysis: RoutingAnalysis, offset: number): AnalyzedChunk | undefined {
  const cs = analysis.chunks;
  let lo = 0;
  let hi = cs.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (offset < cs[mid].start) hi = mid - 1;
    else if (offset >= cs[mid].end && !(mid === cs.length - 1 && offset === cs[mid].end)) lo = mid + 1;
    else return cs[mid];
  }
  return undefined;
}
