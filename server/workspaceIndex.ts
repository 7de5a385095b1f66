// Route keys (Kind/*) defined in the workspace's files that are not open, for completion of route
// keys: the files of every kind with a `routeKeysIn` hook (routing tables), found by the bounded
// walk of src/language/fs/walk, once, in the background. Open documents count with their current
// text (their sessions report their keys). A change of workspace folders starts a new scan.
import { readTextIfSmall } from '../src/language/fs/readText';
import { walk } from '../src/language/fs/walk';
import type { DocumentKind, KindSettings } from './kinds/types';

export class RouteKeyIndex {
  private onDisk = new Map<string, string[]>();
  private scan: Promise<void> | undefined;
  private generation = 0;

  constructor(
    private readonly roots: () => readonly string[],
    private readonly kinds: () => readonly DocumentKind[],
    private readonly settings: () => KindSettings,
  ) {}

  /** Starts the background scan (once). */
  ensureScanned(): Promise<void> {
    this.scan ??= this.walk(this.generation).catch(() => undefined);
    return this.scan;
  }

  /** The workspace folders changed: forget what was found and, when a scan had started, scan again. */
  rescan(): Promise<void> | undefined {
    const started = this.scan !== undefined;
    this.generation++;
    this.onDisk = new Map();
    this.scan = undefined;
    return started ? this.ensureScanned() : undefined;
  }

  /** Keys found on disk, excluding `exceptPath`. */
  keys(exceptPath?: string): string[] {
    const out = new Set<string>();
    for (const [p, keys] of this.onDisk) if (p !== exceptPath) for (const k of keys) out.add(k);
    return [...out];
  }

  private async walk(generation: number): Promise<void> {
    const kinds = this.kinds().filter((k) => k.routeKeysIn && !k.unavailable);
    if (kinds.length === 0) return;
    const settings = this.settings();
    const into = this.onDisk;
    for (const root of this.roots()) {
      const found = await walk(root, { include: (p) => kinds.some((k) => k.candidate(p, settings)) });
      for (const f of found.files) {
        if (generation !== this.generation) return;
        const text = await readTextIfSmall(f.path); // unreadable or too large: skipped
        if (text === undefined) continue;
        const kind = kinds.find((k) => k.claims(f.path, text, settings));
        if (kind?.routeKeysIn) into.set(f.path, kind.routeKeysIn(text));
      }
    }
  }
}
