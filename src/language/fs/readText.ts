// Reads a workspace file as text for a background index or a page set: files larger than
// MAX_TEXT_BYTES, folders and unreadable paths give undefined (never an exception).
import { promises as fs } from 'node:fs';

export const MAX_TEXT_BYTES = 4 * 1024 * 1024;

export async function readTextIfSmall(filePath: string, maxBytes = MAX_TEXT_BYTES): Promise<string | undefined> {
  try {
    const st = await fs.stat(filePath);
    if (!st.isFile() || st.size > maxBytes) return undefined;
    return await fs.readFile(filePath, 'utf8');
  } catch {
    return undefined;
  }
}
