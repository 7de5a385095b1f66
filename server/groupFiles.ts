// The files of document groups (the pages of a source-analysis folder) as the server sees them:
// read from disk once per folder and kept until a file event, a close or a save says the disk
// changed; open documents override disk. Also finds the source-analysis folders of the workspace
// (a bounded walk, skipping dot-folders and node_modules) for the Port analysis view.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

const MAX_BYTES = 4 * 1024 * 1024;
const MAX_DIRS = 20_000;
const MAX_DEPTH = 12;

/** Comparable form of a path (Windows paths compare case-insensitively). */
export function pathKey(p: string): string {
  return process.platform === 'win32' ? p.toLowerCase() : p;
}

export class GroupFiles {
  private readonly disk = new Map<string, Promise<Map<string, string>>>();

  /** Member files of `folder` on disk (path → text); cached. */
  onDisk(folder: string, member: (filePath: string) => boolean): Promise<Map<string, string>> {
    const key = pathKey(folder);
    let p = this.disk.get(key);
    if (!p) {
      p = readFolder(folder, member);
      this.disk.set(key, p);
    }
    return p;
  }

  /** The group's files: disk, with `open` (path → current text) laid over it. */
  async files(folder: string, member: (filePath: string) => boolean, open: ReadonlyMap<string, string>): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const byKey = new Map<string, string>();
    for (const [p, text] of open) {
      if (pathKey(path.dirname(p)) === pathKey(folder) && member(p)) {
        byKey.set(pathKey(p), p);
        out.set(p, text);
      }
    }
    for (const [p, text] of await this.onDisk(folder, member)) {
      if (!byKey.has(pathKey(p))) out.set(p, text);
    }
    return out;
  }

  /** Forgets what was read of the folder holding `filePath` (or of `filePath` when it is a folder). */
  invalidate(filePath: string, isFolder = false): void {
    this.disk.delete(pathKey(isFolder ? filePath : path.dirname(filePath)));
    if (!isFolder) this.disk.delete(pathKey(filePath)); // a deleted folder reported as a file
  }

  clear(): void {
    this.disk.clear();
  }
}

async function readFolder(folder: string, member: (filePath: string) => boolean): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(folder, { withFileTypes: true });
  } catch {
    return out;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  await Promise.all(
    entries.map(async (e) => {
      const full = path.join(folder, e.name);
      if (!(e.isFile() || e.isSymbolicLink()) || !member(full)) return;
      try {
        const st = await fs.stat(full);
        if (!st.isFile() || st.size > MAX_BYTES) return;
        out.set(full, await fs.readFile(full, 'utf8'));
      } catch {
        /* unreadable or gone: not part of the set */
      }
    }),
  );
  // Sorted by path, whatever order the reads finished in.
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Every folder named `folderName` (case-insensitive) under the roots; a root that is one counts. */
export async function findFolders(roots: readonly string[], folderName: string): Promise<string[]> {
  const found = new Set<string>();
  const wanted = folderName.toLowerCase();
  const queue: { dir: string; depth: number }[] = [];
  for (const r of roots) {
    if (path.basename(r).toLowerCase() === wanted) found.add(r);
    else queue.push({ dir: r, depth: 0 });
  }
  let dirs = 0;
  while (queue.length > 0 && dirs < MAX_DIRS) {
    const { dir, depth } = queue.shift() as { dir: string; depth: number };
    dirs++;
    let entries: import('node:fs').Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (!e.isDirectory() || e.name.startsWith('.') || e.name === 'node_modules') continue;
      const full = path.join(dir, e.name);
      if (e.name.toLowerCase() === wanted) found.add(full);
      else if (depth < MAX_DEPTH) queue.push({ dir: full, depth: depth + 1 });
    }
  }
  return [...found].sort();
}
