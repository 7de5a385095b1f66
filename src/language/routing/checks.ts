// Checks the schema cannot express. These are warnings:
//   routing.skip-and-keep          a stage in both skip and keep_gates of one route
//   routing.duplicate-preflight-id two preflight items of one list share an id
//   routing.low-effort-pipeline    effort: low on a route that runs a pipeline
// A mapping with a duplicate key is an error everywhere: `routing.duplicate-route` for a route key
// defined twice (naming the first line), `yaml.duplicate-key` for any other key. And one
// information: `routing.preflight-over-cap`, a preflight list longer than preflight.max_items,
// naming what the cap (./cap.ts, the rule every caller shares) drops, in the order it drops them.
// Pure.
import { collectionValue, getPair, type PathSeg, type RMap, type RNode, type RPair, type RSeq } from './rnode';
import { itemsToDrop, type CapItem } from './cap';
import { removeSeqItem } from './fixes';
import { STAGES } from './schema';
import type { RelDiag } from './types';

/** What the over-cap check needs to know about one preflight list (offsets relative to its chunk). */
export interface PreflightInfo {
  /** Where the route lives: ['default'], ['routes', 'Kind/Bug'], ['dag', 'route']. */
  path: readonly PathSeg[];
  /** The route's `preflight:` pair; its value is the list. */
  pair: RPair;
}

/** One preflight item as the over-cap policy sees it. */
export interface PreflightItem extends CapItem {
  id: string | undefined;
}

/** The lists a small mapping or sequence is searched in by a scan; longer ones get a Map. */
const SCAN_UP_TO = 16;

/** A node's value when it is a scalar or an alias (a collection's value is not built). */
function leafValue(n: RNode): unknown {
  return n.kind === 'scalar' || n.kind === 'alias' ? n.value : undefined;
}

function asMap(n: RNode | undefined): RMap | undefined {
  return n && n.kind === 'map' ? n : undefined;
}

function asSeq(n: RNode | undefined): RSeq | undefined {
  return n && n.kind === 'seq' ? n : undefined;
}

export function routeLabel(path: readonly PathSeg[]): string {
  if (path.length === 2 && path[0] === 'routes') return `route "${String(path[1])}"`;
  return `route "${path.join('.')}"`;
}

/**
 * Local checks of one route-like mapping (default, routes/*, dag.route, dag.task_route).
 * `text` is the text its offsets refer to (for quick-fix edits).
 */
export function checkRoute(
  text: string,
  route: RNode,
  path: readonly PathSeg[],
  out: RelDiag[],
  preflights: PreflightInfo[],
): void {
  const map = asMap(route);
  if (!map) return;
  const skipPair = getPair(map, 'skip');
  const keepPair = getPair(map, 'keep_gates');
  const skip = asSeq(skipPair?.value);
  const keep = asSeq(keepPair?.value);

  // 1. a stage both skipped and kept
  if (skip && keep && skipPair) {
    const skipped = firstIndexOfStrings(skip.items);
    let reported: Set<string> | undefined;
    for (const it of keep.items) {
      const v = leafValue(it);
      if (typeof v !== 'string' || reported?.has(v)) continue;
      const si = skipped(v);
      if (si < 0) continue;
      (reported ??= new Set()).add(v);
      const label = routeLabel(path);
      out.push({
        start: it.start,
        end: it.end,
        severity: 'warning',
        code: 'routing.skip-and-keep',
        message: `Stage "${v}" is both in skip and in keep_gates of ${label}; list it in only one of them.`,
        fixes: [
          { title: `Remove "${v}" from skip`, preferred: true, edits: removeSeqItem(text, skip, si, skipPair) },
          ...(keepPair
            ? [
                {
                  title: `Remove "${v}" from keep_gates`,
                  edits: removeSeqItem(text, keep, keep.items.indexOf(it), keepPair),
                },
              ]
            : []),
        ],
      });
    }
  }

  // 2. duplicate preflight ids, and what the over-cap check needs
  const pfPair = getPair(map, 'preflight');
  const pf = asSeq(pfPair?.value);
  if (pfPair && pf) {
    checkPreflightIds(text, pf, pfPair, path, out);
    preflights.push({ path, pair: pfPair });
  }

  // 3. effort: low on a route that runs a pipeline
  const effortPair = getPair(map, 'effort');
  if (effortPair && effortPair.value.value === 'low') {
    const running = pipelineStages(skip, keep);
    if (running.length > 0) {
      const kept = keep
        ? keep.items.map((i) => i.value).filter((v): v is string => typeof v === 'string' && STAGES.includes(v))
        : [];
      const why = kept.length > 0 ? `it keeps ${kept.join(', ')}` : `it does not skip ${running.join(', ')}`;
      const label = routeLabel(path);
      out.push({
        start: effortPair.value.start,
        end: effortPair.value.end,
        severity: 'warning',
        code: 'routing.low-effort-pipeline',
        message: `effort: low is reserved for lightweight routes without a pipeline, but ${label} runs one (${why}).`,
        fixes: [
          {
            title: 'Change effort to high',
            preferred: true,
            edits: [{ start: effortPair.value.start, end: effortPair.value.end, newText: 'high' }],
          },
        ],
      });
    }
  }
}

/** The stages a route still runs: those kept, plus those not skipped. Empty means no pipeline. */
export function pipelineStages(skip: RSeq | undefined, keep: RSeq | undefined): string[] {
  const skipped = new Set(skip ? skip.items.map((i) => i.value) : []);
  const kept = new Set(
    keep ? keep.items.map((i) => i.value).filter((v) => typeof v === 'string' && STAGES.includes(v as string)) : [],
  );
  return STAGES.filter((s) => kept.has(s) || !skipped.has(s));
}

/** The first index of each string value among `items` (scalars and aliases only), or -1. */
function firstIndexOfStrings(items: readonly RNode[]): (v: string) => number {
  if (items.length <= SCAN_UP_TO)
    return (v) => {
      for (let i = 0; i < items.length; i++) if (leafValue(items[i]) === v) return i;
      return -1;
    };
  const first = new Map<string, number>();
  items.forEach((it, i) => {
    const v = leafValue(it);
    if (typeof v === 'string' && !first.has(v)) first.set(v, i);
  });
  return (v) => first.get(v) ?? -1;
}

/** A preflight item's id: a string, or undefined. */
function idOf(it: RNode): string | undefined {
  const m = asMap(it);
  const id = m ? getPair(m, 'id')?.value : undefined;
  const v = id ? leafValue(id) : undefined;
  return typeof v === 'string' ? v : undefined;
}

function checkPreflightIds(text: string, pf: RSeq, pfPair: RPair, path: readonly PathSeg[], out: RelDiag[]): void {
  const items = pf.items;
  const seen = items.length > SCAN_UP_TO ? new Map<string, number>() : undefined;
  for (let i = 0; i < items.length; i++) {
    const id = idOf(items[i]);
    if (id === undefined) continue;
    let first = -1;
    if (seen) {
      first = seen.get(id) ?? -1;
      if (first < 0) seen.set(id, i);
    } else {
      for (let j = 0; j < i; j++)
        if (idOf(items[j]) === id) {
          first = j;
          break;
        }
    }
    if (first < 0) continue;
    const idPair = getPair(items[i] as RMap, 'id') as RPair;
    out.push({
      start: idPair.value.start,
      end: idPair.value.end,
      severity: 'warning',
      code: 'routing.duplicate-preflight-id',
      message: `Duplicate preflight id "${id}" in ${routeLabel(path)} (also item ${first + 1}); ids must be stable and unique.`,
      fixes: [{ title: `Remove preflight item ${i + 1}`, edits: removeSeqItem(text, pf, i, pfPair) }],
    });
  }
}

/** The items of a preflight list as the over-cap policy sees them. */
export function preflightItems(list: RSeq): PreflightItem[] {
  return list.items.map((it, index) => {
    const m = asMap(it);
    const id = m ? getPair(m, 'id')?.value.value : undefined;
    const cycle = m ? getPair(m, 'added_cycle')?.value.value : undefined;
    return {
      id: typeof id === 'string' ? id : id === undefined || id === null ? undefined : String(id),
      cycle: typeof cycle === 'string' ? cycle : cycle === undefined || cycle === null ? undefined : String(cycle),
      index,
    };
  });
}

export function overCapDiag(info: PreflightInfo, max: number): RelDiag | undefined {
  const list = info.pair.value as RSeq;
  if (list.items.length <= max) return undefined;
  const items = preflightItems(list);
  const drop = itemsToDrop(items, max);
  const names = drop.map(
    (d) =>
      `${d.id !== undefined ? `"${d.id}"` : `item ${d.index + 1}`} (${d.cycle !== undefined ? `added_cycle ${d.cycle}` : 'no added_cycle'})`,
  );
  return {
    start: info.pair.key.start,
    end: info.pair.key.end,
    severity: 'information',
    code: 'routing.preflight-over-cap',
    message: `Preflight list of ${routeLabel(info.path)} has ${items.length} items, more than preflight.max_items (${max}); the policy would drop ${names.join(', ')}.`,
  };
}

/**
 * Duplicate keys in every mapping under `node` (an error: YAML keys must be unique); in the routes
 * mapping itself they are reported as routing.duplicate-route (also an error).
 */
export function checkDuplicateKeys(
  node: RNode | null,
  path: PathSeg[],
  out: RelDiag[],
  lineOfOffset?: (offset: number) => number,
): void {
  if (!node) return;
  if (node.kind === 'map') {
    const isRoutes = path.length === 1 && path[0] === 'routes';
    const pairs = node.pairs;
    if (pairs.length > 1) {
      const seen = pairs.length > SCAN_UP_TO ? new Map<string, RPair>() : undefined;
      for (let i = 0; i < pairs.length; i++) {
        const p = pairs[i];
        let prev: RPair | undefined;
        if (seen) {
          prev = seen.get(p.name);
          if (!prev) seen.set(p.name, p);
        } else {
          for (let j = 0; j < i; j++)
            if (pairs[j].name === p.name) {
              prev = pairs[j];
              break;
            }
        }
        if (prev)
          out.push(
            isRoutes
              ? duplicateRouteDiag(p, lineOfOffset ? lineOfOffset(prev.key.start) + 1 : undefined)
              : duplicateKeyDiag(p),
          );
      }
    }
    for (const p of node.pairs) {
      const v = collectionValue(p);
      if (v) {
        path.push(p.name);
        checkDuplicateKeys(v, path, out, lineOfOffset);
        path.pop();
      }
    }
  } else if (node.kind === 'seq') {
    for (let i = 0; i < node.items.length; i++) {
      const it = node.items[i];
      if (it.kind === 'map' || it.kind === 'seq') {
        path.push(i);
        checkDuplicateKeys(it, path, out, lineOfOffset);
        path.pop();
      }
    }
  }
}

export function duplicateKeyDiag(p: RPair): RelDiag {
  return {
    start: p.key.start,
    end: p.key.end,
    severity: 'error',
    code: 'yaml.duplicate-key',
    message: `Duplicate key "${p.name}": keys of a mapping must be unique.`,
  };
}

/** `firstLine` is the 1-based line of the first definition when known. */
export function duplicateRouteDiag(
  p: { key: { start: number; end: number }; name: string },
  firstLine: number | undefined,
): RelDiag {
  return {
    start: p.key.start,
    end: p.key.end,
    severity: 'error',
    code: 'routing.duplicate-route',
    message: `Duplicate route key "${p.name}"${firstLine !== undefined ? ` (first on line ${firstLine})` : ''}: keys of a mapping must be unique.`,
  };
}
