// Kind/* route keys used in the workspace's other routing tables, for completion of route keys.
// The folders are scanned once, in the background and bounded; open documents count with their
// current text (their sessions report their keys).
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

const ROUTE_KEY_RE = /^[ \t]+(["']?)(Kind\/[^\s:'"#]+)\1[ \t]*:/gm;
const MAX_FILES = 4000;
const MAX_DEPTH = 8;
const MAX_BYTES = 4 * 1024 * 1024;

export function routeKeysInText(text: string): string[] {
  const keys: string[] = [];
  ROUTE_KEY_RE.lastIndex = 0;
  for (let m = ROUTE_KEY_RE.exec(text); m; m = ROUTE_KEY_RE.exec(text)) keys.push(m[2]);
  return keys;
}

export class RouteKeyIndex {
  private readonly onDisk = new Map<string, string[]>();
  private scan: Promise<void> | undefined;

  constructor(
    private readonly roots: () => readonly string[],
    private readonly isRouting: (filePath: string, text: string) => boolean,
  ) {}

  /** Starts the background scan (once). */
  ensureScanned(): Promise<void> {
    this.scan ??= this.walk().catch(() => undefined);
    return this.scan;
  }

  /** Keys found on disk, excluding `exceptPath`. */
  keys(exceptPath?: string): string[] {
    const out = new Set<string>();
    for (const [p, keys] of this.onDisk) if (p !== exceptPath) for (const k of keys) out.add(k);
    return [...out];
  }

  private async walk(): Promise<void> {
    let files = 0;
    const queue: { dir: string; depth: number }[] = this.roots().map((dir) => ({ dir, depth: 0 }));
    while (queue.length > 0 && files < MAX_FILES) {
      const { dir, depth } = queue.shift() as { dir: string; depth: number };
      let entries: import('node:fs').Dirent[];
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        if (e.name.startsWith('.') || e.name === 'node_modules') continue;
        const full = path.join(dir, e.name);
        if (e.isDirectory()) {
          if (depth < MAX_DEPTH) queue.push({ dir: full, depth: depth + 1 });
        } else if (e.isFile() && /\.ya?ml$/i.test(e.name)) {
          files++;
          try {
            const st = await fs.stat(full);
            if (st.size > MAX_BYTES) continue;
            const text = await fs.readFile(full, 'utf8');
            if (this.isRouting(full, text)) this.onDisk.set(full, routeKeysInText(text));
          } catch {
            /* unreadable: skip */
          }
        }
      }
    }
  }
}
