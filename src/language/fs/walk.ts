// One bounded, breadth-first folder walk for every caller that looks through a workspace or a
// folder given on the command line (the language server's route-key index and page-folder search,
// `session-ops validate`).
//
// Rules (the same for every caller):
// - dot-folders (`.git`, `.vscode`, ...) and `node_modules` are never entered;
// - folders deeper than WALK_MAX_DEPTH below a root are not entered (a root is depth 0);
// - at most WALK_MAX_FILES files are returned (files refused by `include` do not count), and at
//   most WALK_MAX_FOLDERS folders are read;
// - symbolic links are followed, each real folder is read once (a link loop ends there);
//   a dangling link is skipped;
// - a folder that cannot be read is reported in `errors`, never thrown; the walk goes on.
// Results come in path order (each folder's entries by name, depth-first), whatever the order of
// the reads, so that output built from them is stable.
import { promises as fs, type Dirent } from 'node:fs';
import * as path from 'node:path';

/** Folders deeper than this below a root are not entered. */
export const WALK_MAX_DEPTH = 16;
/** At most this many files are returned by one walk. */
export const WALK_MAX_FILES = 10_000;
/** At most this many folders are read by one walk (the root included). */
const WALK_MAX_FOLDERS = 20_000;

export interface WalkEntry {
  /** Full path: the root joined with `segments`. */
  path: string;
  /** The names from the root down to this entry. */
  segments: readonly string[];
}

export interface WalkError {
  path: string;
  segments: readonly string[];
  error: NodeJS.ErrnoException;
}

export interface WalkOptions {
  /** Is this file wanted? Default: every file. Receives the full path. */
  include?: (filePath: string) => boolean;
  /** Enter this folder (beyond the fixed rules)? Default: yes. Folders not entered are still listed. */
  descend?: (folderPath: string) => boolean;
  /** Lower the caps (tests); the defaults are WALK_MAX_DEPTH, WALK_MAX_FILES and WALK_MAX_FOLDERS and cannot be raised. */
  maxDepth?: number;
  maxFiles?: number;
  maxFolders?: number;
}

export interface WalkResult {
  files: WalkEntry[];
  /** Every folder seen below the root (entered or not), except skipped dot-folders and node_modules. */
  folders: WalkEntry[];
  errors: WalkError[];
  /** True when a cap stopped the walk (a folder too deep, too many files or folders). */
  truncated: boolean;
}

/** Skipped by every walk. */
function isSkippedFolder(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

/** Depth-first path order: compares segment by segment. */
export function compareSegments(a: readonly string[], b: readonly string[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return a.length - b.length;
}

interface Pending {
  dir: string;
  segments: string[];
}

/** Walks `root` (a folder) breadth-first within the caps. Never throws. */
export async function walk(root: string, options: WalkOptions = {}): Promise<WalkResult> {
  const maxDepth = Math.min(options.maxDepth ?? WALK_MAX_DEPTH, WALK_MAX_DEPTH);
  const maxFiles = Math.min(options.maxFiles ?? WALK_MAX_FILES, WALK_MAX_FILES);
  const maxFolders = Math.min(options.maxFolders ?? WALK_MAX_FOLDERS, WALK_MAX_FOLDERS);
  const result: WalkResult = { files: [], folders: [], errors: [], truncated: false };
  const seen = new Set<string>();
  const queue: Pending[] = [{ dir: root, segments: [] }];
  let read = 0;
  for (let head = 0; head < queue.length; head++) {
    const { dir, segments } = queue[head];
    if (read >= maxFolders) {
      result.truncated = true;
      break;
    }
    let entries: Dirent[];
    try {
      const real = await fs.realpath(dir);
      if (seen.has(real)) continue;
      seen.add(real);
      read++;
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (err) {
      result.errors.push({ path: dir, segments, error: err as NodeJS.ErrnoException });
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const full = path.join(dir, e.name);
      const kind = await kindOf(e, full);
      if (kind === 'folder') {
        if (isSkippedFolder(e.name)) continue;
        const entry = { path: full, segments: [...segments, e.name] };
        result.folders.push(entry);
        if (options.descend && !options.descend(full)) continue;
        if (entry.segments.length > maxDepth) result.truncated = true;
        else queue.push({ dir: full, segments: entry.segments });
      } else if (kind === 'file') {
        if (options.include && !options.include(full)) continue;
        if (result.files.length >= maxFiles) {
          result.truncated = true;
          return sorted(result);
        }
        result.files.push({ path: full, segments: [...segments, e.name] });
      }
    }
  }
  return sorted(result);
}

async function kindOf(e: Dirent, full: string): Promise<'file' | 'folder' | 'other'> {
  if (e.isDirectory()) return 'folder';
  if (e.isFile()) return 'file';
  if (!e.isSymbolicLink()) return 'other';
  try {
    const st = await fs.stat(full);
    return st.isDirectory() ? 'folder' : st.isFile() ? 'file' : 'other';
  } catch {
    return 'other'; // a dangling link
  }
}

function sorted(r: WalkResult): WalkResult {
  const by = (a: WalkEntry, b: WalkEntry) => compareSegments(a.segments, b.segments);
  r.files.sort(by);
  r.folders.sort(by);
  return r;
}
