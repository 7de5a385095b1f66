// The files of document groups (the pages of a source-analysis folder) as the server sees them:
// read from disk once per folder (src/language/fs/readFolder, each file capped) and kept until a file event from the client's watcher (a save,
// a create, a delete) or a close says the disk changed; open documents override disk. Also finds the group folders of the workspace (the
// bounded walk of src/language/fs/walk) for the Port analysis view.
import * as path from 'node:path';
import { readFolderTexts } from '../src/language/fs/readFolder';
import { walk } from '../src/language/fs/walk';
import { pathKey } from './paths';

export class GroupFiles {
  private readonly disk = new Map<string, Promise<Map<string, string>>>();

  /** Member files of `folder` on disk (path → text); cached. */
  private onDisk(folder: string, member: (filePath: string) => boolean): Promise<Map<string, string>> {
    const key = pathKey(folder);
    let p = this.disk.get(key);
    if (!p) {
      p = readFolderTexts(folder, member);
      this.disk.set(key, p);
    }
    return p;
  }

  /** The group's files: disk, with `open` (path → current text) laid over it. */
  async files(
    folder: string,
    member: (filePath: string) => boolean,
    open: ReadonlyMap<string, string>,
  ): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    const opened = new Set<string>();
    for (const [p, text] of open) {
      if (pathKey(path.dirname(p)) !== pathKey(folder) || !member(p)) continue;
      opened.add(pathKey(p));
      out.set(p, text);
    }
    for (const [p, text] of await this.onDisk(folder, member)) {
      if (!opened.has(pathKey(p))) out.set(p, text);
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

/** Every group folder under the roots (a root that is one counts), found by the bounded walk of src/language/fs/walk. */
export async function findFolders(
  roots: readonly string[],
  isGroupFolder: (folderPath: string) => boolean,
): Promise<string[]> {
  const found = new Set<string>();
  for (const r of roots) {
    if (isGroupFolder(r)) {
      found.add(r);
      continue;
    }
    const w = await walk(r, { include: () => false, descend: (f) => !isGroupFolder(f) });
    for (const f of w.folders) if (isGroupFolder(f.path)) found.add(f.path);
  }
  return [...found].sort();
}
