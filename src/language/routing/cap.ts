// The preflight cap, one function for every caller (the `routing.preflight-over-cap` diagnostic,
// route resolution, the hover): beyond `preflight.max_items`, items are dropped oldest
// `added_cycle` first, cycle ids compared in natural order (C9 before C10; among items of one
// cycle the earlier in the document first); items without a cycle are dropped last, the later in
// the document first. No max_items: nothing is dropped. Pure.

/** One preflight item as the cap sees it: its cycle (undefined: none) and its place in the list. */
export interface CapItem {
  cycle: string | undefined;
  index: number;
}

/** Natural order of cycle ids ("C2" before "C10"); both must be present. */
export function compareCycleIds(a: string, b: string): number {
  if (a === b) return 0;
  return a.localeCompare(b, 'en', { numeric: true, sensitivity: 'base' });
}

/** The order in which the cap drops items: the first one is dropped first. */
function dropOrder<T extends CapItem>(x: T, y: T): number {
  if (x.cycle !== undefined && y.cycle !== undefined) return compareCycleIds(x.cycle, y.cycle) || x.index - y.index;
  if (x.cycle !== undefined) return -1; // an item with a cycle goes before one without
  if (y.cycle !== undefined) return 1;
  return y.index - x.index; // neither has one: the later in the document first
}

/**
 * The items `max` drops from `items`, in the order they are dropped (undefined `max`: none).
 * `items` may be given in any order; their `index` is their place in the document.
 */
export function itemsToDrop<T extends CapItem>(items: readonly T[], max: number | undefined): T[] {
  if (max === undefined || items.length <= max) return [];
  return [...items].sort(dropOrder).slice(0, items.length - Math.max(0, max));
}

/** The list split by the cap: kept and dropped, each in document order. */
export function applyCap<T extends CapItem>(items: readonly T[], max: number | undefined): { kept: T[]; dropped: T[] } {
  const drop = new Set(itemsToDrop(items, max));
  const byIndex = (a: T, b: T) => a.index - b.index;
  return {
    kept: items.filter((i) => !drop.has(i)).sort(byIndex),
    dropped: items.filter((i) => drop.has(i)).sort(byIndex),
  };
}
