// The text of the member files of one folder (not its subfolders), each read capped by
// readTextIfSmall: a file that is unreadable, gone, not a file or over the cap is left out (never
// an exception); a folder that cannot be listed gives an empty map. Sorted by path. Used by the
// language server's group files and by `session-ops validate` for the pages of a folder.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { MAX_TEXT_BYTES, readTextIfSmall } from './readText';

export async function readFolderTexts(
  folder: string,
  member: (filePath: string) => boolean,
  maxBytes = MAX_TEXT_BYTES,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(folder, { withFileTypes: true });
  } catch {
    return out;
  }
  await Promise.all(
    entries.map(async (e) => {
      const full = path.join(folder, e.name);
      if (!(e.isFile() || e.isSymbolicLink()) || !member(full)) return;
      const text = await readTextIfSmall(full, maxBytes);
      if (text !== undefined) out.set(full, text);
    }),
  );
  // Sorted by path, whatever order the reads finished in.
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
