// Checks the schema cannot express. These are warnings:
//   routing.skip-and-keep          a stage in both skip and keep_gates of one route
//   routing.duplicate-preflight-id two preflight items of one list share an id
//   routing.preflight-over-cap     a preflight list longer than preflight.max_items (names what the policy drops)
//   routing.low-effort-pipeline    effort: low on a route that runs a pipeline
// A mapping with a duplicate key is an error everywhere: `routing.duplicate-route` for a route key
// defined twice (naming the first line), `yaml.duplicate-key` for any other key. Pure.
import { getPair, type PathSeg, type RMap, type RNode, type RPair, type RSeq } from './rnode';
import { removeSeqItem } from './fixes';
import { STAGES } from './schema';
import type { RelDiag } from './types';

/** What the over-cap check needs to know about one preflight list (offsets relative to its chunk). */
export interface PreflightInfo {
  /** Where the route lives, for messages: "default", "routes.Kind/Bug", "dag.route". */
  where: string;
  keyStart: number;
  keyEnd: number;
  items: { id: string | undefined; cycle: string | undefined; index: number }[];
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
  const label = routeLabel(path);
  const skipPair = getPair(map, 'skip');
  const keepPair = getPair(map, 'keep_gates');
  const skip = asSeq(skipPair?.value);
  const keep = asSeq(keepPair?.value);

  // 1. a stage both skipped and kept
  if (skip && keep && skipPair) {
    const skipped = new Map<string, number>();
    skip.items.forEach((it, i) => {
      if (typeof it.value === 'string' && !skipped.has(it.value)) skipped.set(it.value, i);
    });
    const reported = new Set<string>();
    for (const it of keep.items) {
      const v = it.value;
      if (typeof v !== 'string' || !skipped.has(v) || reported.has(v)) continue;
      reported.add(v);
      const si = skipped.get(v) as number;
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
    checkPreflightIds(text, pf, pfPair, label, out);
    preflights.push({
      where: label,
      keyStart: pfPair.key.start,
      keyEnd: pfPair.key.end,
      items: pf.items.map((it, index) => {
        const m = asMap(it);
        const id = m ? getPair(m, 'id')?.value.value : undefined;
        const cycle = m ? getPair(m, 'added_cycle')?.value.value : undefined;
        return {
          id: typeof id === 'string' ? id : id === undefined || id === null ? undefined : String(id),
          cycle: typeof cycle === 'string' ? cycle : cycle === undefined || cycle === null ? undefined : String(cycle),
          index,
        };
      }),
    });
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

function checkPreflightIds(text: string, pf: RSeq, pfPair: RPair, label: string, out: RelDiag[]): void {
  const seen = new Map<string, number>();
  pf.items.forEach((it, i) => {
    const m = asMap(it);
    if (!m) return;
    const idPair = getPair(m, 'id');
    const id = idPair?.value.value;
    if (typeof id !== 'string' || !idPair) return;
    const first = seen.get(id);
    if (first === undefined) {
      seen.set(id, i);
      return;
    }
    out.push({
      start: idPair.value.start,
      end: idPair.value.end,
      severity: 'warning',
      code: 'routing.duplicate-preflight-id',
      message: `Duplicate preflight id "${id}" in ${label} (also item ${first + 1}); ids must be stable and unique.`,
      fixes: [{ title: `Remove preflight item ${i + 1}`, edits: removeSeqItem(text, pf, i, pfPair) }],
    });
  });
}

/** Natural ordering of cycle ids ("C2" before "C10"); items without a cycle are treated as oldest. */
export function compareCycles(a: string | undefined, b: string | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  return a.localeCompare(b, 'en', { numeric: true, sensitivity: 'base' });
}

/** The indices the policy would drop from a list over `max`: oldest added_cycle first, earlier items first among equals. */
export function itemsToDrop(items: PreflightInfo['items'], max: number): PreflightInfo['items'] {
  const order = [...items].sort((x, y) => compareCycles(x.cycle, y.cycle) || x.index - y.index);
  return order.slice(0, Math.max(0, items.length - max));
}

export function overCapDiag(info: PreflightInfo, max: number): RelDiag | undefined {
  if (info.items.length <= max) return undefined;
  const drop = itemsToDrop(info.items, max);
  const names = drop.map(
    (d) =>
      `${d.id !== undefined ? `"${d.id}"` : `item ${d.index + 1}`} (${d.cycle !== undefined ? `added_cycle ${d.cycle}` : 'no added_cycle'})`,
  );
  return {
    start: info.keyStart,
    end: info.keyEnd,
    severity: 'warning',
    code: 'routing.preflight-over-cap',
    message: `Preflight list of ${info.where} has ${info.items.length} items, more than preflight.max_items (${max}); the policy would drop ${names.join(', ')}.`,
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
    if (node.pairs.length > 1) {
      const seen = new Map<string, RPair>();
      for (const p of node.pairs) {
        const prev = seen.get(p.name);
        if (prev)
          out.push(
            isRoutes
              ? duplicateRouteDiag(p, lineOfOffset ? lineOfOffset(prev.key.start) + 1 : undefined)
              : duplicateKeyDiag(p),
          );
        else seen.set(p.name, p);
      }
    }
    for (const p of node.pairs) {
      if (p.value.kind === 'map' || p.value.kind === 'seq') {
        path.push(p.name);
        checkDuplicateKeys(p.value, path, out, lineOfOffset);
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
